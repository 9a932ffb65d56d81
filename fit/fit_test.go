package fit_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestSubjectsJobs: the results of Subjects do not depend on the number of
// jobs (every subject's restarts and random streams depend on its index
// alone), and come in the order of the records.
func TestSubjectsJobs(t *testing.T) {
	m, recs, _, _ := pymdpTMaze(t)
	var got [2][]*fit.Result
	for j, jobs := range []int{1, 2} {
		set := &fit.Settings{Free: []string{"alpha", "gamma"}, Restarts: 2, Seed: 5, Jobs: jobs}
		err := fit.Subjects(context.Background(), pymdpFactory, m, recs, set, func(r *fit.Result) error {
			got[j] = append(got[j], r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(got[0], got[1], cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("jobs 1 and 2 differ (-1 +2):\n%s", diff)
	}
	for k, r := range got[0] {
		if r.Index != k || r.Subject != recs[k].Subject {
			t.Errorf("result %d is subject %s (index %d)", k, r.Subject, r.Index)
		}
	}
}

// TestSubjectRestartsJobs: one subject's restarts run at once on 2 or 3
// jobs, and the points of its finite differences shared among them, give
// the results of 1 job, evaluations included, for α and γ (every
// evaluation a replay), for γ alone and for α alone (evaluations from the
// stored distributions, one replay per worker); Subjects gives one subject
// all the jobs and twenty subjects one each.
func TestSubjectRestartsJobs(t *testing.T) {
	m := loadTMaze(t)
	fac := tmazeFactory()
	recs := simulate(t, m, fac, []map[string]float64{{"alpha": 2, "gamma": 4}}, 30, 2, 7)
	// With one start, the jobs evaluate the points of the gradient's and
	// the Hessian's finite differences at once (when the agent replays:
	// alpha and gamma); with four, the restarts run at once and the jobs
	// then share the Hessian's points.
	for _, c := range []struct {
		free     []string
		restarts int
	}{{[]string{"alpha", "gamma"}, 4}, {[]string{"alpha"}, 4}, {[]string{"alpha", "gamma"}, 1}, {[]string{"gamma"}, 1}} {
		free := c.free
		var got []*fit.Result
		for _, jobs := range []int{1, 2, 3} {
			set := &fit.Settings{Free: free, Restarts: c.restarts, Seed: 7, Jobs: jobs}
			r, err := fit.Subject(context.Background(), fac, m, &recs[0], 0, set)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		for j := 1; j < len(got); j++ {
			if diff := cmp.Diff(got[0], got[j], cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("%v, %d restarts: jobs 1 and %d differ (-1 +%d):\n%s", free, c.restarts, j+1, j+1, diff)
			}
		}
	}
	set := &fit.Settings{Jobs: 4}
	if one, many := set.PerSubject(1).Jobs, set.PerSubject(20).Jobs; one != 4 || many != 1 {
		t.Errorf("PerSubject: %d jobs for one subject, %d for each of twenty, want 4 and 1", one, many)
	}
}

// TestSettingsErrors: faults of the settings are errors naming the field
// and the parameter.
func TestSettingsErrors(t *testing.T) {
	m, recs, _, _ := pymdpTMaze(t)
	cases := []struct {
		s    *fit.Settings
		want string
	}{
		{nil, "Settings.Free: no free parameter"},
		{&fit.Settings{Free: []string{"eta"}}, `Settings.Free: agent: parameter "eta": the agent has gamma, alpha and pref`},
		{&fit.Settings{Free: []string{"alpha", "alpha"}}, "Settings.Free: alpha given twice"},
		{&fit.Settings{Free: []string{"alpha"}, Priors: map[string]fit.Prior{"alpha": {0, 0}}}, "Settings.Priors[alpha]: SD 0: want a finite number >= 0.001"},
		{&fit.Settings{Free: []string{"alpha"}, Priors: map[string]fit.Prior{"alpha": {math.NaN(), 1}}}, "Settings.Priors[alpha]: mean NaN: want a finite number within ±25 on the fitting scale (the values the fit searches)"},
		{&fit.Settings{Free: []string{"alpha"}, Priors: map[string]fit.Prior{"gamma": {0, 1}}}, "Settings.Priors[gamma]: gamma is not a free parameter"},
		{&fit.Settings{Free: []string{"alpha"}, Restarts: -1}, "Settings.Restarts: -1"},
		{&fit.Settings{Free: []string{"alpha"}, Method: 7}, "Settings.Method: 7"},
	}
	for _, c := range cases {
		_, err := fit.Subject(context.Background(), pymdpFactory, m, &recs[0], 0, c.s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.s, err, c.want)
		}
	}
	// Bounds that Validate finds before any work: the restarts (as the
	// command line's --restarts), a prior mean outside the box the fit
	// searches (once an agent refusing exp(1e308) as the data's fault), an
	// SD so small that no start was feasible (once "the likelihood is 0 at
	// every starting point").
	ps := pymdpFactory.Params(m)
	for _, c := range []struct {
		s    fit.Settings
		want string
	}{
		{fit.Settings{Free: []string{"alpha"}, Restarts: 1_000_000_000}, "fit: Settings.Restarts: 1000000000, want 1..1000"},
		{fit.Settings{Free: []string{"alpha"}, Restarts: fit.MaxRestarts + 1}, "want 1..1000"},
		{fit.Settings{Free: []string{"alpha"}, Priors: map[string]fit.Prior{"alpha": {1e308, 1e308}}}, "fit: Settings.Priors[alpha]: mean 1e+308: want a finite number within ±25"},
		{fit.Settings{Free: []string{"alpha"}, Priors: map[string]fit.Prior{"alpha": {-26, 1}}}, "mean -26: want a finite number within ±25"},
		{fit.Settings{Free: []string{"alpha"}, Priors: map[string]fit.Prior{"alpha": {0, 1e-300}}}, "fit: Settings.Priors[alpha]: SD 1e-300: want a finite number >= 0.001"},
		{fit.Settings{Free: []string{"alpha"}, Priors: map[string]fit.Prior{"alpha": {0, math.Inf(1)}}}, "SD +Inf"},
	} {
		if err := c.s.Validate(ps); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.s, err, c.want)
		}
	}
	for _, ok := range []fit.Settings{
		{Free: []string{"alpha"}, Restarts: fit.MaxRestarts},
		{Free: []string{"alpha"}, Priors: map[string]fit.Prior{"alpha": {-fit.MaxPriorMean, fit.MinPriorSD}}},
		{Free: []string{"alpha"}, Priors: map[string]fit.Prior{"alpha": {fit.MaxPriorMean, 1e300}}},
	} {
		if err := ok.Validate(ps); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
	if _, err := fit.Subject(context.Background(), nil, m, &recs[0], 0, &fit.Settings{Free: []string{"alpha"}}); err == nil {
		t.Error("a nil factory: no error")
	}
	// A subject whose every response is missing has nothing to fit.
	missed := recs[0]
	missed.Trials = nil
	for _, tr := range recs[0].Trials {
		tr.Actions = []int{-1, -1}
		missed.Trials = append(missed.Trials, tr)
	}
	_, err := fit.Subject(context.Background(), pymdpFactory, m, &missed, 0, &fit.Settings{Free: []string{"alpha"}})
	var se *fit.SubjectError
	if !errors.Is(err, fit.ErrNoChoices) || !errors.As(err, &se) || se.Subject != "s01" {
		t.Errorf("every response missing: %v, want ErrNoChoices in a SubjectError for s01", err)
	}
	// A recorded action out of range is a fault of the data at its step.
	bad := recs[0]
	bad.Trials = append([]behaviour.TrialRecord(nil), recs[0].Trials...)
	bad.Trials[2].Actions = []int{0, 9}
	_, err = fit.Subject(context.Background(), pymdpFactory, m, &bad, 0, &fit.Settings{Free: []string{"alpha"}})
	var step *agent.StepError
	if !errors.As(err, &se) || se.Trial != 2 || !errors.As(err, &step) || step.Step != 1 {
		t.Errorf("action 9: %v, want a SubjectError at trial index 2, step 1", err)
	}
}

// TestZeroLikelihood: when a recorded choice has probability 0 at every
// starting point (C = 0 for the loss makes the arms' G infinite), the
// result reports a log-likelihood of -Inf, where, and not converged.
func TestZeroLikelihood(t *testing.T) {
	m, recs, _, _ := pymdpTMaze(t)
	fs := m.FactorisedSpec()
	for i := range fs.Modalities {
		if fs.Modalities[i].Name == "reward" {
			fs.Modalities[i].C = []float64{0.5, 0.5, 0} // none, reward, loss
		}
	}
	zm, err := pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fit.Subject(context.Background(), pymdpFactory, zm, &recs[0], 0, &fit.Settings{Free: []string{"alpha"}})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(res.LogLikelihood, -1) || res.Converged || res.Zero == nil || !strings.Contains(res.Reason, "probability 0") {
		t.Fatalf("log-likelihood %v, converged %v, zero %v, reason %q", res.LogLikelihood, res.Converged, res.Zero, res.Reason)
	}
	// s01's first choice (trial 1, step 0) is an arm.
	if *res.Zero != (fit.ZeroChoice{Trial: 0, TrialNumber: 1, Step: 0}) {
		t.Errorf("zero at %+v, want trial 1, step 0", *res.Zero)
	}
}

// TestSteppedNelderMead: BTAI's pref changes its planning tree in steps:
// the fit uses Nelder-Mead, reports no Laplace approximation and says why;
// with α alone (smooth on a fixed tree) it uses BFGS and the Laplace
// approximation.
func TestSteppedNelderMead(t *testing.T) {
	m, recs, _, _ := pymdpTMaze(t)
	fac := btai.Factory{Options: &btai.Options{ActionSelection: btai.Softmax, Iterations: 20}}
	set := &fit.Settings{Free: []string{"alpha", "pref"}, Restarts: 1, MaxEvaluations: 60}
	rec := recs[0]
	rec.Trials = rec.Trials[:3]
	res, err := fit.Subject(context.Background(), fac, m, &rec, 0, set)
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != fit.NelderMead || res.Laplace || !math.IsNaN(res.LogEvidence) || !math.IsNaN(res.Params[0].SD) ||
		!strings.Contains(res.Warning, "no Laplace approximation: the likelihood is piecewise constant in pref") {
		t.Errorf("method %v, Laplace %v, evidence %v, SD %v, warning %q", res.Method, res.Laplace, res.LogEvidence, res.Params[0].SD, res.Warning)
	}
	if math.IsNaN(res.LogLikelihood) || math.IsNaN(res.AIC) {
		t.Errorf("log-likelihood %v, AIC %v: want numbers", res.LogLikelihood, res.AIC)
	}
	res, err = fit.Subject(context.Background(), fac, m, &rec, 0, &fit.Settings{Free: []string{"alpha"}, Restarts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != fit.BFGS || res.Warning != "" || (res.Converged && !res.Laplace) {
		t.Errorf("α alone: method %v, warning %q, converged %v, Laplace %v (%s)", res.Method, res.Warning, res.Converged, res.Laplace, res.Reason)
	}
}

// TestMethodText: the method's names round-trip (flag.TextVar).
func TestMethodText(t *testing.T) {
	for _, m := range []fit.Method{fit.Auto, fit.BFGS, fit.NelderMead} {
		b, err := m.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back fit.Method
		if err := back.UnmarshalText(b); err != nil || back != m {
			t.Errorf("%v: %q back to %v (%v)", m, b, back, err)
		}
	}
	var m fit.Method
	if err := m.UnmarshalText([]byte("newton")); err == nil {
		t.Error("newton: no error")
	}
}
