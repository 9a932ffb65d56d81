package expfam_test

import (
	"math"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
)

func TestDirichletEntropy(t *testing.T) {
	for _, tc := range []struct {
		name  string
		alpha []float64
		want  float64
		tol   float64
	}{
		// Required reference value (10 decimals), confirmed by mpmath:
		// -8.786543379253377416 (testdata/reference.py).
		{"0.7,0.2,0.1 (10 digits)", []float64{0.7, 0.2, 0.1}, -8.7865433793, 1e-10},
		{"0.7,0.2,0.1", []float64{0.7, 0.2, 0.1}, -8.786543379253377416, 1e-13},
		// Dir(1, ..., 1) is uniform on the simplex with density (K-1)!, so H = -ln (K-1)!.
		{"uniform K=2", []float64{1, 1}, 0, 1e-15},
		{"uniform K=3", []float64{1, 1, 1}, -math.Ln2, 1e-15},
		{"uniform K=4", []float64{1, 1, 1, 1}, -math.Log(6), 1e-15},
		// K = 1 is a point mass at p = (1): ln B = 0 and the ψ terms cancel.
		{"K=1", []float64{3.7}, 0, 0},
		// Concentrations from 1e-3 to 1e6; mpmath (testdata/reference.py).
		{"1e-3 x3", []float64{1e-3, 1e-3, 1e-3}, -1983.0957130769437082, 1e-13},
		{"1e-3,2e-3", []float64{1e-3, 2e-3}, -825.02502889476325722, 1e-13},
		{"1e6,1e-3,2.5", []float64{1e6, 1e-3, 2.5}, -1018.5678959334134796, 1e-12},
	} {
		checkClose(t, tc.name, expfam.Dirichlet{Alpha: tc.alpha}.Entropy(), tc.want, tc.tol)
	}
}

func TestDirichletKL(t *testing.T) {
	for _, tc := range []struct {
		name string
		p, q []float64
		want float64
		tol  float64
	}{
		// Required reference value (10 decimals), confirmed by mpmath:
		// 1.1743590056195487569 (testdata/reference.py).
		{"(0.5,0.5)||(0.1,0.9) (10 digits)", []float64{0.5, 0.5}, []float64{0.1, 0.9}, 1.1743590056, 1e-10},
		{"(0.5,0.5)||(0.1,0.9)", []float64{0.5, 0.5}, []float64{0.1, 0.9}, 1.1743590056195487569, 1e-14},
		// Self-divergence is 0.
		{"self", []float64{0.7, 0.2, 0.1}, []float64{0.7, 0.2, 0.1}, 0, 0},
		{"self huge", []float64{1e6, 3e5}, []float64{1e6, 3e5}, 0, 0},
		// mpmath (testdata/reference.py).
		{"small", []float64{1e-3, 2e-3, 0.5}, []float64{0.01, 1, 1e-3}, 504.99459558422938611, 1e-13},
		// Here ln Γ(1e6) ≈ 1.3e7 and ln Γ(5e5) enter directly (not close
		// enough for the quadrature form), so the absolute error is a few ulp
		// of 1.3e7, about 1e-9: tolerance 1e-11 relative to 994.
		{"mixed", []float64{1e6, 1e-3, 2.5}, []float64{5e5, 1, 3}, 994.24678600152112973, 1e-11},
	} {
		checkClose(t, tc.name, expfam.Dirichlet{Alpha: tc.p}.KL(expfam.Dirichlet{Alpha: tc.q}), tc.want, tc.tol)
	}
	mustPanic(t, "Dirichlet.KL length mismatch", func() {
		expfam.Dirichlet{Alpha: []float64{1, 1}}.KL(expfam.Dirichlet{Alpha: []float64{1, 1, 1}})
	})
}

// KL(Beta(a1, a2) || Beta(b1, b2)) by brute-force quadrature of
// ∫ p(x) ln(p(x)/q(x)) dx on (0, 1): composite midpoint rule in u with
// x = (1 - cos πu)/2, dx = (π/2) sin(πu) du, which flattens the power-law
// endpoint behaviour; 2e5 cells.
func TestDirichletKLQuadrature(t *testing.T) {
	for _, tc := range [][2][]float64{
		{{2, 3}, {1.5, 4}},
		{{5, 2.5}, {3, 3}},
		{{1.2, 1.7}, {2.2, 1.1}},
	} {
		p, q := expfam.Dirichlet{Alpha: tc[0]}, expfam.Dirichlet{Alpha: tc[1]}
		logpdf := func(d expfam.Dirichlet, x float64) float64 {
			return (d.Alpha[0]-1)*math.Log(x) + (d.Alpha[1]-1)*math.Log1p(-x) - d.LogNormalizer()
		}
		const n = 200000
		var kl float64
		for i := range n {
			u := (float64(i) + 0.5) / n
			x := (1 - math.Cos(math.Pi*u)) / 2
			lp := logpdf(p, x)
			kl += math.Exp(lp) * (lp - logpdf(q, x)) * math.Pi / 2 * math.Sin(math.Pi*u)
		}
		kl /= n
		checkClose(t, "Beta KL vs quadrature", p.KL(q), kl, 1e-9)
	}
}

