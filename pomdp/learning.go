package pomdp

import (
	"fmt"
	"math"
)

// Concentrations are the Dirichlet concentrations of a model's learned
// parameters, per modality and per factor, in the layouts of the model file
// (docs/formats.md), flattened row-major:
//
//	A[m][((o·|S_f1| + s_1)·|S_f2| + s_2)...]  = a[o][s_1][s_2]... of modality m,
//	                                            over the factors f1, f2, ...
//	                                            of its depends_on, in that order
//	B[f][(u·|S_f| + next)·|S_f| + prev]       = b[u][next][prev] of factor f,
//	                                            u one of its controls
//	D[f][s]                                   = d[s] of factor f
//
// A has one entry per modality and B and D one per factor, in the model's
// order; an entry is nil where that parameter is not learned (the model
// gives no concentrations for it). For a single-factor model (New) A[0],
// B[0] and D[0] have the layouts of Spec's ConcA, ConcB and ConcD.
type Concentrations struct {
	A [][]float64 // per modality
	B [][]float64 // per factor
	D [][]float64 // per factor
}

// Clone returns a deep copy of c (nil entries stay nil).
func (c Concentrations) Clone() Concentrations {
	return Concentrations{A: cloneAll(c.A), B: cloneAll(c.B), D: cloneAll(c.D)}
}

// Learned reports whether c holds concentrations for any parameter.
func (c Concentrations) Learned() bool {
	for _, xs := range [][][]float64{c.A, c.B, c.D} {
		for _, x := range xs {
			if x != nil {
				return true
			}
		}
	}
	return false
}

// copyConc returns a copy of c in dst's lists and slices, reused where
// their lengths fit: clone's numbers, without its allocations once dst
// has held a copy.
func copyConc(dst, c conc) conc {
	return conc{a: copyAll(dst.a, c.a), b: copyAll(dst.b, c.b), d: copyAll(dst.d, c.d)}
}

// copyAll is cloneAll into dst (see copyConc).
func copyAll(dst, xs [][]float64) [][]float64 {
	if xs == nil {
		return nil
	}
	if len(dst) != len(xs) {
		dst = make([][]float64, len(xs))
	}
	for i, x := range xs {
		if x == nil {
			dst[i] = nil
			continue
		}
		if len(dst[i]) != len(x) {
			dst[i] = make([]float64, len(x))
		}
		copy(dst[i], x)
	}
	return dst
}

func cloneAll(xs [][]float64) [][]float64 {
	if xs == nil {
		return nil
	}
	out := make([][]float64, len(xs))
	for i, x := range xs {
		out[i] = clone(x)
	}
	return out
}

// Concentrations returns the prior concentrations of every learned
// parameter (copies; see Concentrations for the layouts): those the current
// trial started from, and after CarryOver the learned ones the next trial
// starts from. Within a trial with a window (NewPast), the mean-field past
// folds the expected counts of the steps it drops into its priors (Grow),
// and they are part of what this returns; exact filtering (PastFilter)
// leaves the priors alone until CarryOver. Priors returns the first
// modality's and factor's of these.
func (p *Past) Concentrations() Concentrations {
	return p.export(p.priorConc())
}

// Posteriors returns the Dirichlet posteriors of the current trial's
// learned parameters (copies, in the layouts of Concentrations). With
// PastVMP they are the concentrations of the graph's Dirichlet variables as
// the last Infer left them: the priors plus the expected counts of every
// step of the trial, folded ones included. PastFilter learns only at
// CarryOver; Posteriors computes what it would learn on each call: the
// priors plus the expected counts under the smoothed (forward-backward)
// posteriors of the steps so far (Infer need not run first). After
// CarryOver both return the posteriors of the trial it ended, until the
// next Reset; with η = ω = 1 (SetLearning) they equal Concentrations.
// Before the first Reset they are the priors.
func (p *Past) Posteriors() Concentrations {
	switch {
	case !p.started || p.ff != nil:
		return p.Concentrations()
	case p.fl != nil:
		return p.export(p.filterPosteriors())
	}
	return p.export(p.vmpPosteriors())
}

// Learning configures how CarryOver turns a trial into the next trial's
// prior concentrations:
//
//	c' = ω c + η Δc
//
// with c the concentrations the trial started from (at Reset), Δc its
// expected counts (CarryOver; the steps folded out of a window included), η
// the learning rate Rate and ω the retention Forgetting. A nil field stands
// for 1, so the zero Learning is the default η = ω = 1, plain Bayesian
// accumulation c' = c + Δc. η and ω act only between trials: within a trial
// the posteriors (Posteriors) accumulate the counts in full (ExpectedModel,
// what the agents plan with, uses the VMP posteriors under PastVMP and the
// priors the trial started from under PastFilter, which learns at
// CarryOver).
type Learning struct {
	// Rate is the learning rate η, finite and >= 0: SPM's eta, pymdp's
	// lr_pA, lr_pB and lr_pD. Δc counts η times; η = 0 learns nothing
	// (c' = ω c).
	Rate *float64
	// Forgetting is ω, in (0, 1]: SPM's omega, which SPM calls a
	// forgetting rate although it is a retention factor: 1 forgets
	// nothing, and ω < 1 shrinks the old concentrations toward 0 before
	// the new counts are added, so that recent trials weigh more (an entry
	// that gains no counts decays as ωⁿ over n trials). arbor applies it
	// once per trial, at the trial's end. SPM's tutorial scheme
	// (spm_MDP_VB_X_tutorial.m of Smith, Friston and Whyte 2022) computes
	// c ← ω c + η Δc_τ once per time step τ of its learning loop for a and
	// b (so ω^T per trial of T steps for a), once per trial for d; its
	// 2024 revision instead decays toward a baseline c_0 that the model
	// supplies (MDP.a_0 and so on), c ← (c - c_0)(1 - ω) + c_0 + η Δc_τ,
	// so that there ω = 0 forgets nothing.
	Forgetting *float64
}

