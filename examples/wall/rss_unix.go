//go:build linux || darwin

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS returns the peak resident set size of an exited child in bytes
// (getrusage ru_maxrss: kilobytes on Linux, bytes on macOS), or 0 when the
// platform does not say.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss
	}
	return ru.Maxrss * 1024
}
