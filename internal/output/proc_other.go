//go:build !unix

package output

import (
	"os"
	"syscall"
)

func renderProcAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the process pid (there are no process groups here).
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func writable(string) bool { return true }
