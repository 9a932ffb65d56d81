package fit

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/pomdp"
)

// SubjectError is an error in one subject's data or in the agent on it:
// the subject's name and, when the fault is at a recorded step, the trial
// (its index in SubjectRecord.Trials, from 0) and the error of
// agent.Replay, which wraps a *agent.StepError naming the step.
type SubjectError struct {
	Subject string
	Index   int // the subject's position in its data, from 0
	Trial   int // -1 when the fault is not in one trial
	Err     error
}

func (e *SubjectError) Error() string {
	if e.Trial < 0 {
		return fmt.Sprintf("fit: subject %s: %v", e.Subject, e.Err)
	}
	return fmt.Sprintf("fit: subject %s, trial index %d: %v", e.Subject, e.Trial, e.Err)
}

func (e *SubjectError) Unwrap() error { return e.Err }

// ErrNoChoices is wrapped by the error of a subject whose record has no
// scored choice (every response missing, or trials of one step): there is
// nothing to fit.
var ErrNoChoices = errors.New("no choices to fit (every response is missing)")

// ZeroChoice locates a recorded choice the agent gives probability 0: the
// trial (its index in SubjectRecord.Trials, from 0), the trial number of
// the record, and the step t.
type ZeroChoice struct {
	Trial, TrialNumber, Step int
}

// LogLikelihood returns the log-probability that the agents of f give the
// recorded choices of rec with the parameters values (the others at their
// defaults): a fresh agent from f.NewAgent(m, values) replays the
// subject's trials in order (agent.Replay; learning carries from one trial
// to the next, as in a run), the decisions of trial i at step t drawing
// from agent.StepRand(seed, index, i, t), index being the subject's
// position in its file (from 0). n is the number of scored choices. A
// recorded choice of probability 0 makes the log-likelihood -Inf and zero
// locates the first such choice (nil otherwise); it is not an error.
// Errors (a *SubjectError) are faults of the data or the agent.
func LogLikelihood(ctx context.Context, f agent.Factory, m *pomdp.Model, rec *behaviour.SubjectRecord, index int, seed uint64, values map[string]float64) (ll float64, n int, zero *ZeroChoice, err error) {
	ll, n, zero, err = logLikelihood(ctx, f, m, rec, index, seed, values, nil)
	return ll, n, zero, apiError(err)
}

