package ffg

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
)

// Polynomialer is the optional interface of a factor whose log-density is
// a messages.Polynomial in its neighbours' sufficient statistics (the
// continuous nodes of package nodes): sum-product derives its Gaussian
// potential over its hidden normal neighbours from the form.
type Polynomialer interface {
	Polynomial() *messages.Polynomial
}

// gFactor is a factor of the Gaussian tree: one or two hidden normal
// neighbours (slots 0 and 1) and its potential
//
//	ln ψ(x, y) = -½ (jxx x² + 2 jxy x y + jyy y²) + hx x + hy y + c,
//
// the factor's log-density averaged over its other neighbours. Unary
// factors (one slot) are folded into their variable's local term; pairwise
// ones are the edges of the tree.
type gFactor struct {
	jxx, jxy, jyy, hx, hy float64
	// Messages in information form (precision, shift): out to each slot
	// and in from each slot.
	outJ, outH, inJ, inH [2]float64
	// exy is E[x y] under the factor's joint belief.
	exy float64
	v   [2]int32 // gState.vars indices (v[1] = -1 for a unary factor)
	c   float64
	// joint: a hidden neighbour outside the tree reads exy (a pairwise
	// factor whose potential is not static), so the pass computes it.
	joint bool
}

// gCold is what a pass reads only when it refreshes a potential.
type gCold struct {
	f      *FactorNode
	form   *messages.Polynomial
	k      [2]int // interface index of each slot in f
	static bool
}

// gState is the Gaussian tree of the last SumProduct.
type gState struct {
	version uint64
	stamp   uint64 // marks the variables and factors of this tree
	vars    []*Variable
	names   func(int) string // names a variable in errors when vars is nil (GaussForest)
	// The posterior of each variable, written by every pass: pointers to
	// its parameters [mean, variance] and statistics [m, m² + v], held
	// here so that the pass does not load the Variable.
	param, stats []*[2]float64
	factors      []gFactor // pairwise factors first (npair), then unary ones
	cold         []gCold
	npair        int
	// Pairwise factors of variable i: adjF[adjStart[i]:adjStart[i+1]],
	// with the variable's slot in each.
	adjF     []int32
	adjS     []int8
	adjStart []int32
	// The unary terms of each variable: the static ones (staticJ, ...)
	// and all of them this pass (uJ, uH); constStatic sums c of the
	// static factors.
	staticJ, staticH []float64
	uJ, uH           []float64
	constStatic      ksum
	dynamic          []int32 // factors whose potential changes between passes
	// BFS order of the variables per tree; par is a variable's parent
	// pairwise factor (-1 for a root) and parSlot its slot there.
	order     []int32
	compStart []int32
	par       []int32
	parSlot   []int8
}

var stampCounter atomic.Uint64

// gaussEligible reports whether v can be a variable of the Gaussian tree.
func gaussEligible(v *Variable) bool {
	return v.family == expfam.NormalFamily && !v.observed && !v.removed && len(v.edges) > 0
}

