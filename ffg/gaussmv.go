package ffg

import (
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/internal/prefault"
	"github.com/arbor-ai/arbor/messages"
)

// The multivariate Gaussian tree: sum-product over hidden mvnormal
// variables (the Kalman filter and the RTS smoother on a chain, in
// information form). It is gaussbp.go with matrices: a factor's potential
// over its one or two tree variables x (dimension p) and y (dimension q),
//
//	ln ψ(x, y) = -½ [x; y]ᵀ [[Jxx, Jxy], [Jxyᵀ, Jyy]] [x; y] + hxᵀx + hyᵀy + c,
//
// is its Polynomial form with every other neighbour at its expected
// statistics; the message to y given the message (J, h) from x is
// (Jyy - Jxyᵀ Jo⁻¹ Jxy, hy - Jxyᵀ Jo⁻¹ ho) with Jo = Jxx + J, ho = hx + h,
// and integrating x out adds (p/2) ln 2π - ½ ln|Jo| + ½ hoᵀ Jo⁻¹ ho to ln Z.
//
// A hidden mvnormal variable is in the tree when every factor bound to it
// has a Polynomial form and neither a hidden categorical nor a hidden
// (univariate) normal neighbour; a factor joining more than two of them
// takes them out, and so does a pairwise factor with another hidden
// neighbour (whose update would need the pair's joint belief): they keep
// VMP. Unary factors may read other hidden variables (an observation with
// a Wishart noise precision): their potentials are refreshed every pass.

// mvFactor is a factor of the multivariate tree.
type mvFactor struct {
	fn     *FactorNode // nil in an MvGaussForest
	node   Factor
	stats  [][]float64 // the neighbours' statistics (fn's, or the forest's)
	form   *messages.Polynomial
	pot    *mvPot   // its potential: shared by the pairs of one form, scratch for a unary factor
	joint  *mvJoint // for a dynamic pair: what its joint belief needs
	k      [2]int   // interface index of each slot
	v      [2]int32 // tree variable of each slot (v[1] = -1: unary)
	static bool
	shared bool    // its potential is another factor's of the same form
	ldo    float64 // ln|Jo| of its last message from parent to child (factorToVar)
	// A pair's messages out, J then h to slot 0 (p×p, p), then to slot 1
	// (q×q, q): a view of one buffer (msg).
	out  []float64
	p, q int32
}

// mvPot is a factor's Gaussian potential: jxx (p×p), jxy (p×q), jyy
// (q×q), hx (p), hy (q) and the constant c.
type mvPot struct {
	jxx, jxy, jyy, hx, hy []float64
	c                     float64
}

// mvJoint is what a dynamic pair keeps for its joint belief: E[x yᵀ]
// (p×q) and its messages in per slot (another pair's are scratch).
type mvJoint struct {
	exy      []float64
	inJ, inH [2][]float64
}

// mvState is the multivariate Gaussian tree of the last SumProduct. Its
// variables and factors carry its stamp in gstamp and their index in gidx
// (fields the univariate tree uses for normal variables and their
// factors, disjoint from these: a factor with a hidden normal neighbour
// keeps its mvnormal ones out of this tree).
type mvState struct {
	version uint64
	stamp   uint64
	vars    []*Variable      // nil in an MvGaussForest
	names   func(int) string // names a variable in errors when vars is nil
	dim     []int
	// Each variable's parameters (mean, then covariance) and expected
	// statistics, which setBelief writes (stats nil: not kept).
	param, vstats [][]float64
	factors       []mvFactor // pairwise first (npair), then unary
	npair         int
	adjF          []int32
	adjS          []int8
	adjStart      []int32
	order         []int32
	comp          []int32
	par           []int32
	parSlot       []int8
	// Unary terms of each variable, J (d×d) then h (d) from uOff[i] in
	// the static ones and in this pass's (the same array when no unary
	// factor is dynamic).
	uOff          []int32
	static, unary []float64
	dynamic       []int32
	ldet          []float64 // ln|J| of each variable's belief
	deg           []int32   // its number of pairwise factors
	// Scratch of the largest dimension, of a pair, and of the points.
	tj, th, fj, fh, l, g, w, v []float64
	ij, ih                     []float64 // a message in
	upot                       mvPot     // the buffers of the unary factors' potential
	pj, pl                     []float64
	points                     [][]float64
}

