package fit

import (
	"context"
	"errors"
	"math"

	"github.com/arbor-ai/arbor/agent"
)

// choiceCache holds what a subject's replay gives that the free parameters
// cannot change, when they are all the choice rule's (agent.Param.ChoiceOnly,
// the action precision α): each scored decision's planner distribution
// (agent.Decision.Base) and the recorded action. An evaluation of the
// likelihood then builds the agent at the new values (the same errors as a
// replay's) and applies its choice rule (agent.Chooser) to the stored
// distributions, summing the logs trial by trial in the order of Replay,
// so that the log-likelihood is the replay's bit for bit.
//
// It is not used when a response is missing: the agent then carries its
// belief forward under its choice probabilities, which depend on α.
type choiceCache struct {
	ok    bool      // every decision gave a Base the length of its Probs
	nu    int       // the joint actions of a decision
	bases []float64 // the scored decisions' Base, one after the other
	logs  []float64 // ln Base of each, laid out as bases (agent.PowerLogs)
	his   []float64 // the largest of each decision's logs
	acts  []int     // the recorded action of each scored decision
	steps []int     // its step t
	ends  []int     // ends[i]: the scored decisions of trials 0..i
	buf   []float64
}

// newChoiceCache returns an empty cache to fill during the first replay of
// o's subject, or nil when the cache cannot serve o: a free parameter that
// is not the choice rule's, a missed response, or an agent that is not an
// agent.Chooser.
func newChoiceCache(o *Objective) *choiceCache {
	for _, p := range o.free {
		if !p.ChoiceOnly {
			return nil
		}
	}
	n := 0 // the scored decisions
	for _, tr := range o.rec.Trials {
		for _, u := range tr.Actions {
			if u < 0 {
				return nil
			}
		}
		n += len(tr.Actions)
	}
	if _, err := newChooser(o); err != nil {
		return nil // the replay reports it, or the agent is no Chooser
	}
	// Sized for every decision once, as a decision's Base has an entry per
	// joint action (add checks it).
	nu := o.m.NumActions()
	return &choiceCache{ok: true, ends: make([]int, len(o.rec.Trials)),
		bases: make([]float64, 0, n*nu), logs: make([]float64, 0, n*nu),
		his: make([]float64, 0, n), acts: make([]int, 0, n), steps: make([]int, 0, n)}
}

// add stores a step of trial i of the first replay (logLikelihood's seen).
func (c *choiceCache) add(i int, st *agent.Step) {
	if !c.ok {
		return
	}
	if d := st.Decision; d != nil {
		if st.Missed || d.Deterministic || len(d.Base) != len(d.Probs) || (c.nu != 0 && len(d.Base) != c.nu) {
			c.ok = false
			return
		}
		c.nu = len(d.Base)
		c.bases = append(c.bases, d.Base...)
		var hi float64
		c.buf, hi = agent.PowerLogs(c.buf, d.Base)
		c.logs = append(c.logs, c.buf...)
		c.his = append(c.his, hi)
		c.acts = append(c.acts, st.Action)
		c.steps = append(c.steps, st.T)
	}
	c.ends[i] = len(c.acts)
}

// logLikelihood is LogLikelihood for o at o.values from the stored
// distributions.
func (c *choiceCache) logLikelihood(ctx context.Context, o *Objective) (ll float64, n int, zero *ZeroChoice, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ch, err := newChooser(o)
	if err != nil {
		return 0, 0, nil, &SubjectError{Subject: o.rec.Subject, Index: o.index, Trial: -1, Err: err}
	}
	// A rule over the joint actions is applied from the logs of the
	// bases, taken once (agent.PowerProbsLogs: the same numbers).
	alpha, joint := 0.0, false
	if jc, ok := ch.(agent.JointChooser); ok {
		alpha, joint = jc.JointPrecision()
	}
	k := 0
	for i, tr := range o.rec.Trials {
		if err := ctx.Err(); err != nil {
			return 0, 0, nil, err
		}
		trial := 0.0
		for ; k < c.ends[i]; k++ {
			base := c.bases[k*c.nu : (k+1)*c.nu]
			var probs []float64
			switch {
			case joint && alpha == 1:
				probs = base
			case joint:
				probs = agent.PowerProbsLogs(c.buf, c.logs[k*c.nu:(k+1)*c.nu], c.his[k], alpha)
				c.buf = probs
			default:
				if probs, err = ch.Choose(c.buf, base); err != nil {
					return 0, 0, nil, &SubjectError{Subject: o.rec.Subject, Index: o.index, Trial: i, Err: &agent.StepError{Step: c.steps[k], Err: err}}
				}
				if &probs[0] != &base[0] {
					c.buf = probs
				}
			}
			p := probs[c.acts[k]]
			if p == 0 && zero == nil {
				zero = &ZeroChoice{Trial: i, TrialNumber: tr.Trial, Step: c.steps[k]}
			}
			trial += math.Log(p)
		}
		ll += trial
	}
	return ll, len(c.acts), zero, nil
}

// newChooser returns the choice rule of o's agent at o.values: the
// factory's own (agent.ChooserFactory) or a new agent's.
func newChooser(o *Objective) (agent.Chooser, error) {
	if cf, ok := o.f.(agent.ChooserFactory); ok {
		return cf.NewChooser(o.m, o.values)
	}
	ag, err := o.f.NewAgent(o.m, o.values)
	if err != nil {
		return nil, err
	}
	ch, ok := ag.(agent.Chooser)
	if !ok {
		return nil, errNoChooser
	}
	return ch, nil
}

// errNoChooser is newChooser's error for an agent that is not an
// agent.Chooser (newChoiceCache then leaves the likelihood to replays).
var errNoChooser = errors.New("fit: the agent is not an agent.Chooser")
