package aci

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-ai/arbor/pomdp"
)

// Episode is the record of one episode (trial) of RunEpisode.
type Episode struct {
	Solved          bool      // env.Done() at the end
	Steps           int       // actions taken
	Actions         []int     // u_0..u_(Steps-1)
	Observations    []int     // o_0..o_Steps: the first one and one per action
	PlanningSeconds float64   // time spent in Act (inference and policy evaluation)
	GammaMean       []float64 // E[gamma] of each step's plan (with AgentOptions.InferGamma)
	// Beliefs holds Q(S_t) after each observation o_t, t = 0..Steps: the
	// belief each Act planned from, and after the last observation the
	// present belief of the trial's final inference (every factor's
	// marginal, one after the other).
	Beliefs [][]float64
}

// RunEpisode runs one trial of the action-perception cycle in env, the same
// loop as btai's Agent.RunEpisode: observe (env.Reset), then until env.Done()
// or maxSteps actions, infer and plan (Act), act (env.Step), and record the
// observation (Observe); at the end, EndTrial learns the Dirichlet
// parameters. onStep, when non-nil, is called after every action with the
// step number (from 1), the action and the new observation; LastPlan is
// then that step's plan.
func (a *Agent) RunEpisode(ctx context.Context, env pomdp.Environment, maxSteps int, onStep func(step, action, obs int)) (*Episode, error) {
	if maxSteps < 0 {
		return nil, fmt.Errorf("maxSteps %d, want >= 0", maxSteps)
	}
	ep := &Episode{Actions: []int{}, Observations: []int{}}
	obs := env.Reset()
	ep.Observations = append(ep.Observations, obs)
	if err := a.Reset(obs); err != nil {
		return ep, err
	}
	for ep.Steps < maxSteps && !env.Done() {
		start := time.Now()
		u, err := a.Act(ctx)
		if err != nil {
			return ep, fmt.Errorf("step %d: %w", ep.Steps+1, err)
		}
		ep.PlanningSeconds += time.Since(start).Seconds()
		ep.Beliefs = append(ep.Beliefs, clone(a.qs))
		if a.opts.InferGamma {
			ep.GammaMean = append(ep.GammaMean, a.plan.GammaMean)
		}
		if obs, err = env.Step(u); err != nil {
			return ep, fmt.Errorf("environment: %w", err)
		}
		ep.Steps++
		ep.Actions = append(ep.Actions, u)
		ep.Observations = append(ep.Observations, obs)
		if onStep != nil {
			onStep(ep.Steps, u, obs)
		}
		if err := a.Observe(u, obs); err != nil {
			return ep, err
		}
	}
	if err := a.EndTrial(); err != nil {
		return ep, fmt.Errorf("learning: %w", err)
	}
	ep.Beliefs = append(ep.Beliefs, a.past.Belief())
	ep.Solved = env.Done()
	return ep, nil
}