// PointEvaluator is the optional interface of a factor that evaluates its
// E_q[ln f] with the neighbours on the interfaces k where points[k] is
// non-nil at those points and the others at their expected statistics,
// in a form that keeps its accuracy far from the origin (nodes.MvNormal:
// the residual form of a Gaussian). The multivariate Gaussian tree reads
// ln Z from it; a factor without it is evaluated by its Polynomial at the
// points' statistics.
type PointEvaluator interface {
	LogDensityAt(points, stats [][]float64) float64
}

func mvEligible(v *Variable) bool {
	if v.family != expfam.MvNormalFamily || v.observed || v.removed || len(v.edges) == 0 {
		return false
	}
	for _, e := range v.edges {
		if _, ok := e.f.factor.(Polynomialer); !ok {
			return false
		}
		for _, w := range e.f.vars {
			if !w.observed && (w.family == expfam.CategoricalFamily || w.family == expfam.NormalFamily) {
				return false
			}
		}
	}
	return true
}

// buildMv finds the tree and derives the static potentials.
func (g *Graph) buildMv() (*mvState, error) {
	st := &mvState{stamp: stampCounter.Add(1)}
	in := 0
	for _, v := range g.vars {
		if mvEligible(v) {
			v.gmark = st.stamp
			in++
		}
	}
	if in == 0 {
		return st, nil
	}
	for changed := true; changed; {
		changed = false
		for _, fn := range g.factors {
			n, others := 0, false
			for _, w := range fn.vars {
				switch {
				case w.gmark == st.stamp:
					n++
				case !w.observed && w.family != expfam.WishartFamily:
					others = true
				}
			}
			if n > 2 || (n == 2 && others) {
				for _, w := range fn.vars {
					if w.gmark == st.stamp {
						w.gmark = 0
						changed = true
					}
				}
			}
		}
	}
	for _, v := range g.vars {
		if v.gmark == st.stamp {
			v.gstamp, v.gidx = st.stamp, int32(len(st.vars))
			st.vars = append(st.vars, v)
			st.dim = append(st.dim, v.shape[0])
			st.param, st.vstats = append(st.param, v.param), append(st.vstats, v.stats)
		}
	}
	// The factors with a tree variable: counted first, so that the
	// factors and one buffer for every potential and message are
	// allocated once (a chain of 10^4 steps has 2·10^4 of them).
	found := make([]mvSlot, 0, len(g.factors))
	for _, fn := range g.factors {
		sl := mvSlot{fn: fn, node: fn.factor, stats: fn.stats, v: [2]int32{-1, -1}, static: true}
		for k, w := range fn.vars {
			if w.gstamp == st.stamp && sl.n < 2 {
				sl.v[sl.n], sl.k[sl.n] = w.gidx, int32(k)
				sl.n++
			} else if !w.observed {
				sl.static = false
			}
		}
		if sl.n == 0 {
			continue
		}
		found = append(found, sl)
	}
	if err := st.assemble(found); err != nil {
		return nil, err
	}
	for fi := range st.factors {
		st.factors[fi].fn.gstamp, st.factors[fi].fn.gidx = st.stamp, int32(fi)
	}
	return st, nil
}

