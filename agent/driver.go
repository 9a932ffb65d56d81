package agent

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/arbor-ai/arbor/pomdp"
)

// Step is the record of one time step of a trial: the observation o_t, the
// belief the agent held after it, and (except on a trial's last step) what
// it decided and the action taken.
type Step struct {
	// T is the observation index t within the trial (from 0).
	T int
	// Obs is o_t, a joint observation index (pomdp.Model.DecodeObs gives
	// the outcome of each modality).
	Obs int
	// Belief is Q(S_t) after o_t (every factor's marginal, one after the
	// other): what the decision planned from.
	Belief []float64
	// Decision is what the agent decided at this step; nil on the last
	// step of a trial, where no action follows.
	Decision *Decision
	// Action is the joint action taken after o_t: the agent's choice in
	// RunEpisode, the recorded one in Replay; -1 on the last step and for
	// a missed response.
	Action int
	// Missed marks a recorded step whose response is missing: the action
	// is not scored and the agent carries its belief forward under its own
	// action distribution (Replay).
	Missed bool
	// PAction is Decision.Probs[Action] in Replay (NaN otherwise, and on
	// a missed or last step).
	PAction float64
	// Seconds is the time the decision took.
	Seconds float64
}

// Episode is the record of one trial run by RunEpisode.
type Episode struct {
	// Steps holds one record per observation: the first one and one per
	// action taken.
	Steps []Step
	// Solved reports env.Done() at the end (a goal reached).
	Solved bool
	// PlanningSeconds is the time spent deciding.
	PlanningSeconds float64
	// Seconds is the wall time of the whole trial: the decisions, the
	// environment, the agent's belief updates and its learning.
	Seconds float64
	// Learned holds the concentrations the agent learned, after EndTrial
	// (nil when the agent learns nothing or is not a Learner).
	Learned *pomdp.Concentrations
	// TrueState holds the true initial hidden state, the state index of
	// each factor of the environment's model, when the environment reports
	// it (StateReporter); nil otherwise.
	TrueState []int
}

// learned returns ag's concentrations, or nil when it learns nothing.
func learned(ag Agent) *pomdp.Concentrations {
	l, ok := ag.(Learner)
	if !ok {
		return nil
	}
	c := l.Concentrations()
	if !c.Learned() {
		return nil
	}
	return &c
}

// Actions returns the actions taken, u_0..u_(T-1).
func (e *Episode) Actions() []int {
	out := make([]int, 0, max(len(e.Steps)-1, 0))
	for _, s := range e.Steps {
		if s.Decision != nil {
			out = append(out, s.Action)
		}
	}
	return out
}

// Observations returns the observations o_0..o_T.
func (e *Episode) Observations() []int {
	out := make([]int, len(e.Steps))
	for i, s := range e.Steps {
		out[i] = s.Obs
	}
	return out
}

// Beliefs returns Q(S_t) after each observation.
func (e *Episode) Beliefs() [][]float64 {
	out := make([][]float64, len(e.Steps))
	for i, s := range e.Steps {
		out[i] = s.Belief
	}
	return out
}

// NumActions returns the number of actions taken.
func (e *Episode) NumActions() int { return max(len(e.Steps)-1, 0) }

// EpisodeSettings configures RunEpisode and Replay.
type EpisodeSettings struct {
	// MaxSteps bounds the actions of an episode (RunEpisode; >= 0).
	MaxSteps int
	// Seed, Agent and Trial select the random streams of the decisions
	// (StepRand): step t draws from StepRand(Seed, Agent, Trial, t).
	Seed         uint64
	Agent, Trial int
	// OnStep, when non-nil, is called with every step's record once it is
	// complete: in RunEpisode after the environment answered the action
	// (and before the agent is told: its state is still that of the
	// decision) and for the last step; in Replay likewise. An error stops
	// the episode and is returned.
	OnStep func(*Step) error
}

