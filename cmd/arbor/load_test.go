package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-ai/arbor/internal/input"
)

// runArbor runs the command in-process and returns its exit status and
// stderr.
func runArbor(args ...string) (int, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, errb.String()
}

// TestInputSizeLimit: every command reads its files through one size limit.
// /dev/zero never ends: with the limit at 1 MiB (ARBOR_MAX_INPUT=1M) infer,
// dot, aci eval and btai run stop after 1 MiB + 1 byte with exit status 2
// and one line naming the file, the limit and the variable. A regular file
// over the limit is refused from its size without reading it.
func TestInputSizeLimit(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	t.Setenv(maxInputEnv, "1M")
	for _, args := range [][]string{
		{"infer", "/dev/zero"},
		{"dot", "/dev/zero"},
		{"aci", "eval", "--model", "/dev/zero", "--obs", "0", "--horizon", "1"},
		{"btai", "run", "--maze", "/dev/zero"},
		{"btai", "plan", "--model", "/dev/zero", "--obs", "0"},
	} {
		code, errs := runArbor(args...)
		if code != 2 || !strings.Contains(errs, "/dev/zero: cannot read: byte 0 is NUL: not a text file") ||
			strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
	// A device of text that does not end: refused at the limit.
	fifo := filepath.Join(t.TempDir(), "spaces")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		spaces := bytes.Repeat([]byte{' '}, 1<<16)
		for range 64 { // 4 MiB
			if _, err := w.Write(spaces); err != nil {
				return
			}
		}
	}()
	if code, errs := runArbor("infer", fifo); code != 2 || !strings.Contains(errs, "cannot read: larger than the limit of 1 MiB (set ARBOR_MAX_INPUT to raise it)") {
		t.Errorf("4 MiB of spaces through a FIFO: exit %d, stderr %q", code, errs)
	}
	t.Setenv(maxInputEnv, "100")
	hmm := filepath.Join("..", "..", "examples", "models", "hmm.json")
	if code, errs := runArbor("infer", hmm); code != 2 || !strings.Contains(errs, "larger than the limit of 100 bytes") {
		t.Errorf("hmm.json over a 100-byte limit: exit %d, stderr %q", code, errs)
	}
	for _, bad := range []string{"x", "0", "-5", "2T", "1.5M"} {
		t.Setenv(maxInputEnv, bad)
		if code, errs := runArbor("infer", hmm); code != 2 || !strings.Contains(errs, maxInputEnv) {
			t.Errorf("%s=%q: exit %d, stderr %q", maxInputEnv, bad, code, errs)
		}
	}
	t.Setenv(maxInputEnv, "64K")
	if code, errs := runArbor("infer", hmm); code != 0 {
		t.Errorf("hmm.json under a 64 KiB limit: exit %d, stderr %q", code, errs)
	}
}

// TestInputFIFOTimeout: a FIFO without a writer, and one whose writer
// stays silent after a few bytes, are refused after the read timeout
// (shortened here to 200 ms) instead of hanging.
func TestInputFIFOTimeout(t *testing.T) {
	old := readTimeout
	readTimeout = 200 * time.Millisecond
	t.Cleanup(func() { readTimeout = old })
	fifo := filepath.Join(t.TempDir(), "model.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	start := time.Now()
	code, errs := runArbor("infer", fifo)
	if code != 2 || !strings.Contains(errs, "nothing to read after 200ms") {
		t.Errorf("FIFO without a writer: exit %d, stderr %q", code, errs)
	}
	// A writer that sends the start of a file and stays open.
	done := make(chan struct{})
	go func() {
		defer close(done)
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = w.Write([]byte(`{"variables": [`))
		time.Sleep(time.Second)
		w.Close()
	}()
	code, errs = runArbor("aci", "eval", "--model", fifo, "--obs", "0", "--horizon", "1")
	if code != 2 || !strings.Contains(errs, "no end of file after 200ms") {
		t.Errorf("silent writer: exit %d, stderr %q", code, errs)
	}
	<-done
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestReadFileOnce: a regular file is read into one buffer of its size
// (io.ReadAll's doublings would allocate about twice the file, and hold up
// to 1.5 times it at once); a reader of unknown size still reads to its end.
func TestReadFileOnce(t *testing.T) {
	const size = 8 << 20
	data := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := readFile("--model "+path, path)
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("readFile: %d bytes, %v; want the file's %d", len(got), err, size)
	}
	// The file's size plus one byte, and 64 KiB for the rest (the
	// os.File, the path, the error text).
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size+64<<10 {
		t.Errorf("readFile allocated %d bytes for a file of %d, want one buffer of its size", alloc, size)
	}
	for _, hint := range []int64{0, 1, size - 1, size, size + 1} {
		got, err := input.ReadAll(io.MultiReader(bytes.NewReader(data[:size/2]), bytes.NewReader(data[size/2:])), hint, size+1)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("readAll with size %d: %d bytes, %v; want %d", hint, len(got), err, size)
		}
	}
}
