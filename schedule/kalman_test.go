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
)

// lgss is a linear-Gaussian state-space model: x_1 ~ N(m0, 1/p0),
// x_t ~ N(a x_(t-1) + b, 1/q), y_t ~ N(x_t, 1/r); a = 1, b = 0 is the
// local-level model (random walk plus noise).
type lgss struct {
	m0, p0, a, b, q, r float64
}

func (p lgss) simulate(rng *rand.Rand, n int) []float64 {
	ys := make([]float64, n)
	x := p.m0 + rng.NormFloat64()/math.Sqrt(p.p0)
	for t := range ys {
		if t > 0 {
			x = p.a*x + p.b + rng.NormFloat64()/math.Sqrt(p.q)
		}
		ys[t] = x + rng.NormFloat64()/math.Sqrt(p.r)
	}
	return ys
}

// build returns the graph and its state variables; precision, when not
// nil, replaces the literal r by a gamma variable with that prior.
func (p lgss) build(t testing.TB, ys []float64, precision *expfam.Gamma) (*ffg.Graph, []*ffg.Variable, *ffg.Variable) {
	g := ffg.New()
	prior, err := nodes.NewNormal(nodes.LiteralMean(p.m0), nodes.LiteralPrecision(p.p0))
	if err != nil {
		t.Fatal(err)
	}
	trans, err := nodes.NewNormal(nodes.AffineMean(p.a, p.b), nodes.LiteralPrecision(p.q))
	if err != nil {
		t.Fatal(err)
	}
	var r *ffg.Variable
	obsPrec := nodes.LiteralPrecision(p.r)
	if precision != nil {
		r, _ = g.AddVariable("r", expfam.GammaFamily)
		gp, _ := nodes.NewGamma(precision.Shape, precision.Rate)
		if _, err := g.AddFactor("", gp, r); err != nil {
			t.Fatal(err)
		}
		obsPrec = nodes.VariablePrecision()
	}
	obs, err := nodes.NewNormal(nodes.VariableMean(), obsPrec)
	if err != nil {
		t.Fatal(err)
	}
	xs := make([]*ffg.Variable, len(ys))
	for i, y := range ys {
		x, _ := g.AddVariable("", expfam.NormalFamily)
		xs[i] = x
		if i == 0 {
			_, err = g.AddFactor("", prior, x)
		} else {
			_, err = g.AddFactor("", trans, x, xs[i-1])
		}
		if err != nil {
			t.Fatal(err)
		}
		yv, _ := g.AddVariable("", expfam.NormalFamily)
		if err := yv.ObserveValue(y); err != nil {
			t.Fatal(err)
		}
		if r != nil {
			_, err = g.AddFactor("", obs, yv, x, r)
		} else {
			_, err = g.AddFactor("", obs, yv, x)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return g, xs, r
}

// kalmanRTS is the Kalman filter and the Rauch-Tung-Striebel smoother
// written out: predict m⁻ = a m + b, P⁻ = a² P + 1/q; update with
// S = P⁻ + 1/r, K = P⁻/S, m = m⁻ + K (y - m⁻), P = (1 - K) P⁻, and
// ln p(y) = Σ_t ln N(y_t; m⁻_t, S_t); smooth backwards with
// G = a P_t / P⁻_(t+1), m^s_t = m_t + G (m^s_(t+1) - m⁻_(t+1)),
// P^s_t = P_t + G² (P^s_(t+1) - P⁻_(t+1)).
func (p lgss) kalmanRTS(ys []float64, mean, variance []float64) (logLik float64) {
	n := len(ys)
	mf := make([]float64, n)
	pf := make([]float64, n)
	m, pv := p.m0, 1/p.p0
	var sum neumaier // the terms are small: only their number calls for compensation
	for t, y := range ys {
		if t > 0 {
			m, pv = p.a*mf[t-1]+p.b, p.a*p.a*pf[t-1]+1/p.q
		}
		s := pv + 1/p.r
		k := pv / s
		sum.add(-0.5*math.Log(2*math.Pi*s) - (y-m)*(y-m)/(2*s))
		mf[t], pf[t] = m+k*(y-m), (1-k)*pv
	}
	logLik = sum.s + sum.c
	mean[n-1], variance[n-1] = mf[n-1], pf[n-1]
	for t := n - 2; t >= 0; t-- {
		mp, pp := p.a*mf[t]+p.b, p.a*p.a*pf[t]+1/p.q
		gain := p.a * pf[t] / pp
		mean[t] = mf[t] + gain*(mean[t+1]-mp)
		variance[t] = pf[t] + gain*gain*(variance[t+1]-pp)
	}
	return logLik
}

// neumaier is Neumaier's compensated sum.
type neumaier struct{ s, c float64 }

func (k *neumaier) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

// TestKalmanSumProductLong: a local-level model of 10^5 steps (q = 4, so
// the walk wanders to |x| in the hundreds, r = 1): sum-product's means
// and variances equal the RTS smoother's to 1e-9 and F = -ln p(y) of the
// Kalman filter (its innovations' terms, summed with compensation) to
// 1e-8, although F is of order 10^5 and its energies of order 10^10
// cancel. Skipped by -short (a few seconds under the race detector).
func TestKalmanSumProductLong(t *testing.T) {
	if testing.Short() {
		t.Skip("10^5 steps")
	}
	rng := rand.New(rand.NewPCG(2026, 28))
	const n = 100000
	p := lgss{m0: 0, p0: 0.1, a: 1, b: 0, q: 4, r: 1}
	ys := p.simulate(rng, n)
	mean, variance := make([]float64, n), make([]float64, n)
	logLik := p.kalmanRTS(ys, mean, variance)
	g, xs, _ := p.build(t, ys, nil)
	res, err := schedule.Run(context.Background(), g, &schedule.Settings{Method: schedule.MethodSumProduct})
	if err != nil {
		t.Fatal(err)
	}
	worstM, worstV, span := 0.0, 0.0, 0.0
	for i, x := range xs {
		q := x.Normal()
		worstM = math.Max(worstM, math.Abs(q.Mean-mean[i]))
		worstV = math.Max(worstV, math.Abs(q.Var-variance[i]))
		span = math.Max(span, math.Abs(mean[i]))
	}
	if worstM > 1e-9 || worstV > 1e-9 {
		t.Errorf("means within %.3g, variances within %.3g of the RTS smoother, want 1e-9", worstM, worstV)
	}
	F := res.FreeEnergy[len(res.FreeEnergy)-1]
	t.Logf("F = %.17g, Kalman -ln p(y) = %.17g (difference %.3g); |x| up to %.0f; means within %.3g", F, -logLik, F+logLik, span, worstM)
	if math.Abs(F+logLik) > 1e-8 {
		t.Errorf("F = %.17g, Kalman -ln p(y) = %.17g: %.3g apart, want 1e-8", F, -logLik, F+logLik)
	}
}

// TestKalmanSumProduct: on linear-Gaussian chains of 200 steps with random
// parameters (the local-level model, a = 1 and b = 0, and a general one),
// sum-product gives every posterior mean and variance of the closed-form
// RTS smoother to 1e-9 and F = -ln p(y) of the Kalman filter to 1e-8. VMP
// on the same graph converges to the same means (the mean-field fixed
// point solves the same linear system J m = h) to 1e-6, with the
// mean-field variances 1/J_tt, J_tt the diagonal of the joint precision:
// p0 (t = 1) or q, plus a² q when t has a successor, plus r.
func TestKalmanSumProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 11))
	const n = 200
	for trial := range 4 {
		p := lgss{
			m0: 4*rng.Float64() - 2, p0: 0.2 + rng.Float64(),
			a: 1, b: 0,
			q: 0.5 + 4*rng.Float64(), r: 0.2 + 2*rng.Float64(),
		}
		if trial >= 2 {
			p.a, p.b = 0.5+0.5*rng.Float64(), rng.Float64()-0.5
		}
		ys := p.simulate(rng, n)
		mean, variance := make([]float64, n), make([]float64, n)
		logLik := p.kalmanRTS(ys, mean, variance)

		g, xs, _ := p.build(t, ys, nil)
		res, err := schedule.Run(context.Background(), g, &schedule.Settings{Method: schedule.MethodSumProduct})
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range xs {
			q := x.Normal()
			if math.Abs(q.Mean-mean[i]) > 1e-9 || math.Abs(q.Var-variance[i]) > 1e-9 {
				t.Fatalf("trial %d, x_%d: N(%.15g, %.15g), RTS N(%.15g, %.15g)", trial, i+1, q.Mean, q.Var, mean[i], variance[i])
			}
		}
		F := res.FreeEnergy[len(res.FreeEnergy)-1]
		if math.Abs(F+logLik) > 1e-8 {
			t.Errorf("trial %d: F = %.15g, Kalman -ln p(y) = %.15g", trial, F, -logLik)
		}
		if len(res.Increases) != 0 {
			t.Errorf("trial %d: F rose: %v", trial, res.Increases)
		}

		g, xs, _ = p.build(t, ys, nil)
		res, err = schedule.Run(context.Background(), g, &schedule.Settings{Iterations: 100000, Tolerance: 1e-15})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Increases) != 0 {
			t.Errorf("trial %d: VMP F rose: %v", trial, res.Increases)
		}
		worst := 0.0
		for i, x := range xs {
			q := x.Normal()
			worst = math.Max(worst, math.Abs(q.Mean-mean[i]))
			jtt := p.q + p.r
			if i == 0 {
				jtt = p.p0 + p.r
			}
			if i < n-1 {
				jtt += p.a * p.a * p.q
			}
			if math.Abs(q.Var-1/jtt) > 1e-12 {
				t.Errorf("trial %d, x_%d: VMP variance %.15g, mean field 1/J_tt = %.15g", trial, i+1, q.Var, 1/jtt)
			}
		}
		if worst > 1e-6 {
			t.Errorf("trial %d: VMP means differ from the exact ones by %g after %d sweeps", trial, worst, res.Iterations)
		}
		if vf := res.FreeEnergy[len(res.FreeEnergy)-1]; !(vf >= -logLik-1e-9) {
			t.Errorf("trial %d: VMP F = %v below -ln p(y) = %v", trial, vf, -logLik)
		}
		t.Logf("trial %d: VMP %d sweeps, |Δmean| %.2g", trial, res.Iterations, worst)
	}
}

