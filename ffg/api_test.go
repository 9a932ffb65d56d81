package ffg_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/messages"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// TestAppendixC is the worked example of paper Appendix C: P(S|D) = Cat(D),
// P(D) = Dir(d) with S observed; the posterior is Dir(d + D̂) where D̂ is
// the one-hot observation.
func TestAppendixC(t *testing.T) {
	g := ffg.New()
	d, _ := g.AddVariable("D", expfam.DirichletFamily, 3)
	s, _ := g.AddVariable("S", expfam.CategoricalFamily, 3)
	prior, _ := nodes.NewDirichlet([]float64{2, 0.5, 1}, []int{3})
	cat, _ := nodes.NewCategoricalDirichlet(3)
	if _, err := g.AddFactor("", prior, d); err != nil {
		t.Fatal(err)
	}
	if _, err := g.AddFactor("", cat, s, d); err != nil {
		t.Fatal(err)
	}
	if err := s.Observe(1); err != nil {
		t.Fatal(err)
	}
	if err := g.Update(d); err != nil {
		t.Fatal(err)
	}
	want := []float64{2, 1.5, 1} // d + one-hot(1)
	for i, a := range d.Alpha() {
		if math.Abs(a-want[i]) > 1e-12 {
			t.Fatalf("alpha = %v, want %v", d.Alpha(), want)
		}
	}
}

