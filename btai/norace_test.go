//go:build !race

package btai_test

const raceEnabled = false
