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

// forestRun is one data set's run on a Gaussian forest.
type forestRun struct {
	res    *schedule.Result
	forest *ffg.GaussForest
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

// forestModel reports whether a data set with sizes may run on a forest:
// the file's variables, factors and settings (the data set's keys are
// checked by buildForest).
func forestModel(spec *modelJSON, s *schedule.Settings) bool {
	if s.Method != schedule.MethodSumProduct || s.Loopy || s.Order != nil || s.Iterations < 0 ||
		!(s.Tolerance >= 0) || !(s.ParamTolerance >= 0) {
		return false
	}
	for _, vs := range spec.variables {
		if vs.Family != "normal" {
			return false
		}
	}
	names := map[string]bool{}
	for _, fs := range spec.factors {
		if fs.Node != "normal" || fs.Mean.isLinear() || fs.Mean.dot != nil || fs.Mean.matrix.set {
			return false
		}
		if fs.Name != "" {
			if names[fs.Name] {
				return false
			}
			names[fs.Name] = true
		}
	}
	return true
}

// buildForest builds and runs the model of spec at sizes on a forest with
// the evidence of d (the file's observed values, those d gives over them).
// Any fault is an error, for which the caller runs Infer instead.
func buildForest(name string, spec *modelJSON, sizes *sizeSet, s *schedule.Settings, d Data) (*forestRun, error) {
	sc, err := newScope(name, spec, sizes)
	if err != nil || sc == nil {
		return nil, errNotForest
	}
	sg := ffg.New() // the scalar variables and the refs' stand-ins
	scalars := map[*ffg.Variable]int{}
	fr := &forestRun{hidden: make([]int32, 0, sc.nVars)}
	var value []float64 // per element: its observed value
	observer := expfam.NormalFamily.Declaration().(expfam.ValueObserver)
	var st [2]float64
	nHidden := int32(0)
	add := func(x float64, observed bool) error {
		if !observed {
			fr.hidden = append(fr.hidden, nHidden)
			value = append(value, 0)
			nHidden++
			return nil
		}
		if err := observer.ObservedStats(st[:], x); err != nil {
			return err
		}
		fr.hidden = append(fr.hidden, -1)
		value = append(value, x)
		return nil
	}
	for i, vs := range spec.variables {
		if _, given := d[vs.Name]; given && d[vs.Name].Elements == nil && d[vs.Name].Probs == nil && d[vs.Name].Value == nil && sc.dims[i] != nil {
			return nil, errNotForest // null for a whole array: Infer's rules
		}
		first := len(fr.hidden)
		if sc.dims[i] == nil {
			v, err := sg.AddVariable(vs.Name, expfam.NormalFamily)
			if err != nil {
				return nil, err
			}
			scalars[v] = first
			ev, given := d[vs.Name]
			switch {
			case given:
				if ev.Index >= 0 && ev.Value == nil || ev.Probs != nil || ev.Elements != nil {
					return nil, errNotForest
				}
				x := 0.0
				if ev.Value != nil {
					x = *ev.Value
				}
				err = add(x, ev.Value != nil)
			case vs.Observed != nil:
				vals, shape, terr := tensorNumbers(vs.Observed, "observed")
				if terr != nil || len(shape) != 0 {
					return nil, errNotForest
				}
				err = add(vals[0], true)
			default:
				err = add(0, false)
			}
			if err != nil {
				return nil, err
			}
			fr.outs = append(fr.outs, forestOut{name: vs.Name, first: first, count: 1})
			continue
		}
		dims := sc.dims[i]
		count := 1
		for _, n := range dims {
			count *= n
		}
		if len(fr.hidden)+count > MaxElements {
			return nil, errNotForest
		}
		sc.arrays[vs.Name] = &array{name: vs.Name, dims: dims, strides: strides(dims), fam: expfam.NormalFamily, first: first}
		fr.outs = append(fr.outs, forestOut{name: vs.Name, dims: dims, first: first, count: count})
		oa := vs.ObservedArr
		if sizes != nil && sizes.skip[vs.Name] {
			oa = nil
		}
		ev, given := d[vs.Name]
		if given && ev.Elements == nil && ev.Probs == nil {
			given = false
		}
		for k := range count {
			var x float64
			observed := false
			switch {
			case given && ev.Elements != nil:
				if len(ev.Elements.Elements) != count {
					return nil, errNotForest
				}
				if e := ev.Elements.Elements[k]; e != nil {
					if e.Value == nil || e.Probs != nil {
						return nil, errNotForest
					}
					x, observed = *e.Value, true
				}
			case given:
				if len(ev.Probs) != count {
					return nil, errNotForest
				}
				x, observed = ev.Probs[k], true
			case oa != nil && oa.kind[k] == obsNumber:
				x, observed = oa.num[k], true
			case oa != nil && oa.kind[k] != obsNone:
				return nil, errNotForest
			}
			if err := add(x, observed); err != nil {
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
	fr.forest = ffg.NewGaussForest(int(nHidden), sc.nFactors, nil)
	// The factors, in the graph's order; each one's output and parents
	// (elements) for the check of directed cycles.
	var outs, parents []int32
	parStart := make([]int32, 1, sc.nFactors+1)
	fvars := make([]int, 0, 4)
	fstats := make([][]float64, 0, 4)
	statBuf := make([]float64, 8)
	for i, fs := range spec.factors {
		field := fmt.Sprintf("factors[%d]", i)
		nodeField, err := checkFactor(fs, field)
		if err != nil {
			return nil, err
		}
		lf, err := sc.compileFactor(sg, fs, i, nodeField)
		if err != nil {
			return nil, err
		}
		for _, r := range lf.refs {
			if r.kind == refElem {
				if r.standIn, err = sg.AddVariable("", r.arr.fam); err != nil {
					return nil, err
				}
			}
		}
		lf.emit = func(f ffg.Factor, vars []*ffg.Variable) error {
			fvars, fstats = fvars[:0], fstats[:0]
			if n := 2 * len(vars); len(statBuf) < n {
				statBuf = make([]float64, n)
			}
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
				buf := statBuf[2*j : 2*j+2 : 2*j+2]
				if err := observer.ObservedStats(buf, value[e]); err != nil {
					return err
				}
				fvars, fstats = append(fvars, -1), append(fstats, buf)
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
			_, err := buildFactor(sg, *lf.cur, nodeField, true, lf)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if forestCycle(len(fr.hidden), outs, parents, parStart) {
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

// forestCycle reports whether the factors (factor i makes outs[i] from
// parents[parStart[i]:parStart[i+1]]) close a directed cycle among the n
// elements.
func forestCycle(n int, outs, parents, parStart []int32) bool {
	start := make([]int32, n+1)
	for _, p := range parents {
		start[p+1]++
	}
	for i := range n {
		start[i+1] += start[i]
	}
	children := make([]int32, len(parents))
	fill := append([]int32(nil), start[:n]...)
	for fi := range outs {
		for _, p := range parents[parStart[fi]:parStart[fi+1]] {
			children[fill[p]] = int32(fi)
			fill[p]++
		}
	}
	_, _, _, _, found := directedCycle(n, start, children, func(fi int32) int32 { return outs[fi] })
	return found
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
	if m.built("InferJSON") != nil || m.loops == nil || !forestModel(m.loops.src, &m.Settings) {
		return nil
	}
	if ctx != nil && ctx.Err() != nil {
		return nil
	}
	if !m.running.CompareAndSwap(false, true) {
		return nil
	}
	defer m.running.Store(false)
	if m.CheckData(where, d) != nil {
		return nil
	}
	sizes, err := m.checkArrays(where, d)
	if err != nil {
		return nil
	}
	// Only where Infer would build the model again: at the file's sizes
	// it runs the file's build, already made.
	file := m.loops.scope
	if m.loops.base != nil {
		file = m.loops.base.loops.scope
	}
	changed := false
	for name, n := range sizes {
		changed = changed || int64(n) != file.names.sizes[name]
	}
	if !changed {
		return nil
	}
	set := &sizeSet{vals: sizes, skip: map[string]bool{}}
	for name := range d {
		if m.isArray(name) {
			set.skip[name] = true
		}
	}
	fr, err := buildForest(m.Name, m.loops.src, set, &m.Settings, d)
	if err != nil {
		return nil
	}
	return fr
}

// write writes the run's line as WriteOutput writes a model's.
func (fr *forestRun) write(w io.Writer) error {
	j := &jsonWriter{w: w}
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
	p := Posterior{Family: expfam.NormalFamily.String()}
	var mean, variance float64
	p.Mean, p.Variance = &mean, &variance
	for i, o := range outs {
		j.key(i, o.name)
		if o.dims == nil {
			mean, variance = fr.forest.Posterior(int(fr.hidden[o.first]))
			j.posterior(&p)
			j.flush(false)
			continue
		}
		k := o.first
		j.nested(o.dims, func() {
			if h := fr.hidden[k]; h < 0 {
				j.b = append(j.b, "null"...)
			} else {
				mean, variance = fr.forest.Posterior(int(h))
				j.posterior(&p)
			}
			k++
			j.flush(false)
		})
	}
	j.b = append(j.b, "}}\n"...)
	j.flush(true)
	return j.err
}
