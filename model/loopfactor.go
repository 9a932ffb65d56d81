package model

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/jsonread"
)

// A factor of a file with a scope (loops.go) is compiled once: every field
// that names a variable or a constant becomes a ref, its index expressions
// compiled against the sizes and the factor's loop indices. Then, per
// value of the loops, the refs to constants put their numbers into a copy
// of the factor's fields, and the factor is built as any other (addFactor's
// buildFactor), its variables looked up through the refs: an element is
// its array's variable at the flat index of its evaluated indices.

// refKind is what a ref names.
type refKind uint8

const (
	refScalar  refKind = iota // a scalar variable
	refElem                   // an element of an array variable
	refConst                  // a data constant, whole or a part (a number or a sub-array)
	refUnknown                // nothing: buildFactor reports it as an unknown variable
)

// ref is a compiled name: "r", "x[t-1]", "X[n,k]", "P[n]".
type ref struct {
	text string
	kind refKind
	v    *ffg.Variable
	arr  *array
	con  *constant
	idx  []*program

	// For a data set's Gaussian forest (forest.go), an element's stand-in
	// variable and the flat index it stood for last.
	standIn *ffg.Variable
	k       int
}

// refRole is what a field takes.
type refRole uint8

const (
	roleVar         refRole = iota // a variable: out, in, switch, mean.of
	roleVarOrNumber                // mean, precision, means[j], precisions[j]
	roleVarOrTensor                // p, matrix
	roleNumber                     // shape, rate, mean.scale, mean.offset
	roleTensor                     // alpha, values
)

// numSlot is a field whose text names a constant: per loop value its
// numbers go into the factor's copy.
type numSlot struct {
	sub       string
	r         *ref
	dst       *jsonValue // the field in the copy (nil for precision)
	precision bool       // the field is "precision" (a string in factorSpec)
	t         *jsonread.Tensor
	n         int // the numbers of the part: the product of the constant's extents past the indices
}

// loopFactor is a file factor compiled against a scope.
type loopFactor struct {
	sc     *scope
	g      *ffg.Graph
	fs     factorSpec // as read
	levels []loopLevel
	vals   []int64 // the loop values (by level)
	refs   []*ref
	slots  []numSlot
	cur    *factorSpec // the copy built at each loop value
	means  []jsonValue // the copy's means and precisions, when a slot writes into them
	precs  []jsonValue
	failed bool // a ref reported the error at hand (it names the loop values itself)

	// The terms of the mean's sum (termloops.go), and the copy's terms
	// at the loop values.
	terms   []loopTerm
	termBuf []jsonTerm
	tvals   []int64

	normal normalCache     // the node of the last index (normal.go)
	vars   []*ffg.Variable // buildFactor's buffer of the factor's variables

	// emit, when set, takes each factor built in place of the graph
	// (forest.go): its variables are then the refs' stand-ins.
	emit func(f ffg.Factor, vars []*ffg.Variable) error
}

// normalCache returns the factor's cache of Normal nodes (nil without a
// loop factor).
func (lf *loopFactor) normalCache() *normalCache {
	if lf == nil {
		return nil
	}
	return &lf.normal
}

// splitRef splits "x[t-1, k]" into "x" and the index texts; ok is false
// when the text has no brackets.
func splitRef(text string) (base string, idx []string, ok bool) {
	i := strings.IndexByte(text, '[')
	if i < 0 || !strings.HasSuffix(text, "]") {
		return text, nil, false
	}
	return text[:i], strings.Split(text[i+1:len(text)-1], ","), true
}

