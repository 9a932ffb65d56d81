package ffg_test

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

// The planar position-velocity model: state (px, py, vx, vy), dt = 1,
// observed positions with noise.
var (
	pvA  = []float64{1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1}
	pvH  = []float64{1, 0, 0, 0, 0, 1, 0, 0}
	pvQ  = scaled(0.1, []float64{1.0 / 3, 0, 0.5, 0, 0, 1.0 / 3, 0, 0.5, 0.5, 0, 1, 0, 0, 0.5, 0, 1})
	pvR  = []float64{0.5, 0.1, 0.1, 0.4}
	pvM0 = []float64{0, 0, 1, -0.5}
	pvP0 = []float64{4, 0, 0, 0, 0, 4, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
)

func scaled(s float64, a []float64) []float64 {
	out := make([]float64, len(a))
	for i, v := range a {
		out[i] = s * v
	}
	return out
}

// simulatePV draws T observations of the model (fixed seed).
func simulatePV(t int, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	var lq, lr mat.Cholesky
	lq.Factorize(mat.NewSymDense(4, append([]float64(nil), pvQ...)))
	lr.Factorize(mat.NewSymDense(2, append([]float64(nil), pvR...)))
	var cq, cr mat.TriDense
	lq.LTo(&cq)
	lr.LTo(&cr)
	x := mat.NewVecDense(4, []float64{0, 0, 1, -0.5})
	a := mat.NewDense(4, 4, pvA)
	h := mat.NewDense(2, 4, pvH)
	ys := make([][]float64, t)
	for i := range t {
		if i > 0 {
			var nx, z mat.VecDense
			nx.MulVec(a, x)
			z.MulVec(&cq, mat.NewVecDense(4, []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}))
			nx.AddVec(&nx, &z)
			x = &nx
		}
		var y, z mat.VecDense
		y.MulVec(h, x)
		z.MulVec(&cr, mat.NewVecDense(2, []float64{rng.NormFloat64(), rng.NormFloat64()}))
		y.AddVec(&y, &z)
		ys[i] = []float64{y.AtVec(0), y.AtVec(1)}
	}
	return ys
}

func inverse(a []float64, d int) []float64 {
	var ch mat.Cholesky
	ch.Factorize(mat.NewSymDense(d, append([]float64(nil), a...)))
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		panic(err)
	}
	out := make([]float64, d*d)
	for i := range d {
		for j := range d {
			out[i*d+j] = inv.At(i, j)
		}
	}
	return out
}

// buildPV builds the state-space model over the observations.
func buildPV(tb testing.TB, ys [][]float64) (*ffg.Graph, []*ffg.Variable) {
	tb.Helper()
	g := ffg.New()
	prior, err := nodes.NewMvNormal(4, nodes.LiteralMvMean(pvM0), nodes.LiteralMvPrecision(inverse(pvP0, 4)))
	if err != nil {
		tb.Fatal(err)
	}
	trans, err := nodes.NewMvNormal(4, nodes.AffineMvMean(pvA, 4, nil), nodes.LiteralMvPrecision(inverse(pvQ, 4)))
	if err != nil {
		tb.Fatal(err)
	}
	obs, err := nodes.NewMvNormal(2, nodes.AffineMvMean(pvH, 4, nil), nodes.LiteralMvPrecision(inverse(pvR, 2)))
	if err != nil {
		tb.Fatal(err)
	}
	xs := make([]*ffg.Variable, len(ys))
	for t, yt := range ys {
		x, err := g.AddVariable("", expfam.MvNormalFamily, 4)
		if err != nil {
			tb.Fatal(err)
		}
		xs[t] = x
		if t == 0 {
			_, err = g.AddFactor("", prior, x)
		} else {
			_, err = g.AddFactor("", trans, x, xs[t-1])
		}
		if err != nil {
			tb.Fatal(err)
		}
		y, err := g.AddVariable("", expfam.MvNormalFamily, 2)
		if err != nil {
			tb.Fatal(err)
		}
		if err := y.ObserveVector(yt); err != nil {
			tb.Fatal(err)
		}
		if _, err := g.AddFactor("", obs, y, x); err != nil {
			tb.Fatal(err)
		}
	}
	return g, xs
}

