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

// Len returns the number of states in the support of factor f.
func (s *Support) Len(f int) int { return s.lo[f+1] - s.lo[f] }

// StepCostOn is StepCost over the support sup of qs (sup.Set(m, qs) with
// the same qs): the same risk, ambiguity and novelty, bit for bit, in work
// proportional to the support. The sums skip only products with a
// probability of zero, which add nothing, and keep StepCost's order of
// the others. A model with joint preferences is scored by StepCost. It
// does not allocate, and panics as StepCost does, or if sup was not set
// for m.
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
		if len(md.deps) == 1 && w == nil {
			// One factor: expectOn inline, the outcomes' rows walked over
			// the support.
			fi := md.deps[0]
			q := qs[m.factors[fi].off:]
			idx := sup.idx[sup.lo[fi]:sup.lo[fi+1]]
			for o := range md.no {
				row := md.a[o*ns : (o+1)*ns]
				qo := 0.0
				for _, s := range idx {
					qo += row[s] * q[s]
				}
				if qo > 0 {
					r += qo * (math.Log(qo) - md.logC[o])
				}
			}
			risk += r
			amb += m.expectOn(md, md.hA, qs, sup)
			continue
		}
		for o := range md.no {
			qo := m.expectOn(md, md.a[o*ns:(o+1)*ns], qs, sup)
			if qo > 0 {
				r += qo * (math.Log(qo) - md.logC[o])
			}
			if w != nil {
				wm := w[md.wOff : md.wOff+md.no*ns]
				n += qo * m.expectOn(md, wm[o*ns:(o+1)*ns], qs, sup)
			}
		}
		a = m.expectOn(md, md.hA, qs, sup)
		risk += r
		amb += a
		nov += n
	}
	return risk, amb, nov
}

// expectOn is expect over the support: Σ_j x[j] Π_k q_(f_k)(j_k) with j
// running over the product of the factors' supports, in expect's order.
func (m *Model) expectOn(md *modality, x, qs []float64, sup *Support) float64 {
	if len(md.deps) == 1 {
		fi := md.deps[0]
		q := qs[m.factors[fi].off:]
		v := 0.0
		for _, s := range sup.idx[sup.lo[fi]:sup.lo[fi+1]] {
			v += x[s] * q[s]
		}
		return v
	}
	// The leading axes as a counter over their supports, with running
	// products of their probabilities and offsets into x; the last axis a
	// dot product over its support.
	k := len(md.deps)
	lastF := md.deps[k-1]
	ql := qs[m.factors[lastF].off:]
	lastSup := sup.idx[sup.lo[lastF]:sup.lo[lastF+1]]
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
			return 0 // an empty support (a belief of zeros)
		}
		s := sup.idx[sup.lo[fi]]
		pre[i+1] = pre[i] * qs[m.factors[fi].off+s]
		off[i+1] = off[i] + s*stride[i]
	}
	total := 0.0
	for {
		if w := pre[k-1]; w != 0 {
			row := x[off[k-1]:]
			v := 0.0
			for _, s := range lastSup {
				v += row[s] * ql[s]
			}
			total += w * v
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
			break
		}
		for j := i; j < k-1; j++ {
			fj := md.deps[j]
			s := sup.idx[sup.lo[fj]+pos[j]]
			pre[j+1] = pre[j] * qs[m.factors[fj].off+s]
			off[j+1] = off[j] + s*stride[j]
		}
	}
	return total
}
