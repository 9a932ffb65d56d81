package btai

import (
	"context"
	"fmt"

	"github.com/arbor-ai/arbor/pomdp"
)

// Trial is one episode of a batch (RunTrials): an agent for Model with
// Options (nil: DefaultOptions) drawing from EpisodeRand(Seed, 0), acting
// in the environment Env returns (a fresh one per trial: environments keep
// their state), for at most MaxSteps actions.
type Trial struct {
	Model    *pomdp.Model
	Options  *Options
	Seed     uint64
	Env      func() pomdp.Environment
	MaxSteps int
}

// RunTrials runs the trials on at most workers goroutines (at least one)
// and returns their episodes in the order of trials. Each trial has its own
// agent and random stream, so the episodes are the same whatever the number
// of workers. The first error (or ctx being done) stops the batch: the
// trials not yet started are skipped, and the error names the trial.
func RunTrials(ctx context.Context, trials []Trial, workers int) ([]*Episode, error) {
	eps, i, err := pomdp.RunBatch(ctx, len(trials), workers, func(ctx context.Context, i int) (*Episode, error) {
		return runTrial(ctx, &trials[i])
	})
	if err != nil && i >= 0 {
		return eps, fmt.Errorf("btai: trial %d (seed %d): %w", i, trials[i].Seed, err)
	}
	return eps, err
}

func runTrial(ctx context.Context, t *Trial) (*Episode, error) {
	if t.Env == nil {
		return nil, fmt.Errorf("trial without an environment (Env is nil)")
	}
	ag, err := NewAgent(t.Model, t.Options, EpisodeRand(t.Seed, 0))
	if err != nil {
		return nil, err
	}
	return ag.RunEpisode(ctx, t.Env(), t.MaxSteps, nil)
}
