package btai_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestRunTrials: a batch of seeds gives, in order, the episodes that one
// agent per seed gives run one after the other (runSeeds' loop), with 1 or
// 3 workers; a cancelled context and a bad trial are errors.
func TestRunTrials(t *testing.T) {
	mz, p := mazeModel(t, "1.maze")
	o := btai.PresetPaper()
	o.Iterations, o.ActionPrecision = 30, 1 // the seed matters at precision 1
	var trials []btai.Trial
	for seed := range uint64(6) {
		trials = append(trials, btai.Trial{Model: p, Options: &o, Seed: seed, MaxSteps: 12,
			Env: func() pomdp.Environment { return mz.Clone() }})
	}
	want := make([][]int, len(trials))
	for i, tr := range trials {
		ag, err := btai.NewAgent(p, &o, btai.EpisodeRand(tr.Seed, 0))
		if err != nil {
			t.Fatal(err)
		}
		ep, err := ag.RunEpisode(context.Background(), mz.Clone(), 12, nil)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = ep.Actions
	}
	for _, workers := range []int{1, 3} {
		eps, err := btai.RunTrials(context.Background(), trials, workers)
		if err != nil {
			t.Fatal(err)
		}
		for i, ep := range eps {
			if !slices.Equal(ep.Actions, want[i]) {
				t.Errorf("%d workers, trial %d: actions %v, want %v", workers, i, ep.Actions, want[i])
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := btai.RunTrials(ctx, trials, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v, want context.Canceled", err)
	}
	bad := slices.Clone(trials)
	bad[2].Env = nil
	if _, err := btai.RunTrials(context.Background(), bad, 2); err == nil {
		t.Error("a trial without an environment: no error")
	}
}

// TestEpisodeCosts: Episode.Costs holds, per action, the average cost of
// the root's child the action leads to, as the tree shows it when onStep
// is called.
func TestEpisodeCosts(t *testing.T) {
	mz, p := mazeModel(t, "1.maze")
	o := btai.PresetPaper()
	o.Iterations = 30
	ag, err := btai.NewAgent(p, &o, btai.EpisodeRand(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	var seen []float64
	ep, err := ag.RunEpisode(context.Background(), mz.Clone(), 6, func(step, action, obs int) {
		tr := ag.Tree()
		seen = append(seen, tr.Nodes[tr.Child(0, action)].Average())
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ep.Costs) != ep.Steps || !slices.Equal(ep.Costs, seen) {
		t.Errorf("costs %v over %d steps, the trees show %v", ep.Costs, ep.Steps, seen)
	}
}
