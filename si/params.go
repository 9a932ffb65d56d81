package si

import "github.com/arbor-ai/arbor/pomdp"

// Factory builds sophisticated-inference agents whose fittable parameters
// take given values (pomdp.AgentFactory), for fitting agents to behaviour:
// every agent has Options, except the parameters it is given.
type Factory struct {
	Options Options
}

var _ pomdp.AgentFactory = Factory{}

// Params declares the agent's parameters on model m: gamma (the precision
// of σ(−γ G) at every node), alpha (the action precision), eta and omega
// (when m has concentrations to learn), pref and conc (pomdp.ScaleModel;
// conc when m has concentrations). The defaults are those of Options.
func (f Factory) Params(m *pomdp.Model) []pomdp.Param {
	o := f.Options.Resolved()
	alpha := 1.0
	if o.ActionPrecision != nil {
		alpha = *o.ActionPrecision
	}
	ps := []pomdp.Param{
		{Name: pomdp.ParamGamma, Domain: pomdp.Positive, Default: o.Gamma, About: "precision γ of σ(−γ G) at every node"},
		{Name: pomdp.ParamAlpha, Domain: pomdp.Positive, Default: alpha, About: "action precision α of σ(α ln Q(u))"},
	}
	ps = append(ps, pomdp.LearningParams(m, pomdp.Learning{Rate: o.LearningRate, Forgetting: o.Forgetting})...)
	return append(ps, pomdp.ModelParams(m)...)
}

// NewAgent returns an agent on m (scaled by pref and conc when given) with
// Options and the parameters of values. Errors name the parameter or the
// option at fault.
func (f Factory) NewAgent(m *pomdp.Model, values map[string]float64) (pomdp.Agent, error) {
	if err := pomdp.Check(m); err != nil {
		return nil, err
	}
	sm, err := pomdp.ApplyParams(m, f.Params(m), values, pomdp.ClosedLearning)
	if err != nil {
		return nil, err
	}
	o := f.Options.Resolved()
	if v, ok := values[pomdp.ParamGamma]; ok {
		o.Gamma = v
	}
	o.ActionPrecision = pomdp.Override(o.ActionPrecision, values, pomdp.ParamAlpha)
	o.LearningRate = pomdp.Override(o.LearningRate, values, pomdp.ParamEta)
	o.Forgetting = pomdp.Override(o.Forgetting, values, pomdp.ParamOmega)
	return NewAgent(sm, &o)
}
