package si_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// TestDecideIntoSameAsDecide: DecideInto, one decision reused from step
// to step, decides as Decide does, bit for bit (the decision and the
// search's Result), over three trials of the T-maze with and without
// learning, at α = 1 (where the choice is the search's own distribution)
// and α = 2, sampling or taking the most probable action, with and
// without novelty.
func TestDecideIntoSameAsDecide(t *testing.T) {
	alpha := 2.0
	for _, c := range []struct {
		name, file string
		opts       si.Options
	}{
		{"fixed", siTMaze, si.Options{Depth: 2, Gamma: 3}},
		{"fixed α 2 sampled", siTMaze, si.Options{Depth: 3, Gamma: 3, ActionPrecision: &alpha, Select: si.SelectSample}},
		{"learning", "../examples/pomdp/tmaze.json", si.Options{Depth: 2}},
		{"learning a, novelty", "../examples/pomdp/cue-bandit-learn.json", si.Options{Depth: 2, Novelty: true}},
		{"learning α 2 sampled", "../examples/pomdp/tmaze.json", si.Options{Depth: 2, ActionPrecision: &alpha, Select: si.SelectSample}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := pomdp.Load(c.file)
			if err != nil {
				t.Fatal(err)
			}
			a, err := si.NewAgent(m, &c.opts)
			if err != nil {
				t.Fatal(err)
			}
			b, err := si.NewAgent(m, &c.opts)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			world := pomdp.NewProcess(m, rand.New(rand.NewPCG(7, 7)))
			var d agent.Decision
			decisions := 0
			for trial := range 3 {
				obs := world.Reset()
				for _, ag := range []*si.Agent{a, b} {
					if err := ag.Reset(ctx, obs); err != nil {
						t.Fatal(err)
					}
				}
				for step := range 3 {
					want, err := a.Decide(ctx, agent.StepRand(1, 0, trial, step))
					if err != nil {
						t.Fatal(err)
					}
					if err := b.DecideInto(ctx, agent.StepRand(1, 0, trial, step), &d); err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, &d); diff != "" {
						t.Fatalf("trial %d step %d: DecideInto differs from Decide (-Decide +DecideInto):\n%s", trial, step, diff)
					}
					decisions++
					if obs, err = world.Step(want.Action); err != nil {
						t.Fatal(err)
					}
					for _, ag := range []*si.Agent{a, b} {
						if err := ag.Advance(ctx, want.Action, obs); err != nil {
							t.Fatal(err)
						}
					}
				}
				for _, ag := range []*si.Agent{a, b} {
					if err := ag.EndTrial(ctx); err != nil {
						t.Fatal(err)
					}
				}
			}
			if decisions != 9 {
				t.Fatalf("%d decisions compared, want 9", decisions)
			}
		})
	}
}

// TestDecideIntoAllocates: with a model that learns nothing, a decision of
// DecideInto allocates nothing once its decision and result have their
// sizes (the search's tables kept by the planner).
func TestDecideIntoAllocates(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	m, err := pomdp.Load(siTMaze)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := si.NewAgent(m, &si.Options{Depth: 3, Gamma: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	obs := mustObs(t, m, 0, 0)
	if err := ag.Reset(ctx, obs); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var d agent.Decision
	decide := func() {
		if err := ag.DecideInto(ctx, rng, &d); err != nil {
			t.Fatal(err)
		}
	}
	decide()
	if n := testing.AllocsPerRun(50, decide); n != 0 {
		t.Errorf("%v allocations per DecideInto, want 0", n)
	}
	if _, ok := d.Detail.(*si.Result); !ok || len(d.Probs) != m.NumActions() {
		t.Errorf("decision %+v, want the Result and %d probabilities", d, m.NumActions())
	}
}

// TestPlanIntoSameAsPlan: PlanInto into one Result kept across planners
// with and without novelty, and across beliefs, gives what Plan gives
// (Novelty nil without it).
func TestPlanIntoSameAsPlan(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/cue-bandit-learn.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	past, err := pomdp.NewPast(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := past.Reset(0); err != nil {
		t.Fatal(err)
	}
	qs := past.Belief()
	var res si.Result
	for _, novelty := range []bool{true, false, true} {
		p, err := si.NewPlanner(m, &si.Options{Depth: 2, Novelty: novelty})
		if err != nil {
			t.Fatal(err)
		}
		want, err := p.Plan(ctx, qs)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.PlanInto(ctx, qs, &res); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, &res); diff != "" {
			t.Fatalf("novelty %v: PlanInto differs from Plan (-Plan +PlanInto):\n%s", novelty, diff)
		}
	}
}

// TestDecideIntoLearningDAllocates: with the T-maze, which learns its
// context prior D and neither A nor B, the agent keeps one planner from
// trial to trial (a search reads A, B and C, not D), so that the first
// decision of a trial, whose learned prior is new, allocates nothing
// either: a whole trial of two decisions (DecideInto) allocates nothing
// once the first has been played.
func TestDecideIntoLearningDAllocates(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	m, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	ag, err := si.NewAgent(m, &si.Options{Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	start := mustObs(t, m, 0, 0, 0)    // at the start: no cue, no reward
	rewarded := mustObs(t, m, 2, 0, 1) // the left arm, rewarded: context reward-left
	rng := rand.New(rand.NewPCG(1, 2))
	var d agent.Decision
	trial := func() {
		if err := ag.Reset(ctx, start); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := ag.DecideInto(ctx, rng, &d); err != nil {
				t.Fatal(err)
			}
			if err := ag.Advance(ctx, 2, rewarded); err != nil {
				t.Fatal(err)
			}
		}
		if err := ag.EndTrial(ctx); err != nil {
			t.Fatal(err)
		}
	}
	trial()
	if n := testing.AllocsPerRun(50, trial); n != 0 {
		t.Errorf("%v allocations per trial of two decisions, want 0", n)
	}
	if c := ag.Concentrations(); len(c.D) < 2 || c.D[1][0] <= c.D[1][1] {
		t.Fatalf("concentrations %+v: the context prior was not learned", c.D)
	}
}
