package btai

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/fastexp"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/schedule"
)

// prepareFuture computes what planning reads of the model: Ā and B̄ (the
// expectations of A and B, paper Table 2), H[Ā(.|s)], the logarithms of
// the floored Ā and B̄ in split form (vmp), Ā transposed and the products
// Ā B̄_u, and the novelty weights. It does the work once per model change:
// at the first Plan of the agent, and after that only when learning has
// changed the parameters (the concentrations of A or B that the graph
// learns, or the novelty counts over A), which it finds by comparing them
// with those it last used. With a fixed model Ā and B̄ are the model's own
// storage (pomdp.Model.SharedA, SharedB), which every agent of the model
// reads, and the agent holds no dense |U|·|S|² tensor of its own: products
// with B̄_u read its rows (mulRows, the same sums in the same order as
// the transposed form), ln B̄_u is kept in split form only (splitMat,
// sparse for the maze models) and the literal factors Cat(B̄_u) of the
// graph are made when the tree is first materialised (futureB).
func (a *Agent) prepareFuture() error {
	if a.fact != nil {
		return a.prepareFactorised()
	}
	ns, no, nu := a.ns, a.no, a.nu
	// conc is the Dirichlet over A that the agent learns, if any: the
	// graph's (the model has a) or the novelty counts.
	var conc []float64
	if a.aVar != nil {
		conc = a.aVar.Alpha()
	} else if a.nA != nil {
		conc = a.nA
	}
	var bconc []float64
	if a.bVar != nil {
		bconc = a.bVar.Alpha()
	}
	newA := !a.prepared || (conc != nil && !slices.Equal(conc, a.concA))
	newB := !a.prepared || (bconc != nil && !slices.Equal(bconc, a.concB))
	if !newA && !newB {
		return nil
	}
	a.prepared = false // until every part below is computed
	var err error
	if newA {
		if conc != nil {
			if !a.aOwn {
				// Never the model's storage (SharedA), which Mean would overwrite.
				a.abar, a.aOwn = make([]float64, no*ns), true
			}
			expfam.DirichletTensor{Alpha: conc, Shape: []int{no, ns}}.Mean(a.abar)
			if a.opts.Novelty {
				noveltyWeights(a.wT, conc, no, ns)
			}
			a.concA = append(a.concA[:0], conc...)
		} else {
			a.abar = a.m.SharedA(0)
		}
		if a.hA == nil {
			a.hA = make([]float64, ns)
			a.logA = make([]float64, no*ns)
		}
		// The future's factors, and the logarithms VMP uses, are floored
		// (floorColumns); prediction and costs use Ā and B̄ as they are.
		fa := append(a.afl[:0], a.abar...)
		pomdp.FloorColumns(fa, no, ns)
		a.afl = fa
		if a.futA, err = nodes.NewTransition(fa, []int{no, ns}); err != nil {
			return fmt.Errorf("btai: expected A: %w", err)
		}
		for s := range ns {
			h := 0.0
			for o := range no {
				if p := a.abar[o*ns+s]; p > 0 {
					h -= p * math.Log(p)
				}
			}
			a.hA[s] = h
		}
		for i, p := range fa {
			a.logA[i] = math.Log(p)
		}
		a.lnA.set(a.logA, no, ns)
		// A transposed, so that every matrix-vector product of a planning
		// iteration runs over contiguous rows with one accumulator per
		// output (see infer).
		a.aT = transpose(a.aT, a.abar, no, ns)
	}
	if newB {
		if bconc != nil {
			mean := expfam.DirichletTensor{Alpha: bconc, Shape: a.bVar.Shape()}.Mean(nil)
			if !a.bOwn {
				a.bbar, a.bOwn = make([]float64, nu*ns*ns), true
			}
			for u := range nu {
				for n := range ns {
					for p := range ns {
						a.bbar[(u*ns+n)*ns+p] = mean[(n*ns+p)*nu+u]
					}
				}
			}
			a.concB = append(a.concB[:0], bconc...)
		} else {
			a.bbar = a.m.SharedB(0)
		}
		if a.lnB == nil {
			a.lnB = make([]splitMat, nu)
			a.futB = make([]*nodes.Transition, nu)
		}
		col := make([]float64, ns)
		for u := range nu {
			blk := a.bbar[u*ns*ns : (u+1)*ns*ns]
			// Column p of ln B̄_u floored, as the dense ln of the floored
			// matrix would have it.
			a.lnB[u].setColumns(ns, ns, col, func(p int, dst []float64) {
				for n := range ns {
					dst[n] = blk[n*ns+p]
				}
				pomdp.FloorColumns(dst, ns, 1)
				for n, x := range dst {
					dst[n] = math.Log(x)
				}
			})
			a.futB[u] = nil // made again from the new B̄ when needed (futureB)
		}
	}
	if a.sparseStart = ns >= a.sparseStartStates; a.sparseStart {
		a.sparseStart = a.splitStart()
	}
	if a.sparseStart {
		a.abT = nil
		a.prepared = true
		return nil
	}
	// abT[u][p*no+o] = (Ā B̄_u)[o][p]: column p of B̄_u pushed through Ā,
	// the terms of each entry added in the order of the states n, as
	// mulT(column, Āᵀ, B̄_u[:, p]) adds them.
	a.abT = grow(a.abT, nu*ns*no)
	clear(a.abT)
	for u := range nu {
		blk := a.bbar[u*ns*ns : (u+1)*ns*ns]
		out := a.abT[u*ns*no : (u+1)*ns*no]
		for n := range ns {
			arow := a.aT[n*no : (n+1)*no]
			for p, w := range blk[n*ns : (n+1)*ns] {
				if w == 0 {
					continue // adds ±0: no change (as mulT)
				}
				axpy(out[p*no:(p+1)*no], w, arow)
			}
		}
	}
	a.prepared = true
	return nil
}