// TestKalmanUnknownNoise: the local-level model with the observation
// precision r a gamma variable under sum-product: the states are exact
// given E[r], and r's update takes E(y_t - x_t)² from the states'
// marginals; with a transition precision it would take E[x_t x_(t-1)]
// from the pairwise beliefs. Each block step minimises the structured
// free energy, so F never rises; and at the fixed point q(r) is
// Gamma(a_0 + n/2, b_0 + ½ Σ E(y_t - x_t)²), checked from the marginals.
func TestKalmanUnknownNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := lgss{m0: 0, p0: 1, a: 1, q: 2, r: 1.5}
	ys := p.simulate(rng, 100)
	prior := expfam.Gamma{Shape: 2, Rate: 1}
	g, xs, r := p.build(t, ys, &prior)
	res, err := schedule.Run(context.Background(), g, &schedule.Settings{Method: schedule.MethodSumProduct, Iterations: 500, Tolerance: 1e-13})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Increases) != 0 {
		t.Errorf("F rose: %v", res.Increases)
	}
	if !res.Converged {
		t.Errorf("not converged after %d sweeps", res.Iterations)
	}
	ss := 0.0
	for i, x := range xs {
		s := x.Stats()
		ss += ys[i]*ys[i] - 2*ys[i]*s[0] + s[1]
	}
	q := r.Gamma()
	if math.Abs(q.Shape-(prior.Shape+50)) > 1e-12 || math.Abs(q.Rate-(prior.Rate+ss/2)) > 1e-7*q.Rate {
		t.Errorf("q(r) = %v, want Gamma(%v, %v)", q, prior.Shape+50, prior.Rate+ss/2)
	}
}

