package pomdp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

// TestLazyGraphEqualsEager: exact filtering without a window builds no
// graph until asked, and the graph it then builds is the one a past that
// built it at every step holds (same variables, labels, factors,
// posteriors, bit for bit); belief, smoothed beliefs, posteriors and the
// expected model agree bit for bit before and after, across two trials
// of a learned model (CarryOver between) and with a step of GrowMixed.
func TestLazyGraphEqualsEager(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	plain, err := NewFactorised(randomFS(rng, []int{2, 3}, []int{2, 1}, []int{2, 3}, [][]string{{"x"}, {"y", "x"}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Model{plain, mixedLearned(t, 3)} {
		lazy, err := NewPastWith(m, 0, PastFilter)
		if err != nil {
			t.Fatal(err)
		}
		eager, err := NewPastWith(m, 0, PastFilter)
		if err != nil {
			t.Fatal(err)
		}
		for trial := range 2 {
			name := fmt.Sprintf("learning %v, trial %d", m != plain, trial)
			obs := func() int { return rng.IntN(m.NumObs()) }
			o0 := obs()
			for _, p := range []*Past{lazy, eager} {
				if err := p.Reset(o0); err != nil {
					t.Fatal(err)
				}
			}
			eager.Graph()
			if lazy.HasGraph() || !eager.HasGraph() {
				t.Fatalf("%s: after Reset lazy has a graph %v, eager %v", name, lazy.HasGraph(), eager.HasGraph())
			}
			probs := make([]float64, m.NumActions())
			for u := range probs {
				probs[u] = 1 / float64(len(probs))
			}
			steps := []func(p *Past, o int) error{
				func(p *Past, _ int) error { _, err := p.Infer(context.Background(), nil); return err },
				func(p *Past, o int) error { return p.Grow(1%m.NumActions(), o) },
				func(p *Past, o int) error { return p.Grow(0, o) },
				func(p *Past, _ int) error { _, err := p.Infer(context.Background(), nil); return err },
				func(p *Past, o int) error { return p.GrowMixed(probs, o) },
				func(p *Past, _ int) error { _, err := p.Infer(context.Background(), nil); return err },
				func(p *Past, o int) error { return p.Grow(0, o) },
			}
			for k, step := range steps {
				o := obs()
				for _, p := range []*Past{lazy, eager} {
					if err := step(p, o); err != nil {
						t.Fatalf("%s: step %d: %v", name, k, err)
					}
				}
				if k == 4 {
					if lazy.HasGraph() {
						t.Fatalf("%s: a graph before anything asked for one", name)
					}
					samePast(t, name+", before the graph", lazy, eager)
					sameGraph(t, name, lazy.Graph(), eager.Graph())
				}
			}
			samePast(t, name+", after the graph", lazy, eager)
			sameGraph(t, name+", grown", lazy.Graph(), eager.Graph())
			lazy.CarryOver()
			eager.CarryOver()
			samePast(t, name+", after CarryOver", lazy, eager)
		}
	}
}

func samePast(t *testing.T, name string, p, q *Past) {
	t.Helper()
	if !slices.Equal(p.Belief(), q.Belief()) || p.Kept() != q.Kept() || p.Time() != q.Time() {
		t.Errorf("%s: belief %v, kept %d, t %d; want %v, %d, %d", name, p.Belief(), p.Kept(), p.Time(), q.Belief(), q.Kept(), q.Time())
	}
	ps, qs := p.Smoothed(), q.Smoothed()
	if !slices.EqualFunc(ps, qs, slices.Equal) {
		t.Errorf("%s: smoothed %v, want %v", name, ps, qs)
	}
	for k, c := range [][2]Concentrations{{p.Posteriors(), q.Posteriors()}, {p.Concentrations(), q.Concentrations()}} {
		for i, x := range [][2][][]float64{{c[0].A, c[1].A}, {c[0].B, c[1].B}, {c[0].D, c[1].D}} {
			if !slices.EqualFunc(x[0], x[1], slices.Equal) {
				t.Errorf("%s: concentrations %d, parameter %d: %v, want %v", name, k, i, x[0], x[1])
			}
		}
	}
	pm, err := p.ExpectedModel()
	if err != nil {
		t.Fatal(err)
	}
	qm, err := q.ExpectedModel()
	if err != nil {
		t.Fatal(err)
	}
	for i := range pm.factors {
		a, b := &pm.factors[i], &qm.factors[i]
		if !slices.Equal(a.b, b.b) || !slices.Equal(a.d, b.d) || !slices.Equal(a.concB, b.concB) || !slices.Equal(a.concD, b.concD) {
			t.Errorf("%s: expected model, factor %d differs", name, i)
		}
	}
	for i := range pm.mods {
		if a, b := &pm.mods[i], &qm.mods[i]; !slices.Equal(a.a, b.a) || !slices.Equal(a.concA, b.concA) {
			t.Errorf("%s: expected model, modality %d differs", name, i)
		}
	}
}

func sameGraph(t *testing.T, name string, g, h *ffg.Graph) {
	t.Helper()
	gv, hv := g.Variables(), h.Variables()
	if len(gv) != len(hv) || len(g.Factors()) != len(h.Factors()) {
		t.Fatalf("%s: %d variables and %d factors, want %d and %d", name, len(gv), len(g.Factors()), len(hv), len(h.Factors()))
	}
	describe := func(v *ffg.Variable) string {
		s := fmt.Sprintf("%q %q %q %v %v %v", v.Name(), v.Label, v.Cluster, v.Family(), v.Observed(), v.Shape())
		switch v.Family() {
		case expfam.CategoricalFamily:
			s += fmt.Sprint(v.Probs())
		case expfam.DirichletFamily:
			s += fmt.Sprint(v.Alpha())
		}
		return s
	}
	for i := range gv {
		if a, b := describe(gv[i]), describe(hv[i]); a != b {
			t.Errorf("%s: variable %d: %s, want %s", name, i, a, b)
		}
	}
	for i, f := range g.Factors() {
		e := h.Factors()[i]
		if f.Label != e.Label || f.Factor().Kind() != e.Factor().Kind() || len(f.Variables()) != len(e.Variables()) {
			t.Errorf("%s: factor %d: %q %s, want %q %s", name, i, f.Label, f.Factor().Kind(), e.Label, e.Factor().Kind())
		}
	}
}

// TestBoundAlpha: boundAlpha gives the concentrations of a Dirichlet
// variable bound to its prior on a graph, bit for bit, also where they
// are not the prior's own (α < 1/2 or α > 2).
func TestBoundAlpha(t *testing.T) {
	alpha := []float64{0.1, 0.3, 1e-3, 0.7, 1.3, 7.7, 123.456, 1 + 1e-15, 3.0000000000000004}
	g := ffg.New()
	v, err := g.AddVariable("", expfam.DirichletFamily, len(alpha))
	if err != nil {
		t.Fatal(err)
	}
	d, err := nodes.NewDirichlet(alpha, []int{len(alpha)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.AddFactor("", d, v); err != nil {
		t.Fatal(err)
	}
	got := slices.Clone(alpha)
	boundAlpha(got)
	if !slices.Equal(got, v.Alpha()) {
		t.Errorf("boundAlpha %v, the graph's %v", got, v.Alpha())
	}
	if slices.Equal(got, alpha) {
		t.Error("every concentration came back as it was: the test shows nothing")
	}
}
