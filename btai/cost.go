package btai

import "math"

// cost evaluates a newly expanded node from Q(S_I) and Q(O_I) with the
// configured criterion (paper section 6.3.3):
//
//	classic: KL[Q(O_I) || V(O)] + sum_s Q(s) H[Ā(.|s)]
//	pcost:   KL[Q(S_I) || V(S)] + KL[Q(O_I) || V(O)]
//	feef:    KL[Q(O_I, S_I) || V(O) V(S)], Q(o, s) = Ā(o|s) Q(s), i.e.
//	         -sum_s Q(s) H[Ā(.|s)] - H[Q(S)] - sum_o (Ā Q)(o) ln V(o) - sum_s Q(s) ln V(s)
//
// V(O) is C and V(S) is C_states (uniform when the model has none). With
// Options.Novelty, NoveltyScale × novelty(Q(S_I)) is subtracted.
func (a *Agent) cost(sc *scratch, qs, qo []float64) float64 {
	g := a.baseCost(sc, qs, qo)
	if a.opts.Novelty {
		g -= *a.opts.NoveltyScale * a.novelty(sc, qs)
	}
	return g
}

// novelty returns the expected information gain about A of a node with
// state posterior qs, in the form SPM uses (spm_MDP_VB_X, spm_wnorm) and
// Smith, Friston & Whyte (2022, J. Math. Psychol. 107) write out:
//
//	novelty = Σ_o (Ā qs)(o) (W qs)(o),  W[o, s] = ½ (1/a[o, s] - 1/a_0[s]),
//
// a being the concentrations the agent has learned and a_0[s] = Σ_o a[o, s]
// (W = 0 where a = 0). For one state known for sure, it is ½ Σ_o Ā(o|s)
// (1/a[o, s] - 1/a_0[s]) = ½ (|O'| - 1)/a_0[s] when Ā(·|s) = a[·, s]/a_0[s]
// and |O'| observations have a > 0: a bonus that shrinks as the state is
// seen more often.
func (a *Agent) novelty(sc *scratch, qs []float64) float64 {
	a.predictObs(sc.qf, qs)
	mulT(sc.qw, a.wT, qs)
	n := 0.0
	for o, p := range sc.qf {
		n += p * sc.qw[o]
	}
	return n
}

func (a *Agent) baseCost(sc *scratch, qs, qo []float64) float64 {
	if a.fact != nil {
		return a.costFactorised(qs, qo)
	}
	switch a.opts.Cost {
	case PCost:
		return kl(qs, a.logCS) + kl(qo, a.logC)
	case FEEF:
		g := 0.0
		for s, q := range qs {
			if q > 0 {
				g += q * (math.Log(q) - a.hA[s] - a.logCS[s])
			}
		}
		a.predictObs(sc.qf, qs)
		for o, q := range sc.qf {
			if q > 0 {
				g -= q * a.logC[o]
			}
		}
		return g
	default:
		g := kl(qo, a.logC)
		for s, q := range qs {
			g += q * a.hA[s]
		}
		return g
	}
}

// kl returns KL[q || p] given ln p, with 0 ln 0 = 0 (and +Inf where q > 0
// and p = 0).
func kl(q, logp []float64) float64 {
	d := 0.0
	for i, x := range q {
		if x > 0 {
			d += x * (math.Log(x) - logp[i])
		}
	}
	return d
}
