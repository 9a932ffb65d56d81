package schedule_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mathext"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// TestGaussianMixtureSweeps: a Gaussian mixture of K = 3 components and
// n = 2,000 points, y_i ~ N(m_(z_i), 1/τ_(z_i)), z_i ~ Cat(θ), θ ~ Dir(α_0),
// m_k ~ N(μ_k, 1/λ_0), τ_k ~ Gamma(a_0, b_0), under mean field
// q(θ) Π q(m_k) q(τ_k) Π q(z_i). The coordinate-ascent updates (Bishop,
// PRML §10.2, with independent priors on m_k and τ_k), in the order every
// z_i, θ, m, τ (the assignments first, so that the priors' different means
// break the symmetry), are written out below with r_ik = q(z_i = k):
//
//	q(θ) = Dir(α_0 + Σ_i r_i)
//	q(m_k) = N(·, 1/λ_k), λ_k = λ_0 + E τ_k Σ_i r_ik, mean (λ_0 μ_k + E τ_k Σ_i r_ik y_i)/λ_k
//	q(τ_k) = Gamma(a_0 + ½ Σ_i r_ik, b_0 + ½ Σ_i r_ik (y_i² - 2 y_i E m_k + E m_k²))
//	ln r_ik = E ln θ_k + ½ E ln τ_k - ½ ln 2π - ½ E τ_k (y_i² - 2 y_i E m_k + E m_k²) + const
//
// Every sweep of the engine must equal them to 1e-10 (r, and the
// parameters of q(θ), q(m_k), q(τ_k)), and F must never rise.
func TestGaussianMixtureSweeps(t *testing.T) {
	const k, n = 3, 2000
	rng := rand.New(rand.NewPCG(3, 2000))
	trueMean := []float64{-3, 0.5, 4}
	trueSD := []float64{0.8, 1.5, 0.6}
	ys := make([]float64, n)
	for i := range ys {
		c := rng.IntN(k)
		ys[i] = trueMean[c] + trueSD[c]*rng.NormFloat64()
	}
	alpha0 := []float64{1, 1, 1}
	mu0 := []float64{-2, 0, 2} // different prior means break the symmetry
	const lambda0, a0, b0 = 0.1, 1.0, 1.0

	g := ffg.New()
	theta, _ := g.AddVariable("theta", expfam.DirichletFamily, k)
	dp, _ := nodes.NewDirichlet(alpha0, []int{k})
	mustFactor(t, g, dp, theta)
	ms := make([]*ffg.Variable, k)
	taus := make([]*ffg.Variable, k)
	for j := range k {
		ms[j], _ = g.AddVariable("", expfam.NormalFamily)
		p, _ := nodes.NewNormal(nodes.LiteralMean(mu0[j]), nodes.LiteralPrecision(lambda0))
		mustFactor(t, g, p, ms[j])
	}
	for j := range k {
		taus[j], _ = g.AddVariable("", expfam.GammaFamily)
		p, _ := nodes.NewGamma(a0, b0)
		mustFactor(t, g, p, taus[j])
	}
	cat, _ := nodes.NewCategoricalDirichlet(k)
	means := []nodes.Mean{nodes.VariableMean(), nodes.VariableMean(), nodes.VariableMean()}
	precs := []nodes.Precision{nodes.VariablePrecision(), nodes.VariablePrecision(), nodes.VariablePrecision()}
	mix, err := nodes.NewNormalMixture(means, precs)
	if err != nil {
		t.Fatal(err)
	}
	zs := make([]*ffg.Variable, n)
	for i, y := range ys {
		zs[i], _ = g.AddVariable("", expfam.CategoricalFamily, k)
		mustFactor(t, g, cat, zs[i], theta)
		yv, _ := g.AddVariable("", expfam.NormalFamily)
		if err := yv.ObserveValue(y); err != nil {
			t.Fatal(err)
		}
		mustFactor(t, g, mix, yv, zs[i], ms[0], ms[1], ms[2], taus[0], taus[1], taus[2])
	}

	// The hand loop's state, from where the graph starts.
	r := make([][]float64, n)
	for i := range r {
		r[i] = []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	}
	mMean, mVar := make([]float64, k), make([]float64, k)
	tA, tB := make([]float64, k), make([]float64, k)
	for j := range k {
		q := ms[j].Normal()
		mMean[j], mVar[j] = q.Mean, q.Var
		if q.Mean != mu0[j] || q.Var != 1/lambda0 {
			t.Fatalf("m_%d starts at %v, want its prior", j, q)
		}
		g := taus[j].Gamma()
		tA[j], tB[j] = g.Shape, g.Rate
	}
	alpha := append([]float64(nil), alpha0...)
	// The assignments first, from the priors' different means, then θ,
	// the means and the precisions.
	order := append(append(append(append([]*ffg.Variable(nil), zs...), theta), ms...), taus...)
	prevF := math.Inf(1)
	for sweep := range 25 {
		res, err := schedule.Run(context.Background(), g, &schedule.Settings{Iterations: 1, Order: order})
		if err != nil {
			t.Fatal(err)
		}
		// z_i.
		asum := alpha[0] + alpha[1] + alpha[2]
		for i, y := range ys {
			var l [k]float64
			mx := math.Inf(-1)
			for j := range k {
				em, em2 := mMean[j], mMean[j]*mMean[j]+mVar[j]
				et, elt := tA[j]/tB[j], mathext.Digamma(tA[j])-math.Log(tB[j])
				l[j] = mathext.Digamma(alpha[j]) - mathext.Digamma(asum) + 0.5*elt - 0.5*math.Log(2*math.Pi) - 0.5*et*(y*y-2*y*em+em2)
				mx = math.Max(mx, l[j])
			}
			s := 0.0
			for j := range k {
				l[j] = math.Exp(l[j] - mx)
				s += l[j]
			}
			for j := range k {
				r[i][j] = l[j] / s
			}
		}
		// θ.
		for j := range k {
			alpha[j] = alpha0[j]
			for i := range n {
				alpha[j] += r[i][j]
			}
		}
		// m_k.
		for j := range k {
			et := tA[j] / tB[j]
			sr, sry := 0.0, 0.0
			for i := range n {
				sr += r[i][j]
				sry += r[i][j] * ys[i]
			}
			lam := lambda0 + et*sr
			mMean[j], mVar[j] = (lambda0*mu0[j]+et*sry)/lam, 1/lam
		}
		// τ_k.
		for j := range k {
			em, em2 := mMean[j], mMean[j]*mMean[j]+mVar[j]
			sr, sq := 0.0, 0.0
			for i, y := range ys {
				sr += r[i][j]
				sq += r[i][j] * (y*y - 2*y*em + em2)
			}
			tA[j], tB[j] = a0+sr/2, b0+sq/2
		}
		// Compare.
		close := func(what string, got, want float64) {
			if d := math.Abs(got - want); !(d <= 1e-10*math.Max(1, math.Abs(want))) {
				t.Fatalf("sweep %d: %s = %.15g, hand loop %.15g", sweep, what, got, want)
			}
		}
		for j := range k {
			close("alpha", theta.Alpha()[j], alpha[j])
			q := ms[j].Normal()
			close("mean of m", q.Mean, mMean[j])
			close("variance of m", q.Var, mVar[j])
			g := taus[j].Gamma()
			close("shape of τ", g.Shape, tA[j])
			close("rate of τ", g.Rate, tB[j])
		}
		for i := range n {
			for j := range k {
				close("r", zs[i].Probs()[j], r[i][j])
			}
		}
		F := res.FreeEnergy[len(res.FreeEnergy)-1]
		if F > prevF+1e-9 {
			t.Errorf("sweep %d: F rose from %.12g to %.12g", sweep, prevF, F)
		}
		prevF = F
	}
	for j := range k {
		t.Logf("component %d: mean %.3f, sd %.3f, weight %.3f", j, mMean[j], math.Sqrt(tB[j]/tA[j]), alpha[j]/(alpha[0]+alpha[1]+alpha[2]))
	}
}

func mustFactor(t *testing.T, g *ffg.Graph, f ffg.Factor, vars ...*ffg.Variable) {
	t.Helper()
	if _, err := g.AddFactor("", f, vars...); err != nil {
		t.Fatal(err)
	}
}
