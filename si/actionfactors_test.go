package si_test

import (
	"context"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// TestActionFactorsIndependent: two factors with two controls each and one
// modality over both. With agent.IndependentActions the decision is
// Π_f σ(α ln Q_f(u_f)), Q_f the marginals of the joint Q = σ(−γ G) that the
// default agent reports (summed here over the other factor's controls).
func TestActionFactorsIndependent(t *testing.T) {
	m, err := pomdp.Parse([]byte(`{"factors": [
	  {"name": "x", "controls": ["stay", "switch"], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "D": [0.8, 0.2]},
	  {"name": "y", "controls": ["stay", "switch"], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "D": [0.3, 0.7]}],
	  "modalities": [{"name": "o", "depends_on": ["x", "y"],
	    "A": [[[0.9, 0.2], [0.2, 0.9]], [[0.1, 0.8], [0.8, 0.1]]], "log_C": [1, 0]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	decide := func(alpha float64, af agent.ActionFactors) []float64 {
		ag, err := si.NewAgent(m, &si.Options{Depth: 2, Gamma: 3, ActionPrecision: &alpha, ActionFactors: af})
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
		return d.Probs
	}
	Q := decide(1, agent.JointActions)
	var qx, qy [2]float64
	var ctrl []int
	for u, q := range Q {
		ctrl = m.DecodeAction(ctrl, u)
		qx[ctrl[0]] += q
		qy[ctrl[1]] += q
	}
	const alpha = 2.0
	got := decide(alpha, agent.IndependentActions)
	zx, zy := qx[0]*qx[0]+qx[1]*qx[1], qy[0]*qy[0]+qy[1]*qy[1]
	for u := range got {
		ctrl = m.DecodeAction(ctrl, u)
		want := qx[ctrl[0]] * qx[ctrl[0]] * qy[ctrl[1]] * qy[ctrl[1]] / (zx * zy)
		if math.Abs(got[u]-want) > 1e-14 {
			t.Errorf("u %d %v: %v, want %v", u, ctrl, got[u], want)
		}
	}
	if _, err := si.NewAgent(m, &si.Options{Depth: 1, ActionFactors: agent.ActionFactors(9)}); err == nil {
		t.Error("ActionFactors(9): no error")
	}
}
