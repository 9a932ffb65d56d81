package aci

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/arbor-ai/arbor/agent"
)

// decideIntoCases are agents on the maze-sized random POMDP (30 states,
// 5 actions) whose horizons hold more policies than GraphPolicies (1,024):
// 3,125 at T = 5 and 15,625 at T = 6, ranked by TopPolicies. Habits and an
// inferred precision rank a second time, at the posterior precision.
var decideIntoCases = []struct {
	name string
	o    AgentOptions
}{
	{"T=5", AgentOptions{Horizon: 5}},
	{"T=6", AgentOptions{Horizon: 6}},
	{"T=5 habits", AgentOptions{Horizon: 5, Habits: []float64{0.4, 0.3, 0.1, 0.1, 0.1}}},
	{"T=5 infer-gamma", AgentOptions{Horizon: 5, InferGamma: true}},
}

// TestDecideIntoSameAsDecideRanked: DecideInto, its rankers kept from one
// decision to the next, decides as Decide does (new rankers every time),
// bit for bit, over six steps of each case.
func TestDecideIntoSameAsDecideRanked(t *testing.T) {
	m := randPOMDP(t, rand.New(rand.NewPCG(42, 43)), 30, 30, 5)
	ctx := context.Background()
	for _, c := range decideIntoCases {
		a, err := NewAgent(m, &c.o)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewAgent(m, &c.o)
		if err != nil {
			t.Fatal(err)
		}
		for _, ag := range []*Agent{a, b} {
			if err := ag.Reset(ctx, 0); err != nil {
				t.Fatal(err)
			}
		}
		var d agent.Decision
		for step := range 6 {
			want, err := a.Decide(ctx, agent.StepRand(1, 0, 0, step))
			if err != nil {
				t.Fatal(err)
			}
			if err := b.DecideInto(ctx, agent.StepRand(1, 0, 0, step), &d); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, &d, cmpopts.IgnoreFields(agent.Decision{}, "Detail")); diff != "" {
				t.Fatalf("%s, step %d: DecideInto differs from Decide (-Decide +DecideInto):\n%s", c.name, step, diff)
			}
			wp, gp := want.Detail.(*Plan), d.Detail.(*Plan)
			if diff := cmp.Diff(wp, gp); diff != "" {
				t.Fatalf("%s, step %d: plans differ (-Decide +DecideInto):\n%s", c.name, step, diff)
			}
			obs := (step*7 + 3) % m.NumObs()
			for _, ag := range []*Agent{a, b} {
				if err := ag.Advance(ctx, want.Action, obs); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestDecideIntoRankedAllocs: with a fixed precision, a decision whose
// horizon holds more policies than GraphPolicies allocates nothing once
// the agent has made one (its rankers are kept), with habits or without.
func TestDecideIntoRankedAllocs(t *testing.T) {
	m := randPOMDP(t, rand.New(rand.NewPCG(42, 43)), 30, 30, 5)
	ctx := context.Background()
	for _, c := range decideIntoCases {
		if c.o.InferGamma {
			continue // the precision's graph is built at every decision
		}
		ag, err := NewAgent(m, &c.o)
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Reset(ctx, 0); err != nil {
			t.Fatal(err)
		}
		var d agent.Decision
		rng := rand.New(rand.NewPCG(3, 3))
		decide := func() {
			if err := ag.DecideInto(ctx, rng, &d); err != nil {
				t.Fatal(err)
			}
		}
		decide()
		if n := testing.AllocsPerRun(3, decide); n != 0 {
			t.Errorf("%s: %v allocations per DecideInto, want 0", c.name, n)
		}
	}
}