// rts is the Kalman filter and the RTS smoother in covariance form
// (Särkkä, Bayesian Filtering and Smoothing, §4.3 and §8.2), written with
// gonum, and -ln p(y) from the filter's innovations.
func rts(ys [][]float64) (means []*mat.VecDense, covs []*mat.Dense, nll float64) {
	return rtsWith(ys, pvR)
}

// rtsWith is rts with the observation noise covariance rc.
func rtsWith(ys [][]float64, rc []float64) (means []*mat.VecDense, covs []*mat.Dense, nll float64) {
	means, covs, _, nll = rtsFull(ys, pvQ, rc)
	return means, covs, nll
}

// rtsFull is rts with the process and observation noise covariances qc
// and rc; it also returns the smoother gains G_t, from which the lag-one
// covariance Cov(x_(t+1), x_t | y) = P_(t+1) G_tᵀ.
func rtsFull(ys [][]float64, qc, rc []float64) (means []*mat.VecDense, covs []*mat.Dense, gains []*mat.Dense, nll float64) {
	a := mat.NewDense(4, 4, pvA)
	h := mat.NewDense(2, 4, pvH)
	q := mat.NewDense(4, 4, qc)
	r := mat.NewDense(2, 2, rc)
	n := len(ys)
	mf, pf := make([]*mat.VecDense, n), make([]*mat.Dense, n)
	mp, pp := make([]*mat.VecDense, n), make([]*mat.Dense, n)
	for t := range n {
		m := mat.NewVecDense(4, nil)
		p := mat.NewDense(4, 4, nil)
		if t == 0 {
			m.CopyVec(mat.NewVecDense(4, pvM0))
			p.Copy(mat.NewDense(4, 4, pvP0))
		} else {
			m.MulVec(a, mf[t-1])
			p.Product(a, pf[t-1], a.T())
			p.Add(p, q)
		}
		mp[t], pp[t] = m, p
		var s mat.Dense
		s.Product(h, p, h.T())
		s.Add(&s, r)
		var v mat.VecDense
		v.MulVec(h, m)
		v.SubVec(mat.NewVecDense(2, ys[t]), &v)
		var sinv mat.Dense
		if err := sinv.Inverse(&s); err != nil {
			panic(err)
		}
		var sv mat.VecDense
		sv.MulVec(&sinv, &v)
		nll += 0.5*mat.Dot(&v, &sv) + 0.5*math.Log(mat.Det(&s)) + math.Log(2*math.Pi)
		var k mat.Dense
		k.Product(p, h.T(), &sinv)
		var mu mat.VecDense
		mu.MulVec(&k, &v)
		mu.AddVec(m, &mu)
		var kh, pu mat.Dense
		kh.Product(&k, &s, k.T())
		pu.Sub(p, &kh)
		mf[t], pf[t] = &mu, &pu
	}
	means, covs, gains = make([]*mat.VecDense, n), make([]*mat.Dense, n), make([]*mat.Dense, n)
	means[n-1], covs[n-1] = mf[n-1], pf[n-1]
	for t := n - 2; t >= 0; t-- {
		var ppinv mat.Dense
		gk := new(mat.Dense)
		gains[t] = gk
		if err := ppinv.Inverse(pp[t+1]); err != nil {
			panic(err)
		}
		gk.Product(pf[t], a.T(), &ppinv)
		var dm mat.VecDense
		dm.SubVec(means[t+1], mp[t+1])
		var ms mat.VecDense
		ms.MulVec(gk, &dm)
		ms.AddVec(mf[t], &ms)
		var dp, ps mat.Dense
		dp.Sub(covs[t+1], pp[t+1])
		ps.Product(gk, &dp, gk.T())
		ps.Add(pf[t], &ps)
		means[t], covs[t] = &ms, &ps
	}
	return means, covs, gains, nll
}

