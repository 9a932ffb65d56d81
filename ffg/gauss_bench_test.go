package ffg_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

// localLevel builds x_1 ~ N(0, 1), x_t ~ N(x_(t-1), 1/q), y_t ~ N(x_t, 1/r)
// with n simulated observations.
func localLevel(b *testing.B, n int) (*ffg.Graph, []float64) {
	const q, r = 2.0, 1.0
	rng := rand.New(rand.NewPCG(1, 2))
	g := ffg.New()
	prior, _ := nodes.NewNormal(nodes.LiteralMean(0), nodes.LiteralPrecision(1))
	trans, _ := nodes.NewNormal(nodes.VariableMean(), nodes.LiteralPrecision(q))
	obs, _ := nodes.NewNormal(nodes.VariableMean(), nodes.LiteralPrecision(r))
	ys := make([]float64, n)
	var prev *ffg.Variable
	x := 0.0
	for t := range n {
		x += rng.NormFloat64() / math.Sqrt(q)
		ys[t] = x + rng.NormFloat64()/math.Sqrt(r)
		v, _ := g.AddVariable("", expfam.NormalFamily)
		var err error
		if prev == nil {
			_, err = g.AddFactor("", prior, v)
		} else {
			_, err = g.AddFactor("", trans, v, prev)
		}
		if err != nil {
			b.Fatal(err)
		}
		y, _ := g.AddVariable("", expfam.NormalFamily)
		_ = y.ObserveValue(ys[t])
		if _, err := g.AddFactor("", obs, y, v); err != nil {
			b.Fatal(err)
		}
		prev = v
	}
	return g, ys
}

// BenchmarkKalmanSumProduct is one sum-product pass (Gaussian belief
// propagation: the Kalman filter and the RTS smoother, exact marginals and
// ln p(y)) on a local-level model; the first pass, which builds the tree,
// is outside the timing.
func BenchmarkKalmanSumProduct(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run("steps="+strconv.Itoa(n), func(b *testing.B) {
			g, _ := localLevel(b, n)
			if _, err := g.SumProduct(); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.SumProduct(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/step")
		})
	}
}

// BenchmarkKalmanBaseline is the same computation written by hand: the
// Kalman filter with ln p(y), then the RTS smoother, on flat arrays.
func BenchmarkKalmanBaseline(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run("steps="+strconv.Itoa(n), func(b *testing.B) {
			_, ys := localLevel(b, n)
			const q, r = 2.0, 1.0
			mf, pf := make([]float64, n), make([]float64, n)
			ms, ps := make([]float64, n), make([]float64, n)
			b.ReportAllocs()
			ll := 0.0
			for b.Loop() {
				ll = 0
				m, p := 0.0, 1.0
				for t, y := range ys {
					if t > 0 {
						m, p = mf[t-1], pf[t-1]+1/q
					}
					s := p + 1/r
					k := p / s
					ll += -0.5*math.Log(2*math.Pi*s) - (y-m)*(y-m)/(2*s)
					mf[t], pf[t] = m+k*(y-m), (1-k)*p
				}
				ms[n-1], ps[n-1] = mf[n-1], pf[n-1]
				for t := n - 2; t >= 0; t-- {
					pp := pf[t] + 1/q
					gain := pf[t] / pp
					ms[t] = mf[t] + gain*(ms[t+1]-mf[t])
					ps[t] = pf[t] + gain*gain*(ps[t+1]-pp)
				}
			}
			if math.IsNaN(ll) {
				b.Fatal("NaN")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/step")
		})
	}
}

// BenchmarkNormalVMPSweep is one VMP sweep (Graph.Update of every hidden
// state, messages from the nodes' multilinear forms) over the local-level
// model of 10^5 steps, then F.
func BenchmarkNormalVMPSweep(b *testing.B) {
	const n = 100000
	g, _ := localLevel(b, n)
	var hidden []*ffg.Variable
	for _, v := range g.Variables() {
		if !v.Observed() {
			hidden = append(hidden, v)
		}
	}
	// One sweep before the timing: a graph's first update of a variable
	// allocates its natural-parameter buffer (Variable.Natural).
	for _, v := range hidden {
		if err := g.Update(v); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, v := range hidden {
			if err := g.Update(v); err != nil {
				b.Fatal(err)
			}
		}
		if f := g.FreeEnergy(); math.IsNaN(f) {
			b.Fatal("NaN")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/step")
}
