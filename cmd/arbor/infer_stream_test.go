package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInferDataStreams: data sets are answered line by line: through a
// pipe, the first result is written while the writer has not yet sent
// the second line.
func TestInferDataStreams(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "data.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	var errb bytes.Buffer
	go func() {
		done <- run([]string{"infer", "../../examples/models/hmm.json", "--data", fifo, "--json"}, outW, &errb)
		outW.Close()
	}()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, "{\"o0\": 0}\n"); err != nil {
		t.Fatal(err)
	}
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(outR).ReadString('\n')
		first <- line
		io.Copy(io.Discard, outR)
	}()
	select {
	case line := <-first:
		if !strings.Contains(line, "free_energy") {
			t.Errorf("first result %q", line)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no result for the first line while the pipe stays open")
	}
	io.WriteString(w, "{\"o0\": 1}\n")
	w.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}

// TestInferDataMaxMinutes: --max-minutes counts every data set: 100,000
// lines of a model that takes a few milliseconds each are refused at
// once, naming the count.
func TestInferDataMaxMinutes(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data.jsonl")
	if err := os.WriteFile(data, []byte(strings.Repeat("{\"o0\": 0}\n", 100000)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	start := time.Now()
	code := run([]string{"infer", "../../examples/models/hmm.json", "--data", data, "--max-minutes", "0.001"}, &out, &errb)
	if code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), "100000 data sets") || !strings.Contains(errb.String(), "--max-minutes 0.001") {
		t.Errorf("exit %d, stdout %d bytes, stderr %q: want 2 naming 100000 data sets", code, out.Len(), errb.String())
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("refused after %v, want at once", el)
	}
}
