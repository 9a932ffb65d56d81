package ffg_test

import (
	"math"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

// BenchmarkSumProductHMM is one exact sum-product pass (potentials,
// collect and distribute, marginals and pairwise beliefs, ln Z) over the
// 10^5-step HMM of BenchmarkSweepHMM through the generic engine. Compare
// with BenchmarkForwardBackwardBaseline.
//
// The first pass builds the tree and the potentials that cannot change
// (BenchmarkSumProductHMMFirst); later passes reuse them.
func BenchmarkSumProductHMM(b *testing.B) {
	h := newBenchHMM()
	g, _ := h.graph(b)
	if _, err := g.SumProduct(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.SumProduct(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkForwardBackwardBaseline computes what the sum-product pass
// gives, in plain Go loops: forward (filtered, normalised, with ln Z),
// backward, the state marginals and the pairwise transition counts (what a
// Dirichlet update of B needs).
func BenchmarkForwardBackwardBaseline(b *testing.B) {
	h := newBenchHMM()
	T, K := len(h.obs), benchK
	alpha := make([]float64, T*K)
	beta := make([]float64, T*K)
	marg := make([]float64, T*K)
	counts := make([]float64, K*K)
	tmp := make([]float64, K)
	b.ReportAllocs()
	for b.Loop() {
		logZ := 0.0
		for t := range T {
			a := alpha[t*K : (t+1)*K]
			for s := range K {
				v := 0.0
				if t == 0 {
					v = h.d[s]
				} else {
					prev := alpha[(t-1)*K : t*K]
					for p := range K {
						v += h.b[s*K+p] * prev[p]
					}
				}
				a[s] = v * h.a[h.obs[t]*K+s]
			}
			z := 0.0
			for _, v := range a {
				z += v
			}
			for s := range a {
				a[s] /= z
			}
			logZ += math.Log(z)
		}
		last := beta[(T-1)*K : T*K]
		for s := range last {
			last[s] = 1
		}
		clear(counts)
		for t := T - 1; t > 0; t-- {
			bt := beta[t*K : (t+1)*K]
			for s := range K {
				tmp[s] = bt[s] * h.a[h.obs[t]*K+s]
			}
			prev := alpha[(t-1)*K : t*K]
			z := 0.0
			for n := range K {
				for p := range K {
					z += prev[p] * h.b[n*K+p] * tmp[n]
				}
			}
			for n := range K {
				for p := range K {
					counts[n*K+p] += prev[p] * h.b[n*K+p] * tmp[n] / z
				}
			}
			bp := beta[(t-1)*K : t*K]
			zb := 0.0
			for p := range K {
				v := 0.0
				for n := range K {
					v += h.b[n*K+p] * tmp[n]
				}
				bp[p] = v
				zb += v
			}
			for p := range bp {
				bp[p] /= zb
			}
		}
		for t := range T {
			z := 0.0
			for s := range K {
				marg[t*K+s] = alpha[t*K+s] * beta[t*K+s]
				z += marg[t*K+s]
			}
			for s := range K {
				marg[t*K+s] /= z
			}
		}
		_ = logZ
	}
}

// BenchmarkSumProductHMMFirst is the first pass on a fresh graph: the
// tree, its traversal and every potential are built.
func BenchmarkSumProductHMMFirst(b *testing.B) {
	h := newBenchHMM()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		g, _ := h.graph(b)
		b.StartTimer()
		if _, err := g.SumProduct(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSumProductRepeatDoesNotAllocate: a second pass on an unchanged graph
// reuses the tree, the messages and the fixed potentials.
func TestSumProductRepeatDoesNotAllocate(t *testing.T) {
	h := newBenchHMM()
	h.obs = h.obs[:200]
	g, _ := h.graph(t)
	first, err := g.SumProduct()
	if err != nil {
		t.Fatal(err)
	}
	var again float64
	allocs := testing.AllocsPerRun(5, func() {
		again, err = g.SumProduct()
	})
	if err != nil || allocs != 0 || math.Abs(again-first) > 1e-9*math.Abs(first) {
		t.Errorf("repeat pass: %v allocations, ln Z %v then %v, err %v", allocs, first, again, err)
	}
}

// BenchmarkSumProductSweepLearnB is one sweep of structured inference on
// the HMM with its transition matrix B Dirichlet distributed (prior 1
// everywhere): B's update from the transitions' joint beliefs
// (UpdateStructured), then sum-product with the potentials exp E[ln B]
// (shared by the 10^5 transitions), then F. The baseline does the same
// arithmetic of one VB-EM iteration in plain loops
// (BenchmarkForwardBackwardBaseline, which also forms the pairwise counts).
func BenchmarkSumProductSweepLearnB(b *testing.B) {
	g, bv := learnBGraph(b, newBenchHMM())
	if _, err := g.SumProduct(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := g.UpdateStructured(bv); err != nil {
			b.Fatal(err)
		}
		logZ, err := g.SumProduct()
		if err != nil {
			b.Fatal(err)
		}
		_ = g.StructuredFreeEnergy(logZ)
	}
}

// TestSumProductSweepDoesNotAllocate: after the first, a sweep with B
// learned (update, sum-product, F) allocates nothing.
func TestSumProductSweepDoesNotAllocate(t *testing.T) {
	h := newBenchHMM()
	h.obs = h.obs[:200]
	g, bv := learnBGraph(t, h)
	sweep := func() {
		if err := g.UpdateStructured(bv); err != nil {
			t.Fatal(err)
		}
		logZ, err := g.SumProduct()
		if err != nil {
			t.Fatal(err)
		}
		_ = g.StructuredFreeEnergy(logZ)
	}
	if _, err := g.SumProduct(); err != nil {
		t.Fatal(err)
	}
	sweep()
	if allocs := testing.AllocsPerRun(5, sweep); allocs != 0 {
		t.Errorf("%v allocations per sweep", allocs)
	}
}

// learnBGraph is the benchmark HMM with B a Dirichlet variable (prior 1).
func learnBGraph(tb testing.TB, h benchHMM) (*ffg.Graph, *ffg.Variable) {
	g := ffg.New()
	bv, _ := g.AddVariable("B", expfam.DirichletFamily, benchK, benchK)
	ones := make([]float64, benchK*benchK)
	for i := range ones {
		ones[i] = 1
	}
	prior, _ := nodes.NewDirichlet(ones, []int{benchK, benchK})
	if _, err := g.AddFactor("", prior, bv); err != nil {
		tb.Fatal(err)
	}
	d, _ := nodes.NewCategorical(h.d)
	tr, _ := nodes.NewTransitionDirichlet([]int{benchK, benchK})
	em, _ := nodes.NewTransition(h.a, []int{benchO, benchK})
	var prev *ffg.Variable
	for i := range h.obs {
		s, _ := g.AddVariable("", expfam.CategoricalFamily, benchK)
		var err error
		if i == 0 {
			_, err = g.AddFactor("", d, s)
		} else {
			_, err = g.AddFactor("", tr, s, prev, bv)
		}
		if err != nil {
			tb.Fatal(err)
		}
		o, _ := g.AddVariable("", expfam.CategoricalFamily, benchO)
		_ = o.Observe(h.obs[i])
		if _, err := g.AddFactor("", em, o, s); err != nil {
			tb.Fatal(err)
		}
		prev = s
	}
	return g, bv
}