// buildGauss finds the hidden normal variables that sum-product treats
// exactly: those whose every factor has a Polynomial form, no hidden
// categorical neighbour, and at most two such variables; the factors
// binding them form the tree.
func (g *Graph) buildGauss() (*gState, error) {
	st := &gState{stamp: stampCounter.Add(1)}
	// A variable is in the tree while its gmark is the tree's stamp, and
	// its index in st.vars is its gidx once its gstamp is: marks on the
	// variables instead of maps keep the build linear and light for
	// chains of 10^5 steps.
	in := 0
	for _, v := range g.vars {
		if !gaussEligible(v) {
			continue
		}
		ok := true
		for _, e := range v.edges {
			if _, isPoly := e.f.factor.(Polynomialer); !isPoly {
				ok = false
				break
			}
			for _, w := range e.f.vars {
				if w.family == expfam.CategoricalFamily && !w.observed {
					ok = false
				}
			}
		}
		if ok {
			v.gmark = st.stamp
			in++
		}
	}
	if in == 0 {
		return st, nil
	}
	// A factor that would join more than two of them takes its normal
	// neighbours out (they keep VMP), until none does.
	for changed := true; changed; {
		changed = false
		for _, fn := range g.factors {
			n := 0
			for _, w := range fn.vars {
				if w.gmark == st.stamp {
					n++
				}
			}
			if n > 2 {
				for _, w := range fn.vars {
					w.gmark = 0
				}
				changed = true
			}
		}
	}
	in = 0
	for _, v := range g.vars {
		if v.gmark == st.stamp {
			in++
		}
	}
	st.vars = make([]*Variable, 0, in)
	for _, v := range g.vars {
		if v.gmark == st.stamp {
			v.gidx = int32(len(st.vars))
			st.vars = append(st.vars, v)
			v.gstamp = st.stamp
		}
	}
	// The tree keeps its pairwise factors first, then the unary ones whose
	// potential changes between passes, each in the graph's order. A
	// static unary factor (the prior, an observation) is folded into its
	// variable's local term once and not kept: a chain of 10^5 steps keeps
	// its 10^5 transitions, not its 10^5 observations. A first pass counts
	// them, so that the arrays are allocated once at their size.
	var statics []*FactorNode // the static unary factors, in order
	// classify finds fn's slots in the tree; check says to check its form
	// (the first pass does, once per factor).
	classify := func(fn *FactorNode, check bool) (gFactor, gCold, int, error) {
		gf := gFactor{v: [2]int32{-1, -1}}
		gc := gCold{f: fn}
		n := 0
		for k, w := range fn.vars {
			if w.gstamp == st.stamp {
				gf.v[n], gc.k[n] = w.gidx, k
				n++
			}
		}
		if n == 0 {
			return gf, gc, 0, nil
		}
		gc.form = fn.factor.(Polynomialer).Polynomial()
		if check {
			if err := gc.checkForm(n); err != nil {
				return gf, gc, 0, err
			}
		}
		gc.static = true
		for k, w := range fn.vars {
			if k != gc.k[0] && (n < 2 || k != gc.k[1]) && !w.observed {
				gc.static = false
			}
		}
		return gf, gc, n, nil
	}
	// What the first pass found of each factor: 0 not in the tree, 1 a
	// unary factor kept, 2 a pairwise one, 3 a static unary factor.
	kind := make([]uint8, len(g.factors))
	nunary, nstatic := 0, 0
	for i, fn := range g.factors {
		_, gc, n, err := classify(fn, true)
		switch {
		case err != nil:
			return nil, err
		case n == 2:
			st.npair++
			kind[i] = 2
		case n == 1 && gc.static:
			nstatic++
			kind[i] = 3
		case n == 1:
			nunary++
			kind[i] = 1
		}
	}
	statics = make([]*FactorNode, 0, nstatic)
	st.factors = make([]gFactor, st.npair+nunary)
	st.cold = make([]gCold, len(st.factors))
	ip, iu := 0, st.npair
	for i, fn := range g.factors {
		switch kind[i] {
		case 0:
			continue
		case 3:
			statics = append(statics, fn)
			continue
		}
		gf, gc, n, _ := classify(fn, false)
		at := &iu
		if n == 2 {
			at = &ip
		}
		st.factors[*at], st.cold[*at] = gf, gc
		*at++
	}
	for fi := range st.cold {
		st.cold[fi].f.gstamp, st.cold[fi].f.gidx = st.stamp, int32(fi)
	}
	nv := len(st.vars)
	st.adjStart, st.adjF, st.adjS = pairAdjacency(nv, st.npair, func(fi int) [2]int32 { return st.factors[fi].v })
	if err := st.traverse(); err != nil {
		return nil, err
	}
	st.param, st.stats = make([]*[2]float64, nv), make([]*[2]float64, nv)
	for i, v := range st.vars {
		st.param[i], st.stats[i] = (*[2]float64)(v.param), (*[2]float64)(v.stats)
	}
	st.staticJ, st.staticH = make([]float64, nv), make([]float64, nv)
	for fi := range st.factors {
		f, c := &st.factors[fi], &st.cold[fi]
		f.potential(c)
		if !c.static {
			st.dynamic = append(st.dynamic, int32(fi))
			f.joint = f.v[1] >= 0
			continue
		}
		st.constStatic.add(f.c)
		st.constStatic.add(c.form.Const)
	}
	// The static unary factors, after the static pairs' constants (the
	// order of the compensated sum), marked as factors of the tree with
	// no index.
	for _, fn := range statics {
		f, c, _, _ := classify(fn, false)
		f.potential(&c)
		st.constStatic.add(f.c)
		st.constStatic.add(c.form.Const)
		st.staticJ[f.v[0]] += f.jxx
		st.staticH[f.v[0]] += f.hx
		fn.gstamp, fn.gidx = st.stamp, -1
	}
	return st, nil
}