// logLikelihood is LogLikelihood, calling seen (when not nil) with every
// step of every trial (its index i in rec.Trials) as Replay records it.
func logLikelihood(ctx context.Context, f agent.Factory, m *pomdp.Model, rec *behaviour.SubjectRecord, index int, seed uint64, values map[string]float64, seen func(i int, st *agent.Step)) (ll float64, n int, zero *ZeroChoice, err error) {
	if f == nil {
		return 0, 0, nil, errors.New("fit: nil agent factory")
	}
	if rec == nil {
		return 0, 0, nil, errors.New("fit: nil subject record")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ag, err := f.NewAgent(m, values)
	if err != nil {
		return 0, 0, nil, apiError(&SubjectError{Subject: rec.Subject, Index: index, Trial: -1, Err: err})
	}
	// One Scorer, one settings and one OnStep for every trial: the
	// replay allocates nothing per decision (agent.Scorer).
	var (
		sc  agent.Scorer
		cur int // the trial being replayed
	)
	set := agent.EpisodeSettings{Seed: seed, Agent: index}
	set.OnStep = func(st *agent.Step) error {
		if zero == nil && st.Decision != nil && !st.Missed && st.PAction == 0 {
			zero = &ZeroChoice{Trial: cur, TrialNumber: rec.Trials[cur].Trial, Step: st.T}
		}
		if seen != nil {
			seen(cur, st)
		}
		return nil
	}
	for i, tr := range rec.Trials {
		cur, set.Trial = i, i
		tll, tn, err := sc.Trial(ctx, ag, tr.Obs, tr.Actions, &set)
		if err != nil {
			if ctx.Err() != nil {
				return 0, 0, nil, apiError(ctx.Err())
			}
			return 0, 0, nil, apiError(&SubjectError{Subject: rec.Subject, Index: index, Trial: i, Err: err})
		}
		ll += tll
		n += tn
	}
	return ll, n, zero, nil
}

// Objective is the log posterior of one subject's free parameters on the
// transformed scale θ (Domain.Transform of each parameter): the
// log-likelihood of the recorded choices (LogLikelihood) plus the log
// density of the Gaussian priors on θ. Subject maximises it; tests and
// callers who want the whole posterior (a grid, a sampler) evaluate it.
// An Objective is not safe for concurrent use.
type Objective struct {
	f      agent.Factory
	m      *pomdp.Model
	rec    *behaviour.SubjectRecord
	index  int
	seed   uint64
	free   []agent.Param
	priors []Prior
	n      int // scored choices, known after the first evaluation
	evals  int
	zero   *ZeroChoice
	values map[string]float64
	choice *choiceCache // nil until a first evaluation finds the choice rule alone free (choicecache.go)
	tried  bool         // the first evaluation has looked
}

// NewObjective returns the objective of subject rec (at position index of
// its file, from 0) for the settings s (nil: the defaults; s.Free must name
// at least one parameter). Errors name the setting at fault: a free
// parameter the agent does not have (listing those it has), one given
// twice, a prior with SD <= 0 or a mean that is not finite, a prior for a
// parameter that is not free.
func NewObjective(f agent.Factory, m *pomdp.Model, rec *behaviour.SubjectRecord, index int, s *Settings) (*Objective, error) {
	if f == nil {
		return nil, errors.New("fit: nil agent factory")
	}
	if rec == nil {
		return nil, errors.New("fit: nil subject record")
	}
	if err := pomdp.Check(m); err != nil {
		return nil, apiError(err)
	}
	set := s.resolved()
	free, priors, err := set.resolveParams(f.Params(m))
	if err != nil {
		return nil, apiError(err)
	}
	return &Objective{f: f, m: m, rec: rec, index: index, seed: set.Seed, free: free, priors: priors, n: -1,
		values: make(map[string]float64, len(free))}, nil
}

// Params returns the free parameters in the order of θ.
func (o *Objective) Params() []agent.Param { return append([]agent.Param(nil), o.free...) }

// Priors returns the prior of each free parameter on the transformed scale.
func (o *Objective) Priors() []Prior { return append([]Prior(nil), o.priors...) }

// Values returns the natural-scale values of θ by name (Domain.Inverse).
// It panics if len(theta) is not the number of free parameters.
func (o *Objective) Values(theta []float64) map[string]float64 {
	if len(theta) != len(o.free) {
		panic(fmt.Sprintf("fit: Objective.Values: %d values for %d free parameters", len(theta), len(o.free)))
	}
	v := make(map[string]float64, len(theta))
	for i, p := range o.free {
		v[p.Name] = p.Domain.Inverse(theta[i])
	}
	return v
}

// LogPrior returns Σ ln N(θ_i; mean_i, sd_i²), normalised. It panics if
// len(theta) is not the number of free parameters.
func (o *Objective) LogPrior(theta []float64) float64 {
	if len(theta) != len(o.free) {
		panic(fmt.Sprintf("fit: Objective.LogPrior: %d values for %d free parameters", len(theta), len(o.free)))
	}
	lp := 0.0
	for i, pr := range o.priors {
		z := (theta[i] - pr.Mean) / pr.SD
		lp += -0.5*z*z - math.Log(pr.SD) - 0.5*math.Log(2*math.Pi)
	}
	return lp
}

// LogLikelihood returns the log-likelihood of the subject's choices at θ
// (package function LogLikelihood at Values(θ)). A value of θ whose natural
// value leaves the parameter's domain in floating point (exp θ overflows,
// or the logit's inverse rounds to 0 or 1) is refused by the agent's
// factory: an error.
func (o *Objective) LogLikelihood(ctx context.Context, theta []float64) (float64, error) {
	if len(theta) != len(o.free) {
		return 0, fmt.Errorf("fit: Objective.LogLikelihood: %d values for %d free parameters", len(theta), len(o.free))
	}
	clear(o.values)
	for i, p := range o.free {
		o.values[p.Name] = p.Domain.Inverse(theta[i])
	}
	o.evals++
	var (
		ll   float64
		n    int
		zero *ZeroChoice
		err  error
	)
	switch {
	case o.choice != nil:
		ll, n, zero, err = o.choice.logLikelihood(ctx, o)
	case !o.tried:
		o.tried = true
		c := newChoiceCache(o)
		var seen func(int, *agent.Step)
		if c != nil {
			seen = c.add
		}
		ll, n, zero, err = logLikelihood(ctx, o.f, o.m, o.rec, o.index, o.seed, o.values, seen)
		if err == nil && c != nil && c.ok {
			o.choice = c
		}
	default:
		ll, n, zero, err = LogLikelihood(ctx, o.f, o.m, o.rec, o.index, o.seed, o.values)
	}
	if err != nil {
		return 0, apiError(err)
	}
	if o.n < 0 {
		o.n = n
	}
	if zero != nil && o.zero == nil {
		o.zero = zero
	}
	return ll, nil
}

// LogPosterior returns LogLikelihood(θ) + LogPrior(θ), the log of the
// unnormalised posterior density of θ.
func (o *Objective) LogPosterior(ctx context.Context, theta []float64) (float64, error) {
	ll, err := o.LogLikelihood(ctx, theta)
	if err != nil {
		return 0, apiError(err)
	}
	return ll + o.LogPrior(theta), nil
}

// NumChoices returns the number of scored choices of the subject (-1
// before the first evaluation).
func (o *Objective) NumChoices() int { return o.n }

// Evaluations returns the number of likelihood evaluations so far.
func (o *Objective) Evaluations() int { return o.evals }