// assemble makes the tree of the factors found (in the graph's order):
// the factors, pairs first, with one buffer for every potential and
// message, the adjacency, the traversal and the static potentials.
func (st *mvState) assemble(found []mvSlot) error {
	npair, size := 0, 0
	for _, sl := range found {
		p, q := st.dim[sl.v[0]], 0
		if sl.n == 2 {
			q = st.dim[sl.v[1]]
			npair++
		}
		if sl.n == 2 { // the messages (unary factors have none, and a scratch potential)
			size += p*p + p + q*q + q
			if len(sl.stats) > 2 {
				size += p*p + p + p*q + q*q + q // a potential of its own
				if !sl.static {
					size += p*p + p + q*q + q // its messages in (exy)
				}
			}
		}
	}
	st.npair = npair
	st.factors = prefault.Make[mvFactor](len(found), len(found))
	buf := prefault.Make[float64](size, size)
	take := func(m int) []float64 { s := buf[:m:m]; buf = buf[m:]; return s }
	ip, iu := 0, npair
	// The pairwise factors with no other neighbour depend on their form
	// alone: those of one form (the transitions of a loop share a node)
	// share one potential, computed once.
	type formKey struct {
		form *messages.Polynomial
		k    [2]int32
	}
	shared, checked := map[formKey]*mvFactor{}, map[formKey]bool{}
	var lastKey, lastPair formKey
	var lastShared *mvFactor
	dmax := 0
	for _, d := range st.dim {
		dmax = max(dmax, d)
	}
	// A unary factor's potential is scratch (potential cuts it to its
	// size), folded into its variable's terms at once.
	scratch := &mvPot{jxx: make([]float64, dmax*dmax), hx: make([]float64, dmax)}
	st.upot = *scratch
	for _, sl := range found {
		var f *mvFactor
		if sl.n == 2 {
			f, ip = &st.factors[ip], ip+1
		} else {
			f, iu = &st.factors[iu], iu+1
		}
		// Fresh (zero) memory: the fields set one by one (see AddVariable).
		f.fn, f.node, f.stats, f.v, f.k, f.static = sl.fn, sl.node, sl.stats, sl.v, [2]int{int(sl.k[0]), int(sl.k[1])}, sl.static
		f.form = sl.node.(Polynomialer).Polynomial()
		// The factors of a loop share their form: the last one's key is
		// tried before the maps.
		key := formKey{f.form, sl.k}
		if key != lastKey && !checked[key] {
			if err := f.checkForm(st, sl.n); err != nil {
				return err
			}
			checked[key] = true
		}
		lastKey = key
		p, q := st.dim[f.v[0]], 0
		if sl.n == 2 {
			q = st.dim[f.v[1]]
		}
		if sl.n == 1 {
			// Unary: its potential goes into its variable's terms at once.
			f.pot = scratch
			continue
		}
		f.out, f.p, f.q = take(p*p+p+q*q+q), int32(p), int32(q)
		if len(sl.stats) == 2 && lastShared != nil && key == lastPair {
			f.pot, f.shared = lastShared.pot, true
			continue
		}
		if o, ok := shared[key]; ok && len(sl.stats) == 2 {
			f.pot, f.shared = o.pot, true
			lastPair, lastShared = key, o
			continue
		}
		if len(sl.stats) == 2 {
			shared[key] = f
			lastPair, lastShared = key, f
			f.pot = &mvPot{jxx: make([]float64, p*p), hx: make([]float64, p), jxy: make([]float64, p*q), jyy: make([]float64, q*q), hy: make([]float64, q)}
			continue
		}
		f.pot = &mvPot{jxx: take(p * p), hx: take(p), jxy: take(p * q), jyy: take(q * q), hy: take(q)}
		if !f.static {
			f.joint = &mvJoint{exy: make([]float64, p*q)}
			f.joint.inJ[0], f.joint.inH[0] = take(p*p), take(p)
			f.joint.inJ[1], f.joint.inH[1] = take(q*q), take(q)
		}
	}
	nv := len(st.dim)
	st.adjStart, st.adjF, st.adjS = pairAdjacency(nv, st.npair, func(fi int) [2]int32 { return st.factors[fi].v })
	if err := st.traverse(); err != nil {
		return err
	}
	st.tj, st.th, st.l = make([]float64, dmax*dmax), make([]float64, dmax), make([]float64, dmax*dmax)
	st.fj, st.fh = make([]float64, dmax*dmax), make([]float64, dmax)
	st.pj, st.pl = make([]float64, 4*dmax*dmax), make([]float64, 4*dmax*dmax)
	st.ldet, st.deg = make([]float64, nv), make([]int32, nv)
	for i := range nv {
		st.deg[i] = st.adjStart[i+1] - st.adjStart[i]
	}
	nif := 0
	for fi := range st.factors {
		nif = max(nif, len(st.factors[fi].stats))
	}
	st.points = make([][]float64, nif)
	st.g, st.w, st.v = make([]float64, dmax*dmax), make([]float64, dmax), make([]float64, dmax*dmax)
	st.ij, st.ih = make([]float64, dmax*dmax), make([]float64, dmax)
	st.uOff = make([]int32, nv+1)
	for i, d := range st.dim {
		st.uOff[i+1] = st.uOff[i] + int32(d*d+d)
	}
	st.static = prefault.Make[float64](int(st.uOff[nv]), int(st.uOff[nv]))
	st.unary = st.static
	for fi := range st.factors {
		f := &st.factors[fi]
		if !f.static {
			st.dynamic = append(st.dynamic, int32(fi))
			continue
		}
		if !f.shared {
			f.potential(st)
		}
		if f.v[1] < 0 {
			j, h := st.terms(st.static, f.v[0])
			addTo(j, f.pot.jxx)
			addTo(h, f.pot.hx)
		}
	}
	if len(st.dynamic) > 0 {
		st.unary = make([]float64, len(st.static))
	}
	return nil
}

