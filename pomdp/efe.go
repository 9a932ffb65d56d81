package pomdp

import (
	"errors"
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/internal/jsonread"
)

// Check returns an error for a nil model or one not built by New,
// NewFactorised, Parse or Load (the zero value).
func Check(m *Model) error {
	if m == nil || !m.valid {
		return apiError(errNoModel)
	}
	return nil
}

// noModel is the fault of a nil or zero model, errNoModel Check's error.
const noModel = "model: nil or not built by pomdp.New, NewFactorised, Parse or Load"

var errNoModel = errors.New("pomdp: " + noModel)

// CheckBelief validates a state belief qs (NumStates() entries: one
// distribution per factor, factor after factor), naming field in the error.
// A nil or invalid model is Check's error.
func CheckBelief(m *Model, field string, qs []float64) error {
	if err := Check(m); err != nil {
		return apiError(err)
	}
	if len(qs) != m.ns {
		if len(m.factors) > 1 {
			return fmt.Errorf("pomdp: %s: %d entries, want %d (the states of every factor)", field, len(qs), m.ns)
		}
		return fmt.Errorf("pomdp: %s: %d entries, want %d (number of states)", field, len(qs), m.ns)
	}
	for _, f := range m.factors {
		sum := 0.0
		for s, v := range qs[f.off : f.off+f.ns] {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("pomdp: %s[%d]: %v, want a finite probability", field, f.off+s, v)
			}
			sum += v
		}
		if math.Abs(sum-1) > Tolerance {
			if len(m.factors) > 1 {
				return fmt.Errorf("pomdp: %s: factor %s: not a distribution: sums to %.10g, want 1 (tolerance %s)", field, jsonread.Quote(f.name), sum, toleranceText)
			}
			return fmt.Errorf("pomdp: %s: not a distribution: sums to %.10g, want 1 (tolerance %s)", field, sum, toleranceText)
		}
	}
	return nil
}

// Risk returns the risk term of the expected free energy for one step,
// KL[Q(o|pi) || C] with Q(o|pi) = A qs (paper eq. 9, docs/cli.md), where
// qs = Q(s_tau|pi). Terms with Q(o) = 0 contribute 0; Q(o) > 0 with C[o] = 0
// gives +Inf. Risk does not allocate. It panics if m is nil or not a valid
// model (Check) or len(qs) != m.NumStates(), with a message such as
// "pomdp: Risk: len(qs) = 1, want 2": programming errors, not faults of data.
func Risk(m *Model, qs []float64) float64 {
	if m == nil || !m.valid || len(qs) != m.ns {
		badBelief("Risk", m, qs)
	}
	risk, _, _ := StepCost(m, qs, nil)
	return risk
}

// Ambiguity returns the ambiguity term of the expected free energy for one
// step, E_{Q(s|pi)} H[A(.|s)] = sum_s qs[s] H[A(.|s)] (paper eq. 9), with
// 0 ln 0 = 0. It does not allocate. It panics as Risk does: if m is nil or
// not a valid model, or len(qs) != m.NumStates().
func Ambiguity(m *Model, qs []float64) float64 {
	if m == nil || !m.valid || len(qs) != m.ns {
		badBelief("Ambiguity", m, qs)
	}
	amb := 0.0
	for i := range m.mods {
		md := &m.mods[i]
		amb += m.expect(md, md.hA, qs)
	}
	return amb
}

// Novelty returns the parameter information gain about A for one step (see
// EFEOptions.Novelty for the formula and its source), or 0 when the model has
// no concentrations a. It does not allocate. It panics as Risk does: if m is
// nil or not a valid model, or len(qs) != m.NumStates().
func Novelty(m *Model, qs []float64) float64 {
	if m == nil || !m.valid || len(qs) != m.ns {
		badBelief("Novelty", m, qs)
	}
	w := m.noveltyWeights()
	if w == nil {
		return 0
	}
	_, _, nov := StepCost(m, qs, w)
	return nov
}

