package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The Go values of sizes, arrays, data constants and loops in a Spec
// (docs/formats.md, "Sizes, arrays and loops"). A Spec keeps them as the
// file writes them: FromSpec expands them when it builds the model, and
// json.Marshal writes them back.

// Size is the extents of an array variable, in a file "T", 3 or
// ["N", "K"]: one Extent per dimension.
type Size []Extent

// Extent is one extent of a Size: the name of a size, or an expression of
// sizes and whole numbers ("T+1"), in Expr; or the number N when Expr is
// "".
type Extent struct {
	Expr string
	N    int
}

// MarshalJSON writes the name (or expression) or the number.
func (e Extent) MarshalJSON() ([]byte, error) {
	if e.Expr != "" {
		return apiResult(json.Marshal(e.Expr))
	}
	return apiResult(json.Marshal(e.N))
}

// UnmarshalJSON reads a name, an expression or a number.
func (e *Extent) UnmarshalJSON(data []byte) error {
	*e = Extent{}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '"' {
		return apiError(json.Unmarshal(data, &e.Expr))
	}
	return apiError(json.Unmarshal(data, &e.N))
}

// MarshalJSON writes one extent alone ("T"), several as an array.
func (s Size) MarshalJSON() ([]byte, error) {
	if len(s) == 1 {
		return apiResult(json.Marshal(s[0]))
	}
	return apiResult(json.Marshal([]Extent(s)))
}

// UnmarshalJSON reads one extent or an array of them.
func (s *Size) UnmarshalJSON(data []byte) error {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		var es []Extent
		err := json.Unmarshal(data, &es)
		*s = es
		return apiError(err)
	}
	var e Extent
	if err := e.UnmarshalJSON(data); err != nil {
		return apiError(err)
	}
	*s = Size{e}
	return nil
}

// Loops is a factor's "for": its loops in order, the first outermost. In a
// file it is an object whose key order is the loops' order:
// {"n": "0..N-1", "k": "0..K-1"}.
type Loops []Loop

// Loop is one loop: its index and its inclusive range "FIRST..LAST", both
// ends expressions of the sizes, the enclosing indices and whole numbers.
type Loop struct {
	Index, Range string
}

// MarshalJSON writes the object, keys in the loops' order.
func (l Loops) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, lp := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(lp.Index)
		if err != nil {
			return nil, apiError(err)
		}
		v, err := json.Marshal(lp.Range)
		if err != nil {
			return nil, apiError(err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the object, keeping its key order.
func (l *Loops) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return apiError(err)
	}
	if tok == nil {
		*l = nil
		return nil
	}
	if tok != json.Delim('{') {
		return errors.New(`model: for: want an object from loop indices to ranges such as "0..T-1"`)
	}
	out := Loops{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return apiError(err)
		}
		var r string
		if err := dec.Decode(&r); err != nil {
			return apiError(err)
		}
		out = append(out, Loop{Index: k.(string), Range: r})
	}
	*l = out
	return nil
}

// Observations is the observed value of an array variable: its elements'
// values row-major, a nil entry for an unobserved element, and the extents
// of the nesting (the array's size). In a file a nested array with null
// for an unobserved element: [0.3, null, 1.2].
type Observations struct {
	Shape    []int
	Elements []*Evidence
}

