package envs

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/arbor-ai/arbor/agent"
)

// T-maze locations. The T-maze actions are the same indices: action u
// moves the agent to location u.
const (
	TMazeStart = 0 // the bottom of the T, where every episode begins
	TMazeCue   = 1 // the cue location, which hints at the context
	TMazeLeft  = 2 // the left arm (absorbing)
	TMazeRight = 3 // the right arm (absorbing)
)

// T-maze contexts: which arm holds the reward. The context is hidden, drawn
// at Reset and never changes within an episode.
const (
	TMazeRewardLeft  = 0
	TMazeRewardRight = 1
)

// T-maze observations. One observation is emitted per time step:
//
//	TMazeObsNone       at the start location (no information)
//	TMazeObsCueLeft    at the cue: "the reward is left"
//	TMazeObsCueRight   at the cue: "the reward is right"
//	TMazeObsReward     in an arm: reward
//	TMazeObsPunishment in an arm: punishment
const (
	TMazeObsNone       = 0
	TMazeObsCueLeft    = 1
	TMazeObsCueRight   = 2
	TMazeObsReward     = 3
	TMazeObsPunishment = 4
)

// T-maze sizes.
const (
	tmazeLocations    = 4
	tmazeContexts     = 2
	tmazeStates       = tmazeLocations * tmazeContexts
	tmazeObservations = 5
)

// Names of the T-maze actions, observations and hidden states, indexed as
// the constants above and TMazeState. Treat them as read-only; MazeModel
// holds copies.
var (
	TMazeActionNames      = []string{"go-start", "go-cue", "go-left", "go-right"}
	TMazeObservationNames = []string{"none", "cue-left", "cue-right", "reward", "punishment"}
	TMazeStateNames       = []string{
		"start/reward-left", "start/reward-right",
		"cue/reward-left", "cue/reward-right",
		"left/reward-left", "left/reward-right",
		"right/reward-left", "right/reward-right",
	}
)

// Default T-maze parameters.
const (
	DefaultCueValidity          = 0.95
	DefaultRewardProbability    = 1.0
	DefaultRewardPreference     = 3.0
	DefaultPunishmentPreference = -3.0
)

// TMazeState returns the hidden-state index of location and context:
// 2*location + context, so states are ordered as TMazeStateNames.
func TMazeState(location, context int) int { return location*tmazeContexts + context }

// TMazeConfig parameterises a T-maze. A nil *TMazeConfig means
// DefaultTMazeConfig(). The zero TMazeConfig is not the defaults but a
// valid T-maze of its own, with cue validity 0 (the cue always names the
// other arm), reward probability 0 (the rewarded arm always punishes, the
// other always rewards) and no preferences: start from DefaultTMazeConfig
// to change some fields.
type TMazeConfig struct {
	// CueValidity is the probability that the cue names the rewarded arm,
	// in [0, 1]; default 0.95.
	CueValidity float64
	// RewardProbability is the probability of reward in the rewarded arm,
	// and of punishment in the other arm, in [0, 1]; default 1.
	RewardProbability float64
	// RewardPreference and PunishmentPreference are the log-preferences
	// (unnormalised) of the reward and punishment observations, finite;
	// the other observations have 0. Defaults +3 and -3.
	RewardPreference, PunishmentPreference float64
}

// DefaultTMazeConfig returns the classic T-maze: cue validity 0.95,
// deterministic reward, log-preferences +3 for reward and -3 for
// punishment.
func DefaultTMazeConfig() TMazeConfig {
	return TMazeConfig{
		CueValidity:          DefaultCueValidity,
		RewardProbability:    DefaultRewardProbability,
		RewardPreference:     DefaultRewardPreference,
		PunishmentPreference: DefaultPunishmentPreference,
	}
}

// validate returns an error naming the first invalid field.
func (c *TMazeConfig) validate() error {
	if !(c.CueValidity >= 0 && c.CueValidity <= 1) {
		return fmt.Errorf("envs: TMazeConfig.CueValidity %v out of range [0, 1]", c.CueValidity)
	}
	if !(c.RewardProbability >= 0 && c.RewardProbability <= 1) {
		return fmt.Errorf("envs: TMazeConfig.RewardProbability %v out of range [0, 1]", c.RewardProbability)
	}
	if math.IsNaN(c.RewardPreference) || math.IsInf(c.RewardPreference, 0) {
		return fmt.Errorf("envs: TMazeConfig.RewardPreference %v is not finite", c.RewardPreference)
	}
	if math.IsNaN(c.PunishmentPreference) || math.IsInf(c.PunishmentPreference, 0) {
		return fmt.Errorf("envs: TMazeConfig.PunishmentPreference %v is not finite", c.PunishmentPreference)
	}
	return nil
}

