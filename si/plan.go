package si

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/arbor-ai/arbor/internal/fastexp"
	"github.com/arbor-ai/arbor/pomdp"
)

// Result is what one search computed at its root.
type Result struct {
	// G[u] is the expected free energy of joint action u at the root,
	// G(u | q) = G_local(u) + Σ_o Q(o | u, q) Σ_u' Q(u' | o) G(u' | q^o),
	// searched Depth steps deep; +Inf for an action pruned at the root
	// (PruneActions), which has probability 0.
	G []float64
	// Local[u] = Risk[u] + Ambiguity[u] − Novelty[u] is the one-step
	// expected free energy of action u from the root (aci's G at horizon
	// 1); the three terms are those of pomdp.StepCost. Novelty is nil
	// without Options.Novelty.
	Local, Risk, Ambiguity, Novelty []float64
	// ActionProbs[u] = Q(u) = σ(−γ G)(u) over the actions expanded at the
	// root (0 for a pruned one).
	ActionProbs []float64
	// Expanded[u] reports that action u was searched past its first step
	// (not pruned at the root).
	Expanded []bool
	// Value is Σ_u Q(u) G(u): the expected free energy of the root belief.
	Value float64
	// Depth is the depth G is for: Options.Depth, or less when Truncated.
	Depth int
	// Truncated reports that the node budget (Options.MaxNodes) ran out
	// before the search reached Options.Depth: G and ActionProbs are
	// those of the deepest depth completed (Depth).
	Truncated bool
	// Nodes is the number of beliefs scored (every action's one-step
	// expected free energy computed); a belief reached again, by another
	// path or at another depth, is scored once.
	Nodes int
	// Reused counts the values of a (belief, remaining depth) pair taken
	// from the memo instead of being computed again.
	Reused int
	// Branches is the number of (action, outcome) branches, over every
	// expanded action of every node branched (actions that predict the
	// same belief share their branches, counted at each).
	Branches int
	// Capped counts the actions whose outcomes exceeded
	// Options.MaxBranches (the most probable were kept, renormalised).
	Capped int
}

// errBudget stops a deepening pass when the node budget is spent.
var errBudget = errors.New("si: node budget spent")

// Node stages.
const (
	registered uint8 = iota // its belief is known
	scored                  // every action's one-step G computed, pruning done
	branched                // the outcomes of every kept action enumerated
)

// facInfo is one hidden-state factor, with its B column-compressed per
// control: for control c and previous state j, the entries k in
// [start[c(ns+1)+j], start[c(ns+1)+j+1]) hold the next state row[k] and
// the probability val[k].
type facInfo struct {
	off, ns, nu, stride int
	start, row          []int
	val                 []float64
}

// modInfo is one modality: its A flat over [o][column], the column of a
// joint state being Σ_k s_(deps[k]) colStride[k].
type modInfo struct {
	no, size  int
	stride    int // of the modality's outcome in the joint outcome index
	deps      []int
	colStride []int
	a         []float64
	// The outcomes a column of A can emit (A > 0), ascending: those of
	// column c are emits[estart[c]:estart[c+1]]; all lists the outcomes.
	estart []int32
	emits  []int32
	all    []int32
}

// Planner runs sophisticated-inference searches on one model with one set
// of options, reusing its tables' memory from one search to the next. A
// Planner is not safe for concurrent use.
type Planner struct {
	m              *pomdp.Model
	o              Options
	ns, nu, nf, nm int
	w              []float64 // novelty weights, nil without Options.Novelty
	facs           []facInfo
	mods           []modInfo

	// The search's tables, one entry per belief (node id), nu entries per
	// node for the actions.
	bel                   []float64 // ns per node
	nz                    []int32   // node id's non-zero entries, ascending: nz[nzLo[id]:nzLo[id+1]]
	nzLo                  []int32
	heads                 index   // the first node of every hash
	chain                 []int32 // the next node with the same hash, -1 at the end
	stage                 []uint8
	vals                  [][]float64 // vals[id][r]: the node's value r steps from the horizon, NaN if not computed
	local, risk, amb, nov []float64
	predOf                []int32   // the step cache's entry of the action's predicted belief
	qloc                  []float64 // σ(−γ G_local) over every action, when PruneActions (score)
	kept                  []bool
	olo, ohi              []int32 // the action's branches: [olo, ohi) of oprob and ochild
	oprob                 []float64
	ochild                []int32
	oobs                  []int32 // the joint outcome of every branch

	gbuf, qbuf [][]float64 // scratch per remaining depth
	pred       []float64
	sup        pomdp.Support // the support of pred, what StepCostOn sums over
	steps      stepCache
	psup       [][]int32 // per factor, the states where pred is not 0, ascending (propagate)
	touched    []bool    // per state: propagate reached it
	ctrl       []int     // per joint action and factor: where its B's column starts begin
	rootNZ     []int32
	negZero    bool // the root belief has an entry −0 (no posterior has)
	br         brancher

	nodes, reused, capped int
	branches              int // (action, outcome) branches, shared ones counted at every action
	checkEvery            int // nodes between two looks at ctx
	ctx                   context.Context

	// The last search that completed (Tree).
	root    int32
	depth   int
	planned bool
	gen     uint64 // searches started
}

