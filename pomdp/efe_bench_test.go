package pomdp_test

import (
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// benchConcModel returns a random single-factor model of ns states, no
// observations and nu actions whose likelihood is given by concentrations
// a only (A = E[a]), and a random belief.
func benchConcModel(b *testing.B, ns, no, nu int) (*pomdp.Model, []float64) {
	b.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	col := func(n int) []float64 {
		x := make([]float64, n)
		sum := 0.0
		for i := range x {
			x[i] = rng.Float64() + 0.01
			sum += x[i]
		}
		for i := range x {
			x[i] /= sum
		}
		return x
	}
	concA := make([]float64, no*ns)
	for i := range concA {
		concA[i] = 0.5 + 4*rng.Float64()
	}
	bm := make([]float64, nu*ns*ns)
	for u := range nu {
		for prev := range ns {
			c := col(ns)
			for next := range ns {
				bm[(u*ns+next)*ns+prev] = c[next]
			}
		}
	}
	m, err := pomdp.New(pomdp.Spec{NumStates: ns, NumObs: no, NumActions: nu,
		ConcA: concA, B: bm, C: col(no), D: col(ns)})
	if err != nil {
		b.Fatal(err)
	}
	return m, col(ns)
}

// BenchmarkNovelty measures Novelty (the novelty weights are computed at
// the first call, outside the loop) on a maze-sized model (30 states, 30
// observations).
func BenchmarkNovelty(b *testing.B) {
	m, qs := benchConcModel(b, 30, 30, 5)
	_ = pomdp.Novelty(m, qs)
	b.ReportAllocs()
	for b.Loop() {
		_ = pomdp.Novelty(m, qs)
	}
}

// BenchmarkStepCostNovelty measures StepCost with the novelty weights, the
// policy search's kernel, on the same model.
func BenchmarkStepCostNovelty(b *testing.B) {
	m, qs := benchConcModel(b, 30, 30, 5)
	w := m.NoveltyWeights()
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = pomdp.StepCost(m, qs, w)
	}
}

// BenchmarkStatePosterior measures StatePosterior (ln A is computed at
// the first call, outside the loop) on the same model.
func BenchmarkStatePosterior(b *testing.B) {
	m, _ := benchConcModel(b, 30, 30, 5)
	dst := make([]float64, m.NumStates())
	if _, err := pomdp.StatePosterior(dst, m, 3); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pomdp.StatePosterior(dst, m, 3); err != nil {
			b.Fatal(err)
		}
	}
}