// sparseStartStates is the number of states from which the start of
// local VMP, Q(O_I) = Ā B̄_u Q(S_parent), is computed as Ā (B̄_u
// Q(S_parent)) over the split probabilities (splitStart) when they are
// sparse, instead of with the dense products Ā B̄_u: |S| + |O| plus the
// deviations per node instead of |S||O|, and no |U||S|²|O| set-up. The
// open 34 × 34 maze (1,024 states) plans 1.75 times faster so, with the
// same actions. Smaller models (every maze shipped, and those of the
// papers' presets) keep the dense products and their numbers bit for bit;
// TestSparseStart compares the two.
const sparseStartStates = 1024

// splitStart splits Ā and every B̄_u (the probabilities, not their
// logarithms) into column backgrounds and deviations (splitMat) and
// reports whether all of them are sparse.
func (a *Agent) splitStart() bool {
	ns, no := a.ns, a.no
	a.pA.set(a.abar, no, ns)
	if a.pA.dense {
		return false
	}
	if len(a.pB) != a.nu {
		a.pB = make([]splitMat, a.nu)
	}
	col := make([]float64, ns)
	for u := range a.nu {
		blk := a.bbar[u*ns*ns : (u+1)*ns*ns]
		a.pB[u].setColumnsIf(ns, ns, col, func(p int, dst []float64) {
			for n := range ns {
				dst[n] = blk[n*ns+p]
			}
		}, false)
		if a.pB[u].dense {
			return false
		}
	}
	return true
}

// futureB returns the literal factor Cat(B̄_u) of the future, made from B̄_u
// floored (pomdp.FloorColumns) the first time the planning tree is put in
// the graph after a model change (materialize, global inference).
func (a *Agent) futureB(u int) (*nodes.Transition, error) {
	if a.futB[u] != nil {
		return a.futB[u], nil
	}
	ns := a.ns
	fb := append([]float64(nil), a.bbar[u*ns*ns:(u+1)*ns*ns]...)
	pomdp.FloorColumns(fb, ns, ns)
	t, err := nodes.NewTransition(fb, []int{ns, ns})
	if err != nil {
		return nil, fmt.Errorf("btai: expected B[%d]: %w", u, err)
	}
	a.futB[u] = t
	return t, nil
}

// maxReserve bounds the number of tree nodes Plan reserves room for at
// once (about 80 MB of nodes); bigger trees grow by appending.
const maxReserve = 1 << 20

// keepAllFloats bounds the stored posteriors of a planning tree for which
// every node's Q(S) is kept: 16 MB, e.g. 10,000 iterations on 1.maze (22
// states, 5 actions: 8.8 MB). Bigger trees keep the Q(S) of expanded nodes
// and of the newest ones (the ring) only.
const keepAllFloats = 1 << 21

// ringFloats bounds the ring of the most recently created nodes' Q(S),
// used when not every node's is kept (3 MB; on 1.maze at 10,000 iterations
// with the ring instead of keeping all, about 6 in 10 selected leaves are
// found there).
const ringFloats = 3 << 17

