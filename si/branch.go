package si

import (
	"container/heap"
	"sort"
)

// brancher enumerates the outcomes that may follow an action and the exact
// posterior after each. It works on the support of the predicted belief:
// the joint states s with Π_f q_f(s_f) > 0, each with its weight and the
// column of every modality's A it reads.
type brancher struct {
	n     int       // joint states in the support
	w     []float64 // their weights Π_f q_f(s_f)
	dig   []int32   // n × nf: the state of every factor
	col   []int32   // n × nm: the column of every modality's A
	lv    [][]float64
	marg  [][]float64 // per modality: Q(o_m), for Marginal
	supp  [][]int32   // per factor: the states of positive probability
	emit  [][]int32   // per modality: emitted's list
	outs  [][]int32   // per modality: the outcomes walk tries (emitted, once per support)
	nz    []int32     // nonZero's list
	idx   []int
	order int

	// The walk's bound on outcomes (PruneOutcomes, or 0 in the fallback)
	// and the fallback's state: keep only the most probable outcomes, at
	// most limit of them.
	thresh   float64
	fallback bool
	best     float64
	limit    int

	leaves leafHeap
	post   []float64 // posterior of leaf slot k at [k ns, (k+1) ns)
	ns     int
}

// leaf is one outcome kept after an action.
type leaf struct {
	prob  float64 // P(o) (Joint) or Π_m Q(o_m) (Marginal), before renormalising
	order int     // enumeration order, to break ties and sort
	slot  int     // where its posterior is
	obs   int     // the joint outcome (pomdp.Model.EncodeObs)
}

// leafHeap is a min-heap by probability; among equal probabilities the
// later outcome is the smaller, so that a full heap keeps the earliest.
type leafHeap []leaf

