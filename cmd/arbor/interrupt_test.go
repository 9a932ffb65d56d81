//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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

// interruptTrials is the number of signals of each kind (SIGINT, SIGTERM)
// TestInterruptOutputs sends to each command: 5, or 50 for the soak
// (about 12 minutes):
//
//	ARBOR_INTERRUPT_SOAK=1 go test -count=1 -timeout 60m -v -run TestInterruptOutputs ./cmd/arbor/
func interruptTrials() int {
	if os.Getenv("ARBOR_INTERRUPT_SOAK") != "" {
		return 50
	}
	return 5
}

// dotRecorder puts a dot first on PATH that writes its process id to the
// file named by $ARBOR_TEST_DOT_PIDS and runs Graphviz's, so that a test
// can check that no renderer outlives arbor. It returns the PATH.
func dotRecorder(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz dot not installed")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\necho $$ >> \"$ARBOR_TEST_DOT_PIDS\"\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "dot"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// processAlive reports whether process pid exists and is not a zombie.
func processAlive(pid int) bool {
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

// renderersGone waits up to two seconds for every renderer recorded in
// pidFile to end, and returns those still running.
func renderersGone(t *testing.T, pidFile string) []int {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		p, _ := strconv.Atoi(f)
		pids = append(pids, p)
	}
	for range 200 {
		var left []int
		for _, p := range pids {
			if processAlive(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return nil
		}
		pids = left
		time.Sleep(10 * time.Millisecond)
	}
	return pids
}

// previous is what every output file holds before a trial.
const previous = "previous content\n"

// fileComplete reports whether the output file holds a complete file of
// its kind (SVG, PNG, PDF or DOT, by its ending) or the previous content;
// what it found otherwise.
func fileComplete(path string) (bool, string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, err.Error()
	}
	if string(b) == previous {
		return true, "previous"
	}
	text := strings.TrimSpace(string(b))
	switch filepath.Ext(path) {
	case ".svg":
		if strings.HasSuffix(text, "</svg>") {
			return true, "new"
		}
	case ".png":
		if _, err := png.Decode(bytes.NewReader(b)); err == nil {
			return true, "new"
		}
	case ".pdf":
		if strings.HasSuffix(text, "%%EOF") {
			return true, "new"
		}
	case ".csv": // the --subjects table
		lines := strings.Split(text, "\n")
		ok := lines[0] == "subject,log_likelihood,n_choices" && strings.HasSuffix(string(b), "\n")
		for _, l := range lines[1:] {
			ok = ok && strings.Count(l, ",") == 2
		}
		if ok {
			return true, "new"
		}
	default:
		if strings.HasPrefix(text, "digraph") && strings.HasSuffix(text, "}") {
			return true, "new"
		}
	}
	return false, fmt.Sprintf("%d bytes, ending %q", len(b), text[max(0, len(text)-40):])
}

// interruptCase is a command TestInterruptOutputs interrupts.
type interruptCase struct {
	name     string
	args     func(dir string) []string // the command, writing its files into dir
	files    []string                  // the output files, in dir
	maxDelay time.Duration             // signals are sent 30 ms to maxDelay after the start
	// stdout checks the standard output of a run ended by a signal
	// (interrupted) or not, and reports whether it holds every record the
	// command makes (whole); changed holds the new content of the files
	// it replaced.
	stdout func(t *testing.T, out string, interrupted bool, changed map[string]string) (whole bool)
}

// runJSONOutput checks the --json output of aci run and btai run (every
// line JSON, and when interrupted a summary counting the records written;
// the --plot file is replaced only when an episode was written, and the
// run finished: interruptTrial checks that no file of an interrupted
// command is replaced). It never reports the output whole: these runs
// render their figures after the last record, so a signal then still
// stops work.
func runJSONOutput(t *testing.T, out string, interrupted bool, changed map[string]string) bool {
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	records := 0
	var last map[string]any
	for i, l := range lines {
		last = nil
		if err := json.Unmarshal([]byte(l), &last); err != nil {
			t.Errorf("line %d of %d not JSON (%v): %.80q", i+1, len(lines), err, l)
			return false
		}
		if _, ok := last["episode"]; ok {
			records++
		}
	}
	if _, ok := last["episode"]; ok || last["episodes"] == nil {
		t.Errorf("the last line is not the summary: %.120q", lines[len(lines)-1])
	} else if n := int(last["episodes"].(float64)); n != records {
		t.Errorf("summary of %d episodes, %d written", n, records)
	}
	if records == 0 && changed["p.png"] != "" {
		t.Error("no episode written, but --plot replaced the previous file")
	}
	return false
}

// TestInterruptOutputs sends SIGINT or SIGTERM, to the process group as
// a terminal's Ctrl-C does, at random moments (30 ms to a few seconds
// after the start: planning, rendering, running episodes, writing) to
// aci run and btai run with --dot, --plot and --json, btai plan with
// --dot and --plot, btai replay with --subjects and --json, infer --data
// --json and arbor dot -o x.svg of a model whose figure takes seconds to
// render. Every time: exit status 130 or
// 143 (0 if the command finished first), one line "interrupted" on
// stderr, every output file either complete or the previous one (never
// part of one; the previous one whenever the command was interrupted),
// no temporary file left, no renderer left running (each
// renderer's process id is recorded by a dot wrapper on PATH), and the
// records written before the signal with their summary. A signal that
// comes after the last record still gives 130 or 143 with every record
// written (the status reports a signal during the run); some signal of
// each case must stop the work short. It logs the time from the signal to
// the exit, the longest and the median.
func TestInterruptOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the arbor binary: skipped with -short; .ci/run runs it")
	}
	path := dotRecorder(t)
	bin := buildArbor(t)
	data := t.TempDir()
	maze := filepath.Join("..", "..", "examples", "mazes", "1.maze")
	chain := hmmChain(t, data, 2000)
	sets := inferDataFile(t, data, 300)
	figure := hmmChain(t, data, 88) // 793 nodes and edges unrolled (--unroll all): about 9 s to render
	tiny := btaiData("tiny-pomdp.json")
	// Recorded behaviour to replay: 12 agents' trials on the T-maze.
	tmaze := filepath.Join("..", "..", "examples", "pomdp", "tmaze.json")
	rec, err := exec.Command(bin, "btai", "run", "--model", tmaze, "--agents", "12", "--episodes", "3", "--steps", "3", "--iterations", "20", "--csv").Output()
	if err != nil {
		t.Fatal(err)
	}
	behaviour := filepath.Join(data, "behaviour.csv")
	if err := os.WriteFile(behaviour, rec, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []interruptCase{
		{"aci run", func(dir string) []string {
			return []string{"aci", "run", "--maze", maze, "--horizon", "6", "--episodes", "16", "--steps", "10", "--jobs", "1",
				"--dot", dir + "/g.svg", "--plot", dir + "/p.png", "--json"}
		}, []string{"g.svg", "p.png"}, 3 * time.Second, runJSONOutput},
		{"btai run", func(dir string) []string {
			return []string{"btai", "run", "--maze", maze, "--iterations", "200", "--episodes", "60", "--steps", "10", "--jobs", "1",
				"--dot", dir + "/t.svg", "--plot", dir + "/p.png", "--json"}
		}, []string{"t.svg", "p.png"}, 3 * time.Second, runJSONOutput},
		{"btai plan", func(dir string) []string {
			return []string{"btai", "plan", "--model", tiny, "--obs", "0", "--iterations", "990", "--dot", dir + "/t.dot", "--plot", dir + "/p.png"}
		}, []string{"t.dot", "p.png"}, 2 * time.Second, func(t *testing.T, out string, interrupted bool, changed map[string]string) bool {
			whole := strings.Contains(out, "planned 990 iterations")
			if out != "" && !whole || !interrupted && !whole {
				t.Errorf("interrupted %v, stdout %.80q", interrupted, out)
			}
			return whole
		}},
		{"btai replay", func(dir string) []string {
			return []string{"btai", "replay", "--model", tmaze, "--data", behaviour, "--iterations", "2000", "--jobs", "1",
				"--subjects", dir + "/s.csv", "--json"}
		}, []string{"s.csv"}, 3 * time.Second, func(t *testing.T, out string, interrupted bool, changed map[string]string) bool {
			subjects := 0
			for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				var r map[string]any
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Errorf("line %d: %v %.80q", i+1, err, l)
					return false
				}
				if r["log_likelihood"] != nil {
					subjects++
				}
			}
			if table := changed["s.csv"]; table != "" && strings.Count(table, "\n") != 1+subjects {
				t.Errorf("--subjects has %d lines, the output %d subjects", strings.Count(table, "\n"), subjects)
			}
			if subjects > 12 || !interrupted && subjects != 12 {
				t.Errorf("interrupted %v after %d of the 12 subjects", interrupted, subjects)
			}
			return subjects == 12
		}},
		{"infer --data", func(dir string) []string {
			return []string{"infer", chain, "--data", sets, "--json"}
		}, nil, 3 * time.Second, func(t *testing.T, out string, interrupted bool, changed map[string]string) bool {
			if out == "" && interrupted {
				return false // interrupted during the first data set
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			for i, l := range lines {
				var r map[string]any
				if err := json.Unmarshal([]byte(l), &r); err != nil || r["posteriors"] == nil {
					t.Errorf("line %d of %d: %v %.80q", i+1, len(lines), err, l)
					return false
				}
			}
			if len(lines) > 300 || !interrupted && len(lines) != 300 {
				t.Errorf("interrupted %v after %d of the 300 data sets", interrupted, len(lines))
			}
			return len(lines) == 300
		}},
		{"dot", func(dir string) []string {
			return []string{"dot", figure, "--unroll", "all", "-o", dir + "/g.svg"}
		}, []string{"g.svg"}, 2 * time.Second, func(t *testing.T, out string, interrupted bool, changed map[string]string) bool {
			if out != "" {
				t.Errorf("stdout %.80q", out)
			}
			return false // no records: a late signal leaves the previous figure (EndCommand)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(len(c.name)), 7))
			var took []time.Duration
			bySignal := map[syscall.Signal][]time.Duration{}
			counts := map[string]int{}
			for i := range 2 * interruptTrials() {
				sig := syscall.SIGINT
				if i%2 == 1 {
					sig = syscall.SIGTERM
				}
				delay := 30*time.Millisecond + time.Duration(rng.Int64N(int64(c.maxDelay)))
				d, outcome := interruptTrial(t, bin, path, c, sig, delay)
				counts[outcome]++
				if outcome != "finished" && outcome != "killed at the start" {
					took = append(took, d)
					bySignal[sig] = append(bySignal[sig], d)
				}
				if t.Failed() {
					t.Fatalf("trial %d: %v after %v", i+1, sig, delay)
				}
			}
			// A signal may come after the last record (a window of about
			// a millisecond, measured); but if three or more signals came
			// while the command ran and none stopped it short, the
			// command ignored them.
			stopped := 0
			for o, n := range counts {
				if o == "130" || o == "143" {
					stopped += n
				}
			}
			if len(took) >= 3 && stopped == 0 {
				t.Errorf("%s: no signal stopped the work before its last record: %v", c.name, counts)
			}
			slices.Sort(took)
			if len(took) > 0 {
				t.Logf("%s: %v; signal to exit: median %v, longest %v", c.name, counts, took[len(took)/2], took[len(took)-1])
				for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
					if d := bySignal[sig]; len(d) > 0 {
						slices.Sort(d)
						t.Logf("%s: %v to exit, %d times: shortest %v, median %v, longest %v", c.name, sig, len(d), d[0], d[len(d)/2], d[len(d)-1])
					}
				}
				// Within a second on a quiet machine (measured: under 150
				// ms); a loaded one (other tests, fuzzing) gets 5 s.
				if took[len(took)-1] > 5*time.Second {
					t.Errorf("an exit %v after the signal, want within a second (5 s allowed)", took[len(took)-1])
				}
			}
		})
	}
}

