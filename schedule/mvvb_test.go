package schedule_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
	"gonum.org/v1/gonum/mat"
)

// need returns x, or panics on an error of a fixture's construction (the
// test then fails with the error).
func need[T any](x T, err error) T {
	if err != nil {
		panic(err)
	}
	return x
}

func closeTo(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))) {
		t.Errorf("%s = %.15g, want %.15g (diff %g)", what, got, want, got-want)
	}
}

// Bayesian linear regression with a weight vector: w ~ N(0, α⁻¹I) with α
// known, τ ~ Gamma(a₀, b₀), y_n ~ N(x_nᵀw, 1/τ), K = 3, N = 200. The VMP
// fixed point q(w) q(τ) against the coordinate-ascent loop written out
// (Bishop §10.3 with the roles of the two precisions swapped):
//
//	S⁻¹ = αI + E[τ] XᵀX,  m = E[τ] S Xᵀy,
//	a = a₀ + N/2,  b = b₀ + ½ (|y - Xm|² + tr(XᵀX S)),  E[τ] = a/b.
func TestVMPLinearRegressionWeightVector(t *testing.T) {
	const k, n, alpha, a0, b0 = 3, 200, 0.5, 1.0, 1.0
	rng := rand.New(rand.NewPCG(21, 22))
	wTrue := []float64{1.5, -0.7, 0.3}
	x := mat.NewDense(n, k, nil)
	y := mat.NewVecDense(n, nil)
	for i := range n {
		s := 0.0
		for j := range k {
			v := rng.NormFloat64()
			x.Set(i, j, v)
			s += v * wTrue[j]
		}
		y.SetVec(i, s+0.4*rng.NormFloat64())
	}

	g := ffg.New()
	w := need(g.AddVariable("w", expfam.MvNormalFamily, k))
	tau := need(g.AddVariable("tau", expfam.GammaFamily))
	prior := need(nodes.NewMvNormal(k, nodes.LiteralMvMean(make([]float64, k)), nodes.LiteralMvPrecision([]float64{alpha, 0, 0, 0, alpha, 0, 0, 0, alpha})))
	need(g.AddFactor("", prior, w))
	need(g.AddFactor("", need(nodes.NewGamma(a0, b0)), tau))
	for i := range n {
		yi := need(g.AddVariable("", expfam.NormalFamily))
		if err := yi.ObserveValue(y.AtVec(i)); err != nil {
			t.Fatal(err)
		}
		f := need(nodes.NewNormalDot(x.RawRowView(i), nodes.LiteralMean(0), nodes.VariablePrecision()))
		need(g.AddFactor("", f, yi, w, tau))
	}
	res, err := schedule.Run(context.Background(), g, &schedule.Settings{Iterations: 1000, Tolerance: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Increases) > 0 {
		t.Errorf("F rose: %v", res.Increases)
	}

	var xtx mat.SymDense
	xtx.SymOuterK(1, x.T())
	var xty mat.VecDense
	xty.MulVec(x.T(), y)
	eTau := a0 / b0
	var m mat.VecDense
	s := mat.NewSymDense(k, nil)
	aN, bN := a0+n/2.0, b0
	for range 2000 {
		prec := mat.NewSymDense(k, nil)
		prec.ScaleSym(eTau, &xtx)
		for j := range k {
			prec.SetSym(j, j, prec.At(j, j)+alpha)
		}
		var ch mat.Cholesky
		ch.Factorize(prec)
		if err := ch.InverseTo(s); err != nil {
			t.Fatal(err)
		}
		m.MulVec(s, &xty)
		m.ScaleVec(eTau, &m)
		var r mat.VecDense
		r.MulVec(x, &m)
		r.SubVec(y, &r)
		var tr float64
		for i := range k {
			for j := range k {
				tr += xtx.At(i, j) * s.At(i, j)
			}
		}
		bN = b0 + 0.5*(mat.Dot(&r, &r)+tr)
		eTau = aN / bN
	}
	q := w.MvNormal()
	for i := range k {
		closeTo(t, "E w", q.Mean[i], m.AtVec(i), 1e-8)
		for j := range k {
			closeTo(t, "Cov w", q.Cov[i*k+j], s.At(i, j), 1e-8)
		}
	}
	closeTo(t, "τ shape", tau.Gamma().Shape, aN, 1e-8)
	closeTo(t, "τ rate", tau.Gamma().Rate, bN, 1e-8)
}

// Unknown mean vector and precision matrix with independent priors μ ~
// N(m₀, L₀⁻¹), Λ ~ W(ν₀, V₀), x_n ~ N(μ, Λ⁻¹), d = 3, N = 500: the VMP
// fixed point q(μ) q(Λ) against the loop written out:
//
//	S⁻¹ = L₀ + N E[Λ],  m = S (L₀ m₀ + E[Λ] Σ x_n),
//	ν = ν₀ + N,  V⁻¹ = V₀⁻¹ + Σ_n (x_n - m)(x_n - m)ᵀ + N S,  E[Λ] = νV.
func TestVMPMeanVectorAndPrecisionMatrix(t *testing.T) {
	const d, n, nu0 = 3, 500, 5.0
	rng := rand.New(rand.NewPCG(23, 24))
	m0 := []float64{0, 1, -1}
	l0 := []float64{0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1}
	v0 := []float64{0.5, 0.1, 0, 0.1, 0.5, 0, 0, 0, 0.5}
	data := make([][]float64, n)
	for i := range data {
		z := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		data[i] = []float64{2 + z[0], -1 + 0.5*z[0] + 0.7*z[1], 0.3 + 0.2*z[1] + 1.5*z[2]}
	}

	g := ffg.New()
	mu := need(g.AddVariable("mu", expfam.MvNormalFamily, d))
	lam := need(g.AddVariable("Lambda", expfam.WishartFamily, d))
	need(g.AddFactor("", need(nodes.NewMvNormal(d, nodes.LiteralMvMean(m0), nodes.LiteralMvPrecision(l0))), mu))
	need(g.AddFactor("", need(nodes.NewWishart(nu0, v0, d)), lam))
	lik := need(nodes.NewMvNormal(d, nodes.VariableMvMean(), nodes.WishartPrecision()))
	for _, xn := range data {
		xv := need(g.AddVariable("", expfam.MvNormalFamily, d))
		if err := xv.ObserveVector(xn); err != nil {
			t.Fatal(err)
		}
		need(g.AddFactor("", lik, xv, mu, lam))
	}
	res, err := schedule.Run(context.Background(), g, &schedule.Settings{Iterations: 1000, Tolerance: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Increases) > 0 {
		t.Errorf("F rose: %v", res.Increases)
	}

	L0 := mat.NewSymDense(d, l0)
	var v0inv mat.SymDense
	var c0 mat.Cholesky
	c0.Factorize(mat.NewSymDense(d, v0))
	if err := c0.InverseTo(&v0inv); err != nil {
		t.Fatal(err)
	}
	sum := mat.NewVecDense(d, nil)
	for _, xn := range data {
		sum.AddVec(sum, mat.NewVecDense(d, xn))
	}
	var l0m0 mat.VecDense
	l0m0.MulVec(L0, mat.NewVecDense(d, m0))
	// Start as VMP does: q(Λ) at its prior.
	eLam := mat.NewSymDense(d, nil)
	eLam.ScaleSym(nu0, mat.NewSymDense(d, v0))
	nu := nu0 + n
	s := mat.NewSymDense(d, nil)
	var m mat.VecDense
	v := mat.NewSymDense(d, nil)
	for range 500 {
		prec := mat.NewSymDense(d, nil)
		prec.ScaleSym(n, eLam)
		prec.AddSym(prec, L0)
		var ch mat.Cholesky
		ch.Factorize(prec)
		if err := ch.InverseTo(s); err != nil {
			t.Fatal(err)
		}
		var rhs mat.VecDense
		rhs.MulVec(eLam, sum)
		rhs.AddVec(&rhs, &l0m0)
		m.MulVec(s, &rhs)
		vinv := mat.NewSymDense(d, nil)
		vinv.CopySym(&v0inv)
		for _, xn := range data {
			var r mat.VecDense
			r.SubVec(mat.NewVecDense(d, xn), &m)
			vinv.SymRankOne(vinv, 1, &r)
		}
		for i := range d {
			for j := i; j < d; j++ {
				vinv.SetSym(i, j, vinv.At(i, j)+n*s.At(i, j))
			}
		}
		var cv mat.Cholesky
		cv.Factorize(vinv)
		if err := cv.InverseTo(v); err != nil {
			t.Fatal(err)
		}
		eLam.ScaleSym(nu, v)
	}
	qm, qw := mu.MvNormal(), lam.Wishart()
	for i := range d {
		closeTo(t, "E μ", qm.Mean[i], m.AtVec(i), 1e-8)
		for j := range d {
			closeTo(t, "Cov μ", qm.Cov[i*d+j], s.At(i, j), 1e-8)
			closeTo(t, "Λ scale", qw.Scale[i*d+j], v.At(i, j), 1e-8)
		}
	}
	closeTo(t, "Λ df", qw.DF, nu, 1e-12)
}

// Beta-Bernoulli: p ~ Beta(a, b) and s successes in N tosses. VMP is exact
// here: q(p) = Beta(a + s, b + N - s) after one sweep, and F = -ln p(data)
// = ln B(a, b) - ln B(a + s, b + N - s).
func TestVMPBetaBernoulli(t *testing.T) {
	const a, b = 2.0, 3.0
	tosses := []int{1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0}
	g := ffg.New()
	p := need(g.AddVariable("p", expfam.BetaFamily))
	need(g.AddFactor("", need(nodes.NewBeta(a, b)), p))
	s := 0
	for _, x := range tosses {
		y := need(g.AddVariable("", expfam.CategoricalFamily, 2))
		if err := y.Observe(x); err != nil {
			t.Fatal(err)
		}
		s += x
		need(g.AddFactor("", nodes.NewBernoulliBeta(), y, p))
	}
	res, err := schedule.Run(context.Background(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := float64(len(tosses) - s)
	closeTo(t, "a", p.Beta().A, a+float64(s), 1e-15)
	closeTo(t, "b", p.Beta().B, b+f, 1e-15)
	lnB := func(x, y float64) float64 {
		lx, _ := math.Lgamma(x)
		ly, _ := math.Lgamma(y)
		lxy, _ := math.Lgamma(x + y)
		return lx + ly - lxy
	}
	closeTo(t, "F", res.Final(), lnB(a, b)-lnB(a+float64(s), b+f), 1e-12)
	if res.Iterations != 2 || !res.Converged {
		t.Errorf("%d sweeps, converged %v; want the second sweep to confirm the first", res.Iterations, res.Converged)
	}
}

// A run that raised F at several sweeps is reported on one line.
func TestWarningOncePerRun(t *testing.T) {
	r := &schedule.Result{Increases: []schedule.Increase{{Sweep: 3, From: 1, To: 1.5}, {Sweep: 5, From: 2, To: 4}, {Sweep: 9, From: 1, To: 1.25}}}
	want := "warning: F increased at sweep 3 from 1 to 1.5 (and at 2 later sweeps; the largest rise 2)"
	if got := r.Warning(); got != want {
		t.Errorf("Warning() = %q, want %q", got, want)
	}
	if got := (&schedule.Result{}).Warning(); got != "" {
		t.Errorf("no increase: %q", got)
	}
}
