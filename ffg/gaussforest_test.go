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