// resolve returns a validated copy of cfg, or the defaults for nil.
func resolveTMazeConfig(cfg *TMazeConfig) (TMazeConfig, error) {
	if cfg == nil {
		return DefaultTMazeConfig(), nil
	}
	c := *cfg
	return c, c.validate()
}

// emission returns P(o | location, context) for every observation o.
func (c *TMazeConfig) emission(location, context int) [tmazeObservations]float64 {
	var p [tmazeObservations]float64
	switch location {
	case TMazeStart:
		p[TMazeObsNone] = 1
	case TMazeCue:
		right, wrong := TMazeObsCueLeft, TMazeObsCueRight
		if context == TMazeRewardRight {
			right, wrong = wrong, right
		}
		p[right] = c.CueValidity
		p[wrong] = 1 - c.CueValidity
	default:
		win := (location == TMazeLeft) == (context == TMazeRewardLeft)
		if win {
			p[TMazeObsReward] = c.RewardProbability
			p[TMazeObsPunishment] = 1 - c.RewardProbability
		} else {
			p[TMazeObsReward] = 1 - c.RewardProbability
			p[TMazeObsPunishment] = c.RewardProbability
		}
	}
	return p
}

// tmazeNext returns the location reached from location by action: the
// arms are absorbing, from the start or the cue every location is one step
// away.
func tmazeNext(location, action int) int {
	if location == TMazeLeft || location == TMazeRight {
		return location
	}
	return action
}

// TMazeModel returns the exact generative model of the T-maze with
// parameters cfg (nil for DefaultTMazeConfig()), with states indexed by
// TMazeState, observations by the TMazeObs constants and actions by the
// locations:
//
//   - A[o][s]: at the start TMazeObsNone; at the cue the true cue with
//     probability CueValidity; in the rewarded arm reward with probability
//     RewardProbability (else punishment), in the other arm the reverse;
//   - B[u][next][prev]: from the start or the cue, action u moves to
//     location u; the arms are absorbing; the context never changes;
//   - C = softmax([0, 0, 0, RewardPreference, PunishmentPreference]);
//   - D: the start location, each context with probability 1/2.
func TMazeModel(cfg *TMazeConfig) (*MazeModel, error) {
	c, err := resolveTMazeConfig(cfg)
	if err != nil {
		return nil, err
	}
	return c.model(), nil
}

func (c *TMazeConfig) model() *MazeModel {
	m := &MazeModel{
		A:            make([][]float64, tmazeObservations),
		B:            make([][][]float64, tmazeLocations),
		C:            make([]float64, tmazeObservations),
		D:            make([]float64, tmazeStates),
		Actions:      append([]string(nil), TMazeActionNames...),
		Observations: append([]string(nil), TMazeObservationNames...),
		States:       append([]string(nil), TMazeStateNames...),
	}
	for o := range m.A {
		m.A[o] = make([]float64, tmazeStates)
	}
	for u := range m.B {
		m.B[u] = make([][]float64, tmazeStates)
		for next := range m.B[u] {
			m.B[u][next] = make([]float64, tmazeStates)
		}
	}
	for loc := range tmazeLocations {
		for ctx := range tmazeContexts {
			s := TMazeState(loc, ctx)
			p := c.emission(loc, ctx)
			for o := range p {
				m.A[o][s] = p[o]
			}
			for u := range tmazeLocations {
				m.B[u][TMazeState(tmazeNext(loc, u), ctx)][s] = 1
			}
		}
	}
	logits := make([]float64, tmazeObservations)
	logits[TMazeObsReward] = c.RewardPreference
	logits[TMazeObsPunishment] = c.PunishmentPreference
	softmaxInto(m.C, logits)
	for ctx := range tmazeContexts {
		m.D[TMazeState(TMazeStart, ctx)] = 1.0 / tmazeContexts
	}
	return m
}

// TMaze is the classic T-maze of active inference (Friston et al. 2015):
// the agent starts at the bottom of a T whose left or right arm holds a
// reward (the hidden context); a cue location hints at the context with
// probability CueValidity. Entering an arm is final: the arms are
// absorbing. Observations and the hidden state are described by the
// TMazeObs constants and TMazeState; TMazeModel is the matching generative
// model. A TMaze is not safe for concurrent use.
//
// The zero TMaze is the default T-maze (DefaultTMazeConfig) drawing from
// the global math/rand/v2 source, not yet Reset: Step before the first
// Reset is an error.
type TMaze struct {
	cfg      TMazeConfig
	made     bool // cfg is set (NewTMaze, or the defaults for the zero TMaze)
	started  bool // Reset has chosen a context
	rng      *rand.Rand
	fixed    int // 1 + the context used by Reset, or 0 to draw it
	location int
	context  int
}

