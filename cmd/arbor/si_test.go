package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

const siTMazeFile = "../../examples/pomdp/si-tmaze.json"

// siRun runs arbor si in-process (reported as the command line reports
// it) and returns its exit status, stdout and stderr.
func siRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := report(&errb, "arbor si", plannerCmdNamed(t, "si").run(args, &out))
	return code, out.String(), errb.String()
}

type siJSON struct {
	QS          map[string][]float64 `json:"q_s"`
	G           []*float64           `json:"G"`
	ActionProbs []float64            `json:"action_probs"`
	Depth       int                  `json:"depth"`
	Nodes       int                  `json:"nodes"`
	Truncated   bool                 `json:"truncated"`
}

func siDecode(t *testing.T, s string) siJSON {
	t.Helper()
	var keys map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &keys); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, s)
	}
	var got []string
	for k := range keys {
		got = append(got, k)
	}
	sort.Strings(got)
	if want := "G action_probs depth nodes q_s truncated"; strings.Join(got, " ") != want {
		t.Fatalf("JSON fields %v, want %s", got, want)
	}
	var r siJSON
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSIPlanJSON: arbor si plan --json prints the library's numbers: on
// pymdp's SI T-maze (marginal branching, depth 2, gamma 3) the cue's
// probability is the notebook's 0.980 (si/pymdp_test.go).
func TestSIPlanJSON(t *testing.T) {
	code, out, errs := siRun(t, "plan", "--model", siTMazeFile, "--obs", "0,0", "--depth", "2", "--gamma", "3", "--branch", "marginal", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got := siDecode(t, out)
	m, err := pomdp.Load(siTMazeFile)
	if err != nil {
		t.Fatal(err)
	}
	qs := []float64{1, 0, 0, 0, 0.5, 0.5} // at the centre, the context unknown
	res, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 2, Gamma: 3, Branch: si.Marginal})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.G) != 4 || len(got.ActionProbs) != 4 {
		t.Fatalf("G %v, action_probs %v: want one entry per joint action (4)", got.G, got.ActionProbs)
	}
	for u := range res.G {
		if got.G[u] == nil || math.Abs(*got.G[u]-res.G[u]) > 1e-12 || math.Abs(got.ActionProbs[u]-res.ActionProbs[u]) > 1e-12 {
			t.Errorf("action %d: G %v, Q %v; library %v, %v", u, got.G[u], got.ActionProbs[u], res.G[u], res.ActionProbs[u])
		}
	}
	if math.Abs(got.ActionProbs[3]-0.980) > 1e-3 {
		t.Errorf("Q(cue) = %v, pymdp 0.980", got.ActionProbs[3])
	}
	if got.Nodes != res.Nodes || got.Truncated || got.Depth != 2 {
		t.Errorf("nodes %d, truncated %v, depth %d; want %d, false, 2", got.Nodes, got.Truncated, got.Depth, res.Nodes)
	}
	if q := got.QS["context"]; len(q) != 2 || q[0] != 0.5 {
		t.Errorf("q_s %v", got.QS)
	}
}

