package btai_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestDecideIntoSameAsDecide: DecideInto, one decision reused from step
// to step, decides as Decide does, bit for bit, over an episode of the
// maze, with the most visited action and with sampling by the softmax of
// the costs; and, once the buffers have their sizes, a decision allocates
// nothing.
func TestDecideIntoSameAsDecide(t *testing.T) {
	for _, sel := range []btai.ActionSelection{btai.MostVisited, btai.Softmax} {
		o := btai.DefaultOptions()
		o.Iterations, o.ActionSelection = 60, sel
		mz, p := mazeModel(t, "1.maze")
		a, err := btai.NewAgent(p, &o, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := btai.NewAgent(p, &o, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		obs := mz.Reset()
		for _, ag := range []*btai.Agent{a, b} {
			if err := ag.Reset(ctx, obs); err != nil {
				t.Fatal(err)
			}
		}
		var d agent.Decision
		for step := range 8 {
			want, err := a.Decide(ctx, agent.StepRand(3, 0, 0, step))
			if err != nil {
				t.Fatal(err)
			}
			if err := b.DecideInto(ctx, agent.StepRand(3, 0, 0, step), &d); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, &d, cmpopts.IgnoreFields(agent.Decision{}, "Detail")); diff != "" {
				t.Fatalf("%v, step %d: DecideInto differs from Decide (-Decide +DecideInto):\n%s", sel, step, diff)
			}
			if got, ok := d.Detail.(*btai.Tree); !ok || len(got.Nodes) != len(want.Detail.(*btai.Tree).Nodes) {
				t.Fatalf("%v, step %d: Detail %T, want the agent's tree of %d nodes", sel, step, d.Detail, len(want.Detail.(*btai.Tree).Nodes))
			}
			if obs, err = mz.Step(want.Action); err != nil {
				t.Fatal(err)
			}
			for _, ag := range []*btai.Agent{a, b} {
				if err := ag.Step(ctx, want.Action, obs); err != nil {
					t.Fatal(err)
				}
			}
		}
		if raceEnabled {
			continue // the race detector allocates
		}
		rng := rand.New(rand.NewPCG(5, 5))
		if n := testing.AllocsPerRun(20, func() {
			if err := b.DecideInto(ctx, rng, &d); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%v: %v allocations per DecideInto, want 0", sel, n)
		}
	}
}

// TestDecideIntoFactorisedAllocs: on models with several factors or
// modalities a decision allocates nothing once the buffers have their
// sizes: the T-maze, whose context prior D is learned (planning reads A,
// B and C, which learning D leaves as they are), and dSprites at
// granularity 4 (the fast path of large factorised models, whose shared
// levels a plan reuses from the one before).
func TestDecideIntoFactorisedAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	tm, err := pomdp.Load(filepath.Join("..", "examples", "pomdp", "tmaze.json"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := envs.NewWorld("dsprites", 4)
	if err != nil {
		t.Fatal(err)
	}
	tmazeOpts, dspritesOpts := btai.DefaultOptions(), btai.Preset3MF()
	tmazeOpts.Iterations = 60
	for _, c := range []struct {
		name string
		m    *pomdp.Model
		o    btai.Options
		obs  int
	}{
		{"tmaze", tm, tmazeOpts, 0},
		{"dsprites", w.Model, dspritesOpts, w.New(agent.WorldRand(1, 0)).Reset()},
	} {
		ag, err := btai.NewAgent(c.m, &c.o, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := ag.Reset(ctx, c.obs); err != nil {
			t.Fatal(err)
		}
		var d agent.Decision
		rng := rand.New(rand.NewPCG(5, 5))
		if err := ag.DecideInto(ctx, rng, &d); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(10, func() {
			if err := ag.DecideInto(ctx, rng, &d); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per DecideInto, want 0", c.name, n)
		}
	}
}
