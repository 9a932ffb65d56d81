package pomdp

import (
	"fmt"
	"math/rand/v2"
)

// Environment is the true generative process an agent acts in. Both agents
// (aci and btai) drive an Environment through the action-perception cycle:
// Reset once per episode, then Step with one action per time step until
// Done reports that the goal is reached or the agent's step budget runs out.
//
// Actions are indices 0..NumActions()-1 and observations are indices
// 0..NumObservations()-1, matching the columns and rows of the agent's
// generative model. Implementations are not safe for concurrent use.
type Environment interface {
	// Reset puts the environment back at its start and returns the first
	// observation index.
	Reset() int
	// Step performs action and returns the resulting observation index.
	// An action outside 0..NumActions()-1 is an error and leaves the
	// environment unchanged.
	Step(action int) (obs int, err error)
	// NumActions is the number of actions Step accepts.
	NumActions() int
	// NumObservations is the number of distinct observation indices.
	NumObservations() int
	// Done reports whether the goal is reached (in an envs.Maze: the agent
	// stands on E; in an envs.TMaze: the agent is in the rewarded arm).
	Done() bool
}

// Process is a Model used as the true generative process, as arbor aci run
// and arbor btai run --model use it: Reset draws the first state from D,
// Step the next state from B given the action, and each observation from A
// given the state, with the generator given to NewProcess. It never ends
// an episode (Done is false).
type Process struct {
	m   *Model
	rng *rand.Rand
	s   int
}

// NewProcess returns the process of model m drawing from rng.
func NewProcess(m *Model, rng *rand.Rand) *Process { return &Process{m: m, rng: rng} }

// SetRand makes the process draw from rng from now on.
func (p *Process) SetRand(rng *rand.Rand) { p.rng = rng }

// State returns the current hidden state.
func (p *Process) State() int { return p.s }

// sample draws an index from the distribution p(0..n-1) by inversion, with
// the last index taking any rounding remainder.
func (p *Process) sample(prob func(i int) float64, n int) int {
	u := p.rng.Float64()
	acc := 0.0
	for i := range n {
		acc += prob(i)
		if u < acc {
			return i
		}
	}
	return n - 1
}

func (p *Process) obs() int {
	return p.sample(func(o int) float64 { return p.m.A(o, p.s) }, p.m.NumObs())
}

// Reset draws the first state from D and returns its observation.
func (p *Process) Reset() int {
	p.s = p.sample(p.m.D, p.m.NumStates())
	return p.obs()
}

// Step draws the next state from B for action u and returns its
// observation. An action out of range is an error.
func (p *Process) Step(u int) (int, error) {
	if u < 0 || u >= p.m.NumActions() {
		return 0, fmt.Errorf("pomdp: action %d out of range [0, %d)", u, p.m.NumActions())
	}
	prev := p.s
	p.s = p.sample(func(n int) float64 { return p.m.B(u, n, prev) }, p.m.NumStates())
	return p.obs(), nil
}

// Done is false: a model has no goal.
func (p *Process) Done() bool { return false }

// NumActions returns the model's number of actions.
func (p *Process) NumActions() int { return p.m.NumActions() }

// NumObservations returns the model's number of observations.
func (p *Process) NumObservations() int { return p.m.NumObs() }

var _ Environment = (*Process)(nil)