// Sum-product on the 4-D position-velocity model of T = 1,000 steps: every
// marginal equals the RTS smoother's to 1e-9 and -ln Z the Kalman filter's
// -ln p(y) to 1e-8.
func TestMvSumProductEqualsRTS(t *testing.T) {
	const steps = 1000
	ys := simulatePV(steps, 3)
	g, xs := buildPV(t, ys)
	logZ, err := g.SumProduct()
	if err != nil {
		t.Fatal(err)
	}
	means, covs, nll := rts(ys)
	if d := math.Abs(-logZ - nll); d > 1e-8 {
		t.Errorf("-ln Z = %.12g, Kalman -ln p(y) = %.12g (diff %g)", -logZ, nll, d)
	}
	if f := g.StructuredFreeEnergy(logZ); math.Abs(f-nll) > 1e-8 {
		t.Errorf("F = %.12g, want -ln p(y) = %.12g", f, nll)
	}
	worst := 0.0
	for i, x := range xs {
		q := x.MvNormal()
		for r := range 4 {
			worst = math.Max(worst, math.Abs(q.Mean[r]-means[i].AtVec(r)))
			for c := range 4 {
				worst = math.Max(worst, math.Abs(q.Cov[r*4+c]-covs[i].At(r, c)))
			}
		}
	}
	t.Logf("largest marginal difference %.3g, F difference %.3g (F = %.10g)", worst, -logZ-nll, nll)
	if worst > 1e-9 {
		t.Errorf("largest difference from the RTS smoother %g, want <= 1e-9", worst)
	}
}

func BenchmarkMvSumProductPV(b *testing.B) {
	ys := simulatePV(10000, 3)
	g, _ := buildPV(b, ys)
	if _, err := g.SumProduct(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := g.SumProduct(); err != nil {
			b.Fatal(err)
		}
	}
}

