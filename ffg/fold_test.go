package ffg_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

// must returns v, panicking on a construction error (the graphs below
// are built from valid literals).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// hmmGraph builds an HMM of T steps (s0..s{T-1}, o0..o{T-1}) with 2
// states; learned makes B a Dirichlet variable shared by every
// transition; observe observes every o_t.
func hmmGraph(t testing.TB, T int, learned, observe bool) *ffg.Graph {
	g := ffg.New()
	var B *ffg.Variable
	if learned {
		B = must(g.AddVariable("B", expfam.DirichletFamily, 2, 2))
		must(g.AddFactor("", must(nodes.NewDirichlet([]float64{1, 1, 1, 1}, []int{2, 2})), B))
	}
	lit := []float64{0.9, 0.1, 0.1, 0.9}
	var prev *ffg.Variable
	for i := range T {
		s := must(g.AddVariable(fmt.Sprintf("s%d", i), expfam.CategoricalFamily, 2))
		if prev == nil {
			must(g.AddFactor("", must(nodes.NewCategorical([]float64{0.5, 0.5})), s))
		} else if learned {
			must(g.AddFactor("", must(nodes.NewTransitionDirichlet([]int{2, 2})), s, prev, B))
		} else {
			must(g.AddFactor("", must(nodes.NewTransition(lit, []int{2, 2})), s, prev))
		}
		o := must(g.AddVariable(fmt.Sprintf("o%d", i), expfam.CategoricalFamily, 2))
		must(g.AddFactor("", must(nodes.NewTransition(lit, []int{2, 2})), o, s))
		if observe {
			if err := o.Observe(i % 2); err != nil {
				t.Fatal(err)
			}
		}
		prev = s
	}
	return g
}

