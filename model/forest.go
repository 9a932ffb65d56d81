package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/prefault"
	"github.com/arbor-ai/arbor/schedule"
)

// A data set that sets the sizes of a linear-Gaussian model (every
// variable normal, every factor a normal node whose mean is a number, a
// variable or an affine function of one, with a literal precision, under
// sum-product) is run by InferJSON on an ffg.GaussForest: the model's
// expansion at the data set's sizes feeds the forest's flat arrays of
// potentials directly, with no ffg.Variable or ffg.FactorNode per element.
// The factors are built by buildFactor as for a graph (the same checks,
// the same nodes), each element looked up through a stand-in variable of
// its ref, and added to the forest in the graph's order, so that the
// posteriors and F are the graph's bit for bit (ffg.GaussForest). Anything
// the forest does not take, and every fault, falls back to Infer, whose
// result and errors are then the answer.

// errNotForest says that a data set does not run on a forest.
var errNotForest = errors.New("model: not a Gaussian forest")

// gaussForest is what a forest of either family does.
type gaussForest interface {
	AddFactor(f ffg.Factor, vars []int, stats [][]float64) error
	Run() (float64, error)
}

// forestRun is one data set's run on a Gaussian forest.
type forestRun struct {
	res    *schedule.Result
	fam    expfam.Family // normal (forest a *ffg.GaussForest) or mvnormal (*ffg.MvGaussForest)
	forest gaussForest
	hidden []int32     // per element of the model, in the order of its variables: its forest variable, -1 when observed
	outs   []forestOut // the file's variables
}

// forestOut is a variable of the file: a scalar (dims nil) or an array,
// its elements from first on.
type forestOut struct {
	name  string
	dims  []int
	first int
	count int
}

// forestModel returns the family of a model that a data set with sizes
// may run on a forest of, and whether there is one: every variable of the
// file normal and every factor a normal node, or every variable mvnormal
// and every factor an mvnormal node; its means and precisions are checked
// as the factors are built (a sum or a dot product is Infer's), and the
// settings are sum-product's on a tree.
func forestModel(spec *modelJSON, s *schedule.Settings) (expfam.Family, bool) {
	if s.Method != schedule.MethodSumProduct || s.Loopy || s.Order != nil || s.Iterations < 0 ||
		!(s.Tolerance >= 0) || !(s.ParamTolerance >= 0) || len(spec.variables) == 0 {
		return 0, false
	}
	family := spec.variables[0].Family
	fam, err := expfam.ParseFamily(family)
	if err != nil || (fam != expfam.NormalFamily && fam != expfam.MvNormalFamily) {
		return 0, false
	}
	for _, vs := range spec.variables {
		if vs.Family != family {
			return 0, false
		}
	}
	names := map[string]bool{}
	for i := range spec.factors.len() {
		fs := spec.factors.at(i)
		if fs.Node != family || fs.Mean.isLinear() || fs.Mean.dot != nil {
			return 0, false
		}
		if fs.Name != "" {
			if names[fs.Name] {
				return 0, false
			}
			names[fs.Name] = true
		}
	}
	return fam, true
}

// forestValues holds the observed values of a forest's elements and
// computes their statistics as ffg.Variable.ObserveValue and
// ObserveVector do.
type forestValues struct {
	fam    expfam.Family
	values []float64
	at     []int32 // per element: its value's offset in values, -1 when hidden
	// The statistics of a factor's observed neighbours: slot j's at
	// stats[j*stride:], stride the most any element's take.
	stats  []float64
	stride int
}

// observe appends an element: hidden when x is nil, else observed at x
// (one number for a normal, d for an mvnormal of dimension d), refused
// where ObserveValue or ObserveVector would refuse it.
func (fv *forestValues) observe(x []float64, d int) error {
	if x == nil {
		fv.at = append(fv.at, -1)
		return nil
	}
	if len(x) != d {
		return errNotForest
	}
	fv.at = append(fv.at, int32(len(fv.values)))
	fv.values = append(fv.values, x...)
	_, err := fv.statsOf(len(fv.at)-1, d, 0)
	return err
}

