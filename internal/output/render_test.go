//go:build unix

package output

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeDot puts a program named dot, running script (sh), first on PATH.
func fakeDot(t *testing.T, script string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dot"), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// gone waits up to a second for every process of pids to end.
func gone(pids ...int) bool {
	for range 100 {
		ok := true
		for _, p := range pids {
			ok = ok && !alive(p)
		}
		if ok {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// readPids reads the process ids a fake dot wrote, one per line.
func readPids(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		p, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, p)
	}
	return pids
}

// TestRenderStopped: a renderer that does not end (and starts a child of
// its own) is killed with its process group when the context is
// cancelled, returning the cause at once, and when its time limit passes;
// the file being written is left to the caller to abort.
func TestRenderStopped(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	pidFile := filepath.Join(t.TempDir(), "pids")
	fakeDot(t, "sleep 60 & echo $$ $! >> "+pidFile+"; wait")
	for _, c := range []struct {
		name    string
		limit   time.Duration
		cancel  bool
		timeout bool
	}{
		{"interrupted", time.Minute, true, false},
		{"time limit", 300 * time.Millisecond, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(pidFile)
			f, err := CreateFile(filepath.Join(t.TempDir(), "g.svg"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Abort()
			ctx, cancel := context.WithCancelCause(context.Background())
			var started int
			RenderStarted = func(pid int) {
				started = pid
				if c.cancel {
					go func() {
						time.Sleep(200 * time.Millisecond)
						cancel(&Interrupted{Signal: syscall.SIGTERM})
					}()
				}
			}
			defer func() { RenderStarted = nil }()
			start := time.Now()
			err = Render(ctx, []byte("digraph{a->b}"), "svg", f, c.limit)
			took := time.Since(start)
			var in *Interrupted
			var re *RenderError
			switch {
			case c.cancel && (!errors.As(err, &in) || in.ExitStatus() != 143):
				t.Errorf("Render: %v, want the interrupt", err)
			case c.timeout && (!errors.As(err, &re) || !re.TimedOut || !strings.Contains(err.Error(), RenderSecondsEnv)):
				t.Errorf("Render: %v, want the time limit naming %s", err, RenderSecondsEnv)
			}
			if took > 2*time.Second {
				t.Errorf("Render returned after %v", took)
			}
			pids := readPids(t, pidFile)
			if len(pids) != 2 || pids[0] != started {
				t.Fatalf("pids %v, started %d", pids, started)
			}
			if !gone(pids...) {
				t.Errorf("the renderer %d or its child %d still runs", pids[0], pids[1])
			}
			t.Logf("returned %v after the start", took)
		})
	}
}

// TestRenderErrors: a failing renderer's standard error is in the error,
// capped; without dot the error is ErrNoGraphviz; a bad
// ARBOR_RENDER_SECONDS is named.
func TestRenderErrors(t *testing.T) {
	fakeDot(t, `printf 'Error: <stdin>: syntax error in line 1 near x\n' >&2; head -c 5000 /dev/zero | tr '\0' 'e' >&2; exit 1`)
	f, err := CreateFile(filepath.Join(t.TempDir(), "g.svg"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	err = Render(context.Background(), []byte("x"), "svg", f, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "syntax error in line 1") || len(err.Error()) > 600 || !strings.Contains(err.Error(), "bytes more") {
		t.Errorf("Render: %q (%d bytes), want dot's message, capped", err, len(err.Error()))
	}
	t.Setenv("PATH", t.TempDir())
	if err := Render(context.Background(), []byte("x"), "svg", f, time.Minute); !errors.Is(err, ErrNoGraphviz) {
		t.Errorf("without dot: %v", err)
	}
	for _, v := range []string{"0", "-1", "soon", "NaN"} {
		t.Setenv(RenderSecondsEnv, v)
		if _, err := RenderTimeLimit(); err == nil || !strings.Contains(err.Error(), RenderSecondsEnv) {
			t.Errorf("%s=%s: %v", RenderSecondsEnv, v, err)
		}
	}
	t.Setenv(RenderSecondsEnv, "2.5")
	if d, err := RenderTimeLimit(); err != nil || d != 2500*time.Millisecond {
		t.Errorf("2.5: %v %v", d, err)
	}
}

// TestRender draws a small graph with Graphviz, when installed.
func TestRender(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("Graphviz dot not installed")
	}
	path := filepath.Join(t.TempDir(), "g.svg")
	f, err := CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Render(context.Background(), []byte("digraph{a->b}"), "svg", f, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "</svg>") {
		t.Errorf("%v: %.100q", err, b)
	}
}