// terms returns the J and h of variable x in b (mvState.static or unary).
func (st *mvState) terms(b []float64, x int32) ([]float64, []float64) {
	o, d := st.uOff[x], int32(st.dim[x])
	return b[o : o+d*d : o+d*d], b[o+d*d : o+d*d+d : o+d*d+d]
}

func addTo(dst, x []float64) {
	for i, v := range x {
		dst[i] += v
	}
}

// checkForm refuses a term of degree above 2 in the tree variables.
func (f *mvFactor) checkForm(st *mvState, n int) error {
	for t := range f.form.NumTerms() {
		deg := 0
		for s := range n {
			if _, j := f.form.At(t, f.k[s]); j >= 0 {
				if j < st.dim[f.v[s]] {
					deg++
				} else {
					deg += 2
				}
			}
		}
		if deg > 2 {
			return fmt.Errorf("ffg: sum-product: factor %s is not Gaussian in its mvnormal neighbours (a term of degree %d)", f.describe(), deg)
		}
	}
	return nil
}

// traverse fixes the BFS order of every tree and finds loops.
func (st *mvState) traverse() error {
	nv := len(st.dim)
	st.par, st.parSlot = make([]int32, nv), make([]int8, nv)
	seenV, seenF := make([]bool, nv), make([]bool, st.npair)
	for root := range nv {
		if seenV[root] {
			continue
		}
		st.comp = append(st.comp, int32(len(st.order)))
		st.order = append(st.order, int32(root))
		seenV[root], st.par[root] = true, -1
		for i := len(st.order) - 1; i < len(st.order); i++ {
			x := st.order[i]
			for a := st.adjStart[x]; a < st.adjStart[x+1]; a++ {
				fi := st.adjF[a]
				if fi == st.par[x] {
					continue
				}
				other := st.factors[fi].v[1-st.adjS[a]]
				if seenF[fi] || seenV[other] {
					return &LoopError{Loop: []string{st.varName(x), "factor " + st.factors[fi].describe(), st.varName(other), "..."}}
				}
				seenF[fi], seenV[other] = true, true
				st.par[other], st.parSlot[other] = fi, 1-st.adjS[a]
				st.order = append(st.order, other)
			}
		}
	}
	st.comp = append(st.comp, int32(len(st.order)))
	return nil
}

