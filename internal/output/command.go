package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// The files of one command: what it reads is never what it writes, and
// what it writes replaces the old files only when the command succeeds.
//
//   - CheckDistinct refuses, before any work, an output that is one of the
//     command's inputs or another of its outputs.
//   - Between BeginCommand and EndCommand, every file the command reads
//     through RecordInput is protected: CreateFile and CheckCreatable refuse
//     to replace it, whatever flag names the output.
//   - Between BeginCommand and EndCommand, AtomicFile.Commit only readies a
//     file (written in full and synced, under its temporary name);
//     EndCommand(true) renames every ready file into place, EndCommand(false)
//     (a failure, an interrupt) removes them, so that the old files stay.

// NamedFile is a file given to a command: the flag that names it ("--data";
// for a file given as an argument, what it is, "MODEL"), its path, and
// whether the command writes it.
type NamedFile struct {
	Flag, Path string
	Output     bool
}

// In is the NamedFile of an input, Out of an output.
func In(flag, path string) NamedFile  { return NamedFile{Flag: flag, Path: path} }
func Out(flag, path string) NamedFile { return NamedFile{Flag: flag, Path: path, Output: true} }

// SameFileError is an output that is one of the command's inputs, or
// another of its outputs (Other.Output).
type SameFileError struct {
	Output, Other NamedFile
}

func (e *SameFileError) Error() string {
	if e.Other.Output {
		return fmt.Sprintf("%s %s and %s %s are the same file: each output needs a file of its own (one would replace the other)",
			e.Other.Flag, e.Other.Path, e.Output.Flag, e.Output.Path)
	}
	return fmt.Sprintf("%s %s is the same file as %s %s: an output may not replace a file the command reads",
		e.Output.Flag, e.Output.Path, e.Other.Flag, e.Other.Path)
}

// CheckDistinct returns a *SameFileError when an output of files is the
// same file as an input or as another output, before anything is read or
// written. Two existing files are the same when they have the same device
// and inode (os.SameFile: another spelling of the path, a symbolic or hard
// link); an output that does not exist yet is the same as another by its
// absolute path, its directory's symbolic links resolved. Empty paths are
// skipped, and so are files that are not regular (a device such as
// /dev/null or /dev/stdout, a FIFO: written in place, never replaced) and
// paths that cannot be examined (the command's own open reports those).
// Inputs may repeat.
func CheckDistinct(files ...NamedFile) error {
	type seen struct {
		f  NamedFile
		id fileID
	}
	var prev []seen
	for _, f := range files {
		if f.Path == "" {
			continue
		}
		id, ok := identify(f.Path)
		if !ok {
			continue
		}
		for _, p := range prev {
			if !(f.Output || p.f.Output) || !id.same(p.id) {
				continue
			}
			if f.Output {
				return &SameFileError{Output: f, Other: p.f}
			}
			return &SameFileError{Output: p.f, Other: f}
		}
		prev = append(prev, seen{f, id})
	}
	return nil
}

// fileID identifies a file for CheckDistinct: an existing regular file by
// its FileInfo, one not there yet by its resolved absolute path.
type fileID struct {
	info fs.FileInfo
	path string
}

func identify(path string) (fileID, bool) {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.Mode().IsRegular():
		return fileID{info: st}, true
	case err == nil || !errors.Is(err, fs.ErrNotExist):
		return fileID{}, false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fileID{}, false
	}
	dir, base := filepath.Split(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return fileID{path: filepath.Join(dir, base)}, true
}

func (a fileID) same(b fileID) bool {
	if a.info != nil && b.info != nil {
		return os.SameFile(a.info, b.info)
	}
	return a.info == nil && b.info == nil && a.path == b.path
}

// command holds the running command's inputs and ready files.
var command = struct {
	sync.Mutex
	on     bool
	inputs []recorded
	ready  []*AtomicFile
}{}

// recorded is an input of the running command.
type recorded struct {
	what string
	info fs.FileInfo
}

// BeginCommand starts the files of a command (see the top of this file):
// inputs are recorded and commits held until EndCommand. What an earlier
// command left is discarded.
func BeginCommand() {
	EndCommand(false)
	command.Lock()
	command.on = true
	command.Unlock()
}

// EndCommand ends the command's files: with commit, every file made ready
// since BeginCommand is renamed into place, in the order of the commits
// (the first error, a *fs.PathError naming the file, stops the renames and
// the files left are removed); without, they are removed and the old files
// stay. The recorded inputs are forgotten. EndCommand without
// BeginCommand, or after EndCommand, does nothing.
func EndCommand(commit bool) error {
	command.Lock()
	ready := command.ready
	command.on, command.inputs, command.ready = false, nil, nil
	command.Unlock()
	var first error
	for _, f := range ready {
		if commit && first == nil {
			if err := f.rename(); err != nil {
				first = &fs.PathError{Op: "rename", Path: f.path, Err: unwrapPath(err)}
			}
		} else {
			os.Remove(f.tmp)
		}
		f.unregister()
	}
	return first
}

// RecordInput notes that the running command reads path, named by what in
// errors ("--model m.json"; the name recorded last is used): until
// EndCommand, CreateFile and
// CheckCreatable refuse to replace it. Outside a command, and for a path
// that is not a regular file, it does nothing.
func RecordInput(what, path string) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return
	}
	command.Lock()
	defer command.Unlock()
	if command.on {
		command.inputs = append(command.inputs, recorded{what, st})
	}
}

// InputError is the cause of CreateFile's and CheckCreatable's refusal of
// a target that is an input of the running command (RecordInput).
type InputError struct{ Input string }

func (e *InputError) Error() string {
	return "the same file as the input " + e.Input + " (an output may not replace a file the command reads)"
}

// inputAt returns the error of a target st that is a recorded input,
// named as it was recorded last.
func inputAt(st fs.FileInfo) error {
	command.Lock()
	defer command.Unlock()
	for i := len(command.inputs) - 1; i >= 0; i-- {
		if in := command.inputs[i]; os.SameFile(in.info, st) {
			return &InputError{Input: in.what}
		}
	}
	return nil
}

// hold makes f ready instead of renaming it, when a command holds its
// commits; it reports whether it did.
func hold(f *AtomicFile) bool {
	command.Lock()
	defer command.Unlock()
	if command.on {
		command.ready = append(command.ready, f)
	}
	return command.on
}
