package aci

import (
	"context"
	"fmt"

	"github.com/arbor-ai/arbor/pomdp"
)

// Trial is one episode of a batch (RunTrials): an agent for Model with
// Options (nil: the defaults of AgentOptions; its Seed drives
// SelectSample), acting in the environment Env returns (a fresh one per
// trial: environments keep their state), for at most MaxSteps actions.
type Trial struct {
	Model    *pomdp.Model
	Options  *AgentOptions
	Env      func() pomdp.Environment
	MaxSteps int
}

// RunTrials runs the trials on at most workers goroutines (at least one)
// and returns their episodes in the order of trials. Each trial has its own
// agent and environment, so the episodes are the same whatever the number
// of workers: a batch of seeds (Options.Seed, or the environment's) or of
// configurations runs as fast as the cores allow. The first error (or ctx
// being done) stops the batch: the trials not yet started are skipped, and
// the error names the trial.
func RunTrials(ctx context.Context, trials []Trial, workers int) ([]*Episode, error) {
	eps, i, err := pomdp.RunBatch(ctx, len(trials), workers, func(ctx context.Context, i int) (*Episode, error) {
		t := &trials[i]
		if t.Env == nil {
			return nil, fmt.Errorf("trial without an environment (Env is nil)")
		}
		ag, err := NewAgent(t.Model, t.Options)
		if err != nil {
			return nil, err
		}
		return ag.RunEpisode(ctx, t.Env(), t.MaxSteps, nil)
	})
	if err != nil && i >= 0 {
		return eps, fmt.Errorf("aci: trial %d: %w", i, err)
	}
	return eps, err
}
