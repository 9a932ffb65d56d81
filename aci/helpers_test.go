package aci

import (
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// randColumns fills a tensor of lead×k×m with random columns normalised to 1.
func randColumns(rng *rand.Rand, lead, k, m int) []float64 {
	x := make([]float64, lead*k*m)
	for l := range lead {
		for j := range m {
			sum := 0.0
			for i := range k {
				v := rng.Float64() + 1e-3
				x[(l*k+i)*m+j] = v
				sum += v
			}
			for i := range k {
				x[(l*k+i)*m+j] /= sum
			}
		}
	}
	return x
}

// randPOMDP builds a random POMDP with ns states, no observations and nu
// actions.
func randPOMDP(tb testing.TB, rng *rand.Rand, ns, no, nu int) *pomdp.Model {
	tb.Helper()
	m, err := pomdp.New(pomdp.Spec{
		NumStates: ns, NumObs: no, NumActions: nu,
		A: randColumns(rng, 1, no, ns),
		B: randColumns(rng, nu, ns, ns),
		C: randColumns(rng, 1, no, 1),
		D: randColumns(rng, 1, ns, 1),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}