// TestKalmanUnknownTransitionPrecision: a gamma transition precision under
// sum-product uses the pairwise beliefs E[x_t x_(t-1)]; at the fixed point
// q(q) = Gamma(a_0 + (n-1)/2, b_0 + ½ Σ E(x_t - x_(t-1))²) with the
// expectation under the smoothed pairwise joint, which the test computes
// from a closed-form RTS smoother at E[q] (the lag-one covariance
// Cov(x_t, x_(t-1)) = G_(t-1) P^s_t).
func TestKalmanUnknownTransitionPrecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	const n = 80
	p := lgss{m0: 0, p0: 1, a: 1, q: 3, r: 2}
	ys := p.simulate(rng, n)
	prior := expfam.Gamma{Shape: 2, Rate: 1}
	g := ffg.New()
	qv, _ := g.AddVariable("q", expfam.GammaFamily)
	gp, _ := nodes.NewGamma(prior.Shape, prior.Rate)
	_, _ = g.AddFactor("", gp, qv)
	x0p, _ := nodes.NewNormal(nodes.LiteralMean(p.m0), nodes.LiteralPrecision(p.p0))
	trans, _ := nodes.NewNormal(nodes.VariableMean(), nodes.VariablePrecision())
	obs, _ := nodes.NewNormal(nodes.VariableMean(), nodes.LiteralPrecision(p.r))
	xs := make([]*ffg.Variable, n)
	for i, y := range ys {
		xs[i], _ = g.AddVariable("", expfam.NormalFamily)
		if i == 0 {
			_, _ = g.AddFactor("", x0p, xs[i])
		} else if _, err := g.AddFactor("", trans, xs[i], xs[i-1], qv); err != nil {
			t.Fatal(err)
		}
		yv, _ := g.AddVariable("", expfam.NormalFamily)
		_ = yv.ObserveValue(y)
		_, _ = g.AddFactor("", obs, yv, xs[i])
	}
	res, err := schedule.Run(context.Background(), g, &schedule.Settings{Method: schedule.MethodSumProduct, Iterations: 1000, Tolerance: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Increases) != 0 {
		t.Errorf("F rose: %v", res.Increases)
	}
	// The states are exact given E[q]: the smoother at q = E[q].
	eq := p
	eq.q = qv.Gamma().Mean()
	mean, variance := make([]float64, n), make([]float64, n)
	eq.kalmanRTS(ys, mean, variance)
	ss := 0.0
	// Filtered variances again, for the gains.
	pf := make([]float64, n)
	pv := 1 / eq.p0
	for i := range ys {
		if i > 0 {
			pv = pf[i-1] + 1/eq.q
		}
		pf[i] = pv * (1 / eq.r) / (pv + 1/eq.r)
	}
	for i := 1; i < n; i++ {
		gain := pf[i-1] / (pf[i-1] + 1/eq.q)
		cov := gain * variance[i]
		// E(x_t - x_(t-1))² = Var x_t + Var x_(t-1) - 2 Cov + (m_t - m_(t-1))².
		d := mean[i] - mean[i-1]
		ss += variance[i] + variance[i-1] - 2*cov + d*d
	}
	q := qv.Gamma()
	want := expfam.Gamma{Shape: prior.Shape + (n-1)/2.0, Rate: prior.Rate + ss/2}
	if math.Abs(q.Shape-want.Shape) > 1e-12 || math.Abs(q.Rate-want.Rate) > 1e-6*want.Rate {
		t.Errorf("q(q) = %v, want %v", q, want)
	}
}
