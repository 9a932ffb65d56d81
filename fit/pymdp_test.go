package fit_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/pomdp"
)

// pymdpTMaze loads testdata/pymdp-tmaze: the model, the subjects and
// pymdp's numbers for them (testdata/pymdp-tmaze/README.md).
func pymdpTMaze(t testing.TB) (*pomdp.Model, []behaviour.SubjectRecord, map[string]float64, map[string]float64) {
	t.Helper()
	m, err := pomdp.Load("testdata/pymdp-tmaze/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/pymdp-tmaze/subjects.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := behaviour.Read(f, "subjects.csv", m)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/pymdp-tmaze/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Alpha         map[string]float64 `json:"alpha"`
		LogLikelihood map[string]float64 `json:"log_likelihood"`
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	return m, recs, want.Alpha, want.LogLikelihood
}

// pymdpFactory is the classic agent with pymdp's settings of the data:
// policy length 1, γ = 1.
var pymdpFactory = aci.Factory{Options: aci.AgentOptions{Horizon: 1, Gamma: 1}}

// TestLogLikelihoodMatchesPymdp: the log-likelihood that fit computes for
// each of pymdp's subjects at its true α (through the factory, as a fit
// evaluates it) equals pymdp's to 1e-6, both through the package function
// and through an Objective at θ = ln α.
func TestLogLikelihoodMatchesPymdp(t *testing.T) {
	m, recs, alpha, want := pymdpTMaze(t)
	ctx := context.Background()
	for k := range recs {
		rec := &recs[k]
		a := alpha[rec.Subject]
		ll, n, zero, err := fit.LogLikelihood(ctx, pymdpFactory, m, rec, k, 1, map[string]float64{"alpha": a})
		if err != nil {
			t.Fatal(err)
		}
		if n != 16 || zero != nil {
			t.Errorf("subject %s: %d choices (want 16, expected.json's n_choices), zero %v", rec.Subject, n, zero)
		}
		if d := math.Abs(ll - want[rec.Subject]); d > 1e-6 {
			t.Errorf("subject %s: log-likelihood %.12f at α = %v, pymdp %.12f", rec.Subject, ll, a, want[rec.Subject])
		}
		obj, err := fit.NewObjective(pymdpFactory, m, rec, k, &fit.Settings{Free: []string{"alpha"}})
		if err != nil {
			t.Fatal(err)
		}
		ll2, err := obj.LogLikelihood(ctx, []float64{math.Log(a)})
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(ll2 - want[rec.Subject]); d > 1e-6 {
			t.Errorf("subject %s: Objective.LogLikelihood(ln α) %.12f, pymdp %.12f", rec.Subject, ll2, want[rec.Subject])
		}
	}
}
