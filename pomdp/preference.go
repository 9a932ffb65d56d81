package pomdp

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

// Preference is a target distribution over the joint outcomes of several
// modalities of a factorised model (FactorisedSpec.Preferences), for a
// preference that is not a product of one target per modality: "a square
// at the left edge of the bottom row" is a preference over the x, y and
// shape modalities together. C (or LogC, log-preferences up to an
// additive constant, C = softmax(LogC)) is flat and row-major over the
// outcomes of Modalities, in that order (the first varies slowest):
//
//	C[(o_1*|O_2| + o_2)*|O_3| + o_3 ...] = V(o_1, o_2, o_3, ...)
//
// A modality appears in at most one preference and then has no C of its
// own; a modality in none and without C has a uniform target, as before.
// A preference over one modality is that modality's C.
type Preference struct {
	Modalities []string // modality names, each at most once
	C, LogC    []float64
}

// MaxPreferenceOutcomes bounds the joint outcomes of one preference (the
// size of its table).
const MaxPreferenceOutcomes = 1 << 24

// preference is a validated Preference.
type preference struct {
	mods  []int     // the modalities, in the table's axis order
	shape []int     // their numbers of outcomes
	c     []float64 // the table, probabilities
	logC  []float64 // ln c, -Inf where c = 0

	// The table as its most frequent value plus the entries that differ
	// (when they are at most a quarter of the table): E[ln C] under a
	// product of marginals is then base·Π_k Σ_o q_k(o) + Σ_e dev[e] Π_k
	// q_k(o_k(e)), a sum over the differing entries only. sparse is false
	// otherwise.
	sparse bool
	base   float64
	dev    []float64 // ln C - base at each differing entry, in table order
	last   []int32   // per differing entry, the offset of its last modality's outcome in a prediction (ObsLen layout)
	// The differing entries in groups that share the outcomes of every
	// modality but the last: group g holds entries gEnd[g-1]..gEnd[g]-1
	// and the offsets gAt[g*(k-1):(g+1)*(k-1)] of those outcomes.
	gEnd []int32
	gAt  []int32
}

// newPreferences validates the preferences of a factorised model against
// its modalities and marks the modalities they hold. hasC reports, per
// modality, whether it had its own C or log_C.
func (m *Model) newPreferences(ps []Preference, hasC []bool) error {
	index := make(map[string]int, len(m.mods))
	names := make([]string, len(m.mods))
	for i, md := range m.mods {
		index[md.name] = i
		names[i] = md.name
	}
	inPref := map[int]int{} // modality -> the preference that holds it
	for pi, sp := range ps {
		where := fmt.Sprintf("preferences[%d]: ", pi)
		if len(sp.Modalities) == 0 {
			return errors.New(where + "modalities: empty, want at least one modality")
		}
		if len(sp.Modalities) > MaxPrefModalities {
			return fmt.Errorf("%smodalities: %d, want at most %d", where, len(sp.Modalities), MaxPrefModalities)
		}
		p := preference{}
		size := 1.0
		for k, name := range sp.Modalities {
			i, ok := index[name]
			if !ok {
				return fmt.Errorf("%smodalities[%d]: unknown modality %s (modalities: %s)", where, k, jsonread.Quote(name), jsonread.NameList(names))
			}
			for j := range k {
				if sp.Modalities[j] == name {
					return fmt.Errorf("%smodalities[%d]: modality %s listed twice (also modalities[%d])", where, k, jsonread.Quote(name), j)
				}
			}
			if q, ok := inPref[i]; ok {
				return fmt.Errorf("%smodalities[%d]: modality %s is already in preferences[%d] (a modality has one target)", where, k, jsonread.Quote(name), q)
			}
			inPref[i] = pi
			if hasC[i] {
				return fmt.Errorf("%smodalities[%d]: modality %s has its own C or log_C (a modality has one target: drop it there)", where, k, jsonread.Quote(name))
			}
			p.mods = append(p.mods, i)
			p.shape = append(p.shape, m.mods[i].no)
			size *= float64(m.mods[i].no)
		}
		if size > MaxPreferenceOutcomes {
			return fmt.Errorf("%sC: %g joint outcomes, want at most %d", where, size, MaxPreferenceOutcomes)
		}
		n := int(size)
		if sp.LogC != nil && len(sp.LogC) != n {
			return fmt.Errorf("%slog_C: %d entries, want %d (%s)", where, len(sp.LogC), n, m.prefShapeText(p.mods))
		}
		c, err := fromLog("C", "log_C", sp.C, sp.LogC, n)
		if err != nil {
			return fmt.Errorf("%s%w", where, err)
		}
		if c == nil {
			return fmt.Errorf("%sC: missing (give C or log_C over the joint outcomes)", where)
		}
		if len(c) != n {
			return fmt.Errorf("%sC: %d entries, want %d (%s)", where, len(c), n, m.prefShapeText(p.mods))
		}
		if err := checkFinite("C", "probability", c, p.shape); err != nil {
			return fmt.Errorf("%s%w", where, err)
		}
		if p.c, err = checkProb("C", c, nil, "", []int{n}); err != nil {
			return fmt.Errorf("%s%w", where, err)
		}
		if len(p.mods) == 1 {
			// A preference over one modality is that modality's C.
			m.mods[p.mods[0]].c = p.c
			continue
		}
		m.prefs = append(m.prefs, p)
		for _, i := range p.mods {
			m.mods[i].pref = len(m.prefs)
			m.mods[i].c = nil
		}
	}
	return nil
}

