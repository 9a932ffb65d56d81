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
	f       *FactorNode
	hidden  []int     // indices into spState.vars
	axes    []int     // for each hidden neighbour, its interface index in f
	logpsi  []float64 // ln ψ over the hidden neighbours, row-major
	psi     []float64 // ψ / max ψ
	scale   float64   // ln max ψ
	shape   []int
	belief  []float64 // the factor belief over the hidden neighbours
	msgOut  [][]float64
	msgIn   [][]float64
	edgePos []int // for each hidden neighbour, the position of f in that variable's factor list
}

type spVar struct {
	v       *Variable
	factors []int // spState.factors indices
	slot    []int // position of this variable among each factor's hidden neighbours
}

// SumProduct sets the posteriors of the hidden categorical variables to
// their exact marginals under the discrete model in which every other
// variable is fixed at its current posterior (structured mean field: the
// discrete variables jointly, the rest factorised; docs/inference.md):
// each factor touching a hidden categorical variable contributes the
// potential exp(ln ψ), its log-density averaged over its other neighbours
// (for a Dirichlet-distributed tensor, exp E[ln θ]), and belief propagation
// on the tree they form gives the marginals and the factor beliefs. It
// returns ln Z of that tree, the evidence the structured free energy needs
// (Graph.StructuredFreeEnergy). A loop among the hidden categorical
// variables is a *LoopError that names it.
func (g *Graph) SumProduct() (logZ float64, err error) {
	st, err := g.buildTree()
	if err != nil {
		return 0, err
	}
	logZ, err = st.propagate()
	if err != nil {
		return 0, err
	}
	g.sp = st
	return logZ, nil
}

type spState struct {
	vars    []spVar
	factors []spFactor
	byVar   map[*Variable]int
	byFac   map[*FactorNode]int
}

func (g *Graph) buildTree() (*spState, error) {
	st := &spState{byVar: map[*Variable]int{}, byFac: map[*FactorNode]int{}}
	for _, v := range g.vars {
		if v.family == expfam.CategoricalFamily && !v.observed {
			st.byVar[v] = len(st.vars)
			st.vars = append(st.vars, spVar{v: v})
		}
	}
	for _, fn := range g.factors {
		var hidden, axes []int
		seen := map[int]bool{}
		for k, v := range fn.vars {
			if i, ok := st.byVar[v]; ok {
				if seen[i] {
					return nil, &LoopError{Loop: []string{v.describe(), fn.describe(), v.describe()}}
				}
				seen[i] = true
				hidden = append(hidden, i)
				axes = append(axes, k)
			}
		}
		if len(hidden) == 0 {
			continue
		}
		sf := spFactor{f: fn, hidden: hidden, axes: axes}
		if err := sf.potential(); err != nil {
			return nil, err
		}
		st.byFac[fn] = len(st.factors)
		st.factors = append(st.factors, sf)
	}
	for fi := range st.factors {
		f := &st.factors[fi]
		f.edgePos = make([]int, len(f.hidden))
		for slot, vi := range f.hidden {
			v := &st.vars[vi]
			f.edgePos[slot] = len(v.factors)
			v.factors = append(v.factors, fi)
			v.slot = append(v.slot, slot)
		}
	}
	if err := st.checkTree(); err != nil {
		return nil, err
	}
	return st, nil
}