func (h leafHeap) Len() int { return len(h) }
func (h leafHeap) Less(i, j int) bool {
	return h[i].prob < h[j].prob || h[i].prob == h[j].prob && h[i].order > h[j].order
}
func (h leafHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *leafHeap) Push(x any)   { *h = append(*h, x.(leaf)) }
func (h *leafHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (b *brancher) init(p *Planner) {
	b.ns = p.ns
	b.lv = make([][]float64, p.nm+1)
	b.marg = make([][]float64, p.nm)
	for i := range p.mods {
		b.marg[i] = make([]float64, p.mods[i].no)
	}
	b.supp = make([][]int32, p.nf)
	b.emit = make([][]int32, p.nm)
	b.outs = make([][]int32, p.nm)
	b.idx = make([]int, p.nf)
}

// support lists the joint states of positive weight under pred, whose
// factors' supports propagate left in p.psup.
func (b *brancher) support(p *Planner, pred []float64) {
	for fi := range p.facs {
		b.supp[fi] = append(b.supp[fi][:0], p.psup[fi]...)
		b.idx[fi] = 0
	}
	b.n = 0
	b.w, b.dig, b.col = b.w[:0], b.dig[:0], b.col[:0]
	for {
		w := 1.0
		for fi := range p.facs {
			w *= pred[p.facs[fi].off+int(b.supp[fi][b.idx[fi]])]
		}
		if w > 0 {
			b.w = append(b.w, w)
			for fi := range p.facs {
				b.dig = append(b.dig, b.supp[fi][b.idx[fi]])
			}
			for mi := range p.mods {
				md := &p.mods[mi]
				c := 0
				for k, f := range md.deps {
					c += int(b.supp[f][b.idx[f]]) * md.colStride[k]
				}
				b.col = append(b.col, int32(c))
			}
			b.n++
		}
		f := p.nf - 1
		for ; f >= 0; f-- {
			b.idx[f]++
			if b.idx[f] < len(b.supp[f]) {
				break
			}
			b.idx[f] = 0
		}
		if f < 0 {
			break
		}
	}
	for m := range b.lv {
		if cap(b.lv[m]) < b.n {
			b.lv[m] = make([]float64, b.n)
		}
		b.lv[m] = b.lv[m][:b.n]
	}
	copy(b.lv[0], b.w)
}

// enumerate collects in b.leaves the outcomes kept after the predicted
// belief pred (Options.Branch, PruneOutcomes, MaxBranches), in
// enumeration order, each with its posterior; it reports whether
// MaxBranches cut some.
func (b *brancher) enumerate(p *Planner, pred []float64) bool {
	b.support(p, pred)
	for mi := range p.mods {
		b.outs[mi] = b.emitted(p, mi)
	}
	b.leaves = b.leaves[:0]
	b.order = 0
	if p.o.Branch == Marginal {
		for mi := range p.mods {
			md := &p.mods[mi]
			q := b.marg[mi]
			for o := range md.no {
				row := md.a[o*md.size : (o+1)*md.size]
				v := 0.0
				for j, w := range b.w {
					v += w * row[b.col[j*p.nm+mi]]
				}
				q[o] = v
			}
		}
	}
	z := 0.0
	for _, w := range b.w {
		z += w
	}
	b.thresh, b.fallback = p.o.PruneOutcomes, false
	capped := b.walk(p, 0, 1, z, 0)
	if len(b.leaves) == p.o.MaxBranches {
		// The heap reordered them.
		sort.Slice(b.leaves, func(i, j int) bool { return b.leaves[i].order < b.leaves[j].order })
	}
	if len(b.leaves) == 0 {
		// No outcome reaches PruneOutcomes (three of 1/3 each under p =
		// 0.4, say): keep the most probable, so that the action does not
		// lose its future, ties up to ⌊1/p⌋ of them (the bound the
		// estimate counts), the earliest first.
		b.thresh, b.fallback, b.best, b.order = 0, true, 0, 0
		b.limit = min(p.o.MaxBranches, max(1, int(1/p.o.PruneOutcomes)))
		capped = b.walk(p, 0, 1, z, 0)
	}
	return capped
}

// walk branches over the outcomes of modality mi given the outcomes of the
// modalities before it: b.lv[mi][j] is the joint probability of support
// state j and those outcomes, z its sum, prob the probability of the
// partial outcome (z for Joint, the product of the marginals for
// Marginal). A partial outcome below PruneOutcomes is cut with everything
// that completes it (a completion is never more probable), and so is one
// that no support state can emit (z = 0). obs is the joint outcome index
// of the partial outcome.
func (b *brancher) walk(p *Planner, mi int, prob, z float64, obs int) bool {
	if mi == p.nm {
		return b.leaf(p, prob, z, obs)
	}
	md := &p.mods[mi]
	cur, nxt := b.lv[mi], b.lv[mi+1]
	capped := false
	for _, o32 := range b.outs[mi] {
		o := int(o32)
		var pr float64
		if p.o.Branch == Marginal {
			qo := b.marg[mi][o]
			if qo == 0 {
				continue
			}
			pr = prob * qo
			if pr == 0 || pr < b.thresh {
				continue
			}
		}
		row := md.a[o*md.size : (o+1)*md.size]
		zz := 0.0
		for j, x := range cur {
			v := x * row[b.col[j*p.nm+mi]]
			nxt[j] = v
			zz += v
		}
		if zz == 0 {
			continue
		}
		if p.o.Branch == Joint {
			pr = zz
			if pr < b.thresh {
				continue
			}
		}
		if b.walk(p, mi+1, pr, zz, obs+o*md.stride) {
			capped = true
		}
	}
	return capped
}

// emitted returns the outcomes of modality mi that a state of the
// support may emit, ascending: the non-zero rows of the support's columns
// of A when they are few (maxEmitted), else every outcome. Those left out
// have probability 0 given the support, which walk skips.
func (b *brancher) emitted(p *Planner, mi int) []int32 {
	md := &p.mods[mi]
	if b.n == 1 {
		c := b.col[mi]
		return md.emits[md.estart[c]:md.estart[c+1]]
	}
	total := 0
	for j := range b.n {
		c := b.col[j*p.nm+mi]
		total += int(md.estart[c+1] - md.estart[c])
	}
	if total > maxEmitted || total >= md.no {
		return md.all
	}
	e := b.emit[mi][:0]
	for j := range b.n {
		c := b.col[j*p.nm+mi]
		for _, o := range md.emits[md.estart[c]:md.estart[c+1]] {
			// Insertion into the ascending list, once each.
			k := len(e)
			for k > 0 && e[k-1] > o {
				k--
			}
			if k > 0 && e[k-1] == o {
				continue
			}
			e = append(e, 0)
			copy(e[k+1:], e[k:])
			e[k] = o
		}
	}
	b.emit[mi] = e
	return e
}

// maxEmitted bounds the outcomes gathered by emitted: past it, an
// insertion sort (quadratic) would cost more than walking every outcome,
// most of which the gathered list would hold anyway.
const maxEmitted = 32

// leaf records a complete outcome (one per modality) of probability
// prob; the joint over the support is b.lv[nm], of sum z.
func (b *brancher) leaf(p *Planner, prob, z float64, obs int) bool {
	lf := leaf{prob: prob, order: b.order, obs: obs}
	b.order++
	capped := false
	if b.fallback {
		switch {
		case prob < b.best:
			return false
		case prob > b.best:
			b.best, b.leaves = prob, b.leaves[:0]
		case len(b.leaves) >= b.limit:
			return b.limit == p.o.MaxBranches
		}
		lf.slot = len(b.leaves)
		b.leaves = append(b.leaves, lf)
		b.writePosterior(p, lf.slot, z)
		return false
	}
	if len(b.leaves) < p.o.MaxBranches {
		lf.slot = len(b.leaves)
		b.leaves = append(b.leaves, lf)
		if len(b.leaves) == p.o.MaxBranches {
			heap.Init(&b.leaves)
		}
	} else {
		capped = true
		if !(prob > b.leaves[0].prob) {
			return true
		}
		lf.slot = b.leaves[0].slot
		b.leaves[0] = lf
		heap.Fix(&b.leaves, 0)
	}
	b.writePosterior(p, lf.slot, z)
	return capped
}

// writePosterior writes into slot the marginals of every factor under the
// joint b.lv[nm] / z.
func (b *brancher) writePosterior(p *Planner, slot int, z float64) {
	need := (slot + 1) * b.ns
	if len(b.post) < need {
		b.post = append(b.post, make([]float64, need-len(b.post))...)
	}
	q := b.post[slot*b.ns : need]
	clear(q)
	l := b.lv[p.nm]
	for j, x := range l {
		if x == 0 {
			continue
		}
		for fi := range p.facs {
			q[p.facs[fi].off+int(b.dig[j*p.nf+fi])] += x
		}
	}
	// Only the support's entries: the others are 0, and 0/z = 0.
	for fi := range p.facs {
		f := &p.facs[fi]
		for _, i := range b.supp[fi] {
			q[f.off+int(i)] /= z
		}
	}
}

// nonZero returns the positions of the non-zero entries of the posterior
// of leaf slot k, ascending: within the support of the predicted belief.
func (b *brancher) nonZero(p *Planner, k int) []int32 {
	q := b.posterior(k)
	b.nz = b.nz[:0]
	for fi := range p.facs {
		off := int32(p.facs[fi].off)
		for _, i := range b.supp[fi] {
			if q[off+i] != 0 {
				b.nz = append(b.nz, off+i)
			}
		}
	}
	return b.nz
}

// posterior returns the posterior of leaf slot k.
func (b *brancher) posterior(k int) []float64 { return b.post[k*b.ns : (k+1)*b.ns] }
