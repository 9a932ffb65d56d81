package aci_test

import (
	"context"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// twoControlModel: two factors x and y of 2 states, each with a "stay" and
// a "switch" control, one modality that depends on both (outcome 0 likely
// when x = y) and prefers outcome 0.
func twoControlModel(t *testing.T) *pomdp.Model {
	t.Helper()
	m, err := pomdp.Parse([]byte(`{"factors": [
	  {"name": "x", "controls": ["stay", "switch"], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "D": [0.8, 0.2]},
	  {"name": "y", "controls": ["stay", "switch"], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "D": [0.3, 0.7]}],
	  "modalities": [{"name": "o", "depends_on": ["x", "y"],
	    "A": [[[0.9, 0.2], [0.2, 0.9]], [[0.1, 0.8], [0.8, 0.1]]], "log_C": [1, 0]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestActionFactorsIndependent: with IndependentActions the decision's
// distribution is Π_f σ(α ln P_f(u_f)), P_f the marginals of the joint
// model average P that the JointActions agent reports (computed here from
// P by summing over the other factor's controls), and it differs from the
// joint σ(α ln P) whenever P is not a product.
func TestActionFactorsIndependent(t *testing.T) {
	m := twoControlModel(t)
	ctx := context.Background()
	decide := func(alpha float64, af agent.ActionFactors) *agent.Decision {
		ag, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: 2, Gamma: 4, ActionPrecision: &alpha, ActionFactors: af})
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Reset(ctx, 0); err != nil {
			t.Fatal(err)
		}
		d, err := ag.Decide(ctx, agent.StepRand(1, 0, 0, 0))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	P := decide(1, agent.JointActions).Probs
	var px, py [2]float64
	var ctrl []int
	for u, p := range P {
		ctrl = m.DecodeAction(ctrl, u)
		px[ctrl[0]] += p
		py[ctrl[1]] += p
	}
	for _, alpha := range []float64{1, 3} {
		ind := decide(alpha, agent.IndependentActions).Probs
		joint := decide(alpha, agent.JointActions).Probs
		zx := math.Pow(px[0], alpha) + math.Pow(px[1], alpha)
		zy := math.Pow(py[0], alpha) + math.Pow(py[1], alpha)
		differs := false
		for u := range ind {
			ctrl = m.DecodeAction(ctrl, u)
			want := math.Pow(px[ctrl[0]], alpha) * math.Pow(py[ctrl[1]], alpha) / (zx * zy)
			if math.Abs(ind[u]-want) > 1e-14 {
				t.Errorf("α %v, u %d %v: %v, want %v", alpha, u, ctrl, ind[u], want)
			}
			differs = differs || math.Abs(ind[u]-joint[u]) > 1e-6
		}
		if !differs {
			t.Errorf("α %v: independent %v equals joint %v (the model average here is not a product)", alpha, ind, joint)
		}
	}
	if _, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: 1, ActionFactors: agent.ActionFactors(5)}); err == nil {
		t.Error("ActionFactors(5): no error")
	}
}
