package model

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/jsonread"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// Error is a fault in a model file. Its message is one line:
// "model: FILE: FIELD: FAULT".
type Error struct {
	File  string
	Field string
	Err   error
}

// Error returns "model: FILE: FIELD: FAULT", without "FILE: " when there
// is no file and without "FIELD: " when there is no field: the package's
// prefix once, as every error of the package starts.
func (e *Error) Error() string {
	msg := errPrefix
	if e.File != "" {
		msg += e.File + ": "
	}
	if e.Field != "" {
		msg += e.Field + ": "
	}
	return msg + strings.TrimPrefix(fmt.Sprint(e.Err), errPrefix)
}

func (e *Error) Unwrap() error { return e.Err }

// MaxElements caps the number of entries of all the variables of a model
// file together (a categorical of shape [K] has K, a Dirichlet the product
// of its shape, a gamma 1), so that a short file cannot make the loader
// allocate gigabytes. It is ffg.MaxElements, the cap on one variable.
const MaxElements = ffg.MaxElements

// Bounds on the parameters of Dirichlet and gamma priors, checked at load
// time (also listed in README.md, "The command line"). Past them F cannot be
// computed in float64, or only as rounding noise:
//
//   - MaxConcentration bounds the sum of every column of a Dirichlet prior
//     and the shape of a gamma prior. F holds ln Γ(α₀) and (α₀ - K) ψ(α₀)
//     (Dirichlet entropy; ln Γ(a) and (1 - a) ψ(a) for a gamma), terms of
//     size α₀ ln α₀ that cancel to O(ln α₀); each is rounded to a relative
//     2^-53 ≈ 1.1e-16, so F carries an absolute error of about
//     1.1e-16 α₀ ln α₀: 2.5e-5 at 1e10, 3e-3 at 1e12 (where a one-parameter
//     model already reports a spurious rise of F by 4.4e-3), and ln Γ
//     overflows to +Inf above about 2.6e305, where F becomes NaN.
//   - MaxGammaMean bounds the prior mean shape/rate of a gamma: E[g] scales
//     the values of a softmax node (softmax(-g G)) and enters F as rate·E[g];
//     a mean of 1e10 is far past any useful precision (SPM's γ is of order
//     1 to 16) and keeps E[g]·G finite for every |G| < 1e298.
const (
	MaxConcentration = 1e10
	MaxGammaMean     = 1e10
)

// Model is a loaded model: its graph, the variables and factors in file
// order and the schedule settings.
//
// Models are made by Load, Parse, FromSpec and Builder.Build. A nil *Model
// or a zero Model has no graph: Infer and CheckData return an error for
// it, Output lists no posteriors and RunError still returns an error. The
// graph, its variables and its factors belong to the model: replacing
// Graph, Variables or Factors is not supported (Infer and CheckData refuse
// a model whose Variables changed in number), while Name and Settings may
// be changed between runs.
type Model struct {
	Name      string // the file name given to Load or Parse, used in errors
	Graph     *ffg.Graph
	Variables []*ffg.Variable
	Factors   []*ffg.FactorNode
	Settings  schedule.Settings

	factorFields []string     // "factors[i] (node)", parallel to Factors
	evidence     fileEvidence // the file's observed value of each variable, parallel to Variables
	varFile      []int32      // the file's variable of each variable (an array has several), parallel to Variables; nil: the same index
	loops        *loopModel   // a file with sizes, arrays or loops (dataarrays.go); nil otherwise
	running      atomic.Bool  // an Infer is running (Infer refuses a second)
}

// Load reads and builds the model file at path.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			err = inner // drop the path, which Error already names
		}
		return nil, apiError(&Error{File: path, Err: err})
	}
	return apiResult(Parse(path, data))
}

// Parse builds a model from data; name is used in errors. Unknown keys and
// a key given twice are errors (keys match case-insensitively). The text is
// read in one pass after its syntax is checked, a value of the wrong type
// refused at its first token; reading keeps 8 bytes per number of the
// literal tensors (each allocated once at its final size), then the graph
// is built from them.
func Parse(name string, data []byte) (*Model, error) {
	spec, err := readModel(name, data)
	if err != nil {
		return nil, apiError(err)
	}
	return apiResult(build(name, spec, nil))
}

