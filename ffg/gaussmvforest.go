package ffg

import (
	"fmt"
	"math"
	"slices"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/internal/prefault"
)

// MvGaussForest is GaussForest for hidden mvnormal variables: the
// multivariate Gaussian belief propagation of Graph.SumProduct on a forest
// given by index, with no Graph, its potentials derived from the factors'
// Polynomial forms and ln Z read at the posterior means as a Graph reads
// them, so that a forest and a Graph of the same variables and factors
// give the same posteriors and F bit for bit. The pairwise factors of one
// node (the transitions of a loop) share one potential.
//
// Make one with NewMvGaussForest, add the factors with AddFactor in the
// order a Graph would hold them, then Run. A forest is not safe for
// concurrent use.
type MvGaussForest struct {
	st       mvState
	slots    []mvSlot
	used     []bool
	energies []float64 // E[-ln f] of the factors with no hidden neighbour, in order
	ready    bool
	// The observed neighbours' statistics, kept for ln Z: chunks that are
	// never moved, and the slices of each slot's statistics.
	floats  []float64
	headers [][]float64
}

// mvSlot is a factor with a tree variable, found by buildMv or added to
// an MvGaussForest: its tree variables and their interfaces.
type mvSlot struct {
	fn     *FactorNode // nil in a forest
	node   Factor
	stats  [][]float64
	v, k   [2]int32
	n      int
	static bool
}

// NewMvGaussForest returns a forest of hidden mvnormal variables of the
// dimensions dims; name(i) names variable i in errors (nil: "#i").
// factors, when known, is the number of factors with a hidden neighbour
// to come.
func NewMvGaussForest(dims []int, factors int, name func(i int) string) (*MvGaussForest, error) {
	if name == nil {
		name = func(i int) string { return fmt.Sprintf("#%d", i) }
	}
	gf := &MvGaussForest{used: make([]bool, len(dims)), slots: prefault.Make[mvSlot](0, max(factors, 0))}
	st := &gf.st
	st.names = name
	st.dim = append([]int(nil), dims...)
	size := 0
	for i, d := range dims {
		if d < 1 || d > MaxElements {
			return nil, fmt.Errorf("ffg: MvGaussForest: variable %s of dimension %d", name(i), d)
		}
		size += d + d*d
	}
	buf := prefault.Make[float64](size, size)
	st.param, st.vstats = prefault.Make[[]float64](len(dims), len(dims)), make([][]float64, len(dims))
	for i, d := range dims {
		st.param[i], buf = buf[:d+d*d:d+d*d], buf[d+d*d:]
	}
	return gf, nil
}

// AddFactor adds the factor f, whose Polynomial form must be Gaussian in
// its hidden neighbours: vars[k] is the forest variable at interface k of
// f, or -1 for a neighbour observed at the sufficient statistics stats[k]
// (an mvnormal's [x, x xᵀ], as ffg.Variable.ObserveVector sets them). At
// most two interfaces may be hidden. A factor with none adds its average
// energy to F. The forest keeps a copy of the statistics.
func (gf *MvGaussForest) AddFactor(f Factor, vars []int, stats [][]float64) error {
	if gf.ready {
		return fmt.Errorf("ffg: MvGaussForest.AddFactor after Run")
	}
	if _, ok := f.(Polynomialer); !ok {
		return fmt.Errorf("ffg: MvGaussForest: factor %T has no Polynomial form", f)
	}
	if len(vars) != len(stats) {
		return fmt.Errorf("ffg: MvGaussForest: %d variables and %d statistics", len(vars), len(stats))
	}
	if n := f.(Polynomialer).Polynomial().NumInterfaces(); n != len(vars) {
		return fmt.Errorf("ffg: MvGaussForest: %d variables for a form of %d interfaces", len(vars), n)
	}
	sl := mvSlot{node: f, v: [2]int32{-1, -1}, static: true}
	for k, x := range vars {
		switch {
		case x < 0:
			continue
		case x >= len(gf.used):
			return fmt.Errorf("ffg: MvGaussForest: variable %d of %d", x, len(gf.used))
		case sl.n == 2:
			return fmt.Errorf("ffg: MvGaussForest: a factor with more than two hidden neighbours")
		}
		sl.v[sl.n], sl.k[sl.n] = int32(x), int32(k)
		sl.n++
	}
	if sl.n == 0 {
		gf.energies = append(gf.energies, f.AverageEnergy(stats))
		return nil
	}
	sl.stats = gf.header(len(stats))
	for k, s := range stats {
		if vars[k] < 0 {
			sl.stats[k] = gf.copyOf(s)
		}
	}
	for _, x := range sl.v[:sl.n] {
		gf.used[x] = true
	}
	gf.slots = append(gf.slots, sl)
	return nil
}

// header returns n slice headers from the forest's arena.
func (gf *MvGaussForest) header(n int) [][]float64 {
	if len(gf.headers) < n {
		gf.headers = make([][]float64, max(n, 1024))
	}
	h := gf.headers[:n:n]
	gf.headers = gf.headers[n:]
	return h
}

// copyOf copies s into the forest's arena of floats.
func (gf *MvGaussForest) copyOf(s []float64) []float64 {
	if len(gf.floats) < len(s) {
		gf.floats = make([]float64, max(len(s), 8192))
	}
	c := gf.floats[:len(s):len(s)]
	gf.floats = gf.floats[len(s):]
	copy(c, s)
	return c
}

// Run runs the pass and returns the free energy: -ln Z of the forest plus
// the average energies of the factors with no hidden neighbour, as
// Graph.SumProduct and StructuredFreeEnergy give it on the same graph. A
// variable without a factor, a loop, or a variable with no proper
// posterior is an error. Run may be called again (the same numbers).
func (gf *MvGaussForest) Run() (float64, error) {
	st := &gf.st
	if !gf.ready {
		if i := slices.Index(gf.used, false); i >= 0 {
			return 0, fmt.Errorf("ffg: MvGaussForest: variable %s has no factor", st.names(i))
		}
		if err := st.assemble(gf.slots); err != nil {
			return 0, err
		}
		gf.slots = nil
		gf.ready = true
	}
	lnZ := 0.0
	if len(st.dim) > 0 {
		var err error
		if lnZ, err = st.pass(); err != nil {
			return 0, err
		}
	}
	f := forestF(lnZ, gf.energies)
	if math.IsNaN(f) {
		return f, fmt.Errorf("ffg: MvGaussForest: F is NaN")
	}
	return f, nil
}

// Posterior returns the posterior of variable i after Run: its mean and
// its covariance (row-major), views of the forest's arrays.
func (gf *MvGaussForest) Posterior(i int) expfam.MvNormal {
	d := gf.st.dim[i]
	p := gf.st.param[i]
	return expfam.MvNormal{Mean: p[:d:d], Cov: p[d:]}
}

// varName names tree variable x in errors.
func (st *mvState) varName(x int32) string {
	if st.vars != nil {
		return st.vars[x].describe()
	}
	return st.names(int(x))
}

// describe names the factor in errors.
func (f *mvFactor) describe() string {
	if f.fn != nil {
		return f.fn.describe()
	}
	return "of a forest"
}