// TreeBytes estimates the peak memory of one planning tree of iterations
// expansions for a model of ns states, no observations and nu actions;
// CheckTree refuses --iterations beyond a bound with it.
//
// A materialized tree (Agent.Tree, as arbor btai plan and --dot use it, or
// GlobalInference, whose nodes go into the graph at expansion) holds nu
// nodes per expansion, each with S_I and O_I, their two factors and edges
// (about 1 KB) and their posteriors (ns + no numbers, 4 copies of 8
// bytes). Measured: 100,000 iterations on 1.maze (22 states, 10
// observations, 5 actions) peak at 1.15 GB RSS, 2.3 KB per node; the
// estimate gives 2.05 KB.
//
// The compact tree Plan holds otherwise (docs/btai.md, "How the planning
// tree is stored") has per expansion nu Node records and their posterior
// indices (qsAt) and the Q(S) of the expanded node, plus the posterior
// caches (keepAllFloats and ringFloats): raw, 80 nu + 8 ns bytes per
// iteration and 19 MiB, 576 bytes per iteration on 1.maze. Its slices grow
// by copying past maxReserve, and the garbage collector frees the old
// arrays late, so the peak is a multiple of that. Measured for arbor btai
// run on 1.maze (single runs, shared machine): 0.42 GB at 300,000
// iterations, 1.25-1.65 GB at 1M, 2.79-2.85 GB at 2M and 4.41 GB at 2.95M,
// 2.2 to 2.9 times the raw size; the estimate takes 3.5 times (0.62, 2.04,
// 4.05 and 5.97 GB; cmd/arbor's TestBTAITreeBytes checks that it bounds
// those measurements). Negative arguments count as 0.
func TreeBytes(iterations, ns, no, nu int, materialized bool) float64 {
	iterations, ns, no, nu = max(iterations, 0), max(ns, 0), max(no, 0), max(nu, 0)
	if materialized {
		perNode := 1024 + 32*float64(ns+no)
		return float64(iterations) * float64(nu) * perNode
	}
	perNode := float64(unsafe.Sizeof(Node{}) + unsafe.Sizeof(int(0)))
	raw := float64(nu)*perNode + 8*float64(ns)
	return 3.5*float64(iterations)*raw + 8*(keepAllFloats+ringFloats)
}

// Plan runs Options.Iterations planning iterations from the present state
// (paper Algorithm 2, inner loop): selection, expansion of all actions of
// the selected leaf, inference on the new nodes, cost evaluation (with
// optional roll-outs) and propagation. The tree stays in the graph until
// the next Step or Plan. With Options.TrialSteps it stops before
// Options.Iterations once every leaf is at the depth the steps left allow.
// It returns ctx's error if ctx is done first. Plan before Reset or after
// EndTrial is an error.
func (a *Agent) Plan(ctx context.Context) error {
	switch {
	case a.past == nil:
		return apiError(errZero)
	case a.g == nil:
		return errors.New("btai: Plan before Reset")
	case a.carried:
		return errors.New("btai: Plan after EndTrial (call Reset)")
	}
	ctx = background(ctx)
	a.clearFuture()
	if err := a.prepareFuture(); err != nil {
		return apiError(err)
	}
	a.tree.Reset(a.nu, a.past.Present())
	if a.opts.TrialSteps > 0 {
		a.tree.SetDepthLimit(max(a.opts.TrialSteps-a.past.Time(), 1))
	}
	a.planned = true
	a.matN = 1
	// The tree will hold 1 + Iterations·|U| nodes, of which at most
	// Iterations are expanded: reserve them once (the buffers are reused
	// by every later Plan), so that planning does not copy growing slices.
	if need := min(1+a.opts.Iterations*a.nu, maxReserve); cap(a.tree.Nodes) < need {
		a.tree.Nodes = append(make([]Node, 0, need), a.tree.Nodes...)
		a.qsAt = append(make([]int, 0, need), a.qsAt...)
	}
	// Q(S) of every node is kept when that takes at most keepAllFloats;
	// otherwise only for expanded nodes, and a selected leaf's is computed
	// again (one more inference per iteration, same numbers).
	// (With global inference the posteriors are the graph's.)
	need := a.opts.Iterations * a.ns
	a.keepAll = a.opts.Iterations*a.nu*a.ns <= a.keepLimit
	if a.keepAll {
		need *= a.nu
	} else if !a.opts.GlobalInference {
		if n := max(a.ringLimit/a.ns, 1); len(a.ringAt) != n {
			a.ring = make([]float64, n*a.ns)
			a.ringAt = make([]int, n)
		}
		for i := range a.ringAt {
			a.ringAt[i] = -1
		}
	}
	if need = min(need, maxReserve*4); !a.opts.GlobalInference && cap(a.qsBuf) < need {
		a.qsBuf = make([]float64, 0, need)
	}
	// With SetJobs above 1, the first iteration is timed on one goroutine
	// and the next ones share their children on the crew if it was long
	// enough (crewIteration), as long as the crew is measured faster
	// (crew.tune): the same numbers either way.
	jobs := a.crewJobs()
	var start time.Time
	defer func() {
		if a.crewOn() {
			a.stopCrew()
		}
	}()
	for it := 0; it < a.opts.Iterations && !a.tree.Exhausted(); it++ {
		if it&63 == 0 {
			if err := ctx.Err(); err != nil {
				return apiError(err)
			}
		}
		if it == 0 && jobs > 1 {
			start = time.Now()
		}
		if a.crewOn() {
			a.crew.tune(time.Now())
		}
		if err := a.iterate(ctx); err != nil {
			return apiError(err)
		}
		if it == 0 && jobs > 1 && time.Since(start) >= a.crewIteration && it+1 < a.opts.Iterations && !a.tree.Exhausted() {
			a.startCrew(jobs)
		}
	}
	return nil
}