// StepCost computes the risk, ambiguity and (when w != nil) novelty of one
// step with state belief qs in a single pass over every modality's A, w
// being the novelty weights (NoveltyWeights). With several factors the
// belief is the product of the factors' marginals, and the terms are summed
// over the modalities (docs/pomdp.md): the work is Σ_m |O_m| Π_(f in
// deps(m)) |S_f|, never the size of the joint state space. A joint
// preference's risk is KL[Π_(m in P) Q(o_m) ‖ C_P] (ObsRisk). It is the policy
// search's kernel and the one implementation behind Risk and Novelty: no
// allocation. It panics as Risk does (m nil or not a valid model, len(qs) !=
// m.NumStates()), and if w is neither nil nor of the length of
// m.NoveltyWeights().
func StepCost(m *Model, qs []float64, w []float64) (risk, amb, nov float64) {
	if !m.stepArgs(qs, w) {
		badStep("StepCost", m, qs, w)
	}
	if len(m.prefs) > 0 {
		return m.prefStepCost(qs, w)
	}
	for i := range m.mods {
		md := &m.mods[i]
		var wm []float64
		if w != nil {
			wm = w[md.wOff : md.wOff+md.no*md.size]
		}
		r, a, n := m.stepCost(md, qs, wm)
		risk += r
		amb += a
		nov += n
	}
	return risk, amb, nov
}

// stepArgs reports whether m is a valid model, qs has m.NumStates()
// entries and w is nil or of the length of m.NoveltyWeights(): what every
// step-cost kernel checks, calling badStep when it is not so.
func (m *Model) stepArgs(qs, w []float64) bool {
	return m != nil && m.valid && len(qs) == m.ns && (w == nil || len(w) == m.wLen)
}

// badStep panics for a step-cost kernel fn given arguments stepArgs
// refuses, as StepCost documents.
//
//go:noinline
func badStep(fn string, m *Model, qs, w []float64) {
	if m == nil || !m.valid || len(qs) != m.ns {
		badBelief(fn, m, qs)
	}
	badLen(fn, "w", len(w), m.wLen)
}

// badBelief panics for a kernel fn given a model that is nil or not valid,
// or a belief qs of the wrong length. It is kept out of line so that the
// kernels stay small.
//
//go:noinline
func badBelief(fn string, m *Model, qs []float64) {
	if Check(m) != nil {
		panic("pomdp: " + fn + ": " + noModel)
	}
	badLen(fn, "qs", len(qs), m.ns)
}

// badLen panics for a kernel fn given a slice x of n entries where it
// wants want.
//
//go:noinline
func badLen(fn, x string, n, want int) {
	panic(fmt.Sprintf("pomdp: %s: len(%s) = %d, want %d", fn, x, n, want))
}

// stepCost is StepCost for one modality.
func (m *Model) stepCost(md *modality, qs, w []float64) (risk, amb, nov float64) {
	ns := md.size
	for o := range md.no {
		row := md.a[o*ns : (o+1)*ns]
		qo := m.expect(md, row, qs)
		if qo > 0 {
			risk += qo * (math.Log(qo) - md.logC[o])
		}
		if w != nil {
			nov += qo * m.expect(md, w[o*ns:(o+1)*ns], qs)
		}
	}
	amb = m.expect(md, md.hA, qs)
	return risk, amb, nov
}

// expect returns Σ_j x[j] Π_k q_(f_k)(j_k), the expectation of x (a
// function of the modality's factors, row-major over its axes) under the
// product of the factors' marginals in qs. With one factor it is the dot
// product of x with that factor's marginal. It does not allocate.
func (m *Model) expect(md *modality, x, qs []float64) float64 {
	if len(md.deps) == 1 {
		f := &m.factors[md.deps[0]]
		q := qs[f.off : f.off+f.ns]
		v := 0.0
		for s, p := range x[:len(q)] {
			v += p * q[s]
		}
		return v
	}
	// Walk the leading axes as a mixed-radix counter with running products
	// of their probabilities; the last axis is a contiguous dot product.
	k := len(md.deps)
	last := &m.factors[md.deps[k-1]]
	ql := qs[last.off : last.off+last.ns]
	var idx [MaxDependsOn]int
	var pre [MaxDependsOn + 1]float64 // pre[i] = Π_(j<i) q_j(idx[j])
	pre[0] = 1
	for i := range k - 1 {
		f := &m.factors[md.deps[i]]
		pre[i+1] = pre[i] * qs[f.off]
	}
	total := 0.0
	for off := 0; off < len(x); off += last.ns {
		if w := pre[k-1]; w != 0 {
			v := 0.0
			for s, p := range x[off : off+last.ns] {
				v += p * ql[s]
			}
			total += w * v
		}
		// Next combination of the leading axes.
		i := k - 2
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < m.factors[md.deps[i]].ns {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			break
		}
		for j := i; j < k-1; j++ {
			f := &m.factors[md.deps[j]]
			pre[j+1] = pre[j] * qs[f.off+idx[j]]
		}
	}
	return total
}

