package main

import (
	"context"
	"fmt"

	"github.com/arbor-ai/arbor/aci"
)

// planAgent is plannerAgent: a fresh aci.Agent sees the first observation
// and acts once.
func planAgent(ctx context.Context, p *problem, horizon int) (int, error) {
	ag, err := aci.NewAgent(p.model, &aci.AgentOptions{Horizon: horizon, Gamma: gamma})
	if err != nil {
		return 0, err
	}
	if err := ag.Reset(context.Background(), p.obs0); err != nil {
		return 0, err
	}
	return ag.Act(ctx)
}

// searchResult is one whole search: the agent acts in the maze until it
// stands on the exit or has taken maxSteps actions.
type searchResult struct {
	Solved bool `json:"solved"`
	Steps  int  `json:"steps"`
}

// search runs the classic agent with policies of length horizon in the
// maze from its start, the task that SPM's spm_maze_search times.
func search(ctx context.Context, p *problem, horizon, maxSteps int) (searchResult, error) {
	ag, err := aci.NewAgent(p.model, &aci.AgentOptions{Horizon: horizon, Gamma: gamma})
	if err != nil {
		return searchResult{}, err
	}
	if err := ag.Reset(context.Background(), p.maze.Reset()); err != nil {
		return searchResult{}, err
	}
	var r searchResult
	for r.Steps < maxSteps && !p.maze.Done() {
		u, err := ag.Act(ctx)
		if err != nil {
			return r, fmt.Errorf("step %d: %w", r.Steps+1, err)
		}
		o, err := p.maze.Step(u)
		if err != nil {
			return r, err
		}
		r.Steps++
		if err := ag.Observe(u, o); err != nil {
			return r, err
		}
	}
	r.Solved = p.maze.Done()
	return r, nil
}
