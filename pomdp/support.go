package pomdp

import "math"

// Support lists, factor by factor, the states to which a belief gives a
// probability other than zero: what StepCostOn sums over. A planner whose
// beliefs are sharp (a maze's position known, an absorbing state reached)
// then pays for the states it may be in, not for every state. The zero
// value is ready to use; Set reuses its memory.
type Support struct {
	idx []int // the states of factor f in the support: idx[lo[f]:lo[f+1]], ascending
	lo  []int

	// StepCostOn's scratch: the combinations of a modality's leading axes
	// (lead), and the outcomes a sharp factor's column can emit (outs).
	lead lead
	outs []int32
}

// lead lists the combinations of a modality's leading axes (all but the
// last) over the support, in expect's order, that have a weight other
// than zero: the product of their probabilities and the offset in a row
// of A of their states.
type lead struct {
	w   []float64
	off []int
}

// Set makes s the support of qs under m (NumStates() entries, every
// factor's marginal one after the other). It panics as StepCost does if m
// is nil or not a valid model or len(qs) != m.NumStates().
func (s *Support) Set(m *Model, qs []float64) {
	if m == nil || !m.valid || len(qs) != m.ns {
		badBelief("Support.Set", m, qs)
	}
	s.idx = s.idx[:0]
	s.lo = append(s.lo[:0], 0)
	for i := range m.factors {
		f := &m.factors[i]
		for j, q := range qs[f.off : f.off+f.ns] {
			if q != 0 {
				s.idx = append(s.idx, j)
			}
		}
		s.lo = append(s.lo, len(s.idx))
	}
}

// SetStates makes s the support given factor by factor: states[f] lists
// the states of factor f where the belief is not 0, ascending (what Set
// would find, for a caller that knows them without a pass over the
// belief). It panics if m is nil or not a valid model or states does not
// have one list per factor.
func (s *Support) SetStates(m *Model, states [][]int32) {
	if m == nil || !m.valid {
		panic("pomdp: Support.SetStates: " + noModel)
	}
	if len(states) != len(m.factors) {
		badLen("Support.SetStates", "states", len(states), len(m.factors))
	}
	s.idx = s.idx[:0]
	s.lo = append(s.lo[:0], 0)
	for _, st := range states {
		for _, j := range st {
			s.idx = append(s.idx, int(j))
		}
		s.lo = append(s.lo, len(s.idx))
	}
}

// Len returns the number of states in the support of factor f.
func (s *Support) Len(f int) int { return s.lo[f+1] - s.lo[f] }

// StepCostOn is StepCost over the support sup of qs (sup.Set(m, qs) with
// the same qs): the same risk, ambiguity and novelty, bit for bit, in work
// proportional to the support. The sums skip only products with a
// probability of zero, which add nothing, and keep StepCost's order of
// the others. Without novelty weights, a modality scores a belief sure of
// one state of each factor it reads (a support of one state at
// probability 1) from that column's risk and ambiguity, which the model
// computes once when it is built, with the same operations (so the same
// bits) and without a logarithm per call. A model with joint preferences is scored
// by StepCost. It does not allocate, and panics as StepCost does, or if
// sup was not set for m.
func StepCostOn(m *Model, qs, w []float64, sup *Support) (risk, amb, nov float64) {
	if !m.stepArgs(qs, w) {
		badStep("StepCostOn", m, qs, w)
	}
	if len(sup.lo) != len(m.factors)+1 {
		badLen("StepCostOn", "support factors", len(sup.lo)-1, len(m.factors))
	}
	if len(m.prefs) > 0 {
		return m.prefStepCost(qs, w)
	}
	for i := range m.mods {
		md := &m.mods[i]
		ns := md.size
		var r, a, n float64
		if w == nil {
			if j, ok := m.sharpColumn(md, qs, sup); ok {
				// A belief sure of one column of A: its risk and
				// ambiguity, made with the model. The sums below give
				// these bits: every weight is 1, qo = 0 + A[o,j] · 1,
				// and logOf's ln 1 = 0 is math.Log's.
				risk += md.sharpRisk[j]
				amb += md.hA[j]
				continue
			}
		}
		if len(md.deps) == 1 {
			fi := md.deps[0]
			q := qs[m.factors[fi].off:]
			idx := sup.idx[sup.lo[fi]:sup.lo[fi+1]]
			if w == nil {
				// The outcomes' rows walked over the support; only those
				// that a state of the support can emit when A is sparse.
				for _, o := range sup.emitted(md, idx) {
					row := md.a[int(o)*ns : (int(o)+1)*ns]
					qo := 0.0
					for _, s := range idx {
						qo += row[s] * q[s]
					}
					if qo > 0 {
						r += qo * (logOf(qo) - md.logC[o])
					}
				}
				risk += r
				amb += dotOn(md.hA, q, idx)
				continue
			}
			wm := w[md.wOff : md.wOff+md.no*ns]
			for o := range md.no {
				qo := dotOn(md.a[o*ns:(o+1)*ns], q, idx)
				if qo > 0 {
					r += qo * (logOf(qo) - md.logC[o])
				}
				n += qo * dotOn(wm[o*ns:(o+1)*ns], q, idx)
			}
			risk += r
			amb += dotOn(md.hA, q, idx)
			nov += n
			continue
		}
		// Several factors: the leading axes' combinations once, then every
		// outcome's expectation over them.
		ld := &sup.lead
		m.leadOn(md, qs, sup, ld)
		lastF := md.deps[len(md.deps)-1]
		ql := qs[m.factors[lastF].off:]
		lastSup := sup.idx[sup.lo[lastF]:sup.lo[lastF+1]]
		for o := range md.no {
			qo := ld.expect(md.a[o*ns:(o+1)*ns], ql, lastSup)
			if qo > 0 {
				r += qo * (logOf(qo) - md.logC[o])
			}
			if w != nil {
				wm := w[md.wOff : md.wOff+md.no*ns]
				n += qo * ld.expect(wm[o*ns:(o+1)*ns], ql, lastSup)
			}
		}
		a = ld.expect(md.hA, ql, lastSup)
		risk += r
		amb += a
		nov += n
	}
	return risk, amb, nov
}

