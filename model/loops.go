package model

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/jsonread"
)

// Sizes, arrays, data constants and loops (docs/formats.md, "Sizes,
// arrays and loops"). A file that uses none of them is built as before,
// without a scope. Otherwise Parse makes a scope first: the sizes, the
// constants, every array's extents and every factor's loops compiled, and
// the variables and factors the file would make counted against MaxItems,
// all before anything is built. Then an array variable adds its elements,
// named "x[0]", "x[1,2]", one scalar variable each; and a factor compiles
// its fields once (the names it refers to, with their index expressions)
// and adds one factor per value of its loops, looking each element up by
// its array and flat index.

// MaxItems caps the variables and factors of a model file once its arrays
// and loops are expanded (an array of T elements counts T, a factor with
// loops one per loop value). Parse counts them before it builds anything
// and refuses a file over the cap, with the count in the message. The
// entries of all the variables together stay capped by MaxElements.
const MaxItems = 10_000_000

// itemLimit is MaxItems, lowered by the fuzz tests (which would otherwise
// build models of millions of variables).
var itemLimit int64 = MaxItems

// scope is what a file's arrays and loops may refer to.
type scope struct {
	file   string
	names  names // the sizes
	consts map[string]*constant
	arrays map[string]*array
	dims   [][]int         // per file variable: its extents (nil: a scalar)
	loops  [][]loopLevel   // per file factor: its loops (nil: none)
	terms  [][][]loopLevel // per file factor, per term of its mean's sum: the term's loops (nil: none; termloops.go)

	nVars, nFactors int   // the variables and factors the file makes
	pairs           int64 // the pairs of terms of the sums built so far (termloops.go)

	skipObserved map[string]bool // arrays whose observed values a data set gives (dataarrays.go)
}

// constant is an array of numbers of "data".
type constant struct {
	data    []float64
	shape   []int
	strides []int
}

// array is an array variable: its elements, row-major.
type array struct {
	name    string
	dims    []int
	strides []int
	vars    []*ffg.Variable

	// For a data set's Gaussian forest (forest.go), which holds no
	// variables: the elements' family and shape, and the first one's
	// position among the model's variables.
	fam   expfam.Family
	shape []int
	first int
}

// loopLevel is one loop of a factor: its index and range, compiled (the
// range may use the enclosing indices).
type loopLevel struct {
	index, text string
	lo, hi      *program
}

// strides returns the row-major strides of shape.
func strides(shape []int) []int {
	s := make([]int, len(shape))
	n := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = n
		n *= shape[i]
	}
	return s
}

// usesLoops reports whether the file declares sizes, constants, arrays or
// loops.
func usesLoops(spec *modelJSON) bool {
	if spec.sizes != nil || spec.data != nil {
		return true
	}
	for _, vs := range spec.variables {
		if vs.Size != nil {
			return true
		}
	}
	for i := range spec.factors.len() {
		fs := spec.factors.at(i)
		if fs.For != nil {
			return true
		}
		for _, t := range fs.Mean.sum.terms {
			if t.loops != nil {
				return true
			}
		}
	}
	return false
}

// satAdd adds counts, saturating at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// satMul multiplies counts >= 0, saturating at math.MaxInt64.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// variableFieldOf names file variable i in errors.
func variableFieldOf(i int, name string) string {
	return fmt.Sprintf("variables[%d] (%q)", i, name)
}

// factorFieldOf names file factor i in errors, before its node is known.
func factorFieldOf(i int, fs factorSpec) string {
	if fs.Name != "" {
		return fmt.Sprintf("factors[%d] (%q)", i, fs.Name)
	}
	return fmt.Sprintf("factors[%d]", i)
}