// potential computes ln ψ over the factor's hidden neighbours: from its
// multilinear form, or, for a factor with one hidden neighbour and no
// form (the softmax policy prior), from its VMP message plus the constant
// that makes E_q[ln ψ] equal -AverageEnergy.
func (sf *spFactor) potential() error {
	fn := sf.f
	if fm, ok := fn.factor.(Formed); ok {
		form := fm.Form()
		keep := make([]int, 0, len(sf.axes))
		for _, k := range sf.axes {
			for j, a := range form.Axes {
				if a == k {
					keep = append(keep, j)
				}
			}
		}
		if len(keep) != len(sf.axes) {
			return fmt.Errorf("ffg: sum-product: factor %s: a categorical neighbour is not an axis of its form", fn.describe())
		}
		// The kept axes follow sf.axes, so ψ is indexed like sf.hidden.
		sf.logpsi, sf.shape = form.LogPotential(fn.stats, keep)
	} else {
		if len(sf.axes) != 1 {
			return fmt.Errorf("ffg: sum-product: factor %s (%s) joins %d hidden categorical variables and has no multilinear form", fn.describe(), fn.factor.Kind(), len(sf.axes))
		}
		m, ok := fn.factor.(Messenger)
		if !ok {
			return fmt.Errorf("ffg: sum-product: factor %s has no message rules", fn.describe())
		}
		k := sf.axes[0]
		n := len(fn.vars[k].stats)
		msg := make([]float64, n)
		if err := m.Message(msg, k, fn.stats); err != nil {
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
		sf.logpsi, sf.shape = msg, []int{n}
	}
	sf.scale = math.Inf(-1)
	for _, x := range sf.logpsi {
		sf.scale = math.Max(sf.scale, x)
	}
	if math.IsInf(sf.scale, -1) || math.IsNaN(sf.scale) {
		return fmt.Errorf("ffg: sum-product: factor %s gives every configuration probability 0", fn.describe())
	}
	sf.psi = make([]float64, len(sf.logpsi))
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
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	// Adjacency of the spanning forest so far, to name a loop.
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
	var path []int
	for x := b; x != -1; x = prev[x] {
		path = append(path, x)
	}
	names := make([]string, 0, len(path)+1)
	for _, x := range path {
		if x < nv {
			names = append(names, st.vars[x].v.describe())
		} else {
			names = append(names, "factor "+st.factors[x-nv].f.describe())
		}
	}
	return append(names, names[0])
}

// propagate runs belief propagation on every tree: collect to a root, then
// distribute, and returns ln Z summed over the trees.
func (st *spState) propagate() (float64, error) {
	nv := len(st.vars)
	for fi := range st.factors {
		f := &st.factors[fi]
		f.msgOut = make([][]float64, len(f.hidden)) // factor -> variable
		f.msgIn = make([][]float64, len(f.hidden))  // variable -> factor
		for s, vi := range f.hidden {
			n := len(st.vars[vi].v.stats)
			f.msgOut[s] = make([]float64, n)
			f.msgIn[s] = make([]float64, n)
		}
	}
	visited := make([]bool, nv+len(st.factors))
	logZ := 0.0
	for root := range st.vars {
		if visited[root] {
			continue
		}
		// BFS order over the tree of this root, with parents.
		order := []int{root}
		par := map[int]int{root: -1}
		visited[root] = true
		for i := 0; i < len(order); i++ {
			x := order[i]
			for _, y := range st.neighbours(x) {
				if !visited[y] {
					visited[y] = true
					par[y] = x
					order = append(order, y)
				}
			}
		}
		// Collect: every node sends to its parent, leaves first.
		for i := len(order) - 1; i >= 1; i-- {
			x := order[i]
			s := st.send(x, par[x])
			logZ += s
		}
		// The root's normaliser.
		b := st.varBelief(root)
		z := 0.0
		for _, v := range b {
			z += v
		}
		if !(z > 0) {
			return 0, fmt.Errorf("ffg: sum-product: the evidence has probability 0 (at variable %s)", st.vars[root].v.describe())
		}
		logZ += math.Log(z)
		// Distribute: every node sends to its children.
		for _, x := range order {
			for _, y := range st.neighbours(x) {
				if y != par[x] {
					st.send(x, y)
				}
			}
		}
	}
	for fi := range st.factors {
		logZ += st.factors[fi].scale
	}
	// Marginals and factor beliefs.
	for vi := range st.vars {
		b := st.varBelief(vi)
		normalize(b)
		copy(st.vars[vi].v.stats, b)
	}
	for fi := range st.factors {
		f := &st.factors[fi]
		f.belief = st.factorProduct(fi, -1)
		normalize(f.belief)
	}
	return logZ, nil
}

func normalize(x []float64) {
	z := 0.0
	for _, v := range x {
		z += v
	}
	if z > 0 {
		for i := range x {
			x[i] /= z
		}
	}
}

// neighbours of node x (variables 0..nv-1, factors nv..).
func (st *spState) neighbours(x int) []int {
	nv := len(st.vars)
	if x < nv {
		out := make([]int, len(st.vars[x].factors))
		for i, fi := range st.vars[x].factors {
			out[i] = nv + fi
		}
		return out
	}
	return st.factors[x-nv].hidden
}

// send computes the message from node x to its neighbour y, normalised; it
// returns ln of the normaliser.
func (st *spState) send(x, y int) float64 {
	nv := len(st.vars)
	var msg []float64
	if x < nv {
		// Variable x to factor y: the product of the other factors'
		// messages.
		f := &st.factors[y-nv]
		slot := st.slotOf(f, x)
		msg = f.msgIn[slot]
		for i := range msg {
			msg[i] = 1
		}
		v := &st.vars[x]
		for i, fi := range v.factors {
			if fi == y-nv {
				continue
			}
			in := st.factors[fi].msgOut[v.slot[i]]
			for k := range msg {
				msg[k] *= in[k]
			}
		}
	} else {
		fi := x - nv
		f := &st.factors[fi]
		slot := st.slotOf(f, y)
		msg = f.msgOut[slot]
		copy(msg, st.factorProduct(fi, slot))
	}
	z := 0.0
	for _, v := range msg {
		z += v
	}
	if !(z > 0) {
		return math.Inf(-1)
	}
	for i := range msg {
		msg[i] /= z
	}
	return math.Log(z)
}

func (st *spState) slotOf(f *spFactor, vi int) int {
	for s, h := range f.hidden {
		if h == vi {
			return s
		}
	}
	panic("ffg: sum-product: variable not on factor")
}

// factorProduct returns ψ_f times the incoming messages of every hidden
// neighbour but slot target; with target >= 0 it sums out every axis but
// target (the factor-to-variable message), with target < 0 it returns the
// whole product (the factor belief, unnormalised).
func (st *spState) factorProduct(fi, target int) []float64 {
	f := &st.factors[fi]
	rank := len(f.shape)
	var out []float64
	if target >= 0 {
		out = make([]float64, f.shape[target])
	} else {
		out = make([]float64, len(f.psi))
	}
	idx := make([]int, rank)
	for x, p := range f.psi {
		w := p
		if w != 0 {
			for s := range rank {
				if s != target {
					w *= f.msgIn[s][idx[s]]
				}
			}
		}
		if target >= 0 {
			out[idx[target]] += w
		} else {
			out[x] = w
		}
		for s := rank - 1; s >= 0; s-- {
			idx[s]++
			if idx[s] < f.shape[s] {
				break
			}
			idx[s] = 0
		}
	}
	return out
}

// varBelief returns the product of the messages into variable vi.
func (st *spState) varBelief(vi int) []float64 {
	v := &st.vars[vi]
	b := make([]float64, len(v.v.stats))
	for i := range b {
		b[i] = 1
	}
	for i, fi := range v.factors {
		in := st.factors[fi].msgOut[v.slot[i]]
		for k := range b {
			b[k] *= in[k]
		}
	}
	return b
}

// StructuredFreeEnergy returns the free energy of structured mean field
// after SumProduct: -ln Z of the discrete tree (with every other variable
// at its posterior), plus the average energies of the factors that touch
// no hidden categorical variable, minus the entropies of the hidden
// variables that are not categorical. With every parameter known it is
// -ln p(observations), exactly.
func (g *Graph) StructuredFreeEnergy(logZ float64) float64 {
	f := -logZ
	inTree := map[*FactorNode]bool{}
	if g.sp != nil {
		for i := range g.sp.factors {
			inTree[g.sp.factors[i].f] = true
		}
	}
	for _, fn := range g.factors {
		if !inTree[fn] {
			f += fn.factor.AverageEnergy(fn.stats)
		}
	}
	for _, v := range g.vars {
		if v.family != expfam.CategoricalFamily {
			f -= v.Entropy()
		}
	}
	return f
}

// jointCounts returns the factor's joint belief over every axis of its
// form (hidden neighbours from the sum-product belief, observed ones from
// their statistics), the expected counts of a Dirichlet-distributed tensor
// of that factor: the update uses the joint, not the outer product of the
// marginals as mean field does.
func (sf *spFactor) jointCounts(form *messages.Multilinear) []float64 {
	rank := len(form.Shape)
	hiddenSlot := make([]int, rank)
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
	out := make([]float64, n)
	idx := make([]int, rank)
	hidx := make([]int, len(sf.shape))
	for x := range out {
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
			out[x] = w * sf.belief[h]
		}
		for j := rank - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < form.Shape[j] {
				break
			}
			idx[j] = 0
		}
	}
	return out
}

// UpdateStructured is Update for structured inference after SumProduct: a
// Dirichlet variable bound as the tensor of a factor of the discrete tree
// takes that factor's joint belief as its expected counts; every other
// message is VMP's.
func (g *Graph) UpdateStructured(v *Variable) error {
	if v.family != expfam.DirichletFamily || g.sp == nil {
		return g.Update(v)
	}
	if v.g != g || v.removed {
		return fmt.Errorf("ffg: Update: variable %s is not in this graph", v.describe())
	}
	if v.observed {
		return nil
	}
	clear(v.nat)
	for _, e := range v.edges {
		if fi, ok := g.sp.byFac[e.f]; ok {
			if fm, ok := e.f.factor.(Formed); ok && fm.Form().Param == e.k {
				counts := g.sp.factors[fi].jointCounts(fm.Form())
				for i, c := range counts {
					v.nat[i] += c
				}
				continue
			}
		}
		if err := g.message(v, e); err != nil {
			return err
		}
		for i, m := range v.msg {
			v.nat[i] += m
		}
	}
	return v.setFromNatural()
}
