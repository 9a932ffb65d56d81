package si

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// Agent is a sophisticated-inference agent: it infers the present state by
// exact filtering of its past (pomdp.Past with pomdp.PastFilter, as aci
// does by default), plans from that belief with the recursive search of
// Plan at every step, and learns its Dirichlet concentrations at the end
// of every trial (pomdp.Past.CarryOver). It implements agent.Agent,
// agent.MixedAdvancer and agent.Learner. An Agent is not safe for
// concurrent use.
type Agent struct {
	m       *pomdp.Model
	o       Options
	past    *pomdp.Past
	planner *Planner
	model   *pomdp.Model // the model the planner plans with
	inTrial bool
	last    *Result
	kept    [2]Result // DecideInto's results, reused in turn
	qs      []float64 // the belief a search starts from, reused
}

var (
	_ agent.Agent         = (*Agent)(nil)
	_ agent.MixedAdvancer = (*Agent)(nil)
	_ agent.Learner       = (*Agent)(nil)
)

// NewAgent returns an agent for model m with opts (nil: the defaults).
// Errors name the option at fault. When m has concentrations a, b or d the
// agent learns them between trials and plans with their expectations.
func NewAgent(m *pomdp.Model, opts *Options) (*Agent, error) {
	if err := pomdp.Check(m); err != nil {
		return nil, apiError(err)
	}
	o := opts.Resolved()
	if err := o.validate(m); err != nil {
		return nil, apiError(err)
	}
	// Exact filtering, or beyond pomdp.MaxFilterStates joint states (a
	// model it would refuse) factorised filtering.
	method, joint := pomdp.PastFilter, 1.0
	for f := range m.NumFactors() {
		joint *= float64(m.FactorSize(f))
	}
	if a, b, d := m.Learnable(); joint > pomdp.MaxFilterStates && !a && !b && !d {
		method = pomdp.PastFactorised
	}
	past, err := pomdp.NewPastWith(m, 0, method)
	if err != nil {
		return nil, apiError(err)
	}
	if o.LearningRate != nil || o.Forgetting != nil {
		if err := past.SetLearning(pomdp.Learning{Rate: o.LearningRate, Forgetting: o.Forgetting}); err != nil {
			return nil, fmt.Errorf("si: Options: %w", err)
		}
	}
	return &Agent{m: m, o: o, past: past}, nil
}

// Options returns the agent's resolved options.
func (a *Agent) Options() Options { return a.o.Resolved() }

// Reset starts a trial with the first observation obs (agent.Agent).
func (a *Agent) Reset(ctx context.Context, obs int) error {
	if err := a.past.Reset(obs); err != nil {
		return apiError(err)
	}
	a.inTrial, a.last = true, nil
	return apiError(a.infer(ctx))
}

func (a *Agent) infer(ctx context.Context) error {
	if err := a.past.Update(ctx); err != nil {
		return fmt.Errorf("state inference over the past: %w", err)
	}
	return nil
}

// Choose returns the choice probabilities of a decision whose root
// distribution over joint actions is base: σ(α ln base), or the product of
// the controllable factors' σ(α ln Q_f) with independent action factors
// (agent.ChooseProbs). It is what Decide computes; fitting calls it for α
// alone (agent.Chooser).
func (a *Agent) Choose(dst, base []float64) ([]float64, error) {
	probs, err := agent.ChooseProbs(dst, a.m, base, a.o.ActionPrecision, a.o.ActionFactors)
	if err != nil {
		return nil, fmt.Errorf("si: Options.ActionPrecision: %w", err)
	}
	return probs, nil
}

// Decide plans from the present belief and chooses (agent.Agent). The
// decision's Probs is σ(α ln Q(u)) (Options.ActionPrecision; Q when α is
// 1), Q(u) = σ(−γ G)(u) the root's distribution over joint actions; its
// Values are "G" (Result.G), "risk", "ambiguity" (the first step's),
// "novelty" (with Options.Novelty) and "q_u" (Q); its Detail the *Result.
// A nil rng is an error, whatever the choice rule (as aci's and btai's).
func (a *Agent) Decide(ctx context.Context, rng *rand.Rand) (*agent.Decision, error) {
	d := new(agent.Decision)
	if err := a.decide(ctx, rng, new(Result), d); err != nil {
		return nil, apiError(err)
	}
	return d, nil
}

// DecideInto is Decide written into d, reusing its slices, and into a
// Result the agent keeps (d.Detail, overwritten by the next DecideInto):
// the same decision, bit for bit (agent.Reuser). With a model that learns
// neither A nor B (D alone, or nothing) it allocates nothing; an agent
// that learns A or B makes a planner for each trial's expected model, as
// Decide does.
func (a *Agent) DecideInto(ctx context.Context, rng *rand.Rand, d *agent.Decision) error {
	if d == nil {
		return errors.New("si: DecideInto: nil decision")
	}
	// Two results in turn, so that a search that fails leaves the last
	// one (LastResult) as it was.
	res := &a.kept[0]
	if a.last == res {
		res = &a.kept[1]
	}
	return apiError(a.decide(ctx, rng, res, d))
}