// build builds the model of the file read into spec; sizes, when not nil,
// replaces the values of the file's sizes (dataarrays.go).
func build(name string, spec *modelJSON, sizes *sizeSet) (*Model, error) {
	fail := func(field string, format string, args ...any) error {
		return &Error{File: name, Field: field, Err: fmt.Errorf(format, args...)}
	}
	if len(spec.variables) == 0 && spec.varErr == nil {
		return nil, fail("variables", "missing or empty")
	}
	// Sizes, constants, arrays and loops (loops.go): sc is nil for a
	// file without them.
	sc, err := newScope(name, spec, sizes)
	if err != nil {
		return nil, err
	}
	m := &Model{Name: name, Graph: ffg.New()}
	var obsValues []float64 // a written-out file's observed numbers, one array
	if sc != nil {
		m.loops = &loopModel{src: spec, scope: sc, arrays: map[string]*arrayInfo{}}
		// The lengths are known: one allocation each.
		m.Graph.Reserve(sc.nVars, sc.nFactors)
		if sizes != nil {
			// A data set's sizes: Infer resets every posterior before
			// it runs.
			m.Graph.DeferPriors()
		}
		m.Variables, m.varFile = make([]*ffg.Variable, 0, sc.nVars), make([]int32, 0, sc.nVars)
		m.evidence.at = make([]int32, 0, sc.nVars)
		m.Factors, m.factorFields = make([]*ffg.FactorNode, 0, sc.nFactors), make([]string, 0, sc.nFactors)
	} else if nv, nf := len(spec.variables), spec.factors.len(); nv+nf > 1000 {
		// A written-out file of many variables and factors: the same
		// arrays, at the counts read.
		m.Graph.Reserve(nv, nf)
		m.Variables, m.evidence.at = make([]*ffg.Variable, 0, nv), make([]int32, 0, nv)
		observed := 0
		for i := range spec.variables {
			if spec.variables[i].Observed != nil {
				observed++
			}
		}
		m.evidence.ev, obsValues = make([]Evidence, 0, observed), make([]float64, 0, observed)
		m.Factors, m.factorFields = make([]*ffg.FactorNode, 0, nf), make([]string, 0, nf)
	}
	g := m.Graph
	total := 0           // entries of every variable so far, against MaxElements
	var names fieldNames // the field names of the elements
	for i, vs := range spec.variables {
		if err := checkName(vs.Name); err != nil {
			return nil, fail(indexed("variables", i)+".name", "%v", err)
		}
		field := names.named("variables", i, vs.Name)
		if _, dup := g.Variable(vs.Name); dup {
			return nil, fail(field+".name", "duplicate variable name %q", vs.Name)
		}
		count := 1 // the elements of an array
		if sc != nil {
			if err := sc.checkVariableName(i, vs); err != nil {
				return nil, err
			}
			for _, d := range sc.dims[i] {
				count *= d // at most MaxItems in all (newScope)
			}
		}
		fam, err := expfam.ParseFamily(vs.Family)
		if err != nil {
			return nil, fail(field+".family", "%s", trimPrefix(err))
		}
		if err := mvVariable(&vs, fam, field); err != nil {
			return nil, withFile(name, err)
		}
		scalar := fam == expfam.GammaFamily || fam == expfam.NormalFamily || fam == expfam.BetaFamily
		if scalar && len(vs.Shape) != 0 && !(len(vs.Shape) == 1 && vs.Shape[0] == 1) {
			return nil, fail(field+".shape", "%s variables are scalar, got shape %v (omit it or use [1])", fam, vs.Shape)
		}
		if !scalar && len(vs.Shape) == 0 {
			return nil, fail(field+".shape", "missing")
		}
		if fam == expfam.CategoricalFamily && len(vs.Shape) != 1 {
			return nil, fail(field+".shape", "categorical shape %v, want [K]", vs.Shape)
		}
		n := 1
		for j, s := range vs.Shape {
			if s <= 0 || s > MaxElements {
				return nil, fail(fmt.Sprintf("%s.shape[%d]", field, j), "%d, want 1..%d", s, MaxElements)
			}
			if n *= s; n > MaxElements {
				return nil, fail(field+".shape", "%v has more than %d entries", vs.Shape, MaxElements)
			}
		}
		if total += n * count; total > MaxElements {
			return nil, fail(field+".shape", "the model's variables have more than %d entries in all", MaxElements)
		}
		if sc != nil && sc.dims[i] != nil {
			if err := sc.addArray(m, i, vs, fam); err != nil {
				return nil, err
			}
			continue
		}
		v, err := g.AddVariable(vs.Name, fam, vs.Shape...)
		if err != nil {
			return nil, fail(field, "%v", trimPrefix(err))
		}
		ev := Evidence{Index: -1}
		if vs.Observed != nil && fam == expfam.MvNormalFamily {
			if ev.Probs, err = observeVector(v, vs.Observed, field+".observed"); err != nil {
				return nil, withFile(name, err)
			}
		} else if vs.Observed != nil && fam == expfam.NormalFamily {
			vals, shape, err := observedNumbers(vs.Observed, field)
			if err != nil {
				return nil, &Error{File: name, Err: err}
			}
			if len(shape) != 0 {
				return nil, fail(field+".observed", "want a number (a normal variable's value), got an array")
			}
			if err := v.ObserveValue(vals[0]); err != nil {
				return nil, fail(field+".observed", "%v", trimPrefix(err))
			}
			if len(obsValues) < cap(obsValues) {
				obsValues = append(obsValues, vals[0]) // never moved: cap is the count of observed values
				ev.Value = &obsValues[len(obsValues)-1]
			} else {
				x := vals[0]
				ev.Value = &x
			}
		} else if vs.Observed != nil {
			if fam != expfam.CategoricalFamily {
				return nil, fail(field+".observed", "only categorical, normal and mvnormal variables can be observed")
			}
			vals, shape, err := observedNumbers(vs.Observed, field)
			if err != nil {
				return nil, &Error{File: name, Err: err}
			}
			switch {
			case len(shape) == 0:
				idx := vals[0]
				if idx != math.Trunc(idx) || idx < 0 || idx >= float64(vs.Shape[0]) {
					return nil, fail(field+".observed", "index %v out of range [0, %d)", idx, vs.Shape[0])
				}
				_ = v.Observe(int(idx))
				ev.Index = int(idx)
			case len(shape) == 1:
				if err := v.ObserveSoft(vals); err != nil {
					return nil, fail(field+".observed", "%v", trimPrefix(err))
				}
				ev.Probs = append([]float64(nil), vals...)
			default:
				return nil, fail(field+".observed", "want an index or a probability vector, got shape %v", shape)
			}
		}
		m.Variables = append(m.Variables, v)
		m.evidence.add(ev)
		if sc != nil {
			m.varFile = append(m.varFile, int32(i))
		}
	}
	if spec.varErr != nil {
		return nil, spec.varErr
	}
	// The method decides the default treatment of a softmax precision; the
	// settings are checked in full below.
	sumProduct := spec.settings != nil && spec.settings.Method != nil && *spec.settings.Method == schedule.MethodSumProduct
	factorNames := map[string]bool{}
	var nodeCache normalCache // the factors of a written-out file share their nodes
	for i := range spec.factors.len() {
		fs := spec.factors.at(i)
		field := names.indexed("factors", i)
		if fs.Name != "" {
			if err := checkName(fs.Name); err != nil {
				return nil, fail(field+".name", "%v", err)
			}
			if factorNames[fs.Name] {
				return nil, fail(field+".name", "duplicate factor name %q", fs.Name)
			}
			field = names.named("factors", i, fs.Name)
		}
		if sc != nil {
			if err := sc.addFactors(m, fs, i, field, sumProduct, factorNames); err != nil {
				return nil, err
			}
			continue
		}
		field, err := checkFactor(fs, field, &names)
		var fn *ffg.FactorNode
		if err == nil {
			fn, err = buildFactor(g, fs, field, sumProduct, nil, &nodeCache)
		}
		if err != nil {
			var me *Error
			if errors.As(err, &me) {
				me.File = name
				return nil, me
			}
			return nil, &Error{File: name, Err: err}
		}
		m.Factors = append(m.Factors, fn)
		m.factorFields = append(m.factorFields, field) // "factors[i] (node)", as checkFactor makes it
		if fs.Name != "" {
			factorNames[fs.Name] = true
		}
	}
	if spec.factorErr != nil {
		return nil, spec.factorErr
	}
	if err := checkAcyclic(m); err != nil {
		return nil, err
	}
	if spec.settingsErr != nil {
		return nil, spec.settingsErr
	}
	if ss := spec.settings; ss != nil {
		if ss.Iterations.set {
			it, err := ss.Iterations.scalar("settings.iterations")
			if err != nil {
				return nil, &Error{File: name, Err: err}
			}
			if it != math.Trunc(it) || it < 1 || it > 1_000_000 {
				return nil, fail("settings.iterations", "%v, want a whole number in 1..1000000", it)
			}
			m.Settings.Iterations = int(it)
		}
		if ss.Tolerance.set {
			tol, err := ss.Tolerance.scalar("settings.tolerance")
			if err != nil {
				return nil, &Error{File: name, Err: err}
			}
			if !(tol > 0) {
				return nil, fail("settings.tolerance", "%v, want a finite number > 0", tol)
			}
			m.Settings.Tolerance = tol
		}
		if ss.Method != nil {
			switch *ss.Method {
			case schedule.MethodVMP, schedule.MethodSumProduct:
				m.Settings.Method = *ss.Method
			default:
				return nil, fail("settings.method", "%q, want %q (the default) or %q", *ss.Method, schedule.MethodVMP, schedule.MethodSumProduct)
			}
		}
		if ss.Loopy != nil && *ss.Loopy {
			if m.Settings.Method != schedule.MethodSumProduct {
				return nil, fail("settings.loopy", "needs \"method\": \"sum-product\" (VMP takes loops as they are)")
			}
			m.Settings.Loopy = true
		}
		if ss.Damping.set {
			dmp, err := ss.Damping.scalar("settings.damping")
			if err != nil {
				return nil, &Error{File: name, Err: err}
			}
			if !m.Settings.Loopy {
				return nil, fail("settings.damping", "needs \"loopy\": true")
			}
			if !(dmp > 0 && dmp < 1) {
				return nil, fail("settings.damping", "%v, want a number in (0, 1)", dmp)
			}
			m.Settings.Damping = dmp
		}
	}
	if err := paramTolerance(m, spec.settings); err != nil {
		return nil, withFile(name, err)
	}
	return m, nil
}

