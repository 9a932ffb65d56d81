// Package input reads the files the command line is given (model files,
// POMDP files, mazes, sweep grids): text of bounded size, read in one
// buffer when its size is known and in chunks when it is not, so that
// memory stays bounded by the size limit whatever the input.
package input

import (
	"bytes"
	"errors"
	"io"
)

// ErrNUL stops ReadAll at a NUL byte, which no text input holds (a device
// such as /dev/zero is refused at its first read, not at the size limit).
var ErrNUL = errors.New("NUL byte")

// ErrTooLarge stops ReadAll when it has read its most bytes.
var ErrTooLarge = errors.New("too large")

// ReadAll reads r to its end: a regular file of size bytes into one
// buffer of size+1 (not the doublings of io.ReadAll, which would make
// reading a 60 MB file cost twice its size), anything else (size 0) in
// chunks of 1 MiB joined at the end, so that an endless device costs at
// most most bytes before the caller refuses it. It stops with ErrNUL at a
// NUL byte, and with ErrTooLarge when it has read most bytes.
func ReadAll(r io.Reader, size, most int64) ([]byte, error) {
	const chunk = 1 << 20
	var parts [][]byte
	total := int64(0)
	b := make([]byte, 0, min(max(size+1, 512), most))
	for {
		n, err := r.Read(b[len(b):cap(b)])
		if bytes.IndexByte(b[len(b):len(b)+n], 0) >= 0 {
			return b[:len(b)+n], ErrNUL
		}
		b = b[:len(b)+n]
		if total += int64(n); total >= most {
			return nil, ErrTooLarge // not joined: the caller refuses it
		}
		if err == io.EOF {
			if parts == nil {
				return b, nil // a regular file: its one buffer
			}
			return bytes.Join(append(parts, b), nil), nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			parts = append(parts, b)
			b = make([]byte, 0, chunk)
		}
	}
}
