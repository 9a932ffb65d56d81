package ffg_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

// forestCase is a random tree of normal variables: each variable after the
// first hangs from an earlier one through an affine transition; some are
// observed through an affine observation, some observed themselves, and
// one factor joins two observed values only.
type forestCase struct {
	parent []int     // -1 for a root
	a, b   []float64 // the transition x_i ~ N(a_i x_parent + b_i, 1/tau_i)
	tau    []float64
	y      []float64 // NaN: no observation of x_i
	ry     []float64 // the observation's precision
}

func newForestCase(rng *rand.Rand, n int) forestCase {
	c := forestCase{parent: make([]int, n), a: make([]float64, n), b: make([]float64, n), tau: make([]float64, n), y: make([]float64, n), ry: make([]float64, n)}
	for i := range n {
		c.parent[i] = -1
		if i > 0 && rng.IntN(7) != 0 { // a few roots of their own: a forest
			c.parent[i] = rng.IntN(i)
		}
		c.a[i], c.b[i], c.tau[i] = 0.5+rng.Float64(), rng.NormFloat64(), 0.5+2*rng.Float64()
		c.y[i], c.ry[i] = math.NaN(), 1+rng.Float64()
		if rng.IntN(3) != 0 || c.parent[i] < 0 {
			c.y[i] = 10 * rng.NormFloat64()
		}
	}
	return c
}

// TestGaussForestEqualsGraph builds the same random forests as a Graph and
// as a GaussForest, adding the factors in the same order: the posteriors
// and F of GaussForest.Run equal those of Graph.SumProduct (with
// StructuredFreeEnergy) bit for bit, since both derive the potentials
// from the same forms and sum in the same order.
func TestGaussForestEqualsGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 20 {
		c := newForestCase(rng, 1+rng.IntN(60))
		n := len(c.parent)
		g := ffg.New()
		gf := ffg.NewGaussForest(n, n, nil)
		xs := make([]*ffg.Variable, n)
		// An observed pair (u, w) with a factor of its own, first.
		u, _ := g.AddVariable("u", expfam.NormalFamily)
		w, _ := g.AddVariable("w", expfam.NormalFamily)
		_ = u.ObserveValue(0.3)
		_ = w.ObserveValue(-1.2)
		uw, _ := nodes.NewNormal(nodes.AffineMean(2, 0.5), nodes.LiteralPrecision(3))
		if _, err := g.AddFactor("", uw, u, w); err != nil {
			t.Fatal(err)
		}
		if err := gf.AddFactor(uw, []int{-1, -1}, [][]float64{{0.3, 0.09}, {-1.2, 1.44}}); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			xs[i], _ = g.AddVariable("", expfam.NormalFamily)
			var node *nodes.Normal
			var err error
			if p := c.parent[i]; p < 0 {
				node, _ = nodes.NewNormal(nodes.LiteralMean(c.b[i]), nodes.LiteralPrecision(c.tau[i]))
				_, err = g.AddFactor("", node, xs[i])
				if err == nil {
					err = gf.AddFactor(node, []int{i}, [][]float64{nil})
				}
			} else {
				node, _ = nodes.NewNormal(nodes.AffineMean(c.a[i], c.b[i]), nodes.LiteralPrecision(c.tau[i]))
				_, err = g.AddFactor("", node, xs[i], xs[p])
				if err == nil {
					err = gf.AddFactor(node, []int{i, p}, [][]float64{nil, nil})
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if !math.IsNaN(c.y[i]) {
				y, _ := g.AddVariable("", expfam.NormalFamily)
				_ = y.ObserveValue(c.y[i])
				obs, _ := nodes.NewNormal(nodes.AffineMean(1.5, -0.25), nodes.LiteralPrecision(c.ry[i]))
				if _, err := g.AddFactor("", obs, y, xs[i]); err != nil {
					t.Fatal(err)
				}
				if err := gf.AddFactor(obs, []int{-1, i}, [][]float64{{c.y[i], c.y[i] * c.y[i]}, nil}); err != nil {
					t.Fatal(err)
				}
			}
		}
		lnZ, err := g.SumProduct()
		if err != nil {
			t.Fatal(err)
		}
		want := g.StructuredFreeEnergy(lnZ)
		got, err := gf.Run()
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("trial %d (%d variables): F = %.17g, the graph's %.17g", trial, n, got, want)
		}
		for i, x := range xs {
			m, v := gf.Posterior(i)
			nrm := x.Normal()
			if m != nrm.Mean || v != nrm.Var {
				t.Errorf("trial %d: x%d = N(%.17g, %.17g), the graph's N(%.17g, %.17g)", trial, i, m, v, nrm.Mean, nrm.Var)
			}
		}
		if again, err := gf.Run(); err != nil || again != got {
			t.Errorf("trial %d: a second Run gives %v, %v; want %v", trial, again, err, got)
		}
	}
}

