package btai_test

import (
	"context"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
)

// TestDetour1StartTree pins why the default preset without novelty solves
// none of 20 seeds of detour-1.maze where the earlier default (softmax at
// precision 100) solved 12: from the start cell the only open move is UP,
// which raises the distance to the exit, and the tree search prefers to
// stay. The four actions that stay (DOWN, LEFT and RIGHT into walls, IDLE)
// have 203 visits each and the same average cost; UP has 192 and an
// average cost higher by about 0.014 nats. The most visited action
// therefore never moves (the tree is the same at every step, and every
// seed: the search draws nothing at random without roll-outs), while
// σ(-100 ḡ) gives UP exp(-100 · 0.0139) / (4 + exp(-100 · 0.0139)) ≈
// 0.059 per step. Over the 13 steps the agent can spend at the start and
// still reach the exit (8 moves) within 2 × 8 + 5 = 21 actions, that is a
// chance of 1 - 0.941^14 ≈ 0.57 of drawing UP in time, about 11 of 20
// seeds (12 measured): the earlier default escaped by chance, not by
// planning. Novelty (the remedy for detour mazes) solves 20 of 20.
func TestDetour1StartTree(t *testing.T) {
	mz, m := mazeModel(t, "detour-1.maze")
	for _, sel := range []btai.ActionSelection{btai.MostVisited, btai.Softmax} {
		o := btai.PresetScaleFree()
		o.ActionSelection = sel
		ag, err := btai.NewAgent(m, &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		env := mz.Clone()
		if err := ag.Reset(context.Background(), env.Reset()); err != nil {
			t.Fatal(err)
		}
		d, err := ag.Decide(context.Background(), agent.StepRand(0, 0, 0, 0))
		if err != nil {
			t.Fatal(err)
		}
		costs, visits := d.Values[0].Values, d.Values[1].Values
		t.Logf("%v: average costs %.4f, visits %v, P(u) %.4f", sel, costs, visits, d.Probs)
		up := 0
		for u := range visits {
			if u == up {
				continue
			}
			if visits[u] <= visits[up] || costs[u] >= costs[up] {
				t.Errorf("%s: visits %v and costs %v beside UP's %v and %v; want more visits and a lower cost than UP", envs.ActionNames[u], visits[u], costs[u], visits[up], costs[up])
			}
		}
		if gap := costs[up] - costs[1]; gap < 0.01 || gap > 0.02 {
			t.Errorf("UP's average cost above DOWN's by %.4f, want 0.01-0.02 (measured 0.0139)", gap)
		}
		switch sel {
		case btai.MostVisited:
			if d.Action == up {
				t.Errorf("most-visited moved UP")
			}
		case btai.Softmax:
			// σ(-100 ḡ)(UP), computed from the costs.
			z := 0.0
			for _, c := range costs {
				z += math.Exp(-100 * (c - costs[up]))
			}
			want := 1 / z
			if math.Abs(d.Probs[up]-want) > 1e-9 || d.Probs[up] < 0.03 || d.Probs[up] > 0.1 {
				t.Errorf("softmax: P(UP) = %.6f, want %.6f, between 0.03 and 0.1", d.Probs[up], want)
			}
		}
	}
}