// TestSIPlanHuman: the human output names the most probable action and
// the node count, marks pruned actions and says when the budget cut the
// search. At depth 2 the T-maze scores 7 beliefs: the root and the 6
// distinct beliefs one step on (going to the centre gives the root's
// belief back). Its one-step probabilities at gamma 3 are 0.1835, 0.0036,
// 0.0036, 0.8092, so --prune-actions 0.2 prunes three actions; a budget of
// 5 beliefs (the root and its 4 actions) completes depth 1 only.
func TestSIPlanHuman(t *testing.T) {
	code, out, errs := siRun(t, "plan", "--model", siTMazeFile, "--obs", "0,0", "--depth", "2", "--gamma", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"depth 2, gamma 3, joint outcomes, no pruning: 7 nodes", "go-cue", "<- most probable"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = siRun(t, "plan", "--model", siTMazeFile, "--obs", "0,0", "--depth", "2", "--gamma", "3", "--prune-actions", "0.2")
	if strings.Count(out, "pruned") != 3 {
		t.Errorf("--prune-actions 0.2: want the three actions below 0.2 pruned:\n%s", out)
	}
	_, out, _ = siRun(t, "plan", "--model", siTMazeFile, "--obs", "0,0", "--depth", "3", "--max-nodes", "5")
	if !strings.Contains(out, "node budget --max-nodes 5 spent: searched 1 of 3 steps deep") {
		t.Errorf("--max-nodes 5: no truncation line:\n%s", out)
	}
	code, out, _ = siRun(t, "plan", "--model", siTMazeFile, "--obs", "0,0", "--depth", "3", "--max-nodes", "5", "--json")
	if got := siDecode(t, out); code != 0 || !got.Truncated || got.Depth != 1 || got.Nodes > 5 {
		t.Errorf("--max-nodes 5 --json: exit %d, %+v", code, got)
	}
	code, out, _ = siRun(t, "plan", "--model", siTMazeFile, "--obs", "0,0", "--depth", "2", "--prune-actions", "0.2", "--gamma", "3", "--json")
	if got := siDecode(t, out); code != 0 || got.G[0] != nil || got.ActionProbs[0] != 0 {
		t.Errorf("pruned action: exit %d, G %v, Q %v; want null and 0", code, got.G, got.ActionProbs)
	}
}

// TestSIPlanBadInput: bad input exits 2 with one line naming the flag.
func TestSIPlanBadInput(t *testing.T) {
	base := []string{"plan", "--model", siTMazeFile, "--obs", "0,0"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "want a subcommand"},
		{[]string{"simulation"}, "unknown subcommand \"simulation\" (want plan, run, replay, fit, simulate or recover)"},
		{[]string{"plan", "--model", siTMazeFile, "--obs", "0,0"}, "--depth: missing"},
		{append(base, "--depth", "0"), "--depth: 0, want 1..256"},
		{append(base, "--depth", "-2"), "--depth"},
		{append(base, "--depth", "2", "--gamma", "0"), "--gamma"},
		{append(base, "--depth", "2", "--branch", "both"), "--branch"},
		{append(base, "--depth", "2", "--prune-actions", "1"), "--prune-actions: 1, want a number in [0, 1)"},
		{append(base, "--depth", "2", "--prune-outcomes", "-0.5"), "--prune-outcomes"},
		{append(base, "--depth", "2", "--prune-relative"), "--prune-relative: needs --prune-actions"},
		{append(base, "--depth", "2", "--max-branches", "0"), "--max-branches"},
		// 4 actions: one level is the root and 4 children.
		{append(base, "--depth", "2", "--max-nodes", "3"), "--max-nodes: 3, want >= 5"},
		{append(base, "--depth", "2", "--max-minutes", "0"), "--max-minutes"},
		{append(base, "--depth", "200", "--max-nodes", "100000000", "--max-minutes", "0.001"), "--max-minutes 0.001"},
		{[]string{"plan", "--model", siTMazeFile, "--depth", "2"}, "--obs: missing"},
		{[]string{"plan", "--model", siTMazeFile, "--obs", "9,0", "--depth", "2"}, "--obs"},
		{[]string{"plan", "--obs", "0", "--depth", "2"}, "--model: missing"},
		{[]string{"plan", "--model", siTMazeFile, "--obs", "0,0", "--depth", "2", "extra"}, "unexpected argument"},
	} {
		code, out, errs := siRun(t, tc.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.args, code, out, errs, tc.want)
		}
	}
	code, out, _ := siRun(t, "plan", "-h")
	if code != 0 || !strings.Contains(out, "usage: arbor si plan") || !strings.Contains(out, "-prune-outcomes") {
		t.Errorf("-h: exit %d:\n%s", code, out)
	}
}

// siLines decodes every JSON line of out.
func siLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		lines = append(lines, v)
	}
	return lines
}

