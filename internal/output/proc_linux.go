package output

import "syscall"

// renderProcAttr starts the renderer in a process group of its own (so
// that it is killed with whatever it starts) and has the kernel kill it
// when arbor dies, even by SIGKILL.
func renderProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
