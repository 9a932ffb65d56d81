package fit_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// countingFactory builds its factory's agents wrapped so that their
// decisions are counted; the wrapper is an agent.Chooser when the agent is.
type countingFactory struct {
	agent.Factory
	decides *int
}

type countingAgent struct {
	agent.Agent
	decides *int
}

type countingChooser struct{ countingAgent }

func (a countingAgent) Decide(ctx context.Context, rng *rand.Rand) (*agent.Decision, error) {
	*a.decides++
	return a.Agent.Decide(ctx, rng)
}

func (a countingChooser) Choose(dst, base []float64) ([]float64, error) {
	return a.Agent.(agent.Chooser).Choose(dst, base)
}

func (f countingFactory) NewAgent(m *pomdp.Model, values map[string]float64) (agent.Agent, error) {
	ag, err := f.Factory.NewAgent(m, values)
	if err != nil {
		return nil, err
	}
	c := countingAgent{ag, f.decides}
	if _, ok := ag.(agent.Chooser); ok {
		return countingChooser{c}, nil
	}
	return c, nil
}

// TestChoiceRuleAlone: with the action precision α the only free
// parameter, an Objective replays its subject once and then evaluates the
// likelihood from the planner's stored distributions. Every value equals
// a full replay's (LogLikelihood) bit for bit, at α = 1 (where the rule
// leaves the model average as it is) and elsewhere, for aci (on the
// T-maze that learns its context, whose plans change from trial to trial)
// and si; with γ free too, or with a missed response, every evaluation
// replays.
func TestChoiceRuleAlone(t *testing.T) {
	ctx := context.Background()
	m := loadTMaze(t)
	sm, _, _, _ := pymdpTMaze(t)
	thetas := []float64{math.Log(2), 0, -1.3, 2.2, 0.4, math.Log(2)}
	for _, c := range []struct {
		name    string
		m       *pomdp.Model
		f       agent.Factory
		free    []string
		missing bool
		cached  bool
	}{
		{"aci", m, tmazeFactory(), []string{"alpha"}, false, true},
		{"aci, alpha and gamma", m, tmazeFactory(), []string{"alpha", "gamma"}, false, false},
		{"aci, a missed response", m, tmazeFactory(), []string{"alpha"}, true, false},
		{"si", sm, si.Factory{Options: si.Options{Depth: 2, Gamma: 1, Select: si.SelectSample}}, []string{"alpha"}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			recs := simulate(t, c.m, c.f, []map[string]float64{{"alpha": 2}, {"alpha": 0.5}}, 12, 2, 3)
			if c.missing {
				recs[1].Trials[4].Actions[0] = -1
			}
			for k := range recs {
				rec := &recs[k]
				if c.missing && k == 0 {
					continue
				}
				decides := 0
				f := countingFactory{c.f, &decides}
				o, err := fit.NewObjective(f, c.m, rec, k, &fit.Settings{Free: c.free, Seed: 3})
				if err != nil {
					t.Fatal(err)
				}
				var perEval []int
				for _, th := range thetas {
					theta := []float64{th, math.Log(3)}[:len(c.free)]
					before := decides
					got, err := o.LogLikelihood(ctx, theta)
					if err != nil {
						t.Fatal(err)
					}
					perEval = append(perEval, decides-before)
					want, n, _, err := fit.LogLikelihood(ctx, c.f, c.m, rec, k, 3, o.Values(theta))
					if err != nil {
						t.Fatal(err)
					}
					if got != want || o.NumChoices() != n {
						t.Errorf("subject %d, theta %v: %v (%d choices), a replay gives %v (%d)", k, theta, got, o.NumChoices(), want, n)
					}
				}
				// The first evaluation replays every decision; later ones
				// none when the rule alone is free.
				for i, d := range perEval {
					if i > 0 && (d == 0) != c.cached {
						t.Errorf("subject %d: evaluation %d made %d decisions (cached %v)", k, i, d, c.cached)
					}
				}
				if perEval[0] == 0 {
					t.Errorf("subject %d: the first evaluation made no decision", k)
				}
			}
		})
	}
}

// TestChoiceRuleAloneIndependentFactors: with two controllable factors and
// independent action factors (each factor's control from σ(α ln P_f)), the
// stored distributions give the replay's likelihood bit for bit.
func TestChoiceRuleAloneIndependentFactors(t *testing.T) {
	// Two factors with two controls each and one modality over both.
	m, err := pomdp.Parse([]byte(`{"factors": [
	  {"name": "x", "controls": ["stay", "switch"], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "D": [0.8, 0.2]},
	  {"name": "y", "controls": ["stay", "switch"], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "D": [0.3, 0.7]}],
	  "modalities": [{"name": "o", "depends_on": ["x", "y"],
	    "A": [[[0.9, 0.2], [0.2, 0.9]], [[0.1, 0.8], [0.8, 0.1]]], "log_C": [1, 0]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	alpha := 1.5
	f := aci.Factory{Options: aci.AgentOptions{Horizon: 2, Gamma: 2, ActionPrecision: &alpha, Select: aci.SelectSample, ActionFactors: agent.IndependentActions}}
	recs := simulate(t, m, f, []map[string]float64{{"alpha": 1.5}}, 6, 3, 5)
	o, err := fit.NewObjective(f, m, &recs[0], 0, &fit.Settings{Free: []string{"alpha"}, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range []float64{0.4, -0.7, 1.9} {
		got, err := o.LogLikelihood(context.Background(), []float64{th})
		if err != nil {
			t.Fatal(err)
		}
		want, _, _, err := fit.LogLikelihood(context.Background(), f, m, &recs[0], 0, 5, o.Values([]float64{th}))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("theta %v: %v, a replay gives %v", th, got, want)
		}
	}
}