// TestGaussForestErrors: misuse is an error, not a panic.
func TestGaussForestErrors(t *testing.T) {
	node, _ := nodes.NewNormal(nodes.VariableMean(), nodes.LiteralPrecision(1))
	prior, _ := nodes.NewNormal(nodes.LiteralMean(0), nodes.LiteralPrecision(1))
	// A variable with no factor.
	gf := ffg.NewGaussForest(2, 0, func(i int) string { return []string{"a", "b"}[i] })
	if err := gf.AddFactor(prior, []int{0}, [][]float64{nil}); err != nil {
		t.Fatal(err)
	}
	if _, err := gf.Run(); err == nil {
		t.Error("a variable without a factor: no error")
	}
	// A loop: a - b twice.
	gf = ffg.NewGaussForest(2, 2, nil)
	for range 2 {
		if err := gf.AddFactor(node, []int{0, 1}, [][]float64{nil, nil}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := gf.Run(); err == nil {
		t.Error("a loop: no error")
	}
	// Out of range, wrong counts, and no proper posterior.
	gf = ffg.NewGaussForest(1, 0, nil)
	for _, c := range []struct {
		vars  []int
		stats [][]float64
	}{{[]int{0, 5}, [][]float64{nil, nil}}, {[]int{0}, [][]float64{nil, nil}}, {[]int{0}, [][]float64{nil}}} {
		if err := gf.AddFactor(node, c.vars, c.stats); err == nil {
			t.Errorf("AddFactor(%v): no error", c.vars)
		}
	}
	gf = ffg.NewGaussForest(2, 1, nil)
	_ = gf.AddFactor(node, []int{0, 1}, [][]float64{nil, nil})
	if _, err := gf.Run(); err == nil {
		t.Error("no prior or evidence: no error")
	}
	if err := gf.AddFactor(prior, []int{0}, [][]float64{nil}); err == nil {
		t.Error("AddFactor after Run: no error")
	}
}

// TestMvGaussForestEqualsGraph: the position-velocity model of
// gaussmv_test.go (a chain of 4-D states observed in 2-D), with a second
// chain hanging from its third state (a tree) and a factor between two
// observed vectors, built as a Graph and as an MvGaussForest in the same
// order: the posteriors and F agree bit for bit.
func TestMvGaussForestEqualsGraph(t *testing.T) {
	ys := simulatePV(40, 9)
	g, xs := buildPV(t, ys)
	prior, _ := nodes.NewMvNormal(4, nodes.LiteralMvMean(pvM0), nodes.LiteralMvPrecision(inverse(pvP0, 4)))
	trans, _ := nodes.NewMvNormal(4, nodes.AffineMvMean(pvA, 4, nil), nodes.LiteralMvPrecision(inverse(pvQ, 4)))
	obs, _ := nodes.NewMvNormal(2, nodes.AffineMvMean(pvH, 4, nil), nodes.LiteralMvPrecision(inverse(pvR, 2)))
	pair, _ := nodes.NewMvNormal(2, nodes.VariableMvMean(), nodes.LiteralMvPrecision([]float64{2, 0.5, 0.5, 1}))
	stats := func(y []float64) []float64 {
		s := make([]float64, 6)
		if err := expfam.MvNormalFamily.Declaration().(expfam.VectorObserver).ObservedVectorStats(s, y); err != nil {
			t.Fatal(err)
		}
		return s
	}
	dims := make([]int, 0, 50)
	for range xs {
		dims = append(dims, 4)
	}
	// The branch: 6 states from xs[2], each observed.
	branch := make([]*ffg.Variable, 6)
	for i := range branch {
		dims = append(dims, 4)
		branch[i], _ = g.AddVariable("", expfam.MvNormalFamily, 4)
		parent := xs[2]
		if i > 0 {
			parent = branch[i-1]
		}
		if _, err := g.AddFactor("", trans, branch[i], parent); err != nil {
			t.Fatal(err)
		}
		y, _ := g.AddVariable("", expfam.MvNormalFamily, 2)
		_ = y.ObserveVector(ys[i])
		if _, err := g.AddFactor("", obs, y, branch[i]); err != nil {
			t.Fatal(err)
		}
	}
	u, _ := g.AddVariable("", expfam.MvNormalFamily, 2)
	w, _ := g.AddVariable("", expfam.MvNormalFamily, 2)
	_ = u.ObserveVector([]float64{0.5, -1})
	_ = w.ObserveVector([]float64{1.5, 2})
	if _, err := g.AddFactor("", pair, u, w); err != nil {
		t.Fatal(err)
	}
	lnZ, err := g.SumProduct()
	if err != nil {
		t.Fatal(err)
	}
	want := g.StructuredFreeEnergy(lnZ)

	gf, err := ffg.NewMvGaussForest(dims, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	add := func(f ffg.Factor, vars []int, st [][]float64) {
		t.Helper()
		if err := gf.AddFactor(f, vars, st); err != nil {
			t.Fatal(err)
		}
	}
	for i := range xs {
		if i == 0 {
			add(prior, []int{0}, [][]float64{nil})
		} else {
			add(trans, []int{i, i - 1}, [][]float64{nil, nil})
		}
		add(obs, []int{-1, i}, [][]float64{stats(ys[i]), nil})
	}
	for i := range branch {
		parent := 2
		if i > 0 {
			parent = len(xs) + i - 1
		}
		add(trans, []int{len(xs) + i, parent}, [][]float64{nil, nil})
		add(obs, []int{-1, len(xs) + i}, [][]float64{stats(ys[i]), nil})
	}
	add(pair, []int{-1, -1}, [][]float64{stats([]float64{0.5, -1}), stats([]float64{1.5, 2})})
	got, err := gf.Run()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("F = %.17g, the graph's %.17g", got, want)
	}
	for i, x := range append(xs, branch...) {
		p, q := gf.Posterior(i), x.MvNormal()
		for k := range p.Mean {
			if p.Mean[k] != q.Mean[k] {
				t.Fatalf("x%d: mean %v, the graph's %v", i, p.Mean, q.Mean)
			}
		}
		for k := range p.Cov {
			if p.Cov[k] != q.Cov[k] {
				t.Fatalf("x%d: covariance %v, the graph's %v", i, p.Cov, q.Cov)
			}
		}
	}
	if again, err := gf.Run(); err != nil || again != got {
		t.Errorf("a second Run gives %v, %v; want %v", again, err, got)
	}
	// Misuse: errors, no panic.
	bad, _ := ffg.NewMvGaussForest([]int{4, 4}, 0, nil)
	for _, c := range []struct {
		vars  []int
		stats [][]float64
	}{{[]int{0, 7}, [][]float64{nil, nil}}, {[]int{0}, [][]float64{nil, nil}}} {
		if err := bad.AddFactor(trans, c.vars, c.stats); err == nil {
			t.Errorf("AddFactor(%v): no error", c.vars)
		}
	}
	bad.AddFactor(prior, []int{0}, [][]float64{nil})
	if _, err := bad.Run(); err == nil {
		t.Error("a variable without a factor: no error")
	}
	if _, err := ffg.NewMvGaussForest([]int{0}, 0, nil); err == nil {
		t.Error("dimension 0: no error")
	}
}

// BenchmarkGaussForest builds and runs the local-level model of
// BenchmarkKalmanSumProduct (10^5 steps) as a GaussForest: the factors
// added, the adjacency and traversal built, one pass with F.
func BenchmarkGaussForest(b *testing.B) {
	const n, q, r = 100000, 2.0, 1.0
	_, ys := localLevel(b, n)
	prior, _ := nodes.NewNormal(nodes.LiteralMean(0), nodes.LiteralPrecision(1))
	trans, _ := nodes.NewNormal(nodes.VariableMean(), nodes.LiteralPrecision(q))
	obs, _ := nodes.NewNormal(nodes.VariableMean(), nodes.LiteralPrecision(r))
	vars, stats := make([]int, 2), make([][]float64, 2)
	y := make([]float64, 2)
	b.ReportAllocs()
	for b.Loop() {
		gf := ffg.NewGaussForest(n, n, nil)
		for t := range n {
			var err error
			if t == 0 {
				vars[0], stats[0] = 0, nil
				err = gf.AddFactor(prior, vars[:1:1], stats[:1:1])
			} else {
				vars[0], vars[1], stats[0], stats[1] = t, t-1, nil, nil
				err = gf.AddFactor(trans, vars, stats)
			}
			if err != nil {
				b.Fatal(err)
			}
			y[0], y[1] = ys[t], ys[t]*ys[t]
			vars[0], vars[1], stats[0], stats[1] = -1, t, y, nil
			if err := gf.AddFactor(obs, vars, stats); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := gf.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMvGaussForest is the same for the position-velocity model of
// 10^4 steps (gaussmv_test.go) as an MvGaussForest.
func BenchmarkMvGaussForest(b *testing.B) {
	const n = 10000
	ys := simulatePV(n, 3)
	prior, _ := nodes.NewMvNormal(4, nodes.LiteralMvMean(pvM0), nodes.LiteralMvPrecision(inverse(pvP0, 4)))
	trans, _ := nodes.NewMvNormal(4, nodes.AffineMvMean(pvA, 4, nil), nodes.LiteralMvPrecision(inverse(pvQ, 4)))
	obs, _ := nodes.NewMvNormal(2, nodes.AffineMvMean(pvH, 4, nil), nodes.LiteralMvPrecision(inverse(pvR, 2)))
	dims := make([]int, n)
	for i := range dims {
		dims[i] = 4
	}
	ystats := make([][]float64, n)
	for t, y := range ys {
		ystats[t] = make([]float64, 6)
		_ = expfam.MvNormalFamily.Declaration().(expfam.VectorObserver).ObservedVectorStats(ystats[t], y)
	}
	vars, stats := make([]int, 2), make([][]float64, 2)
	b.ReportAllocs()
	for b.Loop() {
		gf, err := ffg.NewMvGaussForest(dims, 2*n, nil)
		if err != nil {
			b.Fatal(err)
		}
		for t := range n {
			if t == 0 {
				vars[0], stats[0] = 0, nil
				err = gf.AddFactor(prior, vars[:1:1], stats[:1:1])
			} else {
				vars[0], vars[1], stats[0], stats[1] = t, t-1, nil, nil
				err = gf.AddFactor(trans, vars, stats)
			}
			if err != nil {
				b.Fatal(err)
			}
			vars[0], vars[1], stats[0], stats[1] = -1, t, ystats[t], nil
			if err := gf.AddFactor(obs, vars, stats); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := gf.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