// prefShapeText describes the axes of a preference table.
func (m *Model) prefShapeText(mods []int) string {
	s := ""
	for k, i := range mods {
		if k > 0 {
			s += " × "
		}
		s += fmt.Sprintf("%d outcomes of %s", m.mods[i].no, jsonread.Quote(m.mods[i].name))
	}
	return s
}

// finishPreferences computes each preference's logarithms and, when the
// table is mostly one value, its sparse form (finish).
func (m *Model) finishPreferences() {
	// A copy of a Model (AgentView, ScaleModel) shares the slice: its own.
	m.prefs = slices.Clone(m.prefs)
	for pi := range m.prefs {
		p := &m.prefs[pi]
		p.logC = make([]float64, len(p.c))
		count := map[float64]int{}
		for j, c := range p.c {
			p.logC[j] = math.Log(c)
			count[p.logC[j]]++
		}
		p.sparse, p.dev, p.last, p.gEnd, p.gAt = false, nil, nil, nil, nil
		base, most := 0.0, 0
		for v, k := range count {
			if k > most || k == most && v < base {
				base, most = v, k
			}
		}
		if math.IsInf(base, 0) || 4*(len(p.c)-most) > len(p.c) {
			continue
		}
		p.sparse, p.base = true, base
		digits := make([]int, len(p.mods))
		k := len(p.mods)
		lastGroup := -1 // the index, among the table's rows over the last modality, of the open group
		for j, l := range p.logC {
			if l != base {
				if row := j / p.shape[k-1]; row != lastGroup {
					if lastGroup >= 0 {
						p.gEnd = append(p.gEnd, int32(len(p.dev)))
					}
					lastGroup = row
					for a, i := range p.mods[:k-1] {
						p.gAt = append(p.gAt, int32(m.mods[i].obsOff+digits[a]))
					}
				}
				p.dev = append(p.dev, l-base)
				p.last = append(p.last, int32(m.mods[p.mods[k-1]].obsOff+digits[k-1]))
			}
			for a := len(digits) - 1; a >= 0; a-- {
				digits[a]++
				if digits[a] < p.shape[a] {
					break
				}
				digits[a] = 0
			}
		}
		if lastGroup >= 0 {
			p.gEnd = append(p.gEnd, int32(len(p.dev)))
		}
	}
}

// NumPreferences returns the number of joint preferences (Preference) of
// the model: 0 for a model whose targets are all per modality.
func (m *Model) NumPreferences() int { return len(m.prefs) }

// PreferenceModalities returns the modalities of joint preference p, in
// the order of its table's axes. It panics if p is out of range [0,
// NumPreferences()).
func (m *Model) PreferenceModalities(p int) []int {
	return append([]int(nil), m.prefAt("PreferenceModalities", p).mods...)
}

// PreferenceC returns a copy of joint preference p's table (probabilities,
// row-major over PreferenceModalities(p)). It panics if p is out of range.
func (m *Model) PreferenceC(p int) []float64 { return clone(m.prefAt("PreferenceC", p).c) }

func (m *Model) prefAt(fn string, p int) *preference {
	if uint(p) >= uint(len(m.prefs)) {
		badIndex(fn, "preference", p, len(m.prefs))
	}
	return &m.prefs[p]
}

// ObsRisk returns the risk of a predicted observation qo (ObsLen entries,
// every modality's Q(o_m) one after the other, as PredictObs writes it):
//
//	Σ_(m in no preference) KL[Q(o_m) ‖ C_m] + Σ_P KL[Π_(m in P) Q(o_m) ‖ C_P]
//
// the joint outcome of a preference P predicted as the product of its
// modalities' marginals (docs/pomdp.md, "Joint preferences"). Terms with
// Q = 0 contribute 0; Q > 0 where C = 0 gives +Inf. It does not allocate.
// It panics if m is nil or not a valid model, or len(qo) != m.ObsLen().
func ObsRisk(m *Model, qo []float64) float64 {
	checkObs("ObsRisk", m, qo)
	r := 0.0
	off := 0
	for i := range m.mods {
		md := &m.mods[i]
		for o, q := range qo[off : off+md.no] {
			if q > 0 {
				r += q * math.Log(q)
				if md.pref == 0 {
					r -= q * md.logC[o]
				}
			}
		}
		off += md.no
	}
	for pi := range m.prefs {
		r -= m.prefExpect(&m.prefs[pi], qo)
	}
	return r
}

