package ffg

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/internal/prefault"
	"github.com/arbor-ai/arbor/messages"
)

// Graph is a Forney factor graph whose variables and factors can be added
// and removed at any time, including between inference sweeps. A Graph is
// not safe for concurrent use.
//
// The zero Graph is an empty graph ready to use, as New's is. A nil *Graph
// is not a graph: calling its methods is a programming error, and they
// panic.
type Graph struct {
	sp      *spState // the last SumProduct's tree (UpdateStructured)
	gbp     *gState  // the last SumProduct's Gaussian tree
	gmv     *mvState // and its multivariate Gaussian tree (gaussmv.go)
	version uint64   // bumped by every change of structure or evidence (the sum-product cache)
	vars    []*Variable
	factors []*FactorNode
	byName  map[string]*Variable
	nextID  int
	places  map[int]DOTPlace // by node ID: its place in a figure (PlaceVariable), nil unless set
	epoch   uint64           // for marking factors/variables without allocation

	// After Reserve, variables, factors and the small float buffers of
	// variables are cut from arrays (slabs) rather than allocated one by
	// one: a graph of 10^5 steps is then a few allocations, laid out in
	// the order it is built.
	msg        []float64   // scratch: one message into the variable being updated
	nats       [][]float64 // by variable ID: the natural parameters of its last update (Variable.natural)
	natChunk   []float64   // the rest of the chunk natOf cuts buffers from
	natTmp     []float64   // while not nil, Variable.natural's buffer (resetToPrior)
	resetNat   []float64
	varSlab    []Variable
	factorSlab []FactorNode
	floatSlab  []float64
	edgeSlab   []edge
	slabbing   bool
	lazyPriors bool // AddFactor leaves its output where it is (DeferPriors)
}

// slabFloats is the length of one array of float buffers cut after
// Reserve, and slabFloatMax the largest buffer taken from it.
const (
	slabFloats   = 1 << 13
	slabFloatMax = 64
	slabEdgeMax  = 16
)

// natOf returns v's natural-parameter buffer, allocated at its first use.
// The index grows to every variable at once and small buffers are cut from chunks
// (natChunk), so that a first sweep over 10^5 variables allocates a few
// dozen times, and the buffers lie together as the variables were updated.
func (g *Graph) natOf(v *Variable) []float64 {
	if v.id >= len(g.nats) {
		g.nats = slices.Grow(g.nats, g.nextID-len(g.nats))[:g.nextID]
	}
	b := g.nats[v.id]
	if n := len(v.stats); len(b) != n {
		if n > slabFloatMax {
			b = make([]float64, n)
		} else {
			if len(g.natChunk) < n {
				g.natChunk = make([]float64, slabFloats)
			}
			b, g.natChunk = g.natChunk[:n:n], g.natChunk[n:]
		}
		g.nats[v.id] = b
	}
	return b
}

// scratch returns (*b)[:n], grown to n first when needed.
func (g *Graph) scratch(b *[]float64, n int) []float64 {
	if cap(*b) < n {
		*b = make([]float64, n)
	}
	return (*b)[:n]
}

// newVariable returns a zero Variable, from the slab when one is left.
func (g *Graph) newVariable() *Variable {
	if len(g.varSlab) == 0 {
		return new(Variable)
	}
	v := &g.varSlab[0]
	g.varSlab = g.varSlab[1:]
	return v
}

// newFactorNode returns a zero FactorNode, from the slab when one is left.
func (g *Graph) newFactorNode() *FactorNode {
	if len(g.factorSlab) == 0 {
		return new(FactorNode)
	}
	f := &g.factorSlab[0]
	g.factorSlab = g.factorSlab[1:]
	return f
}

// edges returns room for n edges cut from a slab (n <= slabEdgeMax), of
// length and capacity n.
func (g *Graph) edges(n int) []edge {
	if len(g.edgeSlab) < n {
		g.edgeSlab = make([]edge, slabFloats/2)
	}
	e := g.edgeSlab[:n:n]
	g.edgeSlab = g.edgeSlab[n:]
	return e
}

// floats returns n zero floats, cut from a slab after Reserve when n is
// small; the slice's capacity is n.
func (g *Graph) floats(n int) []float64 {
	if !g.slabbing || n > slabFloatMax {
		return make([]float64, n)
	}
	if len(g.floatSlab) < n {
		g.floatSlab = make([]float64, slabFloats)
	}
	b := g.floatSlab[:n:n]
	g.floatSlab = g.floatSlab[n:]
	return b
}

