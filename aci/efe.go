package aci

import (
	"errors"
	"fmt"

	"github.com/arbor-ai/arbor/pomdp"
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
	// Jobs is how many goroutines EvaluatePolicies and TopPolicies score
	// the policies on (0 or 1: the calling goroutine alone). The results
	// are the same for any Jobs (docs/aci.md, "Both cores in one plan").
	Jobs int
}

func (o *EFEOptions) novelty() bool { return o != nil && o.Novelty }

func (o *EFEOptions) jobs() int {
	if o == nil {
		return 1
	}
	return max(1, o.Jobs)
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
func ExpectedFreeEnergy(m *pomdp.Model, qs []float64, policy []int, opts *EFEOptions) (G, risk, ambiguity float64, err error) {
	if err := pomdp.Check(m); err != nil {
		return 0, 0, 0, apiError(err)
	}
	if err := pomdp.CheckBelief(m, "qs", qs); err != nil {
		return 0, 0, 0, apiError(err)
	}
	w, err := noveltyWeights(m, opts)
	if err != nil {
		return 0, 0, 0, apiError(err)
	}
	for tau, u := range policy {
		if u < 0 || u >= m.NumActions() {
			return 0, 0, 0, fmt.Errorf("aci: policy[%d]: action %d out of range [0, %d)", tau, u, m.NumActions())
		}
	}
	prev := append([]float64(nil), qs...)
	next := make([]float64, m.NumStates())
	st := pomdp.NewStepper(m)
	nov := 0.0
	for tau, u := range policy {
		var r, a, n float64
		if tau == len(policy)-1 {
			// The last step as the policy walk scores a leaf.
			r, a, n = st.ChildCost(prev, u, w)
		} else {
			st.Propagate(next, prev, u)
			r, a, n = st.StepCost(next, w)
		}
		risk += r
		ambiguity += a
		nov += n
		prev, next = next, prev
	}
	return risk + ambiguity - nov, risk, ambiguity, nil
}

func noveltyWeights(m *pomdp.Model, opts *EFEOptions) ([]float64, error) {
	if !opts.novelty() {
		return nil, nil
	}
	w := m.NoveltyWeights()
	if w == nil {
		return nil, errors.New("EFEOptions.Novelty: the model has no concentrations a")
	}
	return w, nil
}
