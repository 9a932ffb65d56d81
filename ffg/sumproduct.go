package ffg

import (
	"fmt"
	"math"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
)

// Formed is the optional interface of a factor whose log-density is a
// multilinear form (every conjugate node of package nodes): sum-product
// derives its potential from the form (messages.Multilinear.LogPotential).
type Formed interface {
	Form() *messages.Multilinear
}

// LoopError reports a loop among the hidden categorical variables, which
// exact sum-product cannot treat. Loop names the variables and factors on
// it, in order.
type LoopError struct {
	Loop []string
}

func (e *LoopError) Error() string {
	return fmt.Sprintf("ffg: sum-product: the discrete variables form a loop: %s (exact inference needs a tree; break the loop or use vmp)", strings.Join(e.Loop, " - "))
}

// spFactor is a factor of the discrete tree: its hidden categorical
// neighbours and its potential over them.
type spFactor struct {
	f      *FactorNode
	hidden []int // indices into spState.vars
	axes   []int // for each hidden neighbour, its interface index in f
	keep   []int // the form's axes kept, in the order of hidden (nil: no form)
	static bool  // the potential depends on nothing that changes between passes
	logpsi []float64
	psi    []float64 // exp(ln ψ - scale)
	scale  float64   // max ln ψ
	shape  []int
	msgOut [][]float64 // factor to each hidden neighbour
	msgIn  [][]float64 // each hidden neighbour to the factor
	idx    []int       // scratch
	leader int         // the factor whose potential this one shares, or -1
	bel    []float64   // scratch: the factor belief (belief)
}

type spVar struct {
	v       *Variable
	factors []int // spState.factors indices
	slot    []int // position of this variable among each factor's hidden neighbours
}

// spState is the tree of the last SumProduct, kept while the graph's
// structure and evidence do not change (Graph.version).
type spState struct {
	version uint64
	vars    []spVar
	factors []spFactor
	byVar   map[*Variable]int
	byFac   map[*FactorNode]int
	// Traversal: nodes (variables 0..nv-1, factors nv..) in BFS order per
	// tree, each tree starting at compStart[c]; par is a node's parent
	// (-1 for a root) and parSlot its index in the parent relation (a
	// variable's position in its factor list, a factor's hidden slot).
	order     []int
	compStart []int
	par       []int
	parSlot   []int
	buf       []float64 // scratch, the largest variable
	loops     bool      // built for loopy belief propagation (no loop check)
}

// SumProduct sets the posteriors of the hidden categorical variables, and
// of the hidden normal variables that form linear-Gaussian trees, to
// their exact marginals under the model in which every other variable is
// fixed at its current posterior (structured mean field: the discrete
// variables jointly, the Gaussian ones jointly, the rest factorised;
// docs/inference.md).
//
// A hidden normal variable is treated exactly when every factor bound to
// it has a multilinear form (Polynomialer), no hidden categorical
// neighbour and at most two such normal variables: the factors' forms,
// averaged over their other neighbours, are Gaussian potentials, and
// Gaussian belief propagation on their tree (the Kalman filter and the RTS
// smoother on a chain) gives the exact marginals, the pairwise beliefs
// that the update of a precision on such a factor reads
// (UpdateStructured), and ln Z. Other normal variables keep VMP.
//
// For the discrete variables:
// each factor touching a hidden categorical variable contributes the
// potential exp(ln ψ), its log-density averaged over its other neighbours
// (for a Dirichlet-distributed tensor, exp E[ln θ]), and belief propagation
// on the tree they form gives the marginals. It returns ln Z of that tree,
// the evidence the structured free energy needs (StructuredFreeEnergy). A
// loop among the hidden categorical variables is a *LoopError that names
// it. The tree, its messages and the potentials that cannot change are
// kept until the graph's structure or evidence changes, so that a repeated
// pass does not allocate. A graph without hidden categorical variables has
// no tree: ln Z is 0. The returned ln Z is the sum over the discrete and the
// Gaussian trees.
func (g *Graph) SumProduct() (logZ float64, err error) {
	lg, err := g.gaussPass()
	if err != nil {
		return 0, err
	}
	lm, err := g.mvPass()
	if err != nil {
		return 0, err
	}
	lg += lm
	st, err := g.spPrepare(false)
	if err != nil {
		return 0, err
	}
	ld, err := st.propagate()
	return lg + ld, err
}

