package agent

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/arbor-ai/arbor/pomdp"
)

// Agent is the contract every planner of arbor implements (classic active
// inference, Branching Time Active Inference and any later one), so that one
// episode driver (RunEpisode), one replay driver (Replay) and one batch
// runner serve them all, from Go and from the command line.
//
// A trial runs as
//
//	Reset(o_0); then for t = 0, 1, ...: Decide, Advance(u_t, o_(t+1)); EndTrial
//
// where u_t is the agent's own choice (Decision.Action) when it acts in an
// environment, or an action given from outside when it is driven along a
// recorded trajectory. An Agent is not safe for concurrent use.
type Agent interface {
	// Reset starts a trial with its first observation o_0 (a joint
	// observation index, pomdp.Model.EncodeObs). What the agent learned in
	// earlier trials (EndTrial) is kept.
	Reset(ctx context.Context, obs int) error
	// Decide plans at the present step and returns the distribution over
	// joint actions and the agent's choice. Every random draw of planning
	// and choice comes from rng, so that equal inputs and equal streams
	// give equal decisions.
	Decide(ctx context.Context, rng *rand.Rand) (*Decision, error)
	// Advance records the action taken at the present step (the agent's
	// or one given from outside) and the observation that followed.
	Advance(ctx context.Context, action, obs int) error
	// EndTrial closes the trial: a last inference over the whole trial and
	// the learning of the Dirichlet concentrations, which become the next
	// trial's priors.
	EndTrial(ctx context.Context) error
	// Belief returns Q(S_t), the posterior over the present state after
	// the last Reset, Advance or EndTrial (every factor's marginal, one
	// after the other; a copy).
	Belief() []float64
}

// Decision is what an agent decided at one step.
type Decision struct {
	// Probs[u] is the probability of joint action u under the agent's
	// choice rule: the number a recorded choice is scored with (Replay).
	// With a deterministic rule (Deterministic) it is one-hot on Action.
	Probs []float64
	// Base is the planner's distribution over joint actions before the
	// choice rule's action precision and action factors (the model
	// average P_marginal of aci, Q(u) of si), for an agent that is a
	// Chooser: Probs is its Choose(nil, Base). nil otherwise.
	Base []float64
	// Deterministic reports that the choice rule picks Action without a
	// distribution to score other choices with (such as the most visited
	// action of a planning tree); Replay refuses such an agent.
	Deterministic bool
	// Action is the agent's choice: a draw from Probs with the step's
	// random stream, or what a deterministic rule picked.
	Action int
	// Values are what the planner computed for its choice, by name, in a
	// fixed order (for example the expected free energy G of every policy,
	// or the average cost of every action): records carry them as they
	// are.
	Values []NamedValues
	// Cost is the planner's cost of the action chosen, lower being
	// better: what figures of a run plot for every step (the lowest
	// expected free energy G among the policies that start with the
	// action, its average cost in a planning tree, its G in a search).
	Cost float64
	// Work counts what planning did for this decision, in the unit that
	// Planner.WorkUnit names (policies scored, planning iterations,
	// beliefs scored).
	Work int
	// Truncated reports a plan that a budget cut short of what its
	// options asked for (a search stopped by its node budget above the
	// depth asked for).
	Truncated bool
	// Precision is the posterior mean of the policy precision γ where the
	// planner infers it, else 0.
	Precision float64
	// Detail is the planner's own record of the step (for example
	// *aci.Plan), for Go callers that know the agent's type.
	Detail any
}

// A Reuser is an Agent that can decide into a record the caller keeps
// from one decision to the next: DecideInto is Decide (the same decision,
// bit for bit, from the same state and stream) written into d, whose
// slices (Probs, Base, Values and their lists) it reuses when their
// capacity suffices, while the planner's own record (Detail) is the
// agent's and the next DecideInto overwrites it. rng is drawn from during
// the call only. A Scorer uses it, so that scoring recorded choices
// allocates nothing per decision.
type Reuser interface {
	DecideInto(ctx context.Context, rng *rand.Rand, d *Decision) error
}

