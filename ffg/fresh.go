package ffg

import "github.com/arbor-ai/arbor/internal/prefault"

// fresh returns a new slice of n zero values whose pages are faulted in
// at once (package prefault): the large arrays of a Gaussian tree or
// forest, written whole by the pass that follows.
func fresh[T any](n int) []T {
	s := make([]T, n)
	prefault.Slice(s)
	return s
}