// used lists, per node kind, the fields it reads; any other field set is an
// error, so that a typo such as "alpha" on a categorical node is caught.
var used = map[string][]string{
	"categorical": {"name", "out", "p"},
	"transition":  {"name", "out", "in", "matrix"},
	"dirichlet":   {"name", "out", "alpha"},
	"gamma":       {"name", "out", "shape", "rate"},
	"softmax":     {"name", "out", "precision", "values", "update"},
	// Continuous nodes (docs/models.md).
	"normal":         {"name", "out", "mean", "precision"},
	"normal-mixture": {"name", "out", "switch", "means", "precisions"},
}

// setFields appends the names of the fields fs sets to out.
func setFields(fs factorSpec, out []string) []string {
	add := func(name string, set bool) {
		if set {
			out = append(out, name)
		}
	}
	add("out", fs.Out != "")
	add("name", fs.Name != "")
	add("in", fs.In != nil)
	add("p", fs.P.set)
	add("matrix", fs.Matrix.set)
	add("alpha", fs.Alpha.set)
	add("shape", fs.Shape.set)
	add("rate", fs.Rate.set)
	add("precision", fs.Precision != "" || fs.PrecisionNum.set)
	add("values", fs.Values.set)
	add("update", fs.Update != "")
	add("mean", fs.Mean.set)
	add("switch", fs.Switch != "")
	add("means", fs.Means.set)
	add("precisions", fs.Precisions.set)
	return mvSetFields(fs, out)
}