// LoopyOptions are the settings of loopy belief propagation
// (Graph.SumProductLoopy).
type LoopyOptions struct {
	// Damping δ in (0, 1): each new factor-to-variable message is
	// (1 - δ) new + δ old. Default (0) 0.5.
	Damping float64
	// Iterations caps the rounds of messages (default 200, must be >= 0);
	// Tolerance stops them when no message moves by more than it (default
	// 1e-10, must be >= 0).
	Iterations int
	Tolerance  float64
}

// spPrepare builds (or reuses) the tree and refreshes the potentials.
func (g *Graph) spPrepare(loops bool) (*spState, error) {
	st := g.sp
	if st == nil || st.version != g.version || st.loops != loops {
		g.sp = nil
		var err error
		if st, err = g.buildTree(loops); err != nil {
			return nil, err
		}
		st.version = g.version
		g.sp = st
	}
	for fi := range st.factors {
		f := &st.factors[fi]
		if f.leader >= 0 {
			continue
		}
		if !f.static || f.psi == nil {
			if err := f.potential(); err != nil {
				return nil, err
			}
		}
	}
	for fi := range st.factors {
		if f := &st.factors[fi]; f.leader >= 0 {
			l := &st.factors[f.leader]
			f.psi, f.scale = l.psi, l.scale
		}
	}
	return st, nil
}

func (g *Graph) buildTree(loops bool) (*spState, error) {
	st := &spState{byVar: map[*Variable]int{}, byFac: map[*FactorNode]int{}}
	maxK := 1
	for _, v := range g.vars {
		if v.family == expfam.CategoricalFamily && !v.observed {
			st.byVar[v] = len(st.vars)
			st.vars = append(st.vars, spVar{v: v})
			maxK = max(maxK, len(v.stats))
		}
	}
	st.buf = make([]float64, maxK)
	for _, fn := range g.factors {
		if c, ok := fn.factor.(GammaCollapsed); ok && c.CollapsesOutput() {
			return nil, fmt.Errorf("ffg: sum-product: factor %s keeps its output conditional on a Gamma variable (collapsed), which only VMP updates; use the exact treatment (nodes.NewSoftmaxExact) with sum-product", fn.describe())
		}
		var hidden, axes []int
		for k, v := range fn.vars {
			if i, ok := st.byVar[v]; ok {
				for _, h := range hidden {
					if h == i {
						if !loops {
							return nil, &LoopError{Loop: []string{v.describe(), "factor " + fn.describe(), v.describe()}}
						}
						return nil, fmt.Errorf("ffg: sum-product: factor %s joins variable %s to itself", fn.describe(), v.describe())
					}
				}
				hidden = append(hidden, i)
				axes = append(axes, k)
			}
		}
		if len(hidden) == 0 {
			continue
		}
		sf := spFactor{f: fn, hidden: hidden, axes: axes}
		if err := sf.plan(); err != nil {
			return nil, err
		}
		st.byFac[fn] = len(st.factors)
		st.factors = append(st.factors, sf)
	}
	type shareKey struct {
		form  *messages.Multilinear
		param *Variable
	}
	leaders := map[shareKey]int{}
	for fi := range st.factors {
		f := &st.factors[fi]
		f.leader = -1
		for slot, vi := range f.hidden {
			v := &st.vars[vi]
			v.factors = append(v.factors, fi)
			v.slot = append(v.slot, slot)
		}
		// Factors of one node whose every axis is summed exactly depend on
		// nothing but the node's tensor: they share one potential.
		fm, ok := f.f.factor.(Formed)
		if !ok || f.keep == nil || len(f.keep) != len(fm.Form().Axes) {
			continue
		}
		key := shareKey{form: fm.Form()}
		if p := fm.Form().Param; p >= 0 {
			key.param = f.f.vars[p]
		}
		if l, ok := leaders[key]; ok {
			f.leader = l
		} else {
			leaders[key] = fi
		}
	}
	st.loops = loops
	if loops {
		return st, nil
	}
	if err := st.checkTree(); err != nil {
		return nil, err
	}
	st.traversal()
	return st, nil
}