// Iterate performs one planning iteration on the current tree.
//
// With local inference (the default) the new nodes are evaluated in
// compact form: their posteriors are computed in scratch buffers, and only
// the posterior Q(S_K) of a node K that is selected for expansion is kept
// (it is the parent belief of K's children). The variables S_I, O_I and
// their factors Cat(B̄_I), Cat(Ā) are added to the graph when the tree is
// looked at (Graph, Tree, LabelTree), with the same posteriors: local
// inference on a new node reads nothing but its parent's Q(S), so the
// graph changes nothing in the numbers, and planning does not pay for
// about 1 KB of graph objects per node that it would free after acting
// (docs/benchmarks.md). With global inference the nodes go into the graph
// at once, as global VMP needs them there.
//
// Iterate grows the tree that the last Plan started: before it (or after
// the Step, AdvanceMixed or EndTrial that removed it) it is an error. On
// a tree that Options.TrialSteps has left with nothing to expand
// (Tree.Exhausted) it does nothing.
func (a *Agent) Iterate(ctx context.Context) error {
	switch {
	case a.past == nil:
		return apiError(errZero)
	case !a.planned:
		return errors.New("btai: Iterate before Plan")
	}
	if err := background(ctx).Err(); err != nil {
		return apiError(err)
	}
	if a.tree.Exhausted() {
		return nil
	}
	return apiError(a.iterate(background(ctx)))
}

// iterate is Iterate on a tree that Plan started.
func (a *Agent) iterate(ctx context.Context) error {
	if a.opts.GlobalInference {
		return a.iterateGraph(ctx)
	}
	k := a.tree.Select(*a.opts.Exploration, a.opts.Selection)
	qk, err := a.nodeProbs(k)
	if err != nil {
		return err
	}
	ns := a.ns
	roll := a.opts.Rollouts > 0
	base := len(a.qsBuf)
	if a.fact != nil {
		a.fact.depth = a.tree.Nodes[k].Depth + 1
	}
	crew := a.crewOn() && a.crew.use
	if crew {
		// The children on several goroutines: each Q(S) in a.kids.
		if err := a.crew.children(qk); err != nil {
			return err
		}
	}
	for u := range a.nu {
		qs := a.kids[u*ns : (u+1)*ns]
		if !crew {
			if err := a.child(&a.sc, qk, u); err != nil {
				return err
			}
			qs = a.sc.qs
			if roll {
				copy(a.kids[u*ns:(u+1)*ns], a.sc.qs)
			}
		}
		if a.keepAll {
			a.qsBuf = append(a.qsBuf, qs...)
		} else {
			// Remember the newest nodes' Q(S): a node selected soon after
			// its creation need not be inferred again (nodeProbs).
			slot := (len(a.tree.Nodes) + u) % len(a.ringAt)
			copy(a.ring[slot*ns:(slot+1)*ns], qs)
			a.ringAt[slot] = len(a.tree.Nodes) + u
		}
	}
	if roll {
		for u := range a.nu {
			g, err := a.rollouts(a.kids[u*ns:(u+1)*ns], a.costs[u])
			if err != nil {
				return err
			}
			a.costs[u] = g
		}
	}
	a.tree.AddChildren(k, a.costs)
	for u := range a.nu {
		if a.keepAll {
			a.qsAt = append(a.qsAt, base+u*ns)
		} else {
			a.qsAt = append(a.qsAt, -1)
		}
	}
	a.tree.Propagate(k, a.opts.Propagation)
	return nil
}