func kinds() string {
	var ks []string
	for k := range used {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// observedNumbers is tensorNumbers for the observed value of the variable
// at field, whose name it makes only for a fault (a written-out file has
// 10^5 observed values).
func observedNumbers(t *jsonread.Tensor, field string) ([]float64, []int, error) {
	if t.Fault == nil {
		return t.Data, t.Shape(), nil
	}
	return tensorNumbers(t, field+".observed")
}

// checkFactor checks that the factor's node is known and that it sets no
// field the node does not read, and returns its field with the node:
// "factors[2] (normal)".
func checkFactor(fs factorSpec, field string, names *fieldNames) (string, error) {
	fail := func(sub, format string, args ...any) error {
		return &Error{Field: field + "." + sub, Err: fmt.Errorf(format, args...)}
	}
	if fs.Node == "" {
		return "", fail("node", "missing")
	}
	allowed, ok := used[fs.Node]
	if !ok {
		return "", fail("node", "unknown node %q (known: %s)", fs.Node, kinds())
	}
	field = names.join(field, fs.Node)
	var buf [20]string // the fields set, appended to a buffer on the stack
	for _, f := range setFields(fs, buf[:0]) {
		found := false
		for _, a := range allowed {
			found = found || a == f
		}
		if !found {
			return "", fail(f, "not a field of a %s node (fields: %s)", fs.Node, strings.Join(allowed, ", "))
		}
	}
	return field, nil
}

// buildFactor builds the factor fs (checked by checkFactor; field names it
// with its node) and adds it to g. Its variables are looked up by name in
// g, or through env for a factor of a file with a scope (loops.go).
func buildFactor(g *ffg.Graph, fs factorSpec, field string, sumProduct bool, env *loopFactor, nc *normalCache) (*ffg.FactorNode, error) {
	fail := func(sub, format string, args ...any) error {
		f := field
		if sub != "" {
			f += "." + sub
		}
		return &Error{Field: f, Err: fmt.Errorf(format, args...)}
	}
	lookup := func(sub, name string) (*ffg.Variable, error) {
		if name == "" {
			return nil, fail(sub, "missing")
		}
		if env != nil {
			v, err := env.variable(name)
			if err != nil {
				return nil, fail(sub, "%v", err)
			}
			return v, nil
		}
		v, ok := g.Variable(name)
		if !ok {
			return nil, fail(sub, "unknown variable %q", name)
		}
		return v, nil
	}
	out, err := lookup("out", fs.Out)
	if err != nil {
		return nil, err
	}
	var f ffg.Factor
	// AddFactor copies the variables: a loop's factors share one buffer.
	var vars []*ffg.Variable
	switch {
	case env != nil:
		vars = env.vars[:0]
		defer func() { env.vars = vars[:0] }()
	case nc != nil:
		vars = nc.vars[:0]
		defer func() { nc.vars = vars[:0] }()
	}
	vars = append(vars, out)
	switch fs.Node {
	case "categorical":
		if !fs.P.set {
			return nil, fail("p", "missing")
		}
		if name, ok := fs.P.varName(); ok {
			p, err := lookup("p", name)
			if err != nil {
				return nil, err
			}
			if out.Family() != expfam.CategoricalFamily {
				return nil, fail("out", "variable %q is %s, want categorical", fs.Out, out.Family())
			}
			c, err := nodes.NewCategoricalDirichlet(out.Shape()[0])
			if err != nil {
				return nil, fail("", "%v", trimPrefix(err))
			}
			f, vars = c, append(vars, p)
			break
		}
		p, shape, err := fs.P.numbers(field + ".p")
		if err != nil {
			return nil, &Error{Err: err}
		}
		if len(shape) != 1 {
			return nil, fail("p", "want a variable name or a probability vector, got shape %v", shape)
		}
		c, err := nodes.NewCategorical(p)
		if err != nil {
			return nil, fail("p", "%v", trimPrefix(err))
		}
		f = c
	case "transition":
		if len(fs.In) == 0 {
			return nil, fail("in", "missing: a transition needs at least one parent")
		}
		shape := []int{0}
		if out.Family() == expfam.CategoricalFamily {
			shape[0] = out.Shape()[0]
		}
		for j, name := range fs.In {
			v, err := lookup(fmt.Sprintf("in[%d]", j), name)
			if err != nil {
				return nil, err
			}
			if v.Family() != expfam.CategoricalFamily {
				return nil, fail(fmt.Sprintf("in[%d]", j), "variable %q is %s, want categorical", name, v.Family())
			}
			vars = append(vars, v)
			shape = append(shape, v.Shape()[0])
		}
		if out.Family() != expfam.CategoricalFamily {
			return nil, fail("out", "variable %q is %s, want categorical", fs.Out, out.Family())
		}
		if !fs.Matrix.set {
			return nil, fail("matrix", "missing")
		}
		if name, ok := fs.Matrix.varName(); ok {
			mv, err := lookup("matrix", name)
			if err != nil {
				return nil, err
			}
			if mv.Family() != expfam.DirichletFamily {
				return nil, fail("matrix", "variable %q is %s, want dirichlet", name, mv.Family())
			}
			if !slices.Equal(mv.Shape(), shape) {
				return nil, fail("matrix", "variable %q has shape %v, want %v ([|out|, |in_1|, ...])", name, mv.Shape(), shape)
			}
			t, err := nodes.NewTransitionDirichlet(shape)
			if err != nil {
				return nil, fail("", "%v", trimPrefix(err))
			}
			f, vars = t, append(vars, mv)
			break
		}
		data, mshape, err := fs.Matrix.numbers(field + ".matrix")
		if err != nil {
			return nil, &Error{Err: err}
		}
		if !slices.Equal(mshape, shape) {
			return nil, fail("matrix", "shape %v, want %v ([|out|, |in_1|, ...])", mshape, shape)
		}
		t, err := nodes.NewTransition(data, shape)
		if err != nil {
			// The field already says "matrix": drop the node's own
			// "transition matrix: " context so the line reads
			// "....matrix: column [0] sums to 1.1, want 1".
			return nil, fail("matrix", "%s", strings.TrimPrefix(trimPrefix(err), "transition matrix: "))
		}
		f = t
	case "dirichlet":
		if out.Family() != expfam.DirichletFamily {
			return nil, fail("out", "variable %q is %s, want dirichlet", fs.Out, out.Family())
		}
		if !fs.Alpha.set {
			return nil, fail("alpha", "missing")
		}
		data, shape, err := fs.Alpha.numbers(field + ".alpha")
		if err != nil {
			return nil, &Error{Err: err}
		}
		if !slices.Equal(shape, out.Shape()) {
			return nil, fail("alpha", "shape %v, want the shape %v of variable %q", shape, out.Shape(), fs.Out)
		}
		for j, a := range data {
			if !(a > 0) {
				return nil, fail("alpha", "entry %d: concentration %v, want > 0", j, a)
			}
		}
		if err := columnSums(data, shape); err != nil {
			return nil, fail("alpha", "%v", err)
		}
		d, err := nodes.NewDirichlet(data, shape)
		if err != nil {
			return nil, fail("alpha", "%v", trimPrefix(err))
		}
		f = d
	case "gamma":
		if out.Family() != expfam.GammaFamily {
			return nil, fail("out", "variable %q is %s, want gamma", fs.Out, out.Family())
		}
		if !fs.Shape.set {
			return nil, fail("shape", "missing")
		}
		if !fs.Rate.set {
			return nil, fail("rate", "missing")
		}
		shape, err := fs.Shape.scalar(field + ".shape")
		if err != nil {
			return nil, &Error{Err: err}
		}
		rate, err := fs.Rate.scalar(field + ".rate")
		if err != nil {
			return nil, &Error{Err: err}
		}
		if !(shape > 0) {
			return nil, fail("shape", "%v, want > 0", shape)
		}
		if !(rate > 0) {
			return nil, fail("rate", "%v, want > 0", rate)
		}
		if shape > MaxConcentration {
			return nil, fail("shape", "%v, want at most %g (model.MaxConcentration: beyond it F is lost to rounding or overflows)", shape, MaxConcentration)
		}
		if mean := shape / rate; !(mean <= MaxGammaMean) {
			return nil, fail("rate", "%v gives the prior mean shape/rate = %.3g, want at most %g (model.MaxGammaMean)", rate, mean, MaxGammaMean)
		}
		gn, err := nodes.NewGamma(shape, rate)
		if err != nil {
			return nil, fail("", "%v", trimPrefix(err))
		}
		f = gn
	case "mvnormal", "wishart", "beta", "bernoulli":
		nf, nv, err := mvFactor(fs, field, out, vars, lookup, fail)
		if err != nil {
			return nil, err
		}
		if fs.Node == "mvnormal" {
			f, vars = nf, nv // nv extends vars
		} else {
			f, vars = nf, append(vars, nv...)
		}
	case "normal", "normal-mixture":
		nf, nv, err := normalFactor(fs, field, out, vars, lookup, fail, nc)
		if err != nil {
			return nil, err
		}
		if fs.Node == "normal" {
			f, vars = nf, nv // nv extends vars
		} else {
			f, vars = nf, append(vars, nv...)
		}
	case "softmax":
		if fs.PrecisionNum.set {
			return nil, fail("precision", "want the name of a gamma variable, got a number")
		}
		if out.Family() != expfam.CategoricalFamily {
			return nil, fail("out", "variable %q is %s, want categorical", fs.Out, out.Family())
		}
		prec, err := lookup("precision", fs.Precision)
		if err != nil {
			return nil, err
		}
		if prec.Family() != expfam.GammaFamily {
			return nil, fail("precision", "variable %q is %s, want gamma", fs.Precision, prec.Family())
		}
		if !fs.Values.set {
			return nil, fail("values", "missing")
		}
		data, shape, err := fs.Values.numbers(field + ".values")
		if err != nil {
			return nil, &Error{Err: err}
		}
		if len(shape) != 1 || shape[0] != out.Shape()[0] {
			return nil, fail("values", "shape %v, want [%d] (one value per outcome of %q)", shape, out.Shape()[0], fs.Out)
		}
		newSoftmax := nodes.NewSoftmaxCollapsed
		switch fs.Update {
		case "":
			if sumProduct {
				newSoftmax = nodes.NewSoftmaxExact
			}
		case "collapsed":
			if sumProduct {
				return nil, fail("update", "collapsed needs the method vmp (settings.method is sum-product); use exact")
			}
		case "exact":
			newSoftmax = nodes.NewSoftmaxExact
		case "spm":
			newSoftmax = nodes.NewSoftmax
		default:
			return nil, fail("update", "%q, want collapsed (the default with vmp), exact (the default with sum-product) or spm", fs.Update)
		}
		s, err := newSoftmax(data)
		if err != nil {
			return nil, fail("values", "%v", trimPrefix(err))
		}
		f, vars = s, append(vars, prec)
	}
	if env != nil && env.emit != nil { // a data set's Gaussian forest (forest.go)
		return nil, env.emit(f, vars)
	}
	fn, err := g.AddFactor(fs.Name, f, vars...)
	if err != nil {
		return nil, fail("", "%v", trimPrefix(err))
	}
	return fn, nil
}

// columnSums checks that every column of a Dirichlet concentration tensor
// (data row-major, shape [K, M1, ...]: the sum over the first axis) sums to
// at most MaxConcentration. The sum is formed the same way as the engine's
// (so a column of 1e308s sums to +Inf and is refused too).
func columnSums(data []float64, shape []int) error {
	k := shape[0]
	m := len(data) / k
	for c := range m {
		var sum float64
		for i := range k {
			sum += data[i*m+c]
		}
		if !(sum <= MaxConcentration) {
			if m == 1 {
				return fmt.Errorf("concentrations sum to %v, want at most %g (model.MaxConcentration: beyond it F is lost to rounding or overflows)", sum, MaxConcentration)
			}
			return fmt.Errorf("column %v sums to %v, want at most %g (model.MaxConcentration: beyond it F is lost to rounding or overflows)", columnIndex(c, shape[1:]), sum, MaxConcentration)
		}
	}
	return nil
}

// columnIndex writes flat column c of the trailing axes shape as "[i j ...]".
func columnIndex(c int, shape []int) []int {
	idx := make([]int, len(shape))
	for a := len(shape) - 1; a >= 0; a-- {
		idx[a] = c % shape[a]
		c /= shape[a]
	}
	return idx
}

// trimPrefix drops the "pkg: " prefixes of errors from arbor packages
// (also of wrapped ones), since the model error already says where the
// fault is.
func trimPrefix(err error) string {
	s := err.Error()
	for _, p := range []string{"ffg: ", "nodes: ", "expfam: ", "messages: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	return s
}

func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// checkName refuses an empty name and one that is unfit to print
// (jsonread.NameFault: control characters, bidirectional overrides; a
// newline in a name would break every line-based output).
func checkName(name string) error {
	if name == "" {
		return errors.New("missing")
	}
	if fault := jsonread.NameFault(name); fault != "" {
		return fmt.Errorf("%q %s", shorten(name), fault)
	}
	return nil
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// indexed returns "name[i]", the field of an item of a list in errors
// (made for every item of a long file, so without fmt).
func indexed(name string, i int) string {
	b := make([]byte, 0, len(name)+12)
	b = append(b, name...)
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(i), 10)
	return string(append(b, ']'))
}
