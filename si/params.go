package si

import (
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// Factory builds sophisticated-inference agents whose fittable parameters
// take given values (agent.Factory), for fitting agents to behaviour:
// every agent has Options, except the parameters it is given.
type Factory struct {
	Options Options
	// Strict makes a search that the node budget (Options.MaxNodes) cuts
	// short an error of Decide (an *agent.FlagError naming the depth
	// reached), so that every choice is scored at the depth asked for:
	// the rule of replay and fitting (Description sets it for every verb
	// that scores choices).
	Strict bool
}

var _ agent.Factory = Factory{}

// Params declares the agent's parameters on model m: gamma (the precision
// of σ(−γ G) at every node), alpha (the action precision), eta and omega
// (when m has concentrations to learn), pref and conc (pomdp.ScaleModel;
// conc when m has concentrations). The defaults are those of Options.
func (f Factory) Params(m *pomdp.Model) []agent.Param {
	o := f.Options.Resolved()
	alpha := 1.0
	if o.ActionPrecision != nil {
		alpha = *o.ActionPrecision
	}
	ps := []agent.Param{
		{Name: agent.ParamGamma, Domain: agent.Positive, Default: o.Gamma, About: "precision γ of σ(−γ G) at every node"},
		{Name: agent.ParamAlpha, Domain: agent.Positive, Default: alpha, About: "action precision α of σ(α ln Q(u))", ChoiceOnly: true},
	}
	ps = append(ps, agent.LearningParams(m, pomdp.Learning{Rate: o.LearningRate, Forgetting: o.Forgetting})...)
	return append(ps, agent.ModelParams(m)...)
}

// NewAgent returns an agent on m (scaled by pref and conc when given) with
// Options and the parameters of values. Errors name the parameter or the
// option at fault.
func (f Factory) NewAgent(m *pomdp.Model, values map[string]float64) (agent.Agent, error) {
	if err := pomdp.Check(m); err != nil {
		return nil, apiError(err)
	}
	sm, err := agent.ApplyParams(m, f.Params(m), values, agent.ClosedLearning)
	if err != nil {
		return nil, apiError(err)
	}
	o := f.Options.Resolved()
	if v, ok := values[agent.ParamGamma]; ok {
		o.Gamma = v
	}
	o.ActionPrecision = agent.Override(o.ActionPrecision, values, agent.ParamAlpha)
	o.LearningRate = agent.Override(o.LearningRate, values, agent.ParamEta)
	o.Forgetting = agent.Override(o.Forgetting, values, agent.ParamOmega)
	ag, err := NewAgent(sm, &o)
	if err != nil {
		return nil, apiError(err)
	}
	if f.Strict {
		return strictAgent{ag}, nil
	}
	return ag, nil
}

// Scoring returns the factory whose agents score recorded choices: Strict
// (agent.ScoringFactory).
func (f Factory) Scoring() agent.Factory {
	f.Strict = true
	return f
}

var _ agent.ScoringFactory = Factory{}
