package aci_test

import (
	"context"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestStateBeliefsSmoothed: under exact filtering StateBeliefs are the
// smoothed posteriors p(s_τ | o_0..o_2, u_0, u_1), equal to a brute-force
// sum over the 27 state sequences of the reference model, for every step,
// also for the steps where Act was not called (the agent is only told the
// actions and observations).
func TestStateBeliefsSmoothed(t *testing.T) {
	m, err := pomdp.Load("testdata/tiny-pomdp.json")
	if err != nil {
		t.Fatal(err)
	}
	ag, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	obs, acts := []int{1, 0, 1}, []int{1, 0}
	if err := ag.Reset(ctx, obs[0]); err != nil {
		t.Fatal(err)
	}
	for i, u := range acts {
		if err := ag.Observe(u, obs[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	ns := m.NumStates()
	want := make([][]float64, 3)
	for i := range want {
		want[i] = make([]float64, ns)
	}
	z := 0.0
	for s0 := range ns {
		for s1 := range ns {
			for s2 := range ns {
				p := m.D(s0) * m.A(obs[0], s0) * m.B(acts[0], s1, s0) * m.A(obs[1], s1) * m.B(acts[1], s2, s1) * m.A(obs[2], s2)
				want[0][s0] += p
				want[1][s1] += p
				want[2][s2] += p
				z += p
			}
		}
	}
	got := ag.StateBeliefs()
	if len(got) != 3 {
		t.Fatalf("%d beliefs, want 3", len(got))
	}
	for tau := range want {
		for s := range ns {
			if w := want[tau][s] / z; math.Abs(got[tau][s]-w) > 1e-12 {
				t.Errorf("q(S_%d = %d) = %v, brute force %v", tau, s, got[tau][s], w)
			}
		}
	}
}