// sharpColumn returns the column of modality md's A (its factors' states,
// the last factor's fastest) of which qs is sure, when the support sup
// of every factor md reads is one state at probability 1.
func (m *Model) sharpColumn(md *modality, qs []float64, sup *Support) (int, bool) {
	j := 0
	for _, fi := range md.deps {
		lo := sup.lo[fi]
		if sup.lo[fi+1]-lo != 1 {
			return 0, false
		}
		f := &m.factors[fi]
		s := sup.idx[lo]
		if qs[f.off+s] != 1 {
			return 0, false
		}
		j = j*f.ns + s
	}
	return j, true
}

// logOf is math.Log(x) without the call at x = 1, where it is +0 (a
// sharp belief's certain outcome).
func logOf(x float64) float64 {
	if x == 1 {
		return 0
	}
	return math.Log(x)
}

// dotOn is Σ_(s ∈ idx) x[s] q[s], in idx's order.
func dotOn(x, q []float64, idx []int) float64 {
	v := 0.0
	for _, s := range idx {
		v += x[s] * q[s]
	}
	return v
}

// emitted returns the outcomes of modality md (over one factor) that the
// states idx may emit, ascending: every outcome, unless A is stored
// sparse (md.ac exact) and the support is one state, whose column's
// non-zero rows are then the outcomes (any other has probability 0,
// which the risk skips).
func (s *Support) emitted(md *modality, idx []int) []int32 {
	if c := md.ac; c != nil && c.exact && len(idx) == 1 {
		j := idx[0]
		if c.start == nil {
			return c.row[j : j+1]
		}
		return c.row[c.start[j]:c.start[j+1]]
	}
	if len(s.outs) != md.no {
		s.outs = s.outs[:0]
		for o := range md.no {
			s.outs = append(s.outs, int32(o))
		}
	}
	return s.outs
}

// leadOn fills ld with the combinations of modality md's leading axes
// over the support sup of qs that have a weight other than zero, in
// expect's order, the weights the same products.
func (m *Model) leadOn(md *modality, qs []float64, sup *Support, ld *lead) {
	ld.w, ld.off = ld.w[:0], ld.off[:0]
	k := len(md.deps)
	var pos [MaxDependsOn]int
	var pre [MaxDependsOn + 1]float64 // pre[i] = Π_(j<i) q_j(state at pos[j])
	var off [MaxDependsOn + 1]int     // off[i]: the offset in x of the states at pos[0..i-1]
	var stride [MaxDependsOn]int      // the stride of axis i in x
	stride[k-1] = 1
	for i := k - 2; i >= 0; i-- {
		stride[i] = stride[i+1] * m.factors[md.deps[i+1]].ns
	}
	pre[0] = 1
	for i := range k - 1 {
		fi := md.deps[i]
		if sup.lo[fi] == sup.lo[fi+1] {
			return // an empty support (a belief of zeros)
		}
		s := sup.idx[sup.lo[fi]]
		pre[i+1] = pre[i] * qs[m.factors[fi].off+s]
		off[i+1] = off[i] + s*stride[i]
	}
	for {
		if w := pre[k-1]; w != 0 {
			ld.w = append(ld.w, w)
			ld.off = append(ld.off, off[k-1])
		}
		// Next combination of the leading axes' supports.
		i := k - 2
		for ; i >= 0; i-- {
			fi := md.deps[i]
			pos[i]++
			if pos[i] < sup.lo[fi+1]-sup.lo[fi] {
				break
			}
			pos[i] = 0
		}
		if i < 0 {
			return
		}
		for j := i; j < k-1; j++ {
			fj := md.deps[j]
			s := sup.idx[sup.lo[fj]+pos[j]]
			pre[j+1] = pre[j] * qs[m.factors[fj].off+s]
			off[j+1] = off[j] + s*stride[j]
		}
	}
}

// expect is expect over the support: Σ over the leading combinations of
// their weight times the dot product of x's row with the last factor's
// belief ql over its support lastSup, in expect's order.
func (ld *lead) expect(x, ql []float64, lastSup []int) float64 {
	total := 0.0
	for c, w := range ld.w {
		row := x[ld.off[c]:]
		v := 0.0
		for _, s := range lastSup {
			v += row[s] * ql[s]
		}
		total += w * v
	}
	return total
}