// plan fixes how the factor's potential is computed and allocates its
// buffers.
func (sf *spFactor) plan() error {
	fn := sf.f
	if fm, ok := fn.factor.(Formed); ok {
		form := fm.Form()
		for _, k := range sf.axes {
			found := false
			for j, a := range form.Axes {
				if a == k {
					sf.keep = append(sf.keep, j)
					found = true
				}
			}
			if !found {
				return fmt.Errorf("ffg: sum-product: factor %s: a categorical neighbour is not an axis of its form", fn.describe())
			}
		}
		for _, j := range sf.keep {
			sf.shape = append(sf.shape, form.Shape[j])
		}
		// Static: a literal tensor, and every averaged axis an observed
		// variable (whose statistics change only with the evidence).
		sf.static = form.Param < 0
		for j, a := range form.Axes {
			kept := false
			for _, kj := range sf.keep {
				kept = kept || kj == j
			}
			if !kept && !fn.vars[a].observed {
				sf.static = false
			}
		}
		sf.idx = make([]int, 2*len(form.Shape))
	} else {
		if len(sf.axes) != 1 {
			return fmt.Errorf("ffg: sum-product: factor %s (%s) joins %d hidden categorical variables and has no multilinear form", fn.describe(), fn.factor.Kind(), len(sf.axes))
		}
		if _, ok := fn.factor.(Messenger); !ok {
			return fmt.Errorf("ffg: sum-product: factor %s has no message rules", fn.describe())
		}
		sf.shape = []int{len(fn.vars[sf.axes[0]].stats)}
	}
	n := 1
	for _, d := range sf.shape {
		n *= d
	}
	sf.logpsi = make([]float64, n)
	sf.msgOut = make([][]float64, len(sf.hidden))
	sf.msgIn = make([][]float64, len(sf.hidden))
	for s, d := range sf.shape {
		sf.msgOut[s] = make([]float64, d)
		sf.msgIn[s] = make([]float64, d)
	}
	if len(sf.idx) < len(sf.shape) {
		sf.idx = make([]int, len(sf.shape))
	}
	return nil
}

// potential computes ln ψ over the factor's hidden neighbours: from its
// multilinear form, or, for a factor with one hidden neighbour and no
// form (the softmax policy prior), from its VMP message plus the constant
// that makes E_q[ln ψ] equal -AverageEnergy.
func (sf *spFactor) potential() error {
	fn := sf.f
	if sf.keep != nil {
		fn.factor.(Formed).Form().LogPotentialInto(sf.logpsi, fn.stats, sf.keep, sf.idx)
	} else {
		k := sf.axes[0]
		msg := sf.logpsi
		if err := fn.factor.(Messenger).Message(msg, k, fn.stats); err != nil {
			return err
		}
		q := fn.stats[k]
		dot := 0.0
		for i, x := range msg {
			if q[i] != 0 {
				dot += q[i] * x
			}
		}
		c := -fn.factor.AverageEnergy(fn.stats) - dot
		for i := range msg {
			msg[i] += c
		}
	}
	sf.scale = math.Inf(-1)
	for _, x := range sf.logpsi {
		sf.scale = math.Max(sf.scale, x)
	}
	if math.IsInf(sf.scale, -1) || math.IsNaN(sf.scale) {
		return fmt.Errorf("ffg: sum-product: factor %s gives every configuration probability 0", fn.describe())
	}
	if sf.psi == nil {
		sf.psi = make([]float64, len(sf.logpsi))
	}
	for i, x := range sf.logpsi {
		sf.psi[i] = math.Exp(x - sf.scale)
	}
	return nil
}