// New returns an empty graph.
func New() *Graph { return &Graph{byName: map[string]*Variable{}} }

// Reserve makes room for vars more variables and factors more factors, so
// that a graph whose size is known before it is built (a model file with
// arrays and loops of 10^5 steps) grows without copying: the next vars
// variables and factors factors are cut from two arrays allocated here, as
// are their small buffers. A variable or factor removed later keeps its
// part of those arrays until the graph is dropped. It changes nothing
// else; negative counts reserve nothing.
func (g *Graph) Reserve(vars, factors int) {
	if vars > 0 {
		g.slabbing = true
		g.varSlab = prefault.Make[Variable](vars, vars)
		g.vars = slices.Grow(g.vars, vars)
		byName := make(map[string]*Variable, len(g.byName)+vars)
		for k, v := range g.byName {
			byName[k] = v
		}
		g.byName = byName
	}
	if factors > 0 {
		g.factorSlab = prefault.Make[FactorNode](factors, factors)
		g.factors = slices.Grow(g.factors, factors)
	}
}

// DeferPriors makes AddFactor leave its output's posterior where it is,
// rather than reset it to the prior just bound, for a graph built whole
// and then reset once by ResetPosteriors before it is run (a model file
// built again for a data set's sizes, which model.Model.Infer resets): a
// chain of 10^5 steps is then reset once, not twice. A prior whose
// message is invalid is then ResetPosteriors' error, not AddFactor's.
func (g *Graph) DeferPriors() { g.lazyPriors = true }

// MaxElements caps the entries of one variable: K for a categorical of
// shape [K], the product of the shape for a Dirichlet (a gamma has two).
// AddVariable refuses a larger variable with an error, so that one call
// cannot ask for gigabytes. It equals the cap on a whole model file
// (package model), so every model that loads fits.
const MaxElements = 1 << 23

// Variables returns the live variables in the order they were added. The
// slice belongs to the graph and must not be modified.
func (g *Graph) Variables() []*Variable { return g.vars }

// Factors returns the live factors in the order they were added. The slice
// belongs to the graph and must not be modified.
func (g *Graph) Factors() []*FactorNode { return g.factors }

// Variable returns the variable called name.
func (g *Graph) Variable(name string) (*Variable, bool) {
	v, ok := g.byName[name]
	return v, ok
}

// AddVariable adds a hidden variable. name may be "" for an anonymous
// variable (anonymous variables are cheaper: no name index); a non-empty
// name must be unique. shape is [K] for a categorical, the tensor shape
// (outcome axis first) for a Dirichlet, and empty for a gamma. The initial
// posterior is uniform for a categorical, Dir(1) for a Dirichlet and
// Gamma(1, 1) for a gamma; binding a prior factor to the variable's output
// resets it to that prior. A variable of more than MaxElements entries is
// an error.
func (g *Graph) AddVariable(name string, family expfam.Family, shape ...int) (*Variable, error) {
	g.version++
	// The name's entry is made at once (one hash of the name, not a
	// look-up and then an insertion) and dropped if the variable is not
	// added, which then leaves its place in the slab unused.
	v := g.newVariable()
	fail := func(err error) (*Variable, error) {
		delete(g.byName, name)
		return nil, err
	}
	if name != "" {
		if g.byName == nil { // the zero Graph
			g.byName = map[string]*Variable{}
		}
		n := len(g.byName)
		if g.byName[name] = v; len(g.byName) == n {
			for _, w := range g.vars { // taken: give the entry back
				if w.name == name {
					g.byName[name] = w
					break
				}
			}
			return nil, fmt.Errorf("ffg: duplicate variable name %q", name)
		}
	}
	decl := family.Declaration()
	if decl == nil {
		return fail(fmt.Errorf("ffg: variable %q: unknown family %v", name, family))
	}
	if overCap(shape) {
		return fail(tooLarge(name, family, shape))
	}
	shape, n, np, err := decl.Layout(shape)
	if err != nil {
		return fail(fmt.Errorf("ffg: variable %q: %v", name, err))
	}
	if n > MaxElements {
		return fail(tooLarge(name, family, shape))
	}
	// v is fresh (zero) memory: its fields are set one by one rather than
	// the whole struct copied (a copy with the collector's write barrier
	// on every pointer, zeros included).
	v.g, v.id, v.name, v.family = g, g.nextID, name, family
	if len(shape) == 1 {
		v.shapeBuf[0] = shape[0]
		v.shape = v.shapeBuf[:]
	} else {
		v.shape = append([]int(nil), shape...)
	}
	v.edges = v.edgeBuf[:0]
	// stats and param share one backing array.
	buf := g.floats(n + np)
	v.stats = buf[:n:n]
	if np > 0 {
		v.param = buf[n : n+np : n+np]
	}
	v.reset()
	g.nextID++
	g.vars = append(g.vars, v)
	return v, nil
}