// potential derives the factor's Gaussian potential from its form with
// every other neighbour at its expected statistics.
func (f *mvFactor) potential(st *mvState) {
	if f.v[1] < 0 {
		p := st.dim[f.v[0]]
		f.pot.jxx, f.pot.hx = st.upot.jxx[:p*p], st.upot.hx[:p]
	}
	clear(f.pot.jxx)
	clear(f.pot.jxy)
	clear(f.pot.jyy)
	clear(f.pot.hx)
	clear(f.pot.hy)
	f.pot.c = f.form.Const
	stats := f.stats
	p, q := len(f.pot.hx), len(f.pot.hy)
	k0, k1 := f.k[0], -1
	if f.v[1] >= 0 {
		k1 = f.k[1]
	}
	eachTerm(f.form, stats, k0, k1, func(w float64, j0, j1 int) {
		switch {
		case j0 < 0 && j1 < 0:
			f.pot.c += w
		case j0 >= 0 && j1 >= 0: // x_i y_j
			f.pot.jxy[j0*q+j1] -= w
		case j0 >= p: // x_i x_j
			f.pot.jxx[j0-p] -= 2 * w
		case j0 >= 0:
			f.pot.hx[j0] += w
		case j1 >= q:
			f.pot.jyy[j1-q] -= 2 * w
		default:
			f.pot.hy[j1] += w
		}
	})
	expfam.Symmetrize(f.pot.jxx, p)
	expfam.Symmetrize(f.pot.jyy, q)
}

// inMv reports whether v is a variable of the current multivariate tree.
func (g *Graph) inMv(v *Variable) bool {
	st := g.gmv
	return st != nil && st.version == g.version && st.stamp != 0 && v.gstamp == st.stamp
}

// mvFactorOf reports whether fn is a factor of the current multivariate
// tree (whose energy ln Z holds).
func (g *Graph) mvFactorOf(fn *FactorNode) bool {
	st := g.gmv
	return st != nil && st.version == g.version && st.stamp != 0 && fn.gstamp == st.stamp
}

// mvPass runs multivariate Gaussian belief propagation on every tree,
// writes the exact marginals into the variables and returns ln Z.
//
// ln Z is read at the posterior mean x̂ rather than gathered along the
// pass: for the Gaussian p̃(x) = Π_f ψ_f(x) with posterior q on a tree,
// ln Z = ln p̃(x̂) - ln q(x̂), and q(x̂) factorises over the pairwise
// beliefs and the marginals, so that
//
//	ln Z = Σ_f ln ψ_f(x̂) + Σ_v (d_v/2) ln 2π - ½ Σ_pairs ln|J_pair| + ½ Σ_v (deg_v - 1) ln|J_v|,
//
// J the precision of a belief and deg_v the number of pairwise factors of
// v. Each ln ψ_f(x̂) is a residual (PointEvaluator), small where the
// data are large; the information-form sums of the pass (½ hᵀJ⁻¹h against
// the constants of the potentials) cancel to a few digits fewer there.
func (g *Graph) mvPass() (float64, error) {
	st := g.gmv
	if st == nil || st.version != g.version {
		g.gmv = nil
		var err error
		if st, err = g.buildMv(); err != nil {
			return 0, err
		}
		st.version = g.version
		g.gmv = st
	}
	if len(st.vars) == 0 {
		return 0, nil
	}
	return st.pass()
}

// pass refreshes the dynamic potentials, runs the collect and distribute
// passes on every tree, writes the beliefs and returns ln Z.
func (st *mvState) pass() (float64, error) {
	if len(st.dynamic) > 0 {
		copy(st.unary, st.static)
	}
	for _, fi := range st.dynamic {
		f := &st.factors[fi]
		f.potential(st)
		if f.v[1] < 0 {
			j, h := st.terms(st.unary, f.v[0])
			addTo(j, f.pot.jxx)
			addTo(h, f.pot.hx)
		}
	}
	for c := 0; c+1 < len(st.comp); c++ {
		nodes := st.order[st.comp[c]:st.comp[c+1]]
		for i := len(nodes) - 1; i >= 1; i-- {
			x := nodes[i]
			f := &st.factors[st.par[x]]
			s := st.parSlot[x]
			ij, ih := st.in(f, s)
			st.sum(x, st.par[x], ij, ih)
			if err := st.factorToVar(f, int(1-s), ij, ih, false); err != nil {
				return 0, err
			}
		}
		for _, x := range nodes {
			d := st.dim[x]
			tj, th := st.tj[:d*d], st.th[:d]
			st.sum(x, -1, tj, th)
			if err := st.setBelief(x, tj, th); err != nil {
				return 0, err
			}
			for a := st.adjStart[x]; a < st.adjStart[x+1]; a++ {
				fi := st.adjF[a]
				if fi == st.par[x] {
					continue
				}
				f := &st.factors[fi]
				s := st.adjS[a]
				ij, ih := st.in(f, s)
				oj, oh := f.msg(int(s))
				for i := range tj {
					ij[i] = tj[i] - oj[i]
				}
				for i := range th {
					ih[i] = th[i] - oh[i]
				}
				if err := st.factorToVar(f, int(1-s), ij, ih, true); err != nil {
					return 0, err
				}
			}
		}
	}
	return st.logZ()
}

