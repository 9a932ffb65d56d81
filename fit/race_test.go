//go:build race

package fit_test

// raceEnabled skips the statistical recovery check under the race
// detector (it tests numbers, not concurrency; CI runs it in full without
// the detector).
const raceEnabled = true
