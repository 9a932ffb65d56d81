package pomdp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
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
	// observation index, Model.EncodeObs). What the agent learned in
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
	// Detail is the planner's own record of the step (for example
	// *aci.Plan), for Go callers that know the agent's type.
	Detail any
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

// FactorProbs returns the marginal distribution of each controllable
// factor's controls under Probs (one slice per factor of the model, nil for
// a factor that is not controllable). It returns an error when m is not a
// valid model (Check) or Probs does not have one entry per joint action of
// m.
func (d *Decision) FactorProbs(m *Model) ([][]float64, error) {
	if Check(m) != nil {
		return nil, errors.New("pomdp: FactorProbs: " + noModel)
	}
	if len(d.Probs) != m.nu {
		return nil, fmt.Errorf("pomdp: FactorProbs: Probs: %d entries, want %d (one per joint action)", len(d.Probs), m.nu)
	}
	out := make([][]float64, len(m.factors))
	for f := range m.factors {
		if m.factors[f].nu > 1 {
			out[f] = make([]float64, m.factors[f].nu)
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

// PowerProbs returns the distribution P(u) ∝ x_u^α over actions for
// non-negative weights x (probabilities or counts): σ(α ln x) computed
// stably. α = 1 returns x normalised (x itself, bit for bit, when it
// already sums to 1 within rounding is not promised: callers that need x
// unchanged skip the call); α = 0 returns the uniform distribution over all
// actions (the limit of σ(α ln x) for positive x); an action with x_u = 0
// gets probability 0 for α > 0. dst is allocated when nil or too short. It
// returns an error when α is negative or not finite, x is empty, a weight
// is negative, NaN or infinite, or no weight is positive.
func PowerProbs(dst, x []float64, alpha float64) ([]float64, error) {
	if math.IsNaN(alpha) || math.IsInf(alpha, 0) || alpha < 0 {
		return nil, fmt.Errorf("pomdp: action precision %v, want finite >= 0", alpha)
	}
	if len(x) == 0 {
		return nil, errors.New("pomdp: PowerProbs: no weights")
	}
	hi := math.Inf(-1)
	for u, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, fmt.Errorf("pomdp: PowerProbs: weight %d: %v, want finite >= 0", u, v)
		}
		if v > 0 {
			hi = math.Max(hi, math.Log(v))
		}
	}
	if math.IsInf(hi, -1) {
		return nil, fmt.Errorf("pomdp: no action has positive weight")
	}
	if cap(dst) < len(x) {
		dst = make([]float64, len(x))
	}
	dst = dst[:len(x)]
	if alpha == 0 {
		for i := range dst {
			dst[i] = 1 / float64(len(x))
		}
		return dst, nil
	}
	z := 0.0
	for i, v := range x {
		if v > 0 {
			dst[i] = math.Exp(alpha * (math.Log(v) - hi))
		} else {
			dst[i] = 0
		}
		z += dst[i]
	}
	for i := range dst {
		dst[i] /= z
	}
	return dst, nil
}

// Sample draws an index from the distribution p by inversion with one
// uniform draw of rng; entries of zero probability are never drawn (the
// last positive entry takes any rounding remainder). It panics if rng is
// nil or no entry of p is positive: p must be a distribution (PowerProbs
// makes one), a programming error otherwise.
func Sample(rng *rand.Rand, p []float64) int {
	if rng == nil {
		panic("pomdp: Sample: nil rng")
	}
	x := rng.Float64()
	last := -1
	for u, q := range p {
		if !(q > 0) {
			continue
		}
		last = u
		if x < q {
			return u
		}
		x -= q
	}
	if last < 0 {
		panic(fmt.Sprintf("pomdp: Sample: no positive entry in p (%d entries)", len(p)))
	}
	return last
}

// StepRand returns the random stream of one step of one trial: what an
// agent's Decide draws from at step step (the observation index t) of trial
// trial of agent agent in a run with seed seed (agent and trial from 0).
// RunEpisode and Replay both use it, so that replaying a run's record with
// the same settings and seed repeats every decision of the run, and the
// stream of a step does not depend on how many draws earlier steps made.
// Agent 0's trial i draws from seed + i: a run with --seed k repeats seed k
// of a table of single-trial runs.
func StepRand(seed uint64, agent, trial, step int) *rand.Rand {
	return rand.New(rand.NewPCG(seed+uint64(trial), mix64(uint64(agent)<<32^uint64(step)^0x243f6a8885a308d3)))
}

// WorldRand returns the random stream of the true process (a Process) in
// unit index of a batch with seed seed (RunAgents: agent-major, Unit.Index):
// PCG(seed + index, 0xe1), separate from the agent's decisions, so that
// the world a trial meets does not depend on how the agent draws.
func WorldRand(seed uint64, index int) *rand.Rand {
	return rand.New(rand.NewPCG(seed+uint64(index), 0xe1))
}

// mix64 is the SplitMix64 finaliser: distinct inputs give well-spread,
// distinct outputs (it is a bijection).
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