// in returns the buffers of the message into f at slot s: its own when
// it keeps them, else scratch.
func (st *mvState) in(f *mvFactor, s int8) ([]float64, []float64) {
	if f.joint != nil {
		return f.joint.inJ[s], f.joint.inH[s]
	}
	d := int(f.p)
	if s == 1 {
		d = int(f.q)
	}
	return st.ij[:d*d], st.ih[:d]
}

// msg returns the pair's message out to slot s: its J and its h.
func (f *mvFactor) msg(s int) ([]float64, []float64) {
	o, d := 0, int(f.p)
	if s == 1 {
		o, d = d*d+d, int(f.q)
	}
	return f.out[o : o+d*d : o+d*d], f.out[o+d*d : o+d*d+d : o+d*d+d]
}

// logZ returns ln Z at the posterior means (see mvPass).
func (st *mvState) logZ() (float64, error) {
	var z ksum
	for i, d := range st.dim {
		z.add(0.5 * float64(d) * ln2pi)
		z.add(0.5 * float64(st.deg[i]-1) * st.ldet[i])
	}
	for fi := range st.factors {
		f := &st.factors[fi]
		pts := st.points[:len(f.stats)]
		clear(pts)
		for s, vi := range f.v {
			if vi >= 0 {
				pts[f.k[s]] = st.param[vi][:st.dim[vi]]
			}
		}
		if pe, ok := f.node.(PointEvaluator); ok {
			z.add(pe.LogDensityAt(pts, f.stats))
		} else {
			z.add(pointPolynomial(f.form, pts, f.stats))
		}
		switch {
		case fi >= st.npair:
		case f.joint == nil:
			// ln|J| of the pair's joint belief [[A, B], [Bᵀ, C]] is
			// ln|A| + ln|C - Bᵀ A⁻¹ B|, A the parent's block plus its
			// message in (f.ldo) and the second the child's belief.
			child := f.v[1]
			if st.par[child] != int32(fi) {
				child = f.v[0]
			}
			z.add(-0.5 * (f.ldo + st.ldet[child]))
		default:
			ld, err := st.pairLogDet(f)
			if err != nil {
				return 0, err
			}
			z.add(-0.5 * ld)
		}
	}
	return z.value(), nil
}

// pointPolynomial evaluates the form with the neighbours in points at
// T(x) = [x, x xᵀ].
func pointPolynomial(form *messages.Polynomial, points, stats [][]float64) float64 {
	at := make([][]float64, len(stats))
	for k, x := range points {
		if x == nil {
			at[k] = stats[k]
			continue
		}
		d := len(x)
		t := make([]float64, d+d*d)
		copy(t, x)
		for i := range d {
			for j := range d {
				t[d+i*d+j] = x[i] * x[j]
			}
		}
		at[k] = t
	}
	return form.ExpectedLog(at)
}

