package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// Planners measured by the wall program and the benchmark.
const (
	// plannerAgent is the classic agent, aci.Agent: state inference over
	// the past and the policy posterior on the factor graph, the expected
	// free energy of the |U|^N policies streamed depth first, Act.
	plannerAgent = "agent"
	// plannerStream is the loaded-POMDP path without a graph: the exact
	// state posterior (pomdp.StatePosterior) and one streaming pass of
	// aci.TopPolicies that gives the action marginal.
	plannerStream = "stream"
)

// gamma is the policy precision, the default of `arbor aci eval` and of
// aci.AgentOptions.
const gamma = 16

// problem is the agent's model of a maze and the observation at its start.
type problem struct {
	maze  *envs.Maze
	model *pomdp.Model
	obs0  int
}

// loadProblem reads a maze file and builds the agent's model of it
// (docs/formats.md, "Maze file": noise 0.1, preference precision 3). The envs.MazeModel marshals in
// the POMDP file format of docs/formats.md, which pomdp.Parse validates.
func loadProblem(path string) (*problem, error) {
	mz, err := envs.LoadMaze(path)
	if err != nil {
		return nil, err
	}
	mm, err := mz.Model(envs.DefaultNoise, envs.DefaultPrefPrecision)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	data, err := json.Marshal(mm)
	if err != nil {
		return nil, err
	}
	m, err := pomdp.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: model: %w", path, err)
	}
	return &problem{maze: mz, model: m, obs0: mz.Reset()}, nil
}

// planOneStep plans the first action of the classic agent from the first
// observation with policies of length horizon, with the named planner.
func planOneStep(ctx context.Context, p *problem, planner string, horizon int) (int, error) {
	switch planner {
	case plannerStream:
		return planStream(p, horizon)
	case plannerAgent:
		return planAgent(ctx, p, horizon)
	}
	return 0, fmt.Errorf("planner %q: want %q or %q", planner, plannerAgent, plannerStream)
}

// planStream is plannerStream: q(s_0) from o_0, then the action marginal
// of q(pi) = softmax(-gamma G) over all |U|^horizon policies in one
// streaming depth-first pass, and its argmax.
func planStream(p *problem, horizon int) (int, error) {
	qs, err := pomdp.StatePosterior(nil, p.model, p.obs0)
	if err != nil {
		return 0, err
	}
	rk, err := aci.TopPolicies(p.model, qs, horizon, 1, gamma, nil)
	if err != nil {
		return 0, err
	}
	best := 0
	for u, q := range rk.ActionProbs {
		if q > rk.ActionProbs[best] {
			best = u
		}
	}
	return best, nil
}
