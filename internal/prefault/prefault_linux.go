package prefault

import (
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14): fault the
// pages of a range in, writable, in one call.
const madvPopulateWrite = 23

func populate(p unsafe.Pointer, size uintptr) {
	const page = 4096
	start := (uintptr(p) + page - 1) &^ (page - 1)
	end := (uintptr(p) + size) &^ (page - 1)
	if end <= start {
		return
	}
	// An older kernel refuses the advice (EINVAL): the pages then fault
	// in one by one as they are first written, as without it.
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvPopulateWrite)
}
