//go:build unix

package output

import "syscall"

// killGroup kills the process group pgid.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// writable reports whether this process may write the existing file path.
func writable(path string) bool { return syscall.Access(path, 2 /* W_OK */) == nil }
