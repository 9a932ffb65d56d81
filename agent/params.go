package agent

import (
	"fmt"
	"math"
	"slices"

	"github.com/arbor-ai/arbor/pomdp"
)

// Names of the agent parameters that can be fitted to behaviour. They are
// the same everywhere: the --free flag of the fit commands, their output,
// and Param.Name.
const (
	ParamGamma = "gamma" // policy precision γ
	ParamAlpha = "alpha" // action precision α of the choice rule
	ParamEta   = "eta"   // learning rate η (pomdp.Learning.Rate)
	ParamOmega = "omega" // forgetting ω (pomdp.Learning.Forgetting)
	ParamPref  = "pref"  // preference precision: multiplies ln C (pomdp.ScaleModel)
	ParamConc  = "conc"  // scale of the prior concentrations a, b, d (pomdp.ScaleModel)
)

// Domain is the set of values a parameter takes; fitting maps it onto the
// real line (Domain.Transform).
type Domain int

const (
	// Real is the whole real line: no transform.
	Real Domain = iota
	// Positive is (0, ∞): the log transform.
	Positive
	// UnitInterval is (0, 1): the logit transform. A parameter whose
	// range includes 1 (ω is in (0, 1]) is fitted in the open interval.
	UnitInterval
)

var domainNames = []string{"real", "positive", "unit interval"}

// String returns "real", "positive" or "unit interval".
func (d Domain) String() string {
	if d >= 0 && int(d) < len(domainNames) {
		return domainNames[d]
	}
	return fmt.Sprintf("Domain(%d)", int(d))
}

// Contains reports whether x is in the domain (the open set: 0 is not
// Positive, 1 is not in the UnitInterval).
func (d Domain) Contains(x float64) bool {
	switch d {
	case Real:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case Positive:
		return x > 0 && !math.IsInf(x, 1)
	case UnitInterval:
		return x > 0 && x < 1
	}
	return false
}

// Transform maps x from the domain onto the real line: x itself (Real),
// ln x (Positive) or ln(x / (1 - x)) (UnitInterval). A value outside the
// domain gives ±Inf or NaN.
func (d Domain) Transform(x float64) float64 {
	switch d {
	case Positive:
		return math.Log(x)
	case UnitInterval:
		return math.Log(x) - math.Log1p(-x)
	}
	return x
}

// Inverse maps θ from the real line back into the domain: θ, exp θ or
// 1 / (1 + exp(-θ)).
func (d Domain) Inverse(theta float64) float64 {
	switch d {
	case Positive:
		return math.Exp(theta)
	case UnitInterval:
		if theta >= 0 {
			return 1 / (1 + math.Exp(-theta))
		}
		e := math.Exp(theta)
		return e / (1 + e)
	}
	return theta
}

// Jacobian returns dx/dθ of Inverse at θ: 1, exp θ or x (1 - x). It is the
// factor of the delta method between the two scales.
func (d Domain) Jacobian(theta float64) float64 {
	switch d {
	case Positive:
		return math.Exp(theta)
	case UnitInterval:
		x := d.Inverse(theta)
		return x * (1 - x)
	}
	return 1
}

// Param declares one parameter of an agent that can be fitted to behaviour.
type Param struct {
	// Name is one of the Param* names.
	Name string
	// Domain is where the parameter lives.
	Domain Domain
	// Default is the parameter's value under the factory's options (and
	// the model's own values, 1 for pref and conc): what it stays at when
	// it is not fitted.
	Default float64
	// About says in a few words what the parameter is.
	About string
	// Stepped reports that the agent's choice probabilities are piecewise
	// constant in the parameter (it changes a discrete plan, such as the
	// shape of a planning tree, in steps): gradients and curvatures are
	// zero or undefined, and fitting must not use them.
	Stepped bool
	// ChoiceOnly reports that the parameter changes only the agent's
	// choice rule (Chooser): not its beliefs, its plans or what it learns,
	// so long as every response is recorded (a missed response carries
	// the belief forward under the choice probabilities). The action
	// precision α is such a parameter.
	ChoiceOnly bool
}

// Factory builds fresh agents whose fittable parameters take given values;
// the fitting package asks it which parameters an agent has and calls it
// once per evaluation of the likelihood. A factory holds the agent's other
// options; it is safe for concurrent use when its NewAgent is (those of
// aci, btai and si are).
type Factory interface {
	// Params returns the parameters an agent on model m has, in a fixed
	// order, with their defaults. It may depend on the model: η, ω and
	// conc only where the model has concentrations to learn.
	Params(m *pomdp.Model) []Param
	// NewAgent returns a fresh agent on model m in which each named
	// parameter of values takes its value and the others their defaults.
	// A name the agent does not have, or a value outside the parameter's
	// domain (Param.Domain, and its closure where the agent accepts it),
	// is an error naming the parameter.
	NewAgent(m *pomdp.Model, values map[string]float64) (Agent, error)
}

