// Package prefault faults the pages of a large new array in at once, on
// Linux, where a first write to each page of fresh memory otherwise traps
// into the kernel once per 4 KiB page: on a virtual machine that trap
// costs several microseconds, and a model of 10^4 steps writes thousands
// of fresh pages. Populating the range in one madvise(MADV_POPULATE_WRITE)
// call gives the same zeroed pages with one entry into the kernel. It is
// advice only: elsewhere, or on a kernel without it, nothing happens and
// the pages fault in as they are written.
package prefault

import "unsafe"

// MinBytes is the size below which Slice does nothing: a few pages fault
// in as cheaply as one call.
const MinBytes = 64 << 10

// Slice faults in the pages of s's backing array up to its capacity,
// when it spans at least MinBytes. s must be freshly made (its contents
// are not changed, but populating pages already in use is wasted work).
func Slice[T any](s []T) {
	n := uintptr(cap(s)) * unsafe.Sizeof(*new(T))
	if n < MinBytes {
		return
	}
	populate(unsafe.Pointer(unsafe.SliceData(s[:1])), n)
}

// Make returns make([]T, n, c) with its pages faulted in at once (Slice):
// a large array about to be written whole.
func Make[T any](n, c int) []T {
	s := make([]T, n, c)
	Slice(s)
	return s
}