// newScope reads the sizes, the constants, the arrays' extents and the
// factors' loops of spec, and counts the variables and factors the file
// makes. It returns nil for a file without sizes, constants, arrays or
// loops.
func newScope(file string, spec *modelJSON, override *sizeSet) (*scope, error) {
	if !usesLoops(spec) {
		return nil, nil
	}
	sc := &scope{file: file, names: names{sizes: map[string]int64{}}, consts: map[string]*constant{}, arrays: map[string]*array{},
		dims: make([][]int, len(spec.variables)), loops: make([][]loopLevel, spec.factors.len()), terms: make([][][]loopLevel, spec.factors.len())}
	fail := func(field string, format string, args ...any) error {
		return &Error{File: file, Field: field, Err: fmt.Errorf(format, args...)}
	}
	if override != nil {
		sc.skipObserved = override.skip
	}
	for _, s := range spec.sizes {
		sc.names.sizes[s.name] = int64(s.n)
		if n, ok := override.get(s.name); ok {
			sc.names.sizes[s.name] = int64(n)
		}
		sc.names.sizeOrd = append(sc.names.sizeOrd, s.name)
	}
	for _, de := range spec.data {
		field := "data." + key(de.name)
		if _, ok := sc.names.sizes[de.name]; ok {
			return nil, fail(field, "%q is also a size (a name is a size, a constant or a variable)", de.name)
		}
		if de.t.Null {
			return nil, fail(field, "want an array of numbers, got null")
		}
		data, shape, err := tensorNumbers(de.t, field)
		if err != nil {
			return nil, &Error{File: file, Err: err}
		}
		if len(shape) == 0 {
			return nil, fail(field, "want an array of numbers, got a number")
		}
		sc.consts[de.name] = &constant{data: data, shape: shape, strides: strides(shape)}
	}
	var items int64 // the variables and factors so far
	crossed := ""   // the field of the first one over MaxItems
	for i, vs := range spec.variables {
		n := int64(1)
		if vs.Size != nil {
			field := variableFieldOf(i, vs.Name) + ".size"
			dims := make([]int, len(vs.Size))
			for j, e := range vs.Size {
				sub := field
				if len(vs.Size) > 1 {
					sub = fmt.Sprintf("%s[%d]", field, j)
				}
				if e.expr == "" {
					dims[j] = e.n
					n = satMul(n, int64(e.n))
					continue
				}
				x, err := sc.constantExpr(e.expr)
				if err != nil {
					return nil, fail(sub, "%q: %v", shorten(e.expr), err)
				}
				if x < 0 {
					return nil, fail(sub, "%s = %d, want a whole number >= 0", shorten(e.expr), x)
				}
				dims[j] = int(x)
				n = satMul(n, x)
			}
			sc.dims[i] = dims
			if items = satAdd(items, n); items > itemLimit && crossed == "" {
				crossed = field
			}
			continue
		}
		if items++; items > itemLimit && crossed == "" {
			crossed = variableFieldOf(i, vs.Name)
		}
	}
	sc.nVars = int(min(items, itemLimit))
	var factors int64
	what := "variables and factors"
	for i := range spec.factors.len() {
		fs := spec.factors.at(i)
		n := int64(1)
		field := factorFieldOf(i, fs)
		if fs.For != nil {
			field += ".for"
			levels, err := sc.compileLoops(fs.For, field, nil)
			if err != nil {
				return nil, err
			}
			sc.loops[i] = levels
			cn, cerr := countLoops(levels, field)
			if cerr != nil {
				cerr.File = file
				return nil, cerr
			}
			n = cn
		}
		factors = satAdd(factors, n)
		if items = satAdd(items, n); items > itemLimit && crossed == "" {
			crossed = field
		}
		// The terms of a sum with loops count too, one per value of the
		// factor's loops and theirs.
		for j, t := range fs.Mean.sum.terms {
			if t.loops == nil {
				continue
			}
			tf := fmt.Sprintf("%s.mean.sum[%d].for", factorFieldOf(i, fs), j)
			levels, err := sc.compileLoops(t.loops, tf, sc.loops[i])
			if err != nil {
				return nil, err
			}
			if sc.terms[i] == nil {
				sc.terms[i] = make([][]loopLevel, len(fs.Mean.sum.terms))
			}
			sc.terms[i][j] = levels
			cn, cerr := countLoops(append(append([]loopLevel(nil), sc.loops[i]...), levels...), tf)
			if cerr != nil {
				cerr.File = file
				return nil, cerr
			}
			what = "variables, factors and sum terms"
			if items = satAdd(items, cn); items > itemLimit && crossed == "" {
				crossed = tf
			}
		}
	}
	sc.nFactors = int(min(factors, itemLimit))
	if crossed != "" {
		count := thousands(items)
		if items == math.MaxInt64 {
			count = "more than " + thousands(math.MaxInt64)
		}
		return nil, fail(crossed, "the model would have %s %s once its arrays and loops are expanded, more than the limit of %s (model.MaxItems)", count, what, thousands(itemLimit))
	}
	return sc, nil
}