// compileFactor compiles the fields of fs (field names it in errors, with
// its node) against the scope and the loops of file factor i.
func (sc *scope) compileFactor(g *ffg.Graph, fs factorSpec, i int, field string) (*loopFactor, error) {
	lf := &loopFactor{sc: sc, g: g, fs: fs, levels: sc.loops[i], cur: new(factorSpec)}
	lf.vals = make([]int64, len(lf.levels))
	nm := names{sizes: sc.names.sizes, sizeOrd: sc.names.sizeOrd}
	for _, l := range lf.levels {
		nm.indices = append(nm.indices, l.index)
	}
	fail := func(sub, format string, args ...any) error {
		return &Error{File: sc.file, Field: field + "." + sub, Err: fmt.Errorf(format, args...)}
	}
	// add compiles the text of field sub (once per text) and, for a
	// constant where numbers go, adds a slot.
	add := func(sub, text string, role refRole, dst *jsonValue) error {
		if text == "" {
			return nil
		}
		var r *ref
		for _, o := range lf.refs {
			if o.text == text {
				r = o
			}
		}
		if r == nil {
			var err error
			if r, err = sc.compileRef(g, text, &nm); err != nil {
				return fail(sub, "%v", err)
			}
			lf.refs = append(lf.refs, r)
		}
		if r.kind != refConst {
			return nil
		}
		if role == roleVar {
			return fail(sub, "%q is a data constant, want a variable", shorten(text))
		}
		s := numSlot{sub: sub, r: r, dst: dst, precision: dst == nil, t: &jsonread.Tensor{Depth: 0, NumAt: -1}, n: 1}
		for _, e := range r.con.shape[len(r.idx):] {
			s.t.First = append(s.t.First, &jsonread.Array{Len: e})
			s.t.Depth++
			s.n *= e
		}
		lf.slots = append(lf.slots, s)
		return nil
	}
	var dotOf string
	if fs.Mean.dot != nil { // its "with" is written per loop value: a copy of its own
		d := *fs.Mean.dot
		lf.fs.Mean.dot, dotOf = &d, d.of
	}
	c := lf.cur
	*c = lf.fs
	var err error
	for _, f := range []struct {
		sub  string
		text string
		role refRole
		dst  *jsonValue
	}{
		{"out", fs.Out, roleVar, nil},
		{"switch", fs.Switch, roleVar, nil},
		{"mean.of", fs.Mean.of, roleVar, nil},
		{"precision", fs.Precision, roleVarOrNumber, nil},
		{"p", valueName(fs.P), roleVarOrTensor, &c.P},
		{"matrix", valueName(fs.Matrix), roleVarOrTensor, &c.Matrix},
		{"alpha", valueName(fs.Alpha), roleTensor, &c.Alpha},
		{"values", valueName(fs.Values), roleTensor, &c.Values},
		{"shape", valueName(fs.Shape), roleNumber, &c.Shape},
		{"rate", valueName(fs.Rate), roleNumber, &c.Rate},
		{"mean", valueName(fs.Mean.v), roleVarOrNumber, &c.Mean.v},
		{"mean.scale", valueName(fs.Mean.scale), roleNumber, &c.Mean.scale},
		{"mean.offset", valueName(fs.Mean.offset), roleNumber, &c.Mean.offset},
		{"mean.dot.of", dotOf, roleVar, nil},
	} {
		if err = add(f.sub, f.text, f.role, f.dst); err != nil {
			return nil, err
		}
	}
	if dotOf != "" {
		if err = add("mean.dot.with", valueName(lf.fs.Mean.dot.with), roleTensor, &lf.fs.Mean.dot.with); err != nil {
			return nil, err
		}
	}
	for j, name := range fs.In {
		if err = add(fmt.Sprintf("in[%d]", j), name, roleVar, nil); err != nil {
			return nil, err
		}
	}
	for _, l := range []struct {
		sub     string
		items   []jsonValue
		scratch *[]jsonValue
	}{{"means", fs.Means.items, &lf.means}, {"precisions", fs.Precisions.items, &lf.precs}} {
		copied := append([]jsonValue(nil), l.items...)
		before := len(lf.slots)
		for j := range copied {
			if err = add(fmt.Sprintf("%s[%d]", l.sub, j), valueName(l.items[j]), roleVarOrNumber, &copied[j]); err != nil {
				return nil, err
			}
		}
		if len(lf.slots) > before {
			*l.scratch = copied
		}
	}
	if err := lf.compileTerms(i, field); err != nil {
		return nil, err
	}
	return lf, nil
}

