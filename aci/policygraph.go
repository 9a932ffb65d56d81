package aci

import (
	"context"
	"fmt"

	"github.com/arbor-ai/arbor/ffg"
)

// policyHeld is what the policy variable pi of the last Act was inferred
// from: the held policies (and their number) and their G.
type policyHeld struct {
	plan Plan
	G    []float64
}

// policyGraph returns the graph to add pi and gamma to: the past's graph
// when it has one, otherwise the agent's graph of the policy alone (under
// exact filtering the past builds no graph unless asked: pomdp.Past). pi
// and gamma share no factor with the past, so where they are inferred
// changes nothing of q(pi) and q(gamma).
func (a *Agent) policyGraph() *ffg.Graph {
	if a.past.HasGraph() {
		return a.past.Graph()
	}
	if a.pg == nil {
		a.pg = ffg.New()
	}
	return a.pg
}

// graph is Graph: the past's graph, built if need be, holding pi and gamma
// when the last Act left them (inferred again there, from the same G, if
// they were in the graph of the policy alone).
func (a *Agent) graph() *ffg.Graph {
	if a.past == nil || !a.begun {
		return nil
	}
	g := a.past.Graph()
	if a.pi == nil || a.g == g {
		return g
	}
	held := a.held
	a.clearPolicy()
	plan := held.plan
	if err := a.inferPolicy(context.Background(), &plan, held.G); err != nil {
		panic(fmt.Sprintf("aci: Graph: the policy posterior: %v", err))
	}
	return g
}
