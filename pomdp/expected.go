package pomdp

import "math"

// onlyD reports that the posteriors post learn no A and no B.
func onlyD(post conc) bool {
	for _, xs := range [][][]float64{post.a, post.b} {
		for _, x := range xs {
			if x != nil {
				return false
			}
		}
	}
	return true
}

// expectedD is expectedFrom when only D is learned (the T-maze's context
// prior): A and B, and what finish derives from them (the compact
// tensors, the entropies of A, ln C, the preferences and the caches of
// ln A and the novelty weights), are the model's, shared, and only D, its
// concentrations and ln D are new, ln D as finish computes it: the same
// model as expectedFrom's, without rebuilding the rest every trial.
func (p *Past) expectedD(post conc) *Model {
	var m *Model
	if p.recycle {
		if p.models[p.flip] == nil {
			p.models[p.flip] = new(Model)
		}
		m = p.models[p.flip]
		p.flip ^= 1
	} else {
		m = new(Model)
	}
	fs := m.factors // a recycled model's own, with its D's slices
	*m = *p.m
	if len(fs) != len(p.m.factors) {
		fs = make([]factor, len(p.m.factors))
	}
	for i := range fs {
		prev, base := fs[i], &p.m.factors[i]
		f := &fs[i]
		*f = *base
		al := post.d[i]
		if al == nil {
			continue
		}
		f.concD = own(prev.concD, base.concD, len(al))
		copy(f.concD, al)
		f.d = own(prev.d, base.d, len(al))
		copy(f.d, al)
		normalizeColumns(f.d, []int{f.ns})
		f.logD = own(prev.logD, base.logD, f.ns)
		for s, d := range f.d {
			f.logD[s] = math.Log(d)
		}
	}
	m.factors = fs
	f0 := &m.factors[0]
	m.d, m.concD, m.logD = f0.d, f0.concD, f0.logD
	return m
}

// own returns x when it has length n and is not the model's table base
// (which is never written), for expectedD to write over; otherwise a new
// slice.
func own(x, base []float64, n int) []float64 {
	if len(x) == n && (len(base) == 0 || &x[0] != &base[0]) {
		return x
	}
	return make([]float64, n)
}

// RecycleExpected makes ExpectedModel, for a model whose D alone is
// learned, write each new expected model over the one made two before
// (two models in turn) instead of making one: the same models, without
// their allocations, for a caller that keeps none past the next (aci's
// Agent.DecideInto). It is off by default.
func (p *Past) RecycleExpected(on bool) { p.recycle = on }