// loopValuesOf writes " with t = 5", the loop values of the factor at
// position i of m.Factors, "" for a factor without loops.
func (m *Model) loopValuesOf(i int) string {
	if m.loops == nil || len(m.loops.firstFactor) == 0 {
		return ""
	}
	first := m.loops.firstFactor
	j := sort.Search(len(first), func(j int) bool { return first[j] > i }) - 1
	if j < 0 || j >= len(m.loops.scope.loops) || len(m.loops.scope.loops[j]) == 0 {
		return ""
	}
	levels := m.loops.scope.loops[j]
	vals := make([]int64, len(levels))
	k, out := i-first[j], ""
	_ = walk(levels, vals, "", func() error {
		if k == 0 {
			out = " with " + loopValues(levels, vals)
			return errStop
		}
		k--
		return nil
	})
	return out
}

// withFile returns err as an *Error of file: err itself when it is one
// (the fault of a field), else an *Error without a field whose message
// names it.
func withFile(file string, err error) error {
	var me *Error
	if errors.As(err, &me) {
		me.File = file
		return me
	}
	return &Error{File: file, Err: err}
}

// thousands writes n with commas: 10,000,000.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// constantExpr evaluates an expression of sizes.
func (sc *scope) constantExpr(text string) (int64, error) {
	e, err := parseExpr(text)
	if err != nil {
		return 0, err
	}
	p, err := compile(e, &sc.names)
	if err != nil {
		return 0, err
	}
	return p.eval(nil)
}

// compileLoops compiles the loops of a factor's "for" (field), or of a
// term's inside the loops outer of its factor (their indices come first,
// in the slots before the term's).
func (sc *scope) compileLoops(loops []loopSpec, field string, outer []loopLevel) ([]loopLevel, error) {
	nm := names{sizes: sc.names.sizes, sizeOrd: sc.names.sizeOrd}
	for _, l := range outer {
		nm.indices = append(nm.indices, l.index)
	}
	levels := make([]loopLevel, 0, len(loops))
	for _, l := range loops {
		sub := field + "." + key(l.index)
		fail := func(format string, args ...any) error {
			return &Error{File: sc.file, Field: sub, Err: fmt.Errorf(format, args...)}
		}
		if _, ok := sc.names.sizes[l.index]; ok {
			return nil, fail("%q is a size; give the loop index a name of its own", l.index)
		}
		if nm.slot(l.index) >= 0 {
			return nil, fail("%q is a loop index of the factor; give the term's index a name of its own", l.index)
		}
		lo, hi, err := parseRange(l.rng)
		if err != nil {
			return nil, fail("%q: %v", shorten(l.rng), err)
		}
		plo, err := compile(lo, &nm)
		if err == nil {
			var phi *program
			if phi, err = compile(hi, &nm); err == nil {
				levels = append(levels, loopLevel{index: l.index, text: l.rng, lo: plo, hi: phi})
			}
		}
		if err != nil {
			return nil, fail("%q: %v", shorten(l.rng), err)
		}
		nm.indices = append(nm.indices, l.index)
	}
	return levels, nil
}

// loopValues writes the loop values: "t = 3, k = 0".
func loopValues(levels []loopLevel, vals []int64) string {
	var b []byte
	for d, l := range levels {
		if d > 0 {
			b = append(b, ", "...)
		}
		b = append(b, l.index...)
		b = append(b, " = "...)
		b = strconv.AppendInt(b, vals[d], 10)
	}
	return string(b)
}

// bounds evaluates the range of loop d at the values of the loops
// around it; field names the loops in errors.
func bounds(levels []loopLevel, vals []int64, d int, field string) (int64, int64, *Error) {
	lo, err := levels[d].lo.eval(vals)
	var hi int64
	if err == nil {
		hi, err = levels[d].hi.eval(vals)
	}
	if err != nil {
		at := fmt.Sprintf("%q", shorten(levels[d].text))
		if d > 0 {
			at += " with " + loopValues(levels[:d], vals)
		}
		return 0, 0, &Error{Field: field + "." + key(levels[d].index), Err: fmt.Errorf("%s: %v", at, err)}
	}
	return lo, hi, nil
}

// countLoops counts the factors a loop nest makes. A loop whose inner
// ranges do not use its index counts as its length times the count of one
// of its values; other loops are walked (at most MaxItems steps: a nest
// whose outer loops take more is over the cap whatever it makes).
func countLoops(levels []loopLevel, field string) (int64, *Error) {
	return countFrom(levels, make([]int64, len(levels)), 0, field)
}

