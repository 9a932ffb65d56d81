package si

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpNeg compares expNeg with math.Exp over the softmax's range and
// where it leaves the work to math.Exp.
func TestExpNeg(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	worst := 0.0
	for i := range 1_000_000 {
		x := -708 * rng.Float64()
		switch i % 4 {
		case 0:
			x = -rng.Float64() * 1e-3
		case 1:
			x = -rng.Float64() * 10
		}
		got, want := expNeg(x), math.Exp(x)
		worst = max(worst, math.Abs(got-want)/want)
	}
	// Two units in the last place where the significand is small (one
	// ulp is up to 2^-52 of the number): 4.5e-16 relative. Measured 3.5e-16.
	if worst > 4.5e-16 {
		t.Errorf("expNeg within %.3g of math.Exp (relative), want within 4.5e-16", worst)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), -1e-300, -708, -709, -745, -746, -1000, math.Inf(-1), 1, math.NaN()} {
		got, want := expNeg(x), math.Exp(x)
		if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("expNeg(%v) = %v, want math.Exp's %v", x, got, want)
		}
	}
}

// BenchmarkExpNeg: expNeg against math.Exp on the softmax's arguments.
func BenchmarkExpNeg(b *testing.B) {
	xs := make([]float64, 1024)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range xs {
		xs[i] = -20 * rng.Float64()
	}
	for _, c := range []struct {
		name string
		f    func(float64) float64
	}{{"expNeg", expNeg}, {"math.Exp", math.Exp}} {
		b.Run(c.name, func(b *testing.B) {
			s := 0.0
			for i := 0; b.Loop(); i++ {
				s += c.f(xs[i&1023])
			}
			if s < 0 {
				b.Fatal(s)
			}
		})
	}
}

// BenchmarkExpNegLatency chains the calls, as the search does (each
// softmax waits on the values below it).
func BenchmarkExpNegLatency(b *testing.B) {
	for _, c := range []struct {
		name string
		f    func(float64) float64
	}{{"expNeg", expNeg}, {"math.Exp", math.Exp}} {
		b.Run(c.name, func(b *testing.B) {
			x := -0.5
			for b.Loop() {
				x = -c.f(x) - 0.25
			}
			if x > 0 {
				b.Fatal(x)
			}
		})
	}
}
