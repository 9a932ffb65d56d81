package aci_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/pomdp"
)

// pymdpExpected is testdata/pymdp-tmaze/expected.json: numbers computed by
// pymdp's own agent (see the directory's README).
type pymdpExpected struct {
	Gamma         float64            `json:"gamma"`
	Horizon       int                `json:"horizon"`
	Alpha         map[string]float64 `json:"alpha"`
	LogLikelihood map[string]float64 `json:"log_likelihood"`
	NChoices      map[string]int     `json:"n_choices"`
	FirstSteps    []struct {
		Trial      int                  `json:"trial"`
		Step       int                  `json:"step"`
		QS         map[string][]float64 `json:"q_s"`
		QPi        []float64            `json:"q_pi"`
		PActions   []float64            `json:"p_actions"`
		LogPAction float64              `json:"log_p_action"`
	} `json:"first_subject_steps"`
}

// TestReplayMatchesPymdp: subjects simulated by pymdp's Agent on its
// T-maze (policy length 1, γ = 1, stochastic action selection at each
// subject's α, no learning) replayed through the classic agent with the
// same settings: every subject's log-likelihood equals pymdp's to 1e-6,
// and the first subject's first steps give pymdp's q_s, q_pi and action
// probabilities. (pymdp's numbers were computed with its log epsilons at
// 1e-300; docs/behaviour.md says how to match pymdp as shipped.)
func TestReplayMatchesPymdp(t *testing.T) {
	m, err := pomdp.Load("testdata/pymdp-tmaze/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/pymdp-tmaze/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want pymdpExpected
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/pymdp-tmaze/subjects.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	subjects, err := behaviour.Read(f, "subjects.csv", m)
	if err != nil {
		t.Fatal(err)
	}
	if len(subjects) != len(want.Alpha) {
		t.Fatalf("%d subjects, expected.json has %d", len(subjects), len(want.Alpha))
	}
	ctx := context.Background()
	for k, sub := range subjects {
		alpha, ok := want.Alpha[sub.Subject]
		if !ok {
			t.Fatalf("subject %s not in expected.json", sub.Subject)
		}
		ag, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: want.Horizon, Gamma: want.Gamma, ActionPrecision: &alpha, Select: aci.SelectSample})
		if err != nil {
			t.Fatal(err)
		}
		ll, n := 0.0, 0
		for i, tr := range sub.Trials {
			step := 0
			rt, err := agent.Replay(ctx, ag, tr.Obs, tr.Actions, &agent.EpisodeSettings{Seed: 1, Agent: k, Trial: i,
				OnStep: func(st *agent.Step) error {
					defer func() { step++ }()
					if k != 0 || st.Decision == nil {
						return nil
					}
					for _, w := range want.FirstSteps {
						if w.Trial != tr.Trial || w.Step != st.T {
							continue
						}
						qs := m.SplitBelief(st.Belief)
						for f := range m.NumFactors() {
							closeTo(t, "q_s "+m.FactorName(f), qs[f], w.QS[m.FactorName(f)], 1e-9)
						}
						closeTo(t, "q_pi", st.Decision.Value("q_pi"), w.QPi, 1e-9)
						closeTo(t, "action probabilities", st.Decision.Probs, w.PActions, 1e-9)
						closeTo(t, "log P(action)", []float64{math.Log(st.PAction)}, []float64{w.LogPAction}, 1e-9)
					}
					return nil
				}})
			if err != nil {
				t.Fatalf("subject %s trial %d: %v", sub.Subject, tr.Trial, err)
			}
			ll += rt.LogLikelihood
			n += rt.Choices
		}
		if n != want.NChoices[sub.Subject] {
			t.Errorf("subject %s: %d choices, pymdp scored %d", sub.Subject, n, want.NChoices[sub.Subject])
		}
		if d := math.Abs(ll - want.LogLikelihood[sub.Subject]); d > 1e-6 {
			t.Errorf("subject %s (α = %v): log-likelihood %.12f, pymdp %.12f (off by %.2g)", sub.Subject, alpha, ll, want.LogLikelihood[sub.Subject], d)
		} else {
			t.Logf("subject %s (α = %.4f): log-likelihood %.12f, pymdp %.12f (off by %.2g)", sub.Subject, alpha, ll, want.LogLikelihood[sub.Subject], d)
		}
	}
}

// closeTo reports entries of got farther than tol from want.
func closeTo(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d entries, want %d", what, len(got), len(want))
		return
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol {
			t.Errorf("%s: %v, want %v (tolerance %g)", what, got, want, tol)
			return
		}
	}
}