// TestLearningA checks Dirichlet learning of A with observed states:
// â = a + sum over tau of o_tau ⊗ s_tau (paper section 6.2), summed by hand.
func TestLearningA(t *testing.T) {
	g := ffg.New()
	a, _ := g.AddVariable("A", expfam.DirichletFamily, 2, 3)
	alpha := []float64{1, 1, 1, 1, 1, 1}
	prior, _ := nodes.NewDirichlet(alpha, []int{2, 3})
	if _, err := g.AddFactor("", prior, a); err != nil {
		t.Fatal(err)
	}
	// (o, s) pairs: (0,0), (1,2), (0,2), (0,0)
	pairs := [][2]int{{0, 0}, {1, 2}, {0, 2}, {0, 0}}
	for _, p := range pairs {
		o, _ := g.AddVariable("", expfam.CategoricalFamily, 2)
		s, _ := g.AddVariable("", expfam.CategoricalFamily, 3)
		_ = o.Observe(p[0])
		_ = s.Observe(p[1])
		tr, _ := nodes.NewTransitionDirichlet([]int{2, 3})
		if _, err := g.AddFactor("", tr, o, s, a); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := schedule.Run(context.Background(), g, nil); err != nil {
		t.Fatal(err)
	}
	// counts: A[0][0] += 2, A[1][2] += 1, A[0][2] += 1
	want := []float64{3, 1, 2, 1, 1, 2}
	for i, x := range a.Alpha() {
		if math.Abs(x-want[i]) > 1e-12 {
			t.Fatalf("alpha = %v, want %v", a.Alpha(), want)
		}
	}
}

func TestBindingErrors(t *testing.T) {
	g := ffg.New()
	s, _ := g.AddVariable("s", expfam.CategoricalFamily, 3)
	o, _ := g.AddVariable("o", expfam.CategoricalFamily, 2)
	th, _ := g.AddVariable("theta", expfam.DirichletFamily, 3)
	other := ffg.New()
	x, _ := other.AddVariable("x", expfam.CategoricalFamily, 3)
	tr, _ := nodes.NewTransition([]float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, []int{2, 3})
	cat, _ := nodes.NewCategorical([]float64{0.2, 0.3, 0.5})
	for _, tc := range []struct {
		name string
		f    ffg.Factor
		vars []*ffg.Variable
		want string
	}{
		{"count", tr, []*ffg.Variable{o}, "1 variables for 2 interfaces"},
		{"shape", tr, []*ffg.Variable{s, s}, `interface "out" wants shape [2]`},
		{"family", cat, []*ffg.Variable{th}, "wants a categorical variable"},
		{"graph", cat, []*ffg.Variable{x}, "belongs to another graph"},
		{"twice", tr, []*ffg.Variable{o, o}, `interface "in" wants shape [3]`},
	} {
		_, err := g.AddFactor("f", tc.f, tc.vars...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	if _, err := g.AddVariable("s", expfam.CategoricalFamily, 2); err == nil || !strings.Contains(err.Error(), `duplicate variable name "s"`) {
		t.Errorf("duplicate name: %v", err)
	}
	if err := s.Observe(3); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("observe out of range: %v", err)
	}
	if err := th.Observe(0); err == nil {
		t.Error("observing a dirichlet variable succeeded")
	}
}

// energyOnly is a factor without message rules.
type energyOnly struct{}

func (energyOnly) Kind() string { return "mystery" }
func (energyOnly) Interfaces() []messages.Interface {
	return []messages.Interface{{Name: "out", Family: expfam.CategoricalFamily, Shape: []int{2}}}
}
func (energyOnly) AverageEnergy([][]float64) float64 { return 0 }
func (energyOnly) Rules() []string                   { return nil }

func TestNoRuleErrorNamesFactorAndInterface(t *testing.T) {
	g := ffg.New()
	s, _ := g.AddVariable("s", expfam.CategoricalFamily, 2)
	if _, err := g.AddFactor("m", energyOnly{}, s); err != nil {
		t.Fatal(err)
	}
	err := g.Update(s)
	var nr *messages.NoRuleError
	if !errors.As(err, &nr) {
		t.Fatalf("got %v, want a NoRuleError", err)
	}
	if want := `no message rule for factor mystery "m" on interface "out" (rules exist for: none)`; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}

func TestContradictionIsNaNError(t *testing.T) {
	// Two hard observations of o through deterministic matrices that
	// disagree about s: every state of s has probability 0.
	g := ffg.New()
	s, _ := g.AddVariable("s", expfam.CategoricalFamily, 2)
	o1, _ := g.AddVariable("o1", expfam.CategoricalFamily, 2)
	o2, _ := g.AddVariable("o2", expfam.CategoricalFamily, 2)
	id, _ := nodes.NewTransition([]float64{1, 0, 0, 1}, []int{2, 2})
	swap, _ := nodes.NewTransition([]float64{0, 1, 1, 0}, []int{2, 2})
	_, _ = g.AddFactor("", id, o1, s)
	_, _ = g.AddFactor("", swap, o2, s)
	_ = o1.Observe(0) // s = 0
	_ = o2.Observe(0) // s = 1
	_, err := schedule.Run(context.Background(), g, nil)
	var ne *ffg.NaNError
	if !errors.As(err, &ne) || ne.Variable != `"s"` {
		t.Fatalf("got %v, want a NaNError naming s", err)
	}
}

func dotGraph(t *testing.T) *ffg.Graph {
	g := ffg.New()
	th, _ := g.AddVariable("theta", expfam.DirichletFamily, 2)
	s, _ := g.AddVariable("s", expfam.CategoricalFamily, 2)
	o, _ := g.AddVariable("o", expfam.CategoricalFamily, 2)
	_ = o.Observe(1)
	s.Cluster = "t=0"
	o.Cluster = "t=0"
	// A second time step whose transition matrix B is Dirichlet-distributed,
	// so that the "matrix" interface appears on an edge.
	bm, _ := g.AddVariable("B", expfam.DirichletFamily, 2, 2)
	s1, _ := g.AddVariable("s1", expfam.CategoricalFamily, 2)
	s1.Cluster = "t=1"
	prior, _ := nodes.NewDirichlet([]float64{1, 1}, []int{2})
	cat, _ := nodes.NewCategoricalDirichlet(2)
	tr, _ := nodes.NewTransition([]float64{0.9, 0.2, 0.1, 0.8}, []int{2, 2})
	bprior, _ := nodes.NewDirichlet([]float64{1, 1, 1, 1}, []int{2, 2})
	btr, _ := nodes.NewTransitionDirichlet([]int{2, 2})
	for _, b := range []struct {
		f    ffg.Factor
		vars []*ffg.Variable
	}{{prior, []*ffg.Variable{th}}, {cat, []*ffg.Variable{s, th}}, {tr, []*ffg.Variable{o, s}},
		{bprior, []*ffg.Variable{bm}}, {btr, []*ffg.Variable{s1, s, bm}}} {
		if _, err := g.AddFactor("", b.f, b.vars...); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func TestWriteDOT(t *testing.T) {
	var a, b bytes.Buffer
	opts := DOTOptionsForTest()
	if err := dotGraph(t).WriteDOTWith(&a, opts); err != nil {
		t.Fatal(err)
	}
	if err := dotGraph(t).WriteDOTWith(&b, opts); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatal("DOT output is not deterministic")
	}
	out := a.String()
	for _, want := range []string{
		`shape="circle"`, `fillcolor="gray"`, `style="filled"`, `shape="box"`,
		`label="t=0"`, `label="t=1"`, "subgraph cluster_",
		// Derived factor labels, Greek letters and subscripts.
		`label="Cat(θ)"`, `label="P(o | s)"`, `label="Cat(B)"`, `label="p(B)"`, `label="θ"`, `label="s₁"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("DOT output lacks %s:\n%s", want, out)
		}
	}
	for _, kind := range []string{`label="transition"`, `label="categorical"`, `label="dirichlet"`} {
		if strings.Contains(out, kind) {
			t.Errorf("DOT output labels a factor by its kind, %s", kind)
		}
	}
	// Every edge in the generative direction, with its interface name at
	// the factor's end: inputs to the factor, the factor to its output.
	want := []string{
		"B -> Cat(B): matrix", "Cat(B) -> s₁: out", "Cat(θ) -> s: out",
		"P(o | s) -> o: out", "p(B) -> B: out", "p(θ) -> θ: out",
		"s -> Cat(B): in", "s -> P(o | s): in", "θ -> Cat(θ): p",
	}
	got := dotEdges(t, out)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DOT edges mismatch (-want +got):\n%s\n%s", diff, out)
	}
	var plain bytes.Buffer
	if err := dotGraph(t).WriteDOT(&plain); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "taillabel") || strings.Contains(plain.String(), "headlabel") {
		t.Error("edge labels without EdgeLabels")
	}
	for _, line := range strings.Split(out, "\n") {
		if line != "" && strings.TrimSpace(line) == "" {
			t.Error("DOT output has a whitespace-only line")
		}
	}
	dot, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("Graphviz dot not installed in CI")
		}
		t.Skip("Graphviz dot not installed")
	}
	for _, text := range []string{out, plain.String()} {
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = strings.NewReader(text)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("dot failed: %v\n%s", err, msg)
		}
	}
}

// DOTOptionsForTest asks for edge labels, which the edge checks read.
func DOTOptionsForTest() ffg.DOTOptions { return ffg.DOTOptions{EdgeLabels: true} }

// TestPrettyName: Greek names become letters, trailing numbers and
// underscore suffixes subscripts; other names are unchanged.
func TestPrettyName(t *testing.T) {
	for in, want := range map[string]string{
		"s0": "s₀", "S_0": "S₀", "S_12": "S₁₂", "gamma": "γ", "theta1": "θ₁", "pi": "π",
		"B": "B", "o": "o", "42": "42", "alpha_3": "α₃", "Gamma": "Γ", "location": "location",
	} {
		if got := ffg.PrettyName(in); got != want {
			t.Errorf("PrettyName(%q) = %q, want %q", in, got, want)
		}
	}
}

// dotEdges lists the edges of DOT text written by WriteDOT as
// "tail label -> head label: taillabel", resolving node ids to labels.
func dotEdges(t *testing.T, out string) []string {
	t.Helper()
	nodeRe := regexp.MustCompile(`^\s*(n\d+)\[.*\blabel="([^"]*)"`)
	edgeRe := regexp.MustCompile(`^\s*(n\d+)->(n\d+)\[.*\b(?:taillabel|headlabel)="([^"]+)"`)
	labels := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if m := nodeRe.FindStringSubmatch(line); m != nil {
			labels[m[1]] = m[2]
		}
	}
	var edges []string
	for _, line := range strings.Split(out, "\n") {
		m := edgeRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		from, ok1 := labels[m[1]]
		to, ok2 := labels[m[2]]
		if !ok1 || !ok2 {
			t.Fatalf("edge %q between undeclared nodes", line)
		}
		edges = append(edges, fmt.Sprintf("%s -> %s: %s", from, to, m[3]))
	}
	return edges
}