// checkForm refuses a form with a term of degree above 2 in the tree
// variables (not Gaussian in them).
func (gc *gCold) checkForm(n int) error {
	for t := range gc.form.NumTerms() {
		deg := 0
		for s := range n {
			if _, j := gc.form.At(t, gc.k[s]); j >= 0 {
				deg += j + 1
			}
		}
		if deg > 2 {
			name := "of a forest"
			if gc.f != nil {
				name = gc.f.describe()
			}
			return fmt.Errorf("ffg: sum-product: factor %s is not Gaussian in its normal neighbours (a term of degree %d)", name, deg)
		}
	}
	return nil
}

// traverse fixes the BFS order of every tree and finds loops.
func (st *gState) traverse() error {
	nv := len(st.adjStart) - 1
	st.par = make([]int32, nv)
	st.parSlot = make([]int8, nv)
	seenV := make([]bool, nv)
	seenF := make([]bool, st.npair)
	for root := range nv {
		if seenV[root] {
			continue
		}
		st.compStart = append(st.compStart, int32(len(st.order)))
		st.order = append(st.order, int32(root))
		seenV[root] = true
		st.par[root] = -1
		for i := len(st.order) - 1; i < len(st.order); i++ {
			x := st.order[i]
			for a := st.adjStart[x]; a < st.adjStart[x+1]; a++ {
				fi := st.adjF[a]
				if fi == st.par[x] {
					continue
				}
				f := &st.factors[fi]
				other := f.v[1-st.adjS[a]]
				if seenF[fi] || seenV[other] {
					return &LoopError{Loop: []string{st.varName(x), "factor " + st.factorName(fi), st.varName(other), "..."}}
				}
				seenF[fi] = true
				seenV[other] = true
				st.par[other] = fi
				st.parSlot[other] = 1 - st.adjS[a]
				st.order = append(st.order, other)
			}
		}
	}
	st.compStart = append(st.compStart, int32(len(st.order)))
	return nil
}

// potential derives ln ψ from the form with every other neighbour at its
// expected statistics.
func (gf *gFactor) potential(gc *gCold) {
	k1 := -1
	if gf.v[1] >= 0 {
		k1 = gc.k[1]
	}
	gf.potentialOf(gc.form, gc.f.stats, gc.k[0], k1)
}

// potentialOf derives ln ψ from form with the neighbours at interfaces
// k0 and k1 (-1: a unary factor) in the tree and the others at stats.
func (gf *gFactor) potentialOf(form *messages.Polynomial, stats [][]float64, k0, k1 int) {
	// c leaves out the form's constant, which the sums add on their own:
	// the same constant added to 10^5 numbers of different sizes would
	// lose the same low bits each time (a bias of 8e-8 in F over 10^5
	// observations), where the products below round both ways.
	gf.jxx, gf.jxy, gf.jyy, gf.hx, gf.hy, gf.c = 0, 0, 0, 0, 0, 0
	eachTerm(form, stats, k0, k1, func(w float64, j0, j1 int) {
		switch {
		case j0 < 0 && j1 < 0:
			gf.c += w
		case j0 == 0 && j1 == 0:
			gf.jxy -= w
		case j0 == 0:
			gf.hx += w
		case j0 == 1:
			gf.jxx -= 2 * w
		case j1 == 0:
			gf.hy += w
		case j1 == 1:
			gf.jyy -= 2 * w
		}
	})
}

