package agent

import (
	"context"
	"errors"
	"fmt"
)

// Runs configures RunAgents: Agents independent agents, each running Trials
// trials (episodes) from the model's priors. A nil *Runs or a zero field
// means the default.
type Runs struct {
	// Agents is the number of independent agents (default 1).
	Agents int
	// Trials is the number of trials of each agent (default 1).
	Trials int
	// Workers bounds the trials run at once (default 1). The records do
	// not depend on it.
	Workers int
	// Jobs is the goroutines the runs may use in all, Workers or more
	// (0: Workers). Those no trial takes go to each decision (SetJobs):
	// when memory keeps Workers below the jobs a user asked for, the
	// trials run at once still plan on the jobs left over.
	Jobs int
	// MaxSteps bounds the actions of a trial (default 50).
	MaxSteps int
	// Seed selects the random streams: agent a's trial i (from 0) draws
	// its decisions from StepRand(Seed, a, i, t).
	Seed uint64
	// Carry makes each agent run its trials in order on one agent, which
	// learns between them (EndTrial). Without it nothing is carried from
	// one trial to the next, and any trial may run on any worker's agent.
	Carry bool
	// OnStep, when non-nil, is called with every step of every trial (see
	// EpisodeSettings.OnStep), from the goroutine running the trial: it
	// must be safe for concurrent use when Workers > 1.
	OnStep func(u Unit, ag Agent, st *Step) error
}

// Splitter is an Agent that can plan one decision on several goroutines:
// SetJobs(n) lets it use up to n (n >= 1). Its decisions must not depend
// on n.
type Splitter interface {
	SetJobs(n int)
}

// SpareJobs returns the goroutines that each of units units, run at once
// on jobs goroutines, may use inside itself: the jobs no unit takes,
// shared out, jobs / min(jobs, units), and at least 1. A command gives
// them to each decision (SetJobs) or to each subject's restarts.
func SpareJobs(jobs, units int) int { return max(1, jobs/max(1, min(jobs, units))) }

// SetJobs gives ag up to n goroutines per decision when it is a Splitter,
// and does nothing otherwise. RunAgents gives each agent the goroutines
// that no trial uses: Jobs (or Workers) divided by the trials run at once.
func SetJobs(ag Agent, n int) {
	if s, ok := ag.(Splitter); ok {
		s.SetJobs(max(1, n))
	}
}

// Unit names one trial of a batch: agent a's trial i, both from 0.
type Unit struct{ Agent, Trial int }

// Index returns the unit's position in the batch order (agent-major).
func (u Unit) Index(trials int) int { return u.Agent*trials + u.Trial }

// DefaultMaxSteps is the default of Runs.MaxSteps.
const DefaultMaxSteps = 50

func (r *Runs) resolve() (Runs, error) {
	var o Runs
	if r != nil {
		o = *r
	}
	if o.Agents == 0 {
		o.Agents = 1
	}
	if o.Trials == 0 {
		o.Trials = 1
	}
	if o.Workers == 0 {
		o.Workers = 1
	}
	if o.MaxSteps == 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	switch {
	case o.Agents < 0:
		return o, fmt.Errorf("agent: Runs.Agents %d, want >= 1", o.Agents)
	case o.Trials < 0:
		return o, fmt.Errorf("agent: Runs.Trials %d, want >= 1", o.Trials)
	case o.Workers < 0:
		return o, fmt.Errorf("agent: Runs.Workers %d, want >= 1", o.Workers)
	case o.Jobs < 0:
		return o, fmt.Errorf("agent: Runs.Jobs %d, want >= 0", o.Jobs)
	case o.MaxSteps < 0:
		return o, fmt.Errorf("agent: Runs.MaxSteps %d, want >= 1", o.MaxSteps)
	}
	return o, nil
}

// RunAgents runs the trials of r: newAgent makes an agent (called once per
// worker, and once per agent with Carry), newEnv the environment of a unit
// (a fresh one per trial: environments keep their state). emit receives
// every trial's episode in batch order (agent-major), from the calling
// goroutine, while later trials run (the agent that ran a trial may be
// running the next one: what emit needs of it is in the episode). The
// first error stops the batch and names the unit; a done ctx returns
// ctx.Err() after emitting every trial that finished. A nil newAgent,
// newEnv or emit is an error, and so is a nil agent or environment that
// they return without an error; a nil ctx is context.Background().
func RunAgents(ctx context.Context, r *Runs, newAgent func() (Agent, error), newEnv func(u Unit) (Environment, error), emit func(u Unit, ep *Episode) error) error {
	o, err := r.resolve()
	if err != nil {
		return err
	}
	switch {
	case newAgent == nil:
		return errors.New("agent: RunAgents: nil newAgent")
	case newEnv == nil:
		return errors.New("agent: RunAgents: nil newEnv")
	case emit == nil:
		return errors.New("agent: RunAgents: nil emit")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	n, per := o.Agents*o.Trials, 1
	if o.Carry {
		per = o.Trials
	}
	workers := make([]Agent, max(1, min(o.Workers, (n+per-1)/per)))
	unit := func(i int) Unit { return Unit{Agent: i / o.Trials, Trial: i % o.Trials} }
	err = RunOrdered(ctx, n, per, len(workers), func(ctx context.Context, w, i int) (*Episode, error) {
		u := unit(i)
		if workers[w] == nil || (o.Carry && u.Trial == 0) {
			ag, err := newAgent()
			if err == nil && ag == nil {
				err = errors.New("agent: RunAgents: newAgent returned a nil agent")
			}
			if err != nil {
				return nil, err
			}
			SetJobs(ag, SpareJobs(max(o.Jobs, o.Workers), min(len(workers), (n+per-1)/per)))
			workers[w] = ag
		}
		ag := workers[w]
		env, err := newEnv(u)
		if err == nil && env == nil {
			err = errors.New("agent: RunAgents: newEnv returned a nil environment")
		}
		if err != nil {
			return nil, err
		}
		set := &EpisodeSettings{MaxSteps: o.MaxSteps, Seed: o.Seed, Agent: u.Agent, Trial: u.Trial}
		if o.OnStep != nil {
			set.OnStep = func(st *Step) error { return o.OnStep(u, ag, st) }
		}
		ep, err := RunEpisode(ctx, ag, env, set)
		return ep, err
	}, func(i int, ep *Episode) error { return emit(unit(i), ep) })
	if ue, ok := err.(*UnitError); ok {
		u := unit(ue.Unit)
		return fmt.Errorf("agent %d trial %d: %w", u.Agent+1, u.Trial+1, ue.Err)
	}
	return err
}