// valueName returns the text of a field given as a string ("" otherwise).
func valueName(v jsonValue) string {
	if v.name != nil {
		return *v.name
	}
	return ""
}

// compileRef compiles the name text: a scalar variable, an element of an
// array ("x[t-1]"), a constant or a part of one ("X[n,k]", "P[n]", "P"),
// or nothing known (refUnknown, left for buildFactor to report).
func (sc *scope) compileRef(g *ffg.Graph, text string, nm *names) (*ref, error) {
	if v, ok := g.Variable(text); ok {
		return &ref{text: text, kind: refScalar, v: v}, nil
	}
	base, idx, ok := splitRef(text)
	arr, isArr := sc.arrays[base]
	con, isConst := sc.consts[base]
	switch {
	case !ok && isArr:
		return nil, fmt.Errorf("%q is an array of size %v: name one element, such as %s[%s]", shorten(text), arr.dims, shorten(text), strings.TrimSuffix(strings.Repeat("0,", len(arr.dims)), ","))
	case !ok && isConst:
		return &ref{text: text, kind: refConst, con: con}, nil
	case !ok || (!isArr && !isConst):
		if _, scalar := g.Variable(base); ok && scalar {
			return nil, fmt.Errorf("%q: %q is a variable, not an array", shorten(text), shorten(base))
		}
		return &ref{text: text, kind: refUnknown}, nil
	}
	var r *ref
	var rank int
	if isArr {
		r, rank = &ref{text: text, kind: refElem, arr: arr}, len(arr.dims)
	} else {
		r, rank = &ref{text: text, kind: refConst, con: con}, len(con.shape)
	}
	switch {
	case isArr && len(idx) != rank:
		return nil, fmt.Errorf("%q: %d indices for an array of %d dimensions (size %v)", shorten(text), len(idx), rank, arr.dims)
	case isConst && len(idx) > rank:
		return nil, fmt.Errorf("%q: %d indices for a constant of %d dimensions (shape %v)", shorten(text), len(idx), rank, con.shape)
	}
	for _, s := range idx {
		e, err := parseExpr(s)
		if err != nil {
			return nil, fmt.Errorf("%q: index %q: %v", shorten(text), shorten(strings.TrimSpace(s)), err)
		}
		p, err := compile(e, nm)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", shorten(text), err)
		}
		r.idx = append(r.idx, p)
	}
	return r, nil
}

// at returns the flat index of r's indices at the loop values (for a
// constant, of the first number of the part).
func (lf *loopFactor) at(r *ref) (int, error) {
	return lf.atIn(r, lf.levels, lf.vals)
}

// atIn is at for the loops levels at vals (a term's: its factor's, then
// its own).
func (lf *loopFactor) atIn(r *ref, levels []loopLevel, vals []int64) (int, error) {
	var dims, str []int
	if r.kind == refElem {
		dims, str = r.arr.dims, r.arr.strides
	} else {
		dims, str = r.con.shape, r.con.strides
	}
	flat := 0
	for j, p := range r.idx {
		x, err := p.eval(vals)
		if err == nil && (x < 0 || x >= int64(dims[j])) {
			err = fmt.Errorf("index %d out of [0, %d)", x, dims[j])
			if len(dims) > 1 {
				err = fmt.Errorf("%v in dimension %d", err, j+1)
			}
		}
		if err != nil {
			lf.failed = true
			if len(levels) > 0 {
				return 0, fmt.Errorf("%s with %s: %v", shorten(r.text), loopValues(levels, vals), err)
			}
			return 0, fmt.Errorf("%s: %v", shorten(r.text), err)
		}
		flat += int(x) * str[j]
	}
	return flat, nil
}

