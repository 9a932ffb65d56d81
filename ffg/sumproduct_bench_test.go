package ffg_test

import (
	"math"
	"testing"
)

// BenchmarkSumProductHMM is one exact sum-product pass (potentials,
// collect and distribute, marginals and pairwise beliefs, ln Z) over the
// 10^5-step HMM of BenchmarkSweepHMM through the generic engine. Compare
// with BenchmarkForwardBackwardBaseline.
func BenchmarkSumProductHMM(b *testing.B) {
	h := newBenchHMM()
	g, _ := h.graph(b)
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
