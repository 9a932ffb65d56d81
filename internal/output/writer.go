package output

import (
	"io"
	"sync"
)

// ErrWriter passes writes on to an io.Writer (standard output) and keeps
// the first error: every later write returns it without writing, so that
// output that fails part-way (a full disk, a closed pipe) is neither
// continued nor mistaken for success. Err says at the end whether
// everything was written. It is safe for concurrent use.
type ErrWriter struct {
	w       io.Writer
	onError func(error)
	mu      sync.Mutex
	err     error
}

// NewErrWriter returns an ErrWriter writing to w; onError, when not nil,
// is called once, with the first error (to stop the work whose output is
// lost).
func NewErrWriter(w io.Writer, onError func(error)) *ErrWriter {
	return &ErrWriter{w: w, onError: onError}
}

// Write writes p, or returns the first error.
func (e *ErrWriter) Write(p []byte) (int, error) {
	e.mu.Lock()
	if e.err != nil {
		err := e.err
		e.mu.Unlock()
		return 0, err
	}
	n, err := e.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	first := err != nil
	if first {
		e.err = err
	}
	e.mu.Unlock()
	if first && e.onError != nil {
		e.onError(err)
	}
	return n, err
}

// Err returns the first error of a write, or nil.
func (e *ErrWriter) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}