// statsOf writes the statistics of element e (dimension d) into the
// scratch at slot j and returns them.
func (fv *forestValues) statsOf(e, d, j int) ([]float64, error) {
	n := 2
	if fv.fam == expfam.MvNormalFamily {
		n = d + d*d
	}
	fv.stride = max(fv.stride, n)
	if len(fv.stats) < (j+1)*fv.stride {
		fv.stats = append(fv.stats, make([]float64, (j+1)*fv.stride-len(fv.stats))...)
	}
	buf := fv.stats[j*fv.stride : j*fv.stride+n : j*fv.stride+n]
	x := fv.values[fv.at[e] : int(fv.at[e])+d]
	if fv.fam == expfam.MvNormalFamily {
		return buf, fv.fam.Declaration().(expfam.VectorObserver).ObservedVectorStats(buf, x)
	}
	return buf, fv.fam.Declaration().(expfam.ValueObserver).ObservedStats(buf, x[0])
}

// evidenceValue returns the value an Evidence gives a variable of family
// fam (nil: hidden), or errNotForest where Infer would read it otherwise.
func evidenceValue(ev *Evidence, fam expfam.Family, one *[1]float64) ([]float64, error) {
	switch {
	case ev == nil || ev.Index < 0 && ev.Value == nil && ev.Probs == nil && ev.Elements == nil:
		return nil, nil
	case ev.Elements != nil:
		return nil, errNotForest
	case fam == expfam.NormalFamily && ev.Value != nil:
		one[0] = *ev.Value
		return one[:], nil
	case fam == expfam.MvNormalFamily && ev.Probs != nil:
		return ev.Probs, nil
	}
	return nil, errNotForest
}