// For huge concentrations the high-precision alternatives are asymptotic
// expansions, derived here with ψ(x) = ln x - 1/(2x) - 1/(12x²) + O(x⁻⁴) and
// ln Γ(x) = (x - 1/2) ln x - x + ln(2π)/2 + 1/(12x) + O(x⁻³).
func TestDirichletHugeConcentrations(t *testing.T) {
	// ExpectedLog: ψ(a) - ψ(s) = ln(a/s) - 1/(2a) + 1/(2s) - 1/(12a²) + 1/(12s²) + O(a⁻⁴).
	for _, alpha := range [][]float64{{1e6, 1e6}, {1e6, 3e6, 2e5}, {1e6, 1e-3, 2.5}, {5e5, 5e5 + 1}} {
		var s float64
		for _, a := range alpha {
			s += a
		}
		got := expfam.Dirichlet{Alpha: alpha}.ExpectedLog(nil)
		for i, a := range alpha {
			if a < 1e5 {
				continue // asymptotics do not apply; see the mpmath test
			}
			want := math.Log(a/s) - 1/(2*a) + 1/(2*s) - 1/(12*a*a) + 1/(12*s*s)
			// The values can be as small as 2.5e-6 ({1e6, 1e-3, 2.5}); the
			// absolute error of a difference of two ψ ≈ 14 is a few 1e-15.
			if math.Abs(got[i]-want) > 1e-13 {
				t.Errorf("ExpectedLog(%v)[%d] = %.17g, want %.17g (asymptotic)", alpha, i, got[i], want)
			}
		}
	}
	// ψ(1e6) - ψ(1e6 + 1e-3 + 2.5) ≈ -2.5e-6: relative accuracy 1e-8, mpmath
	// gives -2.500998123002003915e-06 (testdata/reference.py); the other
	// entries too.
	got := expfam.Dirichlet{Alpha: []float64{1e6, 1e-3, 2.5}}.ExpectedLog(nil)
	checkRel(t, "ExpectedLog(1e6,1e-3,2.5)[0]", got[0], -2.500998123002003915e-06, 1e-8)
	checkClose(t, "ExpectedLog(1e6,1e-3,2.5)[1]", got[1], -1014.3910844907726142, 1e-14)
	checkClose(t, "ExpectedLog(1e6,1e-3,2.5)[2]", got[2], -13.112355918317070586, 1e-14)

	// Entropy: substituting the expansions into
	// H = Σ[ln Γ(α_i) - (α_i - 1)ψ(α_i)] - ln Γ(α_0) + (α_0 - K)ψ(α_0), the
	// α and α ln α terms cancel exactly and
	// H = ½ Σ ln α_i + (½ - K) ln α_0 + (K - 1)(½ ln 2π + ½) - Σ 1/(3α_i) + (K/2 - 1/6)/α_0 + O(α⁻²).
	// (At α = (1e6, 1e6) mpmath agrees with this to 1.3e-13.)
	for _, alpha := range [][]float64{{1e6, 1e6}, {1e6, 3e6, 2e6}, {5e5, 7e5, 9e5, 1.1e6}} {
		k := float64(len(alpha))
		var a0, want float64
		for _, a := range alpha {
			a0 += a
			want += 0.5*math.Log(a) - 1/(3*a)
		}
		want += (0.5-k)*math.Log(a0) + (k-1)*(0.5*math.Log(2*math.Pi)+0.5) + (k/2-1.0/6)/a0
		// ln Γ(α_0) ≈ 1e7 here, so the cancellation leaves an absolute error of some 1e-9.
		checkClose(t, "Entropy (asymptotic)", expfam.Dirichlet{Alpha: alpha}.Entropy(), want, 1e-8)
	}

	// KL(Dir(1e6, 1e6) || Dir(1e6+3, 1e6-2)): with ln Γ(x+n) - ln Γ(x) = Σ_{j<n} ln(x+j),
	// ln B(β) - ln B(α) = ln(1e6 (1e6+1)(1e6+2)) - ln((1e6-2)(1e6-1)) - ln(2e6)
	//                   = log1p(1e-6) - log1p(-1e-6) + log1p(2e-6) - log1p(-2e-6) - ln 2,
	// and Σ(α_i - β_i)(ψ(α_i) - ψ(α_0)) = ψ(2e6) - ψ(1e6) = ln 2 + 1/(4e6) + 1/(16e12) + O(1e-24).
	// mpmath: 6.250000062505999999992e-06 (testdata/reference.py).
	want := math.Log1p(1e-6) - math.Log1p(-1e-6) + math.Log1p(2e-6) - math.Log1p(-2e-6) + 1/4e6 + 1/16e12
	checkRel(t, "want (derivation vs mpmath)", want, 6.250000062505999999992e-06, 1e-14)
	got2 := expfam.Dirichlet{Alpha: []float64{1e6, 1e6}}.KL(expfam.Dirichlet{Alpha: []float64{1e6 + 3, 1e6 - 2}})
	// A plain difference of math.Lgamma values (each ≈ 1.3e7) would be off
	// by some 1e-8, i.e. 0.2% of the answer.
	checkRel(t, "KL huge, close", got2, want, 1e-8)
}

