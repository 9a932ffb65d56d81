package aci

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// policyHeld is what the policy variable pi of the last Act was inferred
// from: the held policies (and their number) and their G.
type policyHeld struct {
	plan Plan
	G    []float64
}

// inferPolicy adds pi (and gamma) to the graph and infers q(pi) (and
// q(gamma)): P(pi | gamma) = softmax(-gamma G) times the habits.
func (a *Agent) inferPolicy(ctx context.Context, plan *Plan, G []float64) error {
	a.held = policyHeld{plan: Plan{NumPolicies: plan.NumPolicies, Policies: plan.Policies}, G: G}
	if done, err := a.fixedPolicy(plan, G); done || err != nil {
		a.piOut = err == nil
		return err
	}
	return a.inferPolicyGraph(ctx, plan, G)
}

// inferPolicyGraph is inferPolicy on the graph (policyGraph).
func (a *Agent) inferPolicyGraph(ctx context.Context, plan *Plan, G []float64) error {
	a.g = a.policyGraph()
	k := len(G)
	pi, err := a.g.AddVariable("pi", expfam.CategoricalFamily, k)
	if err != nil {
		return err
	}
	a.pi = pi
	pi.Cluster = "policy"
	if h := a.opts.Habits; h != nil {
		// E over the held policies: habit of the first action, split evenly
		// (per first action, over all |U|^T policies) so that the habit of
		// an action does not depend on how many of its policies are held.
		stride := plan.NumPolicies / a.nu
		e := make([]float64, k)
		z := 0.0
		for i, p := range plan.Policies {
			e[i] = h[p.Policy[0]] / float64(stride)
			z += e[i]
		}
		if !(z > 0) {
			return errors.New("AgentOptions.Habits: every held policy has habit 0")
		}
		for i := range e {
			e[i] /= z
		}
		c, err := nodes.NewCategorical(e)
		if err != nil {
			return fmt.Errorf("AgentOptions.Habits: %w", err)
		}
		f, err := a.g.AddFactor("", c, pi)
		if err != nil {
			return err
		}
		f.Label, f.Cluster = "habit E", "policy"
	}
	if !a.opts.InferGamma {
		eta := make([]float64, k)
		for i, g := range G {
			eta[i] = -a.opts.Gamma * g
		}
		p := make([]float64, k)
		if lz := expfam.Softmax(p, eta); math.IsNaN(lz) || math.IsInf(lz, 0) {
			// Every held policy has G = +Inf: they tie (the limit of
			// softmax(-gamma min(G, M)) as M grows; package
			// documentation, "Zeros in C").
			for i := range p {
				p[i] = 1 / float64(k)
			}
		}
		c, err := nodes.NewCategorical(p)
		if err != nil {
			return err
		}
		f, err := a.g.AddFactor("", c, pi)
		if err != nil {
			return err
		}
		f.Label, f.Cluster = fmt.Sprintf("σ(-%g G)", a.opts.Gamma), "policy"
		if err := a.g.Update(pi); err != nil {
			return err
		}
		plan.QPi = clone(pi.Probs())
		plan.GammaMean = a.opts.Gamma
		return nil
	}
	// G is finite here: resolve refused InferGamma with a zero in C.
	gv, err := a.g.AddVariable("gamma", expfam.GammaFamily)
	if err != nil {
		return err
	}
	a.gamma = gv
	gv.Cluster = "policy"
	prior, err := nodes.NewGamma(1, a.opts.Beta)
	if err != nil {
		return fmt.Errorf("AgentOptions.Beta: %w", err)
	}
	if _, err := a.g.AddFactor("", prior, gv); err != nil {
		return err
	}
	sm, err := nodes.NewSoftmax(G)
	if err != nil {
		return err
	}
	f, err := a.g.AddFactor("", sm, pi, gv)
	if err != nil {
		return err
	}
	f.Cluster = "policy"
	vars := []*ffg.Variable{pi, gv}
	if err := a.g.Update(pi); err != nil {
		return err
	}
	f0 := a.g.LocalFreeEnergy(vars)
	res, err := schedule.Local(ctx, a.g, vars, a.settings())
	if err != nil {
		return fmt.Errorf("policy inference: %w", err)
	}
	plan.FreeEnergy = append([]float64{f0}, res.FreeEnergy...)
	plan.QPi = clone(pi.Probs())
	plan.Gamma = gv.Gamma()
	plan.GammaMean = plan.Gamma.Mean()
	return nil
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
	if !a.piOut && (a.pi == nil || a.g == g) {
		return g
	}
	held := a.held
	a.clearPolicy()
	plan := held.plan
	if err := a.inferPolicyGraph(context.Background(), &plan, held.G); err != nil {
		panic(fmt.Sprintf("aci: Graph: the policy posterior: %v", err))
	}
	return g
}

// fixedPolicy is inferPolicy at a fixed precision without a graph: pi has
// the factors σ(-γ G) and the habits, so its posterior is the softmax of
// the sum of their logs, which it computes as the graph's update of pi
// does (the same operations in the same order, so the same q(pi) bit for
// bit). It reports false, and leaves the work to the graph, when γ is
// inferred or a factor's table is not one the graph would take (the graph
// then reports the error).
func (a *Agent) fixedPolicy(plan *Plan, G []float64) (bool, error) {
	if a.opts.InferGamma {
		return false, nil
	}
	k := len(G)
	if cap(a.polBuf) < 3*k {
		a.polBuf = make([]float64, 3*k)
	}
	var e []float64
	if h := a.opts.Habits; h != nil {
		stride := plan.NumPolicies / a.nu
		e = a.polBuf[2*k : 3*k]
		z := 0.0
		for i, p := range plan.Policies {
			e[i] = h[p.Policy[0]] / float64(stride)
			z += e[i]
		}
		if !(z > 0) {
			return false, errors.New("AgentOptions.Habits: every held policy has habit 0")
		}
		for i := range e {
			e[i] /= z
		}
		if expfam.ValidateDistribution(e, 1e-6) != nil {
			return false, nil
		}
	}
	eta, p := a.polBuf[:k], a.polBuf[k:2*k]
	for i, g := range G {
		eta[i] = -a.opts.Gamma * g
	}
	if lz := expfam.Softmax(p, eta); math.IsNaN(lz) || math.IsInf(lz, 0) {
		for i := range p {
			p[i] = 1 / float64(k)
		}
	}
	if expfam.ValidateDistribution(p, 1e-6) != nil {
		return false, nil
	}
	// The natural parameters of pi: 0, plus the message ln E of the
	// habits, plus the message ln p of σ(-γ G) (nodes.NewCategorical).
	nat := eta
	for i := range nat {
		nat[i] = 0
		if e != nil {
			nat[i] += math.Log(e[i])
		}
		nat[i] += math.Log(p[i])
	}
	q := plan.QPi[:0]
	if cap(q) < k {
		q = make([]float64, k)
	}
	q = q[:k]
	if lz := expfam.Softmax(q, nat); math.IsNaN(lz) {
		return false, nil
	}
	plan.QPi = q
	plan.GammaMean = a.opts.Gamma
	return true, nil
}