// RunEpisode runs one trial of the action-perception cycle of ag in env:
// observe (env.Reset), then until env.Done() or s.MaxSteps actions, decide
// (with the step's random stream), act (env.Step) and tell the agent
// (Advance); at the end, EndTrial lets the agent learn.
//
// A nil s is the zero EpisodeSettings: MaxSteps 0, so the episode is the
// first observation alone. A nil ag or env is an error, and so is a
// decision that Decide returns without an error but nil; a nil ctx is
// context.Background().
func RunEpisode(ctx context.Context, ag Agent, env Environment, s *EpisodeSettings) (*Episode, error) {
	var set EpisodeSettings
	if s != nil {
		set = *s
	}
	switch {
	case ag == nil:
		return nil, errors.New("agent: RunEpisode: nil agent")
	case env == nil:
		return nil, errors.New("agent: RunEpisode: nil environment")
	case set.MaxSteps < 0:
		return nil, fmt.Errorf("agent: EpisodeSettings.MaxSteps %d, want >= 0", set.MaxSteps)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ep := &Episode{}
	began := time.Now()
	obs := env.Reset()
	if sr, ok := env.(StateReporter); ok {
		ep.TrueState = sr.FactorStates(nil)
	}
	if err := ag.Reset(ctx, obs); err != nil {
		return ep, err
	}
	for t := 0; ; t++ {
		st := Step{T: t, Obs: obs, Belief: ag.Belief(), Action: -1, PAction: math.NaN()}
		if t == set.MaxSteps || env.Done() {
			ep.Steps = append(ep.Steps, st)
			if set.OnStep != nil {
				if err := set.OnStep(&ep.Steps[len(ep.Steps)-1]); err != nil {
					return ep, err
				}
			}
			break
		}
		start := time.Now()
		d, err := ag.Decide(ctx, StepRand(set.Seed, set.Agent, set.Trial, t))
		if err == nil && d == nil {
			err = errNoDecision
		}
		if err != nil {
			return ep, fmt.Errorf("step %d: %w", t, err)
		}
		st.Seconds = time.Since(start).Seconds()
		ep.PlanningSeconds += st.Seconds
		st.Decision, st.Action = d, d.Action
		next, err := env.Step(d.Action)
		if err != nil {
			return ep, fmt.Errorf("environment: %w", err)
		}
		ep.Steps = append(ep.Steps, st)
		if set.OnStep != nil {
			if err := set.OnStep(&ep.Steps[len(ep.Steps)-1]); err != nil {
				return ep, err
			}
		}
		if err := ag.Advance(ctx, d.Action, next); err != nil {
			return ep, err
		}
		obs = next
	}
	ep.Solved = env.Done()
	if err := ag.EndTrial(ctx); err != nil {
		return ep, fmt.Errorf("learning: %w", err)
	}
	ep.Learned = learned(ag)
	ep.Seconds = time.Since(began).Seconds()
	return ep, nil
}

// ReplayTrial is the record of one recorded trial driven through an agent.
type ReplayTrial struct {
	Steps []Step
	// LogLikelihood is Σ ln P(u_t) over the scored steps: the log
	// probability the agent gives the recorded choices.
	LogLikelihood float64
	// Choices is the number of scored steps (missed responses excluded).
	Choices int
	// Learned holds the concentrations the agent learned, after EndTrial
	// (see Episode.Learned).
	Learned *pomdp.Concentrations
}

// ErrDeterministic is returned by Replay when the agent's choice rule is
// deterministic: it gives no probability to score a recorded choice with.
var ErrDeterministic = errors.New("agent: the agent's choice rule is deterministic and cannot score recorded choices")

// errNoDecision is the error of a Decide that returned neither a decision
// nor an error.
var errNoDecision = errors.New("agent: the agent's Decide returned no decision and no error")

// StepError is an error of Replay at one recorded step.
type StepError struct {
	Step int // the observation index t of the step
	Err  error
}

func (e *StepError) Error() string { return fmt.Sprintf("step %d: %v", e.Step, e.Err) }
func (e *StepError) Unwrap() error { return e.Err }

// Replay drives ag along one recorded trial: obs holds the observations
// o_0..o_T and actions the T recorded actions, u_t taken after o_t (-1: a
// missed response). At every step the agent decides as it would (with the
// step's random stream, StepRand), the recorded action is scored by the
// probability the decision gives it, and the agent is told the recorded
// action and the next observation. After a missed response the agent is
// told the action it chose itself (Decision.Action) when its choice rule is
// deterministic, and otherwise it carries its belief forward under its own
// action distribution if it can (an agent implementing MixedAdvancer), else
// under its own draw. EndTrial ends the trial (learning).
//
// The error of a step wraps a *StepError naming the step; an observation
// that the agent's model cannot explain makes Reset or Advance fail there,
// and a recorded action out of range [-1, len(Decision.Probs)) fails the
// step. A nil ag is an error; a nil s is the zero EpisodeSettings and a nil
// ctx context.Background().
func Replay(ctx context.Context, ag Agent, obs, actions []int, s *EpisodeSettings) (*ReplayTrial, error) {
	rt := &ReplayTrial{}
	sc := Scorer{keep: true}
	if err := sc.replay(ctx, ag, obs, actions, s, rt); err != nil {
		if rt.Steps == nil && !sc.began {
			return nil, err
		}
		return rt, err
	}
	rt.Learned = learned(ag)
	return rt, nil
}

// A Scorer replays recorded trials through an agent for their
// log-likelihood alone (fitting's likelihood), reusing what it makes from
// one step and trial to the next: the step's record, the random stream and,
// with an agent that is a Reuser, the decision. With a Reuser whose
// inference allocates nothing (aci's agent under exact filtering), a
// trial's steps then allocate nothing. The zero Scorer is ready to use; a
// Scorer is not safe for concurrent use.
type Scorer struct {
	keep  bool // Replay: record every step (a new decision each, the belief)
	began bool // the agent was reset (Replay returns the trial's record)
	step  Step
	dec   Decision
	pcg   rand.PCG
	rng   *rand.Rand
	rt    ReplayTrial
}

// Trial is Replay of one recorded trial (the same decisions, scores and
// errors) that keeps no record: it returns Σ ln P(u_t) over the scored
// steps and their number. OnStep sees every step as Replay records it,
// except that its Belief is nil; the step and its decision are valid
// during the call only (the next step overwrites them), and so is the
// agent's own record of the decision (Decision.Detail).
func (s *Scorer) Trial(ctx context.Context, ag Agent, obs, actions []int, set *EpisodeSettings) (ll float64, n int, err error) {
	s.keep = false
	s.rt = ReplayTrial{}
	if err := s.replay(ctx, ag, obs, actions, set, &s.rt); err != nil {
		return 0, 0, err
	}
	return s.rt.LogLikelihood, s.rt.Choices, nil
}

// decide is the agent's decision at step t with the step's random stream:
// for a Reuser outside Replay, the Scorer's own stream reseeded (the same
// numbers as StepRand's; DecideInto draws from it during the call only),
// otherwise a new one, which the agent may keep.
func (s *Scorer) decide(ctx context.Context, ag Agent, set *EpisodeSettings, t int) (*Decision, error) {
	r, ok := ag.(Reuser)
	if s.keep || !ok {
		return ag.Decide(ctx, StepRand(set.Seed, set.Agent, set.Trial, t))
	}
	s.pcg.Seed(stepSeeds(set.Seed, set.Agent, set.Trial, t))
	if s.rng == nil {
		s.rng = rand.New(&s.pcg)
	}
	if err := r.DecideInto(ctx, s.rng, &s.dec); err != nil {
		return nil, err
	}
	return &s.dec, nil
}

// record appends st to rt's steps (Replay) or keeps it in the Scorer, and
// gives it to OnStep.
func (s *Scorer) record(rt *ReplayTrial, set *EpisodeSettings, st *Step) error {
	if s.keep {
		rt.Steps = append(rt.Steps, *st)
		st = &rt.Steps[len(rt.Steps)-1]
	}
	if set.OnStep != nil {
		return set.OnStep(st)
	}
	return nil
}

// replay is Replay into rt, which keeps the steps' records when s.keep.
func (s *Scorer) replay(ctx context.Context, ag Agent, obs, actions []int, es *EpisodeSettings, rt *ReplayTrial) error {
	var set EpisodeSettings
	if es != nil {
		set = *es
	}
	if ctx == nil {
		ctx = context.Background()
	}
	s.began = false
	if ag == nil {
		return errors.New("agent: Replay: nil agent")
	}
	if len(obs) == 0 {
		return errors.New("agent: Replay: a trial without observations")
	}
	if len(actions) != len(obs)-1 {
		return fmt.Errorf("agent: Replay: %d actions for %d observations, want %d", len(actions), len(obs), len(obs)-1)
	}
	s.began = true
	if err := ag.Reset(ctx, obs[0]); err != nil {
		return &StepError{0, err}
	}
	st := &s.step
	for t := range obs {
		*st = Step{T: t, Obs: obs[t], Action: -1, PAction: math.NaN()}
		if s.keep {
			st.Belief = ag.Belief()
		}
		if t == len(obs)-1 {
			if err := s.record(rt, &set, st); err != nil {
				return err
			}
			break
		}
		start := time.Now()
		d, err := s.decide(ctx, ag, &set, t)
		if err == nil && d == nil {
			err = errNoDecision
		}
		if err != nil {
			return &StepError{t, err}
		}
		st.Seconds = time.Since(start).Seconds()
		st.Decision = d
		u := actions[t]
		if u < -1 || u >= len(d.Probs) {
			return &StepError{t, fmt.Errorf("agent: Replay: action %d out of range [0, %d) (-1: a missed response)", u, len(d.Probs))}
		}
		if u < 0 {
			st.Missed = true
		} else {
			if d.Deterministic {
				return ErrDeterministic
			}
			st.Action = u
			st.PAction = d.Probs[u]
			rt.LogLikelihood += math.Log(d.Probs[u])
			rt.Choices++
		}
		if err := s.record(rt, &set, st); err != nil {
			return err
		}
		switch {
		case u >= 0:
			err = ag.Advance(ctx, u, obs[t+1])
		case !d.Deterministic:
			if mx, ok := ag.(MixedAdvancer); ok {
				err = mx.AdvanceMixed(ctx, d.Probs, obs[t+1])
			} else {
				err = ag.Advance(ctx, d.Action, obs[t+1])
			}
		default:
			err = ag.Advance(ctx, d.Action, obs[t+1])
		}
		if err != nil {
			return &StepError{t + 1, err}
		}
	}
	if err := ag.EndTrial(ctx); err != nil {
		return fmt.Errorf("learning: %w", err)
	}
	return nil
}
