package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/arbor-ai/arbor/pomdp"
)

// factorisedSpelling writes the factorised spelling (one factor named
// "state", one modality named "observation") of the single-factor POMDP
// file src into a temporary file and returns its path.
func factorisedSpelling(t *testing.T, src string) string {
	t.Helper()
	m, err := pomdp.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(m.FactorisedSpec())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "factorised.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// unkey undoes the keyed output of a factorised file with one factor and
// one modality, so that it can be compared with the single-factor output:
// {"state": x} and {"observation": x} become x, an observation (or its
// name) written as a one-element list [o] becomes o, and timing fields are
// dropped.
func unkey(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 1 {
			for k, inner := range x {
				if k == "state" || k == "observation" {
					return unkey(inner)
				}
			}
		}
		out := map[string]any{}
		for k, inner := range x {
			if strings.HasSuffix(k, "_seconds") {
				continue
			}
			if k == "observations" || k == "observation_names" {
				if list, ok := inner.([]any); ok {
					flat := make([]any, len(list))
					for i, o := range list {
						if one, ok := o.([]any); ok && len(one) == 1 {
							flat[i] = one[0]
						} else {
							flat[i] = o
						}
					}
					inner = flat
				}
			}
			out[k] = unkey(inner)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, inner := range x {
			out[i] = unkey(inner)
		}
		return out
	}
	return v
}

func jsonLines(t *testing.T, out string) []any {
	t.Helper()
	var vs []any
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%v in %q", err, out)
		}
		vs = append(vs, v)
	}
	return vs
}

// TestFactorisedSpellingCLI: a single-factor file and its factorised
// spelling give the same numbers for aci eval, aci run, btai plan and btai
// run; only the shape differs (beliefs keyed by factor and modality name,
// observations as one-outcome lists).
func TestFactorisedSpellingCLI(t *testing.T) {
	single := filepath.Join("testdata", "aci", "tiny-pomdp.json")
	fact := factorisedSpelling(t, single)
	cases := [][]string{
		{"aci", "eval", "--obs", "0", "--horizon", "3", "--json"},
		{"aci", "eval", "--obs", "1", "--horizon", "2", "--json"},
		{"aci", "run", "--horizon", "2", "--steps", "6", "--episodes", "3", "--seed", "4", "--json"},
		{"btai", "plan", "--obs", "1", "--iterations", "25", "--json"},
		{"btai", "plan", "--obs", "0", "--iterations", "25", "--inference", "predictive", "--cost", "feef", "--json"},
		{"btai", "run", "--steps", "6", "--episodes", "3", "--seed", "2", "--iterations", "30", "--json"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c[:2], "_")+"_"+c[3], func(t *testing.T) {
			var outs [2]string
			for i, path := range []string{single, fact} {
				var out, errb bytes.Buffer
				args := append(append([]string(nil), c...), "--model", path)
				if code := run(args, &out, &errb); code != 0 {
					t.Fatalf("arbor %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
				}
				outs[i] = out.String()
				if c[1] == "run" { // the provenance line names the file
					outs[i] = strings.Join(runJSONLines(t, outs[i]), "\n")
				}
			}
			want, got := jsonLines(t, outs[0]), jsonLines(t, outs[1])
			if outs[0] == outs[1] && strings.Contains(outs[0], `"q_s"`) {
				t.Fatalf("the factorised output is not keyed:\n%s", outs[1])
			}
			if d := cmp.Diff(unkey(want), unkey(got)); d != "" {
				t.Errorf("outputs differ beyond their shape (-single +factorised):\n%s", d)
			}
		})
	}
}

