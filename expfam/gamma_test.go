package expfam_test

import (
	"math"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
)

const eulerGamma = 0.57721566490153286060651209008240243

// Closed forms, from H = a - ln b + ln Γ(a) + (1 - a) ψ(a):
//   - a = 1 is the exponential distribution with rate b: H = 1 - ln b
//     (ln Γ(1) = 0, and the ψ term vanishes).
//   - a = 2, b = 1: H = 2 + ln Γ(2) - ψ(2) = 2 - (1 - γ) = 1 + γ, with
//     ψ(2) = 1 - γ (ψ(n+1) = ψ(n) + 1/n, ψ(1) = -γ).
//   - a = 3, b = 2: H = 3 - ln 2 + ln 2 - 2 ψ(3) = 3 - 2(3/2 - γ) = 2γ.
//   - Large a, from Stirling's series for ln Γ and ψ (derivation:
//     ln Γ(a) = (a-½) ln a - a + ½ ln 2π + 1/(12a) + O(a⁻³),
//     (1-a) ψ(a) = (1-a) ln a + ½ - 1/(2a) + 1/(12a) - 1/(12a²) + O(a⁻³)):
//     H = ½ ln(2π a) + ½ - ln b - 1/(3a) - 1/(12a²) + O(a⁻³).
//   - a = 200: mpmath 4.066428465095025343529 (testdata/reference.py); Γ(200)
//     overflows float64, so this exercises math.Lgamma.
func TestGammaEntropy(t *testing.T) {
	stirling := func(a, b float64) float64 {
		return 0.5*math.Log(2*math.Pi*a) + 0.5 - math.Log(b) - 1/(3*a) - 1/(12*a*a)
	}
	for _, tc := range []struct {
		name       string
		shape, rat float64
		want, tol  float64
	}{
		{"exponential rate 1", 1, 1, 1, 1e-15},
		{"exponential rate 3", 1, 3, 1 - math.Log(3), 1e-15},
		{"exponential rate 1e-3", 1, 1e-3, 1 - math.Log(1e-3), 1e-15},
		// ψ is accurate to ~2e-15 (special_internal_test.go), hence 5e-15.
		{"a=2 b=1", 2, 1, 1 + eulerGamma, 5e-15},
		{"a=3 b=2", 3, 2, 2 * eulerGamma, 5e-15},
		{"a=200", 200, 1, 4.066428465095025343529, 1e-13},
		// ln Γ(1e6) ≈ 1.3e7: the cancellation leaves ~1e-9 absolute.
		{"a=1e6 b=2.5", 1e6, 2.5, stirling(1e6, 2.5), 1e-9},
	} {
		checkClose(t, tc.name, expfam.Gamma{Shape: tc.shape, Rate: tc.rat}.Entropy(), tc.want, tc.tol)
	}
}

// Closed forms for the KL:
//   - Exponentials (a = c = 1): KL = ln(b/d) + d/b - 1.
//   - Same rate b = d = 1, a = 2, c = 1: KL = ψ(2) - ln Γ(2) + ln Γ(1) = 1 - γ.
//   - Same shape a = c, rates b, d: KL = a (ln(b/d) + d/b - 1).
//   - Huge, close shapes: mpmath (testdata/reference.py) gives
//     KL(Gamma(1e6, 2) || Gamma(1e6+5, 2+2^-16)) = 3.456840706706253835e-06.
func TestGammaKL(t *testing.T) {
	for _, tc := range []struct {
		name string
		p, q expfam.Gamma
		want float64
		tol  float64
	}{
		{"exponentials", expfam.Gamma{Shape: 1, Rate: 2}, expfam.Gamma{Shape: 1, Rate: 0.5}, math.Log(4) + 0.25 - 1, 1e-15},
		{"shape 2 vs 1", expfam.Gamma{Shape: 2, Rate: 1}, expfam.Gamma{Shape: 1, Rate: 1}, 1 - eulerGamma, 5e-15},
		{"same shape", expfam.Gamma{Shape: 7.5, Rate: 3}, expfam.Gamma{Shape: 7.5, Rate: 2}, 7.5 * (math.Log(1.5) + 2./3 - 1), 1e-15},
		{"self", expfam.Gamma{Shape: 1e6, Rate: 1e-3}, expfam.Gamma{Shape: 1e6, Rate: 1e-3}, 0, 0},
	} {
		checkClose(t, tc.name, tc.p.KL(tc.q), tc.want, tc.tol)
	}
	// Relative accuracy 1e-8 on a 3.5e-6 divergence between distributions
	// whose ln Γ values are 1.3e7 (a direct difference would keep ~1e-3).
	got := expfam.Gamma{Shape: 1e6, Rate: 2}.KL(expfam.Gamma{Shape: 1e6 + 5, Rate: 2 + 1.0/65536})
	checkRel(t, "huge close shapes", got, 3.456840706706253835e-06, 1e-8)
}

