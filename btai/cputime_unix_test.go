//go:build unix

package btai_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) the process has used:
// on a shared machine it measures the work of a benchmark where the wall
// time measures the machine's load as well.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
