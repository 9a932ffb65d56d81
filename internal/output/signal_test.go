//go:build unix

package output

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestNotifyContext: the first SIGINT or SIGTERM cancels the context with
// the signal as its cause (context.Canceled to errors.Is, exit status 130
// or 143); a second one ends the process at once; so does the first when
// the work has not returned within the grace period.
func TestNotifyContext(t *testing.T) {
	type exited struct {
		code   int
		stderr string
	}
	ch := make(chan exited, 1)
	var mu sync.Mutex
	var stderr bytes.Buffer
	exit = func(code int) {
		mu.Lock()
		defer mu.Unlock()
		ch <- exited{code, stderr.String()}
	}
	defer func() { exit = os.Exit }()
	w := writerFunc(func(p []byte) (int, error) { return stderr.Write(p) })
	for _, c := range []struct {
		first, second syscall.Signal
		grace         time.Duration
		want          int
	}{
		{syscall.SIGINT, syscall.SIGTERM, time.Minute, 143},
		{syscall.SIGTERM, syscall.SIGINT, time.Minute, 130},
		{syscall.SIGTERM, 0, 100 * time.Millisecond, 143},
	} {
		stderr.Reset()
		ctx, stop := NotifyContext(context.Background(), w, "arbor x", c.grace)
		if err := syscall.Kill(syscall.Getpid(), c.first); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("the signal did not cancel the context")
		}
		in := Interruption(ctx)
		if in == nil || in.Signal != c.first || !errors.Is(context.Cause(ctx), context.Canceled) {
			t.Fatalf("cause %v", context.Cause(ctx))
		}
		if c.second != 0 {
			syscall.Kill(syscall.Getpid(), c.second)
		}
		select {
		case e := <-ch:
			if e.code != c.want || e.stderr != "arbor x: interrupted\n" {
				t.Errorf("%v then %v: exit %d, stderr %q; want %d", c.first, c.second, e.code, e.stderr, c.want)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%v then %v: the process did not end", c.first, c.second)
		}
		stop()
	}
	// Work that returns in time: no exit.
	ctx, stop := NotifyContext(context.Background(), io.Discard, "arbor x", 200*time.Millisecond)
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	<-ctx.Done()
	stop()
	select {
	case e := <-ch:
		t.Errorf("exit %d after stop", e.code)
	case <-time.After(400 * time.Millisecond):
	}
	if in := Interruption(ctx); in == nil || in.ExitStatus() != 130 {
		t.Errorf("after stop: %v", in)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestErrWriter: the first error is kept and reported once; later writes
// return it without writing.
func TestErrWriter(t *testing.T) {
	var got []byte
	fail := false
	calls := 0
	w := NewErrWriter(writerFunc(func(p []byte) (int, error) {
		if fail {
			return 0, syscall.ENOSPC
		}
		got = append(got, p...)
		return len(p), nil
	}), func(error) { calls++ })
	w.Write([]byte("a"))
	fail = true
	if _, err := w.Write([]byte("b")); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("write: %v", err)
	}
	fail = false
	if _, err := w.Write([]byte("c")); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("write after the error: %v", err)
	}
	if string(got) != "a" || calls != 1 || !errors.Is(w.Err(), syscall.ENOSPC) {
		t.Errorf("wrote %q, onError called %d times, Err %v", got, calls, w.Err())
	}
	short := NewErrWriter(writerFunc(func(p []byte) (int, error) { return len(p) - 1, nil }), nil)
	if _, err := short.Write([]byte("ab")); !errors.Is(err, io.ErrShortWrite) {
		t.Errorf("short write: %v", err)
	}
}
