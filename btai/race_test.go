//go:build race

package btai_test

// raceEnabled skips the allocation counts under the race detector, which
// allocates.
const raceEnabled = true
