package aci_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestRunEpisodeMatchesManualLoop: RunEpisode is Reset, then Act, env.Step,
// Observe per step, then EndTrial; on the reference model used as its own
// process (pomdp.Process, same seed) it takes the same actions, sees the
// same observations and learns the same concentrations as that loop
// written out, and calls onStep once per action.
func TestRunEpisodeMatchesManualLoop(t *testing.T) {
	m, err := pomdp.Load("testdata/tiny-pomdp.json")
	if err != nil {
		t.Fatal(err)
	}
	sp := m.Spec()
	sp.ConcD = []float64{1, 1, 1} // learn D, so that EndTrial matters
	sp.D = nil
	if m, err = pomdp.New(sp); err != nil {
		t.Fatal(err)
	}
	opts := &aci.AgentOptions{Horizon: 2, Select: aci.SelectSample, Seed: 3}
	ctx := context.Background()

	a1, err := aci.NewAgent(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	ep, err := a1.RunEpisode(ctx, pomdp.NewProcess(m, rand.New(rand.NewPCG(9, 9))), 6, func(step, action, obs int) {
		calls++
		if step != calls {
			t.Errorf("onStep step %d, want %d", step, calls)
		}
	})
	if err != nil {
		t.Fatal(err)
	}

	a2, err := aci.NewAgent(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	env := pomdp.NewProcess(m, rand.New(rand.NewPCG(9, 9)))
	obs := env.Reset()
	wantObs, wantActs := []int{obs}, []int{}
	if err := a2.Reset(obs); err != nil {
		t.Fatal(err)
	}
	for range 6 {
		u, err := a2.Act(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if obs, err = env.Step(u); err != nil {
			t.Fatal(err)
		}
		wantActs, wantObs = append(wantActs, u), append(wantObs, obs)
		if err := a2.Observe(u, obs); err != nil {
			t.Fatal(err)
		}
	}
	if err := a2.EndTrial(); err != nil {
		t.Fatal(err)
	}
	if ep.Steps != 6 || calls != 6 || !slices.Equal(ep.Actions, wantActs) || !slices.Equal(ep.Observations, wantObs) {
		t.Errorf("RunEpisode: %d steps, %d calls, actions %v observations %v; loop: %v %v", ep.Steps, calls, ep.Actions, ep.Observations, wantActs, wantObs)
	}
	_, _, d1 := a1.Concentrations()
	_, _, d2 := a2.Concentrations()
	if !slices.Equal(d1, d2) || d1[0]+d1[1]+d1[2] <= 3 {
		t.Errorf("learned d %v, loop %v (want equal, and more than the prior 3 in all)", d1, d2)
	}
	if ep.Solved {
		t.Error("a model process has no goal, yet the episode is solved")
	}
}