// eachTerm calls add for every term of form with its coefficient times
// the expected statistics of the neighbours at neither slot k0 nor k1
// (k1 -1 for a factor of one slot), and the statistic the term takes of
// each slot (-1: none): the potential of a factor of the univariate and of
// the multivariate Gaussian tree is read from the form so.
func eachTerm(form *messages.Polynomial, stats [][]float64, k0, k1 int, add func(w float64, j0, j1 int)) {
	n := form.NumInterfaces()
	for t := range form.NumTerms() {
		w, _ := form.At(t, 0)
		j0, j1 := -1, -1
		for i := range n {
			_, s := form.At(t, i)
			switch {
			case s < 0:
			case i == k0:
				j0 = s
			case i == k1:
				j1 = s
			default:
				w *= stats[i][s]
			}
		}
		add(w, j0, j1)
	}
}

// gaussPrepare builds (or reuses) the Gaussian tree, refreshes the
// potentials that can change and returns the constant of every potential.
func (g *Graph) gaussPrepare() (*gState, ksum, error) {
	st := g.gbp
	if st == nil || st.version != g.version {
		g.gbp = nil
		var err error
		if st, err = g.buildGauss(); err != nil {
			return nil, ksum{}, err
		}
		st.version = g.version
		g.gbp = st
	}
	if len(st.dynamic) == 0 {
		st.uJ, st.uH = st.staticJ, st.staticH
		return st, st.constStatic, nil
	}
	c := st.constStatic
	// The unary terms of this pass in their own arrays (kept from the last
	// pass), not in the static ones.
	n := len(st.vars)
	if cap(st.uJ) < n || (n > 0 && &st.uJ[:1][0] == &st.staticJ[0]) {
		st.uJ, st.uH = make([]float64, n), make([]float64, n)
	}
	st.uJ, st.uH = st.uJ[:n], st.uH[:n]
	copy(st.uJ, st.staticJ)
	copy(st.uH, st.staticH)
	for _, fi := range st.dynamic {
		f := &st.factors[fi]
		f.potential(&st.cold[fi])
		c.add(f.c)
		c.add(st.cold[fi].form.Const)
		if f.v[1] < 0 {
			st.uJ[f.v[0]] += f.jxx
			st.uH[f.v[0]] += f.hx
		}
	}
	return st, c, nil
}

const ln2pi = 1.8378770664093453 // ln 2π

// gaussPass runs Gaussian belief propagation (the Kalman filter and the
// RTS smoother on a chain) on every tree, writes the exact marginals into
// the variables and returns ln Z summed over the trees.
//
// ln Z is not gathered from the messages (½ ln(2π/j) + h²/(2j) per
// integrated variable): on a random walk that wanders to |x| in the
// hundreds those terms are of order 10^4 to 10^5 each and cancel against
// the factors' constants to a total of order 10^5 over 10^5 steps, so
// their rounding, carried through the recursion, left F 8e-8 from the
// Kalman filter's -ln p(y). It is read from the beliefs instead, as the
// Bethe free energy, which on a tree equals -ln Z exactly (bethe).
func (g *Graph) gaussPass() (float64, error) {
	st, consts, err := g.gaussPrepare()
	if err != nil {
		return 0, err
	}
	if len(st.vars) == 0 {
		return 0, nil
	}
	return st.pass(consts)
}

