package fit_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/fit"
)

// pearson returns the Pearson correlation of x and y.
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	mx, my := 0.0, 0.0
	for i := range x {
		mx += x[i] / n
		my += y[i] / n
	}
	sxy, sxx, syy := 0.0, 0.0, 0.0
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

// TestRecoveryPymdpTMaze: subjects simulated by the classic agent on
// pymdp's T-maze as pymdp's own data were (policy length 1, γ = 1, no
// learning, stochastic choice at each subject's α; the replay test of aci
// shows this agent equals pymdp's), with ln α drawn per subject from
// N(ln 2, 0.6²): the MAP estimates of ln α correlate with the true values
// at r >= 0.9 (Pearson). In full, 40 subjects of 100 trials (200 choices
// each, about pybefit's 100 blocks of 5 steps), with the default prior
// (SPM's N(0, 1/16) around α = 1, which shrinks the estimates toward 1)
// and with a prior as wide as the population's; under -short 24 subjects
// of 50 trials with the population's prior alone.
func TestRecoveryPymdpTMaze(t *testing.T) {
	if raceEnabled && testing.Short() {
		t.Skip("a statistical check, slow under the race detector: run without it (CI's long tests run it in full)")
	}
	m, _, _, _ := pymdpTMaze(t)
	n := 40
	if testing.Short() {
		n = 24
	}
	rng := rand.New(rand.NewPCG(2024, 11))
	truth := make([]float64, n)
	values := make([]map[string]float64, n)
	for k := range values {
		truth[k] = math.Log(2) + 0.6*rng.NormFloat64()
		values[k] = map[string]float64{"alpha": math.Exp(truth[k])}
	}
	sampler := aci.Factory{Options: aci.AgentOptions{Horizon: 1, Gamma: 1, Select: aci.SelectSample}}
	trials := 100
	if testing.Short() {
		trials = 50
	}
	recs := simulate(t, m, sampler, values, trials, 2, 3)
	type prior struct {
		name   string
		priors map[string]fit.Prior
	}
	priors := []prior{{"prior N(ln 2, 0.6²)", map[string]fit.Prior{"alpha": {Mean: math.Log(2), SD: 0.6}}}}
	restarts := 1
	if !testing.Short() {
		priors = append(priors, prior{"default prior N(0, 1/16)", nil})
		restarts = 2
	}
	for _, c := range priors {
		est := make([]float64, n)
		notConverged := 0
		err := fit.Subjects(context.Background(), pymdpFactory, m, recs, &fit.Settings{Free: []string{"alpha"}, Priors: c.priors, Seed: 3, Restarts: restarts, Jobs: 2}, func(r *fit.Result) error {
			est[r.Index] = r.Params[0].Theta
			if !r.Converged {
				notConverged++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		r := pearson(truth, est)
		t.Logf("%s: %d subjects, r = %.4f on ln α, %d not converged", c.name, n, r, notConverged)
		if r < 0.9 || notConverged > 0 {
			t.Errorf("%s: r = %.4f (want >= 0.9), %d not converged", c.name, r, notConverged)
		}
	}
}
