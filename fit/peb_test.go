package fit_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/arbor-ai/arbor/fit"
)

// metaRegression is the closed-form linear-Gaussian hierarchical model
// (random-effects meta-regression) that PEB must equal when every
// first-level likelihood is exactly Gaussian: subject i's data y_i ~
// N(θ_i, R_i), θ_i ~ N(X_i β, Σ), β ~ N(β0, Vβ). Stacking the subjects,
// Y ~ N(M β0, W⁻¹ + M Vβ Mᵀ) with W⁻¹ = blockdiag(R_i + Σ), M the rows
// x_i ⊗ I (β indexed parameter-major, j = p·K + c), and
//
//	β | Y ~ N((Vβ⁻¹ + MᵀWM)⁻¹ (Vβ⁻¹β0 + MᵀWY), (Vβ⁻¹ + MᵀWM)⁻¹).
type metaRegression struct {
	y      [][]float64
	r      []*mat.SymDense
	x      [][]float64
	b0, vb []float64
	d, k   int
}

// design returns M (N·D × D·K).
func (mr *metaRegression) design() *mat.Dense {
	n := len(mr.y)
	m := mat.NewDense(n*mr.d, mr.d*mr.k, nil)
	for i := range n {
		for p := range mr.d {
			for c := range mr.k {
				m.Set(i*mr.d+p, p*mr.k+c, mr.x[i][c])
			}
		}
	}
	return m
}

