// Package model loads the generic model files of `arbor infer` and
// `arbor dot` (DESIGN.md section 5.1) into an ffg.Graph, with every fault
// reported as an error that names the file, the field and what is wrong.
package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// Error is a fault in a model file. Its message is one line:
// "FILE: FIELD: FAULT".
type Error struct {
	File  string
	Field string
	Err   error
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.File, e.Field, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

type fileSpec struct {
	Variables []varSpec     `json:"variables"`
	Factors   []factorSpec  `json:"factors"`
	Settings  *settingsSpec `json:"settings"`
}

type varSpec struct {
	Name     string          `json:"name"`
	Family   string          `json:"family"`
	Shape    []int           `json:"shape"`
	Observed json.RawMessage `json:"observed"`
}

type factorSpec struct {
	Node      string          `json:"node"`
	Out       string          `json:"out"`
	In        []string        `json:"in"`
	P         json.RawMessage `json:"p"`
	Matrix    json.RawMessage `json:"matrix"`
	Alpha     json.RawMessage `json:"alpha"`
	Shape     *float64        `json:"shape"`
	Rate      *float64        `json:"rate"`
	Precision string          `json:"precision"`
	Values    json.RawMessage `json:"values"`
}

type settingsSpec struct {
	Iterations *int     `json:"iterations"`
	Tolerance  *float64 `json:"tolerance"`
}

// Model is a loaded model: its graph, the variables in file order and the
// schedule settings.
type Model struct {
	Graph     *ffg.Graph
	Variables []*ffg.Variable
	Settings  schedule.Settings
}

// Load reads and builds the model file at path.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Err: errors.Unwrap(err)}
	}
	return Parse(path, data)
}

// Parse builds a model from data; name is used in errors.
func Parse(name string, data []byte) (*Model, error) {
	fail := func(field string, format string, args ...any) error {
		return &Error{File: name, Field: field, Err: fmt.Errorf(format, args...)}
	}
	var spec fileSpec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return nil, &Error{File: name, Err: jsonError(data, err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail("", "malformed JSON: data after the top-level object")
	}
	if len(spec.Variables) == 0 {
		return nil, fail("variables", "missing or empty")
	}
	m := &Model{Graph: ffg.New()}
	g := m.Graph
	for i, vs := range spec.Variables {
		field := fmt.Sprintf("variables[%d]", i)
		if vs.Name == "" {
			return nil, fail(field+".name", "missing")
		}
		field = fmt.Sprintf("variables[%d] (%q)", i, vs.Name)
		if _, dup := g.Variable(vs.Name); dup {
			return nil, fail(field+".name", "duplicate variable name %q", vs.Name)
		}
		fam, err := expfam.ParseFamily(vs.Family)
		if err != nil {
			return nil, fail(field+".family", "%v", err)
		}
		if fam != expfam.GammaFamily && len(vs.Shape) == 0 {
			return nil, fail(field+".shape", "missing")
		}
		if fam == expfam.CategoricalFamily && len(vs.Shape) != 1 {
			return nil, fail(field+".shape", "categorical shape %v, want [K]", vs.Shape)
		}
		for j, s := range vs.Shape {
			if s <= 0 || s > 1<<20 {
				return nil, fail(fmt.Sprintf("%s.shape[%d]", field, j), "%d, want 1..%d", s, 1<<20)
			}
		}
		v, err := g.AddVariable(vs.Name, fam, vs.Shape...)
		if err != nil {
			return nil, fail(field, "%v", trimPrefix(err))
		}
		if len(vs.Observed) > 0 && string(vs.Observed) != "null" {
			if fam != expfam.CategoricalFamily {
				return nil, fail(field+".observed", "only categorical variables can be observed")
			}
			vals, shape, err := decodeTensor(vs.Observed, field+".observed")
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
			case len(shape) == 1:
				if err := v.ObserveSoft(vals); err != nil {
					return nil, fail(field+".observed", "%v", trimPrefix(err))
				}
			default:
				return nil, fail(field+".observed", "want an index or a probability vector, got shape %v", shape)
			}
		}
		m.Variables = append(m.Variables, v)
	}
	for i, fs := range spec.Factors {
		if err := addFactor(g, fs, fmt.Sprintf("factors[%d]", i)); err != nil {
			var me *Error
			if errors.As(err, &me) {
				me.File = name
				return nil, me
			}
			return nil, &Error{File: name, Err: err}
		}
	}
	if s := spec.Settings; s != nil {
		if s.Iterations != nil {
			if *s.Iterations < 1 || *s.Iterations > 1_000_000 {
				return nil, fail("settings.iterations", "%d, want 1..1000000", *s.Iterations)
			}
			m.Settings.Iterations = *s.Iterations
		}
		if s.Tolerance != nil {
			if !(*s.Tolerance > 0) || math.IsInf(*s.Tolerance, 0) {
				return nil, fail("settings.tolerance", "%v, want a finite number > 0", *s.Tolerance)
			}
			m.Settings.Tolerance = *s.Tolerance
		}
	}
	return m, nil
}

