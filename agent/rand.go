package agent

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

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
		return nil, fmt.Errorf("agent: action precision %v, want finite >= 0", alpha)
	}
	if len(x) == 0 {
		return nil, errors.New("agent: PowerProbs: no weights")
	}
	hi := math.Inf(-1)
	for u, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, fmt.Errorf("agent: PowerProbs: weight %d: %v, want finite >= 0", u, v)
		}
		if v > 0 {
			hi = math.Max(hi, math.Log(v))
		}
	}
	if math.IsInf(hi, -1) {
		return nil, fmt.Errorf("agent: no action has positive weight")
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

// PowerLogs writes ln x_u of the weights x of PowerProbs into dst (reused
// when its capacity suffices; -Inf for a weight 0) and returns it with
// their largest, hi: what PowerProbsLogs needs to apply PowerProbs to x
// at many α. x must be valid weights for PowerProbs.
func PowerLogs(dst, x []float64) (logs []float64, hi float64) {
	hi = math.Inf(-1)
	dst = dst[:0]
	for _, v := range x {
		l := math.Inf(-1)
		if v > 0 {
			l = math.Log(v)
			hi = math.Max(hi, l)
		}
		dst = append(dst, l)
	}
	return dst, hi
}

// PowerProbsLogs is PowerProbs(dst, x, alpha), bit for bit, from the
// logs and hi of PowerLogs(x): the same exp(α (ln x_u - hi)), sum and
// division, without the logs. alpha must be finite and >= 0 (it is not
// checked); dst is allocated when too short.
func PowerProbsLogs(dst, logs []float64, hi, alpha float64) []float64 {
	if cap(dst) < len(logs) {
		dst = make([]float64, len(logs))
	}
	dst = dst[:len(logs)]
	if alpha == 0 {
		for i := range dst {
			dst[i] = 1 / float64(len(logs))
		}
		return dst
	}
	z := 0.0
	for i, l := range logs {
		if math.IsInf(l, -1) {
			dst[i] = 0
		} else {
			dst[i] = math.Exp(alpha * (l - hi))
		}
		z += dst[i]
	}
	for i := range dst {
		dst[i] /= z
	}
	return dst
}

// Sample draws an index from the distribution p by inversion with one
// uniform draw of rng; entries of zero probability are never drawn (the
// last positive entry takes any rounding remainder). It panics if rng is
// nil or no entry of p is positive: p must be a distribution (PowerProbs
// makes one), a programming error otherwise.
func Sample(rng *rand.Rand, p []float64) int {
	if rng == nil {
		panic("agent: Sample: nil rng")
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
		panic(fmt.Sprintf("agent: Sample: no positive entry in p (%d entries)", len(p)))
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
	return rand.New(rand.NewPCG(stepSeeds(seed, agent, trial, step)))
}

// stepSeeds returns the two seeds of StepRand's PCG.
func stepSeeds(seed uint64, agent, trial, step int) (uint64, uint64) {
	return seed + uint64(trial), mix64(uint64(agent)<<32 ^ uint64(step) ^ 0x243f6a8885a308d3)
}

// WorldRand returns the random stream of the true process (a
// pomdp.Process) in unit index of a batch with seed seed (RunAgents:
// agent-major, Unit.Index): PCG(seed + index, 0xe1), separate from the
// agent's decisions, so that the world a trial meets does not depend on
// how the agent draws.
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