// overCap reports whether a shape of positive extents has more than
// MaxElements entries (a shape with another extent is ShapeLen's error).
func overCap(shape []int) bool {
	n := 1
	for _, s := range shape {
		if s < 1 {
			return false
		}
		if n > MaxElements/s {
			return true
		}
		n *= s
	}
	return false
}

// tooLarge is the error for a variable of more than MaxElements entries.
func tooLarge(name string, family expfam.Family, shape []int) error {
	size := 1.0
	for _, s := range shape {
		size *= float64(s)
	}
	format := byte('f') // exact below 2^53
	if size >= 1<<53 {
		format = 'g'
	}
	return fmt.Errorf("ffg: variable %q: %s shape %v has %s entries, more than ffg.MaxElements (%d)",
		name, family, shape, strconv.FormatFloat(size, format, -1, 64), MaxElements)
}

// AddFactor binds f to vars, in the order of f.Interfaces(). Each variable
// must belong to g, be live, have the interface's family and shape, and
// appear once. When a Dirichlet or gamma variable is bound to interface 0
// (the factor's output, i.e. f is its prior), its posterior is reset to that
// prior. A nil f, or one without interfaces, is an error.
func (g *Graph) AddFactor(name string, f Factor, vars ...*Variable) (*FactorNode, error) {
	g.version++
	if f == nil {
		return nil, errors.New("ffg: nil factor")
	}
	ifs := f.Interfaces()
	label := f.Kind()
	if name != "" {
		label += " " + quote(name)
	}
	if len(ifs) == 0 {
		return nil, fmt.Errorf("ffg: factor %s has no interfaces (interface 0 is its output)", label)
	}
	if len(vars) != len(ifs) {
		return nil, fmt.Errorf("ffg: factor %s: %d variables for %d interfaces %v", label, len(vars), len(ifs), names(ifs))
	}
	for k, v := range vars {
		it := ifs[k]
		switch {
		case v == nil:
			return nil, fmt.Errorf("ffg: factor %s: interface %q: nil variable", label, it.Name)
		case v.g != g:
			return nil, fmt.Errorf("ffg: factor %s: interface %q: variable %s belongs to another graph", label, it.Name, v.describe())
		case v.removed:
			return nil, fmt.Errorf("ffg: factor %s: interface %q: variable %s was removed", label, it.Name, v.describe())
		case v.family != it.Family:
			return nil, fmt.Errorf("ffg: factor %s: interface %q wants a %s variable, %s is %s", label, it.Name, it.Family, v.describe(), v.family)
		case it.Shape != nil && !sameShape(v.shape, it.Shape):
			return nil, fmt.Errorf("ffg: factor %s: interface %q wants shape %v, variable %s has shape %v", label, it.Name, it.Shape, v.describe(), v.shape)
		}
		for _, w := range vars[:k] {
			if w == v {
				return nil, fmt.Errorf("ffg: factor %s: variable %s bound to two interfaces", label, v.describe())
			}
		}
	}
	if c, ok := f.(GammaCollapsed); ok && c.CollapsesOutput() {
		if e, ok := collapsedOutput(vars[0]); ok {
			return nil, fmt.Errorf("ffg: factor %s: variable %s is already the output of the collapsed factor %s; one output can be kept conditional on one precision only (give one of them the exact treatment)", label, vars[0].describe(), e.f.describe())
		}
	}
	fn := g.newFactorNode()
	fn.g, fn.id, fn.name, fn.factor = g, g.nextID, name, f // fresh memory, as in AddVariable
	if len(vars) <= len(fn.varsBuf) {
		fn.vars = append(fn.varsBuf[:0], vars...)
		fn.stats = fn.statsBuf[:len(vars)]
	} else {
		fn.vars = append([]*Variable(nil), vars...)
		fn.stats = make([][]float64, len(vars))
	}
	g.nextID++
	for k, v := range vars {
		fn.stats[k] = v.stats
		if n := cap(v.edges); len(v.edges) == n && g.slabbing && n < slabEdgeMax {
			// After Reserve, a variable past its inline edges takes
			// twice as many from a slab (a step of a chain has three).
			e := g.edges(2 * n)
			copy(e, v.edges)
			v.edges = e[:len(v.edges)]
		}
		v.edges = append(v.edges, edge{f: fn, k: k})
		if len(v.edges) > len(v.edgeBuf) && v.edgeBuf[0].f != nil {
			// The edges moved to the heap: drop the inline copies, which
			// would otherwise keep removed factors reachable.
			clear(v.edgeBuf[:])
		}
	}
	g.factors = append(g.factors, fn)
	if out := vars[0]; !g.lazyPriors && out.startsAtPrior() && !out.observed {
		if err := g.resetToPrior(out); err != nil {
			g.RemoveFactor(fn)
			return nil, err
		}
	}
	return fn, nil
}

