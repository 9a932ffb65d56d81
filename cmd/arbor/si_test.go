package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

const siTMazeFile = "../../examples/pomdp/si-tmaze.json"

// siRun runs arbor si in-process (runSI, reported as the command line
// reports it) and returns its exit status, stdout and stderr.
func siRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := report(&errb, "arbor si", runSI(args, &out))
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
		{[]string{"run"}, "unknown subcommand"},
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