// The tracking model with an unknown observation precision matrix Λ ~
// W(ν₀, V₀) under sum-product: the states form the exact multivariate tree
// given E[Λ], and q(Λ) is VMP's update from their marginals. At the fixed
// point (checked against the formulas, not the engine):
//
//	the states are the RTS smoother's with R = E[Λ]⁻¹;
//	q(Λ) = W(ν₀ + T, (V₀⁻¹ + Σ_t (y_t − H m_t)(y_t − H m_t)ᵀ + H P_t Hᵀ)⁻¹),
//
// and F never rises.
func TestMvSumProductWithWishartNoise(t *testing.T) {
	const steps, nu0 = 200, 4.0
	ys := simulatePV(steps, 5)
	v0 := []float64{1, 0, 0, 1}
	g := ffg.New()
	lam, err := g.AddVariable("Lambda", expfam.WishartFamily, 2)
	if err != nil {
		t.Fatal(err)
	}
	wp, err := nodes.NewWishart(nu0, v0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.AddFactor("", wp, lam); err != nil {
		t.Fatal(err)
	}
	prior, _ := nodes.NewMvNormal(4, nodes.LiteralMvMean(pvM0), nodes.LiteralMvPrecision(inverse(pvP0, 4)))
	trans, _ := nodes.NewMvNormal(4, nodes.AffineMvMean(pvA, 4, nil), nodes.LiteralMvPrecision(inverse(pvQ, 4)))
	obs, err := nodes.NewMvNormal(2, nodes.AffineMvMean(pvH, 4, nil), nodes.WishartPrecision())
	if err != nil {
		t.Fatal(err)
	}
	xs := make([]*ffg.Variable, steps)
	for i, yt := range ys {
		x, _ := g.AddVariable("", expfam.MvNormalFamily, 4)
		xs[i] = x
		if i == 0 {
			_, err = g.AddFactor("", prior, x)
		} else {
			_, err = g.AddFactor("", trans, x, xs[i-1])
		}
		if err != nil {
			t.Fatal(err)
		}
		y, _ := g.AddVariable("", expfam.MvNormalFamily, 2)
		if err := y.ObserveVector(yt); err != nil {
			t.Fatal(err)
		}
		if _, err := g.AddFactor("", obs, y, x, lam); err != nil {
			t.Fatal(err)
		}
	}
	res, err := schedule.Run(context.Background(), g, &schedule.Settings{Method: schedule.MethodSumProduct, Iterations: 2000, Tolerance: 1e-10, ParamTolerance: 1e-11})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || len(res.Increases) > 0 {
		t.Fatalf("converged %v after %d sweeps (last change %g), increases %v", res.Converged, res.Iterations, res.ParamChange, res.Increases)
	}
	w := lam.Wishart()
	el := make([]float64, 4)
	for i := range el {
		el[i] = w.DF * w.Scale[i]
	}
	means, covs, _ := rtsWith(ys, inverse(el, 2))
	worst := 0.0
	for i, x := range xs {
		q := x.MvNormal()
		for r := range 4 {
			worst = math.Max(worst, math.Abs(q.Mean[r]-means[i].AtVec(r)))
			for c := range 4 {
				worst = math.Max(worst, math.Abs(q.Cov[r*4+c]-covs[i].At(r, c)))
			}
		}
	}
	if worst > 1e-8 {
		t.Errorf("states %g from the RTS smoother with R = E[Λ]⁻¹", worst)
	}
	// V⁻¹ from the marginals.
	s := mat.NewDense(2, 2, []float64{1, 0, 0, 1}) // V₀⁻¹ = I
	h := mat.NewDense(2, 4, pvH)
	for i, yt := range ys {
		var hm mat.VecDense
		hm.MulVec(h, means[i])
		r := mat.NewVecDense(2, []float64{yt[0] - hm.AtVec(0), yt[1] - hm.AtVec(1)})
		var rr, hp mat.Dense
		rr.Outer(1, r, r)
		hp.Product(h, covs[i], h.T())
		s.Add(s, &rr)
		s.Add(s, &hp)
	}
	want := inverse(s.RawMatrix().Data, 2)
	if math.Abs(w.DF-(nu0+steps)) > 1e-12 {
		t.Errorf("ν = %v, want %v", w.DF, nu0+steps)
	}
	for i := range want {
		if math.Abs(w.Scale[i]-want[i]) > 1e-8*math.Abs(want[i])+1e-12 {
			t.Errorf("scale[%d] = %.12g, want %.12g", i, w.Scale[i], want[i])
		}
	}
}

// The tracking model with an unknown process precision matrix Λ ~ W(ν₀,
// V₀) on every transition under sum-product: the transitions are pairwise
// factors of the tree whose potential reads E[Λ], and q(Λ) is updated from
// the pairs' joint beliefs. At the fixed point (against the formulas):
//
//	the states are the RTS smoother's with Q = E[Λ]⁻¹;
//	q(Λ) = W(ν₀ + T − 1, (V₀⁻¹ + Σ_t E[(x_t − A x_(t−1))(x_t − A x_(t−1))ᵀ])⁻¹),
//
// the expectation taken with the smoother's lag-one covariance
// Cov(x_t, x_(t−1)) = P_t G_(t−1)ᵀ (not the product of the marginals),
// and F never rises.
func TestMvSumProductWithWishartTransition(t *testing.T) {
	const steps, nu0 = 150, 6.0
	ys := simulatePV(steps, 9)
	v0 := scaled(0.5, []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})
	g := ffg.New()
	lam, _ := g.AddVariable("Lambda", expfam.WishartFamily, 4)
	wp, err := nodes.NewWishart(nu0, v0, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.AddFactor("", wp, lam); err != nil {
		t.Fatal(err)
	}
	prior, _ := nodes.NewMvNormal(4, nodes.LiteralMvMean(pvM0), nodes.LiteralMvPrecision(inverse(pvP0, 4)))
	trans, _ := nodes.NewMvNormal(4, nodes.AffineMvMean(pvA, 4, nil), nodes.WishartPrecision())
	obs, _ := nodes.NewMvNormal(2, nodes.AffineMvMean(pvH, 4, nil), nodes.LiteralMvPrecision(inverse(pvR, 2)))
	xs := make([]*ffg.Variable, steps)
	for i, yt := range ys {
		x, _ := g.AddVariable("", expfam.MvNormalFamily, 4)
		xs[i] = x
		if i == 0 {
			_, err = g.AddFactor("", prior, x)
		} else {
			_, err = g.AddFactor("", trans, x, xs[i-1], lam)
		}
		if err != nil {
			t.Fatal(err)
		}
		y, _ := g.AddVariable("", expfam.MvNormalFamily, 2)
		if err := y.ObserveVector(yt); err != nil {
			t.Fatal(err)
		}
		if _, err := g.AddFactor("", obs, y, x); err != nil {
			t.Fatal(err)
		}
	}
	res, err := schedule.Run(context.Background(), g, &schedule.Settings{Method: schedule.MethodSumProduct, Iterations: 5000, Tolerance: 1e-10, ParamTolerance: 1e-11})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || len(res.Increases) > 0 {
		t.Fatalf("converged %v after %d sweeps (last change %g), increases %v", res.Converged, res.Iterations, res.ParamChange, res.Increases)
	}
	w := lam.Wishart()
	el := make([]float64, 16)
	for i := range el {
		el[i] = w.DF * w.Scale[i]
	}
	means, covs, gains, _ := rtsFull(ys, inverse(el, 4), pvR)
	worst := 0.0
	for i, x := range xs {
		q := x.MvNormal()
		for r := range 4 {
			worst = math.Max(worst, math.Abs(q.Mean[r]-means[i].AtVec(r)))
			for c := range 4 {
				worst = math.Max(worst, math.Abs(q.Cov[r*4+c]-covs[i].At(r, c)))
			}
		}
	}
	if worst > 1e-7 {
		t.Errorf("states %g from the RTS smoother with Q = E[Λ]⁻¹", worst)
	}
	a := mat.NewDense(4, 4, pvA)
	s := mat.NewDense(4, 4, inverse(v0, 4))
	for i := 1; i < steps; i++ {
		// E[x_t x_tᵀ], E[x_t x_(t−1)ᵀ], E[x_(t−1) x_(t−1)ᵀ].
		var xx, xp, pp, c mat.Dense
		xx.Outer(1, means[i], means[i])
		xx.Add(&xx, covs[i])
		c.Mul(covs[i], gains[i-1].T())
		xp.Outer(1, means[i], means[i-1])
		xp.Add(&xp, &c)
		pp.Outer(1, means[i-1], means[i-1])
		pp.Add(&pp, covs[i-1])
		var t1, t2, t3 mat.Dense
		t1.Mul(&xp, a.T())
		t2.Mul(a, &pp)
		t3.Mul(&t2, a.T())
		s.Add(s, &xx)
		s.Sub(s, &t1)
		s.Sub(s, t1.T())
		s.Add(s, &t3)
	}
	want := inverse(s.RawMatrix().Data, 4)
	if math.Abs(w.DF-(nu0+steps-1)) > 1e-12 {
		t.Errorf("ν = %v, want %v", w.DF, nu0+steps-1)
	}
	for i := range want {
		if math.Abs(w.Scale[i]-want[i]) > 1e-7*math.Abs(want[i])+1e-12 {
			t.Errorf("scale[%d] = %.12g, want %.12g", i, w.Scale[i], want[i])
		}
	}
	t.Logf("%d sweeps; states within %.2g of the smoother", res.Iterations, worst)
}
