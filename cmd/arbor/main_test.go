package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCoreUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(nil, &out, &errb); code != 2 {
		t.Errorf("no arguments: exit %d, want 2", code)
	}
	for _, c := range commands() {
		if !strings.Contains(out.String(), "  "+c.name) {
			t.Errorf("usage does not list %q:\n%s", c.name, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"--help"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "usage: arbor COMMAND") {
		t.Errorf("--help: exit %d, stdout %q", code, out.String())
	}
}

// TestCoreReportOneLine: whatever the error, stderr gets exactly one line,
// and the exit status says whether the input was at fault.
func TestCoreReportOneLine(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
	}{
		{badInput("first\nsecond"), 2},
		{errors.New("disk on fire\n"), 1},
		{nil, 0},
	} {
		var errb bytes.Buffer
		code := report(&errb, "arbor x", tc.err)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.err, code, tc.code)
		}
		if tc.err != nil && (strings.Count(errb.String(), "\n") != 1 || !strings.HasPrefix(errb.String(), "arbor x: ")) {
			t.Errorf("%v: stderr %q, want one line starting with the command", tc.err, errb.String())
		}
	}
}

// TestTutorials runs every command of the tutorials (docs/tutorial-*.md)
// and of docs/cli.md and docs/models.md: each ```console block starts with
// "$ arbor ARGS" or "$ go run ARGS" and shows its output, which must be
// what the command prints, but for the timing figures. Paths in the
// commands are relative to the repository root. The go run blocks build a
// program each and are skipped with -short.
func TestTutorials(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "tutorial-*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tutorials: %v", err)
	}
	files = append(files, filepath.Join("..", "..", "docs", "cli.md"), filepath.Join("..", "..", "docs", "models.md"))
	timing := regexp.MustCompile(`[0-9.]+ s planning|[0-9.e+]+ planning iterations per second`)
	mask := func(s string) string { return timing.ReplaceAllString(s, "T") }
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		blocks := strings.Split(string(data), "```console\n")[1:]
		if len(blocks) == 0 {
			t.Errorf("%s: no console block", file)
		}
		for _, b := range blocks {
			b, _, _ = strings.Cut(b, "```")
			cmdLine, want, _ := strings.Cut(b, "\n")
			if goArgs, ok := strings.CutPrefix(cmdLine, "$ go run "); ok {
				if testing.Short() {
					continue // go run builds a program: seconds each
				}
				cmd := exec.Command("go", append([]string{"run"}, strings.Fields(goArgs)...)...)
				cmd.Dir = filepath.Join("..", "..")
				out, err := cmd.Output()
				if err != nil {
					t.Errorf("%s: %s: %v", file, cmdLine, err)
					continue
				}
				if d := cmp.Diff(mask(want), mask(string(out))); d != "" {
					t.Errorf("%s: %s: output differs (-tutorial +command):\n%s", file, cmdLine, d)
				}
				continue
			}
			args, ok := strings.CutPrefix(cmdLine, "$ arbor ")
			if !ok {
				t.Errorf("%s: block starts with %q, want \"$ arbor ...\" or \"$ go run ...\"", file, cmdLine)
				continue
			}
			fields := strings.Fields(args)
			for i, f := range fields {
				if _, err := os.Stat(filepath.Join("..", "..", f)); err == nil && strings.Contains(f, "/") {
					fields[i] = filepath.Join("..", "..", f)
				}
			}
			var out, errb bytes.Buffer
			if code := run(fields, &out, &errb); code != 0 {
				t.Errorf("%s: %s: exit %d, %s", file, cmdLine, code, errb.String())
				continue
			}
			// The command ran from cmd/arbor; a path it echoes is the
			// repository-relative one of the tutorial.
			got := strings.ReplaceAll(out.String(), filepath.Join("..", "..")+string(filepath.Separator), "")
			if d := cmp.Diff(mask(want), mask(got)); d != "" {
				t.Errorf("%s: %s: output differs (-tutorial +command):\n%s", file, cmdLine, d)
			}
		}
	}
}

// TestDocSnippets checks that every Go snippet of the tutorials and of
// docs/models.md compiles: each ```go block follows a line
// "<!-- from PATH -->" naming a Go file of the module, and is a verbatim
// part of it (the file is built and vetted with the module).
func TestDocSnippets(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, "docs", "tutorial-*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tutorials: %v", err)
	}
	files = append(files, filepath.Join(root, "docs", "models.md"))
	from := regexp.MustCompile(`<!-- from (\S+\.go) -->\s*$`)
	snippets := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(string(data), "```go\n")
		for i, b := range parts[1:] {
			code, _, _ := strings.Cut(b, "```")
			m := from.FindStringSubmatch(parts[i])
			if m == nil {
				t.Errorf("%s: Go snippet %d does not follow <!-- from PATH.go -->", file, i+1)
				continue
			}
			src, err := os.ReadFile(filepath.Join(root, m[1]))
			if err != nil {
				t.Errorf("%s: snippet %d: %v", file, i+1, err)
				continue
			}
			if !strings.Contains(string(src), code) {
				t.Errorf("%s: snippet %d is not a verbatim part of %s", file, i+1, m[1])
			}
			snippets++
		}
	}
	if snippets == 0 {
		t.Error("no Go snippet checked")
	}
}

// TestMain, with ARBOR_COUNT_EXIT2=FILE in the environment, writes to FILE
// how many runs of each command the tests made and how many of them exited
// with status 2 (bad input): the bad-input counts of docs/reliability.md.
func TestMain(m *testing.M) {
	path := os.Getenv("ARBOR_COUNT_EXIT2")
	if path == "" {
		os.Exit(m.Run())
	}
	var mu sync.Mutex
	runs, bad := map[string]int{}, map[string]int{}
	runObserver = func(args []string, code int) {
		cmd := "(none)"
		if len(args) > 0 {
			cmd = args[0]
			if (cmd == "aci" || cmd == "btai") && len(args) > 1 && !strings.HasPrefix(args[1], "-") {
				cmd += " " + args[1]
			}
		}
		mu.Lock()
		runs[cmd]++
		if code == 2 {
			bad[cmd]++
		}
		mu.Unlock()
	}
	code := m.Run()
	var b strings.Builder
	names := make([]string, 0, len(runs))
	for k := range runs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(&b, "%-12s %5d runs, %5d exit 2\n", k, runs[k], bad[k])
	}
	_ = os.WriteFile(path, []byte(b.String()), 0o644)
	os.Exit(code)
}
