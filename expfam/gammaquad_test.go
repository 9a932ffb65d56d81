package expfam

import (
	"math"
	"testing"
)

// TestGammaExpect: the quadrature matches closed forms: E[g] = a/b,
// E[ln g] = ψ(a) - ln b, Var g = a/b², Var ln g = ψ'(a), Cov(ln g, g) =
// 1/b, E[g²] = a(a+1)/b², and E[e^(-g)] = (b/(b+1))^a (the Laplace
// transform), for shapes from 0.05 to 1e6.
func TestGammaExpect(t *testing.T) {
	for _, g := range []Gamma{{0.05, 1}, {0.5, 2}, {1, 1}, {3, 0.2}, {40, 7}, {1e4, 3}, {1e6, 1e3}} {
		a, b := g.Shape, g.Rate
		m := g.Expect(func(x float64) float64 { return x })
		rel := func(got, want float64) float64 { return math.Abs(got-want) / math.Max(1e-300, math.Abs(want)) }
		checks := []struct {
			name      string
			got, want float64
		}{
			{"E g", m.E, a / b},
			{"Var g", m.VarX, a / (b * b)},
			{"Var ln g", m.VarLog, trigamma(a)},
			{"Cov(ln g, g)", m.CX, 1 / b},
			{"Cov(g, g)", m.CovX, a / (b * b)},
			{"E ln g", g.Expect(math.Log).E, g.ExpectedLog()},
			{"E g²", g.Expect(func(x float64) float64 { return x * x }).E, a * (a + 1) / (b * b)},
			{"E e^-g", g.Expect(func(x float64) float64 { return math.Exp(-x) }).E, math.Pow(b/(b+1), a)},
		}
		for _, c := range checks {
			if r := rel(c.got, c.want); r > 1e-10 {
				t.Errorf("Gamma(%g, %g): %s = %.15g, want %.15g (rel %.1e)", a, b, c.name, c.got, c.want, r)
			}
		}
	}
}

// TestGammaFromStats inverts ExpectedStats. (The inversion is
// ill-conditioned for large shapes: ψ(a) - ln a ≈ -1/(2a) is a difference
// of numbers near ln a, so a carries about 1e-16 ln(a) 2a relative error,
// 1e-9 at a = 1e6.)
func TestGammaFromStats(t *testing.T) {
	for _, g := range []Gamma{{0.05, 1}, {0.5, 2}, {1, 1}, {3, 0.2}, {40, 7}, {1e4, 3}, {1e6, 1e3}} {
		got, err := GammaFromStats(g.ExpectedLog(), g.Mean())
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Shape-g.Shape) > 1e-8*g.Shape || math.Abs(got.Rate-g.Rate) > 1e-8*g.Rate {
			t.Errorf("GammaFromStats of %v = %v", g, got)
		}
	}
	if _, err := GammaFromStats(1, 1); err == nil {
		t.Error("E ln g = ln E g accepted")
	}
}

// TestTrigamma against ψ'(1) = π²/6, ψ'(1/2) = π²/2 and the recurrence.
func TestTrigamma(t *testing.T) {
	if d := trigamma(1) - math.Pi*math.Pi/6; math.Abs(d) > 1e-13 {
		t.Errorf("ψ'(1) off by %g", d)
	}
	if d := trigamma(0.5) - math.Pi*math.Pi/2; math.Abs(d) > 1e-12 {
		t.Errorf("ψ'(1/2) off by %g", d)
	}
	if d := trigamma(3.7) - trigamma(4.7) - 1/(3.7*3.7); math.Abs(d) > 1e-14 {
		t.Errorf("recurrence off by %g", d)
	}
}

// TestGammaExpectVec: the vector expectation of h(g) = [g, ln g, 1/(1+g)]
// equals the closed forms a/b and ψ(a) - ln b (to 1e-11 relative) and,
// for the third entry, Expect of the same scalar function (the same
// quadrature, so to 1e-14).
func TestGammaExpectVec(t *testing.T) {
	for _, q := range []Gamma{{Shape: 0.3, Rate: 2}, {Shape: 1, Rate: 1}, {Shape: 7.5, Rate: 0.4}, {Shape: 1e4, Rate: 3e3}} {
		got := q.ExpectVec(make([]float64, 3), nil, func(x float64, out []float64) {
			out[0], out[1], out[2] = x, math.Log(x), 1/(1+x)
		})
		want := []float64{q.Mean(), q.ExpectedLog(), q.Expect(func(x float64) float64 { return 1 / (1 + x) }).E}
		for k, tol := range []float64{1e-11, 1e-11, 1e-14} {
			if d := math.Abs(got[k] - want[k]); d > tol*math.Max(1, math.Abs(want[k])) {
				t.Errorf("Gamma(%g, %g) entry %d: %.15g, want %.15g", q.Shape, q.Rate, k, got[k], want[k])
			}
		}
	}
}

// BenchmarkGammaExpectVec: one vector expectation of a 4-entry softmax,
// the marginal of a collapsed policy (nodes.Softmax.Collapse).
func BenchmarkGammaExpectVec(b *testing.B) {
	q := Gamma{Shape: 2.5, Rate: 1.5}
	g := []float64{0.4, 2.1, 1.3, 2.8}
	dst, scratch := make([]float64, 4), make([]float64, 4)
	b.ReportAllocs()
	for b.Loop() {
		q.ExpectVec(dst, scratch, func(x float64, out []float64) {
			for i, v := range g {
				out[i] = -x * v
			}
			Softmax(out, out)
		})
	}
}
