package output

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
)

// AtomicFile is an output file written in full or not at all. What is written
// goes to a temporary file in the target's directory (so that a rename
// replaces the target in one step); Commit syncs it to disk and renames it
// over the target, Abort removes it. Until Commit the target, an earlier
// figure or table, is untouched: a run that fails, is interrupted or is
// killed leaves the previous file or the complete new one, never a part.
// Only a process killed outright (SIGKILL) while writing leaves its
// temporary file behind, named .NAME.arbor-RANDOM.tmp beside the target.
//
// A target that exists and is not a regular file (a device such as
// /dev/null or /dev/stdout, a FIFO) cannot be replaced: it is written
// directly, and Commit and Abort only close it.
//
// Every AtomicFile not yet committed or aborted is registered, so that
// RemoveTemporaryFiles (run when a second signal ends the process) can
// remove it.
//
// Within a command (BeginCommand), Commit readies the file and the rename
// waits for EndCommand, so that a command that fails or is interrupted
// after writing some of its files leaves every old file as it was.
type AtomicFile struct {
	f    *os.File
	path string // the target, symbolic links resolved
	tmp  string // the temporary file, or "" when writing the target directly
	done bool
}

// open is the registry of the temporary files not yet committed or
// aborted.
var open = struct {
	sync.Mutex
	files map[*AtomicFile]bool
}{files: map[*AtomicFile]bool{}}

// CreateFile starts writing the output file path. The error, a
// *fs.PathError naming path, is that of creating a file in its directory
// (a missing directory, no permission), that path is a directory, or (an
// *InputError) that path is an input of the running command
// (RecordInput).
func CreateFile(path string) (*AtomicFile, error) {
	target, st, err := resolve(path)
	if err != nil {
		return nil, err
	}
	if st != nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: unwrapPath(err)}
		}
		return &AtomicFile{f: f, path: target}, nil
	}
	if st != nil && !writable(target) {
		// As os.Create would: a read-only file is not replaced.
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}
	}
	f, tmp, err := createTemp(target)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: unwrapPath(err)}
	}
	if st != nil {
		// The new file keeps the old one's permissions, as os.Create does.
		_ = f.Chmod(st.Mode().Perm())
	}
	out := &AtomicFile{f: f, path: target, tmp: tmp}
	open.Lock()
	open.files[out] = true
	open.Unlock()
	return out, nil
}

// CheckCreatable reports, before any work, why the output file path could
// not be written (CreateFile's errors), creating nothing that stays: a
// temporary file is created beside it and removed. An existing path is
// left as it is.
func CheckCreatable(path string) error {
	target, st, err := resolve(path)
	if err != nil {
		return err
	}
	if st != nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return &fs.PathError{Op: "open", Path: path, Err: unwrapPath(err)}
		}
		return f.Close()
	}
	if st != nil && !writable(target) {
		return &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}
	}
	f, tmp, err := createTemp(target)
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: unwrapPath(err)}
	}
	f.Close()
	return os.Remove(tmp)
}

// resolve returns the file path names (following symbolic links, so that
// a link keeps pointing at the new file) and its FileInfo, nil when it does
// not exist. A directory and an input of the running command are errors.
func resolve(path string) (string, fs.FileInfo, error) {
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	}
	st, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, nil, nil
	case err != nil:
		return "", nil, &fs.PathError{Op: "stat", Path: path, Err: unwrapPath(err)}
	case st.IsDir():
		return "", nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("is a directory")}
	case st.Mode().IsRegular():
		if err := inputAt(st); err != nil {
			return "", nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
	}
	return target, st, nil
}

// createTemp creates a new file beside target, with the permissions a
// new target would get (0666 less the umask).
func createTemp(target string) (*os.File, string, error) {
	dir, base := filepath.Split(target)
	for range 100 {
		tmp := filepath.Join(dir, fmt.Sprintf(".%s.arbor-%08x.tmp", base, rand.Uint32()))
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, tmp, err
	}
	return nil, "", fs.ErrExist
}

// unwrapPath returns the cause of a *fs.PathError (the path is named by
// the caller's error), else err.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Write writes to the temporary file.
func (f *AtomicFile) Write(p []byte) (int, error) { return f.f.Write(p) }

// OS returns the *os.File being written (the temporary file), for a child
// process to write to.
func (f *AtomicFile) OS() *os.File { return f.f }

// Path returns the target's path.
func (f *AtomicFile) Path() string { return f.path }

// Commit makes the written bytes the target's: it syncs the temporary file
// to disk, closes it and renames it over the target (then syncs the
// directory); within a command (BeginCommand) the rename waits for
// EndCommand. On an error the temporary file is removed and the target is
// as it was. Commit after Commit or Abort does nothing.
func (f *AtomicFile) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	if f.tmp == "" {
		defer f.unregister()
		return f.f.Close()
	}
	err := f.f.Sync()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.tmp)
		f.unregister()
		return err
	}
	if hold(f) {
		return nil // renamed by EndCommand, and unregistered then
	}
	defer f.unregister()
	return f.rename()
}

// rename renames the closed temporary file over the target and syncs the
// directory; on an error the temporary file is removed.
func (f *AtomicFile) rename() error {
	if err := os.Rename(f.tmp, f.path); err != nil {
		os.Remove(f.tmp)
		return err
	}
	if d, err := os.Open(filepath.Dir(f.path)); err == nil {
		_ = d.Sync() // not every file system syncs directories
		d.Close()
	}
	return nil
}

// Abort discards what was written: the temporary file is closed and
// removed, the target left as it was. Abort after Commit or Abort does
// nothing, so that a deferred Abort is safe.
func (f *AtomicFile) Abort() {
	if f.done {
		return
	}
	f.done = true
	defer f.unregister()
	f.f.Close()
	if f.tmp != "" {
		os.Remove(f.tmp)
	}
}

func (f *AtomicFile) unregister() {
	open.Lock()
	delete(open.files, f)
	open.Unlock()
}

// RemoveTemporaryFiles removes the temporary file of every AtomicFile neither
// committed nor aborted, and of every file a command made ready whose
// rename waits for EndCommand: what a process about to exit at once (at a second
// signal) does so that it leaves no partial file behind.
func RemoveTemporaryFiles() {
	open.Lock()
	defer open.Unlock()
	for f := range open.files {
		os.Remove(f.tmp)
	}
}