// Values where Γ(x) itself overflows (Γ(172) = +Inf in float64): the
// log-normaliser must come from math.Lgamma. mpmath (testdata/reference.py).
func TestDirichletLgammaRange(t *testing.T) {
	if !math.IsInf(math.Gamma(200), 1) {
		t.Fatal("math.Gamma(200) no longer overflows; the test premise changed")
	}
	checkClose(t, "ln B(200, 200)", expfam.Dirichlet{Alpha: []float64{200, 200}}.LogNormalizer(), -278.64189378441853349, 1e-14)
	checkClose(t, "ln B(1e6, 1e6)", expfam.Dirichlet{Alpha: []float64{1e6, 1e6}}.LogNormalizer(), -1386300.0033629211163, 1e-15)
	for _, alpha := range [][]float64{{200, 200}, {1e6, 1e6}, {1e6, 1e-3}} {
		d := expfam.Dirichlet{Alpha: alpha}
		for _, v := range []float64{d.LogNormalizer(), d.Entropy(), d.KL(expfam.Dirichlet{Alpha: []float64{1, 1}})} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("Dirichlet%v: non-finite result %v", alpha, v)
			}
		}
	}
}

// Gradient of the log-normaliser = expected sufficient statistics (paper
// Appendix D): ∂ ln B(α)/∂α_i = ψ(α_i) - ψ(α_0) = ExpectedLog, and since
// η = α - 1 the derivative in η is the same. Central differences with a step
// relative to α_i; the error is truncation O(h² ψ”') plus rounding
// ε|ln B|/h, so the tolerance is relative to the size of ln B.
func TestDirichletExpectedLogGradient(t *testing.T) {
	for _, alpha := range [][]float64{{0.7, 0.2, 0.1}, {0.5, 0.5}, {2, 3, 4, 5}, {1e-3, 1, 10}, {1e3, 2e3}, {1e6, 2.5}} {
		d := expfam.Dirichlet{Alpha: alpha}
		want := d.ExpectedLog(nil)
		lnB := func(a []float64) float64 { return expfam.Dirichlet{Alpha: a}.LogNormalizer() }
		scale := math.Max(1, math.Abs(d.LogNormalizer()))
		for i := range alpha {
			h := 1e-4 * alpha[i]
			g := centralDiff(lnB, alpha, i, h)
			if math.Abs(g-want[i]) > 1e-6*math.Max(1, math.Abs(want[i]))+1e-11*scale/h {
				t.Errorf("Dirichlet%v: d lnB/d alpha_%d = %.12g by finite differences, ExpectedLog = %.12g", alpha, i, g, want[i])
			}
		}
	}
}

// Entropy identity H = A(η) - η·E[T] - E[ln h] with h = 1, η = α - 1,
// E[T] = ExpectedLog; and KL(p||q) = A(η_q) - A(η_p) - (η_q - η_p)·E_p[T].
func TestDirichletIdentities(t *testing.T) {
	for _, tc := range [][2][]float64{
		{{0.7, 0.2, 0.1}, {1, 2, 3}},
		{{0.5, 0.5}, {0.1, 0.9}},
		{{3, 4, 5, 6}, {1e-2, 10, 1, 100}},
		{{1e-3, 1e-3}, {1, 1}},
	} {
		p, q := expfam.Dirichlet{Alpha: tc[0]}, expfam.Dirichlet{Alpha: tc[1]}
		etaP, etaQ, et := p.Natural(nil), q.Natural(nil), p.ExpectedLog(nil)
		h := p.LogNormalizer() - dot(etaP, et)
		checkClose(t, "entropy identity", p.Entropy(), h, 1e-12)
		var d float64
		for i := range etaP {
			d += (etaQ[i] - etaP[i]) * et[i]
		}
		checkClose(t, "KL identity", p.KL(q), q.LogNormalizer()-p.LogNormalizer()-d, 1e-12)
	}
}