// pairLogDet returns ln|J| of the pairwise factor's joint belief,
// [[Jxx + in_x, Jxy], [Jxyᵀ, Jyy + in_y]].
func (st *mvState) pairLogDet(f *mvFactor) (float64, error) {
	p, q := len(f.pot.hx), len(f.pot.hy)
	n := p + q
	j, l := st.pj[:n*n], st.pl[:n*n]
	for a := range p {
		for b := range p {
			j[a*n+b] = f.pot.jxx[a*p+b] + f.joint.inJ[0][a*p+b]
		}
		for b := range q {
			j[a*n+p+b] = f.pot.jxy[a*q+b]
			j[(p+b)*n+a] = f.pot.jxy[a*q+b]
		}
	}
	for a := range q {
		for b := range q {
			j[(p+a)*n+p+b] = f.pot.jyy[a*q+b] + f.joint.inJ[1][a*q+b]
		}
	}
	if !expfam.Cholesky(l, j, n) {
		return 0, &NaNError{Variable: st.varName(f.v[0]), Detail: "sum-product: a pairwise belief's precision matrix is not positive definite"}
	}
	if f.joint != nil {
		// E[x yᵀ] = Cov(x, y) + E x E yᵀ: the columns p.. of J⁻¹, rows ..p.
		mx, my := st.param[f.v[0]][:p], st.param[f.v[1]][:q]
		col := st.pj[:n] // j is no longer needed
		for b := range q {
			clear(col)
			col[p+b] = 1
			expfam.CholSolve(l, n, col)
			for a := range p {
				f.joint.exy[a*q+b] = col[a] + mx[a]*my[b]
			}
		}
	}
	return cholLogDet(l, n), nil
}

// hasMvPair reports whether v (a wishart variable) is bound to a pairwise
// factor of the multivariate tree, whose joint belief its update reads.
func (g *Graph) hasMvPair(v *Variable) bool {
	for _, e := range v.edges {
		if g.mvFactorOf(e.f) && g.gmv.factors[e.f.gidx].v[1] >= 0 {
			return true
		}
	}
	return false
}

// updateMvJoint is UpdateStructured for a variable bound to pairwise
// factors of the multivariate tree (the precision matrix of a transition):
// a term of their forms in x_a y_b takes E[x_a y_b] from the pair's joint
// belief instead of E[x_a] E[y_b], which makes the update the exact
// minimisation of the structured free energy over v (the matrix form of
// updateGaussJoint).
func (g *Graph) updateMvJoint(v *Variable) error {
	nat := v.natural()
	clear(nat)
	for _, e := range v.edges {
		if !g.mvFactorOf(e.f) || g.gmv.factors[e.f.gidx].v[1] < 0 {
			if err := g.addMessage(v, e); err != nil {
				return err
			}
			continue
		}
		f := &g.gmv.factors[e.f.gidx]
		q := len(f.pot.hy)
		form, stats := f.form, e.f.stats
		n := form.NumInterfaces()
		for t := range form.NumTerms() {
			w, j := form.At(t, e.k)
			if j < 0 {
				continue
			}
			_, a := form.At(t, f.k[0])
			_, b := form.At(t, f.k[1])
			joint := a >= 0 && b >= 0 // both linear (checkForm: degree <= 2)
			if joint {
				w *= f.joint.exy[a*q+b]
			}
			for i := range n {
				if i == e.k || (joint && (i == f.k[0] || i == f.k[1])) {
					continue
				}
				if _, s := form.At(t, i); s >= 0 {
					w *= stats[i][s]
				}
			}
			nat[j] += w
		}
	}
	return v.setFromNatural()
}

func cholLogDet(l []float64, d int) float64 {
	s := 0.0
	for i := range d {
		s += math.Log(l[i*d+i])
	}
	return 2 * s
}

// sum writes into j, h the unary term of x plus the messages into it from
// its pairwise factors other than skip.
func (st *mvState) sum(x, skip int32, j, h []float64) {
	uj, uh := st.terms(st.unary, x)
	copy(j, uj)
	copy(h, uh)
	for a := st.adjStart[x]; a < st.adjStart[x+1]; a++ {
		fi := st.adjF[a]
		if fi == skip {
			continue
		}
		f := &st.factors[fi]
		s := st.adjS[a]
		oj, oh := f.msg(int(s))
		addTo(j, oj)
		addTo(h, oh)
	}
}

