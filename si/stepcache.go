package si

import (
	"math"

	"github.com/arbor-ai/arbor/pomdp"
)

// stepCache holds the one-step expected free energy of every predicted
// belief scored in a search, keyed by the belief's bits: different nodes
// and actions that predict the same belief (the T-maze's moves, which
// lead to the same arm whatever the start; a maze's wall, where two
// actions stay put) score it once. A predicted belief is held sparse:
// its non-zero entries (the others are +0, as propagate writes them).
type stepCache struct {
	heads index
	chain []int32   // the next entry with the same hash, -1 at the end
	lo    []int32   // entry e's non-zero entries are pos and val[lo[e]:lo[e+1]]
	pos   []int32   // their positions, ascending
	val   []float64 // their values
	cost  [][3]float64
	// The branches of the entry's prediction once a node has branched on
	// it: [olo, ohi) of the planner's branch tables (-1, -1 before), and
	// whether MaxBranches cut them. The outcomes and posteriors after an
	// action depend only on its predicted belief, so every other action
	// predicting the same belief takes them as they are.
	branches [][2]int32
	capped   []bool
	// The cache keeps at most factor times the entries of the belief
	// table (NewPlanner sets it to 2; a test, to 0).
	factor int
}

func (c *stepCache) reset() {
	c.heads.reset()
	c.chain, c.cost = c.chain[:0], c.cost[:0]
	c.branches, c.capped = c.branches[:0], c.capped[:0]
	c.lo, c.pos, c.val = append(c.lo[:0], 0), c.pos[:0], c.val[:0]
}

// stepCost returns the cache entry of p.pred, whose support propagate
// left in p.psup, and its risk, ambiguity and novelty: pomdp.StepCostOn's
// numbers, computed once per distinct predicted belief. The cache holds
// at most twice the entries of the belief table (a search of spread
// beliefs, whose predictions are as large as they are, would otherwise
// keep up to one per action and belief): past that a new prediction is
// scored and not kept, and its entry is −1.
func (p *Planner) stepCost() (e int32, risk, amb, nov float64) {
	c := &p.steps
	h := uint64(14695981039346656037) // FNV-1a's offset basis and prime, as hashBelief
	n := 0
	for fi := range p.facs {
		off := p.facs[fi].off
		for _, s := range p.psup[fi] {
			i := off + int(s)
			h ^= math.Float64bits(p.pred[i]) + uint64(i)
			h *= 1099511628211
			h ^= h >> 31
			n++
		}
	}
	head, ok := c.heads.get(h)
	if ok {
		for e := head; e >= 0; e = c.chain[e] {
			if c.same(p, e, n) {
				x := &c.cost[e]
				return e, x[0], x[1], x[2]
			}
		}
	} else {
		head = -1
	}
	p.sup.SetStates(p.m, p.psup)
	risk, amb, nov = pomdp.StepCostOn(p.m, p.pred, p.w, &p.sup)
	if len(c.val)+n > c.factor*len(p.bel) {
		return -1, risk, amb, nov
	}
	e = int32(len(c.cost))
	for fi := range p.facs {
		off := p.facs[fi].off
		for _, s := range p.psup[fi] {
			i := off + int(s)
			c.pos = append(c.pos, int32(i))
			c.val = append(c.val, p.pred[i])
		}
	}
	c.lo = append(c.lo, int32(len(c.pos)))
	c.chain = append(c.chain, head)
	c.cost = append(c.cost, [3]float64{risk, amb, nov})
	c.branches = append(c.branches, [2]int32{-1, -1})
	c.capped = append(c.capped, false)
	c.heads.put(h, e)
	return e, risk, amb, nov
}

// load sets p.pred and p.psup to the predicted belief of entry e, as
// propagate would (the values where they were computed, +0 elsewhere).
func (c *stepCache) load(p *Planner, e int32) {
	lo, hi := c.lo[e], c.lo[e+1]
	pos, val := c.pos[lo:hi], c.val[lo:hi]
	k := 0
	for fi := range p.facs {
		f := &p.facs[fi]
		nx := p.pred[f.off : f.off+f.ns]
		for _, r := range p.psup[fi] {
			nx[r] = 0
		}
		sup := p.psup[fi][:0]
		for ; k < len(pos) && int(pos[k]) < f.off+f.ns; k++ {
			sup = append(sup, pos[k]-int32(f.off))
			p.pred[pos[k]] = val[k]
		}
		p.psup[fi] = sup
	}
}

// same reports whether entry e holds p.pred, of n non-zero entries, bit
// for bit.
func (c *stepCache) same(p *Planner, e int32, n int) bool {
	lo, hi := c.lo[e], c.lo[e+1]
	if int(hi-lo) != n {
		return false
	}
	pos, val := c.pos[lo:hi], c.val[lo:hi]
	k := 0
	for fi := range p.facs {
		off := p.facs[fi].off
		for _, s := range p.psup[fi] {
			i := off + int(s)
			if int(pos[k]) != i || math.Float64bits(val[k]) != math.Float64bits(p.pred[i]) {
				return false
			}
			k++
		}
	}
	return true
}
