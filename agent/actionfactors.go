package agent

import (
	"errors"
	"fmt"

	"github.com/arbor-ai/arbor/pomdp"
)

// ActionFactors says how a planner with several controllable factors turns
// its distribution over joint actions into the distribution it chooses
// from (and scores a recorded choice with).
type ActionFactors int

const (
	// JointActions (the default) chooses a joint action from P(u) ∝
	// P(u)^α over the joint actions: arbor's Bayesian model average,
	// sharpened by the action precision α.
	JointActions ActionFactors = iota
	// IndependentActions chooses each controllable factor's control on
	// its own: P(u) = Π_f σ(α ln P_f(u_f)), P_f the marginal of factor f,
	// as pymdp samples the actions of a factorised model. With one
	// controllable factor it is the same as JointActions.
	IndependentActions
)

// String returns the name used on the command line: "joint" or
// "independent".
func (a ActionFactors) String() string {
	switch a {
	case JointActions:
		return "joint"
	case IndependentActions:
		return "independent"
	}
	return fmt.Sprintf("ActionFactors(%d)", int(a))
}

// ParseActionFactors parses "joint" or "independent".
func ParseActionFactors(s string) (ActionFactors, error) {
	switch s {
	case "joint":
		return JointActions, nil
	case "independent":
		return IndependentActions, nil
	}
	return 0, fmt.Errorf("%q, want joint or independent", s)
}

// Valid reports whether a is one of the declared values.
func (a ActionFactors) Valid() bool { return a == JointActions || a == IndependentActions }

// ChoiceProbs returns the distribution over the joint actions of m that a
// planner chooses from, given its distribution probs over joint actions and
// the action precision α: PowerProbs(probs, α) for JointActions, and for
// IndependentActions the product over the controllable factors of
// σ(α ln P_f(u_f)), P_f the factor's marginal under probs (a factor that is
// not controllable contributes 1). dst is allocated when nil or too short.
// It returns an error when m is not a valid model, probs does not have one
// entry per joint action, α is negative or not finite, probs is not a set of
// non-negative weights with a positive entry, or a is not a declared value.
func ChoiceProbs(dst []float64, m *pomdp.Model, probs []float64, alpha float64, a ActionFactors) ([]float64, error) {
	switch a {
	case JointActions:
		return PowerProbs(dst, probs, alpha)
	case IndependentActions:
	default:
		return nil, fmt.Errorf("agent: ChoiceProbs: %v is not a declared ActionFactors", a)
	}
	if pomdp.Check(m) != nil {
		return nil, errors.New("agent: ChoiceProbs: " + noModel)
	}
	d := Decision{Probs: probs}
	marg, err := d.FactorProbs(m)
	if err != nil {
		return nil, err
	}
	for f, p := range marg {
		if p == nil {
			continue
		}
		if marg[f], err = PowerProbs(nil, p, alpha); err != nil {
			return nil, err
		}
	}
	if cap(dst) < len(probs) {
		dst = make([]float64, len(probs))
	}
	dst = dst[:len(probs)]
	var ctrl []int
	for u := range dst {
		ctrl = m.DecodeAction(ctrl, u)
		p := 1.0
		for f, c := range ctrl {
			if marg[f] != nil {
				p *= marg[f][c]
			}
		}
		dst[u] = p
	}
	return dst, nil
}