// MarshalJSON writes the nested array. Elements whose number is not the
// product of Shape are an error.
func (o Observations) MarshalJSON() ([]byte, error) {
	n := 1
	for _, s := range o.Shape {
		if s < 0 {
			n = -1
			break
		}
		n *= s
	}
	if len(o.Shape) == 0 || n != len(o.Elements) {
		return nil, fmt.Errorf("model: observations: shape %v with %d elements, want extents >= 0 whose product is the number of elements", o.Shape, len(o.Elements))
	}
	var b bytes.Buffer
	k := 0
	var write func(d int) error
	write = func(d int) error {
		if d == len(o.Shape) {
			e := o.Elements[k]
			k++
			if e == nil {
				b.WriteString("null")
				return nil
			}
			data, err := json.Marshal(*e)
			b.Write(data)
			return err
		}
		b.WriteByte('[')
		for i := range o.Shape[d] {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := write(d + 1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	if err := write(0); err != nil {
		return nil, apiError(err)
	}
	return b.Bytes(), nil
}

// MarshalJSON writes the variable as in a model file; an array's
// ObservedArray is written as "observed".
func (v VariableSpec) MarshalJSON() ([]byte, error) {
	type plain VariableSpec
	if v.ObservedArray == nil {
		return apiResult(json.Marshal(plain(v)))
	}
	data, err := json.Marshal(struct {
		plain
		Observed *Observations `json:"observed"`
	}{plain(v), v.ObservedArray})
	var me *json.MarshalerError
	if errors.As(err, &me) {
		return nil, apiError(me.Unwrap())
	}
	return data, apiError(err)
}

// dataRefKeys are the number fields of a factor that FactorSpec.DataRefs
// may give as an element of a constant, in the order they are written.
var dataRefKeys = []string{"alpha", "values", "shape", "rate", "mean.scale", "mean.offset"}

// marshalRefs writes a factor with DataRefs: the fields they give are
// written as their text, after the others.
func (f FactorSpec) marshalRefs() ([]byte, error) {
	g := f
	g.DataRefs = nil
	for k := range f.DataRefs {
		found := false
		for _, key := range dataRefKeys {
			found = found || k == key
		}
		if !found {
			return nil, fmt.Errorf("model: factor: DataRefs[%q]: not a field that takes a constant's element (fields: %s)", k, strings.Join(dataRefKeys, ", "))
		}
	}
	refs := f.DataRefs
	if _, ok := refs["alpha"]; ok {
		g.Alpha = nil
	}
	if _, ok := refs["values"]; ok {
		g.Values = nil
	}
	if _, ok := refs["shape"]; ok {
		g.Shape = nil
	}
	if _, ok := refs["rate"]; ok {
		g.Rate = nil
	}
	_, scale := refs["mean.scale"]
	_, offset := refs["mean.offset"]
	var mean map[string]any
	if scale || offset {
		if f.Mean == nil || f.Mean.Var == "" {
			return nil, errors.New(`model: factor: DataRefs gives the mean's scale or offset, and Mean names no variable ("of")`)
		}
		mean = map[string]any{"of": f.Mean.Var}
		for _, p := range []struct {
			key string
			set bool
			x   *float64
		}{{"scale", scale, f.Mean.Scale}, {"offset", offset, f.Mean.Offset}} {
			switch {
			case p.set:
				mean[p.key] = refs["mean."+p.key]
			case p.x != nil:
				mean[p.key] = *p.x
			}
		}
		g.Mean = nil
	}
	data, err := json.Marshal(g)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(data[:len(data)-1])
	sep := len(data) > 2
	add := func(k string, v any) error {
		kv, err := json.Marshal(k)
		if err != nil {
			return err
		}
		vv, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if sep {
			b.WriteByte(',')
		}
		sep = true
		b.Write(kv)
		b.WriteByte(':')
		b.Write(vv)
		return nil
	}
	if mean != nil {
		if err := add("mean", mean); err != nil {
			return nil, err
		}
	}
	keys := make([]string, 0, len(refs))
	for k := range refs {
		if !strings.HasPrefix(k, "mean.") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := add(k, refs[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// specScope reads the sizes and the constants of a file into a Spec.
func specScope(m *modelJSON, sp *Spec) error {
	if m.sizes != nil {
		sp.Sizes = map[string]int{}
		for _, s := range m.sizes {
			sp.Sizes[s.name] = s.n
		}
	}
	if m.data != nil {
		sp.Data = map[string]Tensor{}
		for _, de := range m.data {
			field := "data." + key(de.name)
			if de.t.Null {
				return fmt.Errorf("%s: want an array of numbers, got null", field)
			}
			data, shape, err := tensorNumbers(de.t, field)
			if err != nil {
				return err
			}
			if len(shape) == 0 {
				return fmt.Errorf("%s: want an array of numbers, got a number", field)
			}
			sp.Data[de.name] = Tensor{Data: data, Shape: shape}
		}
	}
	return nil
}

// arraySpec copies an array variable's size and observed values into v.
func arraySpec(v *VariableSpec, vs varSpec, field string) error {
	if vs.Size == nil {
		return nil
	}
	v.Size = make(Size, len(vs.Size))
	for j, e := range vs.Size {
		v.Size[j] = Extent{Expr: e.expr, N: e.n}
	}
	oa := vs.ObservedArr
	if oa == nil {
		return nil
	}
	field += ".observed"
	if err := oa.err(field); err != nil {
		var me *Error
		if errors.As(err, &me) {
			return fmt.Errorf("%s: %v", me.Field, me.Err)
		}
		return err
	}
	obs := &Observations{Shape: oa.shape, Elements: make([]*Evidence, len(oa.kind))}
	for k, kind := range oa.kind {
		x := oa.num[k]
		switch kind {
		case obsNumber:
			e := &Evidence{Index: -1, Value: &x}
			if oa.isInt[k] {
				e.Index = int(x)
			}
			obs.Elements[k] = e
		case obsVector:
			t := oa.tensor(k)
			if len(t.Shape()) != 1 {
				return fmt.Errorf("%s: element %d: want an index or a probability vector", field, k)
			}
			obs.Elements[k] = &Evidence{Index: -1, Probs: t.Data}
		}
	}
	v.ObservedArray = obs
	return nil
}

// loopsSpec returns a factor's loops as a Spec's.
func loopsSpec(loops []loopSpec) Loops {
	if loops == nil {
		return nil
	}
	out := make(Loops, len(loops))
	for i, l := range loops {
		out[i] = Loop{Index: l.index, Range: l.rng}
	}
	return out
}

// dataRefs moves the number fields of fs given as an element of one of the
// file's constants into f.DataRefs, and returns fs without them.
func dataRefs(f *FactorSpec, fs factorSpec, m *modelJSON) factorSpec {
	isConst := func(v jsonValue) (string, bool) {
		if v.name == nil || !m.isConstRef(*v.name) {
			return "", false
		}
		return *v.name, true
	}
	for _, p := range []struct {
		key string
		v   *jsonValue
	}{{"alpha", &fs.Alpha}, {"values", &fs.Values}, {"shape", &fs.Shape}, {"rate", &fs.Rate}, {"mean.scale", &fs.Mean.scale}, {"mean.offset", &fs.Mean.offset}} {
		if text, ok := isConst(*p.v); ok {
			if f.DataRefs == nil {
				f.DataRefs = map[string]string{}
			}
			f.DataRefs[p.key] = text
			*p.v = jsonValue{}
		}
	}
	return fs
}

// isConstRef reports whether text names one of the file's constants, whole
// or a part ("X", "X[n,k]").
func (m *modelJSON) isConstRef(text string) bool {
	base, _, _ := splitRef(text)
	for _, de := range m.data {
		if de.name == base {
			return true
		}
	}
	return false
}
