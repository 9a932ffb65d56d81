//go:build unix && !linux

package output

import "syscall"

// renderProcAttr starts the renderer in a process group of its own, so
// that it is killed with whatever it starts.
func renderProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
