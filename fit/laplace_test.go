package fit_test

import (
	"context"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/fit"
)

// quadrature is a dense 1-D grid of the log posterior of one free
// parameter, computed in the test by evaluating the objective at every
// point.
type quadrature struct {
	lo, h float64
	lp    []float64 // ln p(choices | θ) + ln p(θ) at lo + i h
}

func newQuadrature(t *testing.T, obj *fit.Objective, lo, hi, h float64) *quadrature {
	t.Helper()
	q := &quadrature{lo: lo, h: h}
	for x := lo; x <= hi+h/2; x += h {
		v, err := obj.LogPosterior(context.Background(), []float64{x})
		if err != nil {
			t.Fatal(err)
		}
		q.lp = append(q.lp, v)
	}
	return q
}

// mode returns the maximum of the grid refined by the parabola through it
// and its two neighbours, and the curvature -d²/dθ² ln p there by the
// second difference of the grid.
func (q *quadrature) mode(t *testing.T) (theta, curvature float64) {
	t.Helper()
	k := 0
	for i, v := range q.lp {
		if v > q.lp[k] {
			k = i
		}
	}
	if k == 0 || k == len(q.lp)-1 {
		t.Fatalf("the grid's maximum is at its edge (index %d of %d)", k, len(q.lp))
	}
	a, b, c := q.lp[k-1], q.lp[k], q.lp[k+1]
	d2 := a - 2*b + c
	return q.lo + q.h*(float64(k)+0.5*(a-c)/d2), -d2 / (q.h * q.h)
}

// logEvidence returns ln ∫ p(choices | θ) p(θ) dθ by the trapezoidal rule,
// and the posterior mean and SD.
func (q *quadrature) logEvidence() (lz, mean, sd float64) {
	hi := math.Inf(-1)
	for _, v := range q.lp {
		hi = math.Max(hi, v)
	}
	z, m1, m2 := 0.0, 0.0, 0.0
	for i, v := range q.lp {
		w := math.Exp(v - hi)
		if i == 0 || i == len(q.lp)-1 {
			w /= 2
		}
		x := q.lo + q.h*float64(i)
		z += w
		m1 += w * x
		m2 += w * x * x
	}
	mean = m1 / z
	return hi + math.Log(z*q.h), mean, math.Sqrt(m2/z - mean*mean)
}

// TestLaplaceAgainstQuadrature: one free parameter (ln α of the classic
// agent on pymdp's T-maze). The MAP equals the mode of a dense quadrature
// of the same posterior (to 1e-3 on the log scale), and the Laplace SD
// equals 1/√curvature of the quadrature at its mode to 1%. On a subject
// with many choices, where the posterior is near Gaussian, the Laplace log
// evidence is within 0.1 nat of the quadrature's. The result's
// log-likelihood is the likelihood at the MAP, and AIC and BIC follow from
// it.
func TestLaplaceAgainstQuadrature(t *testing.T) {
	m, recs, _, _ := pymdpTMaze(t)
	// A simulated subject of 60 trials at α = 2 on the same T-maze: 120
	// choices, a near-Gaussian posterior.
	sampler := aci.Factory{Options: aci.AgentOptions{Horizon: 1, Gamma: 1, Select: aci.SelectSample}}
	many := simulate(t, m, sampler, []map[string]float64{{"alpha": 2}}, 60, 2, 7)
	cases := []struct {
		name     string
		rec      *behaviour.SubjectRecord
		index    int
		seed     uint64
		evidence bool // near Gaussian: compare the evidence
	}{
		{"pymdp s02, 16 choices", &recs[1], 1, 1, false},
		{"simulated, 120 choices", &many[0], 0, 7, true},
	}
	ctx := context.Background()
	for _, c := range cases {
		set := &fit.Settings{Free: []string{"alpha"}, Priors: map[string]fit.Prior{"alpha": {Mean: 0, SD: 1}}, Seed: c.seed}
		res, err := fit.Subject(ctx, pymdpFactory, m, c.rec, c.index, set)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged || !res.Laplace {
			t.Fatalf("%s: converged %v, Laplace %v: %s", c.name, res.Converged, res.Laplace, res.Reason)
		}
		obj, err := fit.NewObjective(pymdpFactory, m, c.rec, c.index, set)
		if err != nil {
			t.Fatal(err)
		}
		est := res.Params[0]
		// The grid spans ±5 Laplace SDs around the MAP, 20 points per SD.
		q := newQuadrature(t, obj, est.Theta-5*est.SDTheta, est.Theta+5*est.SDTheta, est.SDTheta/20)
		mode, curv := q.mode(t)
		lz, mean, sd := q.logEvidence()
		t.Logf("%s: MAP ln α %.6f, quadrature mode %.6f (mean %.6f, SD %.6f); Laplace SD %.6f, 1/√curvature %.6f; log evidence Laplace %.6f, quadrature %.6f",
			c.name, est.Theta, mode, mean, sd, est.SDTheta, 1/math.Sqrt(curv), res.LogEvidence, lz)
		if d := math.Abs(est.Theta - mode); d > 1e-3 {
			t.Errorf("%s: MAP ln α %v, quadrature mode %v (off by %.2g)", c.name, est.Theta, mode, d)
		}
		if r := est.SDTheta * math.Sqrt(curv); math.Abs(r-1) > 0.01 {
			t.Errorf("%s: Laplace SD %v, quadrature 1/√curvature %v (ratio %v)", c.name, est.SDTheta, 1/math.Sqrt(curv), r)
		}
		if c.evidence && math.Abs(res.LogEvidence-lz) > 0.1 {
			t.Errorf("%s: Laplace log evidence %v, quadrature %v", c.name, res.LogEvidence, lz)
		}
		if est.Value != math.Exp(est.Theta) || math.Abs(est.SD-est.Value*est.SDTheta) > 1e-12*est.SD {
			t.Errorf("%s: natural scale %v (SD %v), want exp θ and the delta method", c.name, est.Value, est.SD)
		}
		ll, n, _, err := fit.LogLikelihood(ctx, pymdpFactory, m, c.rec, c.index, c.seed, map[string]float64{"alpha": est.Value})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.LogLikelihood-ll) > 1e-9 || n != res.NChoices {
			t.Errorf("%s: result log-likelihood %v over %d choices, the likelihood at the MAP %v over %d", c.name, res.LogLikelihood, res.NChoices, ll, n)
		}
		if math.Abs(res.AIC-(2-2*ll)) > 1e-9 || math.Abs(res.BIC-(math.Log(float64(n))-2*ll)) > 1e-9 {
			t.Errorf("%s: AIC %v, BIC %v; want %v and %v", c.name, res.AIC, res.BIC, 2-2*ll, math.Log(float64(n))-2*ll)
		}
	}
}