// A Chooser is an agent whose choice rule maps the planner's distribution
// over actions (Decision.Base) to the choice probabilities (Decision.Probs)
// through parameters that change nothing else the agent does: the action
// precision α and the action factors of ChoiceProbs. Fitting uses it when
// every free parameter is such a parameter (Param.ChoiceOnly): the
// planner's distributions of a subject's decisions are the same at every
// value, so one replay gives them, and each evaluation of the likelihood
// applies the choice rule to them.
type Chooser interface {
	// Choose returns the choice probabilities of a decision whose
	// planner's distribution is base, exactly as the agent's Decide
	// computes Probs (the same arithmetic, bit for bit). dst is used when
	// its capacity suffices. The result may be base itself when the rule
	// leaves it as it is (α = 1 over joint actions).
	Choose(dst, base []float64) ([]float64, error)
}

// A JointChooser is a Chooser that tells its rule: with joint true,
// Choose(dst, base) is base itself at alpha = 1 and PowerProbs(dst, base,
// alpha) otherwise, so that fitting, which applies it at many α to the
// same bases, takes their logs once (PowerLogs, PowerProbsLogs); with
// joint false (action factors) it calls Choose.
type JointChooser interface {
	Chooser
	JointPrecision() (alpha float64, joint bool)
}

// A ChooserFactory is a Factory that makes the choice rule of its agents
// alone: NewChooser(m, values) chooses as NewAgent(m, values) would, and
// returns its errors that come from the parameters and options, without
// building the agent (its inference, which the choice rule's parameters
// do not change). Fitting uses it for each evaluation of the likelihood
// when every free parameter is the choice rule's (Param.ChoiceOnly).
type ChooserFactory interface {
	NewChooser(m *pomdp.Model, values map[string]float64) (Chooser, error)
}

// ChooseProbs is the choice rule of the agents of arbor: base itself at
// α = 1 over joint actions (alpha nil means 1), and ChoiceProbs(dst, m,
// base, α, a) otherwise. Agents call it in Decide and in Choose, so that the
// two agree bit for bit.
func ChooseProbs(dst []float64, m *pomdp.Model, base []float64, alpha *float64, a ActionFactors) ([]float64, error) {
	al := 1.0
	if alpha != nil {
		al = *alpha
	}
	if al == 1 && a == JointActions {
		return base, nil
	}
	return ChoiceProbs(dst, m, base, al, a)
}

// NamedValues is one named vector of a Decision.
type NamedValues struct {
	Name   string
	Values []float64
}

// Value returns the values called name (nil when the decision has none).
func (d *Decision) Value(name string) []float64 {
	for _, v := range d.Values {
		if v.Name == name {
			return v.Values
		}
	}
	return nil
}

// Learner is an Agent that learns Dirichlet concentrations across trials;
// the drivers record them after every trial.
type Learner interface {
	// Concentrations returns the concentrations of every learned
	// parameter (copies): after EndTrial, those the next trial starts from.
	Concentrations() pomdp.Concentrations
}

// MixedAdvancer is an Agent that can be told an observation after an
// action it does not know, drawn from the distribution probs over joint
// actions: its belief is carried forward under that mixture of
// transitions. Replay uses it after a missed response.
type MixedAdvancer interface {
	AdvanceMixed(ctx context.Context, probs []float64, obs int) error
}

// FactorProbs returns the marginal distribution of each controllable
// factor's controls under Probs (one slice per factor of the model, nil for
// a factor that is not controllable). It returns an error when m is not a
// valid model (pomdp.Check) or Probs does not have one entry per joint
// action of m.
func (d *Decision) FactorProbs(m *pomdp.Model) ([][]float64, error) {
	if pomdp.Check(m) != nil {
		return nil, errors.New("agent: FactorProbs: " + noModel)
	}
	if len(d.Probs) != m.NumActions() {
		return nil, fmt.Errorf("agent: FactorProbs: Probs: %d entries, want %d (one per joint action)", len(d.Probs), m.NumActions())
	}
	out := make([][]float64, m.NumFactors())
	for f := range out {
		if nu := m.FactorControls(f); nu > 1 && m.ControlOwner(f) == f {
			out[f] = make([]float64, nu)
		}
	}
	var ctrl []int
	for u, p := range d.Probs {
		ctrl = m.DecodeAction(ctrl, u)
		for f, c := range ctrl {
			if out[f] != nil {
				out[f][c] += p
			}
		}
	}
	return out, nil
}

// noModel is the fault of a nil or zero model (one pomdp.Check refuses).
const noModel = "model: nil or not built by pomdp.New, NewFactorised, Parse or Load"
