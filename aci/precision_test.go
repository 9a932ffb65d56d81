package aci_test

import (
	"context"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestActionPrecision: the choice distribution is P(u) = σ(α ln
// P_marginal(u)) = P_marginal(u)^α / Σ_v P_marginal(v)^α, P_marginal being
// the model average the plan reports (Plan.ActionProbs): at α = 1 it is
// the model average itself (bit for bit, the default), at α = 3 the cubes
// normalised, at α = 0 uniform. With two actions and P_marginal = (p, 1-p)
// the α = 3 value is p³ / (p³ + (1-p)³), written out below.
func TestActionPrecision(t *testing.T) {
	m, err := pomdp.Load("testdata/tiny-pomdp.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	decide := func(alpha *float64) *agent.Decision {
		ag, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: 2, Gamma: 4, ActionPrecision: alpha})
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Reset(ctx, 1); err != nil {
			t.Fatal(err)
		}
		d, err := ag.Decide(ctx, agent.StepRand(1, 0, 0, 0))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	three, zero := 3.0, 0.0
	d1, d3, d0 := decide(nil), decide(&three), decide(&zero)
	marg := d1.Detail.(*aci.Plan).ActionProbs
	if d1.Probs[0] != marg[0] || d1.Probs[1] != marg[1] {
		t.Errorf("α = 1: %v, want the model average %v", d1.Probs, marg)
	}
	p := marg[0]
	want3 := p * p * p / (p*p*p + (1-p)*(1-p)*(1-p))
	if math.Abs(d3.Probs[0]-want3) > 1e-14 || math.Abs(d3.Probs[0]+d3.Probs[1]-1) > 1e-14 {
		t.Errorf("α = 3: %v, want (%v, %v)", d3.Probs, want3, 1-want3)
	}
	if d0.Probs[0] != 0.5 || d0.Probs[1] != 0.5 {
		t.Errorf("α = 0: %v, want uniform", d0.Probs)
	}
	if d1.Deterministic || d3.Deterministic {
		t.Error("the classic agent's choice distribution can always score a choice")
	}
	neg := -1.0
	if _, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: 2, ActionPrecision: &neg}); err == nil {
		t.Error("α = -1: no error")
	}
}
