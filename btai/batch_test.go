package btai_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

// runSeedEpisodes runs seeds 0..seeds-1 of the agent for model p with
// options o, one episode each in a fresh environment, on workers
// goroutines: seed k is trial k of a batch with seed 0, whose decisions
// draw from pomdp.StepRand(0, 0, k, t) = the streams of a run with seed k
// (what arbor btai run --seed k draws).
func runSeedEpisodes(ctx context.Context, p *pomdp.Model, o *btai.Options, env func() pomdp.Environment, seeds, maxSteps, workers int) ([]*pomdp.Episode, error) {
	eps := make([]*pomdp.Episode, 0, seeds)
	err := pomdp.RunAgents(ctx, &pomdp.Runs{Trials: seeds, Workers: workers, MaxSteps: maxSteps},
		func() (pomdp.Agent, error) { return btai.NewAgent(p, o, nil) },
		func(pomdp.Unit) (pomdp.Environment, error) { return env(), nil },
		func(_ pomdp.Unit, ep *pomdp.Episode) error { eps = append(eps, ep); return nil })
	return eps, err
}

// TestRunSeeds: a batch of seeds gives, in order, the episodes that one
// agent per seed gives run one after the other with pomdp.RunEpisode and
// seed k, with 1 or 3 workers; a cancelled context is an error.
func TestRunSeeds(t *testing.T) {
	mz, p := mazeModel(t, "1.maze")
	o := btai.PresetPaper()
	o.Iterations, o.ActionPrecision = 30, 1 // the seed matters at precision 1
	const seeds = 6
	want := make([][]int, seeds)
	for k := range seeds {
		ag, err := btai.NewAgent(p, &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		ep, err := pomdp.RunEpisode(context.Background(), ag, mz.Clone(), &pomdp.EpisodeSettings{MaxSteps: 12, Seed: uint64(k)})
		if err != nil {
			t.Fatal(err)
		}
		want[k] = ep.Actions()
	}
	for _, workers := range []int{1, 3} {
		eps, err := runSeedEpisodes(context.Background(), p, &o, func() pomdp.Environment { return mz.Clone() }, seeds, 12, workers)
		if err != nil {
			t.Fatal(err)
		}
		for i, ep := range eps {
			if !slices.Equal(ep.Actions(), want[i]) {
				t.Errorf("%d workers, seed %d: actions %v, want %v", workers, i, ep.Actions(), want[i])
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := runSeedEpisodes(ctx, p, &o, func() pomdp.Environment { return mz.Clone() }, seeds, 12, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v, want context.Canceled", err)
	}
}

// TestDecisionCosts: a decision's average costs are those of the root's
// children in the tree the step planned, as the tree shows them when
// OnStep is called, and its probabilities σ(-α ḡ) over them.
func TestDecisionCosts(t *testing.T) {
	mz, p := mazeModel(t, "1.maze")
	o := btai.PresetPaper()
	o.Iterations, o.ActionPrecision = 30, 2
	ag, err := btai.NewAgent(p, &o, nil)
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	_, err = pomdp.RunEpisode(context.Background(), ag, mz.Clone(), &pomdp.EpisodeSettings{MaxSteps: 6, Seed: 1,
		OnStep: func(st *pomdp.Step) error {
			if st.Decision == nil {
				return nil
			}
			steps++
			tr := ag.Tree()
			costs := st.Decision.Value("average_cost")
			z := 0.0
			for u := range costs {
				if c := tr.Nodes[tr.Child(0, u)].Average(); c != costs[u] {
					t.Errorf("step %d action %d: cost %v, the tree shows %v", st.T, u, costs[u], c)
				}
				z += math.Exp(-o.ActionPrecision * (costs[u] - costs[0]))
			}
			for u := range costs {
				want := math.Exp(-o.ActionPrecision*(costs[u]-costs[0])) / z
				if d := st.Decision.Probs[u] - want; d > 1e-12 || d < -1e-12 {
					t.Errorf("step %d action %d: P %v, want σ(-α ḡ) = %v", st.T, u, st.Decision.Probs[u], want)
				}
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if steps == 0 {
		t.Fatal("no decision seen")
	}
}