// NewPlanner validates opts (nil: the defaults) for model m and returns a
// planner. Errors name the option at fault ("Options.PruneOutcomes: 1.5,
// want a number in [0, 1)").
func NewPlanner(m *pomdp.Model, opts *Options) (*Planner, error) {
	if err := pomdp.Check(m); err != nil {
		return nil, apiError(err)
	}
	o := opts.Resolved()
	if err := o.validate(m); err != nil {
		return nil, apiError(err)
	}
	p := &Planner{
		m: m, o: o, ns: m.NumStates(), nu: m.NumActions(),
		nf: m.NumFactors(), nm: m.NumModalities(),
	}
	if o.Novelty {
		p.w = m.NoveltyWeights()
	}
	// Joint action u has control (u/stride_f) % |U_f| of factor f; a
	// factor sharing another's controls takes that one's stride.
	strides := make([]int, p.nf)
	stride := 1
	for f := p.nf - 1; f >= 0; f-- {
		if m.ControlOwner(f) == f {
			strides[f] = stride
			stride *= m.FactorControls(f)
		}
	}
	for f := range p.nf {
		ns, nu := m.FactorSize(f), m.FactorControls(f)
		fi := facInfo{off: m.FactorOffset(f), ns: ns, nu: nu, stride: strides[m.ControlOwner(f)]}
		b := m.FactorB(f)
		fi.start = make([]int, 0, nu*(ns+1))
		for c := range nu {
			for j := range ns {
				fi.start = append(fi.start, len(fi.row))
				for i := range ns {
					if v := b[(c*ns+i)*ns+j]; v != 0 {
						fi.row = append(fi.row, i)
						fi.val = append(fi.val, v)
					}
				}
			}
			fi.start = append(fi.start, len(fi.row))
		}
		p.facs = append(p.facs, fi)
	}
	for i := range p.nm {
		deps := m.DependsOn(i)
		md := modInfo{no: m.ModalitySize(i), deps: deps, colStride: make([]int, len(deps)), a: m.ModalityA(i)}
		md.stride = obsStride(m, i)
		md.size = 1
		for k := len(deps) - 1; k >= 0; k-- {
			md.colStride[k] = md.size
			md.size *= m.FactorSize(deps[k])
		}
		nnz := 0
		for _, v := range md.a {
			if v != 0 {
				nnz++
			}
		}
		md.estart = make([]int32, 0, md.size+1)
		md.emits = make([]int32, 0, nnz)
		md.all = make([]int32, 0, md.no)
		for c := range md.size {
			md.estart = append(md.estart, int32(len(md.emits)))
			for o := range md.no {
				if md.a[o*md.size+c] != 0 {
					md.emits = append(md.emits, int32(o))
				}
			}
		}
		md.estart = append(md.estart, int32(len(md.emits)))
		for o := range md.no {
			md.all = append(md.all, int32(o))
		}
		p.mods = append(p.mods, md)
	}
	// Look at the context about every 40 ms of scoring (the estimate's
	// cost per node), and at least every 256 nodes.
	est, err := EstimatePlan(m, &o)
	if err != nil {
		return nil, apiError(err)
	}
	perNode := est.Seconds / max(est.Nodes, 1)
	p.checkEvery = max(1, min(256, int(0.04/perNode)))
	p.gbuf = make([][]float64, o.Depth+1)
	p.qbuf = make([][]float64, o.Depth+1)
	for r := range p.gbuf {
		p.gbuf[r] = make([]float64, p.nu)
		p.qbuf[r] = make([]float64, p.nu)
	}
	p.pred = make([]float64, p.ns)
	p.psup = make([][]int32, p.nf)
	// Joint action u has control (u/stride_f) % |U_f| of factor f, whose
	// columns of B start at that control times |S_f| + 1.
	p.ctrl = make([]int, p.nu*p.nf)
	for u := range p.nu {
		for fi, f := range p.facs {
			p.ctrl[u*p.nf+fi] = (u / f.stride) % f.nu * (f.ns + 1)
		}
	}
	p.touched = make([]bool, p.ns)
	p.steps.factor = 2
	p.br.init(p)
	return p, nil
}