// KL(p || q) by brute-force quadrature of ∫ p(g) ln(p(g)/q(g)) dg, with
// g = e^u (dg = e^u du) and the trapezoidal rule on u ∈ [-40, 8], step 1e-4:
// the integrand is smooth and decays double-exponentially on the right and
// like e^(a u) on the left, so the trapezoidal rule converges fast.
func TestGammaKLQuadrature(t *testing.T) {
	logpdf := func(d expfam.Gamma, g float64) float64 {
		// ln p(g) = (a-1) ln g - b g - (ln Γ(a) - a ln b).
		return (d.Shape-1)*math.Log(g) - d.Rate*g - d.LogNormalizer()
	}
	for _, tc := range [][2]expfam.Gamma{
		{{Shape: 2, Rate: 3}, {Shape: 1.5, Rate: 1}},
		{{Shape: 0.7, Rate: 0.5}, {Shape: 1, Rate: 1}},
		{{Shape: 10, Rate: 2}, {Shape: 8, Rate: 2.5}},
		{{Shape: 200, Rate: 100}, {Shape: 190, Rate: 99}},
	} {
		p, q := tc[0], tc[1]
		const lo, hi, h = -40.0, 8.0, 1e-4
		var kl float64
		for u := lo; u <= hi; u += h {
			g := math.Exp(u)
			lp := logpdf(p, g)
			kl += math.Exp(lp+u) * (lp - logpdf(q, g))
		}
		kl *= h
		checkClose(t, "Gamma KL vs quadrature", p.KL(q), kl, 1e-9)
	}
}

// Exponential-family identities, with η = [a-1, -b], E[T] = [ψ(a) - ln b, a/b],
// A(η) = ln Γ(a) - a ln b and base measure 1:
// H = A(η) - η·E[T], KL(p||q) = A(η_q) - A(η_p) - (η_q - η_p)·E_p[T].
func TestGammaIdentities(t *testing.T) {
	for _, tc := range [][2]expfam.Gamma{
		{{Shape: 2, Rate: 3}, {Shape: 1.5, Rate: 1}},
		{{Shape: 1e-3, Rate: 10}, {Shape: 1, Rate: 1}},
		{{Shape: 200, Rate: 0.01}, {Shape: 3, Rate: 7}},
	} {
		p, q := tc[0], tc[1]
		etaP, etaQ, et := p.Natural(nil), q.Natural(nil), p.ExpectedStats(nil)
		scale := math.Abs(p.LogNormalizer()) + math.Abs(q.LogNormalizer())
		checkClose(t, "entropy identity", p.Entropy(), p.LogNormalizer()-dot(etaP, et), 1e-14*math.Max(1, scale))
		d := (etaQ[0]-etaP[0])*et[0] + (etaQ[1]-etaP[1])*et[1]
		checkClose(t, "KL identity", p.KL(q), q.LogNormalizer()-p.LogNormalizer()-d, 1e-14*math.Max(1, scale))
	}
}

// Gradient of the log-normaliser in natural coordinates equals the expected
// statistics (paper Appendix D): A(η) = ln Γ(η_1 + 1) - (η_1 + 1) ln(-η_2),
// ∂A/∂η_1 = ψ(a) - ln b, ∂A/∂η_2 = a/b.
func TestGammaGradient(t *testing.T) {
	logNorm := func(eta []float64) float64 {
		g, err := expfam.GammaFromNatural(eta)
		if err != nil {
			t.Fatal(err)
		}
		return g.LogNormalizer()
	}
	for _, g := range []expfam.Gamma{{Shape: 2, Rate: 3}, {Shape: 0.3, Rate: 0.1}, {Shape: 50, Rate: 7}, {Shape: 1e4, Rate: 1e2}} {
		eta, want := g.Natural(nil), g.ExpectedStats(nil)
		scale := math.Max(1, math.Abs(g.LogNormalizer()))
		for i, h := range []float64{1e-4 * g.Shape, 1e-4 * g.Rate} {
			d := centralDiff(logNorm, eta, i, h)
			if math.Abs(d-want[i]) > 1e-6*math.Max(1, math.Abs(want[i]))+1e-11*scale/h {
				t.Errorf("%+v: dA/deta_%d = %.12g by finite differences, ExpectedStats = %.12g", g, i, d, want[i])
			}
		}
	}
}