// countFrom counts the values of the loops from level d on, the loops
// before at vals.
func countFrom(levels []loopLevel, vals []int64, d int, field string) (int64, *Error) {
	var steps int64
	var rec func(d int) (int64, *Error)
	rec = func(d int) (int64, *Error) {
		if d == len(levels) {
			return 1, nil
		}
		lo, hi, err := bounds(levels, vals, d, field)
		if err != nil || hi < lo {
			return 0, err
		}
		length := int64(math.MaxInt64)
		if k := uint64(hi) - uint64(lo); k < math.MaxInt64 {
			length = int64(k) + 1
		}
		if !usesSlot(levels[d+1:], d) {
			vals[d] = lo
			n, err := rec(d + 1)
			return satMul(length, n), err
		}
		var n int64
		for v := lo; ; v++ {
			if steps++; steps > itemLimit {
				return math.MaxInt64, nil
			}
			vals[d] = v
			m, err := rec(d + 1)
			if err != nil {
				return 0, err
			}
			if n = satAdd(n, m); n == math.MaxInt64 || v == hi {
				return n, nil
			}
		}
	}
	return rec(d)
}

// usesSlot reports whether a range of levels reads slot s.
func usesSlot(levels []loopLevel, s int) bool {
	for _, l := range levels {
		for _, p := range []*program{l.lo, l.hi} {
			for _, o := range p.ops {
				if o.code == opSlot && o.n == int64(s) {
					return true
				}
			}
		}
	}
	return false
}

// walk calls f once per value of the loops (in vals), the first loop
// outermost.
func walk(levels []loopLevel, vals []int64, field string, f func() error) error {
	return walkFrom(levels, vals, 0, field, f)
}

// walkFrom is walk of the loops from level from on, those before at vals.
func walkFrom(levels []loopLevel, vals []int64, from int, field string, f func() error) error {
	var rec func(d int) error
	rec = func(d int) error {
		if d == len(levels) {
			return f()
		}
		lo, hi, berr := bounds(levels, vals, d, field)
		if berr != nil {
			return berr
		}
		if hi < lo {
			return nil
		}
		if d+1 < len(levels) && !usesSlot(levels[d+1:], d) {
			// The inner loops are the same for every value: none at all
			// makes this loop's values empty too (they could be many).
			vals[d] = lo
			n, err := countFrom(levels, vals, d+1, field)
			if err != nil {
				return err
			}
			if n == 0 {
				return nil
			}
		}
		for v := lo; ; v++ {
			vals[d] = v
			if err := rec(d + 1); err != nil {
				return err
			}
			if v == hi {
				return nil
			}
		}
	}
	return rec(from)
}

// checkVariableName refuses a variable's name that is also a size or a constant,
// and an array's name that would not read back in "x[i]".
func (sc *scope) checkVariableName(i int, vs varSpec) error {
	field := variableFieldOf(i, vs.Name) + ".name"
	if _, ok := sc.names.sizes[vs.Name]; ok {
		return &Error{File: sc.file, Field: field, Err: fmt.Errorf("%q is also a size (a name is a size, a constant or a variable)", vs.Name)}
	}
	if _, ok := sc.consts[vs.Name]; ok {
		return &Error{File: sc.file, Field: field, Err: fmt.Errorf("%q is also a data constant (a name is a size, a constant or a variable)", vs.Name)}
	}
	if vs.Size != nil && strings.ContainsAny(vs.Name, "[],") {
		return &Error{File: sc.file, Field: field, Err: fmt.Errorf("%q: an array's name cannot hold [, ] or , (its elements are named %s[0], ...)", vs.Name, vs.Name)}
	}
	return nil
}

// extentText describes extent j of file variable vs for errors: its size's
// expression, or the number.
func extentText(vs varSpec, j int) string {
	if e := vs.Size[j]; e.expr != "" {
		return fmt.Sprintf("size %s", e.expr)
	}
	return "the variable's size"
}