// checkTree finds a loop in the bipartite graph of hidden variables and
// tree factors (union-find) and names it.
func (st *spState) checkTree() error {
	nv := len(st.vars)
	parent := make([]int, nv+len(st.factors))
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	adj := make([][]int, len(parent))
	for fi, f := range st.factors {
		fnode := nv + fi
		for _, vi := range f.hidden {
			a, b := find(fnode), find(vi)
			if a == b {
				return &LoopError{Loop: st.loopNames(adj, vi, fnode)}
			}
			parent[a] = b
			adj[fnode] = append(adj[fnode], vi)
			adj[vi] = append(adj[vi], fnode)
		}
	}
	return nil
}

// loopNames returns the path from a to b in the forest adj, closed by the
// edge b-a that makes the loop, as variable and factor names.
func (st *spState) loopNames(adj [][]int, a, b int) []string {
	nv := len(st.vars)
	prev := map[int]int{a: -1}
	queue := []int{a}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if x == b {
			break
		}
		for _, y := range adj[x] {
			if _, ok := prev[y]; !ok {
				prev[y] = x
				queue = append(queue, y)
			}
		}
	}
	var names []string
	for x := b; x != -1; x = prev[x] {
		if x < nv {
			names = append(names, st.vars[x].v.describe())
		} else {
			names = append(names, "factor "+st.factors[x-nv].f.describe())
		}
	}
	return append(names, names[0])
}

// traversal fixes the BFS order of every tree, rooted at its first
// variable.
func (st *spState) traversal() {
	nv := len(st.vars)
	n := nv + len(st.factors)
	st.par = make([]int, n)
	st.parSlot = make([]int, n)
	seen := make([]bool, n)
	st.order = st.order[:0]
	for root := range nv {
		if seen[root] {
			continue
		}
		st.compStart = append(st.compStart, len(st.order))
		st.order = append(st.order, root)
		seen[root] = true
		st.par[root] = -1
		for i := len(st.order) - 1; i < len(st.order); i++ {
			x := st.order[i]
			if x < nv {
				for j, fi := range st.vars[x].factors {
					y := nv + fi
					if !seen[y] {
						seen[y] = true
						st.par[y], st.parSlot[y] = x, st.vars[x].slot[j]
						st.order = append(st.order, y)
					}
				}
			} else {
				for _, vi := range st.factors[x-nv].hidden {
					if !seen[vi] {
						seen[vi] = true
						st.par[vi] = x
						for j, fi := range st.vars[vi].factors {
							if fi == x-nv {
								st.parSlot[vi] = j
							}
						}
						st.order = append(st.order, vi)
					}
				}
			}
		}
	}
	st.compStart = append(st.compStart, len(st.order))
}

// propagate runs belief propagation on every tree (collect to the root,
// then distribute), writes the marginals into the variables and returns
// ln Z summed over the trees.
func (st *spState) propagate() (float64, error) {
	nv := len(st.vars)
	logZ := 0.0
	for c := 0; c+1 < len(st.compStart); c++ {
		nodes := st.order[st.compStart[c]:st.compStart[c+1]]
		for i := len(nodes) - 1; i >= 1; i-- {
			x := nodes[i]
			if x < nv {
				logZ += st.varToFactor(x, st.parSlot[x])
			} else {
				logZ += st.factorToVar(x-nv, st.parSlot[x])
			}
		}
		root := nodes[0]
		b := st.varBelief(root, st.buf[:len(st.vars[root].v.stats)])
		z := 0.0
		for _, v := range b {
			z += v
		}
		if !(z > 0) {
			return 0, fmt.Errorf("ffg: sum-product: the evidence has probability 0 (at variable %s)", st.vars[root].v.describe())
		}
		logZ += math.Log(z)
		for _, x := range nodes {
			if x < nv {
				v := &st.vars[x]
				for j := range v.factors {
					if nv+v.factors[j] != st.par[x] {
						st.varToFactor(x, j)
					}
				}
			} else {
				f := &st.factors[x-nv]
				for s, vi := range f.hidden {
					if vi != st.par[x] {
						st.factorToVar(x-nv, s)
					}
				}
			}
		}
	}
	for fi := range st.factors {
		logZ += st.factors[fi].scale
	}
	for vi := range st.vars {
		v := &st.vars[vi]
		b := st.varBelief(vi, v.v.stats)
		normalize(b)
	}
	return logZ, nil
}

