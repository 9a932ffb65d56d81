package pomdp

import (
	"errors"
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

// GrowMixed is Grow for an action that is not known: the action taken at
// the present step is distributed as probs (over joint actions,
// Model.NumActions entries, a distribution: finite, non-negative, summing
// to 1 within Tolerance; it is renormalised), for instance the agent's own
// action distribution when a participant's recorded response is missing.
// The past carries its belief forward under that mixture, and the next
// observation tells it, in turn, which action was likely taken.
//
// PastFilter is exact: the predicted joint is Σ_u probs[u] T_u(s' | s)
// α_t(s), T_u the joint transition of joint action u (the factors' B under
// its controls, DecodeAction), and CarryOver learns b from the pairwise
// posterior of the step weighted by the posterior of the action,
// P(s_t, u_t, s_(t+1) | every observation) ∝ α_t(s_t) probs[u_t]
// T_u(s_(t+1) | s_t) P(o_(t+1) | s_(t+1)) β_(t+1)(s_(t+1)).
//
// PastVMP makes U_t of every factor with more than one control a hidden
// variable with the prior Cat(probs_f), probs_f the marginal of probs over
// that factor's controls, whose posterior Q(U_t) VMP infers with the rest
// (starting from the prior); a factor without controls gets the observed
// U_t = 0, as Grow gives it. This is mean field over the factors'
// controls: exact in the prior when at most one factor is controllable
// (or probs is a product of per-factor distributions), otherwise it keeps
// only the marginals of probs and forgets how the controls of different
// factors go together. A window folds a step with a hidden U_t as any
// other, through Q(U_t).
//
// Errors name probs (its length, an entry that is NaN, infinite or
// negative, or its sum); an observation that the model cannot explain is
// an error wrapping ErrImpossibleObservation, and the past stays as it
// was.
func (p *Past) GrowMixed(probs []float64, obs int) error {
	m := p.m
	if !p.started {
		return errors.New("pomdp: GrowMixed before Reset")
	}
	q, err := checkActionProbs(probs, m.nu)
	if err != nil {
		return apiError(err)
	}
	if obs < 0 || obs >= m.no {
		return fmt.Errorf("pomdp: GrowMixed: observation %d out of range [0, %d)", obs, m.no)
	}
	return apiError(p.grow(-1, q, obs))
}

// checkActionProbs validates a distribution over the nu joint actions and
// returns a normalised copy.
func checkActionProbs(probs []float64, nu int) ([]float64, error) {
	if len(probs) != nu {
		return nil, fmt.Errorf("pomdp: GrowMixed: probs: %d entries, want %d (one per joint action)", len(probs), nu)
	}
	sum := 0.0
	for u, v := range probs {
		switch {
		case math.IsNaN(v):
			return nil, fmt.Errorf("pomdp: GrowMixed: probs[%d]: NaN", u)
		case math.IsInf(v, 0):
			return nil, fmt.Errorf("pomdp: GrowMixed: probs[%d]: %v, want finite", u, v)
		case v < 0:
			return nil, fmt.Errorf("pomdp: GrowMixed: probs[%d]: negative probability %v", u, v)
		}
		sum += v
	}
	if math.Abs(sum-1) > Tolerance {
		return nil, fmt.Errorf("pomdp: GrowMixed: probs: not a distribution: sums to %.10g, want 1 (tolerance %s)", sum, toleranceText)
	}
	q := make([]float64, nu)
	for u, v := range probs {
		q[u] = v / sum
	}
	return q, nil
}

// controlMarginal is the marginal of the joint-action distribution probs
// over the controls of factor fi.
func (m *Model) controlMarginal(probs []float64, fi int) []float64 {
	f := &m.factors[fi]
	out := make([]float64, f.nu)
	for u, w := range probs {
		out[(u/f.stride)%f.nu] += w
	}
	return out
}

// hiddenControl makes u, the U_t of factor fi, hidden with the prior
// Cat(probs_fi) (GrowMixed), and starts its posterior at that prior.
func (p *Past) hiddenControl(u *ffg.Variable, probs []float64, fi int) error {
	marg := p.m.controlMarginal(probs, fi)
	c, err := nodes.NewCategorical(marg)
	if err != nil {
		return fmt.Errorf("pomdp: GrowMixed: %s%w", p.m.factorPrefix(fi), err)
	}
	fn, err := p.g.AddFactor("", c, u)
	if err != nil {
		return err
	}
	fn.Label = p.paperLetter("P(U)", p.m.factors[fi].name)
	return u.SetProbs(marg)
}

// predictMixed sets dst(j') = Σ_u probs[u] Σ_j T_u(j' | j) src(j).
func (p *Past) predictMixed(dst, src, probs []float64) {
	one := make([]float64, len(dst))
	clear(dst)
	for u, w := range probs {
		if w == 0 {
			continue
		}
		p.predict(one, src, u)
		for j, v := range one {
			dst[j] += w * v
		}
	}
}

// backwardMixed sets dst(j) = Σ_u probs[u] Σ_j' T_u(j' | j) x(j').
func (p *Past) backwardMixed(dst, x, probs []float64) {
	one := make([]float64, len(dst))
	clear(dst)
	for u, w := range probs {
		if w == 0 {
			continue
		}
		p.backward(one, x, u)
		for j, v := range one {
			dst[j] += w * v
		}
	}
}

// addTransitionCountsMixed is addTransitionCounts for a step of GrowMixed:
// it adds to every b of dst the posterior of (s_f,t+1, s_f,t, u_f,t),
// marginal of
//
//	ξ(j', j, u) ∝ prev(j) probs[u] T_u(j' | j) lik(j').
func (p *Past) addTransitionCountsMixed(dst conc, prev, lik, probs []float64) {
	fl, m := p.fl, p.m
	counts := make([][]float64, len(m.factors)) // [next][prev][u] per factor
	for fi := range m.factors {
		if dst.b[fi] != nil {
			counts[fi] = make([]float64, len(dst.b[fi]))
		}
	}
	z := 0.0
	var ctrl []int
	for u, w := range probs {
		if w == 0 {
			continue
		}
		ctrl = m.DecodeAction(ctrl, u)
		for jp, a := range prev {
			if a == 0 {
				continue
			}
			for jn, l := range lik {
				if l == 0 {
					continue
				}
				v := a * w * l
				for fi := range m.factors {
					f := &m.factors[fi]
					v *= fl.b[fi][(ctrl[fi]*f.ns+fl.digits[fi][jn])*f.ns+fl.digits[fi][jp]]
				}
				if v == 0 {
					continue
				}
				z += v
				for fi, c := range counts {
					if c != nil {
						f := &m.factors[fi]
						c[(fl.digits[fi][jn]*f.ns+fl.digits[fi][jp])*f.nu+ctrl[fi]] += v
					}
				}
			}
		}
	}
	if !(z > 0) {
		return
	}
	for fi, c := range counts {
		for k, v := range c {
			dst.b[fi][k] += v / z
		}
	}
}
