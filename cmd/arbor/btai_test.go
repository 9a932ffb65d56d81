package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// btaiRun runs `arbor btai ARGS...` in-process and returns its exit status,
// stdout and stderr.
func btaiRun(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"btai"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// btaiMustRun is btaiRun that fails the test unless the exit status is 0.
func btaiMustRun(t testing.TB, args ...string) string {
	t.Helper()
	code, out, errs := btaiRun(t, args...)
	if code != 0 {
		t.Fatalf("arbor btai %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
	}
	if errs != "" {
		t.Fatalf("arbor btai %s: exit 0 but stderr %q", strings.Join(args, " "), errs)
	}
	return out
}

func btaiData(name string) string { return filepath.Join("testdata", "btai", name) }

// btaiPOMDP is a POMDP file (docs/formats.md) as the test reads it, without
// the library: the expected numbers below are computed from these slices.
type btaiPOMDP struct {
	A       [][]float64   `json:"A"`
	B       [][][]float64 `json:"B"`
	C       []float64     `json:"C"`
	D       []float64     `json:"D"`
	CStates []float64     `json:"C_states,omitempty"`
	Actions []string      `json:"actions,omitempty"`
}

func (m *btaiPOMDP) ns() int { return len(m.D) }
func (m *btaiPOMDP) no() int { return len(m.C) }
func (m *btaiPOMDP) nu() int { return len(m.B) }

func btaiReadPOMDP(t *testing.T, path string) *btaiPOMDP {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m btaiPOMDP
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &m
}

// btaiRandomPOMDP draws a POMDP with every probability in (0, 1): each
// column of A, B and D and the vectors C (and C_states) are uniform draws
// plus 0.05, normalised.
func btaiRandomPOMDP(rng *rand.Rand, ns, no, nu int, withCStates bool) *btaiPOMDP {
	vec := func(n int) []float64 {
		v := make([]float64, n)
		sum := 0.0
		for i := range v {
			v[i] = rng.Float64() + 0.05
			sum += v[i]
		}
		for i := range v {
			v[i] /= sum
		}
		return v
	}
	// matrix returns m[row][col] with every column drawn by vec.
	matrix := func(rows, cols int) [][]float64 {
		m := make([][]float64, rows)
		for r := range m {
			m[r] = make([]float64, cols)
		}
		for c := range cols {
			for r, p := range vec(rows) {
				m[r][c] = p
			}
		}
		return m
	}
	m := &btaiPOMDP{A: matrix(no, ns), C: vec(no), D: vec(ns)}
	for range nu {
		m.B = append(m.B, matrix(ns, ns))
	}
	if withCStates {
		m.CStates = vec(ns)
	}
	return m
}

func btaiWritePOMDP(t *testing.T, m *btaiPOMDP) string {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Brute-force quantities of docs/cli.md, from the definitions.

// btaiPosterior returns q(s) ∝ A[o][s] D[s] (Bayes' rule: the exact
// posterior over S_0 after O_0 = o).
func btaiPosterior(m *btaiPOMDP, o int) []float64 {
	q := make([]float64, m.ns())
	z := 0.0
	for s := range q {
		q[s] = m.A[o][s] * m.D[s]
		z += q[s]
	}
	for s := range q {
		q[s] /= z
	}
	return q
}

// btaiPredict returns B_u q: next[n] = sum_p B[u][n][p] q[p].
func btaiPredict(m *btaiPOMDP, u int, q []float64) []float64 {
	next := make([]float64, m.ns())
	for n := range next {
		for p, w := range q {
			next[n] += m.B[u][n][p] * w
		}
	}
	return next
}

// btaiObs returns A q.
func btaiObs(m *btaiPOMDP, q []float64) []float64 {
	out := make([]float64, m.no())
	for o := range out {
		for s, w := range q {
			out[o] += m.A[o][s] * w
		}
	}
	return out
}

func btaiKL(q, p []float64) float64 {
	d := 0.0
	for i, x := range q {
		if x > 0 {
			d += x * math.Log(x/p[i])
		}
	}
	return d
}

// btaiVS returns V(S): C_states, or uniform when the model has none.
func btaiVS(m *btaiPOMDP) []float64 {
	if m.CStates != nil {
		return m.CStates
	}
	v := make([]float64, m.ns())
	for i := range v {
		v[i] = 1 / float64(len(v))
	}
	return v
}

// btaiCost returns the cost of a node with posteriors qs and qo (paper
// section 6.3.3):
//
//	classic: KL[qo || C] + sum_s qs(s) H[A(.|s)]           (risk + ambiguity)
//	pcost:   KL[qs || V(S)] + KL[qo || C]
//	feef:    KL[Q(O,S) || C V(S)] with Q(o,s) = A(o|s) qs(s), summed over
//	         the joint by brute force
func btaiCost(m *btaiPOMDP, cost string, qs, qo []float64) float64 {
	switch cost {
	case "pcost":
		return btaiKL(qs, btaiVS(m)) + btaiKL(qo, m.C)
	case "feef":
		vs := btaiVS(m)
		g := 0.0
		for o := range m.no() {
			for s := range m.ns() {
				if q := m.A[o][s] * qs[s]; q > 0 {
					g += q * math.Log(q/(m.C[o]*vs[s]))
				}
			}
		}
		return g
	}
	g := btaiKL(qo, m.C)
	for s, w := range qs {
		for o := range m.no() {
			if a := m.A[o][s]; a > 0 {
				g -= w * a * math.Log(a)
			}
		}
	}
	return g
}

// btaiEFE returns the classic expected free energy of policy from the
// belief q0 (docs/cli.md): sum over tau of KL[Q(o_tau) || C] +
// E_Q(s_tau) H[A(.|s)], with Q(s_tau) = B_{pi_tau} Q(s_tau-1), Q(o) = A Q(s).
func btaiEFE(m *btaiPOMDP, q0 []float64, policy []int) float64 {
	q, g := q0, 0.0
	for _, u := range policy {
		q = btaiPredict(m, u, q)
		g += btaiCost(m, "classic", q, btaiObs(m, q))
	}
	return g
}

// btaiNode is one node of `arbor btai plan --json`; a null cost decodes as
// a nil pointer.
type btaiNode struct {
	Path       []int     `json:"path"`
	Visits     int       `json:"visits"`
	Local      *float64  `json:"local_cost"`
	Aggregated *float64  `json:"aggregated_cost"`
	QS         []float64 `json:"q_s"`
	QO         []float64 `json:"q_o"`
}

type btaiPlanOut struct {
	QS    []float64  `json:"q_s"`
	Nodes []btaiNode `json:"nodes"`
}

// btaiKeys returns the keys of the JSON object data in the order written.
func btaiKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("want a JSON object, got %q (%v)", data, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// btaiDecodePlan decodes plan --json output and checks the schema of
// docs/cli.md field for field and in order: {"q_s", "nodes"} and, per
// node, {"path", "visits", "local_cost", "aggregated_cost", "q_s", "q_o"}.
func btaiDecodePlan(t *testing.T, out string) btaiPlanOut {
	t.Helper()
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("want one line of JSON, got %q", out)
	}
	if got, want := btaiKeys(t, []byte(out)), []string{"q_s", "nodes"}; !slices.Equal(got, want) {
		t.Fatalf("top-level keys %v, want %v", got, want)
	}
	var raw struct {
		Nodes []json.RawMessage `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	wantNode := []string{"path", "visits", "local_cost", "aggregated_cost", "q_s", "q_o"}
	for i, n := range raw.Nodes {
		if got := btaiKeys(t, n); !slices.Equal(got, wantNode) {
			t.Fatalf("node %d keys %v, want %v", i, got, wantNode)
		}
	}
	var p btaiPlanOut
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

// btaiPathKey is a map key for a path.
func btaiPathKey(p []int) string { return fmt.Sprint(p) }

// btaiTreeShape indexes the nodes by path and checks the tree structure of
// paper section 6.3.2: the root is not listed, every parent path is listed
// (or is the root), expansion adds the children of every action at once, and
// there are iterations x |U| nodes (one expansion per iteration). It
// returns the index by path and the set of expanded paths (including the
// root, "[]").
func btaiTreeShape(t *testing.T, p btaiPlanOut, nu, iterations int) (map[string]*btaiNode, map[string]bool) {
	t.Helper()
	if len(p.Nodes) != iterations*nu {
		t.Fatalf("%d nodes, want iterations x |U| = %d x %d", len(p.Nodes), iterations, nu)
	}
	byPath := map[string]*btaiNode{}
	expanded := map[string]bool{}
	for i := range p.Nodes {
		n := &p.Nodes[i]
		if len(n.Path) == 0 {
			t.Fatalf("node %d: empty path (the root must not be listed)", i)
		}
		for _, u := range n.Path {
			if u < 0 || u >= nu {
				t.Fatalf("node %d: path %v has an action out of [0, %d)", i, n.Path, nu)
			}
		}
		k := btaiPathKey(n.Path)
		if byPath[k] != nil {
			t.Fatalf("path %v listed twice", n.Path)
		}
		byPath[k] = n
		expanded[btaiPathKey(n.Path[:len(n.Path)-1])] = true
	}
	for k := range expanded {
		if k == "[]" {
			continue
		}
		if byPath[k] == nil {
			t.Fatalf("parent %s of a listed node is not listed", k)
		}
	}
	for i := range p.Nodes {
		n := &p.Nodes[i]
		parent := n.Path[:len(n.Path)-1]
		for u := range nu {
			sib := append(slices.Clone(parent), u)
			if byPath[btaiPathKey(sib)] == nil {
				t.Fatalf("node %v listed without its sibling %v: expansion adds every action", n.Path, sib)
			}
		}
	}
	if len(expanded) != iterations {
		t.Fatalf("%d expanded nodes, want one per iteration = %d", len(expanded), iterations)
	}
	return byPath, expanded
}

// btaiHasPrefix reports whether path starts with prefix.
func btaiHasPrefix(path, prefix []int) bool {
	return len(path) >= len(prefix) && slices.Equal(path[:len(prefix)], prefix)
}

func btaiClose(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// btaiCheckPropagation checks visits and aggregated costs against the
// propagation schemes of paper section 6.3.4, recomputed from the local
// costs in the output:
//
//   - forward: G_I = sum of g_J over the path of I (root excluded);
//     n_I = 1 + number of expanded nodes in the subtree of I;
//   - backward: G_I = sum of g_J over the subtree of I (I included);
//     n_I = size of the subtree of I;
//   - min-backward: G_I = g_I + sum over the expanded nodes K of the subtree
//     of I of min_a g_(K::a); n_I = 1 + number of expanded nodes in it.
//
// (A new node counts its own evaluation as one visit, btai.Node.Visits.)
// The root's visits are not listed, but its children's must account for
// every expansion but the root's own: sum over them of (n - 1) for forward
// and min-backward, and of n - |U|... equivalently the subtree sizes, for
// backward.
func btaiCheckPropagation(t *testing.T, p btaiPlanOut, prop string, nu, iterations int) {
	t.Helper()
	byPath, expanded := btaiTreeShape(t, p, nu, iterations)
	rootChildVisits := 0
	for i := range p.Nodes {
		n := &p.Nodes[i]
		if n.Local == nil || n.Aggregated == nil {
			t.Fatalf("node %v: null cost for a model with positive C", n.Path)
		}
		subtree, expandedBelow := 0, 0
		var sumLocal, sumMin float64
		for j := range p.Nodes {
			d := &p.Nodes[j]
			if !btaiHasPrefix(d.Path, n.Path) {
				continue
			}
			subtree++
			sumLocal += *d.Local
			if expanded[btaiPathKey(d.Path)] {
				expandedBelow++
				m := math.Inf(1)
				for u := range nu {
					m = math.Min(m, *byPath[btaiPathKey(append(slices.Clone(d.Path), u))].Local)
				}
				sumMin += m
			}
		}
		var wantG float64
		wantN := 1 + expandedBelow
		switch prop {
		case "forward":
			for k := 1; k <= len(n.Path); k++ {
				wantG += *byPath[btaiPathKey(n.Path[:k])].Local
			}
		case "backward":
			wantG, wantN = sumLocal, subtree
		default:
			wantG = *n.Local + sumMin
		}
		if n.Visits != wantN {
			t.Errorf("%s: node %v visits %d, want %d", prop, n.Path, n.Visits, wantN)
		}
		if !btaiClose(*n.Aggregated, wantG, 1e-9) {
			t.Errorf("%s: node %v aggregated cost %.15g, want %.15g", prop, n.Path, *n.Aggregated, wantG)
		}
		if len(n.Path) == 1 {
			rootChildVisits += n.Visits
		}
	}
	// Every node but the root is in the subtree of one root child.
	wantRoot := iterations - 1 + nu
	if prop == "backward" {
		wantRoot = len(p.Nodes)
	}
	if rootChildVisits != wantRoot {
		t.Errorf("%s: root children visits sum to %d, want %d", prop, rootChildVisits, wantRoot)
	}
}

func btaiCheckDistribution(t *testing.T, what string, p []float64, n int) {
	t.Helper()
	if len(p) != n {
		t.Fatalf("%s has %d entries, want %d", what, len(p), n)
	}
	sum := 0.0
	for _, x := range p {
		if !(x >= 0 && x <= 1) {
			t.Fatalf("%s = %v: entry outside [0, 1]", what, p)
		}
		sum += x
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("%s = %v sums to %v, want 1", what, p, sum)
	}
}

// TestBTAIPlanTheorem1 is Theorem 1 of the paper through the command line:
// with predictive inference, the classic cost and forward propagation, the
// aggregated cost of every node equals the classic expected free energy of
// its action path, computed here by brute force from A, B, C and D. The
// posteriors are checked too: q_s of the root is Bayes' rule on D and
// A[O0], q_s of a node is B applied along its path, and q_o = A q_s.
func TestBTAIPlanTheorem1(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2026))
	type model struct {
		name string
		path string
		m    *btaiPOMDP
	}
	models := []model{{"tiny", btaiData("tiny-pomdp.json"), btaiReadPOMDP(t, btaiData("tiny-pomdp.json"))}}
	for i := range 5 {
		m := btaiRandomPOMDP(rng, 2+rng.IntN(4), 2+rng.IntN(3), 2+rng.IntN(2), i%2 == 1)
		models = append(models, model{fmt.Sprintf("random%d", i), btaiWritePOMDP(t, m), m})
	}
	const iterations = 30
	for _, mod := range models {
		m := mod.m
		for o0 := range m.no() {
			t.Run(fmt.Sprintf("%s/obs%d", mod.name, o0), func(t *testing.T) {
				out := btaiMustRun(t, "plan", "--model", mod.path, "--obs", strconv.Itoa(o0),
					"--iterations", strconv.Itoa(iterations), "--inference", "predictive",
					"--cost", "classic", "--propagation", "forward", "--json")
				p := btaiDecodePlan(t, out)
				q0 := btaiPosterior(m, o0)
				opt := cmpopts.EquateApprox(0, 1e-9)
				if d := cmp.Diff(q0, p.QS, opt); d != "" {
					t.Fatalf("root q_s mismatch (-want +got):\n%s", d)
				}
				for _, n := range p.Nodes {
					q := q0
					for _, u := range n.Path {
						q = btaiPredict(m, u, q)
					}
					if d := cmp.Diff(q, n.QS, opt); d != "" {
						t.Fatalf("node %v q_s mismatch (-want +got):\n%s", n.Path, d)
					}
					if d := cmp.Diff(btaiObs(m, n.QS), n.QO, opt); d != "" {
						t.Fatalf("node %v q_o != A q_s (-want +got):\n%s", n.Path, d)
					}
					if want := btaiCost(m, "classic", q, btaiObs(m, q)); !btaiClose(*n.Local, want, 1e-9) {
						t.Fatalf("node %v local cost %.15g, want risk + ambiguity %.15g", n.Path, *n.Local, want)
					}
					if want := btaiEFE(m, q0, n.Path); !btaiClose(*n.Aggregated, want, 1e-9) {
						t.Fatalf("node %v aggregated cost %.15g, want classic EFE of its path %.15g", n.Path, *n.Aggregated, want)
					}
				}
				btaiCheckPropagation(t, p, "forward", m.nu(), iterations)
			})
		}
	}
}

// TestBTAIPlanCostsAndPropagation checks, for every cost and propagation
// scheme, each node's local cost against the brute-force cost of its
// posteriors (predictive inference, so that the posteriors are the exact
// predictions) and its visits and aggregated cost against the propagation
// rules recomputed from the local costs.
func TestBTAIPlanCostsAndPropagation(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 6))
	withCS := btaiRandomPOMDP(rng, 4, 3, 3, true)
	models := map[string]string{"tiny": btaiData("tiny-pomdp.json"), "cstates": btaiWritePOMDP(t, withCS)}
	const iterations = 12
	for _, name := range []string{"tiny", "cstates"} {
		m := btaiReadPOMDP(t, models[name])
		for _, cost := range []string{"classic", "pcost", "feef"} {
			for _, prop := range []string{"forward", "backward", "min-backward"} {
				t.Run(name+"/"+cost+"/"+prop, func(t *testing.T) {
					out := btaiMustRun(t, "plan", "--json", "--model", models[name], "--obs", "1",
						"--iterations", strconv.Itoa(iterations), "--inference", "predictive",
						"--cost", cost, "--propagation", prop)
					p := btaiDecodePlan(t, out)
					q0 := btaiPosterior(m, 1)
					for _, n := range p.Nodes {
						q := q0
						for _, u := range n.Path {
							q = btaiPredict(m, u, q)
						}
						if want := btaiCost(m, cost, q, btaiObs(m, q)); !btaiClose(*n.Local, want, 1e-9) {
							t.Fatalf("node %v %s cost %.15g, want %.15g", n.Path, cost, *n.Local, want)
						}
					}
					btaiCheckPropagation(t, p, prop, m.nu(), iterations)
				})
			}
		}
	}
}

// TestBTAIPlanVMP checks the default (vmp) future inference through the
// command line: the schema, that every q_s and q_o is a distribution, and
// the propagation rules; the values of the vmp posteriors are the btai
// package's tests.
func TestBTAIPlanVMP(t *testing.T) {
	m := btaiReadPOMDP(t, btaiData("tiny-pomdp.json"))
	const iterations = 10
	for _, prop := range []string{"forward", "backward", "min-backward"} {
		t.Run(prop, func(t *testing.T) {
			out := btaiMustRun(t, "plan", "--model", btaiData("tiny-pomdp.json"), "--obs", "0",
				"--iterations", strconv.Itoa(iterations), "--propagation", prop, "--json")
			p := btaiDecodePlan(t, out)
			btaiCheckDistribution(t, "root q_s", p.QS, m.ns())
			for _, n := range p.Nodes {
				btaiCheckDistribution(t, fmt.Sprintf("node %v q_s", n.Path), n.QS, m.ns())
				btaiCheckDistribution(t, fmt.Sprintf("node %v q_o", n.Path), n.QO, m.no())
			}
			btaiCheckPropagation(t, p, prop, m.nu(), iterations)
		})
	}
}

// TestBTAIPlanInfiniteCost: C puts zero mass on an outcome every state can
// emit, so every risk is +Inf; JSON has no infinity, and the costs are
// written as null instead of failing.
func TestBTAIPlanInfiniteCost(t *testing.T) {
	for _, inf := range []string{"predictive", "vmp"} {
		out := btaiMustRun(t, "plan", "--model", btaiData("zero-preference.json"), "--obs", "0",
			"--iterations", "3", "--inference", inf, "--json")
		p := btaiDecodePlan(t, out)
		if len(p.Nodes) != 6 { // 3 iterations x 2 actions
			t.Fatalf("%s: %d nodes, want 6", inf, len(p.Nodes))
		}
		for _, n := range p.Nodes {
			if n.Local != nil || n.Aggregated != nil {
				t.Errorf("%s: node %v costs %v, %v: want null (+Inf)", inf, n.Path, n.Local, n.Aggregated)
			}
		}
	}
}

// TestBTAIPlanHuman checks the human output of plan against its JSON: the
// root posterior and one row per action with the visits and the costs of
// the root's children.
func TestBTAIPlanHuman(t *testing.T) {
	args := []string{"plan", "--model", btaiData("tiny-pomdp.json"), "--obs", "1", "--iterations", "7", "--inference", "predictive"}
	p := btaiDecodePlan(t, btaiMustRun(t, append(args, "--json")...))
	out := btaiMustRun(t, args...)
	names := []string{"stay", "move"} // "actions" of tiny-pomdp.json
	var want strings.Builder
	want.WriteString("settings: preset scale-free, selection normalized-uct, exploration 0.5, iterations 7, inference predictive, " +
		"cost classic, propagation min-backward, past filter, novelty off\n")
	fmt.Fprintf(&want, "q(s_0 | o_0 = 1) = [%.4f %.4f %.4f]\n", p.QS[0], p.QS[1], p.QS[2])
	fmt.Fprintf(&want, "planned 7 iterations (classic cost, min-backward propagation, predictive inference): 14 nodes\n")
	fmt.Fprintf(&want, "  %-8s %7s %10s %10s\n", "action", "visits", "local", "average")
	for u, name := range names {
		n := p.Nodes[u] // the root's children come first, in action order
		if !slices.Equal(n.Path, []int{u}) {
			t.Fatalf("node %d has path %v, want [%d]", u, n.Path, u)
		}
		fmt.Fprintf(&want, "  %-8s %7d %10.4f %10.4f\n", name, n.Visits, *n.Local, *n.Aggregated/float64(n.Visits))
	}
	if d := cmp.Diff(want.String(), out); d != "" {
		t.Errorf("human output mismatch (-want +got):\n%s", d)
	}
}

// btaiMaze is a maze file read by the test itself (docs/formats.md), to
// replay the agent's actions independently of package envs.
type btaiMaze struct {
	grid       [][]byte
	start, end [2]int
}

func btaiReadMaze(t *testing.T, path string) *btaiMaze {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	var rows, cols int
	if _, err := fmt.Sscan(sc.Text(), &rows, &cols); err != nil {
		t.Fatal(err)
	}
	m := &btaiMaze{}
	for r := range rows {
		sc.Scan()
		line := []byte(sc.Text())
		for len(line) < cols { // a short line is padded with walls
			line = append(line, 'W')
		}
		for c, ch := range line {
			switch ch {
			case 'S':
				m.start = [2]int{r, c}
			case 'E':
				m.end = [2]int{r, c}
			}
		}
		m.grid = append(m.grid, line)
	}
	return m
}

// move applies action u (0 UP, 1 DOWN, 2 LEFT, 3 RIGHT, 4 IDLE; a move
// into a wall stays) to position p.
func (m *btaiMaze) move(p [2]int, u int) [2]int {
	d := [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {0, 0}}[u]
	q := [2]int{p[0] + d[0], p[1] + d[1]}
	if m.grid[q[0]][q[1]] == 'W' {
		return p
	}
	return q
}

// render draws the grid with every visited '.' cell marked '*'.
func (m *btaiMaze) render(visited [][2]int) string {
	g := make([][]byte, len(m.grid))
	for r := range g {
		g[r] = slices.Clone(m.grid[r])
	}
	for _, p := range visited {
		if g[p[0]][p[1]] == '.' {
			g[p[0]][p[1]] = '*'
		}
	}
	var b strings.Builder
	for _, row := range g {
		b.Write(row)
		b.WriteByte('\n')
	}
	return b.String()
}

type btaiEpisodeOut struct {
	Episode            int         `json:"episode"`
	Solved             bool        `json:"solved"`
	Steps              int         `json:"steps"`
	Actions            []int       `json:"actions"`
	ActionNames        []string    `json:"action_names"`
	Observations       []int       `json:"observations"`
	ObservationNames   []string    `json:"observation_names"`
	TrueState          any         `json:"true_state"`
	ActionProbs        [][]float64 `json:"action_probs"`
	QS                 [][]float64 `json:"q_s"`
	Positions          [][2]int    `json:"positions"`
	PlanningSeconds    float64     `json:"planning_seconds"`
	PlanningIterations int         `json:"planning_iterations"`
}

type btaiSummaryOut struct {
	Episodes           int            `json:"episodes"`
	Solved             int            `json:"solved"`
	MeanSteps          *float64       `json:"mean_steps"`
	PlanningIterations int            `json:"planning_iterations"`
	PlanningSeconds    float64        `json:"planning_seconds"`
	Settings           map[string]any `json:"settings"`
}

// btaiDecodeRun decodes run --json output and checks its schema
// (docs/cli.md), field for field and in order: the provenance line, one
// object per episode, then the summary. Every episode is numbered, names
// its actions and observations, and gives one action distribution per
// action taken, in which the action taken has a positive probability.
func btaiDecodeRun(t *testing.T, out string, episodes int, maze bool) ([]btaiEpisodeOut, btaiSummaryOut) {
	t.Helper()
	lines := runJSONLines(t, out)
	if len(lines) != episodes+1 {
		t.Fatalf("%d lines after the provenance, want %d episodes + a summary:\n%s", len(lines), episodes, out)
	}
	// A --model run has no goal: no solved, no positions.
	wantEp := []string{"episode", "solved", "steps", "actions", "action_names", "observations", "observation_names",
		"action_probs", "q_s", "positions", "planning_seconds", "planning_iterations"}
	wantSum := []string{"episodes", "solved", "mean_steps", "planning_iterations", "planning_seconds", "settings"}
	if !maze {
		wantEp = []string{"episode", "steps", "actions", "action_names", "observations", "observation_names",
			"true_state", "action_probs", "q_s", "planning_seconds", "planning_iterations"}
		wantSum = []string{"episodes", "planning_iterations", "planning_seconds", "settings"}
	}
	strict := func(line string, v any) {
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			t.Fatalf("%v in %s", err, line)
		}
	}
	var eps []btaiEpisodeOut
	for _, line := range lines[:episodes] {
		if got := btaiKeys(t, []byte(line)); !slices.Equal(got, wantEp) {
			t.Fatalf("episode keys %v, want %v", got, wantEp)
		}
		var ep btaiEpisodeOut
		strict(line, &ep)
		if ep.Episode != len(eps)+1 {
			t.Fatalf("episode %d numbered %d", len(eps)+1, ep.Episode)
		}
		if len(ep.ActionNames) != len(ep.Actions) || len(ep.ObservationNames) != len(ep.Observations) || len(ep.ActionProbs) != len(ep.Actions) {
			t.Fatalf("episode %d: %d actions, %d names, %d action distributions; %d observations, %d names",
				ep.Episode, len(ep.Actions), len(ep.ActionNames), len(ep.ActionProbs), len(ep.Observations), len(ep.ObservationNames))
		}
		for i, p := range ep.ActionProbs {
			btaiCheckDistribution(t, fmt.Sprintf("episode %d: action_probs[%d]", ep.Episode, i), p, len(ep.ActionProbs[0]))
			if u := ep.Actions[i]; u < 0 || u >= len(p) || !(p[u] > 0) {
				t.Fatalf("episode %d step %d: action %d taken with probability %v", ep.Episode, i+1, u, p)
			}
		}
		eps = append(eps, ep)
	}
	last := lines[episodes]
	if got := btaiKeys(t, []byte(last)); !slices.Equal(got, wantSum) {
		t.Fatalf("summary keys %v, want %v", got, wantSum)
	}
	var sum btaiSummaryOut
	strict(last, &sum)
	return eps, sum
}

// TestBTAIRunMazeJSON replays every episode of a maze run in the test's own
// maze model: the positions follow from the actions, solved means ending on
// E, an unsolved episode uses every step, and the summary counts agree.
func TestBTAIRunMazeJSON(t *testing.T) {
	const iterations, steps, episodes = 15, 12, 3
	for _, file := range []string{"5.maze", "1.maze"} {
		t.Run(file, func(t *testing.T) {
			mz := btaiReadMaze(t, btaiData(file))
			out := btaiMustRun(t, "run", "--maze", btaiData(file), "--iterations", strconv.Itoa(iterations),
				"--steps", strconv.Itoa(steps), "--episodes", strconv.Itoa(episodes), "--seed", "11", "--json")
			eps, sum := btaiDecodeRun(t, out, episodes, true)
			solved, solvedSteps := 0, 0
			for e, ep := range eps {
				if len(ep.Actions) != ep.Steps || len(ep.Positions) != ep.Steps+1 {
					t.Fatalf("episode %d: %d steps, %d actions, %d positions", e, ep.Steps, len(ep.Actions), len(ep.Positions))
				}
				pos := mz.start
				if ep.Positions[0] != pos {
					t.Fatalf("episode %d starts at %v, want S at %v", e, ep.Positions[0], pos)
				}
				for i, u := range ep.Actions {
					if u < 0 || u > 4 {
						t.Fatalf("episode %d: action %d out of range", e, u)
					}
					pos = mz.move(pos, u)
					if ep.Positions[i+1] != pos {
						t.Fatalf("episode %d step %d: position %v, want %v after action %d", e, i+1, ep.Positions[i+1], pos, u)
					}
					if pos == mz.end && i+1 < ep.Steps {
						t.Fatalf("episode %d reached E at step %d but went on to step %d", e, i+1, ep.Steps)
					}
				}
				if ep.Solved != (pos == mz.end) {
					t.Fatalf("episode %d: solved %v but ends at %v (E at %v)", e, ep.Solved, pos, mz.end)
				}
				if !ep.Solved && ep.Steps != steps {
					t.Fatalf("episode %d unsolved after %d steps, want all %d", e, ep.Steps, steps)
				}
				if ep.PlanningIterations != ep.Steps*iterations {
					t.Fatalf("episode %d: %d planning iterations, want steps x iterations = %d", e, ep.PlanningIterations, ep.Steps*iterations)
				}
				if !(ep.PlanningSeconds > 0) {
					t.Fatalf("episode %d: planning_seconds %v, want > 0", e, ep.PlanningSeconds)
				}
				if ep.Solved {
					solved++
					solvedSteps += ep.Steps
				}
			}
			if sum.Episodes != episodes || sum.Solved != solved || !(sum.PlanningSeconds > 0) || sum.PlanningIterations <= 0 {
				t.Fatalf("summary %+v, want %d episodes, %d solved, positive speed", sum, episodes, solved)
			}
			switch {
			case solved == 0 && sum.MeanSteps != nil:
				t.Fatalf("mean_steps %v with no episode solved, want null", *sum.MeanSteps)
			case solved > 0 && (sum.MeanSteps == nil || *sum.MeanSteps != float64(solvedSteps)/float64(solved)):
				t.Fatalf("mean_steps %v, want %d/%d", sum.MeanSteps, solvedSteps, solved)
			}
		})
	}
}

// TestBTAIRunMazeSolvedPredictive: with predictive inference on 5.maze
// (shortest path 4, by breadth-first search) the agent reaches the exit.
// The assertion is deliberately loose (within 2 x 4 + 5 = 13 steps, the
// bound of the success tables) and uses predictive inference, whose posteriors are
// exact predictions, so that it does not depend on the tuning of the
// default vmp mode.
func TestBTAIRunMazeSolvedPredictive(t *testing.T) {
	out := btaiMustRun(t, "run", "--maze", btaiData("5.maze"), "--inference", "predictive", "--steps", "13", "--json")
	eps, sum := btaiDecodeRun(t, out, 1, true)
	if !eps[0].Solved || sum.Solved != 1 {
		t.Fatalf("5.maze not solved in 13 steps: %+v", eps[0])
	}
	if eps[0].Steps < 4 {
		t.Fatalf("solved in %d steps, fewer than the shortest path (4)", eps[0].Steps)
	}
}

// btaiMaskTiming replaces the run-dependent timing figures (the only
// output that may differ between runs with the same seed) by "T".
var btaiTiming = regexp.MustCompile(`("planning_seconds":|; )[0-9.e+-]+( planning iterations per second)?`)

func btaiMaskTiming(s string) string { return btaiTiming.ReplaceAllString(s, "${1}T${2}") }

// TestBTAIRunHumanMaze checks the human output against the JSON output of
// the same seed and against the test's own rendering: an outcome line, the
// action names, the positions, and the maze with the visited cells marked.
func TestBTAIRunHumanMaze(t *testing.T) {
	args := []string{"run", "--maze", btaiData("1.maze"), "--iterations", "10", "--steps", "8", "--seed", "5", "--inference", "predictive"}
	eps, _ := btaiDecodeRun(t, btaiMustRun(t, append(args, "--json")...), 1, true)
	ep := eps[0]
	mz := btaiReadMaze(t, btaiData("1.maze"))
	names := []string{"UP", "DOWN", "LEFT", "RIGHT", "IDLE"} // docs/formats.md action order
	var want strings.Builder
	// The first line states the settings: the default preset's, with the
	// flags given.
	want.WriteString("settings: preset scale-free, selection normalized-uct, exploration 0.5, iterations 10, inference predictive, " +
		"cost classic, propagation min-backward, past filter, action-select most-visited, novelty off\n")
	status := "did not reach the exit in"
	if ep.Solved {
		status = "reached the exit in"
	}
	fmt.Fprintf(&want, "episode 1: %s %d steps (%d planning iterations)\n", status, ep.Steps, ep.PlanningIterations)
	var acts, path []string
	for _, u := range ep.Actions {
		acts = append(acts, names[u])
	}
	for _, p := range ep.Positions {
		path = append(path, fmt.Sprintf("(%d,%d)", p[0], p[1]))
	}
	fmt.Fprintf(&want, "actions: %s\npath: %s\n", strings.Join(acts, " "), strings.Join(path, " "))
	want.WriteString(mz.render(ep.Positions))
	solved := 0
	if ep.Solved {
		solved = 1
	}
	fmt.Fprintf(&want, "%d/1 episodes solved", solved)
	if ep.Solved {
		fmt.Fprintf(&want, ", mean steps %.1f", float64(ep.Steps))
	}
	want.WriteString("; T planning iterations per second\n")
	got := btaiMaskTiming(btaiMustRun(t, args...))
	if d := cmp.Diff(want.String(), got); d != "" {
		t.Errorf("human output mismatch (-want +got):\n%s", d)
	}
	if !strings.Contains(got, "*") && ep.Steps > 0 && slices.ContainsFunc(ep.Positions, func(p [2]int) bool { return mz.grid[p[0]][p[1]] == '.' }) {
		t.Errorf("no visited cell drawn:\n%s", got)
	}
}

// TestBTAIRunDeterministic: the same --seed gives the same output, human
// and JSON, up to the timing figures; with --model, where the seed also
// drives the sampled true process, other seeds give other runs.
func TestBTAIRunDeterministic(t *testing.T) {
	cases := [][]string{
		{"run", "--maze", btaiData("1.maze"), "--iterations", "20", "--steps", "10", "--episodes", "2", "--action-select", "softmax", "--action-precision", "1"},
		{"run", "--model", btaiData("tiny-pomdp.json"), "--iterations", "10", "--steps", "12", "--episodes", "2"},
	}
	for _, args := range cases {
		for _, format := range [][]string{nil, {"--json"}} {
			a := append(slices.Clone(args), format...)
			first := btaiMaskTiming(btaiMustRun(t, append(a, "--seed", "42")...))
			second := btaiMaskTiming(btaiMustRun(t, append(a, "--seed", "42")...))
			if first != second {
				t.Errorf("%v --seed 42 twice differs:\n%s\n---\n%s", a, first, second)
			}
			if !strings.Contains(first, "; T planning iterations per second\n") && !strings.Contains(first, `"planning_seconds":T,"settings"`) {
				t.Errorf("timing not masked in %q", first)
			}
		}
	}
	// A --model run samples its observations with the seed: across 5 seeds
	// (2 episodes of 12 steps each), at least two runs must differ.
	seen := map[string]bool{}
	for seed := range 5 {
		// The provenance line names the seed: the episodes are compared.
		lines := runJSONLines(t, btaiMustRun(t, append(cases[1], "--json", "--seed", strconv.Itoa(seed))...))
		seen[btaiMaskTiming(strings.Join(lines, "\n"))] = true
	}
	if len(seen) < 2 {
		t.Errorf("5 seeds gave identical --model runs")
	}
}

// TestBTAIRunModel: a --model run has no maze, so no positions, never
// "solved", and every episode takes --steps actions.
func TestBTAIRunModel(t *testing.T) {
	out := btaiMustRun(t, "run", "--model", btaiData("tiny-pomdp.json"), "--iterations", "5", "--steps", "7", "--episodes", "2", "--json")
	eps, sum := btaiDecodeRun(t, out, 2, false)
	for _, ep := range eps {
		if ep.Solved || ep.Steps != 7 || len(ep.Actions) != 7 || ep.PlanningIterations != 35 {
			t.Fatalf("episode %+v: want unsolved, 7 steps, 7 actions, 35 planning iterations", ep)
		}
	}
	for _, ep := range eps {
		if len(ep.Observations) != 8 {
			t.Fatalf("episode %+v: want 8 observations (the first and one per step)", ep)
		}
	}
	if sum.Episodes != 2 {
		t.Fatalf("summary %+v, want 2 episodes", sum)
	}
	human := btaiMustRun(t, "run", "--model", btaiData("tiny-pomdp.json"), "--iterations", "5", "--steps", "7")
	_, human, _ = strings.Cut(human, "\n") // the settings line
	if !strings.HasPrefix(human, "episode 1: ran 7 steps (35 planning iterations)\nactions: ") {
		t.Errorf("human output %q", human)
	}
}

// TestBTAIReadmeCommand keeps the README's main-job command working:
// `arbor btai run --maze examples/mazes/1.maze` with the defaults draws the
// maze and the path.
func TestBTAIReadmeCommand(t *testing.T) {
	// The README's first command, exactly as written there (flags from
	// README.md, the maze path made relative to this package).
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "go run ./cmd/arbor btai run "
	var args []string
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, prefix) {
			line, _, _ = strings.Cut(line, "#")
			args = strings.Fields(strings.TrimPrefix(line, "go run ./cmd/arbor btai "))
			break
		}
	}
	if len(args) == 0 {
		t.Fatalf("README.md has no line starting %q", prefix)
	}
	var file string
	for i := range args {
		if i > 0 && args[i-1] == "--maze" {
			args[i] = filepath.Join("..", "..", args[i])
			file = args[i]
		}
	}
	if file == "" {
		t.Fatalf("README command %q has no --maze", args)
	}
	out := btaiMustRun(t, args...)
	mz := btaiReadMaze(t, file)
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "settings: preset scale-free, ") {
		t.Errorf("first line %q, want the settings of the default preset", lines[0])
	}
	lines = lines[1:]
	// The README promises that the agent solves the maze.
	if !strings.HasPrefix(lines[0], "episode 1: reached the exit") {
		t.Errorf("README command %q did not solve the maze:\n%s", args, out)
	}
	if len(lines) < 4+len(mz.grid) || !strings.HasPrefix(lines[0], "episode 1: ") ||
		!strings.HasPrefix(lines[1], "actions: ") || !strings.HasPrefix(lines[2], "path: (5,1)") {
		t.Fatalf("unexpected output:\n%s", out)
	}
	for r, row := range mz.grid {
		got := lines[3+r]
		for c := range row {
			if want := row[c]; want != got[c] && !(want == '.' && got[c] == '*') {
				t.Fatalf("maze row %d drawn %q, want %q with '*' on visited cells", r, got, row)
			}
		}
	}
}

// btaiLabel matches a planning-tree label of the DOT output.
var btaiLabel = regexp.MustCompile(`label="S\(([^)]*)\)\\nn=(\d+) g=([^"]+)"`)

// btaiRenderDOT renders path with Graphviz. It skips when dot is missing,
// except in CI (.ci/run installs Graphviz), where it fails.
func btaiRenderDOT(t *testing.T, path string) {
	t.Helper()
	bin, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Graphviz dot is not installed but CI is set: %v", err)
		}
		t.Skipf("Graphviz dot is not installed (%v); CI installs it", err)
	}
	out, err := exec.Command(bin, "-Tsvg", path).CombinedOutput()
	if err != nil {
		t.Fatalf("dot -Tsvg %s: %v\n%s", path, err, out)
	}
	if !bytes.Contains(out, []byte("<svg")) {
		t.Fatalf("dot -Tsvg %s: no <svg> in the output", path)
	}
}

// TestBTAIPlanDOT checks --dot --dot-factors against the JSON tree of the
// same plan: one label per node with its action path, its visits n and its
// average cost g = aggregated / visits, and no per-depth clusters.
func TestBTAIPlanDOT(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plan.dot")
	out := btaiMustRun(t, "plan", "--model", btaiData("tiny-pomdp.json"), "--obs", "0", "--iterations", "9",
		"--inference", "predictive", "--dot", file, "--dot-factors", "--json")
	p := btaiDecodePlan(t, out)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dot := string(data)
	maxDepth := 0
	for _, n := range p.Nodes {
		maxDepth = max(maxDepth, len(n.Path))
	}
	if maxDepth < 2 {
		t.Fatalf("9 iterations grew a tree of depth %d, want >= 2", maxDepth)
	}
	if strings.Contains(dot, `label="depth `) {
		t.Error("per-depth clusters in the factor view")
	}
	names := []string{"stay", "move"}
	labels := map[string][2]string{}
	for _, m := range btaiLabel.FindAllStringSubmatch(dot, -1) {
		labels[m[1]] = [2]string{m[2], m[3]}
	}
	if len(labels) != len(p.Nodes) {
		t.Errorf("%d labelled tree nodes in the DOT file, want %d", len(labels), len(p.Nodes))
	}
	for _, n := range p.Nodes {
		var path []string
		for _, u := range n.Path {
			path = append(path, names[u])
		}
		l, ok := labels[strings.Join(path, ",")]
		if !ok {
			t.Errorf("no label for node %v", path)
			continue
		}
		if l[0] != strconv.Itoa(n.Visits) {
			t.Errorf("node %v label n=%s, want %d", path, l[0], n.Visits)
		}
		g, err := strconv.ParseFloat(l[1], 64)
		want := *n.Aggregated / float64(n.Visits)
		if err != nil || !btaiClose(g, want, 5e-3) { // the label has 3 significant digits
			t.Errorf("node %v label g=%s, want %.4g", path, l[1], want)
		}
	}
	btaiRenderDOT(t, file)
}

// TestBTAIRunDOT: run --dot --dot-factors writes the graph after the first
// planning step: the past and a label (n=, g=) for each of the iterations
// x |U| tree nodes; it renders with Graphviz.
func TestBTAIRunDOT(t *testing.T) {
	file := filepath.Join(t.TempDir(), "run.dot")
	btaiMustRun(t, "run", "--maze", btaiData("5.maze"), "--iterations", "12", "--steps", "3", "--dot", file, "--dot-factors")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dot := string(data)
	if !strings.Contains(dot, `label="past";`) {
		t.Errorf("want the cluster \"past\" in:\n%.2000s", dot)
	}
	if got := len(btaiLabel.FindAllString(dot, -1)); got != 12*5 {
		t.Errorf("%d labelled tree nodes, want 12 iterations x 5 actions = 60", got)
	}
	if !strings.Contains(dot, "S(UP)") || !strings.Contains(dot, "S(IDLE)") {
		t.Errorf("tree labels do not name the actions")
	}
	btaiRenderDOT(t, file)
}

// TestBTAIDOTEscaping: action names with quotes and backslashes come from
// the model file; the DOT file must still render.
func TestBTAIDOTEscaping(t *testing.T) {
	file := filepath.Join(t.TempDir(), "esc.dot")
	btaiMustRun(t, "plan", "--model", btaiData("zero-preference.json"), "--obs", "0", "--iterations", "3",
		"--inference", "predictive", "--dot", file)
	btaiRenderDOT(t, file)
}

// TestBTAIBadInput: every bad file and flag gives exit status 2, nothing on
// stdout and exactly one line on stderr that names the file and field
// where there is one, and the fault.
func TestBTAIBadInput(t *testing.T) {
	dir := t.TempDir()
	// 67 x 67 with a free interior: 65 x 65 = 4225 states, more than a
	// dense maze model allows (envs.MaxModelStates = 4096).
	var big strings.Builder
	big.WriteString("67 67\n" + strings.Repeat("W", 67) + "\n")
	for r := range 65 {
		row := []byte("W" + strings.Repeat(".", 65) + "W")
		if r == 0 {
			row[1] = 'S'
		}
		if r == 64 {
			row[65] = 'E'
		}
		big.Write(row)
		big.WriteByte('\n')
	}
	big.WriteString(strings.Repeat("W", 67) + "\n")
	bigMaze := filepath.Join(dir, "big.maze")
	if err := os.WriteFile(bigMaze, []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	maze := func(name string) []string {
		return []string{"run", "--maze", btaiData(name), "--iterations", "2", "--steps", "2"}
	}
	plan := func(name string, extra ...string) []string {
		return append([]string{"plan", "--model", btaiData(name), "--obs", "0", "--iterations", "2"}, extra...)
	}
	run1 := func(extra ...string) []string {
		return append([]string{"run", "--maze", btaiData("5.maze"), "--iterations", "2", "--steps", "2"}, extra...)
	}
	tiny := btaiData("tiny-pomdp.json")
	cases := []struct {
		name string
		args []string
		want []string // substrings of the one stderr line
	}{
		// Maze files: the three invalid reference mazes, and more.
		{"maze 0 no exit", maze("0.maze"), []string{"--maze", "0.maze", "no exit E"}},
		{"maze 3 long row", maze("3.maze"), []string{"--maze", "3.maze", "line 2, column 9", "longer than 8 columns"}},
		{"maze 4 bad char", maze("4.maze"), []string{"--maze", "4.maze", "line 2, column 1", "invalid character 'I'"}},
		{"maze two starts", maze("two-starts.maze"), []string{"two-starts.maze", "line 3, column 4", "second start S"}},
		{"maze no start", maze("no-start.maze"), []string{"no-start.maze", "no start S"}},
		{"maze missing row", maze("missing-row.maze"), []string{"missing-row.maze", "line 5", "missing row 4"}},
		{"maze open border", maze("exit-on-border.maze"), []string{"exit-on-border.maze", "line 4, column 4", "border"}},
		{"maze bad header", maze("bad-header.maze"), []string{"bad-header.maze", "line 1", "\"four\" is not an integer"}},
		{"maze empty", maze("empty.maze"), []string{"empty.maze", "line 1", "missing header"}},
		{"maze extra row", maze("extra-row.maze"), []string{"extra-row.maze", "line 6", "extra line"}},
		{"maze too big", []string{"run", "--maze", bigMaze}, []string{"--maze", "big.maze", "4225 states"}},
		{"maze missing file", []string{"run", "--maze", filepath.Join(dir, "nope.maze")}, []string{"--maze", "nope.maze", "no such file"}},
		{"maze is a directory", []string{"run", "--maze", dir}, []string{"--maze", "directory"}},
		{"maze given as model", []string{"plan", "--model", btaiData("1.maze"), "--obs", "0"}, []string{"--model", "1.maze", "invalid JSON"}},
		// Model files.
		{"model A column", plan("bad-a-column.json"), []string{"--model", "bad-a-column.json", "A: column 0 sums to 0.9"}},
		{"model B shape", plan("bad-b-shape.json"), []string{"--model", "bad-b-shape.json", "B[0]: 2 rows, want 3"}},
		{"model negative D", plan("bad-negative-d.json"), []string{"bad-negative-d.json", "D[0]", "negative"}},
		{"model unknown field", plan("bad-unknown-field.json"), []string{"bad-unknown-field.json", `unknown field "gamma"`}},
		{"model missing C", plan("bad-c-missing.json"), []string{"bad-c-missing.json", "C: missing"}},
		{"model truncated", plan("bad-truncated.json"), []string{"bad-truncated.json", "invalid JSON"}},
		{"model wrong type", plan("bad-type.json"), []string{"bad-type.json", "A: cannot use JSON string"}},
		{"model missing file", plan("nope.json"), []string{"--model", "nope.json", "no such file"}},
		{"run model bad", []string{"run", "--model", btaiData("bad-a-column.json")}, []string{"--model", "bad-a-column.json", "A: column 0"}},
		{"plan no model", []string{"plan", "--obs", "0"}, []string{"--model", "missing"}},
		// --obs.
		{"obs missing", []string{"plan", "--model", tiny}, []string{"--obs", "missing", "[0, 2)"}},
		{"obs too big", plan("tiny-pomdp.json", "--obs", "2"), []string{"--obs", "2 out of range [0, 2)"}},
		{"obs negative", plan("tiny-pomdp.json", "--obs", "-3"), []string{"--obs", "-3 out of range"}},
		{"obs impossible", plan("impossible-obs.json", "--obs", "1"), []string{"--obs", "probability 0"}},
		{"obs not a number", plan("tiny-pomdp.json", "--obs", "x"), []string{"-obs", "invalid value"}},
		// Option values, for plan and run.
		{"plan cost", plan("tiny-pomdp.json", "--cost", "risk"), []string{"--cost", `unknown cost "risk"`}},
		{"plan propagation", plan("tiny-pomdp.json", "--propagation", "up"), []string{"--propagation", `"up"`}},
		{"plan inference", plan("tiny-pomdp.json", "--inference", "exact"), []string{"--inference", `"exact"`}},
		{"plan iterations 0", plan("tiny-pomdp.json", "--iterations", "0"), []string{"--iterations", "0, want 1..10000000"}},
		{"plan exploration NaN", plan("tiny-pomdp.json", "--exploration", "NaN"), []string{"--exploration", "NaN"}},
		{"run cost", run1("--cost", "x"), []string{"--cost", `unknown cost "x"`}},
		{"run propagation", run1("--propagation", "x"), []string{"--propagation", `unknown propagation "x"`}},
		{"run inference", run1("--inference", "x"), []string{"--inference", `unknown inference "x"`}},
		{"run selection", run1("--selection", "greedy"), []string{"--selection", `unknown selection "greedy"`, "normalized-uct, unexplored-first, uct or uct-3mf"}},
		{"plan selection", plan("tiny-pomdp.json", "--selection", ""), []string{"--selection", `unknown selection ""`}},
		{"run action-select", run1("--action-select", "greedy"), []string{"--action-select", `"greedy"`}},
		{"run iterations 0", run1("--iterations", "0"), []string{"--iterations", "0, want 1.."}},
		{"run iterations negative", run1("--iterations", "-5"), []string{"--iterations", "-5, want 1.."}},
		{"run iterations too many", run1("--iterations", "10000001"), []string{"--iterations", "10000001"}},
		// 5.maze with --global (a materialized tree): 5M iterations x 5
		// actions x (1024 + 32 x (7 states + 5 observations)) bytes = 35
		// GB, over btaiMaxTreeBytes = 4 GiB.
		{"run global tree too big", run1("--iterations", "5000000", "--global"), []string{"--iterations", "5000000 iterations x 5 actions", "35.2 GB"}},
		// The same with --dot, whose first tree is materialized.
		{"run dot tree too big", run1("--iterations", "5000000", "--dot", filepath.Join(t.TempDir(), "g.dot")), []string{"--iterations", "35.2 GB"}},
		// The compact tree of btai run: 3.5 x 10M x (80 x 5 + 8 x 7) +
		// 19 MiB = 16.0 GB, over 4 GiB (TestBTAITreeBytes: a compact
		// tree admits what a materialized one does not).
		{"run tree too big", run1("--iterations", "10000000"), []string{"--iterations", "10000000 iterations x 5 actions", "16.0 GB"}},
		{"plan tree too big", plan("tiny-pomdp.json", "--iterations", "9000000"), []string{"--iterations", "x 2 actions", "GB"}},
		{"run iterations text", run1("--iterations", "many"), []string{"-iterations", "invalid value \"many\""}},
		// Presets and novelty.
		{"run preset unknown", run1("--preset", "fast"), []string{"--preset", `unknown preset "fast"`, "scale-free, paper, hp"}},
		{"plan preset empty", plan("tiny-pomdp.json", "--preset", ""), []string{"--preset", `unknown preset ""`}},
		{"run novelty scale negative", run1("--novelty", "--novelty-scale", "-1"), []string{"--novelty-scale", "-1, want a number in [0, 1e+06]"}},
		{"run novelty scale NaN", run1("--novelty", "--novelty-scale", "NaN"), []string{"--novelty-scale", "NaN"}},
		{"run novelty scale Inf", run1("--novelty", "--novelty-scale", "+Inf"), []string{"--novelty-scale", "+Inf"}},
		{"run novelty prior 0", run1("--novelty", "--novelty-prior", "0"), []string{"--novelty-prior", "0, want a number in [1e-06, 1e+06]"}},
		{"run novelty prior tiny", run1("--novelty", "--novelty-prior", "1e-300"), []string{"--novelty-prior", "1e-300"}},
		// Conflicting flags: a flag that only makes sense with another.
		{"run novelty scale without novelty", run1("--novelty-scale", "3"), []string{"--novelty-scale", "needs --novelty"}},
		{"run novelty carry without novelty", run1("--novelty-carry"), []string{"--novelty-carry", "needs --novelty"}},
		{"run precision with min-cost", run1("--action-select", "min-cost", "--action-precision", "5"), []string{"--action-precision: applies to --action-select softmax and visits, not min-cost"}},
		{"run precision with most-visited", run1("--action-select", "most-visited", "--action-precision", "5"), []string{"--action-precision: applies to --action-select softmax and visits, not most-visited"}},
		{"run rollout length without rollouts", run1("--rollout-length", "3"), []string{"--rollout-length", "needs --rollouts"}},
		{"run novelty prior with model a", []string{"run", "--model", btaiData("tiny-pomdp-a.json"), "--novelty", "--novelty-prior", "2"}, []string{"--novelty-prior", "concentrations a"}},
		{"plan novelty carry with model a", plan("tiny-pomdp-a.json", "--novelty", "--novelty-carry"), []string{"--novelty-carry", "concentrations a"}},
		{"run global with predictive", run1("--global", "--inference", "predictive"), []string{"--global", "--inference predictive"}},
		{"run steps 0", run1("--steps", "0"), []string{"--steps", "0, want 1..1000000"}},
		{"run steps negative", run1("--steps", "-1"), []string{"--steps", "-1"}},
		{"run episodes 0", run1("--episodes", "0"), []string{"--episodes", "0, want 1..100000"}},
		{"run episodes negative", run1("--episodes", "-2"), []string{"--episodes", "-2"}},
		{"run precision NaN", run1("--action-select", "softmax", "--action-precision", "NaN"), []string{"--action-precision", "NaN", "finite"}},
		{"run precision Inf", run1("--action-select", "softmax", "--action-precision", "+Inf"), []string{"--action-precision", "+Inf"}},
		{"run precision negative", run1("--action-select", "softmax", "--action-precision", "-1"), []string{"--action-precision", "-1"}},
		{"run exploration negative", run1("--exploration", "-1"), []string{"--exploration", "-1"}},
		{"run rollouts negative", run1("--rollouts", "-1"), []string{"--rollouts", "-1"}},
		{"run rollout length 0", run1("--rollouts", "2", "--rollout-length", "0"), []string{"--rollout-length", "0"}},
		{"run window 1", run1("--window", "1"), []string{"--window", "1"}},
		{"run noise 1", run1("--noise", "1"), []string{"--noise", "[0, 1)"}},
		{"run noise NaN", run1("--noise", "NaN"), []string{"--noise", "NaN"}},
		{"run pref Inf", run1("--pref-precision", "Inf"), []string{"--pref-precision", "+Inf"}},
		{"run noise with model", []string{"run", "--model", tiny, "--noise", "0.2"}, []string{"--noise", "--maze only"}},
		{"run seed negative", run1("--seed", "-1"), []string{"-seed", "invalid value \"-1\""}},
		{"run both maze and model", []string{"run", "--maze", btaiData("5.maze"), "--model", tiny}, []string{"exactly one of --maze", "--model"}},
		{"run neither", []string{"run", "--steps", "3"}, []string{"exactly one of --maze", "--model"}},
		{"run unknown flag", run1("--horizon", "3"), []string{"-horizon", "not defined"}},
		{"run positional", append(run1(), "extra.maze"), []string{"unexpected argument \"extra.maze\""}},
		{"plan positional", plan("tiny-pomdp.json", "m.json"), []string{"unexpected argument \"m.json\""}},
		{"run dot unwritable", run1("--dot", filepath.Join(dir, "no", "such", "dir", "g.dot")), []string{"--dot", "g.dot", "cannot create"}},
		{"plan dot unwritable", plan("tiny-pomdp.json", "--dot", filepath.Join(dir, "none", "g.dot")), []string{"--dot", "g.dot", "cannot create"}},
		{"no subcommand", nil, []string{"want a subcommand"}},
		{"unknown subcommand", []string{"walk"}, []string{`unknown subcommand "walk"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := btaiRun(t, c.args...)
			if code != 2 {
				t.Errorf("exit status %d, want 2 (stderr %q)", code, errs)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			// The prefix names the subcommand when there is one
			// ("arbor btai plan: ", "arbor btai run: "), as for aci.
			prefix := "arbor btai: "
			if len(c.args) > 0 && (c.args[0] == "plan" || c.args[0] == "run") {
				prefix = "arbor btai " + c.args[0] + ": "
			}
			if strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, "\n") || !strings.HasPrefix(errs, prefix) {
				t.Fatalf("stderr %q, want one line starting %q", errs, prefix)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q does not contain %q", errs, w)
				}
			}
		})
	}
}

// TestBTAIFlagsAnywhere: flags may come before or after the subcommand's
// other flags, in any order, and -h prints the usage with exit status 0.
func TestBTAIFlagsAnywhere(t *testing.T) {
	a := btaiMustRun(t, "plan", "--json", "--iterations", "4", "--obs", "1", "--model", btaiData("tiny-pomdp.json"), "--inference", "predictive")
	b := btaiMustRun(t, "plan", "--model", btaiData("tiny-pomdp.json"), "--inference", "predictive", "--obs", "1", "--iterations", "4", "--json")
	if a != b {
		t.Errorf("flag order changed the output:\n%s\n%s", a, b)
	}
	for _, sub := range []string{"plan", "run"} {
		out := btaiMustRun(t, sub, "-h")
		if !strings.HasPrefix(out, "usage: arbor btai "+sub) || !strings.Contains(out, "-iterations") {
			t.Errorf("%s -h: %q", sub, out)
		}
	}
}

// TestBTAIRunModelDeterministicB: a valid model with deterministic
// transitions (hard zeros in B) runs in both modes. Mean-field inference
// takes logarithms of B; the agent floors B at e^-32 for that (btai
// TestDeterministicB checks the beliefs against exact filtering), so the
// command succeeds and prints the provenance line, one JSON line per
// episode and the summary.
func TestBTAIRunModelDeterministicB(t *testing.T) {
	for _, inf := range []string{"vmp", "predictive"} {
		code, out, errs := btaiRun(t, "run", "--model", btaiData("deterministic-b.json"), "--iterations", "4", "--steps", "4", "--inference", inf, "--json")
		if code != 0 || errs != "" {
			t.Errorf("%s: exit %d with stderr %q, want 0 and nothing", inf, code, errs)
			continue
		}
		if n := strings.Count(out, "\n"); n != 3 || len(runJSONLines(t, out)) != 2 {
			t.Errorf("%s: %d output lines, want 3 (the provenance, one episode, the summary):\n%s", inf, n, out)
		}
	}
}

// FuzzBTAIPlanModel feeds arbitrary model files to `arbor btai plan`: it
// must never panic, a failure is exactly one line on stderr, and a success
// is one line of JSON.
func FuzzBTAIPlanModel(f *testing.F) {
	for _, name := range []string{"tiny-pomdp.json", "zero-preference.json", "deterministic-b.json", "impossible-obs.json", "bad-a-column.json", "bad-b-shape.json"} {
		data, err := os.ReadFile(btaiData(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0), false)
	}
	f.Add([]byte(`{"A":[[1]],"B":[[[1]]],"C":[1],"D":[1]}`), uint8(0), true)
	f.Add([]byte(`{"a":[[1,2],[3,4]],"B":[[[1,0],[0,1]]],"C":[0.5,0.5],"d":[1,1]}`), uint8(1), true)
	f.Fuzz(func(t *testing.T, data []byte, obs uint8, predictive bool) {
		if len(data) > 4096 {
			return
		}
		path := filepath.Join(t.TempDir(), "m.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		inf := "vmp"
		if predictive {
			inf = "predictive"
		}
		code, out, errs := btaiRun(t, "plan", "--model", path, "--obs", strconv.Itoa(int(obs%4)), "--iterations", "3", "--inference", inf, "--json")
		if code != 0 {
			if strings.Count(errs, "\n") != 1 || out != "" {
				t.Fatalf("exit %d: stdout %q, stderr %q: want one stderr line only", code, out, errs)
			}
			return
		}
		var p map[string]any // q_s is a vector, or keyed for a factorised file
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("exit 0 but invalid JSON %q: %v", out, err)
		}
	})
}

// FuzzFactorisedCLI: any factorised file and --obs text given to aci eval
// and btai plan exits 0 with JSON, or 2 with one stderr line, never a
// panic.
func FuzzFactorisedCLI(f *testing.F) {
	tmaze, err := os.ReadFile(filepath.Join("..", "..", "examples", "pomdp", "tmaze.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tmaze, "0,0,0", false)
	f.Add(tmaze, "1,2,0", true)
	f.Add(tmaze, "0,0", false)
	f.Add([]byte(`{"factors": [{"name": "x", "controls": ["a", "b"], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "D": [0.5, 0.5]},
	  {"name": "y", "B": [[[0.9, 0.2], [0.1, 0.8]]], "D": [0.5, 0.5]}],
	  "modalities": [{"name": "o", "depends_on": ["y", "x"], "A": [[[0.9, 0.5], [0.5, 0.1]], [[0.1, 0.5], [0.5, 0.9]]], "log_C": [0, -3]},
	  {"name": "p", "depends_on": ["x"], "A": [[1, 0], [0, 1]]}]}`), "1,0", true)
	f.Fuzz(func(t *testing.T, data []byte, obs string, predictive bool) {
		if len(data) > 8192 || len(obs) > 64 {
			return
		}
		path := filepath.Join(t.TempDir(), "m.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		inf := "vmp"
		if predictive {
			inf = "predictive"
		}
		for _, args := range [][]string{
			{"aci", "eval", "--model", path, "--obs", obs, "--horizon", "2", "--json", "--max-minutes", "0.01"},
			{"btai", "plan", "--model", path, "--obs", obs, "--iterations", "4", "--inference", inf, "--json", "--max-minutes", "0.01"},
		} {
			var out, errb bytes.Buffer
			code := run(args, &out, &errb)
			if code != 0 {
				if code != 2 || strings.Count(errb.String(), "\n") != 1 || out.Len() != 0 {
					t.Fatalf("%s: exit %d: stdout %q, stderr %q: want 2 and one stderr line only", args[0], code, out.String(), errb.String())
				}
				continue
			}
			var p map[string]any
			if err := json.Unmarshal(out.Bytes(), &p); err != nil {
				t.Fatalf("%s: exit 0 but invalid JSON %q: %v", args[0], out.String(), err)
			}
		}
	})
}

// BenchmarkBTAIRunMaze measures the command line end to end on 1.maze
// (the README command with 10 steps): parsing, model building, 10 x 100
// planning iterations and the output.
func BenchmarkBTAIRunMaze(b *testing.B) {
	file := filepath.Join("..", "..", "examples", "mazes", "1.maze")
	b.ReportAllocs()
	for b.Loop() {
		var out, errb bytes.Buffer
		if code := run([]string{"btai", "run", "--maze", file, "--steps", "10", "--json"}, &out, &errb); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}

// TestBTAIPlanRollouts: with N roll-outs of length K (paper Algorithm 1) a
// node's local cost is g_I plus the average of K more classic costs along
// random actions. Each classic cost lies in [0, -ln min C + max_s H[A(.|s)]]
// (KL[q || C] <= -ln min C, and the ambiguity is an average of the
// entropies), so the local cost lies in [g_I, g_I + K x that bound], g_I
// being the brute-force cost of the node's own prediction.
func TestBTAIPlanRollouts(t *testing.T) {
	m := btaiReadPOMDP(t, btaiData("tiny-pomdp.json"))
	const k = 3
	out := btaiMustRun(t, "plan", "--model", btaiData("tiny-pomdp.json"), "--obs", "0", "--iterations", "8",
		"--inference", "predictive", "--propagation", "forward", "--rollouts", "4", "--rollout-length", strconv.Itoa(k), "--json")
	p := btaiDecodePlan(t, out)
	bound := math.Inf(-1)
	for s := range m.ns() {
		h := 0.0
		for o := range m.no() {
			h -= m.A[o][s] * math.Log(m.A[o][s])
		}
		bound = math.Max(bound, h)
	}
	bound += -math.Log(slices.Min(m.C))
	q0 := btaiPosterior(m, 0)
	above := 0
	for _, n := range p.Nodes {
		q := q0
		for _, u := range n.Path {
			q = btaiPredict(m, u, q)
		}
		g := btaiCost(m, "classic", q, btaiObs(m, q))
		if *n.Local < g-1e-9 || *n.Local > g+k*bound+1e-9 {
			t.Errorf("node %v local cost %v outside [%v, %v]", n.Path, *n.Local, g, g+k*bound)
		}
		if *n.Local > g+1e-9 {
			above++
		}
	}
	if above == 0 {
		t.Errorf("no node's cost includes roll-outs")
	}
	btaiCheckPropagation(t, p, "forward", m.nu(), 8)
}

// TestBTAIPlanGlobal: --global runs inference on the whole graph after
// each expansion; the output keeps its schema, its posteriors are
// distributions and the propagation rules hold.
func TestBTAIPlanGlobal(t *testing.T) {
	m := btaiReadPOMDP(t, btaiData("tiny-pomdp.json"))
	out := btaiMustRun(t, "plan", "--model", btaiData("tiny-pomdp.json"), "--obs", "1", "--iterations", "6", "--global", "--json")
	p := btaiDecodePlan(t, out)
	for _, n := range p.Nodes {
		btaiCheckDistribution(t, fmt.Sprintf("node %v q_s", n.Path), n.QS, m.ns())
		btaiCheckDistribution(t, fmt.Sprintf("node %v q_o", n.Path), n.QO, m.no())
	}
	btaiCheckPropagation(t, p, "min-backward", m.nu(), 6)
}

// TestBTAITreeBytes checks the --iterations guard's estimates
// (btai.TreeBytes): the compact
// one bounds the peak RSS measured for btai run on 1.maze, and the compact
// tree admits iteration counts a materialized one refuses.
func TestBTAITreeBytes(t *testing.T) {
	_, maze1, err := loadMazeModel(btaiData("1.maze"), envs.DefaultNoise, envs.DefaultPrefPrecision)
	if err != nil {
		t.Fatal(err)
	}
	// Peak RSS of `arbor btai run --maze 1.maze --iterations N --steps 1`
	// (/usr/bin/time -v, single runs on the 2-core CI machine; the highest
	// of the repeated runs).
	for _, m := range []struct {
		iterations int
		peak       float64 // bytes
	}{{100_000, 64e6}, {300_000, 0.42e9}, {1_000_000, 1.65e9}, {2_000_000, 2.85e9}, {2_950_000, 4.41e9}} {
		if est := btai.TreeBytes(m.iterations, maze1.NumStates(), maze1.NumObs(), maze1.NumActions(), false); est < m.peak {
			t.Errorf("%d iterations: estimate %.2f GB below the measured peak %.2f GB", m.iterations, est/1e9, m.peak/1e9)
		}
	}
	// The materialized estimate against its measurement: 100,000
	// iterations, 1.15 GB peak.
	if est := btai.TreeBytes(100_000, maze1.NumStates(), maze1.NumObs(), maze1.NumActions(), true); est < 1.15e9*0.85 || est > 1.15e9*1.5 {
		t.Errorf("materialized, 100,000 iterations: estimate %.2f GB, measured 1.15 GB", est/1e9)
	}
	m, err := loadPOMDP(btaiData("tiny-pomdp.json"))
	if err != nil {
		t.Fatal(err)
	}
	// tiny-pomdp (3 states, 2 observations, 2 actions): 5M iterations
	// would be 5M x 2 x 1.18 KB = 11.8 GB materialized, refused; compact
	// 3.5 x 5M x (160 + 24) + 19 MiB = 3.24 GB, admitted.
	if err := btai.CheckTree(5_000_000, m, true); err == nil {
		t.Error("5M iterations materialized: admitted, want refused")
	}
	if err := btai.CheckTree(5_000_000, m, false); err != nil {
		t.Errorf("5M iterations compact: %v", err)
	}
}

// TestBTAIRunSeedsMatchLibrary: episode i of `--seed k` is seed k+i-1 of
// the library's tables (one episode of agent.RunEpisode with that seed),
// so every success table reproduces from the command line. At
// action precision 1 the sampling, and so the seed, decides the actions.
func TestBTAIRunSeedsMatchLibrary(t *testing.T) {
	for _, preset := range []string{"paper", "hp", "scale-free"} {
		args := []string{"run", "--maze", btaiData("1.maze"), "--preset", preset, "--iterations", "30",
			"--action-select", "softmax", "--action-precision", "1", "--steps", "12", "--episodes", "3", "--seed", "4", "--json"}
		eps, _ := btaiDecodeRun(t, btaiMustRun(t, args...), 3, true)
		mz, m, err := loadMazeModel(btaiData("1.maze"), envs.DefaultNoise, envs.DefaultPrefPrecision)
		if err != nil {
			t.Fatal(err)
		}
		o, err := btai.PresetByName(preset)
		if err != nil {
			t.Fatal(err)
		}
		one := 1.0
		o.Iterations, o.ActionSelection, o.ActionPrecision = 30, btai.Softmax, &one
		distinct := map[string]bool{}
		for i, ep := range eps {
			ag, err := btai.NewAgent(m, &o, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := agent.RunEpisode(context.Background(), ag, mz, &agent.EpisodeSettings{MaxSteps: 12, Seed: 4 + uint64(i)})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ep.Actions, want.Actions()) || !slices.Equal(ep.Observations, want.Observations()) {
				t.Errorf("%s: episode %d: actions %v, library seed %d gives %v", preset, i+1, ep.Actions, 4+i, want.Actions())
			}
			distinct[fmt.Sprint(ep.Actions)] = true
		}
		if len(distinct) < 2 {
			t.Errorf("%s: three episodes took the same actions: the seed does not reach them", preset)
		}
	}
}

// TestBTAIHelpRequiredFlags: a required flag shows no default in -h (the
// plan's --obs once read "(default -1)"), and every help text names the
// presets.
func TestBTAIHelpRequiredFlags(t *testing.T) {
	for _, sub := range []string{"plan", "run"} {
		out := btaiMustRun(t, sub, "-h")
		if strings.Contains(out, "(default -1)") {
			t.Errorf("btai %s -h shows a default of -1:\n%s", sub, out)
		}
		if !strings.Contains(out, "scale-free, paper, hp") {
			t.Errorf("btai %s -h does not list the presets:\n%s", sub, out)
		}
	}
	out := btaiMustRun(t, "plan", "-h")
	_, obs, _ := strings.Cut(out, "  -obs string\n")
	if line, _, _ := strings.Cut(obs, "\n"); !strings.HasSuffix(line, "(required)") {
		t.Errorf("--obs help %q, want no default after (required)", line)
	}
}

// TestLogCFileMatchesC: the tiny POMDP with its C written as
// log-preferences (log_C = ln C + 2: an additive constant does not matter)
// gives the same aci eval and btai plan numbers as with C, to 1e-12
// (softmax(ln C + 2) is C up to rounding).
func TestLogCFileMatchesC(t *testing.T) {
	for _, args := range [][]string{
		{"aci", "eval", "--obs", "1", "--horizon", "2", "--json", "--model"},
		{"btai", "plan", "--obs", "1", "--iterations", "20", "--json", "--model"},
	} {
		out := func(file string) map[string]any {
			var stdout, stderr bytes.Buffer
			if code := run(append(slices.Clone(args), btaiData(file)), &stdout, &stderr); code != 0 {
				t.Fatalf("%v %s: exit %d, %s", args, file, code, stderr.String())
			}
			var v map[string]any
			if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
				t.Fatal(err)
			}
			return v
		}
		c, logc := out("tiny-pomdp.json"), out("tiny-pomdp-logc.json")
		if d := cmp.Diff(c, logc, cmpopts.EquateApprox(0, 1e-12)); d != "" {
			t.Errorf("%v: log_C differs from C (-C +log_C):\n%s", args[:2], d)
		}
	}
}

// TestBTAIRunConcentrations: a model with concentrations a learns A; run
// --json prints, per episode, the concentrations learned so far in the
// layout of the file (a[o][s]). Each observation adds the mass of one
// posterior Q(S_t) to a: the prior sums to 8.5 (tiny-pomdp-a.json), so after
// an episode of 3 steps (4 observations) a sums to 12.5, after two to 16.5.
// A model without a, b, d prints no concentrations (TestBTAIRunModel).
func TestBTAIRunConcentrations(t *testing.T) {
	out := btaiMustRun(t, "run", "--model", btaiData("tiny-pomdp-a.json"), "--iterations", "10", "--steps", "3", "--episodes", "2", "--json")
	lines := runJSONLines(t, out)
	for e, want := range []float64{12.5, 16.5} {
		var ep struct {
			Concentrations struct {
				A [][]float64 `json:"a"`
				B any         `json:"b"`
			} `json:"concentrations"`
		}
		if err := json.Unmarshal([]byte(lines[e]), &ep); err != nil {
			t.Fatal(err)
		}
		a := ep.Concentrations.A
		if len(a) != 2 || len(a[0]) != 3 || ep.Concentrations.B != nil {
			t.Fatalf("episode %d: concentrations %s, want a of 2 x 3 and no b", e+1, lines[e])
		}
		sum := 0.0
		for _, row := range a {
			for _, x := range row {
				sum += x
			}
		}
		if math.Abs(sum-want) > 1e-9 {
			t.Errorf("episode %d: a sums to %v, want %v", e+1, sum, want)
		}
	}
}

// TestBTAIRunJobsIdentical: --jobs runs episodes in parallel, each with its
// own agent, environment and random stream, and writes them in order: the
// output is byte for byte that of --jobs 1 but for the timing figures (and
// the provenance line, which names --jobs), for a maze and for a --model
// run, human and JSON.
func TestBTAIRunJobsIdentical(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--maze", btaiData("1.maze"), "--preset", "paper", "--action-precision", "1", "--steps", "12", "--episodes", "20", "--seed", "3"},
		{"run", "--model", btaiData("tiny-pomdp.json"), "--iterations", "20", "--steps", "10", "--episodes", "20"},
		{"run", "--model", btaiData("tiny-pomdp-a.json"), "--iterations", "20", "--steps", "5", "--episodes", "6"},
	} {
		for _, format := range [][]string{nil, {"--json"}} {
			a := append(slices.Clone(args), format...)
			get := func(jobs string) string {
				out := btaiMustRun(t, append(a, "--jobs", jobs)...)
				if format != nil {
					out = strings.Join(runJSONLines(t, out), "\n")
				}
				return btaiMaskTiming(out)
			}
			one := get("1")
			for _, j := range []string{"2", "3"} {
				if got := get(j); got != one {
					t.Errorf("%v: --jobs %s differs from --jobs 1:\n%s\n---\n%s", a, j, got, one)
				}
			}
		}
	}
	if code, _, errs := btaiRun(t, "run", "--maze", btaiData("5.maze"), "--jobs", "0"); code != 2 || !strings.Contains(errs, "--jobs: 0, want 1..1024") {
		t.Errorf("--jobs 0: exit %d, stderr %q", code, errs)
	}
}

// TestReadmeMainOutput: the output the README shows for its main command is
// what the command prints, line for line, but for the planning rate.
func TestReadmeMainOutput(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "$ go run ./cmd/arbor btai run --maze examples/mazes/1.maze\n")
	if !ok {
		t.Fatal("README.md shows no output of its main command")
	}
	block, _, _ = strings.Cut(block, "```")
	got := btaiMustRun(t, "run", "--maze", filepath.Join("..", "..", "examples", "mazes", "1.maze"))
	if d := cmp.Diff(btaiMaskTiming(block), btaiMaskTiming(got)); d != "" {
		t.Errorf("README output differs from the command's (-README +command):\n%s", d)
	}
}

// TestBTAIMaxMinutes: planning whose step is estimated above --max-minutes
// is refused with one line naming the flag, the count and the estimate;
// below it runs; a bad value is refused.
func TestBTAIMaxMinutes(t *testing.T) {
	maze := filepath.Join("..", "..", "examples", "mazes", "1.maze")
	for _, c := range []struct {
		args []string
		want []string
	}{
		// 1.maze's ln B̄_u is sparse (btai.EstimatePlanSeconds): 100,000
		// iterations × 5 nodes × (2 ns × 22 × 10 + 200 ns × (22 + 10) +
		// 600 ns) ≈ 3.7 s, and a set-up of 5 × 22² × (10 + 50) ns.
		{[]string{"run", "--maze", maze, "--iterations", "100000", "--max-minutes", "0.01"}, []string{"--iterations 100000", "5 actions", "3.7 s per planning step", "22 states and 10 observations", "--max-minutes 0.01"}},
		{[]string{"plan", "--model", btaiData("tiny-pomdp.json"), "--obs", "0", "--max-minutes", "0"}, []string{"--max-minutes: 0"}},
		{[]string{"plan", "--model", btaiData("tiny-pomdp.json"), "--obs", "0", "--max-minutes", "NaN"}, []string{"--max-minutes: NaN"}},
	} {
		code, out, errs := btaiRun(t, c.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want 2 and one line", c.args, code, out, errs)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, errs, w)
			}
		}
	}
	btaiMustRun(t, "plan", "--model", btaiData("tiny-pomdp.json"), "--obs", "0", "--iterations", "50", "--max-minutes", "0.01")
}

// TestBTAITrialSteps: --trial-steps N plans no deeper than the steps left.
// On tiny-pomdp.json (2 actions) at t = 0 with N = 2 the tree is complete
// after 1 + 2 = 3 expansions, 2 + 4 = 6 nodes below the root, whatever
// --iterations asks; the settings line and the run's JSON settings state
// it, and a negative N is refused naming the flag.
func TestBTAITrialSteps(t *testing.T) {
	args := []string{"plan", "--model", btaiData("tiny-pomdp.json"), "--obs", "1", "--iterations", "50", "--inference", "predictive", "--trial-steps", "2"}
	out := btaiMustRun(t, args...)
	if !strings.Contains(out, ", trial steps 2 (depth at most the steps left),") || !strings.Contains(out, "planned 3 iterations (classic cost, min-backward propagation, predictive inference): 6 nodes\n") {
		t.Errorf("plan output:\n%s", out)
	}
	p := btaiDecodePlan(t, btaiMustRun(t, append(args, "--json")...))
	for _, n := range p.Nodes {
		if len(n.Path) > 2 {
			t.Errorf("node %v deeper than 2", n.Path)
		}
	}
	if len(p.Nodes) != 6 {
		t.Errorf("%d nodes, want 6", len(p.Nodes))
	}
	lines := strings.Split(strings.TrimSpace(btaiMustRun(t, "run", "--model", btaiData("tiny-pomdp.json"), "--iterations", "20", "--steps", "3", "--trial-steps", "3", "--json")), "\n")
	var sum struct {
		Settings map[string]any `json:"settings"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	if got := sum.Settings["trial_steps"]; got != 3.0 {
		t.Errorf("settings trial_steps %v, want 3", got)
	}
	code, _, errs := btaiRun(t, "run", "--maze", btaiData("5.maze"), "--trial-steps", "-1")
	if code != 2 || !strings.Contains(errs, "--trial-steps: -1") || strings.Count(errs, "\n") != 1 {
		t.Errorf("--trial-steps -1: exit %d, stderr %q", code, errs)
	}
}