// interruptTrial runs case c once, sending sig to its process group after
// delay, checks what it left and returns the time from the signal to the
// exit and the outcome: "finished" (before the signal), or the exit status.
func interruptTrial(t *testing.T, bin, path string, c interruptCase, sig syscall.Signal, delay time.Duration) (time.Duration, string) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range c.files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(previous), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pidFile := filepath.Join(dir, "renderers")
	cmd := exec.Command(bin, c.args(dir)...)
	cmd.Env = append(os.Environ(), "PATH="+path, "ARBOR_TEST_DOT_PIDS="+pidFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	var sent time.Time
	finished := false
	select {
	case err = <-done:
		finished = true
	case <-time.After(delay):
		sent = time.Now()
		if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
			t.Fatal(err)
		}
		err = <-done
	}
	took := time.Since(sent)
	code := cmd.ProcessState.ExitCode()
	if code == 0 {
		// The work was done; a signal that came as the process exited
		// (after its status was decided) changes nothing.
		finished = true
	}
	outcome := "finished"
	interrupted := !finished
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == sig && stdout.Len() == 0 && stderr.Len() == 0 {
		// A signal before arbor installed its handler (the Go runtime
		// starting, slowed by a loaded machine) ends it by default; it has
		// written nothing.
		for _, f := range c.files {
			if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != previous {
				t.Errorf("%s: killed by %v at the start, but %s changed", c.name, sig, f)
			}
		}
		return took, "killed at the start"
	}
	switch {
	case finished && code != 0:
		t.Errorf("%s finished with exit %d: %s", c.name, code, stderr.String())
	case finished:
	case code != 128+int(sig):
		t.Errorf("%s: %v after %v: exit %v (%v), want %d; stderr %q", c.name, sig, delay, code, err, 128+int(sig), stderr.String())
	default:
		outcome = fmt.Sprint(code)
		prefix := "arbor " + c.args(dir)[0]
		if a := c.args(dir); a[0] == "aci" || a[0] == "btai" {
			prefix += " " + a[1]
		}
		if stderr.String() != prefix+": interrupted\n" {
			t.Errorf("%s: stderr %q, want one line %q", c.name, stderr.String(), prefix+": interrupted")
		}
	}
	changed := map[string]string{}
	for _, f := range c.files {
		ok, what := fileComplete(filepath.Join(dir, f))
		if !ok {
			t.Errorf("%s: %v after %v: %s is partial: %s", c.name, sig, delay, f, what)
		}
		if what == "new" {
			b, _ := os.ReadFile(filepath.Join(dir, f))
			changed[f] = string(b)
		}
		if finished && what != "new" {
			t.Errorf("%s finished but %s is %s", c.name, f, what)
		}
		if interrupted && what == "new" {
			t.Errorf("%s: %v after %v: interrupted, but %s was replaced (a file is renamed into place only when the command succeeds)", c.name, sig, delay, f)
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) > 0 {
		t.Errorf("%s: %v after %v: temporary files left: %v", c.name, sig, delay, tmp)
	}
	if left := renderersGone(t, pidFile); len(left) > 0 {
		t.Errorf("%s: %v after %v: renderers %v still running", c.name, sig, delay, left)
		for _, p := range left {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
	if whole := c.stdout(t, stdout.String(), interrupted, changed); whole && interrupted {
		// The signal came after the last record was written: the status
		// still says a signal arrived while the command ran (the package
		// comment of main), and no file was replaced.
		outcome += " after the last record"
	}
	return took, outcome
}

// TestInterruptSecondSignal: work that cannot stop at once (opening a
// FIFO that no program writes) is abandoned a second after SIGINT (exit
// 130, "interrupted"); a second signal ends the process at once, with its
// own status.
func TestInterruptSecondSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the arbor binary: skipped with -short; .ci/run runs it")
	}
	bin := buildArbor(t)
	fifo := filepath.Join(t.TempDir(), "model.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	for _, c := range []struct {
		signals []syscall.Signal
		code    int
		within  time.Duration
	}{
		{[]syscall.Signal{syscall.SIGINT}, 130, 3 * time.Second},
		{[]syscall.Signal{syscall.SIGINT, syscall.SIGTERM}, 143, 500 * time.Millisecond},
	} {
		cmd := exec.Command(bin, "infer", fifo)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		var start time.Time
		for i, s := range c.signals {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			start = time.Now()
			cmd.Process.Signal(s)
		}
		cmd.Wait()
		took := time.Since(start)
		if code := cmd.ProcessState.ExitCode(); code != c.code || stderr.String() != "arbor infer: interrupted\n" || took > c.within {
			t.Errorf("%v: exit %d after %v, stderr %q; want %d within %v", c.signals, code, took, stderr.String(), c.code, c.within)
		}
		t.Logf("%v: exit %d %v after the last signal", c.signals, cmd.ProcessState.ExitCode(), took)
	}
}