// TestSIRunReplayRoundTrip: a run's own CSV (sampled choices at α = 3, two
// agents of three trials on pymdp's SI T-maze) replayed with the same
// search gives back, step by step, the action distributions the run
// printed (to 1e-12), and its log-likelihood is the sum of the logarithms
// of the probabilities the run gave the actions it took (computed here
// from the run's own columns). The replay's output begins with its
// provenance line.
func TestSIRunReplayRoundTrip(t *testing.T) {
	search := []string{"--depth", "2", "--gamma", "3", "--branch", "marginal", "--action-precision", "3"}
	code, out, errs := siRun(t, append([]string{"run", "--model", siTMazeFile, "--episodes", "3", "--agents", "2", "--steps", "2", "--select", "sample", "--seed", "5", "--csv"}, search...)...)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	header, runRows := csvRows(t, out)
	data := filepath.Join(t.TempDir(), "run.csv")
	if err := os.WriteFile(data, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for _, row := range runRows {
		if u := row["u_location"]; u != "" {
			p, err := strconv.ParseFloat(row["p_"+u], 64)
			if err != nil {
				t.Fatal(err)
			}
			want += math.Log(p)
		}
	}
	code, out, errs = siRun(t, append([]string{"replay", "--model", siTMazeFile, "--data", data, "--csv"}, search...)...)
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errs)
	}
	_, repRows := csvRows(t, out)
	if len(repRows) != len(runRows) || len(runRows) != 2*3*3 {
		t.Fatalf("%d run rows, %d replay rows, want 18 each (2 agents × 3 trials × 3 steps)", len(runRows), len(repRows))
	}
	scored := 0
	for i, run := range runRows {
		rep := repRows[i]
		if run["u_location"] == "" {
			continue
		}
		for _, h := range header {
			if !strings.HasPrefix(h, "p_") {
				continue
			}
			a, _ := strconv.ParseFloat(run[h], 64)
			b, _ := strconv.ParseFloat(rep[h], 64)
			if math.Abs(a-b) > 1e-12 {
				t.Errorf("row %d: %s %v in the run, %v in the replay", i, h, a, b)
			}
		}
		scored++
	}
	if scored != 12 {
		t.Errorf("%d scored rows, want 12", scored)
	}
	code, out, errs = siRun(t, append([]string{"replay", "--model", siTMazeFile, "--data", data, "--json"}, search...)...)
	if code != 0 {
		t.Fatalf("replay --json: exit %d: %s", code, errs)
	}
	lines := siLines(t, out)
	if lines[0]["command"] != "si replay" || lines[0]["arbor"] == nil {
		t.Fatalf("first line %v, want the provenance", lines[0])
	}
	got, subjects := 0.0, 0
	for _, l := range lines[1:] {
		if ll, ok := l["log_likelihood"]; ok {
			got += ll.(float64)
			subjects++
		}
	}
	if subjects != 2 || math.Abs(got-want) > 1e-9 {
		t.Errorf("%d subjects, log-likelihood %.12f; the run's probabilities give %.12f", subjects, got, want)
	}
}