func TestDirichletMeanNatural(t *testing.T) {
	d := expfam.Dirichlet{Alpha: []float64{1, 2, 5}}
	// α/α_0 with α_0 = 8.
	if diff := sliceDiff([]float64{1. / 8, 2. / 8, 5. / 8}, d.Mean(nil), 1e-16); diff != "" {
		t.Errorf("Mean: %s", diff)
	}
	if diff := sliceDiff([]float64{0, 1, 4}, d.Natural(nil), 0); diff != "" {
		t.Errorf("Natural: %s", diff)
	}
	// ψ(1) - ψ(8) = -(1 + 1/2 + ... + 1/7) (ψ(n+1) = ψ(n) + 1/n).
	if e := d.ExpectedLog(nil)[0]; !near(e, -(1 + 1./2 + 1./3 + 1./4 + 1./5 + 1./6 + 1./7), 1e-14) {
		t.Errorf("ExpectedLog[0] = %v", e)
	}
	mustPanic(t, "Mean short dst", func() { d.Mean(make([]float64, 2)) })
	mustPanic(t, "ExpectedLog short dst", func() { d.ExpectedLog(make([]float64, 2)) })
	mustPanic(t, "Natural long dst", func() { d.Natural(make([]float64, 4)) })
}

func TestDirichletValidate(t *testing.T) {
	if err := (expfam.Dirichlet{Alpha: []float64{0.1, 1e6}}).Validate(); err != nil {
		t.Errorf("valid: %v", err)
	}
	for _, tc := range []struct {
		alpha []float64
		frag  []string
	}{
		{nil, []string{"no entries"}},
		{[]float64{1, 0, 2}, []string{"alpha[1]", "is 0", "> 0"}},
		{[]float64{1, 2, -3}, []string{"alpha[2]", "is -3"}},
		{[]float64{math.NaN()}, []string{"alpha[0]", "NaN", "finite"}},
		{[]float64{1, math.Inf(1)}, []string{"alpha[1]", "+Inf", "finite"}},
	} {
		wantErr(t, "Validate", expfam.Dirichlet{Alpha: tc.alpha}.Validate(), tc.frag...)
	}
}

func TestDirichletAlphaFromNatural(t *testing.T) {
	eta := []float64{-0.5, 0, 2}
	dst := make([]float64, 3)
	if err := expfam.DirichletAlphaFromNatural(dst, eta); err != nil {
		t.Fatal(err)
	}
	if d := sliceDiff([]float64{0.5, 1, 3}, dst, 0); d != "" {
		t.Errorf("alpha: %s", d)
	}
	// In place and validate-only.
	in := []float64{-0.5, 0, 2}
	if err := expfam.DirichletAlphaFromNatural(in, in); err != nil || in[0] != 0.5 || in[2] != 3 {
		t.Errorf("in place: %v, %v", in, err)
	}
	if err := expfam.DirichletAlphaFromNatural(nil, eta); err != nil {
		t.Errorf("nil dst: %v", err)
	}
	for _, tc := range []struct {
		eta  []float64
		frag string
	}{
		{[]float64{0, -1}, "parameter 1"},
		{[]float64{-2, 0}, "parameter 0"},
		{[]float64{0, 0, math.NaN()}, "parameter 2"},
		{[]float64{math.Inf(1)}, "parameter 0"},
	} {
		dst := []float64{7, 7, 7}[:len(tc.eta)]
		err := expfam.DirichletAlphaFromNatural(dst, tc.eta)
		wantErr(t, "DirichletAlphaFromNatural", err, tc.frag)
		for _, x := range dst {
			if x != 7 {
				t.Errorf("dst changed on error: %v", dst)
				break
			}
		}
	}
	mustPanic(t, "length mismatch", func() { _ = expfam.DirichletAlphaFromNatural(make([]float64, 2), eta) })
	err := expfam.DirichletAlphaFromNatural(nil, []float64{-1})
	if err == nil || !strings.Contains(err.Error(), "want finite and > 0") {
		t.Errorf("error %v does not say what is wanted", err)
	}
}
