package aci

import "github.com/arbor-ai/arbor/pomdp"

// Factory builds classic agents whose fittable parameters take given
// values (pomdp.AgentFactory), for fitting agents to behaviour: every
// agent has Options, except the parameters it is given.
type Factory struct {
	Options AgentOptions
}

var _ pomdp.AgentFactory = Factory{}

// Params declares the classic agent's parameters on model m: gamma (the
// fixed policy precision; not with InferGamma), alpha (the action
// precision), eta and omega (when m has concentrations to learn), pref
// and conc (pomdp.ScaleModel; conc when m has concentrations). Their
// defaults are those of Options.
func (f Factory) Params(m *pomdp.Model) []pomdp.Param {
	var ps []pomdp.Param
	if !f.Options.InferGamma {
		g := f.Options.Gamma
		if g == 0 {
			g = DefaultGamma
		}
		ps = append(ps, pomdp.Param{Name: pomdp.ParamGamma, Domain: pomdp.Positive, Default: g, About: "policy precision γ of softmax(-γ G)"})
	}
	alpha := 1.0
	if f.Options.ActionPrecision != nil {
		alpha = *f.Options.ActionPrecision
	}
	ps = append(ps, pomdp.Param{Name: pomdp.ParamAlpha, Domain: pomdp.Positive, Default: alpha, About: "action precision α of σ(α ln P_marginal(u))"})
	ps = append(ps, pomdp.LearningParams(m, pomdp.Learning{Rate: f.Options.LearningRate, Forgetting: f.Options.Forgetting})...)
	return append(ps, pomdp.ModelParams(m)...)
}

// NewAgent returns a classic agent on m (scaled by pref and conc when
// given) with Options and the parameters of values. Errors name the
// parameter or the option at fault.
func (f Factory) NewAgent(m *pomdp.Model, values map[string]float64) (pomdp.Agent, error) {
	if err := pomdp.Check(m); err != nil {
		return nil, err
	}
	sm, err := pomdp.ApplyParams(m, f.Params(m), values, pomdp.ClosedLearning)
	if err != nil {
		return nil, err
	}
	o := f.Options
	if v, ok := values[pomdp.ParamGamma]; ok {
		o.Gamma = v
	}
	o.ActionPrecision = pomdp.Override(o.ActionPrecision, values, pomdp.ParamAlpha)
	o.LearningRate = pomdp.Override(o.LearningRate, values, pomdp.ParamEta)
	o.Forgetting = pomdp.Override(o.Forgetting, values, pomdp.ParamOmega)
	return NewAgent(sm, &o)
}