// pass runs the collect and distribute passes on every tree, writes the
// beliefs and returns ln Z (consts: every factor's constant).
func (st *gState) pass(consts ksum) (float64, error) {
	for c := 0; c+1 < len(st.compStart); c++ {
		nodes := st.order[st.compStart[c]:st.compStart[c+1]]
		// Collect: every variable sends to its parent factor, which sends
		// on to its parent variable; leaves first.
		for i := len(nodes) - 1; i >= 1; i-- {
			x := nodes[i]
			j, h := st.sum(x, st.par[x])
			f := &st.factors[st.par[x]]
			s := st.parSlot[x]
			f.inJ[s], f.inH[s] = j, h
			if _, err := st.factorToVar(f, int(1-s)); err != nil {
				return 0, err
			}
		}
		root := nodes[0]
		if j, _ := st.sum(root, -1); !(j > 0) || math.IsInf(j, 0) {
			return 0, &NaNError{Variable: st.varName(root), Detail: fmt.Sprintf("sum-product: no proper Gaussian posterior (precision %g): give it a prior or evidence", j)}
		}
		// Distribute: every variable sends to its child factors, which
		// send on to their child variables; root first.
		for _, x := range nodes {
			tj, th := st.sum(x, -1)
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
				f.inJ[s], f.inH[s] = tj-f.outJ[s], th-f.outH[s]
				if _, err := st.factorToVar(f, int(1-s)); err != nil {
					return 0, err
				}
				if f.joint {
					f.setJoint()
				}
			}
		}
	}
	return st.bethe(consts), nil
}

// bethe returns ln Z of the trees after a pass, as minus their Bethe free
// energy over the beliefs the pass wrote:
//
//	-ln Z = Σ_i E_bi[-ln φ_i] + Σ_f E_bf[-ln ψ_f] - Σ_f H[b_f] + Σ_i (d_i - 1) H[b_i],
//
// φ_i the unary terms of variable i (its static and dynamic unary factors,
// folded), ψ_f the pairwise factors, d_i the number of pairwise factors of
// i, b the marginal and pairwise beliefs; consts is the sum of every
// factor's constant c. The energies are quadratics in the beliefs' moments
// whose terms (of order 10^5 on a long random walk) cancel to order 1:
// every product is added with its rounding error (ksum.addProd), so that
// the cancellation is exact and F keeps the precision of the inputs; and
// F is stationary in the beliefs, so their last rounding moves it to
// second order only. The logarithms of the variances and of the pairwise
// determinants are multiplied up and taken once per 10^100.
func (st *gState) bethe(consts ksum) float64 {
	const lnTwoPiE = ln2pi + 1
	// The energies go to three sums, so that the additions of a step do
	// not wait on one another; they are merged at the end.
	var f, g, h ksum
	f.add(-consts.s)
	f.add(-consts.c)
	// The entropies: Σ_i (d_i - 1) ½ ln(2πe v_i) - Σ_f (ln 2πe - ½ ln det J_f),
	// the constants counted (degree) and the logarithms taken of products
	// (prod, folded into ent once it leaves [1e-100, 1e100]).
	degree := 0 // Σ_i (d_i - 1)
	prod, ent := 1.0, 0.0
	for i := range st.param {
		m, v := st.param[i][0], st.param[i][1]
		// ½ J (m² + v) - h m, every product exact.
		hj := 0.5 * st.uJ[i]
		f.addProd3(hj, m, m)
		g.addProd(hj, v)
		h.addProd(-st.uH[i], m)
		d := int(st.adjStart[i+1]-st.adjStart[i]) - 1
		degree += d
		switch {
		case d < 0:
			prod /= v
		case d > 0:
			for range d {
				prod *= v
			}
		}
		if prod > 1e100 || prod < 1e-100 {
			ent += math.Log(prod)
			prod = 1
		}
	}
	for fi := range st.npair {
		p := &st.factors[fi]
		// The pairwise belief: precision [[a, b], [b, e]], covariance
		// [[e, -b], [-b, a]] / det.
		a, b, e := p.jxx+p.inJ[0], p.jxy, p.jyy+p.inJ[1]
		det := a*e - b*b
		x, y := st.param[p.v[0]], st.param[p.v[1]]
		cxy := -b / det
		// ½ (jxx E x² + 2 jxy E xy + jyy E y²) - hx E x - hy E y, every
		// product exact.
		f.addProd3(0.5*p.jxx, x[0], x[0])
		g.addProd3(p.jxy, x[0], y[0])
		h.addProd3(0.5*p.jyy, y[0], y[0])
		f.addProd(0.5*p.jxx, x[1])
		g.addProd(p.jxy, cxy)
		h.addProd(0.5*p.jyy, y[1])
		f.addProd(-p.hx, x[0])
		g.addProd(-p.hy, y[0])
		if prod *= det; prod > 1e100 || prod < 1e-100 {
			ent += math.Log(prod)
			prod = 1
		}
	}
	ent += math.Log(prod)
	f.merge(g)
	f.merge(h)
	f.add(0.5 * ent)
	f.add(float64(degree) * 0.5 * lnTwoPiE)
	f.add(-float64(st.npair) * lnTwoPiE)
	return -f.value()
}

