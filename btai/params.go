package btai

import (
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// Factory builds BTAI agents whose fittable parameters take given values
// (agent.Factory), for fitting agents to behaviour: every agent has
// Options (resolved: nil means the default preset), except the parameters
// it is given, and a fixed stream for its own draws (Decide draws from the
// stream the driver gives it).
//
// BTAI's choice probabilities come from a planning tree whose shape
// changes in steps as a parameter moves (a node's cost crosses another's),
// so the likelihood is piecewise constant in the parameters that act on
// the planning (pref, conc, eta, omega: Param.Stepped) and only α acts
// smoothly (through σ(-α ḡ) or N^α, on a tree that does not depend on it):
// fit the others with a derivative-free method.
type Factory struct {
	Options *Options
}

var _ agent.Factory = Factory{}

func (f Factory) resolved() Options {
	if f.Options == nil {
		return DefaultOptions()
	}
	return f.Options.Resolved()
}

// Params declares the BTAI agent's parameters on model m: alpha (the
// action precision, with the stochastic rules Softmax and Visits only),
// eta and omega (when m has concentrations to learn), pref and conc
// (pomdp.ScaleModel; conc when m has concentrations). BTAI has no policy
// precision γ. The defaults are those of Options.
func (f Factory) Params(m *pomdp.Model) []agent.Param {
	o := f.resolved()
	var ps []agent.Param
	if !o.ActionSelection.Deterministic() {
		ps = append(ps, agent.Param{Name: agent.ParamAlpha, Domain: agent.Positive, Default: *o.ActionPrecision, About: "action precision α of the choice rule (" + o.ActionSelection.String() + ")"})
	}
	n := len(ps)
	ps = append(ps, agent.LearningParams(m, pomdp.Learning{Rate: o.LearningRate, Forgetting: o.Forgetting})...)
	ps = append(ps, agent.ModelParams(m)...)
	for i := n; i < len(ps); i++ {
		ps[i].Stepped = true // they change the planning tree
	}
	return ps
}

// NewAgent returns a BTAI agent on m (scaled by pref and conc when given)
// with Options and the parameters of values. Errors name the parameter or
// the option at fault.
func (f Factory) NewAgent(m *pomdp.Model, values map[string]float64) (agent.Agent, error) {
	if err := pomdp.Check(m); err != nil {
		return nil, apiError(err)
	}
	sm, err := agent.ApplyParams(m, f.Params(m), values, agent.ClosedLearning)
	if err != nil {
		return nil, apiError(err)
	}
	o := f.resolved()
	o.ActionPrecision = agent.Override(o.ActionPrecision, values, agent.ParamAlpha)
	o.LearningRate = agent.Override(o.LearningRate, values, agent.ParamEta)
	o.Forgetting = agent.Override(o.Forgetting, values, agent.ParamOmega)
	return apiResult(NewAgent(sm, &o, nil))
}
