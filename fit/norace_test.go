//go:build !race

package fit_test

const raceEnabled = false