// addArray adds the elements of array variable i (its checks of family and
// shape done): each a variable named "x[i]" or "x[i,j]", row-major, with
// its observed value.
func (sc *scope) addArray(m *Model, i int, vs varSpec, fam expfam.Family) error {
	g := m.Graph
	field := variableFieldOf(i, vs.Name)
	fail := func(sub string, format string, args ...any) error {
		return &Error{File: sc.file, Field: field + sub, Err: fmt.Errorf(format, args...)}
	}
	dims := sc.dims[i]
	count := 1
	for _, d := range dims {
		count *= d
	}
	oa := vs.ObservedArr
	if sc.skipObserved[vs.Name] {
		oa = nil
	}
	if m.loops != nil {
		k := 0
		if len(vs.Shape) > 0 {
			k = vs.Shape[0]
		}
		m.loops.arrays[vs.Name] = &arrayInfo{first: len(m.Variables), dims: dims, extents: vs.Size, fam: fam, k: k}
	}
	if oa != nil {
		if err := oa.err(field + ".observed"); err != nil {
			return withFile(sc.file, err)
		}
		if fam != expfam.CategoricalFamily && fam != expfam.NormalFamily && fam != expfam.MvNormalFamily {
			return fail(".observed", "only categorical, normal and mvnormal variables can be observed")
		}
		// The nesting must be the size: the first array at each depth
		// (all have its length) down to an empty one.
		for j, d := range dims {
			got := 0
			if j < len(oa.shape) {
				got = oa.shape[j]
			}
			if got != d {
				return fail(".observed"+jsonread.Indices(make([]int, j)), "%d entries, want %d (%s)", got, d, extentText(vs, j))
			}
			if d == 0 {
				break
			}
		}
	}
	a := &array{name: vs.Name, dims: dims, strides: strides(dims), vars: make([]*ffg.Variable, 0, count)}
	idx := make([]int, len(dims))
	names, ends := arrayNames(vs.Name, dims, count)
	for k := range count {
		name := names[ends[k]:ends[k+1]]
		v, err := g.AddVariable(name, fam, vs.Shape...)
		if err != nil {
			if _, dup := g.Variable(name); dup {
				return fail(".name", "element %q has the name of another variable", name)
			}
			return fail("", "%v", trimPrefix(err))
		}
		ev := Evidence{Index: -1}
		if oa != nil && oa.kind[k] != obsNone {
			// The element's field, written only for an error.
			bad := func(format string, args ...any) error {
				return fail(".observed"+jsonread.Indices(idx), format, args...)
			}
			switch {
			case fam == expfam.MvNormalFamily && oa.kind[k] == obsNumber:
				return bad("want an array of %d numbers (an mvnormal variable's value), got a number", vs.Shape[0])
			case fam == expfam.MvNormalFamily:
				if ev.Probs, err = observeVector(v, oa.tensor(k), field+".observed"+jsonread.Indices(idx)); err != nil {
					return withFile(sc.file, err)
				}
			case oa.kind[k] == obsNumber && fam == expfam.NormalFamily:
				if err := v.ObserveValue(oa.num[k]); err != nil {
					return bad("%v", trimPrefix(err))
				}
				ev.Value = &oa.num[k]
			case oa.kind[k] == obsNumber:
				x := oa.num[k]
				if x != math.Trunc(x) || x < 0 || x >= float64(vs.Shape[0]) {
					return bad("index %v out of range [0, %d)", x, vs.Shape[0])
				}
				_ = v.Observe(int(x))
				ev.Index, ev.Value = int(x), &oa.num[k]
			case fam == expfam.NormalFamily:
				return bad("want a number (a normal variable's value), got an array")
			default:
				vals, shape, err := tensorNumbers(oa.tensor(k), field+".observed"+jsonread.Indices(idx))
				if err != nil {
					return &Error{File: sc.file, Err: err}
				}
				if len(shape) != 1 {
					return bad("want an index or a probability vector, got shape %v", shape)
				}
				if err := v.ObserveSoft(vals); err != nil {
					return bad("%v", trimPrefix(err))
				}
				ev.Probs = append([]float64(nil), vals...)
			}
		}
		a.vars = append(a.vars, v)
		m.Variables = append(m.Variables, v)
		m.evidence.add(ev)
		m.varFile = append(m.varFile, int32(i))
		for j := len(idx) - 1; j >= 0; j-- {
			if idx[j]++; idx[j] < dims[j] {
				break
			}
			idx[j] = 0
		}
	}
	sc.arrays[vs.Name] = a
	return nil
}

// arrayNames writes the names of an array's count elements, "x[0]",
// "x[1]", ... ("X[0,0]", "X[0,1]", ... in two dimensions), into one string:
// element k's name is names[ends[k]:ends[k+1]], so an array of 10^5
// elements costs two allocations for its names, not 10^5.
func arrayNames(base string, dims []int, count int) (names string, ends []int) {
	per := len(base) + 2 + len(dims)*(len(strconv.Itoa(max(count, 1)))+1)
	buf := make([]byte, 0, count*per)
	ends = make([]int, 1, count+1)
	idx := make([]int, len(dims))
	for range count {
		buf = append(buf, base...)
		buf = append(buf, '[')
		for j, x := range idx {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendInt(buf, int64(x), 10)
		}
		buf = append(buf, ']')
		ends = append(ends, len(buf))
		for j := len(idx) - 1; j >= 0; j-- {
			if idx[j]++; idx[j] < dims[j] {
				break
			}
			idx[j] = 0
		}
	}
	return string(buf), ends
}