var _ agent.Reuser = (*Agent)(nil)

// decide plans into res and writes the decision into d, reusing d's
// slices.
func (a *Agent) decide(ctx context.Context, rng *rand.Rand, res *Result, d *agent.Decision) error {
	if !a.inTrial {
		return errors.New("si: Decide: no trial in progress (call Reset)")
	}
	if rng == nil {
		return errors.New("si: Decide with a nil random stream")
	}
	// A model that learns neither A nor B is its own planning model: one
	// planner for every trial.
	model, err := a.past.PlanningModel()
	if err != nil {
		return err
	}
	if a.planner == nil || model != a.model {
		if a.planner, err = NewPlanner(model, &a.o); err != nil {
			return err
		}
		a.model = model
	}
	a.qs = a.past.BeliefInto(a.qs)
	if err := a.planner.PlanInto(ctx, a.qs, res); err != nil {
		return err
	}
	probs, err := a.Choose(d.Probs[:0], res.ActionProbs)
	if err != nil {
		return err
	}
	// At α = 1 over joint actions Choose returns the root's distribution
	// itself, which the next search overwrites: the decision keeps a copy
	// (a copy onto itself otherwise).
	probs = append(d.Probs[:0], probs...)
	vals := d.Values[:0]
	add := func(name string, x []float64) {
		if len(vals) < cap(vals) {
			vals = vals[:len(vals)+1]
		} else {
			vals = append(vals, agent.NamedValues{})
		}
		vals[len(vals)-1] = agent.NamedValues{Name: name, Values: append(vals[len(vals)-1].Values[:0], x...)}
	}
	add("G", res.G)
	add("risk", res.Risk)
	add("ambiguity", res.Ambiguity)
	if res.Novelty != nil {
		add("novelty", res.Novelty)
	}
	add("q_u", res.ActionProbs)
	*d = agent.Decision{Probs: probs, Base: append(d.Base[:0], res.ActionProbs...), Detail: res, Values: vals}
	if a.o.Select == SelectSample {
		d.Action = agent.Sample(rng, d.Probs)
	} else {
		for u, q := range res.ActionProbs {
			if q > res.ActionProbs[d.Action] {
				d.Action = u
			}
		}
	}
	d.Cost, d.Work, d.Truncated = res.G[d.Action], res.Nodes, res.Truncated
	a.last = res
	return nil
}

// Advance records the action taken and the observation that followed,
// and filters the present state (agent.Agent).
func (a *Agent) Advance(ctx context.Context, action, obs int) error {
	if !a.inTrial {
		return errors.New("si: Advance: no trial in progress (call Reset)")
	}
	if err := a.past.Grow(action, obs); err != nil {
		return apiError(err)
	}
	return apiError(a.infer(ctx))
}

// AdvanceMixed is Advance after an action that is not known, distributed
// as probs over joint actions (agent.MixedAdvancer, pomdp.Past.GrowMixed).
func (a *Agent) AdvanceMixed(ctx context.Context, probs []float64, obs int) error {
	if !a.inTrial {
		return errors.New("si: AdvanceMixed: no trial in progress (call Reset)")
	}
	if err := a.past.GrowMixed(probs, obs); err != nil {
		return apiError(err)
	}
	return apiError(a.infer(ctx))
}

// EndTrial closes the trial: the smoothed counts of the trial become the
// next trial's Dirichlet priors (pomdp.Past.CarryOver).
func (a *Agent) EndTrial(ctx context.Context) error {
	if !a.inTrial {
		return errors.New("si: EndTrial: no trial in progress (call Reset)")
	}
	if err := a.infer(ctx); err != nil {
		return apiError(err)
	}
	a.past.CarryOver()
	a.inTrial = false
	return nil
}

// Belief returns Q(S_t), every factor's marginal (nil before Reset).
func (a *Agent) Belief() []float64 { return a.past.Belief() }

// Concentrations returns the prior concentrations of every learned
// parameter (agent.Learner).
func (a *Agent) Concentrations() pomdp.Concentrations { return a.past.Concentrations() }

// Tree returns the search tree of the last Decide (Planner.Tree): valid
// until the next Decide; an error before the first.
func (a *Agent) Tree() (*Tree, error) {
	if a.planner == nil || a.last == nil {
		return nil, errors.New("si: no decision to show (call Decide first)")
	}
	return apiResult(a.planner.Tree())
}

// LastResult returns the result of the last Decide or DecideInto that
// succeeded (nil before it); the DecideInto after next overwrites it.
func (a *Agent) LastResult() *Result { return a.last }
