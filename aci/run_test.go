package aci_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestRunEpisodeMatchesManualLoop: agent.RunEpisode is Reset, then Decide
// (with the step's stream agent.StepRand), env.Step and Advance per step,
// then EndTrial; on the reference model used as its own process
// (pomdp.Process, same seed) it takes the same actions, sees the same
// observations and learns the same concentrations as that loop written
// out, and calls OnStep once per observation.
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
	opts := &aci.AgentOptions{Horizon: 2, Select: aci.SelectSample}
	ctx := context.Background()
	const seed = 3

	a1, err := aci.NewAgent(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	ep, err := agent.RunEpisode(ctx, a1, pomdp.NewProcess(m, rand.New(rand.NewPCG(9, 9))), &agent.EpisodeSettings{
		MaxSteps: 6, Seed: seed,
		OnStep: func(st *agent.Step) error {
			if st.T != calls {
				t.Errorf("OnStep step %d, want %d", st.T, calls)
			}
			calls++
			return nil
		}})
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
	if err := a2.Reset(ctx, obs); err != nil {
		t.Fatal(err)
	}
	for step := range 6 {
		d, err := a2.Decide(ctx, agent.StepRand(seed, 0, 0, step))
		if err != nil {
			t.Fatal(err)
		}
		if obs, err = env.Step(d.Action); err != nil {
			t.Fatal(err)
		}
		wantActs, wantObs = append(wantActs, d.Action), append(wantObs, obs)
		if err := a2.Advance(ctx, d.Action, obs); err != nil {
			t.Fatal(err)
		}
	}
	if err := a2.EndTrial(ctx); err != nil {
		t.Fatal(err)
	}
	if ep.NumActions() != 6 || calls != 7 || !slices.Equal(ep.Actions(), wantActs) || !slices.Equal(ep.Observations(), wantObs) {
		t.Errorf("RunEpisode: %d steps, %d calls, actions %v observations %v; loop: %v %v", ep.NumActions(), calls, ep.Actions(), ep.Observations(), wantActs, wantObs)
	}
	d1 := a1.Concentrations().D[0]
	d2 := a2.Concentrations().D[0]
	if !slices.Equal(d1, d2) || d1[0]+d1[1]+d1[2] <= 3 {
		t.Errorf("learned d %v, loop %v (want equal, and more than the prior 3 in all)", d1, d2)
	}
	if ep.Solved {
		t.Error("a model process has no goal, yet the episode is solved")
	}
}
