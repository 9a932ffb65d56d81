package pomdp

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// Process is a Model used as the true generative process, as arbor aci run
// and arbor btai run --model use it: Reset draws the first state of every
// factor from its D, Step the next state of every factor from its B given
// the action's control, and each modality's outcome from its A given the
// states, with the generator given to NewProcess (factors first, then
// modalities, in model order). It never ends an episode (Done is false).
// Its methods are those of agent.Environment, the world that the episode
// drivers of package agent act in, which it satisfies.
//
// A Process is not safe for concurrent use; several processes may share a
// model. The zero Process is not usable (it has no model): make one with
// NewProcess. Its Reset panics and its Step returns an error.
type Process struct {
	m       *Model
	rng     *rand.Rand
	s       []int // per factor
	ctrl    []int
	outs    []int
	started bool // Reset has drawn a state
}

// NewProcess returns the process of model m drawing from rng; a nil rng
// stands for PCG(0, 0xe1), the world's stream agent.WorldRand(0, 0). It
// panics if m is nil or not a valid model (Check): a programming error,
// since New, NewFactorised, Parse and Load return an error instead of an
// invalid model.
func NewProcess(m *Model, rng *rand.Rand) *Process {
	if Check(m) != nil {
		panic("pomdp: NewProcess: " + noModel)
	}
	if rng == nil {
		rng = defaultRand()
	}
	return &Process{m: m, rng: rng, s: make([]int, len(m.factors)), outs: make([]int, len(m.mods))}
}

// SetRand makes the process draw from rng from now on; a nil rng stands
// for PCG(0, 0xe1), as in NewProcess.
func (p *Process) SetRand(rng *rand.Rand) {
	if rng == nil {
		rng = defaultRand()
	}
	p.rng = rng
}

// State returns the current hidden state: with several factors, the index
// of the joint state, the first factor varying slowest; -1 before the
// first Reset.
func (p *Process) State() int {
	if !p.started {
		return -1
	}
	x := 0
	for i, f := range p.m.factors {
		x = x*f.ns + p.s[i]
	}
	return x
}

// FactorStates returns the current hidden state of each factor (its state
// index, in model order) in dst, grown when short; nil before the first
// Reset and for the zero Process. agent.RunEpisode records it after Reset
// (agent.StateReporter): the true initial state of an episode.
func (p *Process) FactorStates(dst []int) []int {
	if !p.started {
		return nil
	}
	return append(dst[:0], p.s...)
}

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
	for i := range p.m.mods {
		md := &p.m.mods[i]
		col := 0
		for _, f := range md.deps {
			col = col*p.m.factors[f].ns + p.s[f]
		}
		p.outs[i] = p.sample(func(o int) float64 { return md.a[o*md.size+col] }, md.no)
	}
	o, _ := p.m.EncodeObs(p.outs)
	return o
}

// Reset draws the first state from D and returns its observation. It
// panics on the zero Process (one not made by NewProcess).
func (p *Process) Reset() int {
	if p.m == nil {
		panic("pomdp: Process.Reset: the zero Process has no model (use NewProcess)")
	}
	for i := range p.m.factors {
		f := &p.m.factors[i]
		p.s[i] = p.sample(func(s int) float64 { return f.d[s] }, f.ns)
	}
	p.started = true
	return p.obs()
}

// Step draws the next state from B for action u and returns its
// observation. An action out of range is an error, and so is a Step before
// the first Reset (there is no state to move from yet).
func (p *Process) Step(u int) (int, error) {
	switch {
	case p.m == nil:
		return 0, errors.New("pomdp: Process.Step: the zero Process has no model (use NewProcess)")
	case !p.started:
		return 0, errors.New("pomdp: Process.Step before Reset")
	case u < 0 || u >= p.m.NumActions():
		return 0, fmt.Errorf("pomdp: action %d out of range [0, %d)", u, p.m.NumActions())
	}
	p.ctrl = p.m.DecodeAction(p.ctrl, u)
	for i := range p.m.factors {
		f := &p.m.factors[i]
		prev, c := p.s[i], p.ctrl[i]
		p.s[i] = p.sample(func(n int) float64 { return f.b[(c*f.ns+n)*f.ns+prev] }, f.ns)
	}
	return p.obs(), nil
}

// Done is false: a model has no goal.
func (p *Process) Done() bool { return false }

// NumActions returns the model's number of actions (0 for the zero
// Process).
func (p *Process) NumActions() int {
	if p.m == nil {
		return 0
	}
	return p.m.NumActions()
}

// NumObservations returns the model's number of observations (0 for the
// zero Process).
func (p *Process) NumObservations() int {
	if p.m == nil {
		return 0
	}
	return p.m.NumObs()
}

// defaultRand is the stream of a Process given no generator: PCG(0, 0xe1),
// agent.WorldRand(0, 0).
func defaultRand() *rand.Rand { return rand.New(rand.NewPCG(0, 0xe1)) }
