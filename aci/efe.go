package aci

import (
	"errors"
	"fmt"
	"math"
)

// EFEOptions selects optional terms of the expected free energy. A nil
// *EFEOptions means the defaults: risk + ambiguity only (paper eq. 9).
type EFEOptions struct {
	// Novelty subtracts the expected information gain about the likelihood
	// parameters (the "novelty" of A) from G at every step:
	//
	//	novelty_tau = sum_{o,s} Q(o_tau|pi) W[o,s] Q(s_tau|pi),
	//	W[o,s]      = 1/2 (1/a[o,s] - 1/a0[s]),  a0[s] = sum_o a[o,s],
	//
	// with W = 0 where a[o,s] = 0, so that G = risk + ambiguity - novelty.
	// This is the approximation used in SPM (spm_MDP_VB_X with spm_wnorm,
	// masked by a > 0) and written out in Smith, Friston & Whyte (2022), "A
	// step-by-step tutorial on active inference modelling and its application
	// to empirical data", J. Math. Psychol. 107, eqs. for the novelty term
	// (W = .5*(1./a - 1./a_sum), novelty = (A s)·(W s)). Q(o|pi) = A Q(s|pi)
	// uses the model's A, which is E[A] = a normalised when A is not given.
	// It requires the concentrations a; without them the term is an error.
	Novelty bool
}

func (o *EFEOptions) novelty() bool { return o != nil && o.Novelty }

// checkModel rejects nil and zero-value models.
func checkModel(m *POMDP) error {
	if m == nil || !m.valid {
		return errors.New("model: nil or not built by NewPOMDP/ParsePOMDP")
	}
	return nil
}

// checkBelief validates a state belief qs (a distribution over |S| states).
func checkBelief(m *POMDP, field string, qs []float64) error {
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
func Risk(m *POMDP, qs []float64) float64 {
	if len(qs) != m.ns {
		panic(fmt.Sprintf("aci: Risk: len(qs) = %d, want %d", len(qs), m.ns))
	}
	risk, _, _ := stepCost(m, qs, nil)
	return risk
}

// Ambiguity returns the ambiguity term of the expected free energy for one
// step, E_{Q(s|pi)} H[A(.|s)] = sum_s qs[s] H[A(.|s)] (paper eq. 9), with
// 0 ln 0 = 0. It does not allocate and panics if len(qs) != m.NumStates().
func Ambiguity(m *POMDP, qs []float64) float64 {
	if len(qs) != m.ns {
		panic(fmt.Sprintf("aci: Ambiguity: len(qs) = %d, want %d", len(qs), m.ns))
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
func Novelty(m *POMDP, qs []float64) float64 {
	if len(qs) != m.ns {
		panic(fmt.Sprintf("aci: Novelty: len(qs) = %d, want %d", len(qs), m.ns))
	}
	if m.wA == nil {
		return 0
	}
	_, _, nov := stepCost(m, qs, m.wA)
	return nov
}

// stepCost computes the risk, ambiguity and (when w != nil) novelty of one
// step in a single pass over A. It is the DFS kernel and the one
// implementation behind Risk and Novelty: no allocation.
func stepCost(m *POMDP, qs []float64, w []float64) (risk, amb, nov float64) {
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

// propagate sets next = B_u prev, i.e. Q(s_tau|pi) = B_{pi_tau} Q(s_{tau-1}|pi).
func propagate(m *POMDP, next, prev []float64, u int) {
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

// ExpectedFreeEnergy returns the expected free energy of policy (a sequence
// of actions) from the state belief qs at t = 0 (paper eq. 9, docs/cli.md):
//
//	Q(s_tau|pi) = B_{pi_tau} Q(s_{tau-1}|pi),  Q(s_0|pi) = qs,
//	Q(o_tau|pi) = A Q(s_tau|pi),
//	G = sum_{tau=1..T} KL[Q(o_tau|pi) || C] + E_{Q(s_tau|pi)} H[A(.|s)],
//
// with risk and ambiguity the two sums. With opts.Novelty, G also subtracts
// the novelty term (see EFEOptions), so G = risk + ambiguity - novelty.
// An empty policy has G = 0. Errors report a bad qs, an action out of range,
// or Novelty without concentrations a.
func ExpectedFreeEnergy(m *POMDP, qs []float64, policy []int, opts *EFEOptions) (G, risk, ambiguity float64, err error) {
	if err := checkModel(m); err != nil {
		return 0, 0, 0, err
	}
	if err := checkBelief(m, "qs", qs); err != nil {
		return 0, 0, 0, err
	}
	w, err := noveltyWeights(m, opts)
	if err != nil {
		return 0, 0, 0, err
	}
	for tau, u := range policy {
		if u < 0 || u >= m.nu {
			return 0, 0, 0, fmt.Errorf("policy[%d]: action %d out of range [0, %d)", tau, u, m.nu)
		}
	}
	prev := clone(qs)
	next := make([]float64, m.ns)
	nov := 0.0
	for _, u := range policy {
		propagate(m, next, prev, u)
		r, a, n := stepCost(m, next, w)
		risk += r
		ambiguity += a
		nov += n
		prev, next = next, prev
	}
	return risk + ambiguity - nov, risk, ambiguity, nil
}

func noveltyWeights(m *POMDP, opts *EFEOptions) ([]float64, error) {
	if !opts.novelty() {
		return nil, nil
	}
	if m.wA == nil {
		return nil, errors.New("EFEOptions.Novelty: the model has no concentrations a")
	}
	return m.wA, nil
}