// iterateGraph is Iterate with global inference: the new nodes are added
// to the graph and VMP runs on the whole graph.
func (a *Agent) iterateGraph(ctx context.Context) error {
	k := a.tree.Select(*a.opts.Exploration, a.opts.Selection)
	parent := a.tree.Nodes[k].S
	first := len(a.tree.Nodes)
	for u := range a.nu {
		s, o, err := a.expand(parent, u)
		if err != nil {
			return err
		}
		a.future = append(a.future, s, o)
	}
	if _, err := schedule.Run(ctx, a.g, &schedule.Settings{Iterations: a.opts.VMPIterations, Tolerance: a.opts.VMPTolerance}); err != nil {
		return fmt.Errorf("btai: global inference: %w", err)
	}
	ns := a.ns
	for u := range a.nu {
		s, o := a.future[len(a.future)-2*a.nu+2*u], a.future[len(a.future)-2*a.nu+2*u+1]
		a.costs[u] = a.cost(&a.sc, s.Probs(), o.Probs())
		copy(a.kids[u*ns:(u+1)*ns], s.Probs())
	}
	if a.opts.Rollouts > 0 {
		for u := range a.nu {
			g, err := a.rollouts(a.kids[u*ns:(u+1)*ns], a.costs[u])
			if err != nil {
				return err
			}
			a.costs[u] = g
		}
	}
	a.tree.AddChildren(k, a.costs)
	for u := range a.nu {
		n := &a.tree.Nodes[first+u]
		n.S, n.O = a.future[len(a.future)-2*a.nu+2*u], a.future[len(a.future)-2*a.nu+2*u+1]
	}
	a.matN = len(a.tree.Nodes)
	a.tree.Propagate(k, a.opts.Propagation)
	return nil
}

// nodeProbs returns Q(S_K) for node k of the planning tree. The root's is
// the present belief; a node that has been selected for expansion has its
// posterior stored; otherwise it is computed from its parent's (which is
// stored, the parent being expanded) exactly as when the node was created,
// and stored.
func (a *Agent) nodeProbs(k int) ([]float64, error) {
	n := &a.tree.Nodes[k]
	if k == 0 && a.fact != nil {
		return a.fact.root, nil
	}
	if k == 0 || n.S != nil {
		return n.S.Probs(), nil
	}
	ns := a.ns
	if off := a.qsAt[k]; off >= 0 {
		return a.qsBuf[off : off+ns], nil
	}
	off := len(a.qsBuf)
	if slot := k % max(len(a.ringAt), 1); a.ringAt != nil && a.ringAt[slot] == k {
		a.qsBuf = append(a.qsBuf, a.ring[slot*ns:(slot+1)*ns]...)
		a.qsAt[k] = off
		return a.qsBuf[off : off+ns], nil
	}
	qp, err := a.nodeProbs(n.Parent)
	if err != nil {
		return nil, err
	}
	if a.fact != nil {
		a.fact.depth = n.Depth
	}
	if err := a.infer(&a.sc, qp, n.Action); err != nil {
		return nil, err
	}
	a.qsBuf = append(a.qsBuf, a.sc.qs...)
	a.qsAt[k] = off
	return a.qsBuf[off : off+ns], nil
}

// materialize adds the planning tree's nodes that are not in the graph yet
// to it (see Iterate): for each node, in creation order, S_I with its
// factor Cat(B̄_I) to the parent's S, and O_I with Cat(Ā), their
// posteriors being recomputed exactly as at expansion.
func (a *Agent) materialize() error {
	if a.g == nil || len(a.tree.Nodes) == 0 || a.fact != nil {
		return nil // a factorised tree stays compact (NodePosteriors)
	}
	for i := max(a.matN, 1); i < len(a.tree.Nodes); i++ {
		n := &a.tree.Nodes[i]
		qp, err := a.nodeProbs(n.Parent)
		if err != nil {
			return err
		}
		if err := a.infer(&a.sc, qp, n.Action); err != nil {
			return err
		}
		s, o, err := a.expand(a.tree.Nodes[n.Parent].S, n.Action)
		if err != nil {
			return err
		}
		a.future = append(a.future, s, o)
		// A model's columns sum to 1 within pomdp.Tolerance (1e-6), not
		// exactly, so a prediction several steps deep can sum to 1 - 1.4e-6
		// and be refused as a distribution: the graph gets it normalised.
		if err := s.SetProbs(normalized(a.sc.qs)); err != nil {
			return err
		}
		if err := o.SetProbs(normalized(a.sc.qo)); err != nil {
			return err
		}
		n.S, n.O = s, o
		a.matN = i + 1
	}
	return nil
}