// FindParam returns the parameter called name among ps, or an error that
// lists the names ps has.
func FindParam(ps []Param, name string) (Param, error) {
	for _, p := range ps {
		if p.Name == name {
			return p, nil
		}
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	if len(names) == 0 {
		return Param{}, fmt.Errorf("agent: parameter %q: the agent has no fittable parameter", name)
	}
	return Param{}, fmt.Errorf("agent: parameter %q: the agent has %s", name, joinNames(names))
}

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			out += " and "
		default:
			out += ", "
		}
		out += n
	}
	return out
}

// CheckParams checks values against the declared parameters ps: every name
// must be declared and every value finite and in its parameter's domain,
// or, where closed is true for the name, on the domain's closure (η = 0, α
// = 0, ω = 1 are values the agents accept). Errors name the parameter.
func CheckParams(ps []Param, values map[string]float64, closed func(name string, x float64) bool) error {
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	slices.Sort(names) // the first fault in a fixed order
	for _, n := range names {
		p, err := FindParam(ps, n)
		if err != nil {
			return err
		}
		x := values[n]
		if p.Domain.Contains(x) || (closed != nil && !math.IsNaN(x) && !math.IsInf(x, 0) && closed(n, x)) {
			continue
		}
		return fmt.Errorf("agent: parameter %s: %v, want a value in the %s domain", n, x, p.Domain)
	}
	return nil
}

// ModelParams returns the declarations of pref and conc for model m:
// pref always, conc when m has concentrations a, b or d. Both default to 1
// (the model as it is).
func ModelParams(m *pomdp.Model) []Param {
	ps := []Param{{Name: ParamPref, Domain: Positive, Default: 1, About: "preference precision: multiplies ln C"}}
	if la, lb, ld := m.Learnable(); la || lb || ld {
		ps = append(ps, Param{Name: ParamConc, Domain: Positive, Default: 1, About: "scale of the prior concentrations a, b, d"})
	}
	return ps
}

// LearningParams returns the declarations of η and ω for model m with the
// defaults of l, or none when m has no concentrations to learn.
func LearningParams(m *pomdp.Model, l pomdp.Learning) []Param {
	if la, lb, ld := m.Learnable(); !la && !lb && !ld {
		return nil
	}
	eta, omega := l.Values()
	return []Param{
		{Name: ParamEta, Domain: Positive, Default: eta, About: "learning rate η of c' = ω c + η Δc"},
		{Name: ParamOmega, Domain: UnitInterval, Default: omega, About: "forgetting ω of c' = ω c + η Δc"},
	}
}

// ApplyParams is the common part of a Factory's NewAgent: it checks values
// against the agent's declared parameters ps (CheckParams, with closed as
// there) and returns the model with pref and conc applied
// (pomdp.ScaleModel; m itself when values has neither). The factory then
// sets the agent's own parameters (γ, α, η, ω) from values.
func ApplyParams(m *pomdp.Model, ps []Param, values map[string]float64, closed func(name string, x float64) bool) (*pomdp.Model, error) {
	if err := CheckParams(ps, values, closed); err != nil {
		return nil, err
	}
	pref, conc := 1.0, 1.0
	if v, ok := values[ParamPref]; ok {
		pref = v
	}
	if v, ok := values[ParamConc]; ok {
		conc = v
	}
	return pomdp.ScaleModel(m, pref, conc)
}

// Override returns a pointer to a copy of values[name] when values has it,
// and p otherwise: how a factory's NewAgent sets, from the values, an
// option that nil leaves at its default (α, η, ω).
func Override(p *float64, values map[string]float64, name string) *float64 {
	if v, ok := values[name]; ok {
		return &v
	}
	return p
}

// ClosedLearning is the closure rule of the agents of arbor for
// CheckParams: α = 0 (a uniform choice), η = 0 (no learning) and ω = 1 (no
// forgetting) are accepted besides their open domains.
func ClosedLearning(name string, x float64) bool {
	switch name {
	case ParamAlpha, ParamEta:
		return x == 0
	case ParamOmega:
		return x == 1
	}
	return false
}
