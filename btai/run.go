package btai

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-ai/arbor/pomdp"
)

// Episode is the record of one episode.
type Episode struct {
	Solved             bool    `json:"solved"`
	Steps              int     `json:"steps"`
	Actions            []int   `json:"actions"`
	Observations       []int   `json:"observations"`
	PlanningIterations int     `json:"planning_iterations"`
	PlanningSeconds    float64 `json:"planning_seconds"`
	// Costs holds, for each action taken, the average cost of the root's
	// child it leads to in that step's planning tree.
	Costs []float64 `json:"-"`
	// Beliefs holds Q(S_t) after each observation o_t, t = 0..Steps, as
	// inferred from the past (every factor's marginal, one after the
	// other).
	Beliefs [][]float64 `json:"-"`
}

// RunEpisode runs the action-perception cycle (paper Algorithm 2) for at
// most maxSteps actions or until env.Done(): observe, infer the present
// state, plan, act, grow the past by one step. onStep, when non-nil, is
// called after every action with the action and the new observation (the
// tree of that step's planning is still available through Tree until the
// agent's next Step).
func (a *Agent) RunEpisode(ctx context.Context, env pomdp.Environment, maxSteps int, onStep func(step, action, obs int)) (*Episode, error) {
	if maxSteps < 0 {
		return nil, fmt.Errorf("btai: maxSteps %d, want >= 0", maxSteps)
	}
	ep := &Episode{Actions: []int{}, Observations: []int{}}
	obs := env.Reset()
	ep.Observations = append(ep.Observations, obs)
	if err := a.Reset(ctx, obs); err != nil {
		return ep, err
	}
	ep.Beliefs = append(ep.Beliefs, append([]float64(nil), a.Belief()...))
	for ep.Steps < maxSteps && !env.Done() {
		start := time.Now()
		if err := a.Plan(ctx); err != nil {
			return ep, err
		}
		ep.PlanningSeconds += time.Since(start).Seconds()
		ep.PlanningIterations += a.opts.Iterations
		act := a.SelectAction()
		if len(a.tree.Nodes) > 1 {
			ep.Costs = append(ep.Costs, a.tree.Nodes[a.tree.Child(0, act)].Average())
		}
		var err error
		if obs, err = env.Step(act); err != nil {
			return ep, fmt.Errorf("btai: environment: %w", err)
		}
		ep.Steps++
		ep.Actions = append(ep.Actions, act)
		ep.Observations = append(ep.Observations, obs)
		if onStep != nil {
			onStep(ep.Steps, act, obs)
		}
		if err := a.Step(ctx, act, obs); err != nil {
			return ep, err
		}
		ep.Beliefs = append(ep.Beliefs, append([]float64(nil), a.Belief()...))
	}
	ep.Solved = env.Done()
	return ep, nil
}
