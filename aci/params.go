package aci

import (
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// Factory builds classic agents whose fittable parameters take given
// values (agent.Factory), for fitting agents to behaviour: every
// agent has Options, except the parameters it is given.
type Factory struct {
	Options AgentOptions
}

var _ agent.Factory = Factory{}

// Params declares the classic agent's parameters on model m: gamma (the
// fixed policy precision; not with InferGamma), alpha (the action
// precision), eta and omega (when m has concentrations to learn), pref
// and conc (pomdp.ScaleModel; conc when m has concentrations). Their
// defaults are those of Options.
func (f Factory) Params(m *pomdp.Model) []agent.Param {
	ps := make([]agent.Param, 0, 6) // γ, α, η, ω, pref and conc at most
	if !f.Options.InferGamma {
		g := f.Options.Gamma
		if g == 0 {
			g = DefaultGamma
		}
		ps = append(ps, agent.Param{Name: agent.ParamGamma, Domain: agent.Positive, Default: g, About: "policy precision γ of softmax(-γ G)"})
	}
	alpha := 1.0
	if f.Options.ActionPrecision != nil {
		alpha = *f.Options.ActionPrecision
	}
	ps = append(ps, agent.Param{Name: agent.ParamAlpha, Domain: agent.Positive, Default: alpha, About: "action precision α of σ(α ln P_marginal(u))", ChoiceOnly: true})
	ps = append(ps, agent.LearningParams(m, pomdp.Learning{Rate: f.Options.LearningRate, Forgetting: f.Options.Forgetting})...)
	return append(ps, agent.ModelParams(m)...)
}

// NewAgent returns a classic agent on m (scaled by pref and conc when
// given) with Options and the parameters of values. Errors name the
// parameter or the option at fault.
func (f Factory) NewAgent(m *pomdp.Model, values map[string]float64) (agent.Agent, error) {
	sm, o, err := f.options(m, values)
	if err != nil {
		return nil, apiError(err)
	}
	return apiResult(NewAgent(sm, &o))
}

// options returns the model (scaled) and the options of an agent of
// NewAgent.
func (f Factory) options(m *pomdp.Model, values map[string]float64) (*pomdp.Model, AgentOptions, error) {
	if err := pomdp.Check(m); err != nil {
		return nil, AgentOptions{}, err
	}
	sm, err := agent.ApplyParams(m, f.Params(m), values, agent.ClosedLearning)
	if err != nil {
		return nil, AgentOptions{}, err
	}
	o := f.Options
	if v, ok := values[agent.ParamGamma]; ok {
		o.Gamma = v
	}
	o.ActionPrecision = agent.Override(o.ActionPrecision, values, agent.ParamAlpha)
	o.LearningRate = agent.Override(o.LearningRate, values, agent.ParamEta)
	o.Forgetting = agent.Override(o.Forgetting, values, agent.ParamOmega)
	return sm, o, nil
}

// NewChooser returns the choice rule of NewAgent(m, values) without the
// agent (agent.ChooserFactory): the errors of the parameters and the
// options are NewAgent's, and Choose is the agent's Choose.
func (f Factory) NewChooser(m *pomdp.Model, values map[string]float64) (agent.Chooser, error) {
	sm, o, err := f.options(m, values)
	if err != nil {
		return nil, apiError(err)
	}
	r, err := o.resolve(sm)
	if err != nil {
		return nil, apiError(err)
	}
	return choiceRule{sm, r.ActionPrecision, r.ActionFactors}, nil
}

var _ agent.ChooserFactory = Factory{}