// factorToVar sets the pairwise factor's message to its slot target from
// the message in from the other slot (inJ, inH): with Jo = L Lᵀ (the other slot's
// block plus its incoming precision), K = L⁻¹ J_ot and u = L⁻¹ ho, the
// message is (Jt - KᵀK, ht - Kᵀu). With keepDet, ln|Jo| is kept in f.ldo
// (the pair's joint precision has ln|J| = ln|Jo| + ln|J_target| once the
// messages are final: logZ).
func (st *mvState) factorToVar(f *mvFactor, target int, inJ, inH []float64, keepDet bool) error {
	other := 1 - target
	p, q := len(f.pot.hx), len(f.pot.hy)
	var jt, ht, jo, ho []float64
	dt, do := p, q
	if target == 0 {
		jt, ht, jo, ho = f.pot.jxx, f.pot.hx, f.pot.jyy, f.pot.hy
	} else {
		jt, ht, jo, ho = f.pot.jyy, f.pot.hy, f.pot.jxx, f.pot.hx
		dt, do = q, p
	}
	j, u := st.fj[:do*do], st.fh[:do]
	inJ, inH = inJ[:do*do], inH[:do]
	for i := range j {
		j[i] = jo[i] + inJ[i]
	}
	for i := range u {
		u[i] = ho[i] + inH[i]
	}
	l := st.l[:do*do]
	if !expfam.Cholesky(l, j, do) {
		return &NaNError{Variable: st.varName(f.v[other]), Detail: "sum-product: no proper Gaussian message (the precision matrix is not positive definite): give it a prior or evidence"}
	}
	if keepDet {
		f.ldo = triLogDet(l, do)
	}
	fwdSub(l, do, u)
	// K column by column (column b: the coupling of the other slot's
	// components with the target's component b), stored column-major.
	k := st.g[:do*dt]
	for b := range dt {
		col := k[b*do : b*do+do]
		if target == 0 {
			copy(col, f.pot.jxy[b*q:b*q+q]) // Jyx = Jxyᵀ
		} else {
			for a := range col {
				col[a] = f.pot.jxy[a*q+b]
			}
		}
		fwdSub(l, do, col)
	}
	outJ, outH := f.msg(target)
	for a := range dt {
		ka := k[a*do : a*do+do]
		for b := a; b < dt; b++ {
			kb := k[b*do : b*do+do]
			s := jt[a*dt+b]
			for c, x := range ka {
				s -= x * kb[c]
			}
			outJ[a*dt+b] = s
			outJ[b*dt+a] = s
		}
		s := ht[a]
		for c, x := range ka {
			s -= x * u[c]
		}
		outH[a] = s
	}
	return nil
}

// setBelief writes N(J⁻¹h, J⁻¹) into variable x.
func (st *mvState) setBelief(x int32, j, h []float64) error {
	d := len(h)
	l := st.l[:d*d]
	if !expfam.Cholesky(l, j, d) {
		return &NaNError{Variable: st.varName(x), Detail: "sum-product: no proper Gaussian posterior (the precision matrix is not positive definite): give it a prior or evidence"}
	}
	st.ldet[x] = triLogDet(l, d)
	mean, cov := st.param[x][:d], st.param[x][d:]
	// cov = L⁻ᵀ L⁻¹ from M = L⁻¹ (lower triangular), symmetric as built.
	m := st.v[:d*d]
	triInverse(m, l, d)
	for r := range d {
		for c := r; c < d; c++ {
			s := 0.0
			for k := c; k < d; k++ {
				s += m[k*d+r] * m[k*d+c]
			}
			cov[r*d+c] = s
			cov[c*d+r] = s
		}
	}
	for r := range d {
		s := 0.0
		for c := range d {
			s += cov[r*d+c] * h[c]
		}
		if !(math.Abs(s) <= expfam.MaxNormalMagnitude) {
			return &NaNError{Variable: st.varName(x), Detail: fmt.Sprintf("Gaussian belief propagation gives mean[%d] = %g", r, s)}
		}
		mean[r] = s
	}
	if st.vstats[x] != nil {
		expfam.MvNormal{Mean: mean, Cov: cov}.ExpectedStats(st.vstats[x])
	}
	return nil
}
