package aci

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// reuse is what DecideInto writes a decision's plan into, kept from one
// decision to the next (agent.Reuser).
type reuse struct {
	plan  Plan
	ps    PolicySet
	pols  [][]int // PolicySet.Policies for ps's NumActions and Horizon
	G     []float64
	qpi   []float64
	qs    []float64
	probs []float64
	// The rankers of a horizon with more policies than GraphPolicies: the
	// best policies at the prior precision, and again at the posterior's
	// (an inferred precision, habits).
	rank, rank2 ranker
}

// DecideInto is Decide written into d (agent.Reuser): the same decision,
// with d's slices reused and the plan (d.Detail, LastPlan) the agent's own,
// overwritten by the next DecideInto. From the first DecideInto on, the
// learned model of a trial (Model) is written over two trials later
// (pomdp.Past.RecycleExpected). Under exact filtering (the default
// Past) with a fixed precision it allocates nothing once d and the agent
// have held a decision of the same size, whether every policy is scored
// (|U|^Horizon <= GraphPolicies) or the best are ranked (the agent keeps
// its rankers).
func (a *Agent) DecideInto(ctx context.Context, rng *rand.Rand, d *agent.Decision) error {
	if d == nil {
		return errors.New("aci: DecideInto: nil decision")
	}
	if rng == nil && a.past != nil {
		return errors.New("aci: Decide with a nil random stream")
	}
	if a.past != nil {
		a.past.RecycleExpected(true)
	}
	if err := a.act(ctx, rng, &a.re); err != nil {
		return apiError(err)
	}
	a.record(d)
	return nil
}

var _ agent.Reuser = (*Agent)(nil)

// decisionValues are the names of a decision's Values, in their order.
var decisionValues = [...]string{"G", "risk", "ambiguity", "q_pi", "action_marginal"}

// record writes the last Act into d, reusing its slices: the choice
// distribution, the model average, the G, risk, ambiguity and q(pi) of
// the held policies, the cost of the action chosen.
func (a *Agent) record(d *agent.Decision) {
	p := a.plan
	vals := d.Values
	if len(vals) != len(decisionValues) {
		vals = make([]agent.NamedValues, len(decisionValues))
	}
	for i := range vals {
		vals[i].Name = decisionValues[i]
	}
	G, risk, amb := sized(vals[0].Values, len(p.Policies)), sized(vals[1].Values, len(p.Policies)), sized(vals[2].Values, len(p.Policies))
	for i, rp := range p.Policies {
		G[i], risk[i], amb[i] = rp.G, rp.Risk, rp.Ambiguity
	}
	vals[0].Values, vals[1].Values, vals[2].Values = G, risk, amb
	vals[3].Values = append(vals[3].Values[:0], p.QPi...)
	vals[4].Values = append(vals[4].Values[:0], p.ActionProbs...)
	*d = agent.Decision{Probs: append(d.Probs[:0], a.probs...), Base: append(d.Base[:0], p.ActionProbs...),
		Action: p.Action, Detail: p, Values: vals}
	d.Cost, d.Work = math.Inf(1), p.NumPolicies
	for _, rp := range p.Policies {
		if len(rp.Policy) > 0 && rp.Policy[0] == d.Action {
			d.Cost = math.Min(d.Cost, rp.G)
		}
	}
	if a.opts.InferGamma {
		d.Precision = p.GammaMean
	}
}

// sized returns x with length n, x itself when its capacity suffices (a
// new slice for a nil x, as make gives).
func sized(x []float64, n int) []float64 {
	if x == nil || cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

// JointPrecision returns α and whether the rule is over the joint actions
// (agent.JointChooser).
func (a *Agent) JointPrecision() (alpha float64, joint bool) {
	return choiceRule{a.m, a.opts.ActionPrecision, a.opts.ActionFactors}.JointPrecision()
}

var _ agent.JointChooser = (*Agent)(nil)

// choiceRule is the agent's choice rule alone (Agent.Choose,
// Factory.NewChooser).
type choiceRule struct {
	m       *pomdp.Model
	alpha   *float64
	factors agent.ActionFactors
}

func (c choiceRule) Choose(dst, base []float64) ([]float64, error) {
	probs, err := agent.ChooseProbs(dst, c.m, base, c.alpha, c.factors)
	if err != nil {
		return nil, fmt.Errorf("aci: AgentOptions.ActionPrecision: %w", err)
	}
	return probs, nil
}

func (c choiceRule) JointPrecision() (alpha float64, joint bool) {
	alpha = 1
	if c.alpha != nil {
		alpha = *c.alpha
	}
	return alpha, c.factors == agent.JointActions
}