// TestSIRunJobsIdentical: si run and si replay write the same output with
// --jobs 1 and 2 (but for the timing figures and the provenance's --jobs),
// with sampled choices.
func TestSIRunJobsIdentical(t *testing.T) {
	timing := regexp.MustCompile(`("planning_seconds":)[0-9.e+-]+|[0-9.]+ s planning|"jobs":"[0-9]+"`)
	get := func(args ...string) string {
		code, out, errs := siRun(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return timing.ReplaceAllString(out, "T")
	}
	run := []string{"run", "--model", siTMazeFile, "--depth", "2", "--episodes", "6", "--steps", "2", "--select", "sample", "--seed", "2"}
	for _, format := range []string{"--json", "--csv", "--progress=false"} {
		a, b := get(append(run, format, "--jobs", "1")...), get(append(run, format, "--jobs", "2")...)
		if a != b {
			t.Errorf("si run %s: --jobs 2 differs from --jobs 1:\n%s\n---\n%s", format, b, a)
		}
	}
	_, csvOut, _ := siRun(t, append(run, "--csv", "--agents", "3")...)
	data := filepath.Join(t.TempDir(), "run.csv")
	if err := os.WriteFile(data, []byte(csvOut), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := []string{"replay", "--model", siTMazeFile, "--depth", "2", "--data", data, "--json"}
	if a, b := get(append(rep, "--jobs", "1")...), get(append(rep, "--jobs", "2")...); a != b {
		t.Errorf("si replay: --jobs 2 differs from --jobs 1:\n%s\n---\n%s", b, a)
	}
}

// TestSIRunTruncation: a search cut short by the node budget is never
// silent: run --json lists the steps (truncated_steps) and counts them in
// the summary (truncated_searches), the human output says so, and replay
// refuses to score a choice with a shallower search (exit 2, one line).
// From the centre with the context unknown, depth 3 needs 16 beliefs
// (TestSIPlanHuman's 7 at depth 2, and 9 more), so --max-nodes 8 cuts the
// first search to depth 2.
func TestSIRunTruncation(t *testing.T) {
	// The world always starts at the centre: the file's own D, with the
	// location pinned.
	raw, err := os.ReadFile(siTMazeFile)
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	loc := spec["factors"].([]any)[0].(map[string]any)
	loc["D"] = []float64{1, 0, 0, 0}
	model := filepath.Join(t.TempDir(), "centre.json")
	b, _ := json.Marshal(spec)
	if err := os.WriteFile(model, b, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "--model", model, "--depth", "3", "--max-nodes", "8", "--steps", "1"}
	code, out, errs := siRun(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := siLines(t, out)
	if len(lines) != 3 {
		t.Fatalf("want a provenance line, one episode and a summary:\n%s", out)
	}
	ep, sum := lines[1], lines[2]
	if fmt.Sprint(ep["truncated_steps"]) != "[0]" || fmt.Sprint(ep["search_nodes"]) != "[8]" || sum["truncated_searches"] != 1.0 {
		t.Errorf("episode %v, summary %v: want step 0 truncated after 8 nodes, one truncated search", ep, sum)
	}
	code, out, _ = siRun(t, args...)
	if code != 0 || !strings.Contains(out, "node budget --max-nodes 8 spent at steps 0") || !strings.Contains(out, "cut 1 searches short") {
		t.Errorf("human output does not report the truncation:\n%s", out)
	}
	_, csvOut, _ := siRun(t, append(args, "--csv")...)
	data := filepath.Join(t.TempDir(), "run.csv")
	if err := os.WriteFile(data, []byte(csvOut), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = siRun(t, "replay", "--model", model, "--depth", "3", "--max-nodes", "8", "--data", data)
	if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--max-nodes 8: the search stopped at depth 2 of 3") {
		t.Errorf("replay with a truncated search: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestSIRunMaze: on a maze the agent reaches the exit, and the output has
// the maze drawn and the summary of solved episodes.
func TestSIRunMaze(t *testing.T) {
	code, out, errs := siRun(t, "run", "--maze", "../../examples/mazes/1.maze", "--depth", "4", "--steps", "20", "--prune-outcomes", "0.1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "episode 1: reached the exit") || !strings.Contains(out, "1/1 episodes solved") {
		t.Errorf("si run --maze:\n%s", out)
	}
}

// TestSIRunBadInput: bad input to si run and si replay exits 2 with one
// line naming the flag or the file.
func TestSIRunBadInput(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(data, []byte("subject,trial,step,o_where,o_outcome,u_location\n1,1,0,centre,none,go-cue\n1,1,1,cue-left,none,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := []string{"run", "--model", siTMazeFile}
	rep := []string{"replay", "--model", siTMazeFile, "--data", data}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{run, "--depth: missing"},
		{append(run, "--depth", "0"), "--depth: 0, want 1..256"},
		{append(run, "--depth", "2", "--prune-outcomes", "1"), "--prune-outcomes: 1, want a number in [0, 1)"},
		{append(run, "--depth", "2", "--prune-actions", "-0.1"), "--prune-actions"},
		{append(run, "--depth", "2", "--max-nodes", "4"), "--max-nodes: 4, want >= 5"},
		{append(run, "--depth", "200", "--max-nodes", "100000000", "--max-minutes", "0.001"), "over --max-minutes 0.001"},
		{append(run, "--depth", "2", "--select", "best"), "--select"},
		{append(run, "--depth", "2", "--action-precision", "-1"), "--action-precision"},
		{append(run, "--depth", "2", "--eta", "0.5"), "--eta: the model has no concentrations"},
		{append(run, "--depth", "2", "--novelty"), "--novelty: the model has no concentrations a"},
		{append(run, "--depth", "2", "--json", "--csv"), "--json and --csv"},
		{append(run, "--depth", "2", "--steps", "0"), "--steps"},
		{append(run, "--depth", "2", "--noise", "0.2"), "--noise and --pref-precision apply to --maze only"},
		{[]string{"run", "--depth", "2"}, "want exactly one of --maze FILE and --model FILE"},
		{append(run, "--depth", "2", "--dot", filepath.Join(dir, "no", "t.dot")), "--dot"},
		{append(rep, "--depth", "0"), "--depth: 0"},
		{append(rep, "--depth", "2", "--select", "sample"), "select"},
		{append(rep, "--depth", "2", "--seed", "3"), "--seed: si replay draws nothing"},
		{[]string{"run", "--maze", "../../examples/mazes/1.maze", "--depth", "2", "--seed", "3"}, "--seed: a --maze run with --select argmax draws nothing"},
		{[]string{"replay", "--model", siTMazeFile, "--depth", "2"}, "--data: missing"},
		{[]string{"plan", "--model", siTMazeFile, "--obs", "0,0", "--depth", "2", "--dot-depth", "2"}, "--dot-depth: needs --dot FILE"},
		{[]string{"plan", "--model", siTMazeFile, "--obs", "0,0", "--depth", "2", "--dot", filepath.Join(dir, "t.dot"), "--dot-depth", "0"}, "--dot-depth: 0, want >= 1"},
	} {
		code, out, errs := siRun(t, tc.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.args, code, out, errs, tc.want)
		}
	}
	for _, sub := range []string{"run", "replay"} {
		code, out, _ := siRun(t, sub, "-h")
		if code != 0 || !strings.Contains(out, "usage: arbor si "+sub) || !strings.Contains(out, "-prune-outcomes") {
			t.Errorf("%s -h: exit %d:\n%s", sub, code, out)
		}
	}
}

// TestSIPlanDot: si plan --dot draws the search tree: beliefs as ellipses
// (the root filled), actions as boxes with G and Q(u) (the values of
// --json), outcomes with their probability, the most probable action
// bold; by default as many steps as keep the figure within 64 nodes and
// 12 on a level, every label at 10 points, with
// a note of what was left out; the same text from run to run; every node
// below its parent and the figure within 16 × 10 inches. On the T-maze at
// depth 3 (γ 3) the first step has 4 actions and 7 outcomes (centre: 1;
// each arm: reward or punishment; the cue: left or right), 12 nodes with
// the root; two steps would need 12 + 7 × 4 actions + their outcomes, over
// 64.
func TestSIPlanDot(t *testing.T) {
	dir := t.TempDir()
	plan := func(name string, extra ...string) string {
		path := filepath.Join(dir, name)
		args := append([]string{"plan", "--model", siTMazeFile, "--obs", "0,0", "--depth", "3", "--gamma", "3", "--dot", path}, extra...)
		if code, _, errs := siRun(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	text := plan("t.dot")
	if again := plan("t2.dot"); again != text {
		t.Error("DOT differs between runs")
	}
	if n := strings.Count(text, `shape="box"`); n != 4 {
		t.Errorf("%d action boxes, want 4:\n%s", n, text)
	}
	if n := strings.Count(text, `shape="ellipse"`); n != 8 {
		t.Errorf("%d beliefs, want the root and 7 outcomes:\n%s", n, text)
	}
	_, js, _ := siRun(t, "plan", "--model", siTMazeFile, "--obs", "0,0", "--depth", "3", "--gamma", "3", "--json")
	got := siDecode(t, js)
	for u, name := range []string{"go-centre", "go-left", "go-right", "go-cue"} {
		label := fmt.Sprintf("%s<BR/>G=%.4g Q=%.3g>", name, *got.G[u], got.ActionProbs[u])
		if !strings.Contains(text, label) {
			t.Errorf("no label %q:\n%s", label, text)
		}
	}
	for _, want := range []string{`cue-left+none<BR/>p=0.5>`, `fillcolor="lightgray"`, "1 of 3 steps drawn (--dot-depth 1)", `penwidth="2.5",shape="box"`} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q:\n%s", want, text)
		}
	}
	// The whole tree: no note, and the count the note gave.
	var left int
	if _, err := fmt.Sscanf(text[strings.Index(text, "): ")+3:], "%d more nodes", &left); err != nil {
		t.Fatal(err)
	}
	full := plan("full.dot", "--dot-depth", "3")
	if strings.Contains(full, "not drawn") {
		t.Error("--dot-depth 3 of 3: a note of nodes left out")
	}
	if n := strings.Count(full, "shape="); n != 12+left {
		t.Errorf("the whole tree has %d nodes, the note of the default figure says 12 + %d", n, left)
	}
	pruned := plan("pruned.dot", "--prune-actions", "0.1", "--dot-depth", "2")
	if !strings.Contains(pruned, `pruned, one-step G=5.044>,margin="0.03",shape="box",style="dashed"`) {
		t.Errorf("--prune-actions 0.1: no dashed pruned arm:\n%s", pruned)
	}
	for i, tx := range []string{text, pruned} {
		w, h, pos := plainLayoutByID(t, tx)
		for _, line := range strings.Split(tx, "\n") {
			if from, to, ok := edgeIDs(line); ok && !(pos[to][1] < pos[from][1]) {
				t.Errorf("node %s not below its parent %s", to, from)
			}
		}
		t.Logf("%.1f × %.1f inches", w, h)
		if i == 0 && (w > 16 || h > 10) {
			t.Errorf("the default figure is %.1f × %.1f inches, want within 16 × 10", w, h)
		}
	}
	// At its defaults, at depth 2, 3 and 4: within 16 × 10 inches, and no
	// text under 10 points (Graphviz's size is not set, so the points are
	// those of the printed page).
	for _, depth := range []string{"2", "3", "4"} {
		path := filepath.Join(dir, "d"+depth+".dot")
		if code, _, errs := siRun(t, "plan", "--model", siTMazeFile, "--obs", "0,0", "--depth", depth, "--dot", path); code != 0 {
			t.Fatalf("depth %s: exit %d: %s", depth, code, errs)
		}
		b, _ := os.ReadFile(path)
		tx := string(b)
		if w, h, _ := plainLayoutByID(t, tx); w > 16 || h > 10 {
			t.Errorf("depth %s: the default figure is %.1f × %.1f inches, want within 16 × 10", depth, w, h)
		}
		for _, m := range regexp.MustCompile(`(?i)(?:fontsize="|POINT-SIZE=")([0-9.]+)"`).FindAllStringSubmatch(tx, -1) {
			if pt, _ := strconv.ParseFloat(m[1], 64); pt < 10 {
				t.Errorf("depth %s: text at %s points", depth, m[1])
			}
		}
	}
	// Too large to render: the maze at depth 10 pruned as the benchmark
	// (21 beliefs, but about 4^10 paths), all 10 steps as SVG, from the
	// start (position 17, no wall, the cue's low outcome).
	code, out, errs := siRun(t, "plan", "--model", "../../examples/pomdp/si-maze.json", "--obs", "17,0,1", "--depth", "10",
		"--prune-actions", "0.0625", "--prune-outcomes", "0.5", "--dot", filepath.Join(dir, "m.svg"), "--dot-depth", "10")
	if code != 2 || out != "" || !strings.Contains(errs, "more than Graphviz lays out") || !strings.Contains(errs, "--dot-depth") {
		t.Errorf("a figure too large: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestSIRunDot: si run --dot draws the search of the first step, which
// starts from the same belief as si plan from the first observation (the
// T-maze always starts at its start, with the context unknown): the two
// figures are the same text, the action taken (argmax) bold as plan's
// most probable one.
func TestSIRunDot(t *testing.T) {
	dir := t.TempDir()
	model := "../../examples/pomdp/tmaze-uniform.json"
	run, plan := filepath.Join(dir, "run.dot"), filepath.Join(dir, "plan.dot")
	if code, _, errs := siRun(t, "run", "--model", model, "--depth", "2", "--steps", "2", "--dot", run); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if code, _, errs := siRun(t, "plan", "--model", model, "--obs", "0,0,0", "--depth", "2", "--dot", plan); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	a, err := os.ReadFile(run)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) || !strings.Contains(string(a), `penwidth="2.5"`) {
		t.Errorf("run --dot and plan --dot differ:\n%s\n---\n%s", a, b)
	}
}

// plannerCmdNamed returns the command of the planner called name.
func plannerCmdNamed(t *testing.T, name string) *plannerCmd {
	t.Helper()
	for _, c := range plannerCmds() {
		if c.p.Name == name {
			return c
		}
	}
	t.Fatalf("no planner %q", name)
	return nil
}

// TestSISimulateTruncated: simulate draws behaviour from the searches the
// node budget allows (a search cut short acts on the depth it reached, as
// si run does), while fitting that behaviour asks for the full depth.
func TestSISimulateTruncated(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "b.csv")
	args := []string{"si", "simulate", "--model", "../../examples/pomdp/tmaze.json", "--depth", "4", "--max-nodes", "5",
		"--subjects", "2", "--trials", "1", "--steps", "2", "--draw", "alpha=fixed:1", "--truth", filepath.Join(dir, "t.csv"), "-o", data}
	if code, _, errs := runArgs(args...); code != 0 {
		t.Fatalf("si simulate with a small node budget: exit %d: %s", code, errs)
	}
	code, _, errs := runArgs("si", "fit", "--model", "../../examples/pomdp/tmaze.json", "--depth", "4", "--max-nodes", "5", "--data", data, "--free", "alpha")
	if code != 2 || !strings.Contains(errs, "--max-nodes 5: the search stopped at depth") {
		t.Errorf("si fit of a search cut short: exit %d, %q; want 2 and the node budget named", code, errs)
	}
}