// TestRendererBounded: the renderer is killed at its time limit
// (ARBOR_RENDER_SECONDS; exit 1 naming it, the previous file intact) and
// when arbor is killed outright (SIGKILL: the kernel's parent-death
// signal), rather than running on for minutes.
func TestRendererBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the arbor binary: skipped with -short; .ci/run runs it")
	}
	path := dotRecorder(t)
	bin := buildArbor(t)
	figure := hmmChain(t, t.TempDir(), 88) // about 9 s to render with --unroll all
	for _, killed := range []bool{false, true} {
		dir := t.TempDir()
		out := filepath.Join(dir, "g.svg")
		os.WriteFile(out, []byte(previous), 0o644)
		pidFile := filepath.Join(dir, "renderers")
		cmd := exec.Command(bin, "dot", figure, "--unroll", "all", "-o", out)
		cmd.Env = append(os.Environ(), "PATH="+path, "ARBOR_TEST_DOT_PIDS="+pidFile, "ARBOR_RENDER_SECONDS=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if killed {
			for range 500 {
				if b, _ := os.ReadFile(pidFile); len(b) > 0 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			cmd.Process.Kill()
		}
		cmd.Wait()
		took := time.Since(start)
		if b, _ := os.ReadFile(out); string(b) != previous {
			t.Errorf("killed %v: the previous file reads %.40q", killed, b)
		}
		if left := renderersGone(t, pidFile); len(left) > 0 {
			t.Errorf("killed %v: renderers %v still running", killed, left)
			for _, p := range left {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
		if !killed {
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "did not finish within its time limit of 1s (set ARBOR_RENDER_SECONDS") || took > 5*time.Second {
				t.Errorf("time limit: exit %d after %v, stderr %q", code, took, stderr.String())
			}
			if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) > 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
		}
		t.Logf("killed %v: ended after %v", killed, took)
	}
}