// buildForest builds and runs the model of spec at sizes on a forest of
// family fam with the evidence of d (the file's observed values, those d
// gives over them). Any fault is an error, for which the caller runs
// Infer instead.
func buildForest(name string, spec *modelJSON, sizes *sizeSet, fam expfam.Family, d Data) (*forestRun, error) {
	sc, err := newScope(name, spec, sizes)
	if err != nil || sc == nil {
		return nil, errNotForest
	}
	sg := ffg.New() // the scalar variables and the refs' stand-ins
	scalars := map[*ffg.Variable]int{}
	fr := &forestRun{fam: fam}
	fv := &forestValues{fam: fam, at: prefault.Make[int32](0, sc.nVars)}
	if fam == expfam.NormalFamily {
		fv.values = prefault.Make[float64](0, sc.nVars)
	}
	dims := prefault.Make[int32](0, sc.nVars) // per element: its dimension
	var one [1]float64
	total := 0
	for i, vs := range spec.variables {
		if err := mvVariable(&vs, fam, "variables"); err != nil {
			return nil, err
		}
		dim := 1
		if fam == expfam.MvNormalFamily {
			dim = vs.Shape[0]
		}
		first := len(fv.at)
		count := 1
		for _, n := range sc.dims[i] {
			count *= n
		}
		if total += count * dim; total > MaxElements {
			return nil, errNotForest
		}
		for range count {
			dims = append(dims, int32(dim))
		}
		ev, given := d[vs.Name]
		if sc.dims[i] == nil {
			v, err := sg.AddVariable(vs.Name, fam, vs.Shape...)
			if err != nil {
				return nil, err
			}
			scalars[v] = first
			var x []float64
			switch {
			case given:
				x, err = evidenceValue(&ev, fam, &one)
			case vs.Observed != nil:
				var shape []int
				x, shape, err = tensorNumbers(vs.Observed, "observed")
				if err == nil && (fam == expfam.NormalFamily) != (len(shape) == 0) {
					err = errNotForest
				}
			}
			if err != nil {
				return nil, err
			}
			if err := fv.observe(x, dim); err != nil {
				return nil, err
			}
			fr.outs = append(fr.outs, forestOut{name: vs.Name, first: first, count: 1})
			continue
		}
		sc.arrays[vs.Name] = &array{name: vs.Name, dims: sc.dims[i], strides: strides(sc.dims[i]), fam: fam, shape: vs.Shape, first: first}
		fr.outs = append(fr.outs, forestOut{name: vs.Name, dims: sc.dims[i], first: first, count: count})
		oa := vs.ObservedArr
		if sizes != nil && sizes.skip[vs.Name] {
			oa = nil
		}
		switch {
		case oa != nil && (oa.fault || len(oa.kind) != count || !slices.Equal(oa.shape, sc.dims[i]) && count > 0):
			return nil, errNotForest // the file's values do not fit the size: Infer's error
		case given && ev.Elements == nil && ev.Probs == nil:
			return nil, errNotForest // null for a whole array: Infer's rules
		case given && ev.Elements == nil && (fam != expfam.NormalFamily || len(ev.Probs) != count):
			return nil, errNotForest
		case given && ev.Elements != nil && len(ev.Elements.Elements) != count:
			return nil, errNotForest
		}
		for k := range count {
			var x []float64
			switch {
			case given && ev.Elements != nil:
				x, err = evidenceValue(ev.Elements.Elements[k], fam, &one)
			case given:
				one[0] = ev.Probs[k]
				x = one[:]
			case oa == nil || oa.kind[k] == obsNone:
			case oa.kind[k] == obsNumber && fam == expfam.NormalFamily:
				one[0] = oa.num[k]
				x = one[:]
			case oa.kind[k] == obsVector && fam == expfam.MvNormalFamily:
				if x = oa.flat[k]; x == nil {
					err = errNotForest // another kind of value than a vector of numbers: Infer's
				}
			default:
				err = errNotForest
			}
			if err != nil {
				return nil, err
			}
			if err := fv.observe(x, dim); err != nil {
				return nil, err
			}
		}
	}
	// Every key of d names a variable whole (an element named on its own
	// is Infer's).
	for key := range d {
		found := false
		for _, o := range fr.outs {
			found = found || o.name == key
		}
		if !found {
			return nil, errNotForest
		}
	}
	// The hidden elements numbered in order, -1 for the observed ones.
	fr.hidden = prefault.Make[int32](len(fv.at), len(fv.at))
	nHidden := int32(0)
	for e, at := range fv.at {
		fr.hidden[e] = -1
		if at < 0 {
			fr.hidden[e] = nHidden
			nHidden++
		}
	}
	if fam == expfam.NormalFamily {
		// A forest of n variables has at most n - 1 pairs.
		fr.forest = ffg.NewGaussForest(int(nHidden), int(nHidden), nil)
	} else {
		hiddenDims := make([]int, 0, nHidden)
		for e, h := range fr.hidden {
			if h >= 0 {
				hiddenDims = append(hiddenDims, int(dims[e]))
			}
		}
		if fr.forest, err = ffg.NewMvGaussForest(hiddenDims, sc.nFactors, nil); err != nil {
			return nil, err
		}
	}
	// The factors, in the graph's order; each one's output and parents
	// (elements) for the check of directed cycles.
	outs, parents := prefault.Make[int32](0, sc.nFactors), prefault.Make[int32](0, sc.nFactors)
	parStart := prefault.Make[int32](1, sc.nFactors+1)
	fvars := make([]int, 0, 4)
	fstats := make([][]float64, 0, 4)
	for i := range spec.factors.len() {
		fs := spec.factors.at(i)
		field := fmt.Sprintf("factors[%d]", i)
		nodeField, err := checkFactor(fs, field, nil)
		if err != nil {
			return nil, err
		}
		lf, err := sc.compileFactor(sg, fs, i, nodeField)
		if err != nil {
			return nil, err
		}
		for _, r := range lf.refs {
			if r.kind == refElem {
				if r.standIn, err = sg.AddVariable("", r.arr.fam, r.arr.shape...); err != nil {
					return nil, err
				}
			}
		}
		lf.emit = func(f ffg.Factor, vars []*ffg.Variable) error {
			fvars, fstats = fvars[:0], fstats[:0]
			for j, v := range vars {
				e, ok := scalars[v]
				if !ok {
					for _, r := range lf.refs {
						if r.standIn == v {
							e, ok = r.arr.first+r.k, true
							break
						}
					}
				}
				if !ok {
					return errNotForest
				}
				if j == 0 {
					outs = append(outs, int32(e))
				} else {
					parents = append(parents, int32(e))
				}
				if h := fr.hidden[e]; h >= 0 {
					fvars, fstats = append(fvars, int(h)), append(fstats, nil)
					continue
				}
				st, err := fv.statsOf(e, int(dims[e]), j)
				if err != nil {
					return err
				}
				fvars, fstats = append(fvars, -1), append(fstats, st)
			}
			parStart = append(parStart, int32(len(parents)))
			return fr.forest.AddFactor(f, fvars, fstats)
		}
		err = walk(lf.levels, lf.vals, field+".for", func() error {
			lf.failed = false
			if err := lf.prepare(nodeField); err != nil {
				return err
			}
			lf.cur.Name = ""
			_, err := buildFactor(sg, *lf.cur, nodeField, true, lf, lf.normalCache())
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if _, _, _, _, cycle := directedCycle(len(fv.at), outs, parents, parStart); cycle {
		return nil, errNotForest
	}
	f, err := fr.forest.Run()
	if err != nil {
		return nil, err
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errNotForest
	}
	// Graph.SumProduct's run (schedule.Run): the pass sets every belief
	// exactly, the sweep after it changes none, and the second pass gives
	// the same F, so the run converges after one sweep.
	fr.res = &schedule.Result{Iterations: 1, Converged: true, FreeEnergy: []float64{f}}
	return fr, nil
}

// InferJSON runs the model on one data set and writes the result as
// WriteOutput writes it: the line of `arbor infer --json`. For most data
// sets it is Infer then WriteOutput. A data set that sets the sizes of a
// linear-Gaussian model (every variable normal; every factor a normal
// node whose mean is a number, a variable or an affine function of one,
// and whose precision is a number; method sum-product) runs instead on an
// ffg.GaussForest built from the model's loops at those sizes, without the
// graph of one object per element that Infer builds: the same bytes, in a
// fraction of the time and the memory for a model of 10^5 steps. m's
// Graph, Variables and Factors are then left as they were (Infer would
// make them the data set's build). The errors are Infer's.
func (m *Model) InferJSON(ctx context.Context, where string, d Data, w io.Writer) (*schedule.Result, error) {
	if fr := m.forestRun(ctx, where, d); fr != nil {
		return fr.res, apiError(fr.write(w))
	}
	res, err := m.Infer(ctx, where, d)
	if err != nil {
		return res, apiError(err)
	}
	return res, apiError(m.WriteOutput(w, res))
}

// forestRun returns the run of d on a forest, nil when d does not run on
// one (InferJSON then runs Infer).
func (m *Model) forestRun(ctx context.Context, where string, d Data) *forestRun {
	if m.built("InferJSON") != nil || m.loops == nil {
		return nil
	}
	fam, ok := forestModel(m.loops.src, &m.Settings)
	if !ok {
		return nil
	}
	if ctx != nil && ctx.Err() != nil {
		return nil
	}
	if !m.running.CompareAndSwap(false, true) {
		return nil
	}
	defer m.running.Store(false)
	// Only where Infer would build the model again: at the file's sizes
	// it runs the file's build, already made.
	sizes, err := m.checkData(where, d)
	if err != nil || !m.newSizes(sizes) {
		return nil
	}
	fr, err := buildForest(m.Name, m.loops.src, m.dataSizes(sizes, d), fam, d)
	if err != nil {
		return nil
	}
	return fr
}

// write writes the run's line as WriteOutput writes a model's.
func (fr *forestRun) write(w io.Writer) error {
	j := &jsonWriter{w: w, b: make([]byte, 0, 80<<10)} // a chunk of 64 KiB and the posterior after it
	j.header(fr.res.Iterations, fr.res.Converged, fr.res.FreeEnergy)
	j.b = append(j.b, '{')
	outs := make([]forestOut, 0, len(fr.outs))
	for _, o := range fr.outs {
		listed := o.count == 0 && o.dims != nil
		for k := o.first; k < o.first+o.count && !listed; k++ {
			listed = fr.hidden[k] >= 0
		}
		if listed {
			outs = append(outs, o)
		}
	}
	slices.SortFunc(outs, func(x, y forestOut) int { return strings.Compare(x.name, y.name) })
	for i, o := range outs {
		j.key(i, o.name)
		if o.dims == nil {
			fr.element(j, o.first, new(normalText))
			j.flush(false)
			continue
		}
		fr.writeArray(j, o)
	}
	j.b = append(j.b, "}}\n"...)
	j.flush(true)
	return j.err
}
