package ffg_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

const (
	benchSteps = 100_000
	benchK     = 10
	benchO     = 10
)

type benchHMM struct {
	d, b, a []float64 // probabilities, row-major
	obs     []int
}

func newBenchHMM() benchHMM {
	rng := rand.New(rand.NewPCG(42, 42))
	h := benchHMM{d: randDist(rng, benchK), b: randColumns(rng, benchK, benchK), a: randColumns(rng, benchO, benchK)}
	h.obs = make([]int, benchSteps)
	for i := range h.obs {
		h.obs[i] = rng.IntN(benchO)
	}
	return h
}

func (h benchHMM) graph(tb testing.TB) (*ffg.Graph, []*ffg.Variable) {
	g := ffg.New()
	d, _ := nodes.NewCategorical(h.d)
	tr, _ := nodes.NewTransition(h.b, []int{benchK, benchK})
	em, _ := nodes.NewTransition(h.a, []int{benchO, benchK})
	states := make([]*ffg.Variable, len(h.obs))
	for i := range states {
		s, _ := g.AddVariable("", expfam.CategoricalFamily, benchK)
		var err error
		if i == 0 {
			_, err = g.AddFactor("", d, s)
		} else {
			_, err = g.AddFactor("", tr, s, states[i-1])
		}
		if err != nil {
			tb.Fatal(err)
		}
		o, _ := g.AddVariable("", expfam.CategoricalFamily, benchO)
		_ = o.Observe(h.obs[i])
		if _, err := g.AddFactor("", em, o, s); err != nil {
			tb.Fatal(err)
		}
		states[i] = s
	}
	return g, states
}

// BenchmarkSweepHMM is one VMP sweep (every latent state updated once) over
// a 10^5-step HMM with |S| = 10, through the generic engine. Compare with
// BenchmarkSweepHMMBaseline.
func BenchmarkSweepHMM(b *testing.B) {
	g, states := newBenchHMM().graph(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, s := range states {
			if err := g.Update(s); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkSweepHMMBaseline does the same arithmetic as one engine sweep in
// a plain hand-written loop: for each step, ln q(s_t) = ln A[o_t, :] +
// ln B ⊙ q(s_(t-1)) (or ln D) + ln B ⊙ q(s_(t+1)), then a softmax.
func BenchmarkSweepHMMBaseline(b *testing.B) {
	h := newBenchHMM()
	logB := make([]float64, len(h.b))
	logA := make([]float64, len(h.a))
	logD := make([]float64, len(h.d))
	for i, x := range h.b {
		logB[i] = math.Log(x)
	}
	for i, x := range h.a {
		logA[i] = math.Log(x)
	}
	for i, x := range h.d {
		logD[i] = math.Log(x)
	}
	q := make([]float64, benchSteps*benchK)
	for i := range q {
		q[i] = 1.0 / benchK
	}
	eta := make([]float64, benchK)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for t := range benchSteps {
			o := h.obs[t]
			for s := range benchK {
				eta[s] = logA[o*benchK+s]
			}
			if t == 0 {
				for s := range benchK {
					eta[s] += logD[s]
				}
			} else {
				prev := q[(t-1)*benchK : t*benchK]
				for s := range benchK {
					row := logB[s*benchK : (s+1)*benchK]
					acc := 0.0
					for p, w := range prev {
						acc += w * row[p]
					}
					eta[s] += acc
				}
			}
			if t+1 < benchSteps {
				next := q[(t+1)*benchK : (t+2)*benchK]
				for n, w := range next {
					row := logB[n*benchK : (n+1)*benchK]
					for s := range benchK {
						eta[s] += w * row[s]
					}
				}
			}
			mx := math.Inf(-1)
			for _, e := range eta {
				mx = math.Max(mx, e)
			}
			z := 0.0
			cur := q[t*benchK : (t+1)*benchK]
			for s, e := range eta {
				cur[s] = math.Exp(e - mx)
				z += cur[s]
			}
			for s := range cur {
				cur[s] /= z
			}
		}
	}
}

// BenchmarkFreeEnergyHMM evaluates F once on the same graph.
func BenchmarkFreeEnergyHMM(b *testing.B) {
	g, _ := newBenchHMM().graph(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		g.FreeEnergy()
	}
}

// TestSweepDoesNotAllocate pins the benchmark's "0 allocs/op" in CI: a
// steady-state sweep over an HMM, and F, allocate nothing (the rule of
// the project: hot loops reuse buffers).
func TestSweepDoesNotAllocate(t *testing.T) {
	h := newBenchHMM()
	h.obs = h.obs[:1000]
	g, states := h.graph(t)
	sweep := func() {
		for _, s := range states {
			if err := g.Update(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	sweep()
	if n := testing.AllocsPerRun(5, sweep); n != 0 {
		t.Errorf("a sweep allocates %v times, want 0", n)
	}
	if n := testing.AllocsPerRun(5, func() { g.FreeEnergy() }); n != 0 {
		t.Errorf("FreeEnergy allocates %v times, want 0", n)
	}
}