func normalize(x []float64) float64 {
	z := 0.0
	for _, v := range x {
		z += v
	}
	if z > 0 {
		inv := 1 / z
		for i := range x {
			x[i] *= inv
		}
	}
	return z
}

// varToFactor sends variable vi's message to its j-th factor: the product
// of its other factors' messages, normalised; it returns ln of the
// normaliser.
func (st *spState) varToFactor(vi, j int) float64 {
	v := &st.vars[vi]
	msg := st.factors[v.factors[j]].msgIn[v.slot[j]]
	for i := range msg {
		msg[i] = 1
	}
	for i, fi := range v.factors {
		if i == j {
			continue
		}
		in := st.factors[fi].msgOut[v.slot[i]]
		for k := range msg {
			msg[k] *= in[k]
		}
	}
	return math.Log(normalize(msg))
}

// factorToVar sends factor fi's message to its hidden neighbour in slot
// target: ψ times the other neighbours' messages, summed over them,
// normalised; it returns ln of the normaliser.
func (st *spState) factorToVar(fi, target int) float64 {
	f := &st.factors[fi]
	out := f.msgOut[target]
	switch len(f.shape) {
	case 1:
		copy(out, f.psi)
	case 2:
		n0, n1 := f.shape[0], f.shape[1]
		if target == 0 {
			in := f.msgIn[1]
			for i := range n0 {
				row := f.psi[i*n1 : (i+1)*n1]
				v := 0.0
				for j, p := range row {
					v += p * in[j]
				}
				out[i] = v
			}
		} else {
			in := f.msgIn[0]
			clear(out)
			for i := range n0 {
				w := in[i]
				if w == 0 {
					continue
				}
				row := f.psi[i*n1 : (i+1)*n1]
				for j, p := range row {
					out[j] += w * p
				}
			}
		}
	default:
		clear(out)
		idx := f.idx[:len(f.shape)]
		clear(idx)
		for _, p := range f.psi {
			w := p
			if w != 0 {
				for s := range idx {
					if s != target {
						w *= f.msgIn[s][idx[s]]
					}
				}
				out[idx[target]] += w
			}
			for s := len(idx) - 1; s >= 0; s-- {
				idx[s]++
				if idx[s] < f.shape[s] {
					break
				}
				idx[s] = 0
			}
		}
	}
	z := normalize(out)
	if !(z > 0) {
		return math.Inf(-1)
	}
	return math.Log(z)
}

// varBelief writes the product of the messages into variable vi into dst.
func (st *spState) varBelief(vi int, dst []float64) []float64 {
	v := &st.vars[vi]
	for i := range dst {
		dst[i] = 1
	}
	for i, fi := range v.factors {
		in := st.factors[fi].msgOut[v.slot[i]]
		for k := range dst {
			dst[k] *= in[k]
		}
	}
	return dst
}

// belief returns the factor's belief over its hidden neighbours: ψ times
// every neighbour's message, normalised.
func (sf *spFactor) belief() []float64 {
	if len(sf.bel) != len(sf.psi) {
		sf.bel = make([]float64, len(sf.psi))
	}
	out := sf.bel
	if len(sf.shape) == 2 {
		n1 := sf.shape[1]
		in0, in1 := sf.msgIn[0], sf.msgIn[1]
		for i, a := range in0 {
			row, dst := sf.psi[i*n1:(i+1)*n1], out[i*n1:(i+1)*n1]
			for j, p := range row {
				dst[j] = p * a * in1[j]
			}
		}
		normalize(out)
		return out
	}
	idx := sf.idx[:len(sf.shape)]
	clear(idx)
	for x, p := range sf.psi {
		w := p
		if w != 0 {
			for s := range idx {
				w *= sf.msgIn[s][idx[s]]
			}
		}
		out[x] = w
		for s := len(idx) - 1; s >= 0; s-- {
			idx[s]++
			if idx[s] < sf.shape[s] {
				break
			}
			idx[s] = 0
		}
	}
	normalize(out)
	return out
}