// setBelief writes N(h/j, 1/j) into variable x.
func (st *gState) setBelief(x int32, j, h float64) error {
	vr := 1 / j
	m := h * vr
	if !(j > 0 && j <= expfam.MaxNormalMagnitude && m >= -expfam.MaxNormalMagnitude && m <= expfam.MaxNormalMagnitude) || !(vr >= 1/expfam.MaxNormalMagnitude) {
		return &NaNError{Variable: st.varName(x), Detail: fmt.Sprintf("Gaussian belief propagation gives precision %g and shift %g", j, h)}
	}
	st.param[x][0], st.param[x][1] = m, vr
	st.stats[x][0], st.stats[x][1] = m, m*m+vr
	return nil
}

// setJoint sets E[x y] from the factor's joint belief: precision
// [[a, b], [b, d]] and shift [p, q], E[x y] = Cov + E x E y.
func (f *gFactor) setJoint() {
	a, b, d := f.jxx+f.inJ[0], f.jxy, f.jyy+f.inJ[1]
	p, q := f.hx+f.inH[0], f.hy+f.inH[1]
	det := a*d - b*b
	f.exy = (-b + (d*p-b*q)*(a*q-b*p)/det) / det
}

// sum returns the unary term of variable x plus the messages into it from
// its pairwise factors other than skip (-1: all of them).
func (st *gState) sum(x, skip int32) (j, h float64) {
	j, h = st.uJ[x], st.uH[x]
	for a := st.adjStart[x]; a < st.adjStart[x+1]; a++ {
		fi := st.adjF[a]
		if fi == skip {
			continue
		}
		f := &st.factors[fi]
		s := st.adjS[a]
		j += f.outJ[s]
		h += f.outH[s]
	}
	return j, h
}

// factorToVar sets the pairwise factor's message to its slot target: the
// potential times the message from its other slot, integrated over that
// variable. It returns the precision of the integrated variable, which
// ln Z needs.
func (st *gState) factorToVar(f *gFactor, target int) (float64, error) {
	other := 1 - target
	var jt, ht, jo, ho float64
	if target == 0 {
		jt, ht, jo, ho = f.jxx, f.hx, f.jyy, f.hy
	} else {
		jt, ht, jo, ho = f.jyy, f.hy, f.jxx, f.hx
	}
	jo += f.inJ[other]
	ho += f.inH[other]
	if !(jo > 0) || math.IsInf(jo, 0) {
		return 0, &NaNError{Variable: st.varName(f.v[other]), Detail: fmt.Sprintf("sum-product: no proper Gaussian message (precision %g): give it a prior or evidence", jo)}
	}
	b := f.jxy
	inv := 1 / jo
	f.outJ[target] = jt - b*b*inv
	f.outH[target] = ht - b*ho*inv
	return jo, nil
}

