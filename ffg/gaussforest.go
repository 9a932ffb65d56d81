package ffg

import (
	"fmt"
	"slices"

	"github.com/arbor-ai/arbor/internal/prefault"
	"github.com/arbor-ai/arbor/messages"
)

// GaussForest is exact sum-product over a forest of hidden normal
// variables named by index, without a Graph: the Gaussian belief
// propagation of Graph.SumProduct (the Kalman filter and the RTS smoother
// on a chain), its potentials derived from the factors' Polynomial forms
// in the same way and its free energy summed in the same order, so that
// a forest and a Graph of the same variables and factors give the same
// posteriors and the same F bit for bit. A Graph keeps an object per
// variable and per factor (a few hundred bytes each, with the pointers the
// garbage collector follows); a forest keeps the potentials and messages
// in flat arrays, about 200 bytes per variable and pairwise factor, which
// is what a model of 10^5 steps needs (package model runs such data sets
// on it).
//
// Make one with NewGaussForest, add the factors with AddFactor in the
// order a Graph would hold them, then Run. A forest is not safe for
// concurrent use.
type GaussForest struct {
	st       gState
	post     [][2]float64 // per variable: [mean, variance]
	stat     [][2]float64 // per variable: [m, m² + v]
	used     []bool       // per variable: it has a factor
	pending  []float64    // the constants of the unary factors (c and the form's), added after the pairs'
	energies []float64    // E[-ln f] of the factors with no hidden neighbour, in order
	ready    bool
	checked  formCheck // the last form found Gaussian in its hidden neighbours
}

// formCheck is a form and the interfaces of its hidden neighbours.
type formCheck struct {
	form *messages.Polynomial
	k    [2]int
	n    int
}

// NewGaussForest returns a forest of n hidden normal variables, 0 to n-1;
// name(i) names variable i in errors (nil: "#i"). pairs, when known, is
// the number of pairwise factors to come (the arrays are sized once).
func NewGaussForest(n, pairs int, name func(i int) string) *GaussForest {
	if name == nil {
		name = func(i int) string { return fmt.Sprintf("#%d", i) }
	}
	gf := &GaussForest{post: prefault.Make[[2]float64](n, n), stat: prefault.Make[[2]float64](n, n), used: make([]bool, n)}
	gf.st.names = name
	gf.st.factors = prefault.Make[gFactor](0, max(pairs, 0))
	gf.pending = prefault.Make[float64](0, 2*n) // a unary factor per variable, as a chain observed at every step has
	gf.st.staticJ, gf.st.staticH = prefault.Make[float64](n, n), prefault.Make[float64](n, n)
	return gf
}

// AddFactor adds the factor f, whose Polynomial form must be Gaussian in
// its hidden neighbours: vars[k] is the forest variable at interface k of
// f, or -1 for a neighbour observed at the sufficient statistics stats[k]
// ([x, x²] for a normal, the statistics of its family otherwise). At most
// two interfaces may be hidden. A factor with none adds its average energy
// to F; with one, it is folded into its variable's local term; with two,
// it is an edge of the forest. stats is read during the call only.
func (gf *GaussForest) AddFactor(f Factor, vars []int, stats [][]float64) error {
	if gf.ready {
		return fmt.Errorf("ffg: GaussForest.AddFactor after Run")
	}
	p, ok := f.(Polynomialer)
	if !ok {
		return fmt.Errorf("ffg: GaussForest: factor %T has no Polynomial form", f)
	}
	if len(vars) != len(stats) {
		return fmt.Errorf("ffg: GaussForest: %d variables and %d statistics", len(vars), len(stats))
	}
	form := p.Polynomial()
	if form.NumInterfaces() != len(vars) {
		return fmt.Errorf("ffg: GaussForest: %d variables for a form of %d interfaces", len(vars), form.NumInterfaces())
	}
	g := gFactor{v: [2]int32{-1, -1}}
	gc := gCold{form: form}
	n := 0
	for k, x := range vars {
		switch {
		case x < 0:
			continue
		case x >= len(gf.post):
			return fmt.Errorf("ffg: GaussForest: variable %d of %d", x, len(gf.post))
		case n == 2:
			return fmt.Errorf("ffg: GaussForest: a factor with more than two hidden neighbours")
		}
		g.v[n], gc.k[n] = int32(x), k
		n++
	}
	if n == 0 {
		gf.energies = append(gf.energies, f.AverageEnergy(stats))
		return nil
	}
	// The factors of a loop share their form: it is checked once.
	if key := (formCheck{form, gc.k, n}); key != gf.checked {
		if err := gc.checkForm(n); err != nil {
			return err
		}
		gf.checked = key
	}
	k1 := -1
	if n == 2 {
		k1 = gc.k[1]
	}
	g.potentialOf(form, stats, gc.k[0], k1)
	for _, x := range g.v[:n] {
		gf.used[x] = true
	}
	if n == 1 {
		gf.st.staticJ[g.v[0]] += g.jxx
		gf.st.staticH[g.v[0]] += g.hx
		gf.pending = append(gf.pending, g.c, form.Const)
		return nil
	}
	gf.st.factors = append(gf.st.factors, g)
	gf.st.constStatic.add(g.c)
	gf.st.constStatic.add(form.Const)
	return nil
}

// Run runs the pass and returns the free energy: -ln Z of the forest plus
// the average energies of the factors with no hidden neighbour, F of
// Graph.SumProduct's StructuredFreeEnergy on the same graph. A variable
// without a factor, a loop, or a variable with no proper posterior is an
// error. Run may be called again (the same numbers).
func (gf *GaussForest) Run() (float64, error) {
	st := &gf.st
	if !gf.ready {
		if i := slices.Index(gf.used, false); i >= 0 {
			return 0, fmt.Errorf("ffg: GaussForest: variable %s has no factor", st.names(i))
		}
		if err := gf.index(); err != nil {
			return 0, err
		}
		gf.ready = true
	}
	lnZ := 0.0
	if len(gf.post) > 0 {
		var err error
		if lnZ, err = st.pass(st.constStatic); err != nil {
			return 0, err
		}
	}
	return forestF(lnZ, gf.energies), nil
}

// forestF returns a forest's F, as Graph.SumProduct and
// StructuredFreeEnergy sum it: -ln Z, ln Z taken with that of the other
// two kinds of tree (0 here, which turns a -0 into 0), then the average
// energies of the factors outside the tree in order.
func forestF(lnZ float64, energies []float64) float64 {
	f := -(lnZ + 0 + 0)
	for _, e := range energies {
		f += e
	}
	return f
}

// index builds the adjacency of the pairs and the traversal, and points
// the beliefs at the forest's arrays, as buildGauss does for a Graph.
func (gf *GaussForest) index() error {
	st := &gf.st
	nv := len(gf.post)
	st.npair = len(st.factors)
	st.adjStart, st.adjF, st.adjS = pairAdjacency(nv, st.npair, func(fi int) [2]int32 { return st.factors[fi].v })
	if err := st.traverse(); err != nil {
		return err
	}
	st.param, st.stats = make([]*[2]float64, nv), make([]*[2]float64, nv)
	for i := range nv {
		st.param[i], st.stats[i] = &gf.post[i], &gf.stat[i]
	}
	for _, c := range gf.pending {
		st.constStatic.add(c)
	}
	gf.pending = nil
	st.uJ, st.uH = st.staticJ, st.staticH
	return nil
}

// Posterior returns the mean and the variance of variable i after Run.
func (gf *GaussForest) Posterior(i int) (mean, variance float64) {
	return gf.post[i][0], gf.post[i][1]
}
