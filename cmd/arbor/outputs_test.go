package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// hmmChain writes a model file of an HMM of the given length (3 states, B
// learned: a Dirichlet parameter shared along the chain, the slowest shape
// to lay out) and returns its path.
func hmmChain(t testing.TB, dir string, steps int) string {
	t.Helper()
	var vars, facs []string
	vars = append(vars, `{"name":"B","family":"dirichlet","shape":[3,3]}`)
	facs = append(facs, `{"node":"dirichlet","out":"B","alpha":[[1,1,1],[1,1,1],[1,1,1]]}`)
	for i := range steps {
		vars = append(vars, fmt.Sprintf(`{"name":"s%d","family":"categorical","shape":[3]}`, i),
			fmt.Sprintf(`{"name":"o%d","family":"categorical","shape":[3],"observed":%d}`, i, i%3))
		if i == 0 {
			facs = append(facs, `{"node":"categorical","out":"s0","p":[0.4,0.3,0.3]}`)
		} else {
			facs = append(facs, fmt.Sprintf(`{"node":"transition","out":"s%d","in":["s%d"],"matrix":"B"}`, i, i-1))
		}
		facs = append(facs, fmt.Sprintf(`{"node":"transition","out":"o%d","in":["s%d"],"matrix":[[0.8,0.1,0.1],[0.1,0.8,0.1],[0.1,0.1,0.8]]}`, i, i))
	}
	text := `{"variables":[` + strings.Join(vars, ",") + `],"factors":[` + strings.Join(facs, ",") + `],"settings":{"iterations":2}}`
	path := filepath.Join(dir, fmt.Sprintf("hmm%d.json", steps))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// inferDataFile writes n data sets for examples/models/hmm.json.
func inferDataFile(t testing.TB, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"o0": %d, "o1": %d}`+"\n", i%3, (i/3)%3)
	}
	path := filepath.Join(dir, "d.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStdoutWriteErrors: standard output that cannot be written (here
// /dev/full, whose every write fails with "no space left on device") makes
// every command, in every output mode, exit 1 with one line saying so.
func TestStdoutWriteErrors(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	defer full.Close()
	dir := t.TempDir()
	hmm := "../../examples/models/hmm.json"
	data := inferDataFile(t, dir, 3)
	maze := "../../examples/mazes/1.maze"
	tiny := btaiData("tiny-pomdp.json")
	bModel, bData := "../../examples/behaviour/model.json", "../../examples/behaviour/p01.csv"
	var cases [][]string
	for _, mode := range [][]string{nil, {"--json"}} {
		cases = append(cases,
			append([]string{"infer", hmm}, mode...),
			append([]string{"infer", hmm, "--data", data}, mode...),
			append([]string{"dot", hmm}, mode...),
			append([]string{"aci", "eval", "--model", tiny, "--obs", "0", "--horizon", "2"}, mode...),
			append([]string{"btai", "plan", "--model", tiny, "--obs", "0", "--iterations", "10"}, mode...),
			append([]string{"si", "plan", "--model", tiny, "--obs", "0", "--depth", "2"}, mode...),
		)
	}
	for _, mode := range [][]string{nil, {"--json"}, {"--csv"}} {
		cases = append(cases,
			append([]string{"aci", "run", "--maze", maze, "--horizon", "1", "--steps", "2"}, mode...),
			append([]string{"btai", "run", "--maze", maze, "--iterations", "10", "--steps", "2"}, mode...),
			append([]string{"aci", "replay", "--model", bModel, "--data", bData, "--horizon", "1"}, mode...),
			append([]string{"btai", "replay", "--model", bModel, "--data", bData, "--iterations", "5"}, mode...),
		)
	}
	cases = append(cases, []string{"version"}, []string{"--help"}, []string{"infer", "-h"}, []string{"btai", "run", "-h"})
	for _, args := range cases {
		var errb bytes.Buffer
		code := run(args, full, &errb)
		if code != 1 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "writing standard output: ") ||
			!strings.Contains(errb.String(), "no space left on device") {
			t.Errorf("%s > /dev/full: exit %d, stderr %q; want 1 and one line", strings.Join(args, " "), code, errb.String())
		}
	}
}

// TestErrorLineCapped: an error line quoting a huge value (a 200 KB file
// name; a huge flag value) is cut to maxErrorLine bytes, at a character
// boundary, saying how many bytes were left out.
func TestErrorLineCapped(t *testing.T) {
	huge := strings.Repeat("ü", 100_000) // 200 KB
	for _, args := range [][]string{
		{"infer", huge},
		{"btai", "run", "--maze", "../../examples/mazes/1.maze", "--preset", huge},
		{"dot", "--no-such-flag" + huge},
	} {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		line := errb.String()
		if code != 2 || strings.Count(line, "\n") != 1 || len(line) > maxErrorLine+1 || !utf8.ValidString(line) ||
			!strings.Contains(line, " bytes more)") {
			t.Errorf("%s: exit %d, a line of %d bytes, valid UTF-8 %v: %.80q…", args[0], code, len(line), utf8.ValidString(line), line)
		}
	}
	var errb bytes.Buffer
	report(&errb, "arbor x", errors.New(strings.Repeat("a\n", 5000)))
	if len(errb.String()) > maxErrorLine+1 || len(errb.String()) < maxErrorLine-10 || !strings.HasSuffix(errb.String(), "(9031 bytes more)\n") {
		t.Errorf("report: %d bytes, ends %q", len(errb.String()), errb.String()[len(errb.String())-30:])
	}
}

// TestIgnoredFlags: a flag that the command would ignore in the mode asked
// for is refused (exit 2), naming it.
func TestIgnoredFlags(t *testing.T) {
	maze := "../../examples/mazes/1.maze"
	tmaze := "../../examples/pomdp/tmaze.json"
	tiny := btaiData("tiny-pomdp.json")
	bModel, bData := "../../examples/behaviour/model.json", "../../examples/behaviour/p01.csv"
	hmm := "../../examples/models/hmm.json"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"aci", "run", "--model", tmaze, "--horizon", "1", "--noise", "0.5"}, "--noise and --pref-precision apply to --maze only"},
		{[]string{"aci", "run", "--model", tmaze, "--horizon", "1", "--pref-precision", "2"}, "--noise and --pref-precision apply to --maze only"},
		{[]string{"aci", "run", "--maze", maze, "--horizon", "1", "--infer-gamma", "--gamma", "4"}, "--gamma: the fixed precision, unused with --infer-gamma"},
		{[]string{"aci", "run", "--maze", maze, "--horizon", "1", "--beta", "2"}, "--beta: the rate of the precision's prior, which needs --infer-gamma"},
		{[]string{"aci", "run", "--maze", maze, "--horizon", "1", "--eta", "0.5"}, "--eta: the model has no concentrations"},
		{[]string{"aci", "replay", "--model", bModel, "--data", bData, "--horizon", "1", "--omega", "0.5"}, "--omega: the model has no concentrations"},
		{[]string{"aci", "replay", "--model", bModel, "--data", bData, "--horizon", "1", "--beliefs"}, "--beliefs: applies to --json and --csv"},
		{[]string{"aci", "replay", "--model", bModel, "--data", bData, "--horizon", "1", "--seed", "3"}, "--seed: aci replay draws nothing"},
		{[]string{"aci", "replay", "--model", bModel, "--data", bData, "--horizon", "1", "--select", "sample"}, "--select: aci replay scores every recorded choice"},
		{[]string{"aci", "replay", "--model", bModel, "--data", bData, "--horizon", "1", "--select", "argmax"}, "--select: aci replay scores every recorded choice"},
		{[]string{"btai", "plan", "--model", tiny, "--obs", "0", "--window", "3"}, "--window: btai plan plans from one observation"},
		{[]string{"aci", "run", "--maze", maze, "--horizon", "1", "--seed", "3"}, "--seed: a --maze run with --select argmax draws nothing"},
		{[]string{"aci", "eval", "--model", tiny, "--obs", "0", "--horizon", "1", "--top", "3", "--json"}, "--top: applies to the human output"},
		{[]string{"btai", "run", "--maze", maze, "--eta", "0.5"}, "--eta: the model has no concentrations"},
		{[]string{"btai", "replay", "--model", bModel, "--data", bData, "--beliefs"}, "--beliefs: applies to --json and --csv"},
		{[]string{"btai", "plan", "--model", tiny, "--obs", "0", "--dot-factors", "--plot", filepath.Join(t.TempDir(), "p.png")}, "--dot-factors: needs --dot FILE"},
		{[]string{"btai", "plan", "--model", tiny, "--obs", "0", "--dot-depth", "2"}, "--dot-depth: needs --dot FILE or --plot FILE"},
		{[]string{"infer", hmm, "--json", "--digits", "3"}, "--digits: applies to the human output"},
		{[]string{"dot", hmm, "--json", "-o", filepath.Join(t.TempDir(), "g.dot")}, "--json and -o: give one"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", strings.Join(c.args, " "), code, errb.String(), c.want)
		}
	}
	// The same flags where they apply.
	learn := "../../examples/pomdp/tmaze.json" // concentrations d
	for _, args := range [][]string{
		{"aci", "run", "--model", learn, "--horizon", "1", "--steps", "1", "--eta", "0.5", "--omega", "0.9"},
		{"aci", "run", "--maze", maze, "--horizon", "1", "--steps", "1", "--infer-gamma", "--beta", "2"},
		{"aci", "run", "--maze", maze, "--horizon", "1", "--steps", "1", "--select", "sample", "--seed", "3"},
		// btai's --seed is accepted whatever the preset and roll-outs make
		// of it (here nothing is drawn: a maze, the most-visited rule of
		// the default preset and no roll-outs).
		{"btai", "run", "--maze", maze, "--iterations", "5", "--steps", "1", "--seed", "3"},
		{"btai", "run", "--maze", maze, "--iterations", "5", "--steps", "1", "--window", "3"},
		{"aci", "run", "--model", learn, "--horizon", "1", "--steps", "1", "--seed", "3"},
		{"aci", "replay", "--model", bModel, "--data", bData, "--horizon", "1", "--action-precision", "3"},
		{"aci", "eval", "--model", tiny, "--obs", "0", "--horizon", "1", "--top", "3"},
		{"infer", hmm, "--digits", "3"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Errorf("%s: exit %d, stderr %q", strings.Join(args, " "), code, errb.String())
		}
	}
}

// TestOutputFileErrors: an output file that cannot be created is refused
// before any work (exit 2) naming its own flag, and an existing file is
// left as it was.
func TestOutputFileErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such")
	maze := "../../examples/mazes/1.maze"
	tiny := btaiData("tiny-pomdp.json")
	bModel, bData := "../../examples/behaviour/model.json", "../../examples/behaviour/p01.csv"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"dot", "../../examples/models/hmm.json", "-o", missing + "/g.svg"}, "-o " + missing + "/g.svg: cannot create: no such file or directory"},
		{[]string{"aci", "run", "--maze", maze, "--horizon", "1", "--dot", missing + "/g.svg"}, "--dot " + missing + "/g.svg: cannot create: no such file or directory"},
		{[]string{"aci", "run", "--maze", maze, "--horizon", "1", "--plot", missing + "/p.png"}, "--plot " + missing + "/p.png: cannot create"},
		{[]string{"btai", "run", "--maze", maze, "--plot", missing + "/p.png"}, "--plot " + missing + "/p.png: cannot create"},
		{[]string{"btai", "plan", "--model", tiny, "--obs", "0", "--plot", missing + "/p.png"}, "--plot " + missing + "/p.png: cannot create"},
		{[]string{"btai", "plan", "--model", tiny, "--obs", "0", "--dot", dir}, "--dot " + dir + ": cannot create: is a directory"},
		{[]string{"aci", "replay", "--model", bModel, "--data", bData, "--horizon", "1", "--subjects", missing + "/s.csv"}, "--subjects " + missing + "/s.csv: cannot create"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) || out.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want 2 and %q", strings.Join(c.args, " "), code, out.Len(), errb.String(), c.want)
		}
	}
	// A figure that fails (a renderer that exits with an error) leaves the
	// previous file as it was and no temporary file.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "dot"), []byte("#!/bin/sh\necho 'Error: out of cheese' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	fig := filepath.Join(dir, "g.svg")
	os.WriteFile(fig, []byte("previous"), 0o644)
	var out, errb bytes.Buffer
	code := run([]string{"btai", "plan", "--model", tiny, "--obs", "0", "--iterations", "5", "--dot", fig}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "--dot "+fig+": Graphviz dot failed: exit status 3: Error: out of cheese") {
		t.Errorf("failing renderer: exit %d, %q", code, errb.String())
	}
	if b, _ := os.ReadFile(fig); string(b) != "previous" {
		t.Errorf("the previous figure reads %q", b)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestFigureLimits: a figure Graphviz would take minutes over is refused
// before any work, naming the size and the remedies; the same figure as
// DOT text is written; DOT text past its own limit is refused too.
func TestFigureLimits(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("Graphviz dot not installed")
	}
	dir := t.TempDir()
	tiny := btaiData("tiny-pomdp.json") // 2 actions
	long := hmmChain(t, dir, 300)       // 1,202 nodes and 1,499 edges
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"dot", long, "--unroll", "all", "-o", dir + "/g.svg"}, []string{"-o " + dir + "/g.svg: the figure would have 1202 nodes and 1499 edges", "(800 nodes and edges in all for a factor graph)", "draw it folded", "-o FILE.dot"}},
		{[]string{"btai", "plan", "--model", tiny, "--obs", "0", "--iterations", "1000", "--dot", dir + "/t.svg", "--dot-depth", "1000"}, []string{"--dot " + dir + "/t.svg: the figure would have 2001 nodes and 2000 edges", "4000 nodes and edges in all for a planning tree", "--dot-depth D or --dot-top K", "--dot FILE.dot"}},
		{[]string{"btai", "plan", "--model", tiny, "--obs", "0", "--iterations", "1000", "--plot", dir + "/t.png", "--dot-depth", "5000"}, []string{"--plot " + dir + "/t.png: the figure would have 2001 nodes"}},
		{[]string{"btai", "plan", "--model", tiny, "--obs", "0", "--iterations", "1000", "--dot", dir + "/f.svg", "--dot-factors"}, []string{"--dot " + dir + "/f.svg: the figure would have", "without --dot-factors"}},
		{[]string{"btai", "run", "--maze", "../../examples/mazes/1.maze", "--iterations", "1000", "--dot", dir + "/t.pdf", "--dot-depth", "1000"}, []string{"--dot " + dir + "/t.pdf: the figure would have 5001 nodes and 5000 edges"}},
		{[]string{"btai", "plan", "--model", tiny, "--obs", "0", "--iterations", "400000", "--dot", dir + "/t.dot", "--dot-depth", "400000"}, []string{"--dot " + dir + "/t.dot: the figure would have 800001 nodes and 800000 edges, more than arbor writes as DOT text (500000 nodes and edges in all)", "--dot-depth D or --dot-top K"}},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		for _, w := range c.want {
			if code != 2 || !strings.Contains(errb.String(), w) {
				t.Errorf("%s: exit %d, stderr %q; want 2 and %q", strings.Join(c.args[:min(len(c.args), 3)], " "), code, errb.String(), w)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 { // the model file
			t.Errorf("%s: files %v", c.args[0], entries)
		}
	}
	// As DOT text, or drawn in part, they are written.
	for _, args := range [][]string{
		{"dot", long, "-o", dir + "/g.dot"},
		{"btai", "plan", "--model", tiny, "--obs", "0", "--iterations", "1000", "--dot", dir + "/t.dot"},
		{"btai", "plan", "--model", tiny, "--obs", "0", "--iterations", "1000", "--dot", dir + "/t.svg", "--dot-depth", "2"},
		// At the default view (what fits a page), whatever the tree's size.
		{"btai", "plan", "--model", tiny, "--obs", "0", "--iterations", "1000", "--plot", dir + "/p.png"},
		{"btai", "run", "--maze", "../../examples/mazes/1.maze", "--iterations", "300", "--dot", dir + "/r.svg"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Errorf("%s: exit %d, stderr %q", strings.Join(args, " "), code, errb.String())
		}
	}
	// A depth limit that still draws too much is counted on the tree
	// (measured: 5,463 of the 10,001 nodes lie within depth 14).
	var out, errb bytes.Buffer
	code := run([]string{"btai", "plan", "--model", tiny, "--obs", "0", "--iterations", "5000", "--dot", dir + "/t2.svg", "--dot-depth", "14"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "--dot "+dir+"/t2.svg: the figure would have") || !strings.Contains(errb.String(), "--dot-depth D") {
		t.Errorf("--dot-depth 14: exit %d, stderr %q", code, errb.String())
	}
	if _, err := os.Stat(dir + "/t2.svg"); err == nil {
		t.Error("--dot-depth 14: the refused figure was written")
	}
}

// TestStdoutClosed runs the built binary with its standard output a pipe
// whose reader has gone (as `arbor ... | head -c 0` ends): the first write
// fails with EPIPE (SIGPIPE is caught), and every command, in every output
// mode, stops and exits 0 with nothing on stderr, as Unix tools end when
// head has read enough; `arbor btai run --json | head -1` the same. A full
// disk (`> /dev/full`) still exits 1 with one line. Standard output closed
// by the shell (`>&-`) is another case: the Go runtime opens /dev/null in
// its place before arbor starts, so the output is discarded and the exit
// status is 0 (docs/cli.md, "Exit status and error lines").
func TestStdoutClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the arbor binary: skipped with -short; .ci/run runs it")
	}
	bin := buildArbor(t)
	hmm := "../../examples/models/hmm.json"
	maze := "../../examples/mazes/1.maze"
	tiny := btaiData("tiny-pomdp.json")
	bModel, bData := "../../examples/behaviour/model.json", "../../examples/behaviour/p01.csv"
	var cases [][]string
	for _, mode := range [][]string{nil, {"--json"}} {
		cases = append(cases,
			append([]string{"infer", hmm}, mode...),
			append([]string{"dot", hmm}, mode...),
			append([]string{"aci", "eval", "--model", tiny, "--obs", "0", "--horizon", "2"}, mode...),
			append([]string{"btai", "plan", "--model", tiny, "--obs", "0", "--iterations", "10"}, mode...),
		)
	}
	for _, mode := range [][]string{nil, {"--json"}, {"--csv"}} {
		cases = append(cases,
			append([]string{"aci", "run", "--maze", maze, "--horizon", "1", "--steps", "2"}, mode...),
			append([]string{"btai", "run", "--maze", maze, "--iterations", "10", "--steps", "2"}, mode...),
			append([]string{"aci", "replay", "--model", bModel, "--data", bData, "--horizon", "1"}, mode...),
		)
	}
	for _, args := range cases {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close() // no reader: a write fails with EPIPE
		cmd := exec.Command(bin, args...)
		var errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = w, &errb
		err = cmd.Run()
		w.Close()
		code := cmd.ProcessState.ExitCode()
		if code != 0 || errb.Len() != 0 {
			t.Errorf("%s | (closed): exit %d (%v), stderr %q; want 0 and nothing", strings.Join(args, " "), code, err, errb.String())
		}
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			continue // no /dev/full (not Linux)
		}
		cmd = exec.Command(bin, args...)
		errb.Reset()
		cmd.Stdout, cmd.Stderr = full, &errb
		err = cmd.Run()
		full.Close()
		if code := cmd.ProcessState.ExitCode(); code != 1 || strings.Count(errb.String(), "\n") != 1 ||
			!strings.Contains(errb.String(), "writing standard output: ") || !strings.Contains(errb.String(), "no space left") {
			t.Errorf("%s > /dev/full: exit %d (%v), stderr %q; want 1 and one line", strings.Join(args, " "), code, err, errb.String())
		}
	}
	// A reader that reads one line and goes, after the command has begun.
	var headErr bytes.Buffer
	head := exec.Command("bash", "-c", `set -o pipefail; "$0" btai run --maze "$1" --iterations 10 --steps 2 --episodes 2000 --json | head -1`, bin, maze)
	head.Stderr = &headErr
	got, err := head.Output()
	if err != nil || headErr.Len() != 0 || strings.Count(string(got), "\n") != 1 {
		t.Errorf("btai run --json | head -1: %v, stderr %q, stdout %q; want exit 0, nothing on stderr, one line", err, headErr.String(), got)
	}
	// `>&-`: the documented exception.
	var errb bytes.Buffer
	cmd := exec.Command("sh", "-c", `exec "$0" infer "$1" >&-`, bin, hmm)
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil || errb.Len() != 0 {
		t.Errorf("infer >&-: %v, stderr %q; want exit 0 and nothing on stderr (documented: the output goes to /dev/null)", err, errb.String())
	}
}
