package pomdp

import (
	"errors"
	"fmt"
	"math"
)

// Check returns an error for a nil model or one not built by New, Parse or
// Load (the zero value).
func Check(m *Model) error {
	if m == nil || !m.valid {
		return errors.New("model: nil or not built by pomdp.New, Parse or Load")
	}
	return nil
}

// CheckBelief validates a state belief qs (a distribution over |S| states),
// naming field in the error.
func CheckBelief(m *Model, field string, qs []float64) error {
	if len(qs) != m.ns {
		return fmt.Errorf("%s: %d entries, want %d (number of states)", field, len(qs), m.ns)
	}
	sum := 0.0
	for s, v := range qs {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("%s[%d]: %v, want a finite probability", field, s, v)
		}
		sum += v
	}
	if math.Abs(sum-1) > Tolerance {
		return fmt.Errorf("%s: not a distribution: sums to %.10g, want 1 (tolerance %s)", field, sum, toleranceText)
	}
	return nil
}

// Risk returns the risk term of the expected free energy for one step,
// KL[Q(o|pi) || C] with Q(o|pi) = A qs (paper eq. 9, docs/cli.md), where
// qs = Q(s_tau|pi). Terms with Q(o) = 0 contribute 0; Q(o) > 0 with C[o] = 0
// gives +Inf. Risk does not allocate. It panics if len(qs) != m.NumStates().
func Risk(m *Model, qs []float64) float64 {
	if len(qs) != m.ns {
		panic(fmt.Sprintf("pomdp: Risk: len(qs) = %d, want %d", len(qs), m.ns))
	}
	risk, _, _ := StepCost(m, qs, nil)
	return risk
}

// Ambiguity returns the ambiguity term of the expected free energy for one
// step, E_{Q(s|pi)} H[A(.|s)] = sum_s qs[s] H[A(.|s)] (paper eq. 9), with
// 0 ln 0 = 0. It does not allocate and panics if len(qs) != m.NumStates().
func Ambiguity(m *Model, qs []float64) float64 {
	if len(qs) != m.ns {
		panic(fmt.Sprintf("pomdp: Ambiguity: len(qs) = %d, want %d", len(qs), m.ns))
	}
	amb := 0.0
	for s, h := range m.hA {
		amb += qs[s] * h
	}
	return amb
}

// Novelty returns the parameter information gain about A for one step (see
// EFEOptions.Novelty for the formula and its source), or 0 when the model has
// no concentrations a. It does not allocate and panics if len(qs) !=
// m.NumStates().
func Novelty(m *Model, qs []float64) float64 {
	if len(qs) != m.ns {
		panic(fmt.Sprintf("pomdp: Novelty: len(qs) = %d, want %d", len(qs), m.ns))
	}
	if m.wA == nil {
		return 0
	}
	_, _, nov := StepCost(m, qs, m.wA)
	return nov
}

// StepCost computes the risk, ambiguity and (when w != nil) novelty of one
// step with state belief qs in a single pass over A, w being the novelty
// weights (NoveltyWeights). It is the policy search's kernel and the one
// implementation behind Risk and Novelty: no allocation. qs must have
// NumStates entries.
func StepCost(m *Model, qs []float64, w []float64) (risk, amb, nov float64) {
	ns := m.ns
	qs = qs[:ns]
	for o := range m.no {
		row := m.a[o*ns : (o+1)*ns]
		qo := 0.0
		for s, p := range row {
			qo += p * qs[s]
		}
		if qo > 0 {
			risk += qo * (math.Log(qo) - m.logC[o])
		}
		if w != nil {
			wrow := w[o*ns : (o+1)*ns]
			wq := 0.0
			for s, x := range wrow {
				wq += x * qs[s]
			}
			nov += qo * wq
		}
	}
	for s, h := range m.hA[:ns] {
		amb += qs[s] * h
	}
	return risk, amb, nov
}

// Propagate sets next = B_u prev, i.e. Q(s_tau|pi) = B_{pi_tau}
// Q(s_{tau-1}|pi). next and prev have NumStates entries; u is an action.
func Propagate(m *Model, next, prev []float64, u int) {
	ns := m.ns
	bu := m.b[u*ns*ns : (u+1)*ns*ns]
	prev = prev[:ns]
	for i := range next[:ns] {
		row := bu[i*ns : (i+1)*ns]
		v := 0.0
		for j, p := range row {
			v += p * prev[j]
		}
		next[i] = v
	}
}

// NoveltyWeights returns the weights W[o*ns+s] = ½ (1/a[o,s] - 1/a_0[s])
// of the novelty term for the model's concentrations a (W = 0 where a = 0),
// or nil when the model has none. The slice must not be modified.
func (m *Model) NoveltyWeights() []float64 { return m.wA }

// StatePosterior returns the exact posterior over the current state after
// the single observation obs: q_s = softmax(ln D + ln A[obs,:]), with
// ln 0 = -Inf so that states with D[s] A[obs,s] = 0 get probability 0. It
// returns an error when obs is out of range or has probability 0 under the
// model. dst is allocated when nil or too short.
func StatePosterior(dst []float64, m *Model, obs int) ([]float64, error) {
	if err := Check(m); err != nil {
		return nil, err
	}
	if obs < 0 || obs >= m.NumObs() {
		return nil, fmt.Errorf("observation %d: out of range [0, %d) (number of observations)", obs, m.NumObs())
	}
	ns := m.NumStates()
	if cap(dst) < ns {
		dst = make([]float64, ns)
	}
	dst = dst[:ns]
	mx := math.Inf(-1)
	for s := range ns {
		dst[s] = m.logD[s] + m.logA[obs*ns+s]
		mx = math.Max(mx, dst[s])
	}
	if math.IsInf(mx, -1) {
		return nil, fmt.Errorf("observation %d: probability 0 under D and A", obs)
	}
	sum := 0.0
	for s, x := range dst {
		dst[s] = math.Exp(x - mx)
		sum += dst[s]
	}
	for s := range dst {
		dst[s] /= sum
	}
	return dst, nil
}