func names(ifs []messages.Interface) []string {
	out := make([]string, len(ifs))
	for i, it := range ifs {
		out[i] = it.Name
	}
	return out
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// resetToPrior sets v's posterior from the messages of the factors whose
// output v is: its prior.
func (g *Graph) resetToPrior(v *Variable) error {
	// Not an update: the prior's natural parameters are summed in scratch,
	// so that a variable no update reaches (one that sum-product sets)
	// keeps no buffer of its own.
	g.natTmp = g.scratch(&g.resetNat, len(v.stats))
	defer func() { g.natTmp = nil }()
	clear(g.natTmp)
	for _, e := range v.edges {
		if e.k != 0 {
			continue
		}
		if err := g.addMessage(v, e); err != nil {
			return err
		}
	}
	return v.setFromNatural()
}

// addMessage adds the message from e.f to v (computed into v.message())
// to the natural parameters summed in v.natural().
func (g *Graph) addMessage(v *Variable, e edge) error {
	msg := v.message()
	if err := g.message(msg, e); err != nil {
		return err
	}
	nat := v.natural()
	for i, m := range msg {
		nat[i] += m
	}
	return nil
}

// message computes the message from e.f to its variable at e.k into dst.
func (g *Graph) message(dst []float64, e edge) error {
	m, ok := e.f.factor.(Messenger)
	if !ok {
		var rules []string
		if rl, ok := e.f.factor.(RuleLister); ok {
			rules = rl.Rules()
		}
		return &messages.NoRuleError{Factor: e.f.describe(), Interface: e.f.factor.Interfaces()[e.k].Name, Rules: rules}
	}
	if err := m.Message(dst, e.k, e.f.stats); err != nil {
		var nr *messages.NoRuleError
		if errors.As(err, &nr) && e.f.name != "" && nr.Factor == e.f.factor.Kind() {
			nr.Factor = e.f.describe()
		}
		return err
	}
	return nil
}

// Update sets the posterior of the hidden variable v to its VMP fixed point
// given its neighbours' current posteriors (paper eqs. 5-8): the natural
// parameters are the sum of the messages from every factor bound to v.
// The output of a collapsed factor (GammaCollapsed) is updated by its
// Collapse instead; updating the Gamma variable of such factors also
// updates their outputs (their conditionals before the step, their
// marginals after it), which LocalFreeEnergy of that Gamma variable
// includes. A variable bound to no factor gets the default posterior
// (uniform, Dir(1), Gamma(1, 1)), as nothing constrains it, and an observed
// variable is left as it is. It returns an error for a nil variable or one
// that is not in g, a *messages.NoRuleError when a factor has no rule for
// v, and a *NaNError when the result is not a valid posterior (the previous
// posterior is then kept).
func (g *Graph) Update(v *Variable) (err error) {
	if v == nil || v.g != g || v.removed {
		return g.refuse(v)
	}
	if v.observed {
		return nil
	}
	if v.family == expfam.CategoricalFamily {
		if e, ok := collapsedOutput(v); ok {
			return g.collapse(v, e)
		}
	}
	if v.family == expfam.GammaFamily && hasCollapsed(v) {
		// q(out | γ) optimal for the current messages before the step,
		// the marginals q(out) under the new q(γ) after it.
		if err := g.refreshCollapsed(v); err != nil {
			return err
		}
		defer func() {
			if err == nil {
				err = g.refreshCollapsed(v)
			}
		}()
	}
	clear(v.natural())
	for _, e := range v.edges {
		if err := g.addMessage(v, e); err != nil {
			return err
		}
	}
	if len(v.edges) == 0 {
		// No factor: the default posterior (for a gamma, Gamma(1, 1)
		// rather than an improper rate 0).
		v.reset()
		return nil
	}
	if v.family == expfam.GammaFamily && g.hasNonConjugate(v) {
		return g.updateNonConjugate(v)
	}
	return v.setFromNatural()
}

// refuse returns Update's error for v, which is not a live variable of g.
// A nil g is not a graph, and panics (as documented on Graph) rather than
// report that v is not in it.
func (g *Graph) refuse(v *Variable) error {
	if g == nil {
		panic("ffg: Update of a nil *Graph")
	}
	if v == nil {
		return errors.New("ffg: Update: nil variable")
	}
	return fmt.Errorf("ffg: Update: variable %s is not in this graph", v.describe())
}

// FreeEnergy returns the variational free energy under mean field,
//
//	F = sum over factors E_q[-ln f] - sum over hidden variables H[q]
//
// (paper eqs. 3-4), with the current posteriors.
func (g *Graph) FreeEnergy() float64 {
	f := 0.0
	for _, fn := range g.factors {
		f += fn.factor.AverageEnergy(fn.stats)
	}
	for _, v := range g.vars {
		f -= v.Entropy()
	}
	return f
}

// LocalFreeEnergy returns the part of F that depends on the posteriors of
// vars: the average energies of the factors bound to any of them and the
// entropies of the hidden ones. When only vars change, F changes by exactly
// the change of this quantity, which is what local inference tracks. A
// nil, removed or foreign variable adds nothing (so no variables give 0).
// It does not allocate.
func (g *Graph) LocalFreeEnergy(vars []*Variable) float64 {
	g.epoch++
	f := 0.0
	for _, v := range vars {
		if v == nil || v.removed || v.g != g {
			continue
		}
		f += g.localTerms(v)
		if v.family != expfam.GammaFamily {
			continue
		}
		// Updating a Gamma variable also updates the outputs of its
		// collapsed factors (Update): their terms change too.
		for _, e := range v.edges {
			if out, ok := collapsedChild(e); ok {
				f += g.localTerms(out)
			}
		}
	}
	return f
}

// localTerms returns the terms of F not yet counted in this epoch that
// depend on v: its entropy and its factors' average energies.
func (g *Graph) localTerms(v *Variable) float64 {
	f := 0.0
	if v.mark != g.epoch {
		v.mark = g.epoch
		f -= v.Entropy()
	}
	for _, e := range v.edges {
		if e.f.mark != g.epoch {
			e.f.mark = g.epoch
			f += e.f.factor.AverageEnergy(e.f.stats)
		}
	}
	return f
}

// Neighbors returns the factors bound to v with v's interface index in
// each, appended to dst.
func (v *Variable) Neighbors(dst []*FactorNode) []*FactorNode {
	for _, e := range v.edges {
		dst = append(dst, e.f)
	}
	return dst
}

// RemoveFactor removes a factor from g. Its variables stay. Removal is
// idempotent, as delete on a map is: removing a nil factor, one already
// removed (also by RemoveVariables) or one of another graph does nothing,
// as container/list's Remove ignores an element of another list.
func (g *Graph) RemoveFactor(f *FactorNode) {
	g.version++
	if f == nil || f.g != g || f.removed {
		return
	}
	g.detach(f)
	g.factors = compactFactors(g.factors)
}

func (g *Graph) detach(f *FactorNode) {
	f.removed = true
	defer func() {
		// Break the references of the removed factor so that nothing it
		// bound is kept alive through it.
		f.vars, f.stats = nil, nil
		clear(f.varsBuf[:])
		clear(f.statsBuf[:])
	}()
	for _, v := range f.vars {
		for i, e := range v.edges {
			if e.f == f {
				// Clear the vacated slot: a stale copy past len would keep
				// the removed factor (and its sub-graph) reachable.
				last := len(v.edges) - 1
				copy(v.edges[i:], v.edges[i+1:])
				v.edges[last] = edge{}
				v.edges = v.edges[:last]
				break
			}
		}
	}
}

// RemoveVariables removes variables and every factor bound to any of them:
// a whole sub-graph, such as a BTAI planning tree, goes in one call that
// costs O(size of the graph). A factor that also binds a variable that
// stays is removed all the same (it would dangle otherwise); that variable
// stays, without it. Nil variables, variables already removed and those of
// another graph are skipped, as RemoveFactor skips such factors. Removed
// variables and factors can no longer be used in g (Update refuses them,
// a removed factor's AverageEnergy is NaN); their memory is released once
// the caller drops its references.
func (g *Graph) RemoveVariables(vars ...*Variable) {
	g.version++
	found := false
	for _, v := range vars {
		if v == nil || v.g != g || v.removed {
			continue
		}
		found = true
		for len(v.edges) > 0 {
			g.detach(v.edges[0].f)
		}
		v.removed = true
		v.edges = nil
		clear(v.edgeBuf[:])
		if v.name != "" {
			delete(g.byName, v.name)
		}
	}
	if !found {
		return
	}
	g.factors = compactFactors(g.factors)
	w := 0
	for _, v := range g.vars {
		if !v.removed {
			g.vars[w] = v
			w++
		}
	}
	clear(g.vars[w:])
	g.vars = g.vars[:w]
}

func compactFactors(fs []*FactorNode) []*FactorNode {
	w := 0
	for _, f := range fs {
		if !f.removed {
			fs[w] = f
			w++
		}
	}
	clear(fs[w:])
	return fs[:w]
}

// hasNonConjugate reports whether a factor bound to the Gamma variable v is
// non-conjugate there (GammaNonConjugate).
func (g *Graph) hasNonConjugate(v *Variable) bool {
	for _, e := range v.edges {
		if nc, ok := e.f.factor.(GammaNonConjugate); ok && nc.NonConjugateAt(e.k) {
			return true
		}
	}
	return false
}

// gammaObjective returns the part of F that depends on the Gamma posterior
// q of v: -m·E_q[T] for the summed conjugate messages m (in v.natural()), plus
// E_q[r] of every non-conjugate factor, minus H[q]; and the summed moments
// of the non-conjugate parts.
func (g *Graph) gammaObjective(v *Variable, q expfam.Gamma) (float64, expfam.GammaMoments) {
	var sum expfam.GammaMoments
	first := true
	for _, e := range v.edges {
		nc, ok := e.f.factor.(GammaNonConjugate)
		if !ok {
			continue
		}
		m, ok := nc.NonConjugate(e.k, e.f.stats, q)
		if !ok {
			continue
		}
		sum.E += m.E
		sum.CovLog += m.CovLog
		sum.CovX += m.CovX
		if first {
			sum.VarLog, sum.VarX, sum.CX = m.VarLog, m.VarX, m.CX
			first = false
		}
	}
	nat := v.natural()
	f := -(nat[0]*q.ExpectedLog() + nat[1]*q.Mean()) + sum.E - q.Entropy()
	return f, sum
}

// updateNonConjugate is Update for a Gamma variable with a non-conjugate
// factor: non-conjugate VMP (Knowles & Minka 2011, "Non-conjugate
// variational message passing for multinomial and binary regression",
// NIPS; Wand 2014, J. Stat. Softw.). At the stationary point of F over
// Gamma posteriors the natural parameters are
//
//	η = m - ∂E_q[r]/∂μ,  ∂E_q[r]/∂μ = Cov(T, T)⁻¹ Cov(r, T),
//
// m the conjugate messages, r the non-conjugate energies and μ = E_q[T],
// T = [ln γ, γ] (Cov(r, T) is ∂E_q[r]/∂η by the score identity, and
// Cov(T, T) = ∂μ/∂η). The step from the current posterior is damped,
// halving towards it, until F (its part that depends on q, computed
// exactly by quadrature) does not increase and the posterior is a valid
// Gamma; when no step lowers F the posterior is kept. So F never
// increases, and every posterior is valid.
func (g *Graph) updateNonConjugate(v *Variable) error {
	old := v.Gamma()
	f0, mom := g.gammaObjective(v, old)
	det := mom.VarLog*mom.VarX - mom.CX*mom.CX
	if !(det > 0) || math.IsNaN(f0) {
		return nil // degenerate quadrature: keep the posterior
	}
	gl := (mom.VarX*mom.CovLog - mom.CX*mom.CovX) / det
	gx := (-mom.CX*mom.CovLog + mom.VarLog*mom.CovX) / det
	nat := v.natural()
	target := [2]float64{nat[0] - gl, nat[1] - gx}
	from := old.Natural(nil)
	rho := 1.0
	for range 40 {
		eta := []float64{from[0] + rho*(target[0]-from[0]), from[1] + rho*(target[1]-from[1])}
		if q, err := expfam.GammaFromNatural(eta); err == nil {
			if f, _ := g.gammaObjective(v, q); f <= f0 {
				v.param[0], v.param[1] = q.Shape, q.Rate
				q.ExpectedStats(v.stats)
				return nil
			}
		}
		rho /= 2
	}
	return nil
}

// collapsing reports whether e's factor keeps its output conditional on a
// Gamma variable (GammaCollapsed).
func collapsing(e edge) bool {
	c, ok := e.f.factor.(GammaCollapsed)
	return ok && c.CollapsesOutput()
}

// collapsedOutput returns the edge of v to a factor that keeps v, its
// output, conditional on a Gamma variable.
func collapsedOutput(v *Variable) (edge, bool) {
	for _, e := range v.edges {
		if e.k == 0 && collapsing(e) {
			return e, true
		}
	}
	return edge{}, false
}

// collapsedChild returns, for an edge e of a Gamma variable to a collapsed
// factor, that factor's output when it is hidden.
func collapsedChild(e edge) (*Variable, bool) {
	if e.k == 0 || !collapsing(e) {
		return nil, false
	}
	out := e.f.vars[0]
	return out, !out.observed && !out.removed
}

// hasCollapsed reports whether the Gamma variable v is the parent of a
// hidden collapsed output.
func hasCollapsed(v *Variable) bool {
	for _, e := range v.edges {
		if _, ok := collapsedChild(e); ok {
			return true
		}
	}
	return false
}

// collapse updates the output v of the collapsed factor at e: the sum m of
// the messages from v's other factors, then q(v | γ) ∝ f(v | γ) exp(m)
// and its marginal under the current q(γ) (GammaCollapsed.Collapse).
func (g *Graph) collapse(v *Variable, e edge) error {
	clear(v.natural())
	for _, o := range v.edges {
		if o == e {
			continue
		}
		if err := g.addMessage(v, o); err != nil {
			return err
		}
	}
	var parent *Variable
	for k, w := range e.f.vars {
		if k != 0 && w.family == expfam.GammaFamily {
			parent = w
		}
	}
	if parent == nil {
		return fmt.Errorf("ffg: factor %s: no Gamma variable to collapse %s on", e.f.describe(), v.describe())
	}
	p, nat := v.message(), v.natural() // the messages are summed in nat
	if !e.f.factor.(GammaCollapsed).Collapse(p, nat, parent.Gamma()) {
		return &NaNError{Variable: v.describe(), Detail: fmt.Sprintf("no collapsed marginal for the messages %v (evidence of probability 0)", nat)}
	}
	copy(v.stats, p)
	return nil
}

// refreshCollapsed updates every collapsed output of the Gamma variable v
// (collapse): before v's update, the conditionals for the current
// messages; after it, the marginals under the new q(γ).
func (g *Graph) refreshCollapsed(v *Variable) error {
	for _, e := range v.edges {
		if out, ok := collapsedChild(e); ok {
			if err := g.collapse(out, edge{f: e.f, k: 0}); err != nil {
				return err
			}
		}
	}
	return nil
}

// ResetPosteriors puts every hidden variable's posterior back where a
// graph built afresh starts it: uniform for a categorical variable, its
// prior (the messages of the factors whose output it is) for a Dirichlet
// or Gamma variable. Running the same inference again then gives the same
// numbers as on a new graph, which is how one model is run on many data
// sets (model.Model.Infer).
func (g *Graph) ResetPosteriors() error {
	for _, f := range g.factors {
		if c, ok := f.factor.(GammaCollapsed); ok {
			c.Uncollapse()
		}
	}
	for _, v := range g.vars {
		if v.observed {
			continue
		}
		v.reset()
		if !v.startsAtPrior() {
			continue
		}
		for _, e := range v.edges {
			if e.k == 0 {
				if err := g.resetToPrior(v); err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}
