package btai

import (
	"math"
	"slices"

	"github.com/arbor-ai/arbor/pomdp"
)

// fastPred evaluates the new nodes of a large factorised model under
// predictive inference and the classic cost (docs/btai.md, "dSprites":
// how BTAI plans there in a few milliseconds per trial). Two things make
// it fast, neither of which changes the numbers beyond rounding:
//
//   - every B_f[u] and A_m is held in split form (a background per column
//     plus the entries that differ; splitMat), so a matrix whose columns
//     are "one value, and a few others" (a move with noise spread evenly)
//     costs O(|S|) per product instead of O(|S|²);
//   - a factor that no action moves (one B, its own controls) has the
//     same marginal at every node of a depth, B_f^d Q(s_f), and so do the
//     modalities that depend on it alone, their predicted outcomes,
//     entropies and ambiguities: they are computed once per depth and
//     plan, not per node.
//
// Siblings that move a factor by the same matrix (x under "down" and
// "up") share its computation (fastMemo).
//
// It applies when every modality depends on one factor, with Predictive
// inference, the Classic cost, no roll-outs, and Σ_f |S_f|² at least
// fastPredMinWork (on smaller models the dense loops are as fast, and
// their results stay what they were to the last digit).
type fastPred struct {
	b     [][]splitMat // per factor, per control: B_f[u]
	a     []splitMat   // per modality: A_m
	hA    [][]float64  // per modality: H[A_m(·|s)]
	logC  [][]float64  // per modality: ln C_m, nil in a joint preference
	dep   []int        // per modality: the factor it depends on
	fOff  []int        // per factor: its offset in a belief
	oOff  []int        // per modality: its offset in a prediction
	fixed []bool       // per factor: no action moves it
	ctrl  []int        // scratch: the controls of an action
	// class[f][c] is the first control of factor f whose B equals B_f[c]
	// (a sprite's x under "down" and "up"); memo[f][class] holds the last
	// child marginal computed for it, so that siblings that move a factor
	// alike compute it once.
	class [][]int
	memo  [][]fastMemo
	mods  [][]int     // per factor: the modalities that depend on it
	level []fastLevel // per depth d of the current plan: what is the same for every node at d
}

// fastLevel is what every node at one depth shares: the marginals of the
// fixed factors and the outcomes of their modalities (in a full belief and
// prediction, whose other entries are unused), and the part of the cost
// that comes from those modalities, Σ_m Σ_o Q(o) (ln Q(o) - ln C_m(o)) +
// E[H[A_m]] (no ln C_m for a modality in a joint preference).
type fastLevel struct {
	qs, qo []float64
	cost   float64
}

// fastMemo is the child marginal of one factor under one class of
// controls from the parent marginal parent: the marginal, the predicted
// outcomes of the factor's modalities (one after the other) and their
// cost.
type fastMemo struct {
	parent, qs, qo []float64
	cost           float64
	ok             bool
}

// fastPredMinWork is the smallest Σ_f |S_f|² for which the fast path is
// used.
const fastPredMinWork = 1024

// newFastPred returns the fast evaluator for m under options o, or nil
// when it does not apply.
func newFastPred(m *pomdp.Model, o Options) *fastPred {
	if o.Inference != Predictive || o.Cost != Classic || o.Rollouts > 0 || o.Novelty || o.GlobalInference {
		return nil
	}
	work := 0
	for f := range m.NumFactors() {
		work += m.FactorSize(f) * m.FactorSize(f)
	}
	if work < fastPredMinWork {
		return nil
	}
	for i := range m.NumModalities() {
		if len(m.DependsOn(i)) != 1 {
			return nil
		}
	}
	return &fastPred{}
}

// setModel computes the split forms of m's matrices and the entropies of
// its likelihoods.
func (p *fastPred) setModel(m *pomdp.Model) {
	nf, nm := m.NumFactors(), m.NumModalities()
	p.b, p.fixed = make([][]splitMat, nf), make([]bool, nf)
	for f := range nf {
		ns, nu := m.FactorSize(f), m.FactorControls(f)
		b := m.FactorB(f)
		p.b[f] = make([]splitMat, nu)
		for c := range nu {
			p.b[f][c].set(b[c*ns*ns:(c+1)*ns*ns], ns, ns)
		}
		p.fixed[f] = nu == 1
	}
	p.class, p.memo, p.mods = make([][]int, nf), make([][]fastMemo, nf), make([][]int, nf)
	for f := range nf {
		b, ns := m.FactorB(f), m.FactorSize(f)
		p.class[f] = make([]int, len(p.b[f]))
		p.memo[f] = make([]fastMemo, len(p.b[f]))
		for c := range p.class[f] {
			p.class[f][c] = c
			for c2 := range c {
				if slices.Equal(b[c*ns*ns:(c+1)*ns*ns], b[c2*ns*ns:(c2+1)*ns*ns]) {
					p.class[f][c] = c2
					break
				}
			}
		}
	}
	p.fOff = make([]int, nf+1)
	for f := range nf {
		p.fOff[f+1] = p.fOff[f] + m.FactorSize(f)
	}
	p.a, p.hA, p.dep = make([]splitMat, nm), make([][]float64, nm), make([]int, nm)
	p.logC, p.oOff = make([][]float64, nm), make([]int, nm+1)
	for i := range nm {
		p.oOff[i+1] = p.oOff[i] + m.ModalitySize(i)
		if c := m.ModalityC(i); c != nil {
			for o := range c {
				c[o] = math.Log(c[o])
			}
			p.logC[i] = c
		}
		a := m.ModalityA(i)
		no := m.ModalitySize(i)
		ns := len(a) / no
		p.a[i].set(a, no, ns)
		p.dep[i] = m.DependsOn(i)[0]
		p.mods[p.dep[i]] = append(p.mods[p.dep[i]], i)
		p.hA[i] = make([]float64, ns)
		for o := range no {
			for s, x := range a[o*ns : (o+1)*ns] {
				if x > 0 {
					p.hA[i][s] -= x * math.Log(x)
				}
			}
		}
	}
}