// normalized divides p by its sum in place and returns it (p unchanged when
// the sum is 0 or not finite: SetProbs then reports it).
func normalized(p []float64) []float64 {
	z := 0.0
	for _, x := range p {
		z += x
	}
	if z > 0 && !math.IsInf(z, 0) && z != 1 {
		for i := range p {
			p[i] /= z
		}
	}
	return p
}

// expand adds S_I and O_I below parent for action u (paper section 6.3.2):
// P(S_I | S_parent) = Cat(B̄_u), P(O_I | S_I) = Cat(Ā).
func (a *Agent) expand(parent *ffg.Variable, u int) (s, o *ffg.Variable, err error) {
	if s, err = a.g.AddVariable("", expfam.CategoricalFamily, a.ns); err != nil {
		return nil, nil, err
	}
	tb, err := a.futureB(u)
	if err != nil {
		return nil, nil, err
	}
	fb, err := a.g.AddFactor("", tb, s, parent)
	if err != nil {
		return nil, nil, err
	}
	fb.Label = fmt.Sprintf("B̄[%d]", u) // the expected transition of action u (paper Table 2)
	if o, err = a.g.AddVariable("", expfam.CategoricalFamily, a.no); err != nil {
		return nil, nil, err
	}
	fa, err := a.g.AddFactor("", a.futA, o, s)
	if err != nil {
		return nil, nil, err
	}
	fa.Label = "Ā"
	return s, o, nil
}

// child evaluates the new node of action u below a parent with posterior
// qp: its posteriors into sc (infer) and its cost into a.costs[u].
func (a *Agent) child(sc *scratch, qp []float64, u int) error {
	if err := a.infer(sc, qp, u); err != nil {
		return err
	}
	a.costs[u] = a.cost(sc, sc.qs, sc.qo)
	return nil
}

// infer computes Q(S_I) and Q(O_I) of a new node for action u below a
// parent with posterior qp into sc.qs and sc.qo: exactly by prediction, or
// by VMP on the new nodes, initialised at the prediction.
//
// VMP's first sweep updates Q(S_I) from Q(O_I) and the parent before it
// reads Q(S_I), so the predicted Q(S_I) is not needed there: the start
// Q(O_I) = Ā B̄_u Q(S_parent) is computed with the product Ā B̄_u formed
// once per planning step (abT), one |O|×|S| product per node instead of
// |S|×|S| + |O|×|S|. This is the same number up to rounding (a different
// association of the sums); see TestVMPStartAssociation.
func (a *Agent) infer(sc *scratch, qp []float64, u int) error {
	if a.fact != nil {
		return a.inferFactorised(sc, qp, u)
	}
	ns, no := a.ns, a.no
	if a.opts.Inference == VMP {
		if a.sparseStart {
			splitMul(sc.pred, &a.pB[u], qp)
			splitMul(sc.qo, &a.pA, sc.pred)
		} else {
			mulT(sc.qo, a.abT[u*ns*no:(u+1)*ns*no], qp)
		}
		return a.vmp(sc, qp, u)
	}
	mulRows(sc.qs, a.bbar[u*ns*ns:(u+1)*ns*ns], qp)
	a.predictObs(sc.qo, sc.qs)
	return nil
}