// variable looks a variable up by the text of a field, at the loop values.
func (lf *loopFactor) variable(name string) (*ffg.Variable, error) {
	for _, r := range lf.refs {
		if r.text != name {
			continue
		}
		switch r.kind {
		case refScalar:
			return r.v, nil
		case refElem:
			k, err := lf.at(r)
			if err != nil {
				return nil, err
			}
			if r.standIn != nil {
				r.k = k
				return r.standIn, nil
			}
			return r.arr.vars[k], nil
		case refConst:
			return nil, fmt.Errorf("%q is a data constant, want a variable", shorten(name))
		}
		break
	}
	if v, ok := lf.g.Variable(name); ok {
		return v, nil
	}
	return nil, fmt.Errorf("unknown variable %q", name)
}

// prepare makes the factor's copy for the loop values: the numbers of the
// constants in their fields. field names the factor (with its node).
func (lf *loopFactor) prepare(field string) error {
	c := lf.cur
	*c = lf.fs
	if lf.means != nil {
		c.Means.items = lf.means
	}
	if lf.precs != nil {
		c.Precisions.items = lf.precs
	}
	for i := range lf.slots {
		s := &lf.slots[i]
		k, err := lf.at(s.r)
		if err != nil {
			return &Error{File: lf.sc.file, Field: field + "." + s.sub, Err: err}
		}
		s.t.Data = s.r.con.data[k : k+s.n]
		v := jsonValue{set: true, t: s.t}
		if s.precision {
			c.Precision, c.PrecisionNum = "", v
		} else {
			*s.dst = v
		}
	}
	if lf.terms != nil {
		return lf.expandTerms(field)
	}
	return nil
}

// addFactors adds the factors of file factor i, one per value of its
// loops (one when it has none). field names it (without its node); names
// holds the factor names so far.
func (sc *scope) addFactors(m *Model, fs factorSpec, i int, field string, sumProduct bool, names map[string]bool) error {
	nodeField, err := checkFactor(fs, field, nil)
	if err != nil {
		return withFile(sc.file, err)
	}
	if m.loops != nil {
		m.loops.firstFactor = append(m.loops.firstFactor, len(m.Factors))
	}
	lf, err := sc.compileFactor(m.Graph, fs, i, nodeField)
	if err != nil {
		return err
	}
	var nameBuf []byte
	err = walk(lf.levels, lf.vals, field+".for", func() error {
		lf.failed = false
		if err := lf.prepare(nodeField); err != nil {
			return err
		}
		if fs.Name != "" && len(lf.levels) > 0 {
			nameBuf = append(nameBuf[:0], fs.Name...)
			nameBuf = append(nameBuf, '[')
			for d, v := range lf.vals {
				if d > 0 {
					nameBuf = append(nameBuf, ',')
				}
				nameBuf = strconv.AppendInt(nameBuf, v, 10)
			}
			lf.cur.Name = string(append(nameBuf, ']'))
			if names[lf.cur.Name] {
				return &Error{File: sc.file, Field: field + ".name", Err: fmt.Errorf("duplicate factor name %q", lf.cur.Name)}
			}
		}
		fn, err := buildFactor(m.Graph, *lf.cur, nodeField, sumProduct, lf, lf.normalCache())
		if err != nil {
			var me *Error
			if !lf.failed && len(lf.levels) > 0 && errors.As(err, &me) {
				me.Err = fmt.Errorf("%w (with %s)", me.Err, loopValues(lf.levels, lf.vals))
			}
			return withFile(sc.file, err)
		}
		if lf.cur.Name != "" {
			names[lf.cur.Name] = true
		}
		m.Factors = append(m.Factors, fn)
		m.factorFields = append(m.factorFields, nodeField)
		return nil
	})
	if err != nil {
		return withFile(sc.file, err)
	}
	return nil
}