// StructuredFreeEnergy returns the free energy of structured mean field
// after SumProduct: -ln Z of the discrete and Gaussian trees (with every
// other variable at its posterior), plus the average energies of the
// factors in neither tree, minus the entropies of the hidden variables in
// neither tree. With every parameter known it is
// -ln p(observations), exactly.
func (g *Graph) StructuredFreeEnergy(logZ float64) float64 {
	f := -logZ
	for _, fn := range g.factors {
		if g.sp != nil {
			if _, ok := g.sp.byFac[fn]; ok {
				continue
			}
		}
		if g.inGaussFactor(fn) || g.mvFactorOf(fn) {
			continue
		}
		f += fn.factor.AverageEnergy(fn.stats)
	}
	for _, v := range g.vars {
		if v.family != expfam.CategoricalFamily && !g.inGauss(v) && !g.inMv(v) {
			f -= v.Entropy()
		}
	}
	return f
}

// addJointCounts adds to dst the factor's joint belief over every axis of its
// form (hidden neighbours from the sum-product belief, observed ones from
// their statistics), the expected counts of a Dirichlet-distributed tensor
// of that factor: the update uses the joint, not the outer product of the
// marginals as mean field does.
func (sf *spFactor) addJointCounts(dst []float64, form *messages.Multilinear) {
	rank := len(form.Shape)
	if len(sf.keep) == rank {
		identity := true
		for i, j := range sf.keep {
			identity = identity && i == j
		}
		if identity {
			// Every axis is a hidden neighbour, in the tensor's order:
			// the counts are the belief itself.
			for i, b := range sf.belief() {
				dst[i] += b
			}
			return
		}
	}
	var slotArr [16]int
	hiddenSlot := slotArr[:rank]
	for j := range hiddenSlot {
		hiddenSlot[j] = -1
	}
	for s, k := range sf.axes {
		for j, a := range form.Axes {
			if a == k {
				hiddenSlot[j] = s
			}
		}
	}
	n := 1
	for _, d := range form.Shape {
		n *= d
	}
	belief := sf.belief()
	var idxArr, hidxArr [16]int
	idx, hidx := idxArr[:rank], hidxArr[:len(sf.shape)]
	for x := range n {
		w := 1.0
		for j := range rank {
			if s := hiddenSlot[j]; s >= 0 {
				hidx[s] = idx[j]
			} else {
				w *= sf.f.stats[form.Axes[j]][idx[j]]
			}
		}
		if w != 0 {
			h := 0
			for s, d := range sf.shape {
				h = h*d + hidx[s]
			}
			dst[x] += w * belief[h]
		}
		for j := rank - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < form.Shape[j] {
				break
			}
			idx[j] = 0
		}
	}
}

// UpdateStructured is Update for structured inference after SumProduct: a
// Dirichlet variable bound as the tensor of a factor of the discrete tree
// takes that factor's joint belief as its expected counts; a variable bound
// to a pairwise factor of the Gaussian tree (a transition's precision)
// takes E[x y] from that factor's joint belief; a normal variable of the
// Gaussian tree is left as SumProduct set it; every other message is
// VMP's. Its errors are Update's.
func (g *Graph) UpdateStructured(v *Variable) error {
	if v != nil && v.g == g && !v.removed && !v.observed {
		if g.inGauss(v) || g.inMv(v) {
			return nil // SumProduct sets it exactly
		}
		if v.family != expfam.DirichletFamily && g.hasGaussPair(v) {
			return g.updateGaussJoint(v)
		}
		if v.family == expfam.WishartFamily && g.hasMvPair(v) {
			return g.updateMvJoint(v)
		}
	}
	if v == nil || v.family != expfam.DirichletFamily || g.sp == nil {
		return g.Update(v)
	}
	if v.g != g || v.removed {
		return g.refuse(v)
	}
	if v.observed {
		return nil
	}
	nat := v.natural()
	clear(nat)
	for _, e := range v.edges {
		if fi, ok := g.sp.byFac[e.f]; ok {
			if fm, ok := e.f.factor.(Formed); ok && fm.Form().Param == e.k {
				g.sp.factors[fi].addJointCounts(nat, fm.Form())
				continue
			}
		}
		if err := g.addMessage(v, e); err != nil {
			return err
		}
	}
	return v.setFromNatural()
}