// inGauss reports whether v is a variable of the current Gaussian tree.
func (g *Graph) inGauss(v *Variable) bool {
	return g.gbp != nil && g.gbp.version == g.version && v.gstamp == g.gbp.stamp && g.gbp.stamp != 0
}

// gaussFactor returns the Gaussian-tree factor of fn, when fn is one that
// the tree keeps (a static unary factor is folded into its variable).
func (g *Graph) gaussFactor(fn *FactorNode) (*gFactor, *gCold) {
	if !g.inGaussFactor(fn) || fn.gidx < 0 {
		return nil, nil
	}
	return &g.gbp.factors[fn.gidx], &g.gbp.cold[fn.gidx]
}

// inGaussFactor reports whether fn is a factor of the current Gaussian
// tree, kept or folded.
func (g *Graph) inGaussFactor(fn *FactorNode) bool {
	st := g.gbp
	return st != nil && st.version == g.version && fn.gstamp == st.stamp && st.stamp != 0
}

// hasGaussPair reports whether v is bound to a pairwise factor of the
// Gaussian tree (whose joint belief its update must use).
func (g *Graph) hasGaussPair(v *Variable) bool {
	for _, e := range v.edges {
		if gf, _ := g.gaussFactor(e.f); gf != nil && gf.v[1] >= 0 {
			return true
		}
	}
	return false
}

// updateGaussJoint is UpdateStructured for a variable bound to pairwise
// factors of the Gaussian tree (the precision of a linear-Gaussian
// transition): their messages take E[x y] from the factor's joint belief
// instead of E[x] E[y], which makes the update the exact minimisation of
// the structured free energy over v.
func (g *Graph) updateGaussJoint(v *Variable) error {
	nat := v.natural()
	clear(nat)
	for _, e := range v.edges {
		gf, gc := g.gaussFactor(e.f)
		if gf == nil || gf.v[1] < 0 {
			if err := g.addMessage(v, e); err != nil {
				return err
			}
			continue
		}
		form, stats := gc.form, e.f.stats
		n := form.NumInterfaces()
		for t := range form.NumTerms() {
			w, j := form.At(t, e.k)
			if j < 0 {
				continue
			}
			_, s0 := form.At(t, gc.k[0])
			_, s1 := form.At(t, gc.k[1])
			joint := s0 == 0 && s1 == 0
			if joint {
				w *= gf.exy
			}
			for i := range n {
				if i == e.k || (joint && (i == gc.k[0] || i == gc.k[1])) {
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

// varName names tree variable x in errors.
func (st *gState) varName(x int32) string {
	if st.vars != nil {
		return st.vars[x].describe()
	}
	return st.names(int(x))
}

// factorName names pairwise factor fi in errors.
func (st *gState) factorName(fi int32) string {
	if st.cold != nil {
		return st.cold[fi].f.describe()
	}
	return fmt.Sprintf("#%d", fi)
}

// pairAdjacency lists the pairwise factors of each of nv variables,
// ends(fi) the two variables of pair fi (fi < npair): the pairs of
// variable i are adjF[start[i]:start[i+1]], in the pairs' order, with the
// variable's slot in each in adjS. The Gaussian trees of a Graph and the
// forests build their adjacency with it.
func pairAdjacency(nv, npair int, ends func(fi int) [2]int32) (start, adjF []int32, adjS []int8) {
	start = make([]int32, nv+1)
	for fi := range npair {
		for _, x := range ends(fi) {
			start[x+1]++
		}
	}
	for i := range nv {
		start[i+1] += start[i]
	}
	adjF = make([]int32, start[nv])
	adjS = make([]int8, len(adjF))
	fill := append([]int32(nil), start[:nv]...)
	for fi := range npair {
		for s, x := range ends(fi) {
			adjF[fill[x]], adjS[fill[x]] = int32(fi), int8(s)
			fill[x]++
		}
	}
	return start, adjF, adjS
}