// TestFactorisedTMazeCLI: the factorised T-maze from the start: q_s is
// keyed by factor (location known, context 1/2-1/2) and the agent goes to
// the cue (action 1) with probability > 0.99 (hand computation in
// examples/tmaze: the cue is worth about 0.49 nats of the cue modality and
// spares the blind arm's expected punishment).
func TestFactorisedTMazeCLI(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"aci", "eval", "--model", "../../examples/pomdp/tmaze.json", "--obs", "0,0,0", "--horizon", "2", "--json"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res struct {
		QS          map[string][]float64 `json:"q_s"`
		ActionProbs []float64            `json:"action_probs"`
		Policies    [][]int              `json:"policies"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(res.QS, map[string][]float64{"location": {1, 0, 0, 0}, "context": {0.5, 0.5}}) {
		t.Errorf("q_s = %v", res.QS)
	}
	if len(res.Policies) != 16 || len(res.ActionProbs) != 4 || res.ActionProbs[1] < 0.99 {
		t.Errorf("%d policies, action_probs %v: want 16 and go-cue > 0.99", len(res.Policies), res.ActionProbs)
	}
	// Human output names factors and joint outcomes.
	out.Reset()
	if code := run(args[:len(args)-1], &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, w := range []string{"O0 = start+none+none", "context:reward-left", "go-cue go-"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("human output lacks %q:\n%s", w, out.String())
		}
	}

	// btai plans over the joint actions with one marginal per factor and
	// modality in every node: the first node is "go-start" from the start,
	// where the location stays start and the reward modality says "none"
	// (Ā floored at e^-32 in the mean-field update: within 1e-12).
	out.Reset()
	if code := run([]string{"btai", "plan", "--model", "../../examples/pomdp/tmaze.json", "--obs", "0,0,0", "--iterations", "5", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("btai plan: exit %d: %s", code, errb.String())
	}
	var plan struct {
		QS    map[string][]float64 `json:"q_s"`
		Nodes []struct {
			Path []int                `json:"path"`
			QS   map[string][]float64 `json:"q_s"`
			QO   map[string][]float64 `json:"q_o"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(out.Bytes(), &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Nodes) != 5*4 || !cmp.Equal(plan.Nodes[0].Path, []int{0}) {
		t.Fatalf("%d nodes, first path %v: want 20 and [0]", len(plan.Nodes), plan.Nodes[0].Path)
	}
	n := plan.Nodes[0]
	if len(n.QS["location"]) != 4 || len(n.QS["context"]) != 2 || len(n.QO["where"]) != 4 || len(n.QO["cue"]) != 3 || len(n.QO["reward"]) != 3 {
		t.Fatalf("node keys: q_s %v, q_o %v", n.QS, n.QO)
	}
	if math.Abs(n.QS["location"][0]-1) > 1e-12 || math.Abs(n.QO["reward"][0]-1) > 1e-12 {
		t.Errorf("go-start: q_s %v, q_o %v", n.QS, n.QO)
	}
	if keys := strings.Index(out.String(), `"location"`) < strings.Index(out.String(), `"context"`); !keys {
		t.Errorf("q_s keys not in factor order: %.200s", out.String())
	}

	// btai run learns the context's d: each episode's line carries the
	// learned concentrations keyed by factor, and the total grows by one
	// per episode (Q(S_0) of the context is added to d = [1, 1]).
	out.Reset()
	if code := run([]string{"btai", "run", "--model", "../../examples/pomdp/tmaze.json", "--steps", "2", "--episodes", "2", "--iterations", "50", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("btai run: exit %d: %s", code, errb.String())
	}
	lines := jsonLines(t, strings.Join(runJSONLines(t, out.String()), "\n"))
	for e, line := range lines[:2] {
		ep := line.(map[string]any)
		d := ep["concentrations"].(map[string]any)["factors"].(map[string]any)["context"].(map[string]any)["d"].([]any)
		if sum := d[0].(float64) + d[1].(float64); math.Abs(sum-float64(3+e)) > 1e-9 {
			t.Errorf("episode %d: learned d %v sums to %v, want %d", e+1, d, sum, 3+e)
		}
		if obs := ep["observations"].([]any); len(obs) != 3 || len(obs[0].([]any)) != 3 {
			t.Errorf("episode %d: observations %v, want 3 lists of 3 outcomes", e+1, obs)
		}
	}
}

// TestFactorisedBadInputCLI: faults of a factorised file or of --obs exit
// 2 with one line naming the file (or flag) and the field.
func TestFactorisedBadInputCLI(t *testing.T) {
	base, err := os.ReadFile("../../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, from, to string) string {
		if !bytes.Contains(base, []byte(from)) {
			t.Fatalf("%s: %q not in the T-maze file", name, from)
		}
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, bytes.Replace(base, []byte(from), []byte(to), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := "../../examples/pomdp/tmaze.json"
	depFile := write("dep", `"depends_on": ["location", "context"]`, `"depends_on": ["location", "contxt"]`)
	shapeFile := write("shape", `[[1, 1], [0, 0], [1, 1], [1, 1]]`, `[[1, 1], [0, 0], [1, 1]]`)
	bothFile := write("both", `"log_C": [0, 3, -6]`, `"log_C": [0, 3, -6], "C": [0.2, 0.7, 0.1]`)
	uncFile := write("unc", `"B": [[[1, 0], [0, 1]]]`, `"B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]]`)
	eval := func(model, obs string) []string {
		return []string{"aci", "eval", "--model", model, "--obs", obs, "--horizon", "1"}
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown factor", eval(depFile, "0,0,0"), []string{depFile, `modality "cue"`, `depends_on[1]: unknown factor "contxt"`}},
		{"A shape", eval(shapeFile, "0,0,0"), []string{shapeFile, `modality "cue"`, `A[0]: 3 entries, want 4`}},
		{"C and log_C", eval(bothFile, "0,0,0"), []string{bothFile, `modality "reward"`, `C and log_C: both given`}},
		{"uncontrolled factor with two B", eval(uncFile, "0,0,0"), []string{uncFile, `factor "context"`, `B: 2 matrices`}},
		{"obs too few", eval(good, "0,0"), []string{"--obs 0,0", "2 entries, want 3", good, "where", "cue", "reward"}},
		{"obs too many", eval(good, "0,0,0,1"), []string{"--obs 0,0,0,1", "4 entries, want 3"}},
		{"obs out of range", eval(good, "0,3,0"), []string{"--obs 0,3,0", `entry 1 (cue)`, "3 out of range [0, 3)", good}},
		{"obs not a number", eval(good, "0,x,0"), []string{"--obs 0,x,0", `entry 1 (cue)`, `invalid value "x"`, good}},
		{"obs impossible", eval(good, "1,0,0"), []string{"--obs 1,0,0", "probability 0", good}},
		{"single index on a factorised file", eval(good, "5"), []string{"--obs 5", "1 entries, want 3"}},
		{"btai --global", []string{"btai", "plan", "--model", good, "--obs", "0,0,0", "--global"}, []string{"--global", good, "2 hidden-state factors and 3 modalities"}},
		{"btai --novelty", []string{"btai", "run", "--model", good, "--novelty"}, []string{"--novelty", good}},
		{"btai --dot-factors", []string{"btai", "plan", "--model", good, "--obs", "0,0,0", "--dot", filepath.Join(dir, "x.dot"), "--dot-factors"}, []string{"--dot-factors", good}},
		{"btai --obs", []string{"btai", "plan", "--model", good, "--obs", "0,0"}, []string{"--obs 0,0", "2 entries, want 3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tc.args, &out, &errb)
			msg := strings.TrimSuffix(errb.String(), "\n")
			if code != 2 || out.Len() != 0 || strings.Contains(msg, "\n") || msg == "" {
				t.Fatalf("exit %d, stdout %q, stderr %q: want 2, nothing, one line", code, out.String(), errb.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestPastFilterCLI: --past filter through aci run on the factorised
// T-maze gives the context belief 0.95 after the cue (Bayes' rule with a
// 95%-valid cue and a 1/2 prior), q_s has one entry per observation, and a
// bad --past is refused.
func TestPastFilterCLI(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"aci", "run", "--model", "../../examples/pomdp/tmaze.json", "--horizon", "2", "--steps", "2", "--past", "filter", "--json"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var ep struct {
		Actions []int                  `json:"actions"`
		QS      []map[string][]float64 `json:"q_s"`
	}
	if err := json.Unmarshal([]byte(runJSONLines(t, out.String())[0]), &ep); err != nil {
		t.Fatal(err)
	}
	if len(ep.QS) != 3 || len(ep.Actions) != 2 || ep.Actions[0] != 1 {
		t.Fatalf("q_s %v, actions %v: want 3 beliefs and the cue first", ep.QS, ep.Actions)
	}
	ctx := ep.QS[1]["context"]
	if math.Abs(math.Max(ctx[0], ctx[1])-0.95) > 1e-12 {
		t.Errorf("after the cue: q(context) = %v, want 0.95 on the named arm", ctx)
	}
	for _, bad := range [][]string{
		{"aci", "run", "--model", "../../examples/pomdp/tmaze.json", "--horizon", "2", "--past", "exact"},
		{"btai", "run", "--maze", "../../examples/mazes/1.maze", "--past", "smooth"},
		{"btai", "run", "--maze", "../../examples/mazes/1.maze", "--past", "filter", "--global"},
	} {
		out.Reset()
		errb.Reset()
		if code := run(bad, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--past") || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q: want 2 and one line naming --past", bad, code, errb.String())
		}
	}
}