// mixtureGraph builds N observations x_n | z_n with z_n ~ Cat(theta) and
// x_n ~ Cat(A[:, z_n]), theta and A learned (Dirichlet).
func mixtureGraph(t testing.TB, N int) *ffg.Graph {
	g := ffg.New()
	theta := must(g.AddVariable("theta", expfam.DirichletFamily, 3))
	must(g.AddFactor("", must(nodes.NewDirichlet([]float64{1, 1, 1}, []int{3})), theta))
	A := must(g.AddVariable("A", expfam.DirichletFamily, 2, 3))
	must(g.AddFactor("", must(nodes.NewDirichlet([]float64{1, 1, 1, 1, 1, 1}, []int{2, 3})), A))
	for n := range N {
		z := must(g.AddVariable(fmt.Sprintf("z%d", n), expfam.CategoricalFamily, 3))
		must(g.AddFactor("", must(nodes.NewCategoricalDirichlet(3)), z, theta))
		x := must(g.AddVariable(fmt.Sprintf("x%d", n), expfam.CategoricalFamily, 2))
		must(g.AddFactor("", must(nodes.NewTransitionDirichlet([]int{2, 3})), x, z, A))
		if err := x.Observe(n % 2); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// twoParentChain builds s_t | s_{t-1}, u_t with an action u_t per step
// (its own literal prior) and an observation o_t | s_t.
func twoParentChain(t testing.TB, T int) *ffg.Graph {
	g := ffg.New()
	s := must(g.AddVariable("s0", expfam.CategoricalFamily, 2))
	must(g.AddFactor("", must(nodes.NewCategorical([]float64{0.5, 0.5})), s))
	// P(s' | s, u): u = 0 stays, u = 1 switches.
	tr := []float64{1, 0, 0, 1, 0, 1, 1, 0}
	for i := 1; i < T; i++ {
		u := must(g.AddVariable(fmt.Sprintf("u%d", i), expfam.CategoricalFamily, 2))
		must(g.AddFactor("", must(nodes.NewCategorical([]float64{0.5, 0.5})), u))
		next := must(g.AddVariable(fmt.Sprintf("s%d", i), expfam.CategoricalFamily, 2))
		must(g.AddFactor("", must(nodes.NewTransition(tr, []int{2, 2, 2})), next, s, u))
		o := must(g.AddVariable(fmt.Sprintf("o%d", i), expfam.CategoricalFamily, 2))
		must(g.AddFactor("", must(nodes.NewTransition([]float64{0.8, 0.2, 0.2, 0.8}, []int{2, 2})), o, next))
		s = next
	}
	return g
}

// names lists the variable names of each slice.
func sliceNames(r ffg.Repeat) [][]string {
	var out [][]string
	for _, s := range r.Slices {
		var n []string
		for _, v := range s.Variables {
			n = append(n, v.Name())
		}
		slices.Sort(n)
		out = append(out, n)
	}
	return out
}

// TestFindRepeats: the slices found from the wiring alone, checked
// against the construction: an HMM of T steps has T-1 slices {s_t, o_t}
// for t = 1..T-1 (step 0 has a prior instead of a transition, so it is
// not one of them), learned B or not, observed or not; a mixture of N
// observations has N slices {z_n, x_n}; a chain with an action per step
// has T-1 slices {u_t, s_t, o_t}; a graph without repetition (or with
// fewer than MinRepeat slices) has none.
func TestFindRepeats(t *testing.T) {
	check := func(name string, g *ffg.Graph, kind ffg.RepeatKind, want [][]string) {
		t.Helper()
		reps := g.FindRepeats()
		if want == nil {
			if len(reps) != 0 {
				t.Errorf("%s: %d repeats, want none: %v", name, len(reps), sliceNames(reps[0]))
			}
			return
		}
		if len(reps) != 1 {
			t.Fatalf("%s: %d repeats, want 1", name, len(reps))
		}
		if reps[0].Kind != kind {
			t.Errorf("%s: kind %v, want %v", name, reps[0].Kind, kind)
		}
		if got := sliceNames(reps[0]); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: slices %v, want %v", name, got, want)
		}
		// Slices match node for node: the same factor kinds in order.
		for _, s := range reps[0].Slices[1:] {
			for k, f := range s.Factors {
				if f.Factor().Kind() != reps[0].Slices[0].Factors[k].Factor().Kind() {
					t.Errorf("%s: factor %d of a slice is %s, of the first %s", name, k, f.Factor().Kind(), reps[0].Slices[0].Factors[k].Factor().Kind())
				}
			}
		}
	}
	hmmWant := func(T int) [][]string {
		var w [][]string
		for i := 1; i < T; i++ {
			w = append(w, []string{fmt.Sprintf("o%d", i), fmt.Sprintf("s%d", i)})
		}
		return w
	}
	for _, learned := range []bool{false, true} {
		for _, observe := range []bool{false, true} {
			check(fmt.Sprintf("hmm learned=%v observed=%v", learned, observe), hmmGraph(t, 8, learned, observe), ffg.Chain, hmmWant(8))
		}
	}
	check("hmm 50", hmmGraph(t, 50, true, true), ffg.Chain, hmmWant(50))
	var mix [][]string
	for n := range 5 {
		mix = append(mix, []string{fmt.Sprintf("x%d", n), fmt.Sprintf("z%d", n)})
	}
	check("mixture", mixtureGraph(t, 5), ffg.FanOut, mix)
	var two [][]string
	for i := 1; i < 6; i++ {
		two = append(two, []string{fmt.Sprintf("o%d", i), fmt.Sprintf("s%d", i), fmt.Sprintf("u%d", i)})
	}
	check("two-parent chain", twoParentChain(t, 6), ffg.Chain, two)
	check("no repetition", hmmGraph(t, 3, true, true), 0, nil) // 2 slices < MinRepeat
	check("mixture of 2", mixtureGraph(t, 2), 0, nil)
	g := ffg.New()
	a := must(g.AddVariable("a", expfam.CategoricalFamily, 2))
	b := must(g.AddVariable("b", expfam.CategoricalFamily, 3))
	c := must(g.AddVariable("c", expfam.CategoricalFamily, 2))
	must(g.AddFactor("", must(nodes.NewCategorical([]float64{0.5, 0.5})), a))
	must(g.AddFactor("", must(nodes.NewTransition([]float64{0.2, 0.3, 0.5, 0.1, 0.3, 0.6}, []int{3, 2})), b, a))
	must(g.AddFactor("", must(nodes.NewTransition([]float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, []int{2, 3})), c, b))
	check("three variables", g, 0, nil)
	// A partly observed HMM: steps with and without an observation differ,
	// so the runs of like steps on either side are folded apart.
	h := hmmGraph(t, 8, true, false)
	for _, v := range h.Variables() {
		if v.Name() == "o4" {
			_ = v.Observe(0)
		}
	}
	reps := h.FindRepeats()
	if len(reps) != 2 || len(reps[0].Slices) != 3 || len(reps[1].Slices) != 3 {
		t.Errorf("HMM with o4 observed: %d repeats, want two of 3 slices (steps 1-3 and 5-7)", len(reps))
	}
}

// TestDOTFolded: the plate drawing has the slice once inside a cluster
// labelled with its range and names indexed by t; --unroll K draws K
// slices, an ellipsis and the last; without folding the drawing is the
// same as WriteDOT's.
func TestDOTFolded(t *testing.T) {
	g := hmmGraph(t, 50, true, true)
	var plain, def bytes.Buffer
	if err := g.WriteDOTWith(&plain, ffg.DOTOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := g.WriteDOT(&def); err != nil {
		t.Fatal(err)
	}
	if plain.String() != def.String() {
		t.Error("DOTOptions{} differs from WriteDOT")
	}
	var plate bytes.Buffer
	if err := g.WriteDOTWith(&plate, ffg.DOTOptions{Fold: ffg.FoldPlates}); err != nil {
		t.Fatal(err)
	}
	p := plate.String()
	// 49 slices: t = 1 … 49 (s0 has a prior and is drawn outside).
	for _, want := range []string{`label="t = 1 … 49"`, `label="sₜ"`, `label="oₜ"`, `label="s₀"`, `label="B"`} {
		if !strings.Contains(p, want) {
			t.Errorf("plate drawing lacks %s:\n%s", want, p)
		}
	}
	if strings.Contains(p, "s₂") || strings.Contains(p, "s₄₉") {
		t.Error("plate drawing has a second slice")
	}
	var un bytes.Buffer
	if err := g.WriteDOTWith(&un, ffg.DOTOptions{Fold: ffg.FoldUnroll, Unroll: 2}); err != nil {
		t.Fatal(err)
	}
	u := un.String()
	for _, want := range []string{`label="s₁"`, `label="s₂"`, `label="s₄₉"`, `label="⋯"`} {
		if !strings.Contains(u, want) {
			t.Errorf("unrolled drawing lacks %s:\n%s", want, u)
		}
	}
	if strings.Contains(u, `"s₃"`) || strings.Contains(u, `"s₄₈"`) {
		t.Error("unrolled drawing has more than 2 slices and the last")
	}
	// A graph without repetition is drawn the same folded or not.
	small := hmmGraph(t, 3, true, true)
	var a, b bytes.Buffer
	_ = small.WriteDOT(&a)
	_ = small.WriteDOTWith(&b, ffg.DOTOptions{Fold: ffg.FoldPlates})
	if a.String() != b.String() {
		t.Error("a graph without repetition is drawn differently with FoldPlates")
	}
	if err := g.WriteDOTWith(&un, ffg.DOTOptions{Fold: ffg.FoldUnroll, Unroll: 0}); err == nil || !strings.Contains(err.Error(), "Unroll") {
		t.Errorf("Unroll 0 with FoldUnroll: %v, want an error naming Unroll", err)
	}
}

func BenchmarkFindRepeats(b *testing.B) {
	g := hmmGraph(b, 200, true, true)
	b.ReportAllocs()
	for b.Loop() {
		if r := g.FindRepeats(); len(r) != 1 {
			b.Fatal(len(r))
		}
	}
}

// The steps of an HMM are found from its wiring: s0 has a prior, the
// steps 1..4 a transition from the step before and an observation.
func ExampleGraph_FindRepeats() {
	g := ffg.New()
	lit := []float64{0.9, 0.1, 0.1, 0.9}
	var prev *ffg.Variable
	for i := range 5 {
		s, _ := g.AddVariable(fmt.Sprintf("s%d", i), expfam.CategoricalFamily, 2)
		if prev == nil {
			prior, _ := nodes.NewCategorical([]float64{0.5, 0.5})
			_, _ = g.AddFactor("", prior, s)
		} else {
			tr, _ := nodes.NewTransition(lit, []int{2, 2})
			_, _ = g.AddFactor("", tr, s, prev)
		}
		o, _ := g.AddVariable(fmt.Sprintf("o%d", i), expfam.CategoricalFamily, 2)
		obs, _ := nodes.NewTransition(lit, []int{2, 2})
		_, _ = g.AddFactor("", obs, o, s)
		_ = o.Observe(i % 2)
		prev = s
	}
	for _, r := range g.FindRepeats() {
		fmt.Println(r.Kind, len(r.Slices), "slices")
		for _, s := range r.Slices {
			var names []string
			for _, v := range s.Variables {
				names = append(names, v.Name())
			}
			fmt.Println(names)
		}
	}
	// Output:
	// chain 4 slices
	// [s1 o1]
	// [s2 o2]
	// [s3 o3]
	// [s4 o4]
}

// TestFindRepeatsLinear: the work grows linearly with a chain's length
// (counted by time with a 5x margin: 20 times the steps in at most 100
// times the time, well under the 400 times of quadratic work).
func TestFindRepeatsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing, not under -short")
	}
	small, large := hmmGraph(t, 500, true, true), hmmGraph(t, 10000, true, true)
	tm := func(g *ffg.Graph) float64 {
		r := testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				g.FindRepeats()
			}
		})
		return float64(r.NsPerOp())
	}
	if ts, tl := tm(small), tm(large); tl > 100*ts {
		t.Errorf("500 steps %.3g ns, 10,000 steps %.3g ns: ratio %.0f, want <= 100", ts, tl, tl/ts)
	}
}
