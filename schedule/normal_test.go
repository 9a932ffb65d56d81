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

// TestUnknownMeanAndPrecision is Winn & Bishop's example and Bishop, PRML
// section 10.1.3: data x_1..x_N i.i.d. N(μ, 1/τ), prior μ ~ N(μ_0,
// 1/(λ_0 τ)), τ ~ Gamma(a_0, b_0), and the mean-field posterior q(μ) q(τ).
// The closed-form coordinate-ascent updates are (PRML eqs. 10.26-10.30)
//
//	q(μ) = N(μ_N, 1/λ_N),  μ_N = (λ_0 μ_0 + N x̄)/(λ_0 + N),  λ_N = (λ_0 + N) E[τ],
//	q(τ) = Gamma(a_N, b_N), a_N = a_0 + (N+1)/2,
//	b_N = b_0 + ½ E_μ[Σ_n (x_n - μ)² + λ_0 (μ - μ_0)²],
//
// written out below and run beside the engine's sweeps (μ, then τ, as the
// variables were added). Every sweep must equal them to 1e-12, F must
// never rise, and -F must stay below the exact log evidence of the
// Normal-Gamma model,
//
//	ln p(x) = ln Γ(a'_N) - ln Γ(a_0) + a_0 ln b_0 - a'_N ln b'_N + ½ ln(λ_0/λ'_N) - (N/2) ln 2π,
//
// a'_N = a_0 + N/2, λ'_N = λ_0 + N, b'_N = b_0 + ½ Σ (x_n - x̄)² + λ_0 N (x̄ - μ_0)²/(2 λ'_N)
// (the exact posterior is Normal-Gamma; Murphy 2007, "Conjugate Bayesian
// analysis of the Gaussian distribution", eq. 95).
func TestUnknownMeanAndPrecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 13))
	const n = 50
	const mu0, lambda0, a0, b0 = 0.5, 2.0, 1.5, 0.8
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 1.3 + 0.7*rng.NormFloat64()
	}
	g := ffg.New()
	mu, _ := g.AddVariable("mu", expfam.NormalFamily)
	tau, _ := g.AddVariable("tau", expfam.GammaFamily)
	gp, _ := nodes.NewGamma(a0, b0)
	if _, err := g.AddFactor("", gp, tau); err != nil {
		t.Fatal(err)
	}
	mp, _ := nodes.NewNormal(nodes.LiteralMean(mu0), nodes.ScaledPrecision(lambda0))
	if _, err := g.AddFactor("", mp, mu, tau); err != nil {
		t.Fatal(err)
	}
	lik, _ := nodes.NewNormal(nodes.VariableMean(), nodes.VariablePrecision())
	for _, x := range xs {
		v, _ := g.AddVariable("", expfam.NormalFamily)
		if err := v.ObserveValue(x); err != nil {
			t.Fatal(err)
		}
		if _, err := g.AddFactor("", lik, v, mu, tau); err != nil {
			t.Fatal(err)
		}
	}
	sum, sum2 := 0.0, 0.0
	for _, x := range xs {
		sum += x
		sum2 += x * x
	}
	xbar := sum / n
	// Exact log evidence.
	aN, lN := a0+n/2.0, lambda0+n
	ss := 0.0
	for _, x := range xs {
		ss += (x - xbar) * (x - xbar)
	}
	bN := b0 + 0.5*ss + lambda0*n*(xbar-mu0)*(xbar-mu0)/(2*lN)
	lgA, _ := math.Lgamma(aN)
	lgA0, _ := math.Lgamma(a0)
	logEvidence := lgA - lgA0 + a0*math.Log(b0) - aN*math.Log(bN) + 0.5*math.Log(lambda0/lN) - n/2.0*math.Log(2*math.Pi)

	// The hand loop starts where the graph starts: q(τ) at its prior.
	q := tau.Gamma()
	if q.Shape != a0 || q.Rate != b0 {
		t.Fatalf("q(τ) starts at %v, want the prior", q)
	}
	et := q.Mean()
	prevF := math.Inf(1)
	for it := range 30 {
		res, err := schedule.Run(context.Background(), g, &schedule.Settings{Iterations: 1})
		if err != nil {
			t.Fatal(err)
		}
		// PRML 10.26-10.27.
		muN := (lambda0*mu0 + sum) / (lambda0 + n)
		lamN := (lambda0 + n) * et
		// PRML 10.29-10.30, with E μ = μ_N and E μ² = μ_N² + 1/λ_N.
		emu, emu2 := muN, muN*muN+1/lamN
		aNv := a0 + (n+1)/2.0
		bNv := b0 + 0.5*(sum2-2*sum*emu+n*emu2+lambda0*(emu2-2*mu0*emu+mu0*mu0))
		et = aNv / bNv
		gotMu, gotTau := mu.Normal(), tau.Gamma()
		if d := math.Abs(gotMu.Mean - muN); d > 1e-12 {
			t.Errorf("sweep %d: μ_N = %.15g, PRML %.15g", it, gotMu.Mean, muN)
		}
		if d := math.Abs(1/gotMu.Var - lamN); d > 1e-12*lamN {
			t.Errorf("sweep %d: λ_N = %.15g, PRML %.15g", it, 1/gotMu.Var, lamN)
		}
		if math.Abs(gotTau.Shape-aNv) > 1e-12 || math.Abs(gotTau.Rate-bNv) > 1e-12*bNv {
			t.Errorf("sweep %d: q(τ) = %v, PRML Gamma(%.15g, %.15g)", it, gotTau, aNv, bNv)
		}
		F := res.FreeEnergy[len(res.FreeEnergy)-1]
		if F > prevF+1e-12 {
			t.Errorf("sweep %d: F rose from %.15g to %.15g", it, prevF, F)
		}
		if -F > logEvidence+1e-12 {
			t.Errorf("sweep %d: -F = %.15g above ln p(x) = %.15g", it, -F, logEvidence)
		}
		prevF = F
	}
	t.Logf("F = %.10g, -ln p(x) = %.10g", prevF, -logEvidence)
}