func TestGammaBasics(t *testing.T) {
	g := expfam.Gamma{Shape: 3, Rate: 2}
	if d := sliceDiff([]float64{2, -2}, g.Natural(nil), 0); d != "" {
		t.Errorf("Natural: %s", d)
	}
	// ψ(3) = 3/2 - γ; digamma is accurate to ~2e-15 (special_internal_test.go).
	if d := sliceDiff([]float64{1.5 - eulerGamma - math.Ln2, 1.5}, g.ExpectedStats(nil), 3e-15); d != "" {
		t.Errorf("ExpectedStats: %s", d)
	}
	checkClose(t, "Mean", g.Mean(), 1.5, 0)
	checkClose(t, "ExpectedLog", g.ExpectedLog(), 1.5-eulerGamma-math.Ln2, 3e-15)
	// ln Γ(3) - 3 ln 2 = ln 2 - 3 ln 2 = -2 ln 2.
	checkClose(t, "LogNormalizer", g.LogNormalizer(), -2*math.Ln2, 1e-15)
	// Γ(200) overflows; mpmath: ln Γ(200) - 200 ln 3 = 638.2112120922354985 (testdata/reference.py).
	checkClose(t, "LogNormalizer(200, 3)", expfam.Gamma{Shape: 200, Rate: 3}.LogNormalizer(), 638.2112120922354985, 1e-15)
	for _, v := range []float64{
		expfam.Gamma{Shape: 1e6, Rate: 1}.LogNormalizer(),
		expfam.Gamma{Shape: 1e6, Rate: 1}.Entropy(),
		expfam.Gamma{Shape: 1e-3, Rate: 1e6}.Entropy(),
		expfam.Gamma{Shape: 1e-3, Rate: 1}.KL(expfam.Gamma{Shape: 1e6, Rate: 1e-3}),
	} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("non-finite %v", v)
		}
	}
	mustPanic(t, "Natural dst", func() { g.Natural(make([]float64, 3)) })
	mustPanic(t, "ExpectedStats dst", func() { g.ExpectedStats(make([]float64, 1)) })
}

func TestGammaValidateFromNatural(t *testing.T) {
	if err := (expfam.Gamma{Shape: 1e-3, Rate: 1e6}).Validate(); err != nil {
		t.Error(err)
	}
	for _, tc := range []struct {
		g    expfam.Gamma
		frag []string
	}{
		{expfam.Gamma{Shape: 0, Rate: 1}, []string{"shape", "is 0"}},
		{expfam.Gamma{Shape: 1, Rate: -2}, []string{"rate", "is -2"}},
		{expfam.Gamma{Shape: math.NaN(), Rate: 1}, []string{"shape", "NaN", "finite"}},
		{expfam.Gamma{Shape: 1, Rate: math.Inf(1)}, []string{"rate", "+Inf"}},
	} {
		wantErr(t, "Validate", tc.g.Validate(), tc.frag...)
	}
	g, err := expfam.GammaFromNatural([]float64{1, -2})
	if err != nil || g != (expfam.Gamma{Shape: 2, Rate: 2}) {
		t.Errorf("GammaFromNatural([1 -2]) = %+v, %v", g, err)
	}
	for _, tc := range []struct {
		eta  []float64
		frag []string
	}{
		{[]float64{-1, -1}, []string{"shape", "is 0", "[-1 -1]"}},
		{[]float64{0, 0}, []string{"rate", "is 0"}},
		{[]float64{0, 3}, []string{"rate", "is -3"}},
		{[]float64{math.Inf(1), -1}, []string{"shape", "+Inf"}},
		{[]float64{1}, []string{"1 natural parameters, want 2"}},
		{nil, []string{"0 natural parameters"}},
	} {
		_, err := expfam.GammaFromNatural(tc.eta)
		wantErr(t, "GammaFromNatural", err, tc.frag...)
	}
}
