//go:build !race

package si_test

const raceEnabled = false
