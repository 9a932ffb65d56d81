package model

import "github.com/arbor-ai/arbor/internal/prefault"

// fresh returns a new slice of length n and capacity c whose pages are
// faulted in at once (package prefault): the arrays of a long model's
// elements, written whole right after.
func fresh[T any](n, c int) []T {
	s := make([]T, n, c)
	prefault.Slice(s)
	return s
}
