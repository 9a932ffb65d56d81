package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// aciRun runs the arbor command line in-process and returns its exit status,
// stdout and stderr.
func aciRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// aciEvalJSON is the output of arbor aci eval --json (docs/cli.md). The
// float fields are pointers-free slices: a null (G = +Inf) would decode as
// 0 and is tested separately.
type aciEvalJSON struct {
	QS          []float64 `json:"q_s"`
	Policies    [][]int   `json:"policies"`
	G           []float64 `json:"G"`
	Risk        []float64 `json:"risk"`
	Ambiguity   []float64 `json:"ambiguity"`
	QPi         []float64 `json:"q_pi"`
	ActionProbs []float64 `json:"action_probs"`
}

// aciDecodeStrict decodes one JSON object with exactly the fields of
// docs/cli.md and nothing after it.
func aciDecodeStrict(t *testing.T, s string) aciEvalJSON {
	t.Helper()
	var keys map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &keys); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, s)
	}
	var got []string
	for k := range keys {
		got = append(got, k)
	}
	want := []string{"G", "action_probs", "ambiguity", "policies", "q_pi", "q_s", "risk"}
	if d := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
		t.Fatalf("JSON fields mismatch (-want +got):\n%s", d)
	}
	var r aciEvalJSON
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestACIEvalReference checks arbor aci eval --json against the reference
// output tiny-pomdp.aci-eval.json, computed by brute force from the
// definitions, independently of arbor, field for field, to 1e-9.
func TestACIEvalReference(t *testing.T) {
	raw, err := os.ReadFile("testdata/aci/tiny-pomdp.aci-eval.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Command  string          `json:"command"`
		Expected json.RawMessage `json:"expected"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	// The reference command, with the model path made relative to this
	// package.
	args := strings.Fields(ref.Command)[1:]
	for i, a := range args {
		if a == "tiny-pomdp.json" {
			args[i] = "testdata/aci/tiny-pomdp.json"
		}
	}
	code, stdout, stderr := aciRun(t, args...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Errorf("stdout is not a single line of JSON: %q", stdout)
	}
	got := aciDecodeStrict(t, stdout)
	want := aciDecodeStrict(t, string(ref.Expected))
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("aci eval mismatch (-want +got):\n%s", d)
	}
}

// aciRandomModel returns a random POMDP in the file format of docs/formats.md
// 5.2 with strictly positive entries (every column normalised).
func aciRandomModel(rng *rand.Rand, ns, no, nu int) (a [][]float64, b [][][]float64, c, d []float64) {
	col := func(n int) []float64 {
		p := make([]float64, n)
		sum := 0.0
		for i := range p {
			p[i] = 0.05 + rng.Float64()
			sum += p[i]
		}
		for i := range p {
			p[i] /= sum
		}
		return p
	}
	a = make([][]float64, no)
	for o := range a {
		a[o] = make([]float64, ns)
	}
	for s := range ns {
		for o, p := range col(no) {
			a[o][s] = p
		}
	}
	b = make([][][]float64, nu)
	for u := range b {
		b[u] = make([][]float64, ns)
		for n := range b[u] {
			b[u][n] = make([]float64, ns)
		}
		for prev := range ns {
			for next, p := range col(ns) {
				b[u][next][prev] = p
			}
		}
	}
	return a, b, col(no), col(ns)
}

// aciBrute computes the eval output straight from the definitions of
// docs/cli.md, by enumerating the policies recursively (first action
// slowest) and rolling each one out from scratch: q_s(s) ∝ D[s] A[o0][s];
// Q(s_tau) = B_{u_tau} Q(s_tau-1); Q(o) = A Q(s); risk = sum_tau
// sum_o Q(o) ln(Q(o)/C(o)); ambiguity = sum_tau sum_s Q(s) H[A(.|s)];
// q_pi = softmax(-gamma G); action_probs[u] = sum of q_pi over policies
// starting with u.
func aciBrute(a [][]float64, b [][][]float64, c, d []float64, o0, horizon int, gamma float64) aciEvalJSON {
	ns, no, nu := len(d), len(c), len(b)
	var r aciEvalJSON
	r.QS = make([]float64, ns)
	z := 0.0
	for s := range ns {
		r.QS[s] = d[s] * a[o0][s]
		z += r.QS[s]
	}
	for s := range r.QS {
		r.QS[s] /= z
	}
	var enumerate func(prefix []int)
	enumerate = func(prefix []int) {
		if len(prefix) == horizon {
			r.Policies = append(r.Policies, append([]int(nil), prefix...))
			return
		}
		for u := range nu {
			enumerate(append(prefix, u))
		}
	}
	enumerate(nil)
	for _, pol := range r.Policies {
		q := append([]float64(nil), r.QS...)
		risk, amb := 0.0, 0.0
		for _, u := range pol {
			next := make([]float64, ns)
			for n := range ns {
				for p := range ns {
					next[n] += b[u][n][p] * q[p]
				}
			}
			q = next
			for o := range no {
				qo := 0.0
				for s := range ns {
					qo += a[o][s] * q[s]
				}
				risk += qo * math.Log(qo/c[o])
			}
			for s := range ns {
				h := 0.0
				for o := range no {
					h -= a[o][s] * math.Log(a[o][s])
				}
				amb += q[s] * h
			}
		}
		r.Risk = append(r.Risk, risk)
		r.Ambiguity = append(r.Ambiguity, amb)
		r.G = append(r.G, risk+amb)
	}
	z = 0
	for _, g := range r.G {
		r.QPi = append(r.QPi, math.Exp(-gamma*g))
		z += r.QPi[len(r.QPi)-1]
	}
	r.ActionProbs = make([]float64, nu)
	for i := range r.QPi {
		r.QPi[i] /= z
		r.ActionProbs[r.Policies[i][0]] += r.QPi[i]
	}
	return r
}

// TestACIEvalBruteForce checks arbor aci eval --json on random models against
// aciBrute, and the invariants of docs/cli.md: lexicographic policies,
// sum q_pi = 1, action_probs the first-action marginal of q_pi.
func TestACIEvalBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	dir := t.TempDir()
	for trial, sz := range []struct{ ns, no, nu, horizon int }{
		{3, 2, 2, 1}, {4, 3, 3, 3}, {2, 4, 4, 2}, {5, 2, 2, 5}, {3, 3, 5, 3},
	} {
		a, b, c, d := aciRandomModel(rng, sz.ns, sz.no, sz.nu)
		data, err := json.Marshal(map[string]any{"A": a, "B": b, "C": c, "D": d})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "m.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		o0 := rng.IntN(sz.no)
		gamma := 0.5 + 10*rng.Float64()
		code, stdout, stderr := aciRun(t, "aci", "eval", "--json", "--model", path,
			"--obs", strconv.Itoa(o0), "--horizon", strconv.Itoa(sz.horizon), "--gamma", strconv.FormatFloat(gamma, 'g', -1, 64))
		if code != 0 {
			t.Fatalf("trial %d: exit %d: %s", trial, code, stderr)
		}
		got := aciDecodeStrict(t, stdout)
		want := aciBrute(a, b, c, d, o0, sz.horizon, gamma)
		// Tolerance: both sides sum at most 5^3 * 5 products of numbers
		// <= 1 in double precision; 1e-12 leaves a wide margin.
		if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("trial %d %+v: mismatch with brute force (-want +got):\n%s", trial, sz, diff)
		}
		// Invariants, checked on the command's own output.
		sum := 0.0
		for _, q := range got.QPi {
			sum += q
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("trial %d: q_pi sums to %.17g", trial, sum)
		}
		marg := make([]float64, sz.nu)
		for i, p := range got.Policies {
			marg[p[0]] += got.QPi[i]
			if i > 0 && !aciLexLess(got.Policies[i-1], p) {
				t.Errorf("trial %d: policies %v, %v not in lexicographic order", trial, got.Policies[i-1], p)
			}
		}
		if diff := cmp.Diff(marg, got.ActionProbs, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("trial %d: action_probs is not the first-action marginal (-want +got):\n%s", trial, diff)
		}
	}
}

func aciLexLess(x, y []int) bool {
	for i := range x {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return false
}

func aciMustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// TestACIEvalInfiniteG checks that a policy with G = +Inf (C gives
// probability 0 to an outcome the policy predicts) is written as null while
// its q_pi is 0. Model: 2 states, 2 observations, A = identity, action 0
// stays and action 1 switches (deterministic B), D = [1, 0] after o0 = 0,
// C = [1, 0]. Horizon 1: "stay" predicts o = 0 (risk KL[δ0 || C] = 0,
// ambiguity 0), "switch" predicts o = 1 with C(1) = 0: risk +Inf.
func TestACIEvalInfiniteG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "inf.json")
	model := `{"A": [[1, 0], [0, 1]], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "C": [1, 0], "D": [1, 0]}`
	if err := os.WriteFile(path, []byte(model), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := aciRun(t, "aci", "eval", "--model", path, "--obs", "0", "--horizon", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		G           []*float64 `json:"G"`
		QPi         []float64  `json:"q_pi"`
		ActionProbs []float64  `json:"action_probs"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if len(r.G) != 2 || r.G[0] == nil || *r.G[0] != 0 || r.G[1] != nil {
		t.Errorf("G = %s, want [0, null]", stdout)
	}
	if d := cmp.Diff([]float64{1, 0}, r.QPi); d != "" {
		t.Errorf("q_pi mismatch (-want +got):\n%s", d)
	}
}

// TestACIEvalAllInfinite: with C = [1, 0] on aciValidModel every state
// emits observation 1 with probability >= 0.1, so every policy predicts an
// outcome C forbids and every G, risk is +Inf (null in JSON). The rule of
// package aci ("Zeros in C": q_pi is the limit of softmax(-gamma min(G, M))
// as M grows) makes the 2^2 = 4 policies tie: q_pi = 1/4 each and the
// action marginal 1/2 per action. Before, this exited with status 2 while
// `arbor btai plan` on the same file exited 0 with null costs.
func TestACIEvalAllInfinite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cinf.json")
	if err := os.WriteFile(path, []byte(strings.Replace(aciValidModel, `[0.7, 0.3]`, `[1, 0]`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := aciRun(t, "aci", "eval", "--model", path, "--obs", "0", "--horizon", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		G, Risk     []*float64
		QPi         []float64 `json:"q_pi"`
		ActionProbs []float64 `json:"action_probs"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if len(r.G) != 4 || len(r.Risk) != 4 {
		t.Fatalf("%d G, %d risk, want 4: %s", len(r.G), len(r.Risk), stdout)
	}
	for i := range r.G {
		if r.G[i] != nil || r.Risk[i] != nil {
			t.Errorf("policy %d: G %v, risk %v, want null (+Inf)", i, r.G[i], r.Risk[i])
		}
	}
	if d := cmp.Diff([]float64{0.25, 0.25, 0.25, 0.25}, r.QPi); d != "" {
		t.Errorf("q_pi mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]float64{0.5, 0.5}, r.ActionProbs); d != "" {
		t.Errorf("action_probs mismatch (-want +got):\n%s", d)
	}
	// The human output streams the same ranking.
	code, stdout, stderr = aciRun(t, "aci", "eval", "--model", path, "--obs", "0", "--horizon", "2")
	if code != 0 || !strings.Contains(stdout, "0.5000  <- most probable") {
		t.Errorf("human output: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// TestACIConsistentRules runs every POMDP command on the same files: a zero
// Dirichlet concentration is bad input everywhere (exit 2 naming the
// element; before, aci eval exited 0, aci run 2 and btai plan/run 1), and
// a zero in C is accepted everywhere (exit 0; before, aci eval exited 2 and
// aci run 1 when every policy had G = +Inf), except with --infer-gamma,
// which needs finite G and is refused up front naming C[1].
func TestACIConsistentRules(t *testing.T) {
	dir := t.TempDir()
	zeroConc := filepath.Join(dir, "a0.json")
	if err := os.WriteFile(zeroConc, []byte(strings.Replace(aciValidModel, `"C"`, `"a": [[0, 1, 1], [1, 1, 1]], "C"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	zeroC := filepath.Join(dir, "c0.json")
	if err := os.WriteFile(zeroC, []byte(strings.Replace(aciValidModel, `[0.7, 0.3]`, `[1, 0]`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	commands := func(path string) [][]string {
		return [][]string{
			{"aci", "eval", "--model", path, "--obs", "0", "--horizon", "2"},
			{"aci", "eval", "--model", path, "--obs", "0", "--horizon", "2", "--json"},
			{"aci", "run", "--model", path, "--horizon", "2", "--steps", "2"},
			{"btai", "plan", "--model", path, "--obs", "0", "--iterations", "3"},
			{"btai", "run", "--model", path, "--iterations", "3", "--steps", "2"},
		}
	}
	for _, args := range commands(zeroConc) {
		code, _, stderr := aciRun(t, args...)
		if code != 2 || !strings.Contains(stderr, "a[0][0]: 0, want > 0") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line naming a[0][0]", strings.Join(args[:2], " "), code, stderr)
		}
	}
	for _, args := range commands(zeroC) {
		if code, _, stderr := aciRun(t, args...); code != 0 {
			t.Errorf("%s: exit %d, stderr %q; want 0", strings.Join(args[:2], " "), code, stderr)
		}
	}
	code, _, stderr := aciRun(t, "aci", "run", "--model", zeroC, "--horizon", "2", "--steps", "2", "--infer-gamma")
	if code != 2 || !strings.HasPrefix(stderr, "arbor aci run: ") || !strings.Contains(stderr, "C[1] is 0") {
		t.Errorf("--infer-gamma: exit %d, stderr %q; want 2 naming C[1]", code, stderr)
	}
}

// TestACIEvalHuman checks the human output of arbor aci eval on the
// reference model: the action marginal and the best policy are those of
// tiny-pomdp.aci-eval.json (action_probs [0.4558, 0.5442]; lowest G
// 0.98474 for policy [1, 1] = "move move").
func TestACIEvalHuman(t *testing.T) {
	code, stdout, stderr := aciRun(t, "aci", "eval", "--model", "testdata/aci/tiny-pomdp.json",
		"--obs", "1", "--horizon", "2", "--gamma", "4")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"4 policies of length 2",
		"stay         0.4558\n",
		"move         0.5442  <- most probable",
		"0.98474    0.27511    0.70963    0.2867     move move",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("human output lacks %q:\n%s", want, stdout)
		}
	}
}

// aciValidModel is a well-formed 3-state, 2-observation, 2-action model
// that the bad-input cases below break one field at a time.
const aciValidModel = `{"A": [[0.9, 0.1, 0.5], [0.1, 0.9, 0.5]],
 "B": [[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 0, 1], [1, 0, 0], [0, 1, 0]]],
 "C": [0.7, 0.3], "D": [0.2, 0.3, 0.5]}`

// TestACIBadInput: every fault in a POMDP file or a flag gives exit status
// 2, nothing on stdout and exactly one line on stderr that names the file
// (when there is one), the field and the fault.
func TestACIBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", aciValidModel)
	eval := func(path string, extra ...string) []string {
		return append([]string{"aci", "eval", "--model", path, "--obs", "0", "--horizon", "2"}, extra...)
	}
	bad := func(name, content string, extra ...string) []string {
		return eval(write(name, content), extra...)
	}
	maze := "../../examples/mazes/1.maze"
	runArgs := func(extra ...string) []string {
		args := []string{"aci", "run", "--horizon", "2"}
		return append(args, extra...)
	}
	tests := []struct {
		name string
		args []string
		want []string // substrings of the single stderr line
	}{
		{"missing file", eval(filepath.Join(dir, "nope.json")), []string{"--model", "nope.json", "cannot read", "no such file"}},
		{"directory", eval(dir), []string{"--model", dir, "cannot read"}},
		{"empty file", bad("empty.json", ""), []string{"empty.json", "invalid JSON"}},
		{"malformed JSON", bad("trunc.json", `{"A": [[0.5, 0.5], [0.5, 0.5]], "B": [`), []string{"trunc.json", "invalid JSON"}},
		{"NaN literal", bad("nan.json", `{"A": [[0.5, NaN], [0.5, 0.5]]}`), []string{"nan.json", "A[0][1]", "NaN"}},
		{"Infinity literal", bad("inf.json", `{"A": [[1]], "B": [[[1]]], "C": [1], "D": [-Infinity]}`), []string{"inf.json", "D[0]", "invalid JSON"}},
		{"overflowing number", bad("big.json", `{"A": [[1e999]], "B": [[[1]]], "C": [1], "D": [1]}`), []string{"big.json", "A:", "1e999"}},
		{"not an object", bad("arr.json", `[1, 2]`), []string{"arr.json", "invalid JSON"}},
		{"null", bad("null.json", `null`), []string{"null.json", "want a JSON object"}},
		{"unknown field", bad("unk.json", strings.Replace(aciValidModel, `"D"`, `"E"`, 1)), []string{"unk.json", `unknown field "E"`}},
		{"string for number", bad("str.json", strings.Replace(aciValidModel, `[0.7, 0.3]`, `"C"`, 1)), []string{"str.json", "C:", "string"}},
		{"A ragged", bad("ragged.json", strings.Replace(aciValidModel, `[0.1, 0.9, 0.5]`, `[0.1, 0.9]`, 1)), []string{"ragged.json", "A: row 1 has 2 entries, want 3"}},
		{"A missing", bad("noA.json", `{"B": [[[1]]], "C": [1], "D": [1]}`), []string{"noA.json", "A: missing"}},
		{"A column sum", bad("acol.json", strings.Replace(aciValidModel, `[0.9, 0.1, 0.5]`, `[0.9, 0.1, 0.4]`, 1)), []string{"acol.json", "A", "column 2 sums to 0.9"}},
		{"A negative", bad("aneg.json", strings.Replace(aciValidModel, `[[0.9, 0.1, 0.5], [0.1, 0.9, 0.5]]`, `[[1.1, 0.1, 0.5], [-0.1, 0.9, 0.5]]`, 1)), []string{"aneg.json", "A[1][0]", "negative"}},
		{"B wrong number of rows", bad("brows.json", strings.Replace(aciValidModel, `[[0, 0, 1], [1, 0, 0], [0, 1, 0]]`, `[[0, 0, 1], [1, 0, 0]]`, 1)), []string{"brows.json", "B[1]: 2 rows, want 3"}},
		{"B column not normalised", bad("bcol.json", strings.Replace(aciValidModel, `[[0, 0, 1], [1, 0, 0], [0, 1, 0]]`, `[[0, 0, 1], [1, 0.5, 0], [0, 1, 0]]`, 1)), []string{"bcol.json", "B[1]", "column 1 sums to 1.5"}},
		{"B empty", bad("bempty.json", strings.Replace(aciValidModel, `[[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 0, 1], [1, 0, 0], [0, 1, 0]]]`, `[]`, 1)), []string{"bempty.json", "B: empty"}},
		{"C not a distribution", bad("csum.json", strings.Replace(aciValidModel, `[0.7, 0.3]`, `[0.7, 0.4]`, 1)), []string{"csum.json", "C: not a distribution", "1.1"}},
		{"C wrong length", bad("clen.json", strings.Replace(aciValidModel, `[0.7, 0.3]`, `[0.7, 0.2, 0.1]`, 1)), []string{"clen.json", "C: 3 entries, want 2"}},
		{"D negative", bad("dneg.json", strings.Replace(aciValidModel, `[0.2, 0.3, 0.5]`, `[-0.2, 0.7, 0.5]`, 1)), []string{"dneg.json", "D[0]", "negative"}},
		{"negative concentration a", bad("aconc.json", strings.Replace(aciValidModel, `"C"`, `"a": [[1, -2, 1], [1, 1, 1]], "C"`, 1)), []string{"aconc.json", "a[0][1]", "negative concentration"}},
		{"zero concentrations d", bad("dconc.json", strings.Replace(aciValidModel, `"C"`, `"d": [0, 0, 0], "C"`, 1)), []string{"dconc.json", "d[0]: 0, want > 0"}},
		{"zero concentration a", bad("a0.json", strings.Replace(aciValidModel, `"C"`, `"a": [[0, 1, 1], [1, 1, 1]], "C"`, 1)), []string{"a0.json", "a[0][0]: 0, want > 0"}},
		{"deeply nested file", bad("deep.json", strings.Repeat("[", 3_000_000)), []string{"deep.json", "[0][0]", "levels deep", "invalid JSON"}},
		{"huge key", bad("key.json", `{"`+strings.Repeat("k", 100_000)+`": 1}`), []string{"key.json", "unknown field", "(100000 bytes)"}},
		{"b wrong shape", bad("bconc.json", strings.Replace(aciValidModel, `"C"`, `"b": [[[1, 1, 1]]], "C"`, 1)), []string{"bconc.json", "b: 1 matrices, want 2"}},
		{"duplicate action names", bad("names.json", strings.Replace(aciValidModel, `"C"`, `"actions": ["go", "go"], "C"`, 1)), []string{"names.json", "actions"}},
		{"observation impossible", bad("imp.json", `{"A": [[1, 0], [0, 1]], "B": [[[1, 0], [0, 1]]], "C": [0.5, 0.5], "D": [1, 0]}`, "--obs", "1"), []string{"--obs 1", "probability 0"}},
		{"--model missing", []string{"aci", "eval", "--obs", "0", "--horizon", "2"}, []string{"--model: missing"}},
		{"--obs missing", []string{"aci", "eval", "--model", good, "--horizon", "2"}, []string{"--obs: missing", good}},
		{"--obs out of range", eval(good, "--obs", "2"), []string{"--obs: 2 out of range [0, 2)", good}},
		{"--obs negative", eval(good, "--obs", "-3"), []string{"--obs: -3 out of range"}},
		{"--obs not a number", eval(good, "--obs", "one"), []string{"obs", "invalid value"}},
		{"--horizon missing", []string{"aci", "eval", "--model", good, "--obs", "0"}, []string{"--horizon: missing"}},
		{"--horizon negative", eval(good, "--horizon", "-1"), []string{"--horizon: -1, want >= 1"}},
		{"--horizon zero", eval(good, "--horizon", "0"), []string{"--horizon: 0, want >= 1"}},
		{"--obs minus one", eval(good, "--obs", "-1"), []string{"--obs: -1 out of range [0, 2)"}},
		{"--horizon too large for --json", eval(good, "--horizon", "40", "--json"), []string{"horizon", "exceeds the limit"}},
		{"--horizon too large", eval(good, "--horizon", "80"), []string{"horizon", "exceeds the limit"}},
		{"--gamma zero", eval(good, "--gamma", "0"), []string{"--gamma: 0, want finite > 0"}},
		{"--gamma negative", eval(good, "--gamma", "-2"), []string{"--gamma: -2"}},
		{"--gamma NaN", eval(good, "--gamma", "NaN"), []string{"--gamma: NaN"}},
		{"--gamma Inf", eval(good, "--gamma", "+Inf"), []string{"--gamma: +Inf"}},
		{"--gamma not a number", eval(good, "--gamma", "high"), []string{"gamma", "invalid value"}},
		{"--top zero", eval(good, "--top", "0"), []string{"--top: 0"}},
		{"unknown flag", eval(good, "--horizn", "2"), []string{"horizn", "not defined"}},
		{"positional model", append(eval(good), good), []string{"unexpected argument", "--model"}},
		{"run: --maze missing file", runArgs("--maze", filepath.Join(dir, "no.maze")), []string{"--maze", "no.maze", "cannot read"}},
		{"run: maze bad character", runArgs("--maze", write("x.maze", "4 4\nWWWW\nWSxW\nW.EW\nWWWW\n")), []string{"--maze", "x.maze", "line 3, column 3"}},
		{"run: maze without exit", runArgs("--maze", write("noexit.maze", "4 4\nWWWW\nWS.W\nW..W\nWWWW\n")), []string{"--maze", "noexit.maze", "E"}},
		{"run: --horizon missing", []string{"aci", "run", "--maze", maze}, []string{"--horizon: missing"}},
		{"run: --horizon negative", runArgs("--maze", maze, "--horizon", "-2"), []string{"--horizon: -2"}},
		{"run: --horizon zero", runArgs("--maze", maze, "--horizon", "0"), []string{"--horizon: 0, want >= 1"}},
		{"run: --horizon overflows", runArgs("--maze", maze, "--horizon", "40"), []string{"horizon", "exceeds the limit"}},
		{"run: --steps zero", runArgs("--maze", maze, "--steps", "0"), []string{"--steps: 0"}},
		{"run: --episodes zero", runArgs("--maze", maze, "--episodes", "0"), []string{"--episodes: 0"}},
		{"run: --gamma negative", runArgs("--maze", maze, "--gamma", "-1"), []string{"--gamma: -1"}},
		{"run: --beta NaN", runArgs("--maze", maze, "--beta", "NaN"), []string{"--beta: NaN"}},
		{"run: --select unknown", runArgs("--maze", maze, "--select", "best"), []string{`--select: "best"`}},
		{"run: --noise out of range", runArgs("--maze", maze, "--noise", "1"), []string{"--noise: 1, want a number in [0, 1)"}},
		{"run: --maze and --model", runArgs("--maze", maze, "--model", good), []string{"exactly one of --maze"}},
		{"run: neither", runArgs(), []string{"exactly one of --maze"}},
		{"run: bad --model", runArgs("--model", write("runbad.json", strings.Replace(aciValidModel, `[0.7, 0.3]`, `[0.7, 0.4]`, 1))), []string{"runbad.json", "C: not a distribution"}},
		{"run: --novelty without a", runArgs("--model", good, "--novelty"), []string{"--model", good, "Novelty", "no concentrations a"}},
		{"run: zero concentration to learn", runArgs("--model", write("d0.json", strings.Replace(aciValidModel, `"C"`, `"d": [1, 0, 1], "C"`, 1))), []string{"d0.json", "d[1]", "want > 0"}},
		{"run: positional argument", runArgs("--maze", maze, "extra"), []string{`unexpected argument "extra"`}},
		{"no subcommand", []string{"aci"}, []string{"want a subcommand"}},
		{"unknown subcommand", []string{"aci", "evaluate"}, []string{`unknown subcommand "evaluate"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := aciRun(t, tc.args...)
			if code != 2 {
				t.Errorf("exit status %d, want 2 (stderr %q)", code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr is not one line: %q", stderr)
			}
			// The subcommand is named when there is one.
			prefix := "arbor aci: "
			if len(tc.args) > 1 && (tc.args[1] == "eval" || tc.args[1] == "run") {
				prefix = "arbor aci " + tc.args[1] + ": "
			}
			if !strings.HasPrefix(stderr, prefix) {
				t.Errorf("stderr %q does not start with %q", stderr, prefix)
			}
			// One short line, even for a huge or deeply nested file
			// (the path of the temporary directory aside).
			if n := len(strings.ReplaceAll(stderr, dir, "")); n >= 300 {
				t.Errorf("stderr is %d bytes, want < 300", n)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}

// aciMazeGrid reads a maze file's grid (docs/formats.md) without the envs
// package: grid[r][c] is the character, short lines padded with W.
func aciMazeGrid(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var rows, cols int
	if _, err := fmt.Sscan(lines[0], &rows, &cols); err != nil {
		t.Fatal(err)
	}
	grid := make([]string, rows)
	for r := range rows {
		grid[r] = lines[1+r] + strings.Repeat("W", cols-len(lines[1+r]))
	}
	return grid
}

// TestACIRunMaze runs the classic agent with 4-step policies on 1.maze and
// checks the episode against the maze file: the path starts on S, every
// move goes to a free neighbouring cell (or stays), it ends on E, and it
// is no shorter than the shortest path, 9 actions (reference README).
func TestACIRunMaze(t *testing.T) {
	const maze = "../../examples/mazes/1.maze"
	grid := aciMazeGrid(t, maze)
	code, stdout, stderr := aciRun(t, "aci", "run", "--maze", maze, "--horizon", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := runJSONLines(t, stdout)
	if len(lines) != 2 {
		t.Fatalf("want a provenance line, an episode line and a summary line, got:\n%s", stdout)
	}
	var ep aciEpisode
	dec := json.NewDecoder(strings.NewReader(lines[0]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ep); err != nil {
		t.Fatal(err)
	}
	if !ep.Solved || ep.Steps < 9 || ep.Steps > 50 {
		t.Errorf("solved %v in %d steps, want solved in 9..50", ep.Solved, ep.Steps)
	}
	if len(ep.Actions) != ep.Steps || len(ep.Positions) != ep.Steps+1 || len(ep.Observations) != ep.Steps+1 {
		t.Fatalf("lengths: %d actions, %d positions, %d observations for %d steps", len(ep.Actions), len(ep.Positions), len(ep.Observations), ep.Steps)
	}
	at := func(p [2]int) byte { return grid[p[0]][p[1]] }
	if at(ep.Positions[0]) != 'S' || at(ep.Positions[ep.Steps]) != 'E' {
		t.Errorf("path from %v (%c) to %v (%c), want S to E", ep.Positions[0], at(ep.Positions[0]), ep.Positions[ep.Steps], at(ep.Positions[ep.Steps]))
	}
	// The moves of docs/formats.md, UP, DOWN, LEFT, RIGHT, IDLE; into a wall
	// the agent stays.
	moves := [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {0, 0}}
	for i, u := range ep.Actions {
		p := ep.Positions[i]
		q := [2]int{p[0] + moves[u][0], p[1] + moves[u][1]}
		if at(q) == 'W' {
			q = p
		}
		if q != ep.Positions[i+1] {
			t.Errorf("step %d: action %d from %v should reach %v, got %v", i+1, u, p, q, ep.Positions[i+1])
		}
		// The observation is the Manhattan distance to E at (1, 6).
		if d := aciAbs(q[0]-1) + aciAbs(q[1]-6); ep.Observations[i+1] != d {
			t.Errorf("step %d: observation %d, want distance %d", i+1, ep.Observations[i+1], d)
		}
	}
	var sum struct {
		Episodes, Solved int
		MeanSteps        float64 `json:"mean_steps"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Episodes != 1 || sum.Solved != 1 || sum.MeanSteps != float64(ep.Steps) {
		t.Errorf("summary %+v, want 1 episode solved in %d steps", sum, ep.Steps)
	}

	// Human output: the same episode drawn in the maze.
	code, stdout, stderr = aciRun(t, "aci", "run", "--maze", maze, "--horizon", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{fmt.Sprintf("episode 1: reached the exit in %d steps", ep.Steps), "WWWWWWWW\n", "1/1 episodes solved"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("human output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestACIRunMeanStepsNull: one step cannot solve 1.maze (S at (5, 1) and E
// at (1, 6) are at least 9 moves apart), so no episode is solved and the summary's
// mean_steps, a mean over zero episodes, is null (README, "The command
// line"; docs/aci.md).
func TestACIRunMeanStepsNull(t *testing.T) {
	code, stdout, stderr := aciRun(t, "aci", "run", "--maze", "../../examples/mazes/1.maze", "--horizon", "1", "--steps", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var sum map[string]json.RawMessage
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	if string(sum["solved"]) != "0" || string(sum["mean_steps"]) != "null" {
		t.Errorf("summary %s, want solved 0 and mean_steps null", lines[len(lines)-1])
	}
}

func aciAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestACIRunModel runs the agent in a --model process: equal seeds give
// equal episodes, a different seed a different sample of the process, and
// with concentrations d the agent learns across episodes (the run
// completes; the update itself is tested in package aci).
func TestACIRunModel(t *testing.T) {
	model := "testdata/aci/tiny-pomdp.json"
	args := []string{"aci", "run", "--model", model, "--horizon", "2", "--steps", "20", "--episodes", "3", "--json", "--select", "sample"}
	_, out1, _ := aciRun(t, append(args, "--seed", "7")...)
	code, out2, stderr := aciRun(t, append(args, "--seed", "7")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, out3, _ := aciRun(t, append(args, "--seed", "8")...)
	strip := func(s string) string { // planning times differ between runs; the provenance names the seed
		var b strings.Builder
		for _, l := range runJSONLines(t, s) {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			delete(m, "planning_seconds")
			b.Write(aciMustJSON(m))
		}
		return b.String()
	}
	if strip(out1) != strip(out2) {
		t.Errorf("same seed, different runs:\n%s\n%s", out1, out2)
	}
	if strip(out1) == strip(out3) {
		t.Errorf("seeds 7 and 8 gave the same run:\n%s", out1)
	}
	lines := runJSONLines(t, out1)
	if len(lines) != 4 {
		t.Fatalf("want a provenance line, 3 episodes and a summary, got:\n%s", out1)
	}
	for _, l := range lines[:3] {
		var ep aciEpisode
		if err := json.Unmarshal([]byte(l), &ep); err != nil {
			t.Fatal(err)
		}
		if ep.Steps != 20 || len(ep.Actions) != 20 || len(ep.Observations) != 21 || ep.Positions != nil || ep.Policies != 4 {
			t.Errorf("episode %+v: want 20 steps, 21 observations, no positions, 2^2 policies", ep)
		}
	}

	// Learning d over episodes, with an inferred precision.
	raw, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	learn := filepath.Join(t.TempDir(), "learn.json")
	withD := strings.Replace(string(raw), `"actions"`, `"d": [1, 1, 1], "actions"`, 1)
	if err := os.WriteFile(learn, []byte(withD), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := aciRun(t, "aci", "run", "--model", learn, "--horizon", "2", "--steps", "5", "--episodes", "3", "--infer-gamma")
	if code != 0 || strings.Count(out, "episode ") != 3 {
		t.Errorf("learning run: exit %d, stderr %q, stdout:\n%s", code, stderr, out)
	}
}

// FuzzACILoadModel: whatever the file holds, loading it as a --model gives
// a model or bad input (exit status 2), never a panic, and the message is
// one line naming the flag and the file.
func FuzzACILoadModel(f *testing.F) {
	f.Add([]byte(aciValidModel))
	f.Add([]byte(`{"A": [[0.5, NaN], [0.5, 0.5]]}`))
	f.Add([]byte(`{"A": [[1]], "B": [[[1]], [[0.5, Infinity]]], "C": [1], "D": [1]}`))
	f.Add([]byte(`{"A": [[1], [2]], "x": {"y": [1, 2, }}`))
	f.Add([]byte(`[{"A": 1}`))
	raw, err := os.ReadFile("testdata/aci/tiny-pomdp.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "m.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := loadPOMDP(path)
		if err == nil {
			if m == nil {
				t.Fatal("nil model without an error")
			}
			return
		}
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Fatalf("error %v is not bad input", err)
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "--model "+path) {
			t.Fatalf("error %q does not name --model and the file", msg)
		}
	})
}

// Example_aciEval is arbor aci eval on the reference model
// testdata/aci/tiny-pomdp.json (its expected JSON output is checked by
// TestACIEvalReference).
func Example_aciEval() {
	run([]string{"aci", "eval", "--model", "testdata/aci/tiny-pomdp.json", "--obs", "1", "--horizon", "2", "--gamma", "4", "--top", "2"}, os.Stdout, os.Stderr)
	// Output:
	// observation O0 = 1: posterior over the current state
	//   0            0.4636
	//   1            0.2543
	//   2            0.2821
	// 4 policies of length 2, gamma 4; action marginal
	//   stay         0.4558
	//   move         0.5442  <- most probable
	// lowest expected free energy (G = risk + ambiguity)
	//   G          risk       ambiguity  q_pi       policy
	//   0.98474    0.27511    0.70963    0.2867     move move
	//   1.0116     0.33804    0.67358    0.2575     move stay
}

// BenchmarkACIWriteEvalJSON times the --json writer on the output of a
// 1.maze-sized evaluation with 7-step policies: 5^7 = 78,125 policies over
// 22 states.
func BenchmarkACIWriteEvalJSON(b *testing.B) {
	const nu, horizon, ns = 5, 7, 22
	n := 78125 // 5^7
	rng := rand.New(rand.NewPCG(1, 1))
	res := &aci.EvalResult{QS: make([]float64, ns), ActionProbs: make([]float64, nu)}
	for i := range n {
		res.Policies = append(res.Policies, aci.DecodePolicy(nil, i, nu, horizon))
		r, a := rng.Float64(), rng.Float64()
		res.Risk = append(res.Risk, r)
		res.Ambiguity = append(res.Ambiguity, a)
		res.G = append(res.G, r+a)
		res.QPi = append(res.QPi, rng.Float64()/float64(n))
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := aciWriteEvalJSON(io.Discard, &pomdp.Model{}, res); err != nil {
			b.Fatal(err)
		}
	}
}

// TestACIRunHabits: without habits the inferred precision stays at its
// prior mean 1/beta = 1 (pi has no evidence besides its softmax prior,
// docs/aci.md); with --habits favouring the first action it moves away
// from 1 at the first step. Bad --habits are refused naming the flag.
func TestACIRunHabits(t *testing.T) {
	maze := filepath.Join("..", "..", "examples", "mazes", "5.maze")
	gammaAt0 := func(extra ...string) float64 {
		var out, errb bytes.Buffer
		args := append([]string{"aci", "run", "--maze", maze, "--horizon", "2", "--steps", "2", "--infer-gamma", "--json"}, extra...)
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d, %s", extra, code, errb.String())
		}
		var ep struct {
			Gamma []float64 `json:"gamma"`
		}
		if err := json.Unmarshal([]byte(runJSONLines(t, out.String())[0]), &ep); err != nil {
			t.Fatal(err)
		}
		return ep.Gamma[0]
	}
	if g := gammaAt0(); math.Abs(g-1) > 1e-9 {
		t.Errorf("without habits E[gamma] = %v, want the prior mean 1", g)
	}
	if g := gammaAt0("--habits", "0.6,0.1,0.1,0.1,0.1"); math.Abs(g-1) < 1e-3 {
		t.Errorf("with habits E[gamma] = %v, want it to move from 1", g)
	}
	for _, tc := range []struct{ habits, want string }{
		{"0.5,0.5", "--habits: 2 entries, want 5"},
		{"0.5,0.5,0,0,-0", "--habits[4]"},
		{"1,0,0,0,-1", "--habits[4]"},
		{"0.5,0.5,x,0,0", "--habits[2]"},
		{"0.5,0.4,0,0,0", "sums to 0.9"},
	} {
		var out, errb bytes.Buffer
		code := run([]string{"aci", "run", "--maze", maze, "--horizon", "2", "--habits", tc.habits}, &out, &errb)
		if tc.habits == "0.5,0.5,0,0,-0" {
			if code != 0 { // -0 is a valid 0
				t.Errorf("--habits %s: exit %d, %s", tc.habits, code, errb.String())
			}
			continue
		}
		if code != 2 || !strings.Contains(errb.String(), tc.want) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("--habits %s: exit %d, stderr %q, want 2 and %q", tc.habits, code, errb.String(), tc.want)
		}
	}
}

// TestACIPlanTimeGuard: a horizon whose policy walk would take more than
// --max-minutes (default 10) per planning step is refused before any work,
// in one line with the count, the estimate and the flag. On 1.maze (22
// states, 10 observations, 5 actions) horizon 14 is 5^14 = 6.1e9 policies:
// (5 + ... + 5^14) = 7,629,394,530 nodes × (22² + 10·22 = 704) units × 1.25 ns =
// 6,714 s, "112 minutes". Horizon 9 ((5^10 - 5)/4 = 2,441,405 nodes, 2.1
// s) is under the bound; with --max-minutes 0.01 (0.6 s) it is refused
// too.
func TestACIPlanTimeGuard(t *testing.T) {
	maze := filepath.Join("..", "..", "examples", "mazes", "1.maze")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"aci", "run", "--maze", maze, "--horizon", "14", "--steps", "1"}, []string{"--horizon 14: 5^14 = 6.1e+09 policies", "about 112 minutes per planning step", "--max-minutes 10"}},
		{[]string{"aci", "run", "--maze", maze, "--horizon", "9", "--max-minutes", "0.01"}, []string{"--horizon 9", "2.1 s", "--max-minutes 0.01"}},
		{[]string{"aci", "eval", "--model", "testdata/aci/tiny-pomdp.json", "--obs", "0", "--horizon", "50"}, []string{"--horizon 50: 2^50", "days"}},
		{[]string{"aci", "run", "--maze", maze, "--horizon", "2", "--max-minutes", "0"}, []string{"--max-minutes: 0, want a finite number > 0"}},
		{[]string{"aci", "eval", "--model", "testdata/aci/tiny-pomdp.json", "--obs", "0", "--horizon", "2", "--max-minutes", "NaN"}, []string{"--max-minutes: NaN"}},
	} {
		var out, errb bytes.Buffer
		start := time.Now()
		code := run(tc.args, &out, &errb)
		if code != 2 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want 2 and one line", tc.args, code, out.String(), errb.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, errb.String(), w)
			}
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%v: refused after %v, want at once", tc.args, d)
		}
	}
}

// TestACIRunJobsIdentical: aci run --jobs runs independent episodes in
// parallel and writes them in order; the output is that of --jobs 1 but for
// the timing figures (and the provenance line, which names --jobs), with sampled actions (--select sample, each episode
// its own stream) in a maze and with a --model process; a model that
// learns (d) runs its episodes in order and gives the same output too.
func TestACIRunJobsIdentical(t *testing.T) {
	maze := filepath.Join("..", "..", "examples", "mazes", "1.maze")
	for _, args := range [][]string{
		{"aci", "run", "--maze", maze, "--horizon", "3", "--steps", "12", "--episodes", "8", "--select", "sample", "--seed", "5"},
		// One episode: every job plans inside the one decision, in chunks.
		{"aci", "run", "--maze", maze, "--horizon", "6", "--steps", "3"},
		{"aci", "run", "--model", "testdata/aci/tiny-pomdp.json", "--horizon", "2", "--steps", "10", "--episodes", "8", "--select", "sample"},
		{"aci", "run", "--model", btaiData("tiny-pomdp-a.json"), "--horizon", "2", "--steps", "5", "--episodes", "4"},
	} {
		for _, format := range [][]string{nil, {"--json"}} {
			a := append(slices.Clone(args), format...)
			get := func(jobs string) string {
				var out, errb bytes.Buffer
				if code := run(append(slices.Clone(a), "--jobs", jobs), &out, &errb); code != 0 {
					t.Fatalf("%v --jobs %s: exit %d, %s", a, jobs, code, errb.String())
				}
				s := out.String()
				if format != nil { // the provenance line names --jobs
					s = strings.Join(runJSONLines(t, s), "\n")
				}
				s = aciMaskPlanning(s)
				return regexp.MustCompile(`[0-9.]+ s planning`).ReplaceAllString(s, "T s planning")
			}
			one := get("1")
			for _, j := range []string{"2", "3"} {
				if got := get(j); got != one {
					t.Errorf("%v: --jobs %s differs from --jobs 1:\n%s\n---\n%s", a, j, got, one)
				}
			}
		}
	}
}

// aciEpisode is one episode line of aci run --json, for the tests.
type aciEpisode struct {
	Agent            int               `json:"agent"`
	Episode          int               `json:"episode"`
	Solved           bool              `json:"solved"`
	Steps            int               `json:"steps"`
	Actions          []int             `json:"actions"`
	ActionNames      []string          `json:"action_names"`
	Observations     []int             `json:"observations"`
	ObservationNames []string          `json:"observation_names"`
	ActionProbs      [][]float64       `json:"action_probs"`
	QS               []json.RawMessage `json:"q_s"`
	Positions        [][2]int          `json:"positions"`
	PlanningSeconds  float64           `json:"planning_seconds"`
	Policies         int               `json:"policies_per_step"`
	GammaMean        []float64         `json:"gamma"`
	Concentrations   json.RawMessage   `json:"concentrations"`
}
