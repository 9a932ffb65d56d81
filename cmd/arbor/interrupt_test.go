package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildArbor builds the command into a temporary directory.
func buildArbor(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "arbor")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestInterrupt: Ctrl-C (SIGINT) stops a long run promptly with exit
// status 130, after writing the finished episodes and their summary. aci
// run at horizon 9 on 1.maze scores 5^9 = 1,953,125 policies per step
// (seconds per step): it is interrupted inside the policy walk. btai run
// with 100 episodes is interrupted after its first episode has been
// written. Measured: both end within 10 ms of the signal; the test allows 5 s.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the arbor binary: skipped with -short; .ci/run runs it")
	}
	bin := buildArbor(t)
	maze := filepath.Join("..", "..", "examples", "mazes", "1.maze")
	for _, tc := range []struct {
		name     string
		args     []string
		waitLine string // send the signal once stdout has a line with this
		wantOut  string
	}{
		{"aci run", []string{"aci", "run", "--maze", maze, "--horizon", "9", "--episodes", "3", "--json"}, "", `{"episodes":0,`},
		{"btai run", []string{"btai", "run", "--maze", maze, "--episodes", "100"}, "episode 1:", "episodes solved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			pipe, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			lines := make(chan string)
			go func() {
				sc := bufio.NewScanner(pipe)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			if tc.waitLine == "" {
				time.Sleep(500 * time.Millisecond) // inside the first policy walk
			} else {
				for l := range lines {
					out.WriteString(l + "\n")
					if strings.HasPrefix(l, tc.waitLine) {
						break
					}
				}
			}
			start := time.Now()
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			for l := range lines {
				out.WriteString(l + "\n")
			}
			err = cmd.Wait()
			took := time.Since(start)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Errorf("exit: %v, want status 130; stderr %q", err, stderr.String())
			}
			if took > 5*time.Second {
				t.Errorf("ended %v after the signal, want within 1 s (5 s allowed)", took)
			}
			if !strings.Contains(out.String(), tc.wantOut) || !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stdout %q, stderr %q: want %q and \"interrupted\"", out.String(), stderr.String(), tc.wantOut)
			}
			// The summary counts the finished episodes, every one written
			// (with --jobs, a few may finish after the first).
			if m := regexp.MustCompile(`(\d+)/(\d+) episodes solved`).FindStringSubmatch(out.String()); m != nil {
				if n := strings.Count(out.String(), "reached the exit in"); m[1] != m[2] || fmt.Sprint(n) != m[2] || n >= 100 {
					t.Errorf("summary %q with %d episodes written", m[0], n)
				}
			}
			t.Logf("ended %v after the signal", took)
		})
	}
}
