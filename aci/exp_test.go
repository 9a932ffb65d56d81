package aci

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFastExp compares fastExp with the standard library's math.Exp (the
// reference) over the range lse.add gives it, and where it leaves the
// work to math.Exp.
func TestFastExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 400000 {
		x := -708 * rng.Float64()
		if i%3 == 0 {
			x = -rng.Float64() * 1e-3
		}
		got, want := fastExp(x), math.Exp(x)
		if math.Abs(got-want) > 4.5e-16*want {
			t.Fatalf("fastExp(%v) = %v, math.Exp %v", x, got, want)
		}
	}
	for _, x := range []float64{0, -1e-300, -708, -709, -745, -746, -1000, math.Inf(-1), 1, math.NaN()} {
		got, want := fastExp(x), math.Exp(x)
		if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("fastExp(%v) = %v, want math.Exp's %v", x, got, want)
		}
	}
}