// vmp iterates the paper's mean-field updates for a newly expanded node
// (section 6.2) starting from Q(O_I) = sc.qo (the prediction), and leaves
// the result in sc.qs and sc.qo:
//
//	Q*(S_I) = σ(Å ⊙ Q(O_I) + B̊_I ⊙ Q(S_parent))
//	Q*(O_I) = σ(Å ⊙ Q(S_I))
//
// with Å = ln Ā and B̊_I = ln B̄_I, because the future's factors are the
// literal P(O_I | S_I) = Cat(Ā) and P(S_I | S_parent) = Cat(B̄_I) (paper
// section 6.1). The new node has no children yet, so the sum over ch_I is
// empty, and local inference leaves Q(S_parent) unchanged (section
// 6.3.2). This is what schedule.Local computes on the graph (same update
// order: S_I then O_I per sweep; same stopping rule: |ΔF| below
// Options.VMPTolerance or Options.VMPIterations sweeps), written out for
// one categorical pair so that a planning iteration does not pay for the
// generic tensor contractions (TestVMPMatchesSchedule checks the two
// agree). Every logarithm is finite (floorColumns), so no 0·(-Inf) arises.
//
// The products use ln Ā and ln B̄_u split into column backgrounds and
// deviations (splitMat), and drop what a softmax does not see:
//
//   - B̊_I ⊙ Q(S_parent) = c_B + D_B q_parent, where c_B = Σ_p bg_B[p]
//     q_parent(p) is the same for every S_I: mpar = D_B q_parent leaves it
//     out, and computes it once per node, not per sweep.
//   - Å ⊙ Q(O_I) = bg_A + D_Aᵀ Q(O_I), Q(O_I) summing to 1: base = mpar +
//     bg_A, fixed during the sweeps, and each sweep adds D_Aᵀ Q(O_I).
//   - Å ⊙ Q(S_I) = c_O + D_A Q(S_I) with c_O = Σ_s bg_A[s] Q(s) the same
//     for every O_I: etaO = D_A Q(S_I).
//
// The softmaxes are shift-invariant, so the posteriors are the same; only
// the normalisers change, zs by c_B and zo by c_O. F is computed from them
// (see below) and comes out shifted by the constant c_B, which does not
// change ΔF. On a matrix that is not sparse the split is M = 0 + M and the
// products are the dense loops. TestVMPMatchesReference compares this
// with the dense implementation it replaced on random and maze models:
// every posterior and cost within 1e-12 (measured 2e-14: the sums are
// associated differently, softmax multiplies by 1/z, one logarithm).
func (a *Agent) vmp(sc *scratch, qp []float64, u int) error {
	la := &a.lnA
	a.lnB[u].mulD(sc.mpar, qp)
	for s, m := range sc.mpar {
		sc.base[s] = m + la.bg[s]
	}
	// schedule.Local also evaluates F at the start; that value only
	// matters if the prediction is already the fixed point, where one more
	// sweep changes nothing, so it is skipped (saves ns+no logarithms).
	prev := math.Inf(1)
	for range a.opts.VMPIterations {
		copy(sc.etaS, sc.base)
		la.addMulDT(sc.etaS, sc.qo)
		ms, rs := softmax(sc.qs, sc.etaS)
		if math.IsNaN(ms) {
			return fmt.Errorf("btai: local inference: Q(S_I) undefined: every state is impossible under B̄[%d] given Q(S_parent) (mean-field VMP needs B̄ > 0 where Q(S_parent) > 0; use predictive inference)", u)
		}
		la.mulD(sc.etaO, sc.qs)
		mo, ro := softmax(sc.qo, sc.etaO)
		if math.IsNaN(mo) {
			return fmt.Errorf("btai: local inference: Q(O_I) undefined: every observation is impossible under Ā given Q(S_I)")
		}
		// The free energy of the pair (S_I, O_I), the average energies of
		// its two factors minus the entropies of Q(S_I) and Q(O_I),
		//   F = Σ_s Q(s) [ln Q(s) - B̊ q_parent(s)] + Σ_o Q(o) [ln Q(o) - Σ_s Q(s) Å(o, s)],
		// from the normalisers: ln Q(s) = etaS(s) - ln ZS, ln Q(o) = etaO(o) - ln ZO
		// (ln ZS = ms + ln(1 + rs), ln ZO = mo + ln(1 + ro), one logarithm
		// for both: ln ZS + ln ZO = ms + mo + log1p(rs + ro + rs ro)),
		// B̊ q_parent(s) = c_B + mpar(s) and Σ_s Q(s) Å(o, s) = c_O + etaO(o),
		// so with Σ Q = 1,
		//   F = Σ_s Q(s) (etaS(s) - mpar(s) - bg_A(s)) - ln ZS - ln ZO - c_B,
		// and f below is F + c_B.
		f := -(ms + mo) - math.Log1p(rs+ro+rs*ro)
		for s, q := range sc.qs {
			if q > 0 {
				f += q * (sc.etaS[s] - sc.base[s])
			}
		}
		if math.Abs(f-prev) < a.opts.VMPTolerance {
			break
		}
		prev = f
	}
	return nil
}