// reset starts a plan from the root belief: depth 0 holds it.
func (p *fastPred) reset(root []float64) {
	p.level = p.level[:0]
	lv := p.push()
	lv.qs = append(lv.qs[:0], root...)
}

// push appends a level, reusing the buffers of the one a previous plan
// held there.
func (p *fastPred) push() *fastLevel {
	if len(p.level) < cap(p.level) {
		p.level = p.level[:len(p.level)+1]
	} else {
		p.level = append(p.level, fastLevel{})
	}
	lv := &p.level[len(p.level)-1]
	lv.cost = 0
	return lv
}

// at returns the shared part of depth d, computing the depths up to it.
func (p *fastPred) at(m *pomdp.Model, d int) *fastLevel {
	for len(p.level) <= d {
		lv := p.push()
		prev := &p.level[len(p.level)-2]
		lv.qs, lv.qo = zeroed(lv.qs, len(prev.qs)), zeroed(lv.qo, m.ObsLen())
		for f, fixed := range p.fixed {
			if fixed {
				lo, hi := p.fOff[f], p.fOff[f+1]
				splitMul(lv.qs[lo:hi], &p.b[f][0], prev.qs[lo:hi])
			}
		}
		for i, f := range p.dep {
			if p.fixed[f] {
				lv.cost += p.modality(m, i, lv.qs, lv.qo)
			}
		}
	}
	return &p.level[d]
}

// modality predicts modality i's outcomes from the belief qs into qo and
// returns Σ_o Q(o) (ln Q(o) - ln C(o)) + E_Q(s)[H[A(·|s)]], without the
// ln C term for a modality in a joint preference.
func (p *fastPred) modality(m *pomdp.Model, i int, qs, qo []float64) float64 {
	f := p.dep[i]
	q, out := qs[p.fOff[f]:p.fOff[f+1]], qo[p.oOff[i]:p.oOff[i+1]]
	splitMul(out, &p.a[i], q)
	g := 0.0
	if lc := p.logC[i]; lc != nil {
		for o, x := range out {
			if x > 0 {
				g += x * (math.Log(x) - lc[o])
			}
		}
	} else {
		for _, x := range out {
			if x > 0 {
				g += x * math.Log(x)
			}
		}
	}
	for s, x := range q {
		g += x * p.hA[i][s]
	}
	return g
}

// node computes Q(S_I) into qs and Q(O_I) into qo for the child at depth d
// of a node with belief qp under action u, and returns its classic cost.
func (p *fastPred) node(m *pomdp.Model, qs, qo, qp []float64, u, d int) float64 {
	lv := p.at(m, d)
	p.ctrl = m.DecodeAction(p.ctrl, u)
	g := lv.cost
	for f, fixed := range p.fixed {
		lo, hi := p.fOff[f], p.fOff[f+1]
		if fixed {
			copy(qs[lo:hi], lv.qs[lo:hi])
			for _, i := range p.mods[f] {
				copy(qo[p.oOff[i]:p.oOff[i+1]], lv.qo[p.oOff[i]:p.oOff[i+1]])
			}
			continue
		}
		mm := &p.memo[f][p.class[f][p.ctrl[f]]]
		if mm.ok && slices.Equal(mm.parent, qp[lo:hi]) {
			copy(qs[lo:hi], mm.qs)
			k := 0
			for _, i := range p.mods[f] {
				k += copy(qo[p.oOff[i]:p.oOff[i+1]], mm.qo[k:])
			}
			g += mm.cost
			continue
		}
		splitMul(qs[lo:hi], &p.b[f][p.ctrl[f]], qp[lo:hi])
		c := 0.0
		mm.qo = mm.qo[:0]
		for _, i := range p.mods[f] {
			c += p.modality(m, i, qs, qo)
			mm.qo = append(mm.qo, qo[p.oOff[i]:p.oOff[i+1]]...)
		}
		mm.parent = append(mm.parent[:0], qp[lo:hi]...)
		mm.qs = append(mm.qs[:0], qs[lo:hi]...)
		mm.cost, mm.ok = c, true
		g += c
	}
	return g + pomdp.JointCrossEntropy(m, qo)
}