// init gives the zero TMaze the default configuration.
func (t *TMaze) init() {
	if !t.made {
		t.cfg, t.made = DefaultTMazeConfig(), true
	}
}

// NewTMaze returns a T-maze with parameters cfg (nil for the defaults) that
// draws its contexts and observations from rng (nil for the global
// math/rand/v2 source), already Reset.
func NewTMaze(cfg *TMazeConfig, rng *rand.Rand) (*TMaze, error) {
	c, err := resolveTMazeConfig(cfg)
	if err != nil {
		return nil, err
	}
	t := &TMaze{cfg: c, made: true, rng: rng}
	t.Reset()
	return t, nil
}

// Config returns the T-maze's parameters.
func (t *TMaze) Config() TMazeConfig {
	t.init()
	return t.cfg
}

// Model returns the exact generative model of this T-maze (see TMazeModel).
func (t *TMaze) Model() *MazeModel {
	t.init()
	return t.cfg.model()
}

// FixContext makes every later Reset choose context (TMazeRewardLeft or
// TMazeRewardRight) instead of drawing it; -1 restores drawing. It does not
// change the current episode.
func (t *TMaze) FixContext(context int) error {
	if context < -1 || context >= tmazeContexts {
		return fmt.Errorf("envs: T-maze context %d not in {-1, 0, 1}", context)
	}
	t.fixed = context + 1
	return nil
}

// Reset puts the agent at the start location, chooses the context (fixed
// by FixContext, otherwise drawn uniformly) and returns TMazeObsNone.
func (t *TMaze) Reset() int {
	t.init()
	t.location = TMazeStart
	t.started = true
	switch {
	case t.fixed > 0:
		t.context = t.fixed - 1
	case t.rng != nil:
		t.context = t.rng.IntN(tmazeContexts)
	default:
		t.context = rand.IntN(tmazeContexts)
	}
	return TMazeObsNone
}

// Step moves the agent to location action (from an arm it stays put) and
// returns an observation drawn from the emission of the new state (see
// TMazeModel). An action outside [0, 4) is an error and nothing changes,
// and so is a Step before the first Reset (no context is chosen yet).
func (t *TMaze) Step(action int) (int, error) {
	if !t.started {
		return 0, errors.New("envs: T-maze: Step before Reset")
	}
	if action < 0 || action >= tmazeLocations {
		return 0, fmt.Errorf("envs: T-maze action %d out of range [0, %d)", action, tmazeLocations)
	}
	t.location = tmazeNext(t.location, action)
	p := t.cfg.emission(t.location, t.context)
	x := t.uniform()
	last := 0
	for o, po := range p {
		if po == 0 {
			continue
		}
		last = o
		if x < po {
			return o, nil
		}
		x -= po
	}
	return last, nil // rounding: x landed past the final positive mass
}

func (t *TMaze) uniform() float64 {
	if t.rng != nil {
		return t.rng.Float64()
	}
	return rand.Float64()
}

// NumActions returns 4: go to the start, the cue, the left or the right arm.
func (t *TMaze) NumActions() int { return tmazeLocations }

// NumObservations returns 5 (see the TMazeObs constants).
func (t *TMaze) NumObservations() int { return tmazeObservations }

// NumStates returns 8: 4 locations times 2 contexts.
func (t *TMaze) NumStates() int { return tmazeStates }

// Location returns the agent's location (TMazeStart ... TMazeRight).
func (t *TMaze) Location() int { return t.location }

// Context returns the hidden context (TMazeRewardLeft or TMazeRewardRight).
func (t *TMaze) Context() int { return t.context }

// State returns the hidden state TMazeState(Location(), Context()).
func (t *TMaze) State() int { return TMazeState(t.location, t.context) }

// Done reports whether the agent is in the rewarded arm.
func (t *TMaze) Done() bool {
	return (t.location == TMazeLeft && t.context == TMazeRewardLeft) ||
		(t.location == TMazeRight && t.context == TMazeRewardRight)
}

// InArm reports whether the agent is in either arm, after which nothing
// changes until Reset.
func (t *TMaze) InArm() bool { return t.location == TMazeLeft || t.location == TMazeRight }

// TMaze is an environment of the agents.
var _ agent.Environment = (*TMaze)(nil)
