//go:build race

package si_test

// raceEnabled relaxes the timing assertions under the race detector.
const raceEnabled = true