// Values returns η and ω, 1 for a nil field.
func (l Learning) Values() (eta, omega float64) {
	eta, omega = 1, 1
	if l.Rate != nil {
		eta = *l.Rate
	}
	if l.Forgetting != nil {
		omega = *l.Forgetting
	}
	return eta, omega
}

// Validate checks η and ω: errors name the field and the bound, e.g.
// "pomdp: Learning.Forgetting: 0, want 0 < ω <= 1".
func (l Learning) Validate() error {
	eta, omega := l.Values()
	if math.IsNaN(eta) || math.IsInf(eta, 0) || eta < 0 {
		return fmt.Errorf("pomdp: Learning.Rate: %v, want a finite η >= 0", eta)
	}
	if math.IsNaN(omega) || !(omega > 0 && omega <= 1) {
		return fmt.Errorf("pomdp: Learning.Forgetting: %v, want 0 < ω <= 1", omega)
	}
	return nil
}

// SetLearning sets the learning rate η and the forgetting ω that CarryOver
// applies (Learning); a new Past has η = ω = 1. It may be called at any
// time and takes effect at the next CarryOver. Invalid values are an error
// (Learning.Validate) and leave the setting as it was.
func (p *Past) SetLearning(l Learning) error {
	if err := l.Validate(); err != nil {
		return apiError(err)
	}
	p.eta, p.omega = l.Values()
	return nil
}

// LearningRates returns the η and ω of SetLearning.
func (p *Past) LearningRates() (eta, omega float64) { return p.eta, p.omega }

// conc holds concentrations in the past's own layouts (b as
// [next][prev][u], the graph's): per modality a, per factor b and d, nil
// where not learned.
type conc struct{ a, b, d [][]float64 }

func (c conc) lists() [3][][]float64 { return [3][][]float64{c.a, c.b, c.d} }

func (c conc) clone() conc { return conc{a: cloneAll(c.a), b: cloneAll(c.b), d: cloneAll(c.d)} }

// priorConc returns the prior concentrations (the past's own slices, in
// lists the past keeps: valid until the next call).
func (p *Past) priorConc() conc {
	c := p.prior
	if len(c.a) != len(p.mods) || len(c.b) != len(p.facs) {
		c = conc{a: make([][]float64, len(p.mods)), b: make([][]float64, len(p.facs)), d: make([][]float64, len(p.facs))}
		p.prior = c
	}
	for i := range p.mods {
		c.a[i] = p.mods[i].aAlpha
	}
	for i := range p.facs {
		c.b[i], c.d[i] = p.facs[i].bAlpha, p.facs[i].dAlpha
	}
	return c
}

// vmpPosteriors returns the concentrations of the graph's Dirichlet
// variables (the variables' own slices), nil for a parameter without one.
func (p *Past) vmpPosteriors() conc {
	c := conc{a: make([][]float64, len(p.mods)), b: make([][]float64, len(p.facs)), d: make([][]float64, len(p.facs))}
	for i := range p.mods {
		if v := p.mods[i].aVar; v != nil {
			c.a[i] = v.Alpha()
		}
	}
	for i := range p.facs {
		if v := p.facs[i].bVar; v != nil {
			c.b[i] = v.Alpha()
		}
		if v := p.facs[i].dVar; v != nil {
			c.d[i] = v.Alpha()
		}
	}
	return c
}

// export copies c into the layouts of Concentrations.
func (p *Past) export(c conc) Concentrations {
	out := Concentrations{A: cloneAll(c.a), B: make([][]float64, len(c.b)), D: cloneAll(c.d)}
	for i, b := range c.b {
		if b != nil {
			f := &p.m.factors[i]
			out.B[i] = FromNPU(b, f.ns, f.nu)
		}
	}
	return out
}

// saveStart keeps the prior concentrations as the trial starts (Reset),
// the c of c' = ω c + η Δc.
func (p *Past) saveStart() {
	pr := p.priorConc()
	if p.start.a == nil {
		p.start = conc{a: make([][]float64, len(pr.a)), b: make([][]float64, len(pr.b)), d: make([][]float64, len(pr.d))}
	}
	for k, xs := range pr.lists() {
		dst := p.start.lists()[k]
		for i, x := range xs {
			if x != nil {
				dst[i] = append(dst[i][:0], x...)
			}
		}
	}
}

// carry makes the trial's posteriors post (in the past's layouts, nil
// where there is none) the next trial's priors: a copy with η = ω = 1 (the
// arithmetic of plain accumulation, untouched), otherwise
// ω c + η (post - c) with c the priors saved at Reset.
func (p *Past) carry(post conc) {
	pr := p.priorConc()
	for k, xs := range pr.lists() {
		posts, starts := post.lists()[k], p.start.lists()[k]
		for i, alpha := range xs {
			q := posts[i]
			if alpha == nil || q == nil {
				continue
			}
			if p.eta == 1 && p.omega == 1 {
				copy(alpha, q)
				continue
			}
			c := starts[i]
			for j := range alpha {
				alpha[j] = p.omega*c[j] + p.eta*(q[j]-c[j])
			}
		}
	}
}
