package input

import (
	"errors"
	"runtime"
	"testing"
)

// TestReadAllBounded: reading a device that never ends allocates about
// the limit, not the doublings up to twice it (an endless input once
// peaked at 213-294 MB against a 64 MiB limit), and a NUL byte, which no
// text holds, stops the read at once.
func TestReadAllBounded(t *testing.T) {
	const most = 8 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadAll(endless(' '), 0, most)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("endless spaces: %v, want ErrTooLarge", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > most+most/8 {
		t.Errorf("endless spaces: %d bytes allocated to refuse at %d", got, most)
	}
	runtime.ReadMemStats(&before)
	_, err = ReadAll(endless(0), 0, most)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrNUL) {
		t.Errorf("endless NULs: %v, want ErrNUL", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<16 {
		t.Errorf("endless NULs: %d bytes allocated", got)
	}
}

// endless is a reader of one byte forever.
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}