// used lists, per node kind, the fields it reads; any other field set is an
// error, so that a typo such as "alpha" on a categorical node is caught.
var used = map[string][]string{
	"categorical": {"out", "p"},
	"transition":  {"out", "in", "matrix"},
	"dirichlet":   {"out", "alpha"},
	"gamma":       {"out", "shape", "rate"},
	"softmax":     {"out", "precision", "values"},
}

func setFields(fs factorSpec) []string {
	var out []string
	add := func(name string, set bool) {
		if set {
			out = append(out, name)
		}
	}
	add("out", fs.Out != "")
	add("in", fs.In != nil)
	add("p", len(fs.P) > 0)
	add("matrix", len(fs.Matrix) > 0)
	add("alpha", len(fs.Alpha) > 0)
	add("shape", fs.Shape != nil)
	add("rate", fs.Rate != nil)
	add("precision", fs.Precision != "")
	add("values", len(fs.Values) > 0)
	return out
}

func kinds() string {
	var ks []string
	for k := range used {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

func addFactor(g *ffg.Graph, fs factorSpec, field string) error {
	fail := func(sub, format string, args ...any) error {
		f := field
		if sub != "" {
			f += "." + sub
		}
		return &Error{Field: f, Err: fmt.Errorf(format, args...)}
	}
	if fs.Node == "" {
		return fail("node", "missing")
	}
	allowed, ok := used[fs.Node]
	if !ok {
		return fail("node", "unknown node %q (known: %s)", fs.Node, kinds())
	}
	field = fmt.Sprintf("%s (%s)", field, fs.Node)
	for _, f := range setFields(fs) {
		found := false
		for _, a := range allowed {
			found = found || a == f
		}
		if !found {
			return fail(f, "not a field of a %s node (fields: %s)", fs.Node, strings.Join(allowed, ", "))
		}
	}
	lookup := func(sub, name string) (*ffg.Variable, error) {
		if name == "" {
			return nil, fail(sub, "missing")
		}
		v, ok := g.Variable(name)
		if !ok {
			return nil, fail(sub, "unknown variable %q", name)
		}
		return v, nil
	}
	out, err := lookup("out", fs.Out)
	if err != nil {
		return err
	}
	var f ffg.Factor
	vars := []*ffg.Variable{out}
	switch fs.Node {
	case "categorical":
		if len(fs.P) == 0 {
			return fail("p", "missing")
		}
		var name string
		if json.Unmarshal(fs.P, &name) == nil {
			p, err := lookup("p", name)
			if err != nil {
				return err
			}
			if out.Family() != expfam.CategoricalFamily {
				return fail("out", "variable %q is %s, want categorical", fs.Out, out.Family())
			}
			c, err := nodes.NewCategoricalDirichlet(out.Shape()[0])
			if err != nil {
				return fail("", "%v", trimPrefix(err))
			}
			f, vars = c, append(vars, p)
			break
		}
		p, shape, err := decodeTensor(fs.P, field+".p")
		if err != nil {
			return &Error{Err: err}
		}
		if len(shape) != 1 {
			return fail("p", "want a variable name or a probability vector, got shape %v", shape)
		}
		c, err := nodes.NewCategorical(p)
		if err != nil {
			return fail("p", "%v", trimPrefix(err))
		}
		f = c
	case "transition":
		if len(fs.In) == 0 {
			return fail("in", "missing: a transition needs at least one parent")
		}
		shape := []int{0}
		if out.Family() == expfam.CategoricalFamily {
			shape[0] = out.Shape()[0]
		}
		for j, name := range fs.In {
			v, err := lookup(fmt.Sprintf("in[%d]", j), name)
			if err != nil {
				return err
			}
			if v.Family() != expfam.CategoricalFamily {
				return fail(fmt.Sprintf("in[%d]", j), "variable %q is %s, want categorical", name, v.Family())
			}
			vars = append(vars, v)
			shape = append(shape, v.Shape()[0])
		}
		if out.Family() != expfam.CategoricalFamily {
			return fail("out", "variable %q is %s, want categorical", fs.Out, out.Family())
		}
		if len(fs.Matrix) == 0 {
			return fail("matrix", "missing")
		}
		var name string
		if json.Unmarshal(fs.Matrix, &name) == nil {
			mv, err := lookup("matrix", name)
			if err != nil {
				return err
			}
			if mv.Family() != expfam.DirichletFamily {
				return fail("matrix", "variable %q is %s, want dirichlet", name, mv.Family())
			}
			if !equalInts(mv.Shape(), shape) {
				return fail("matrix", "variable %q has shape %v, want %v ([|out|, |in_1|, ...])", name, mv.Shape(), shape)
			}
			t, err := nodes.NewTransitionDirichlet(shape)
			if err != nil {
				return fail("", "%v", trimPrefix(err))
			}
			f, vars = t, append(vars, mv)
			break
		}
		data, mshape, err := decodeTensor(fs.Matrix, field+".matrix")
		if err != nil {
			return &Error{Err: err}
		}
		if !equalInts(mshape, shape) {
			return fail("matrix", "shape %v, want %v ([|out|, |in_1|, ...])", mshape, shape)
		}
		t, err := nodes.NewTransition(data, shape)
		if err != nil {
			return fail("matrix", "%v", trimPrefix(err))
		}
		f = t
	case "dirichlet":
		if out.Family() != expfam.DirichletFamily {
			return fail("out", "variable %q is %s, want dirichlet", fs.Out, out.Family())
		}
		if len(fs.Alpha) == 0 {
			return fail("alpha", "missing")
		}
		data, shape, err := decodeTensor(fs.Alpha, field+".alpha")
		if err != nil {
			return &Error{Err: err}
		}
		if !equalInts(shape, out.Shape()) {
			return fail("alpha", "shape %v, want the shape %v of variable %q", shape, out.Shape(), fs.Out)
		}
		for j, a := range data {
			if !(a > 0) {
				return fail("alpha", "entry %d: concentration %v, want > 0", j, a)
			}
		}
		d, err := nodes.NewDirichlet(data, shape)
		if err != nil {
			return fail("alpha", "%v", trimPrefix(err))
		}
		f = d
	case "gamma":
		if out.Family() != expfam.GammaFamily {
			return fail("out", "variable %q is %s, want gamma", fs.Out, out.Family())
		}
		if fs.Shape == nil {
			return fail("shape", "missing")
		}
		if fs.Rate == nil {
			return fail("rate", "missing")
		}
		if !(*fs.Shape > 0) {
			return fail("shape", "%v, want > 0", *fs.Shape)
		}
		if !(*fs.Rate > 0) {
			return fail("rate", "%v, want > 0", *fs.Rate)
		}
		gn, err := nodes.NewGamma(*fs.Shape, *fs.Rate)
		if err != nil {
			return fail("", "%v", trimPrefix(err))
		}
		f = gn
	case "softmax":
		if out.Family() != expfam.CategoricalFamily {
			return fail("out", "variable %q is %s, want categorical", fs.Out, out.Family())
		}
		prec, err := lookup("precision", fs.Precision)
		if err != nil {
			return err
		}
		if prec.Family() != expfam.GammaFamily {
			return fail("precision", "variable %q is %s, want gamma", fs.Precision, prec.Family())
		}
		if len(fs.Values) == 0 {
			return fail("values", "missing")
		}
		data, shape, err := decodeTensor(fs.Values, field+".values")
		if err != nil {
			return &Error{Err: err}
		}
		if len(shape) != 1 || shape[0] != out.Shape()[0] {
			return fail("values", "shape %v, want [%d] (one value per outcome of %q)", shape, out.Shape()[0], fs.Out)
		}
		s, err := nodes.NewSoftmax(data)
		if err != nil {
			return fail("values", "%v", trimPrefix(err))
		}
		f, vars = s, append(vars, prec)
	}
	if _, err := g.AddFactor("", f, vars...); err != nil {
		return fail("", "%v", trimPrefix(err))
	}
	return nil
}

func equalInts(a, b []int) bool {
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

// trimPrefix drops the "pkg: " prefix of errors from arbor packages, since
// the model error already says where the fault is.
func trimPrefix(err error) string {
	s := err.Error()
	for _, p := range []string{"ffg: ", "nodes: ", "expfam: ", "messages: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

// jsonError turns a decoding error into one naming the line and column.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		l, c := lineCol(data, se.Offset)
		return fmt.Errorf("malformed JSON at line %d, column %d: %v", l, c, se)
	case errors.As(err, &te):
		l, c := lineCol(data, te.Offset)
		return fmt.Errorf("%s: want %s, got JSON %s (line %d, column %d)", te.Field, te.Type, te.Value, l, c)
	case errors.Is(err, io.EOF):
		return errors.New("malformed JSON: empty file")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("malformed JSON: unexpected end of file")
	}
	return fmt.Errorf("malformed JSON: %v", err)
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