// Propagate sets next = B_u prev, i.e. Q(s_tau|pi) = B_{pi_tau}
// Q(s_{tau-1}|pi), factor by factor: each factor's marginal is moved by
// the matrix of its control under action u. next and prev have NumStates
// entries. It does not allocate. It panics if m is nil or not a valid model
// (Check), if len(next) or len(prev) != m.NumStates(), or if u is out of
// range [0, m.NumActions()): programming errors, with a message such as
// "pomdp: Propagate: action 7 out of range [0, 2)".
func Propagate(m *Model, next, prev []float64, u int) {
	if m == nil || !m.valid || len(prev) != m.ns {
		badBelief("Propagate", m, prev)
	}
	if len(next) != m.ns {
		badLen("Propagate", "next", len(next), m.ns)
	}
	if uint(u) >= uint(m.nu) {
		badIndex("Propagate", "action", u, m.nu)
	}
	for i := range m.factors {
		f := &m.factors[i]
		ns := f.ns
		c := (u / f.stride) % f.nu
		bu := f.b[c*ns*ns : (c+1)*ns*ns]
		pv := prev[f.off : f.off+ns]
		nx := next[f.off : f.off+ns]
		for i := range nx {
			row := bu[i*ns : (i+1)*ns]
			v := 0.0
			for j, p := range row {
				v += p * pv[j]
			}
			nx[i] = v
		}
	}
}

// badIndex panics for fn given index i of what out of range [0, n).
//
//go:noinline
func badIndex(fn, what string, i, n int) {
	panic(fmt.Sprintf("pomdp: %s: %s %d out of range [0, %d)", fn, what, i, n))
}

// NoveltyWeights returns the weights W[o*ns+s] = ½ (1/a[o,s] - 1/a_0[s])
// of the novelty term for the model's concentrations a (W = 0 where a = 0),
// or nil when the model has none. The slice must not be modified. They are
// computed at the first call (reading a model does not hold them), once,
// safely for concurrent use.
func (m *Model) NoveltyWeights() []float64 { return m.noveltyWeights() }

// MaxJointStates is the largest Π_f |S_f| for which StatePosterior sums
// over the joint states of a model with several factors; beyond it, it
// computes the mean-field fixed point.
const MaxJointStates = 1 << 16