// ObsCrossEntropy returns -Σ_m Σ_o Q(o_m) ln C_m(o) for the modalities in
// no preference, minus E[ln C_P] under the product of its modalities'
// marginals for every joint preference P: the cross-entropy of the
// predicted observation qo (ObsLen entries) with the targets. It does not
// allocate; it panics as ObsRisk does.
func ObsCrossEntropy(m *Model, qo []float64) float64 {
	checkObs("ObsCrossEntropy", m, qo)
	h := 0.0
	off := 0
	for i := range m.mods {
		md := &m.mods[i]
		if md.pref == 0 {
			for o, q := range qo[off : off+md.no] {
				if q > 0 {
					h -= q * md.logC[o]
				}
			}
		}
		off += md.no
	}
	for pi := range m.prefs {
		h -= m.prefExpect(&m.prefs[pi], qo)
	}
	return h
}

// JointCrossEntropy returns -Σ_P E[ln C_P] over the joint preferences P,
// each under the product of its modalities' marginals in qo (ObsLen
// entries): the part of ObsCrossEntropy that the joint preferences give,
// 0 for a model without any. It does not allocate; it panics as ObsRisk
// does.
func JointCrossEntropy(m *Model, qo []float64) float64 {
	checkObs("JointCrossEntropy", m, qo)
	h := 0.0
	for pi := range m.prefs {
		h -= m.prefExpect(&m.prefs[pi], qo)
	}
	return h
}

func checkObs(fn string, m *Model, qo []float64) {
	if m == nil || !m.valid {
		badBelief(fn, m, nil)
	}
	if len(qo) != m.obsLen {
		badLen(fn, "qo", len(qo), m.obsLen)
	}
}

// prefExpect returns E[ln C_P] under the product of the marginals of P's
// modalities in qo (ObsLen layout), with 0 · ln 0 = 0.
func (m *Model) prefExpect(p *preference, qo []float64) float64 {
	k := len(p.mods)
	if p.sparse {
		mass := 1.0
		for _, i := range p.mods {
			s := 0.0
			for _, q := range qo[m.mods[i].obsOff : m.mods[i].obsOff+m.mods[i].no] {
				s += q
			}
			mass *= s
		}
		v := p.base * mass
		start := int32(0)
		for g, end := range p.gEnd {
			w := 1.0
			for _, o := range p.gAt[g*(k-1) : (g+1)*(k-1)] {
				w *= qo[o]
			}
			if w != 0 {
				for e := start; e < end; e++ {
					if q := w * qo[p.last[e]]; q != 0 {
						v += q * p.dev[e]
					}
				}
			}
			start = end
		}
		return v
	}
	// Walk the leading axes as a mixed-radix counter with running products
	// of their probabilities; the last axis is a contiguous dot product.
	var idx [MaxPrefModalities]int
	var pre [MaxPrefModalities + 1]float64
	pre[0] = 1
	for j := range k - 1 {
		pre[j+1] = pre[j] * qo[m.mods[p.mods[j]].obsOff]
	}
	last := &m.mods[p.mods[k-1]]
	ql := qo[last.obsOff : last.obsOff+last.no]
	total := 0.0
	for off := 0; off < len(p.logC); off += last.no {
		if w := pre[k-1]; w != 0 {
			for o, l := range p.logC[off : off+last.no] {
				if q := w * ql[o]; q != 0 {
					total += q * l
				}
			}
		}
		j := k - 2
		for ; j >= 0; j-- {
			idx[j]++
			if idx[j] < p.shape[j] {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			break
		}
		for i := j; i < k-1; i++ {
			pre[i+1] = pre[i] * qo[m.mods[p.mods[i]].obsOff+idx[i]]
		}
	}
	return total
}

// MaxPrefModalities is the largest number of modalities in one joint
// preference.
const MaxPrefModalities = 16

// prefStepCost is StepCost for a model with joint preferences: the
// modalities in no preference as stepCost, those in one contribute their
// negative entropy Σ_o Q ln Q, and each preference -E[ln C_P] under the
// product of its modalities' predicted marginals. It allocates only when
// the predicted observations exceed a small buffer on the stack.
func (m *Model) prefStepCost(qs, w []float64) (risk, amb, nov float64) {
	var stack [512]float64
	qo := stack[:]
	if m.obsLen > len(stack) {
		qo = make([]float64, m.obsLen)
	}
	for i := range m.mods {
		md := &m.mods[i]
		var wm []float64
		if w != nil {
			wm = w[md.wOff : md.wOff+md.no*md.size]
		}
		if md.pref == 0 {
			r, a, n := m.stepCost(md, qs, wm)
			risk += r
			amb += a
			nov += n
			continue
		}
		ns := md.size
		for o := range md.no {
			q := m.expect(md, md.a[o*ns:(o+1)*ns], qs)
			qo[md.obsOff+o] = q
			if q > 0 {
				risk += q * math.Log(q)
			}
			if wm != nil {
				nov += q * m.expect(md, wm[o*ns:(o+1)*ns], qs)
			}
		}
		amb += m.expect(md, md.hA, qs)
	}
	for pi := range m.prefs {
		risk -= m.prefExpect(&m.prefs[pi], qo)
	}
	return risk, amb, nov
}