// Options returns the planner's resolved options.
func (p *Planner) Options() Options { return p.o.Resolved() }

// Plan searches from the state belief qs (every factor's marginal, one
// after the other, as pomdp.Past.Belief and pomdp.StatePosterior write it)
// with the options of NewPlanner. It deepens one step at a time, reusing
// every belief and value of the shallower passes, so that when the node
// budget runs out the result is that of the deepest depth completed
// (Result.Truncated). A done ctx stops it with ctx's error.
func Plan(ctx context.Context, m *pomdp.Model, qs []float64, opts *Options) (*Result, error) {
	p, err := NewPlanner(m, opts)
	if err != nil {
		return nil, apiError(err)
	}
	return apiResult(p.Plan(ctx, qs))
}

// Plan is the package's Plan with the planner's model and options.
func (p *Planner) Plan(ctx context.Context, qs []float64) (*Result, error) {
	res := new(Result)
	if err := p.PlanInto(ctx, qs, res); err != nil {
		return nil, apiError(err)
	}
	return res, nil
}

// PlanInto is Plan written into res, whose vectors it reuses when they
// have the lengths this planner's give them (the same numbers, bit for
// bit; any other vectors are replaced, not written into): a caller that keeps
// one Result from one search to the next, as Agent.DecideInto does,
// searches without allocating. On an error res is left unspecified.
func (p *Planner) PlanInto(ctx context.Context, qs []float64, res *Result) error {
	if res == nil {
		return errors.New("si: PlanInto: nil result")
	}
	if err := pomdp.CheckBelief(p.m, "qs", qs); err != nil {
		return apiError(err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return apiError(err)
	}
	p.reset(ctx)
	p.planned = false
	p.gen++
	p.rootNZ, p.negZero = p.rootNZ[:0], false
	for i, x := range qs {
		if x != 0 {
			p.rootNZ = append(p.rootNZ, int32(i))
		} else if math.Signbit(x) {
			p.negZero = true
		}
	}
	root := p.intern(qs, p.rootNZ)
	depth := 0
	truncated := false
	for d := 1; d <= p.o.Depth; d++ {
		if _, err := p.value(root, d); err != nil {
			if errors.Is(err, errBudget) {
				truncated = true
				break
			}
			return apiError(err)
		}
		depth = d
	}
	if err := p.rootResult(root, depth, res); err != nil {
		return apiError(err)
	}
	res.Truncated = truncated
	res.Nodes, res.Reused, res.Capped, res.Branches = p.nodes, p.reused, p.capped, p.branches
	p.ctx = nil
	p.root, p.depth, p.planned = root, depth, true
	return nil
}

// reset empties the tables, keeping their memory.
func (p *Planner) reset(ctx context.Context) {
	p.ctx = ctx
	p.bel = p.bel[:0]
	p.nz, p.nzLo = p.nz[:0], append(p.nzLo[:0], 0)
	p.heads.reset()
	p.chain, p.stage = p.chain[:0], p.stage[:0]
	p.vals = p.vals[:0]
	p.local, p.risk, p.amb, p.nov = p.local[:0], p.risk[:0], p.amb[:0], p.nov[:0]
	p.predOf, p.qloc = p.predOf[:0], p.qloc[:0]
	p.kept, p.olo, p.ohi = p.kept[:0], p.olo[:0], p.ohi[:0]
	p.oprob, p.ochild, p.oobs = p.oprob[:0], p.ochild[:0], p.oobs[:0]
	p.nodes, p.reused, p.capped, p.branches = 0, 0, 0, 0
	p.steps.reset()
}

// belief returns node id's belief (a view of the table).
func (p *Planner) belief(id int32) []float64 {
	i := int(id) * p.ns
	return p.bel[i : i+p.ns : i+p.ns]
}

// nonZero returns the positions of node id's non-zero entries, ascending
// (a view of the table).
func (p *Planner) nonZero(id int32) []int32 {
	return p.nz[p.nzLo[id]:p.nzLo[id+1]]
}

// hashBelief mixes the bits of q's non-zero entries, nz (ascending), with
// their positions (FNV-1a's offset basis and prime, with a shift to
// spread the high bits): a sharp belief hashes in the time of its
// support.
func hashBelief(q []float64, nz []int32) uint64 {
	h := uint64(14695981039346656037)
	for _, i := range nz {
		h ^= math.Float64bits(q[i]) + uint64(i)
		h *= 1099511628211
		h ^= h >> 31
	}
	return h
}

// intern returns the node whose belief has the bits of q, adding it when
// there is none: identical beliefs reached by different paths are one
// node. nz lists q's non-zero entries, ascending.
func (p *Planner) intern(q []float64, nz []int32) int32 {
	h := hashBelief(q, nz)
	head, ok := p.heads.get(h)
	if ok {
		for id := head; id >= 0; id = p.chain[id] {
			if p.same(id, q, nz) {
				return id
			}
		}
	} else {
		head = -1
	}
	id := int32(len(p.stage))
	p.bel = append(p.bel, q...)
	p.nz = append(p.nz, nz...)
	p.nzLo = append(p.nzLo, int32(len(p.nz)))
	p.chain = append(p.chain, head)
	p.heads.put(h, id)
	p.stage = append(p.stage, registered)
	if int(id) < cap(p.vals) {
		p.vals = p.vals[:id+1]
		p.vals[id] = p.vals[id][:0]
	} else {
		p.vals = append(p.vals, nil)
	}
	for range p.nu {
		p.local = append(p.local, 0)
		p.predOf = append(p.predOf, -1)
		p.qloc = append(p.qloc, 0)
		p.risk = append(p.risk, 0)
		p.amb = append(p.amb, 0)
		p.nov = append(p.nov, 0)
		p.kept = append(p.kept, false)
		p.olo = append(p.olo, 0)
		p.ohi = append(p.ohi, 0)
	}
	return id
}

// same reports whether node id's belief has the bits of q, whose non-zero
// entries are nz: the same non-zero entries, bit for bit, and the others
// +0 in both unless the root has a −0.
func (p *Planner) same(id int32, q []float64, nz []int32) bool {
	if p.negZero {
		return sameBits(p.belief(id), q)
	}
	mine := p.nonZero(id)
	if len(mine) != len(nz) {
		return false
	}
	bel := p.belief(id)
	for k, i := range mine {
		if i != nz[k] || math.Float64bits(bel[i]) != math.Float64bits(q[i]) {
			return false
		}
	}
	return true
}

// sortSmall sorts x ascending: by insertion when short (a sharp
// prediction's support), else slices.Sort (past 16 entries, a rough
// point where insertion's quadratic cost passes the generic sort's own;
// slices.Sort itself sorts 12 or fewer by insertion).
func sortSmall(x []int32) {
	if len(x) > 16 {
		slices.Sort(x)
		return
	}
	for i := 1; i < len(x); i++ {
		v := x[i]
		j := i
		for ; j > 0 && x[j-1] > v; j-- {
			x[j] = x[j-1]
		}
		x[j] = v
	}
}

func sameBits(a, b []float64) bool {
	for i, x := range a {
		if math.Float64bits(x) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// propagate sets p.pred = B_u prev factor by factor, as pomdp.Propagate
// does (the same sums in the same order), over prev's non-zero entries nz
// (ascending) and the non-zero entries of B, and sets p.psup to its
// support.
func (p *Planner) propagate(prev []float64, nz []int32, u int) {
	p.propagateFrom(prev, nz, u, -1)
}

// propagateFrom is propagate when p.pred and p.psup hold B_last prev
// (last >= 0, the same prev and nz): the factors whose control is the
// same under u and last keep their prediction (the T-maze's context,
// which no action moves).
func (p *Planner) propagateFrom(prev []float64, nz []int32, u, last int) {
	next := p.pred
	k0 := 0
	for fi := range p.facs {
		f := &p.facs[fi]
		c := p.ctrl[u*p.nf+fi]
		if last >= 0 && c == p.ctrl[last*p.nf+fi] {
			for end := int32(f.off + f.ns); k0 < len(nz) && nz[k0] < end; k0++ {
			}
			continue
		}
		nx := next[f.off : f.off+f.ns]
		// next is p.pred, 0 outside its last support.
		for _, r := range p.psup[fi] {
			nx[r] = 0
		}
		st := f.start[c : c+f.ns+1]
		touched := p.touched[f.off : f.off+f.ns]
		sup := p.psup[fi][:0]
		end := int32(f.off + f.ns)
		for ; k0 < len(nz) && nz[k0] < end; k0++ {
			j := int(nz[k0]) - f.off
			x := prev[f.off+j]
			for k := st[j]; k < st[j+1]; k++ {
				r := f.row[k]
				nx[r] += f.val[k] * x
				if !touched[r] {
					touched[r] = true
					sup = append(sup, int32(r))
				}
			}
		}
		// The states reached, ascending, less those whose sum is 0 (a
		// product that underflowed).
		n := 0
		for _, r := range sup {
			touched[r] = false
			if nx[r] != 0 {
				sup[n] = r
				n++
			}
		}
		sup = sup[:n]
		sortSmall(sup)
		p.psup[fi] = sup
	}
}

// score computes every action's one-step expected free energy from node
// id's belief and decides which actions are expanded. It is the one place
// that spends the node budget.
func (p *Planner) score(id int32) error {
	if p.stage[id] >= scored {
		return nil
	}
	if p.nodes >= p.o.MaxNodes {
		return errBudget
	}
	p.nodes++
	if p.nodes%p.checkEvery == 0 {
		if err := p.ctx.Err(); err != nil {
			return err
		}
	}
	q, nz := p.belief(id), p.nonZero(id)
	base := int(id) * p.nu
	for u := range p.nu {
		p.propagateFrom(q, nz, u, u-1)
		e, r, a, n := p.stepCost()
		p.predOf[base+u] = e
		p.risk[base+u], p.amb[base+u], p.nov[base+u] = r, a, n
		p.local[base+u] = r + a - n
	}
	kept := p.kept[base : base+p.nu]
	for u := range kept {
		kept[u] = true
	}
	if x := p.o.PruneActions; x > 0 {
		q := p.qloc[base : base+p.nu]
		if err := softmax(q, p.local[base:base+p.nu], kept, p.o.Gamma); err != nil {
			return err
		}
		best := 0.0
		for _, v := range q {
			best = max(best, v)
		}
		bound := x
		if p.o.PruneRelative {
			bound = x * best
		}
		any := false
		for u, v := range q {
			kept[u] = v >= bound
			any = any || kept[u]
		}
		if !any {
			// Every action is below an absolute bound: the most probable
			// ones are expanded (the search never prunes a node bare).
			for u, v := range q {
				kept[u] = v == best
			}
		}
	}
	p.stage[id] = scored
	return nil
}

// branch enumerates, for every expanded action of node id, the outcomes
// the search keeps and the exact posterior after each, adding the
// posteriors as nodes.
func (p *Planner) branch(id int32) error {
	if p.stage[id] >= branched {
		return nil
	}
	base := int(id) * p.nu
	for u := range p.nu {
		if !p.kept[base+u] {
			continue
		}
		e := p.predOf[base+u]
		if e >= 0 {
			if r := p.steps.branches[e]; r[0] >= 0 {
				// Another action, of this node or another, predicted the
				// same belief: the same outcomes and posteriors.
				p.olo[base+u], p.ohi[base+u] = r[0], r[1]
				p.branches += int(r[1] - r[0])
				if p.steps.capped[e] {
					p.capped++
				}
				continue
			}
			p.steps.load(p, e)
		} else {
			p.propagate(p.belief(id), p.nonZero(id), u)
		}
		capped := p.br.enumerate(p, p.pred)
		if capped {
			p.capped++
		}
		lo := len(p.oprob)
		total := 0.0
		for _, lf := range p.br.leaves {
			total += lf.prob
		}
		for i, lf := range p.br.leaves {
			var child int32
			if i > 0 && p.br.n == 1 {
				// One joint state predicted: every outcome's posterior is
				// that state's marginals, each x/x = 1, the same bits.
				child = p.ochild[len(p.ochild)-1]
			} else {
				child = p.intern(p.br.posterior(lf.slot), p.br.nonZero(p, lf.slot))
			}
			p.oprob = append(p.oprob, lf.prob/total)
			p.ochild = append(p.ochild, child)
			p.oobs = append(p.oobs, int32(lf.obs))
		}
		if len(p.oprob) > math.MaxInt32 {
			return fmt.Errorf("si: more than %d branches", math.MaxInt32)
		}
		p.olo[base+u], p.ohi[base+u] = int32(lo), int32(len(p.oprob))
		p.branches += len(p.oprob) - lo
		if e >= 0 {
			p.steps.branches[e] = [2]int32{int32(lo), int32(len(p.oprob))}
			p.steps.capped[e] = capped
		}
	}
	p.stage[id] = branched
	return nil
}

// value returns V(q, r) = Σ_u Q(u) G(u | q) for node id's belief q with r
// steps to the horizon (V = 0 at the horizon), memoised.
func (p *Planner) value(id int32, r int) (float64, error) {
	if r == 0 {
		return 0, nil
	}
	if v := p.vals[id]; r < len(v) && !math.IsNaN(v[r]) {
		p.reused++
		return v[r], nil
	}
	g, q := p.gbuf[r], p.qbuf[r]
	if err := p.actionValues(id, r, g); err != nil {
		return 0, err
	}
	v, err := p.combine(id, r, g, q, false)
	if err != nil {
		return 0, err
	}
	vs := p.vals[id]
	for len(vs) <= r {
		vs = append(vs, math.NaN())
	}
	vs[r] = v
	p.vals[id] = vs
	return v, nil
}

// actionValues sets g[u] = G(u | q) for node id with r steps to the
// horizon: +Inf for an action not expanded.
func (p *Planner) actionValues(id int32, r int, g []float64) error {
	if p.stage[id] < scored {
		if err := p.score(id); err != nil {
			return err
		}
	}
	if r >= 2 && p.stage[id] < branched {
		if err := p.branch(id); err != nil {
			return err
		}
	}
	base := int(id) * p.nu
	for u := range p.nu {
		if !p.kept[base+u] {
			g[u] = math.Inf(1)
			continue
		}
		x := p.local[base+u]
		if r >= 2 {
			for k := p.olo[base+u]; k < p.ohi[base+u]; k++ {
				// The memo looked at here, value's first step, without
				// the call.
				c := p.ochild[k]
				var v float64
				if vs := p.vals[c]; r-1 < len(vs) && !math.IsNaN(vs[r-1]) {
					p.reused++
					v = vs[r-1]
				} else {
					var err error
					if v, err = p.value(c, r-1); err != nil {
						return err
					}
				}
				x += p.oprob[k] * v
			}
		}
		g[u] = x
	}
	return nil
}

// combine sets q = σ(−γ g) over node id's expanded actions, r steps from
// the horizon, and returns Σ_u q[u] g[u]. Without probs, q is scratch
// (σ's weights before they are divided by their sum) and the value is
// that sum of weights times g divided once by their total.
func (p *Planner) combine(id int32, r int, g, q []float64, probs bool) (float64, error) {
	base := int(id) * p.nu
	kept := p.kept[base : base+p.nu]
	z := 1.0
	if r == 1 && p.o.PruneActions > 0 && !slices.Contains(kept, false) {
		// One step from the horizon g is G_local, and with every action
		// kept σ is the one score computed to prune.
		copy(q, p.qloc[base:base+p.nu])
	} else {
		var err error
		if z, err = weights(q, g, kept, p.o.Gamma); err != nil {
			return 0, err
		}
		if probs {
			normalise(q, z)
			z = 1
		}
	}
	v := 0.0
	for u, x := range q {
		if x > 0 {
			v += x * g[u]
		}
	}
	if z != 1 {
		v /= z
	}
	return v, nil
}

// softmax sets q[u] = σ(−γ g)(u) over the actions with kept[u] (0 for the
// others). An action with g = +Inf gets 0 when some kept action is finite;
// when every kept action is +Inf they tie (the limit M → ∞ of σ(−γ min(g,
// M)), the rule of aci's policy posterior).
func softmax(q, g []float64, kept []bool, gamma float64) error {
	z, err := weights(q, g, kept, gamma)
	if err != nil {
		return err
	}
	normalise(q, z)
	return nil
}

// normalise sets q to q/z, as q times 1/z (within an ulp of the quotient).
func normalise(q []float64, z float64) {
	if z == 1 {
		return
	}
	inv := 1 / z
	for u := range q {
		q[u] *= inv
	}
}

// weights sets q[u] to σ(−γ g)(u) times their sum z, which it returns:
// exp(−γ g[u] − max) over the kept actions (1 for the most probable, z >=
// 1), 1 at each of the n kept actions when all are +Inf (z = n), 1 at a
// lone finite kept action (z = 1); 0 for the others.
func weights(q, g []float64, kept []bool, gamma float64) (float64, error) {
	mx := math.Inf(-1)
	n := 0
	for u, x := range g {
		if !kept[u] {
			continue
		}
		if math.IsNaN(x) {
			return 0, errors.New("si: expected free energy NaN")
		}
		n++
		// The largest exponent; NaN is out, and where ±0 tie either is
		// right (x − (±0) = x, exp(±0) = 1).
		if v := -gamma * x; v > mx {
			mx = v
		}
	}
	if n == 1 && !math.IsInf(mx, 0) || math.IsInf(mx, -1) {
		// One finite action: σ is 1 there (exp(0) = 1 exactly), 0
		// elsewhere. Every kept action +Inf: 1/n each.
		for u := range q {
			q[u] = 0
			if kept[u] {
				q[u] = 1
			}
		}
		return float64(n), nil
	}
	fastexp.Init() // the exponentials' tables, made at the first softmax
	z := 0.0
	for u, x := range g {
		q[u] = 0
		if kept[u] {
			q[u] = 1 // the most probable: exp(0) = 1 exactly
			if d := -gamma*x - mx; d != 0 {
				q[u] = fastexp.ExpSplit(d)
			}
			z += q[u]
		}
	}
	return z, nil
}

// rootResult assembles the result at depth d from the memo.
func (p *Planner) rootResult(root int32, d int, res *Result) error {
	nu := p.nu
	// The five (six with novelty) vectors in one array, each capped at
	// its end so that an append copies it; a result that has them of
	// this length keeps them.
	k := 5
	if p.w != nil {
		k = 6
	}
	old := *res
	*res = Result{Depth: d}
	if len(old.G) == nu && len(old.ActionProbs) == nu && len(old.Local) == nu && len(old.Risk) == nu &&
		len(old.Ambiguity) == nu && len(old.Expanded) == nu && (k == 5 || len(old.Novelty) == nu) {
		res.G, res.ActionProbs, res.Local, res.Risk, res.Ambiguity, res.Expanded = old.G, old.ActionProbs, old.Local, old.Risk, old.Ambiguity, old.Expanded
		if k == 6 {
			res.Novelty = old.Novelty // nil without novelty, as Plan gives it
		}
		clear(res.G)
		clear(res.ActionProbs)
	} else {
		f := make([]float64, k*nu)
		vec := func(i int) []float64 { return f[i*nu : (i+1)*nu : (i+1)*nu] }
		res.G, res.ActionProbs, res.Local, res.Risk, res.Ambiguity = vec(0), vec(1), vec(2), vec(3), vec(4)
		res.Expanded = make([]bool, nu)
		if k == 6 {
			res.Novelty = vec(5)
		}
	}
	if err := p.actionValues(root, d, res.G); err != nil {
		return err
	}
	v, err := p.combine(root, d, res.G, res.ActionProbs, true)
	if err != nil {
		return err
	}
	res.Value = v
	base := int(root) * nu
	copy(res.Expanded, p.kept[base:base+nu])
	copy(res.Local, p.local[base:base+nu])
	copy(res.Risk, p.risk[base:base+nu])
	copy(res.Ambiguity, p.amb[base:base+nu])
	if p.w != nil {
		copy(res.Novelty, p.nov[base:base+nu])
	}
	return nil
}

// obsStride returns the stride of modality i's outcome in the joint
// outcome index (pomdp.Model.EncodeObs); 0 for a modality of one outcome.
func obsStride(m *pomdp.Model, i int) int {
	if m.ModalitySize(i) < 2 {
		return 0
	}
	outcomes := make([]int, m.NumModalities())
	outcomes[i] = 1
	o, _ := m.EncodeObs(outcomes)
	return o
}