// StatePosterior returns the exact posterior over the current state after
// the single observation obs: q_s = softmax(ln D + ln A[obs,:]), with
// ln 0 = -Inf so that states with D[s] A[obs,s] = 0 get probability 0. With
// several factors it returns the marginal of each factor under
// P(s) ∝ Π_f D_f(s_f) Π_m A_m(o_m | s_deps(m)): exact, summed over the
// joint states, when there are at most MaxJointStates of them; otherwise
// the mean-field fixed point Q(s) = Π_f Q(s_f) that SPM and pymdp compute
// (exact too when every modality depends on one factor), with A floored at
// LogFloor as in Past. It returns an error when obs is out of range or has
// probability 0 under the model (beyond MaxJointStates: when some modality
// cannot emit its outcome at all). dst is allocated when nil or too short.
func StatePosterior(dst []float64, m *Model, obs int) ([]float64, error) {
	if err := Check(m); err != nil {
		return nil, apiError(err)
	}
	if obs < 0 || obs >= m.NumObs() {
		return nil, fmt.Errorf("pomdp: observation %d: out of range [0, %d) (number of observations)", obs, m.NumObs())
	}
	ns := m.NumStates()
	if cap(dst) < ns {
		dst = make([]float64, ns)
	}
	dst = dst[:ns]
	if len(m.factors) > 1 || len(m.mods) > 1 {
		return apiResult(m.jointPosterior(dst, obs))
	}
	mx := math.Inf(-1)
	logA := m.logA()[0]
	for s := range ns {
		dst[s] = m.logD[s] + logA[obs*ns+s]
		mx = math.Max(mx, dst[s])
	}
	if math.IsInf(mx, -1) {
		return nil, fmt.Errorf("pomdp: observation %d: probability 0 under D and A", obs)
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

// jointPosterior is StatePosterior for a factorised model: two passes over
// the joint states (the largest log-probability, then the marginals).
func (m *Model) jointPosterior(dst []float64, obs int) ([]float64, error) {
	joint := 1.0
	for _, f := range m.factors {
		joint *= float64(f.ns)
	}
	outcomes := m.DecodeObs(nil, obs)
	if joint > MaxJointStates {
		return m.meanFieldPosterior(dst, obs, outcomes)
	}
	idx := make([]int, len(m.factors))
	logA := m.logA()
	logp := func() float64 {
		lp := 0.0
		for i, f := range m.factors {
			lp += f.logD[idx[i]]
		}
		for i, md := range m.mods {
			col := 0
			for _, f := range md.deps {
				col = col*m.factors[f].ns + idx[f]
			}
			lp += logA[i][outcomes[i]*md.size+col]
		}
		return lp
	}
	next := func() bool {
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < m.factors[i].ns {
				return true
			}
			idx[i] = 0
		}
		return false
	}
	mx := math.Inf(-1)
	for ok := true; ok; ok = next() {
		mx = math.Max(mx, logp())
	}
	if math.IsInf(mx, -1) {
		return nil, fmt.Errorf("observation %d: probability 0 under D and A (outcomes %s)", obs, m.ObsName(obs))
	}
	clear(dst)
	for ok := true; ok; ok = next() {
		p := math.Exp(logp() - mx)
		for i, f := range m.factors {
			dst[f.off+idx[i]] += p
		}
	}
	for _, f := range m.factors {
		q := dst[f.off : f.off+f.ns]
		sum := 0.0
		for _, v := range q {
			sum += v
		}
		for s := range q {
			q[s] /= sum
		}
	}
	return dst, nil
}

// meanFieldPosterior is StatePosterior beyond MaxJointStates: coordinate
// ascent on Π_f Q(s_f), each factor in turn set to
// σ(ln D_f + Σ_(m: f in deps(m)) E_(other factors)[ln A_m(o_m | ·)]), from
// Q = D, until no probability moves by more than 1e-13 (at most 500
// sweeps).
func (m *Model) meanFieldPosterior(dst []float64, obs int, outcomes []int) ([]float64, error) {
	return m.meanField(dst, nil, obs, outcomes)
}

// meanField is meanFieldPosterior under the prior Π_f prior_f (a belief,
// every factor's marginal; nil: D) instead of D.
func (m *Model) meanField(dst, prior []float64, obs int, outcomes []int) ([]float64, error) {
	rows := make([][]float64, len(m.mods))
	for i := range m.mods {
		md := &m.mods[i]
		row := clone(md.a[outcomes[i]*md.size : (outcomes[i]+1)*md.size])
		zero := true
		for _, p := range row {
			zero = zero && p == 0
		}
		if zero {
			return nil, fmt.Errorf("observation %d: probability 0 under D and A (modality %s never emits %s)", obs, jsonread.Quote(md.name), name(md.outcomes, outcomes[i]))
		}
		for j, p := range row {
			row[j] = math.Log(max(p, LogFloor))
		}
		rows[i] = row
	}
	logPrior := make([][]float64, len(m.factors))
	for i, f := range m.factors {
		if prior == nil {
			copy(dst[f.off:f.off+f.ns], f.d)
			logPrior[i] = f.logD
			continue
		}
		copy(dst[f.off:f.off+f.ns], prior[f.off:f.off+f.ns])
		logPrior[i] = make([]float64, f.ns)
		for s, p := range prior[f.off : f.off+f.ns] {
			logPrior[i][s] = math.Log(p)
		}
	}
	most := 0
	for _, f := range m.factors {
		most = max(most, f.ns)
	}
	eta := make([]float64, 0, most)
	msg := make([]float64, most)
	old := make([]float64, most)
	for range 500 {
		moved := 0.0
		for fi := range m.factors {
			f := &m.factors[fi]
			eta = append(eta[:0], logPrior[fi]...)
			msg := msg[:f.ns]
			for i := range m.mods {
				for k, dep := range m.mods[i].deps {
					if dep != fi {
						continue
					}
					m.ModalityMarginal(msg, i, k, rows[i], dst)
					for s, v := range msg {
						eta[s] += v
					}
				}
			}
			q := dst[f.off : f.off+f.ns]
			copy(old, q)
			expfam.Softmax(q, eta)
			for s := range q {
				moved = math.Max(moved, math.Abs(q[s]-old[s]))
			}
		}
		if moved <= 1e-13 {
			break
		}
	}
	return dst, nil
}