// softmax sets dst = σ(eta) and returns its log-normaliser as m and r with
// logZ = m + ln(1 + r): m is the largest entry of eta (at its first index)
// and r = Σ_(i≠argmax) exp(eta[i] - m), summed in index order, as in
// expfam.Softmax. Unlike expfam.Softmax it takes the exponentials with
// fastexp.Exp (within 0.51 ulp of e^x, where math.Exp is within 1.6),
// multiplies by 1/z instead of dividing by z (each probability within a
// few roundings of expfam.Softmax's, TestSoftmaxMatchesExpfam) and leaves
// the logarithm to the caller (vmp takes one per sweep for both
// normalisers). It returns m = NaN where
// expfam.Softmax returns NaN (no finite maximum, or a NaN entry), leaving
// dst unspecified.
func softmax(dst, eta []float64) (m, r float64) {
	fastexp.Init()
	eta = eta[:len(dst)]
	m, im := math.Inf(-1), -1
	for i, x := range eta {
		if x > m || im < 0 {
			m, im = x, i
		}
	}
	if m-m != 0 {
		return math.NaN(), 0
	}
	for i, x := range eta {
		if i == im {
			dst[i] = 1
			continue
		}
		e := fastexp.Exp(x - m)
		dst[i] = e
		r += e
	}
	z := 1 + r
	if z != z {
		return math.NaN(), 0 // a NaN entry after the maximum
	}
	inv := 1 / z
	for i := range dst {
		dst[i] *= inv
	}
	return m, r
}

// predictObs writes Ā q into dst.
func (a *Agent) predictObs(dst, q []float64) {
	mulT(dst, a.aT, q)
}

// rollouts returns g_I^average of Algorithm 1: the mean over N roll-outs
// of g_I plus the costs of K nodes expanded below S_I (whose posterior is
// from) with uniformly drawn actions. Roll-out nodes are evaluated in
// scratch buffers and never enter the graph or the tree.
func (a *Agent) rollouts(from []float64, g float64) (float64, error) {
	total := 0.0
	for range a.opts.Rollouts {
		sum := g
		copy(a.cur, from)
		for range a.opts.RolloutLength {
			u := a.rng.IntN(a.nu)
			if err := a.infer(&a.sc, a.cur, u); err != nil {
				return 0, err
			}
			sum += a.cost(&a.sc, a.sc.qs, a.sc.qo)
			copy(a.cur, a.sc.qs)
		}
		total += sum
	}
	return total / float64(a.opts.Rollouts), nil
}

// SelectAction picks the action to perform from the planned tree with the
// configured rule (paper section 6.4). Before Plan (or after the Step,
// AdvanceMixed or EndTrial that removed the tree), or on a tree whose root
// Plan did not expand (stopped by its context first), it is an error.
func (a *Agent) SelectAction() (int, error) {
	switch {
	case a.past == nil:
		return 0, apiError(errZero)
	case !a.planned:
		return 0, errors.New("btai: SelectAction before Plan")
	case a.tree.Nodes[0].Leaf():
		return 0, errors.New("btai: SelectAction: the tree has no expanded root (Plan was stopped before its first iteration)")
	}
	return a.tree.SelectAction(a.opts.ActionSelection, *a.opts.ActionPrecision, a.rng, nil), nil
}

// LabelTree sets DOT labels on the planning tree's variables: each S_I
// shows its action path (actions named by actionName, or by their indices
// when it is nil), visits n and average cost ḡ (the factor-graph view of
// the tree; the paper's tree view is drawn from Tree directly). Without a
// tree in the graph (before Plan, or with a factorised model) it does
// nothing.
func (a *Agent) LabelTree(actionName func(int) string) {
	a.materialized()
	var path []int
	for i := 1; i < len(a.tree.Nodes); i++ {
		n := &a.tree.Nodes[i]
		if n.S == nil {
			continue
		}
		path = a.tree.Path(path[:0], i)
		var b strings.Builder
		for j, u := range path {
			if j > 0 {
				b.WriteByte(',')
			}
			if actionName != nil {
				b.WriteString(actionName(u))
			} else {
				b.WriteString(strconv.Itoa(u))
			}
		}
		n.S.Label = fmt.Sprintf("S(%s)\nn=%d g=%.3g", b.String(), n.Visits, n.Average())
		if n.O != nil {
			n.O.Label = fmt.Sprintf("O(%s)", b.String())
		}
	}
}
