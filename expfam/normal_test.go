package expfam_test

import (
	"math"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
)

// TestNormalClosedForms checks the Normal's exponential-family identities
// against direct evaluation: the entropy ½ ln(2πe v) against a Riemann sum
// of -p ln p, the log-normaliser against ln ∫ exp(η·T(x)) dx by the same
// sum, E[T] = ∇A(η) by central differences, and the round trip through the
// natural parameters.
func TestNormalClosedForms(t *testing.T) {
	for _, n := range []expfam.Normal{{Mean: 0, Var: 1}, {Mean: 1.5, Var: 0.3}, {Mean: -4, Var: 7}} {
		if err := n.Validate(); err != nil {
			t.Fatal(err)
		}
		eta := n.Natural(nil)
		sd := math.Sqrt(n.Var)
		lo, hi := n.Mean-14*sd, n.Mean+14*sd
		const steps = 200000
		dx := (hi - lo) / steps
		var z, h float64
		for i := range steps {
			x := lo + (float64(i)+0.5)*dx
			z += math.Exp(eta[0]*x+eta[1]*x*x) * dx
			lp := n.LogProb(x)
			h -= math.Exp(lp) * lp * dx
		}
		if got, want := n.LogNormalizer(), math.Log(z); math.Abs(got-want) > 1e-9 {
			t.Errorf("%v: A = %.12g, quadrature %.12g", n, got, want)
		}
		if got := n.Entropy(); math.Abs(got-h) > 1e-9 {
			t.Errorf("%v: H = %.12g, quadrature %.12g", n, got, h)
		}
		// E[T] = ∇A(η).
		a := func(e0, e1 float64) float64 {
			m, err := expfam.NormalFromNatural([]float64{e0, e1})
			if err != nil {
				t.Fatal(err)
			}
			return m.LogNormalizer()
		}
		const d = 1e-6
		g0 := (a(eta[0]+d, eta[1]) - a(eta[0]-d, eta[1])) / (2 * d)
		g1 := (a(eta[0], eta[1]+d) - a(eta[0], eta[1]-d)) / (2 * d)
		st := n.ExpectedStats(nil)
		if math.Abs(g0-st[0]) > 1e-6*(1+math.Abs(st[0])) || math.Abs(g1-st[1]) > 1e-6*(1+math.Abs(st[1])) {
			t.Errorf("%v: ∇A = [%g %g], E[T] = %v", n, g0, g1, st)
		}
		back, err := expfam.NormalFromNatural(eta)
		if err != nil || math.Abs(back.Mean-n.Mean) > 1e-14 || math.Abs(back.Var-n.Var) > 1e-14*n.Var {
			t.Errorf("round trip %v -> %v, %v", n, back, err)
		}
		// H = A(η) - η·E[T] (base measure 1).
		if got := n.LogNormalizer() - eta[0]*st[0] - eta[1]*st[1]; math.Abs(got-n.Entropy()) > 1e-12 {
			t.Errorf("%v: A - η·E[T] = %g, H = %g", n, got, n.Entropy())
		}
	}
	// KL(N(1, 2) || N(0, 1)) = ½ (2 - 1 - ln 2 + 1) = 1 - ½ ln 2.
	if got, want := (expfam.Normal{Mean: 1, Var: 2}).KL(expfam.Normal{Mean: 0, Var: 1}), 1-0.5*math.Log(2); math.Abs(got-want) > 1e-15 {
		t.Errorf("KL = %v, want %v", got, want)
	}
}

func TestNormalRefusesBadNumbers(t *testing.T) {
	for _, tc := range []struct {
		n    expfam.Normal
		want string
	}{
		{expfam.Normal{Mean: math.NaN(), Var: 1}, "mean is NaN"},
		{expfam.Normal{Mean: math.Inf(1), Var: 1}, "mean is +Inf"},
		{expfam.Normal{Mean: 1e200, Var: 1}, "|mean| <="},
		{expfam.Normal{Mean: 0, Var: 0}, "variance is 0, want > 0"},
		{expfam.Normal{Mean: 0, Var: -1}, "variance is -1, want > 0"},
		{expfam.Normal{Mean: 0, Var: math.Inf(1)}, "variance is +Inf"},
		{expfam.Normal{Mean: 0, Var: 1e-200}, "want it in"},
	} {
		wantErr(t, "Validate", tc.n.Validate(), tc.want)
	}
	for _, eta := range [][]float64{{0, 0}, {1, 0.5}, {math.NaN(), -1}, {1}} {
		if _, err := expfam.NormalFromNatural(eta); err == nil {
			t.Errorf("NormalFromNatural(%v): no error", eta)
		}
	}
	wantErr(t, "ValidatePrecision", expfam.ValidatePrecision(0), "precision is 0, want > 0")
	wantErr(t, "ValidateValue", expfam.ValidateValue(math.NaN()), "value NaN, want a finite number")
	if expfam.ValidateValue(-3.5) != nil || expfam.ValidatePrecision(2) != nil {
		t.Error("a good value or precision refused")
	}
}