// logMarginal returns ln N(Y; Mβ0, blockdiag(R_i + Σ) + M Vβ Mᵀ) with the
// dense covariance of all subjects at once.
func (mr *metaRegression) logMarginal(sigma *mat.SymDense, vb []float64) float64 {
	n, d := len(mr.y), mr.d
	m := mr.design()
	nd := n * d
	cov := mat.NewSymDense(nd, nil)
	for i := range n {
		for a := range d {
			for b := range d {
				cov.SetSym(i*d+a, i*d+b, mr.r[i].At(a, b)+sigma.At(a, b))
			}
		}
	}
	var mv mat.Dense
	mv.Mul(m, mat.NewDiagDense(len(vb), vb))
	var mvm mat.Dense
	mvm.Mul(&mv, m.T())
	for a := range nd {
		for b := a; b < nd; b++ {
			cov.SetSym(a, b, cov.At(a, b)+mvm.At(a, b))
		}
	}
	resid := mat.NewVecDense(nd, nil)
	var mb mat.VecDense
	mb.MulVec(m, mat.NewVecDense(len(mr.b0), mr.b0))
	for i := range n {
		for p := range d {
			resid.SetVec(i*d+p, mr.y[i][p]-mb.AtVec(i*d+p))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		return math.Inf(-1)
	}
	var sol mat.VecDense
	if err := ch.SolveVecTo(&sol, resid); err != nil {
		return math.Inf(-1)
	}
	return -0.5*float64(nd)*math.Log(2*math.Pi) - 0.5*ch.LogDet() - 0.5*mat.Dot(resid, &sol)
}

// betaPosterior returns β's posterior mean and covariance given Σ.
func (mr *metaRegression) betaPosterior(sigma *mat.SymDense) ([]float64, *mat.SymDense) {
	n, d := len(mr.y), mr.d
	m := mr.design()
	w := mat.NewDense(n*d, n*d, nil)
	for i := range n {
		blk := mat.NewSymDense(d, nil)
		blk.AddSym(mr.r[i], sigma)
		var inv mat.Dense
		if err := inv.Inverse(blk); err != nil {
			panic(err)
		}
		for a := range d {
			for b := range d {
				w.Set(i*d+a, i*d+b, inv.At(a, b))
			}
		}
	}
	var mtw, prec mat.Dense
	mtw.Mul(m.T(), w)
	prec.Mul(&mtw, m)
	nb := d * mr.k
	h := mat.NewVecDense(nb, nil)
	yv := mat.NewVecDense(n*d, nil)
	for i := range n {
		for p := range d {
			yv.SetVec(i*d+p, mr.y[i][p])
		}
	}
	h.MulVec(&mtw, yv)
	for j := range nb {
		prec.Set(j, j, prec.At(j, j)+1/mr.vb[j])
		h.SetVec(j, h.AtVec(j)+mr.b0[j]/mr.vb[j])
	}
	var cov mat.Dense
	if err := cov.Inverse(&prec); err != nil {
		panic(err)
	}
	var mean mat.VecDense
	mean.MulVec(&cov, h)
	sym := mat.NewSymDense(nb, nil)
	for a := range nb {
		for b := a; b < nb; b++ {
			sym.SetSym(a, b, (cov.At(a, b)+cov.At(b, a))/2)
		}
	}
	return mean.RawVector().Data, sym
}

// sigmaOf is Σ = LLᵀ of the hyperparameters docs/fitting.md states: the
// first d are ln L_pp², then L's lower off-diagonal elements row by row.
func sigmaOf(x []float64, d int, full bool) *mat.SymDense {
	l := mat.NewDense(d, d, nil)
	for p := range d {
		l.Set(p, p, math.Exp(x[p]/2))
	}
	if full {
		j := d
		for a := 1; a < d; a++ {
			for b := range a {
				l.Set(a, b, x[j])
				j++
			}
		}
	}
	var s mat.Dense
	s.Mul(l, l.T())
	out := mat.NewSymDense(d, nil)
	for a := range d {
		for b := a; b < d; b++ {
			out.SetSym(a, b, s.At(a, b))
		}
	}
	return out
}

// hyperFromSigma inverts sigmaOf (the Cholesky factor of Σ).
func hyperFromSigma(sigma [][]float64, full bool) []float64 {
	d := len(sigma)
	s := mat.NewSymDense(d, nil)
	for a := range d {
		for b := a; b < d; b++ {
			s.SetSym(a, b, sigma[a][b])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		panic("Σ not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	x := make([]float64, d)
	for p := range d {
		x[p] = math.Log(l.At(p, p) * l.At(p, p))
	}
	if full {
		for a := 1; a < d; a++ {
			for b := range a {
				x = append(x, l.At(a, b))
			}
		}
	}
	return x
}

// TestPEBClosedForm feeds PEB exact Gaussian first-level posteriors (each
// subject's Gaussian likelihood N(y_i; θ_i, R_i) times the first-level
// prior) and compares it with the meta-regression computed on the stacked
// data: at PEB's Σ the closed-form objective (log marginal plus the
// hyperprior) is stationary, a Nelder-Mead search of that objective finds
// the same Σ, and β, its covariance, the group log evidence, each effect's
// probability (the evidence with the effect's prior variance 1e-12 beside
// the full one) and the subjects' shrunk means equal the closed form.
func TestPEBClosedForm(t *testing.T) {
	for _, full := range []bool{false, true} {
		name := "diag"
		if full {
			name = "full"
		}
		t.Run(name, func(t *testing.T) { pebClosedForm(t, full) })
	}
}

func pebClosedForm(t *testing.T, full bool) {
	rng := rand.New(rand.NewPCG(7, 36))
	const n, d, k = 14, 2, 3
	priors := []fit.Prior{{Mean: 0.3, SD: 1}, {Mean: -0.2, SD: 0.5}}
	trueSigma := [][]float64{{0.25, 0.06}, {0.06, 0.09}}
	mr := &metaRegression{d: d, k: k}
	design := &fit.Design{Columns: []string{"1", "group", "age"}}
	post := make([]fit.Posterior, n)
	beta := [][]float64{{0.5, 0.6, -0.2}, {-0.1, 0.0, 0.3}}
	for i := range n {
		x := []float64{1, float64(i % 2), rng.NormFloat64()}
		design.X = append(design.X, x)
		mr.x = append(mr.x, x)
		// θ_i from the group model, y_i from a random R_i around it.
		e1, e2 := rng.NormFloat64(), rng.NormFloat64()
		theta := []float64{
			beta[0][0] + beta[0][1]*x[1] + beta[0][2]*x[2] + math.Sqrt(trueSigma[0][0])*e1,
			beta[1][0] + beta[1][1]*x[1] + beta[1][2]*x[2] + trueSigma[0][1]/math.Sqrt(trueSigma[0][0])*e1 + 0.24*e2,
		}
		a := mat.NewDense(d, d, []float64{0.2 + 0.3*rng.Float64(), 0.1 * rng.NormFloat64(), 0.1 * rng.NormFloat64(), 0.15 + 0.3*rng.Float64()})
		r := mat.NewSymDense(d, nil)
		r.SymOuterK(1, a)
		var rch mat.Cholesky
		if !rch.Factorize(r) {
			t.Fatal("R not positive definite")
		}
		var rl mat.TriDense
		rch.LTo(&rl)
		z := mat.NewVecDense(d, []float64{rng.NormFloat64(), rng.NormFloat64()})
		var noise mat.VecDense
		noise.MulVec(&rl, z)
		y := []float64{theta[0] + noise.AtVec(0), theta[1] + noise.AtVec(1)}
		mr.y, mr.r = append(mr.y, y), append(mr.r, r)
		// The exact first-level posterior and evidence under the prior.
		var rinv, s0inv mat.SymDense
		if err := rch.InverseTo(&rinv); err != nil {
			t.Fatal(err)
		}
		s0inv.ReuseAsSym(d)
		s0 := mat.NewSymDense(d, nil)
		for p := range d {
			s0inv.SetSym(p, p, 1/(priors[p].SD*priors[p].SD))
			s0.SetSym(p, p, priors[p].SD*priors[p].SD)
		}
		prec := mat.NewSymDense(d, nil)
		prec.AddSym(&rinv, &s0inv)
		var pch mat.Cholesky
		pch.Factorize(prec)
		c := mat.NewSymDense(d, nil)
		if err := pch.InverseTo(c); err != nil {
			t.Fatal(err)
		}
		var rhs, t1, t2 mat.VecDense
		t1.MulVec(&rinv, mat.NewVecDense(d, y))
		t2.MulVec(&s0inv, mat.NewVecDense(d, []float64{priors[0].Mean, priors[1].Mean}))
		rhs.AddVec(&t1, &t2)
		var mu mat.VecDense
		mu.MulVec(c, &rhs)
		ev := mat.NewSymDense(d, nil)
		ev.AddSym(r, s0)
		var ech mat.Cholesky
		ech.Factorize(ev)
		resid := mat.NewVecDense(d, []float64{y[0] - priors[0].Mean, y[1] - priors[1].Mean})
		var sol mat.VecDense
		if err := ech.SolveVecTo(&sol, resid); err != nil {
			t.Fatal(err)
		}
		logEv := -float64(d)*math.Log(2*math.Pi)/2 - 0.5*ech.LogDet() - 0.5*mat.Dot(resid, &sol)
		post[i] = fit.Posterior{Mean: mu.RawVector().Data, Cov: [][]float64{{c.At(0, 0), c.At(0, 1)}, {c.At(1, 0), c.At(1, 1)}}, LogEvidence: logEv}
	}
	for p := range d {
		for c := range k {
			mean := 0.0
			if c == 0 {
				mean = priors[p].Mean
			}
			mr.b0 = append(mr.b0, mean)
			mr.vb = append(mr.vb, priors[p].SD*priors[p].SD)
		}
	}
	cov := fit.DiagonalCov
	if full {
		cov = fit.FullCov
	}
	res, err := fit.PEB(post, []string{"a", "b"}, priors, design, &fit.PEBSettings{Cov: cov})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged {
		t.Fatalf("not converged: %s", res.Reason)
	}
	// The objective of Σ as docs/fitting.md states it.
	objective := func(x []float64) float64 {
		lp := 0.0
		for p := range d {
			z := (x[p] - math.Log(priors[p].SD*priors[p].SD/16)) / 1
			lp -= 0.5 * z * z
		}
		if full {
			lp -= 0.5 * x[d] * x[d] / (priors[1].SD * priors[1].SD / 16)
		}
		return mr.logMarginal(sigmaOf(x, d, full), mr.vb) + lp
	}
	xhat := hyperFromSigma(res.Sigma, full)
	g := make([]float64, len(xhat))
	fd.Gradient(g, objective, xhat, &fd.Settings{Formula: fd.Central, Step: 1e-5})
	for j, v := range g {
		if math.Abs(v) > 1e-6 {
			t.Errorf("the closed-form objective's gradient at PEB's Σ: component %d is %.3g, want 0 (|.| <= 1e-6)", j, v)
		}
	}
	// A different search of the closed form finds the same Σ.
	start := make([]float64, len(xhat))
	for p := range d {
		start[p] = math.Log(priors[p].SD * priors[p].SD / 16)
	}
	nm, err := optimize.Minimize(optimize.Problem{Func: func(x []float64) float64 { return -objective(x) }}, start,
		&optimize.Settings{Converger: &optimize.FunctionConverge{Absolute: 1e-15, Iterations: 200}, FuncEvaluations: 20000}, &optimize.NelderMead{})
	if err != nil && nm == nil {
		t.Fatal(err)
	}
	want := sigmaOf(nm.X, d, full)
	for a := range d {
		for b := range d {
			if diff := math.Abs(want.At(a, b) - res.Sigma[a][b]); diff > 1e-5 {
				t.Errorf("Σ[%d][%d] = %.9g, the closed form's maximum %.9g", a, b, res.Sigma[a][b], want.At(a, b))
			}
		}
	}
	sigma := mat.NewSymDense(d, nil)
	for a := range d {
		for b := a; b < d; b++ {
			sigma.SetSym(a, b, res.Sigma[a][b])
		}
	}
	f := mr.logMarginal(sigma, mr.vb)
	if math.Abs(f-res.LogEvidence) > 1e-6 {
		t.Errorf("log evidence %.12g, closed form %.12g at the same Σ", res.LogEvidence, f)
	}
	bmean, bcov := mr.betaPosterior(sigma)
	for j, e := range res.Effects {
		if math.Abs(e.Mean-bmean[j]) > 1e-6 || math.Abs(e.SD-math.Sqrt(bcov.At(j, j))) > 1e-6 {
			t.Errorf("effect %s/%s: %.9g (sd %.9g), closed form %.9g (sd %.9g)", e.Parameter, e.Covariate, e.Mean, e.SD, bmean[j], math.Sqrt(bcov.At(j, j)))
		}
		// The reduced model: the effect's prior N(0, 1e-12).
		vr := append([]float64(nil), mr.vb...)
		vr[j] = 1e-12
		b0 := mr.b0[j]
		mr.b0[j] = 0
		fr := mr.logMarginal(sigma, vr)
		mr.b0[j] = b0
		p := 1 / (1 + math.Exp(fr-f))
		if math.Abs(p-e.PNonzero) > 1e-5 {
			t.Errorf("effect %s/%s: p_nonzero %.9g, closed form %.9g", e.Parameter, e.Covariate, e.PNonzero, p)
		}
	}
	// The shrunk subject means: (R⁻¹ + Σ⁻¹)⁻¹ (R⁻¹ y + Σ⁻¹ X β).
	for i := range n {
		prec := mat.NewSymDense(d, nil)
		var rinv, sinv mat.Dense
		if err := rinv.Inverse(mr.r[i]); err != nil {
			t.Fatal(err)
		}
		if err := sinv.Inverse(sigma); err != nil {
			t.Fatal(err)
		}
		for a := range d {
			for b := a; b < d; b++ {
				prec.SetSym(a, b, rinv.At(a, b)+sinv.At(a, b))
			}
		}
		xb := make([]float64, d)
		for p := range d {
			for c := range k {
				xb[p] += mr.x[i][c] * bmean[p*k+c]
			}
		}
		var t1, t2, rhs, sol mat.VecDense
		t1.MulVec(&rinv, mat.NewVecDense(d, mr.y[i]))
		t2.MulVec(&sinv, mat.NewVecDense(d, xb))
		rhs.AddVec(&t1, &t2)
		var pinv mat.Dense
		if err := pinv.Inverse(prec); err != nil {
			t.Fatal(err)
		}
		sol.MulVec(&pinv, &rhs)
		for p := range d {
			if math.Abs(sol.AtVec(p)-res.ThetaEB[i][p]) > 1e-6 {
				t.Errorf("subject %d, parameter %d: θ_EB %.9g, closed form %.9g", i, p, res.ThetaEB[i][p], sol.AtVec(p))
			}
		}
	}
}

// BenchmarkPEB200 is the group level alone of the speed goal: 200
// subjects, 3 free parameters, a design of 3 columns (intercept, a group
// indicator and a number), diagonal Σ, over synthetic Laplace posteriors.
func BenchmarkPEB200(b *testing.B) {
	const n, d = 200, 3
	rng := rand.New(rand.NewPCG(1, 2))
	design := &fit.Design{Columns: []string{"1", "group", "age"}}
	post := make([]fit.Posterior, n)
	for i := range n {
		design.X = append(design.X, []float64{1, float64(i % 2), 20 + 40*rng.Float64()})
		mean := make([]float64, d)
		cov := make([][]float64, d)
		for p := range d {
			mean[p] = 0.5 + 0.3*rng.NormFloat64()
			cov[p] = make([]float64, d)
			cov[p][p] = 0.02 + 0.02*rng.Float64()
		}
		post[i] = fit.Posterior{Mean: mean, Cov: cov, LogEvidence: -80}
	}
	priors := []fit.Prior{{Mean: 0, SD: 1}, {Mean: 0, SD: 1}, {Mean: 0, SD: 1}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fit.PEB(post, []string{"alpha", "eta", "gamma"}, priors, design, nil); err != nil {
			b.Fatal(err)
		}
	}
}
