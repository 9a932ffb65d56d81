package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

// Spec is the Go value of a model file (docs/formats.md, "Generic model
// file"): the file is its JSON encoding, and JSON → Spec → JSON keeps every
// field (ParseSpec, json.Marshal). FromSpec builds it through the same
// validation as a file, so a fault gets the same message from Go and from
// JSON.
type Spec struct {
	Variables []VariableSpec `json:"variables"`
	Factors   []FactorSpec   `json:"factors"`
	Settings  *SettingsSpec  `json:"settings,omitempty"`

	// Sizes and data constants (docs/formats.md, "Sizes, arrays and
	// loops"): named sizes, and arrays of numbers that factors use by
	// element ("X[n,k]").
	Sizes map[string]int    `json:"sizes,omitempty"`
	Data  map[string]Tensor `json:"data,omitempty"`
}

// VariableSpec is one variable: a name, a family (categorical, dirichlet,
// gamma), a shape, and for a categorical variable optional evidence.
type VariableSpec struct {
	Name     string    `json:"name"`
	Family   string    `json:"family"`
	Shape    []int     `json:"shape,omitempty"`
	Observed *Evidence `json:"observed,omitempty"`
	// An array of variables of that family and shape, one per element,
	// named "x[0]", "x[1,2]" (docs/formats.md, "Sizes, arrays and
	// loops"): its extents, and its elements' observed values (written as
	// "observed"; Observed is then nil).
	Size          Size          `json:"size,omitempty"`
	ObservedArray *Observations `json:"-"`
	// Dim is the dimension of an mvnormal or wishart variable.
	Dim int `json:"dim,omitempty"`
}

// FactorSpec is one factor; which fields it uses depends on Node (see the
// file format).
type FactorSpec struct {
	Node      string   `json:"node"`
	Name      string   `json:"name,omitempty"`
	For       Loops    `json:"for,omitempty"` // one factor per value of the loops (docs/formats.md, "Sizes, arrays and loops")
	Out       string   `json:"out"`
	In        []string `json:"in,omitempty"`
	P         *Value   `json:"p,omitempty"`
	Matrix    *Value   `json:"matrix,omitempty"`
	Alpha     *Tensor  `json:"alpha,omitempty"`
	Shape     *float64 `json:"shape,omitempty"`
	Rate      *float64 `json:"rate,omitempty"`
	Precision string   `json:"precision,omitempty"`
	Values    *Tensor  `json:"values,omitempty"`
	Update    string   `json:"update,omitempty"`
	// The continuous nodes (docs/models.md): a normal node's mean and, when
	// Precision names no gamma variable, its literal PrecisionValue
	// (written as the file's "precision"); a normal-mixture's switch,
	// means and precisions.
	Mean           *NormalMean `json:"mean,omitempty"`
	PrecisionValue *float64    `json:"-"`
	Switch         string      `json:"switch,omitempty"`
	Means          []Operand   `json:"means,omitempty"`
	Precisions     []Operand   `json:"precisions,omitempty"`
	// Number fields given as an element of a data constant ("X[n,k]"),
	// by key: "alpha", "values", "shape", "rate", "mean.scale",
	// "mean.offset" (written in place of the field). The fields that take
	// a name (mean, precision, means, precisions, p, matrix) hold the text
	// themselves, and so does a term of a sum (SumTerm.Scale.Var).
	DataRefs map[string]string `json:"-"`
	// The multivariate and Beta nodes (spec_mv.go): a wishart's df and
	// scale, a beta's a and b, an mvnormal's covariance and, when
	// Precision names no wishart variable, its literal PrecisionMatrix
	// (written as "precision").
	DF              *float64 `json:"df,omitempty"`
	Scale           *Tensor  `json:"scale,omitempty"`
	A               *float64 `json:"a,omitempty"`
	B               *float64 `json:"b,omitempty"`
	Covariance      *Tensor  `json:"covariance,omitempty"`
	PrecisionMatrix *Tensor  `json:"-"`
}

// MarshalJSON writes the factor as in a model file; a PrecisionValue is
// written as "precision".
func (f FactorSpec) MarshalJSON() ([]byte, error) {
	if len(f.DataRefs) > 0 {
		return apiResult(f.marshalRefs())
	}
	type plain FactorSpec
	var data []byte
	var err error
	if f.PrecisionMatrix != nil {
		return apiResult(json.Marshal(struct {
			plain
			Precision Tensor `json:"precision"`
		}{plain(f), *f.PrecisionMatrix}))
	}
	if f.PrecisionValue == nil {
		data, err = json.Marshal(plain(f))
	} else {
		data, err = json.Marshal(struct {
			plain
			Precision float64 `json:"precision"`
		}{plain(f), *f.PrecisionValue})
	}
	// A tensor's fault, not wrapped twice (json.Marshal wraps it once more).
	var me *json.MarshalerError
	if errors.As(err, &me) {
		return nil, apiError(me.Unwrap())
	}
	return data, apiError(err)
}

// Operand is a parameter of a normal-mixture: the name of a variable
// (Var) or a number (Value).
type Operand struct {
	Var   string
	Value float64
}

// MarshalJSON writes the name or the number.
func (o Operand) MarshalJSON() ([]byte, error) {
	if o.Var != "" {
		return apiResult(json.Marshal(o.Var))
	}
	return apiResult(json.Marshal(o.Value))
}

// UnmarshalJSON reads a name or a number.
func (o *Operand) UnmarshalJSON(data []byte) error {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '"' {
		return apiError(json.Unmarshal(data, &o.Var))
	}
	return apiError(json.Unmarshal(data, &o.Value))
}

// NormalMean is the mean of a normal node: a normal variable (Var), with
// optional Scale a and Offset b for the mean a·Var + b, or a number
// (Value, when Var is "" and Sum is nil). In a file: "m", 1.5 or
// {"of": "m", "scale": a, "offset": b}. A Sum (not nil) makes it the
// linear predictor Σ_k Sum[k].Scale·Sum[k].Of + offset, in a file
// {"sum": [{"of": "w0", "scale": 2.5}, ...], "offset": b}; the offset is
// the number Offset or the normal variable OffsetVar (of a sum or of
// a·Var, "offset": "b").
type NormalMean struct {
	Var           string
	Value         float64
	Scale, Offset *float64
	OffsetVar     string
	Sum           []SumTerm
	// Mv, when set, is an mvnormal node's mean or a normal's dot product
	// (spec_mv.go).
	Mv *MvMeanSpec
}

// MarshalJSON writes the name, the number or the object.
func (m NormalMean) MarshalJSON() ([]byte, error) {
	if m.Mv != nil {
		return apiResult(m.Mv.marshal(m))
	}
	switch {
	case m.linear():
	case m.Var == "":
		return apiResult(json.Marshal(m.Value))
	case m.Scale == nil && m.Offset == nil:
		return apiResult(json.Marshal(m.Var))
	}
	return apiResult(m.marshalObject())
}

// UnmarshalJSON reads a name, a number or the object.
func (m *NormalMean) UnmarshalJSON(data []byte) error {
	t := bytes.TrimSpace(data)
	switch {
	case len(t) > 0 && t[0] == '"':
		return apiError(json.Unmarshal(data, &m.Var))
	case len(t) > 0 && t[0] == '{':
		if ok, err := m.unmarshalMv(data); ok {
			return apiError(err)
		}
		return apiError(m.unmarshalObject(data))
	case len(t) > 0 && t[0] == '[':
		m.Mv = &MvMeanSpec{}
		return apiError(json.Unmarshal(data, &m.Mv.Vector))
	}
	return apiError(json.Unmarshal(data, &m.Value))
}

// SettingsSpec holds a file's settings (zero fields are left out).
type SettingsSpec struct {
	Iterations int     `json:"iterations,omitempty"`
	Tolerance  float64 `json:"tolerance,omitempty"`
	Method     string  `json:"method,omitempty"`
	Loopy      bool    `json:"loopy,omitempty"`
	Damping    float64 `json:"damping,omitempty"`
	// ParamTolerance is the second test of convergence
	// (schedule.Settings.ParamTolerance; DefaultParamTolerance when 0).
	ParamTolerance float64 `json:"param_tolerance,omitempty"`
}

// Tensor is a literal array of numbers: Data row-major with Shape; in JSON
// a nested array. A nil Shape writes Data as a flat array.
type Tensor struct {
	Data  []float64
	Shape []int
}

// MarshalJSON writes the nested array. A Shape whose extents are not
// positive or whose product is not len(Data) is an error.
func (t Tensor) MarshalJSON() ([]byte, error) {
	if len(t.Shape) == 0 {
		return apiResult(json.Marshal(t.Data))
	}
	if err := t.check(); err != nil {
		return nil, fmt.Errorf("model: tensor: %v", err)
	}
	return apiResult(json.Marshal(nest(t.Data, t.Shape)))
}

// check reports a non-empty Shape that does not describe Data.
func (t Tensor) check() error {
	n := 1
	for _, s := range t.Shape {
		if s < 1 || n > len(t.Data)/s {
			n = -1
			break
		}
		n *= s
	}
	if n != len(t.Data) {
		return fmt.Errorf("shape %v with %d entries, want positive extents whose product is the number of entries", t.Shape, len(t.Data))
	}
	return nil
}

// UnmarshalJSON reads a nested array of numbers (rectangular).
func (t *Tensor) UnmarshalJSON(data []byte) error {
	d, shape, err := decodeTensor(data, "tensor")
	if err != nil {
		return apiError(err)
	}
	t.Data, t.Shape = d, shape
	return nil
}

// Value is a factor's parameter: the name of a Dirichlet variable, or a
// literal Tensor.
type Value struct {
	Var    string
	Tensor *Tensor
}

// tensor returns the literal tensor of v, nil when v is nil or a name.
func (v *Value) tensor() *Tensor {
	if v == nil {
		return nil
	}
	return v.Tensor
}

// MarshalJSON writes the variable name or the nested array.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.Tensor != nil {
		return apiResult(json.Marshal(*v.Tensor))
	}
	return apiResult(json.Marshal(v.Var))
}

// UnmarshalJSON reads a variable name or a nested array.
func (v *Value) UnmarshalJSON(data []byte) error {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '"' {
		return apiError(json.Unmarshal(data, &v.Var))
	}
	v.Tensor = new(Tensor)
	return apiError(v.Tensor.UnmarshalJSON(data))
}

// MarshalJSON writes an index, a probability vector or a value.
func (e Evidence) MarshalJSON() ([]byte, error) {
	switch {
	case e.Probs != nil:
		return apiResult(json.Marshal(e.Probs))
	case e.Value != nil && *e.Value == 0:
		// -0 is written 0, which reads back as the index 0 and the value
		// 0 (equal to -0): written "-0", it would read back as 0 and not
		// round-trip.
		return []byte("0"), nil
	case e.Value != nil && (e.Index < 0 || float64(e.Index) != *e.Value):
		return apiResult(json.Marshal(*e.Value))
	}
	return apiResult(json.Marshal(e.Index))
}

// UnmarshalJSON reads an index, a probability vector or a number.
func (e *Evidence) UnmarshalJSON(data []byte) error {
	var idx int
	if err := json.Unmarshal(data, &idx); err == nil {
		x := float64(idx)
		*e = Evidence{Index: idx, Value: &x}
		return nil
	}
	var x float64
	if err := json.Unmarshal(data, &x); err == nil {
		*e = Evidence{Index: -1, Value: &x}
		return nil
	}
	var p []float64
	if err := json.Unmarshal(data, &p); err != nil {
		return errors.New("model: observed: want an index, a probability vector or a number")
	}
	*e = Evidence{Index: -1, Probs: p}
	return nil
}

// ParseSpec decodes a model file into its Go value without building it.
// It reads the file as Parse does (the same types, keys and literal
// tensors are refused, a key given twice too) and checks nothing else.
func ParseSpec(data []byte) (Spec, error) {
	var sp Spec
	fail := func(err error) (Spec, error) {
		var me *Error
		if errors.As(err, &me) {
			if me.Field != "" {
				return Spec{}, fmt.Errorf("model: %s: %v", me.Field, me.Err)
			}
			return Spec{}, fmt.Errorf("model: %v", me.Err)
		}
		return Spec{}, fmt.Errorf("model: %v", err)
	}
	m, err := readModel("", data)
	if err == nil {
		for _, e := range []error{m.settingsErr, m.factorErr, m.varErr} {
			if e != nil {
				err = e
			}
		}
	}
	if err == nil {
		err = specScope(m, &sp)
	}
	if err != nil {
		return apiResult(fail(err))
	}
	if m.variables != nil {
		sp.Variables = make([]VariableSpec, 0, len(m.variables))
	}
	if m.factors.present {
		sp.Factors = make([]FactorSpec, 0, m.factors.len())
	}
	for i, vs := range m.variables {
		v := VariableSpec{Name: vs.Name, Family: vs.Family, Shape: vs.Shape}
		if err := dimSpec(&v, vs, fmt.Sprintf("variables[%d].dim", i)); err != nil {
			return apiResult(fail(err))
		}
		if err := arraySpec(&v, vs, fmt.Sprintf("variables[%d]", i)); err != nil {
			return apiResult(fail(err))
		}
		if t := vs.Observed; t != nil {
			field := fmt.Sprintf("variables[%d].observed", i)
			vals, shape, err := tensorNumbers(t, field)
			if err != nil {
				return apiResult(fail(err))
			}
			switch {
			case len(shape) == 0 && isInt(t):
				idx, _ := jsonread.Int(t.Src[t.NumAt:jsonread.WordEnd(t.Src, t.NumAt)])
				x := vals[0]
				v.Observed = &Evidence{Index: idx, Value: &x}
			case len(shape) == 0:
				x := vals[0]
				v.Observed = &Evidence{Index: -1, Value: &x}
			case len(shape) == 1:
				v.Observed = &Evidence{Index: -1, Probs: vals}
			default:
				return apiResult(fail(fmt.Errorf("%s: want an index or a probability vector", field)))
			}
		}
		sp.Variables = append(sp.Variables, v)
	}
	for i := range m.factors.len() {
		fs := m.factors.at(i)
		f := FactorSpec{Node: fs.Node, Name: fs.Name, Out: fs.Out, In: fs.In, Precision: fs.Precision, Update: fs.Update, Switch: fs.Switch}
		f.For, fs = loopsSpec(fs.For), dataRefs(&f, fs, m)
		field := fmt.Sprintf("factors[%d].", i)
		if err := mvSpec(&f, &fs, field); err != nil {
			return apiResult(fail(err))
		}
		if err := normalSpec(&f, fs, field, m.isConstRef); err != nil {
			return apiResult(fail(err))
		}
		for _, p := range []struct {
			key string
			v   jsonValue
			dst **Value
		}{{"p", fs.P, &f.P}, {"matrix", fs.Matrix, &f.Matrix}} {
			if name, ok := p.v.varName(); ok && !p.v.t.Null {
				*p.dst = &Value{Var: name}
			} else if p.v.set && !p.v.t.Null {
				data, shape, err := p.v.numbers(field + p.key)
				if err != nil {
					return apiResult(fail(err))
				}
				// A copy: a number the file repeats is read once (valueSlab.number).
				*p.dst = &Value{Tensor: &Tensor{Data: slices.Clone(data), Shape: shape}}
			}
		}
		for _, p := range []struct {
			key string
			v   jsonValue
			dst **Tensor
		}{{"alpha", fs.Alpha, &f.Alpha}, {"values", fs.Values, &f.Values}} {
			if p.v.set && !p.v.t.Null {
				data, shape, err := p.v.numbers(field + p.key)
				if err != nil {
					return apiResult(fail(err))
				}
				*p.dst = &Tensor{Data: slices.Clone(data), Shape: shape}
			}
		}
		for _, p := range []struct {
			key string
			v   jsonValue
			dst **float64
		}{{"shape", fs.Shape, &f.Shape}, {"rate", fs.Rate, &f.Rate}} {
			if p.v.set && !p.v.t.Null {
				x, err := p.v.scalar(field + p.key)
				if err != nil {
					return apiResult(fail(err))
				}
				*p.dst = &x
			}
		}
		sp.Factors = append(sp.Factors, f)
	}
	if ss := m.settings; ss != nil {
		sp.Settings = &SettingsSpec{}
		if ss.Method != nil {
			sp.Settings.Method = *ss.Method
		}
		if ss.Loopy != nil {
			sp.Settings.Loopy = *ss.Loopy
		}
		for _, p := range []struct {
			key string
			v   jsonValue
			dst *float64
		}{{"tolerance", ss.Tolerance, &sp.Settings.Tolerance}, {"damping", ss.Damping, &sp.Settings.Damping}, {"param_tolerance", ss.ParamTolerance, &sp.Settings.ParamTolerance}} {
			if p.v.set && !p.v.t.Null {
				x, err := p.v.scalar("settings." + p.key)
				if err != nil {
					return apiResult(fail(err))
				}
				*p.dst = x
			}
		}
		if v := ss.Iterations; v.set && !v.t.Null {
			x, err := v.scalar("settings.iterations")
			if err != nil {
				return apiResult(fail(err))
			}
			if x != math.Trunc(x) || math.Abs(x) > math.MaxInt32 {
				return apiResult(fail(fmt.Errorf("settings.iterations: want a whole number, got %v", x)))
			}
			sp.Settings.Iterations = int(x)
		}
	}
	return sp, nil
}

// isInt reports whether the number t is written as an integer in the
// range of int, as encoding/json wants for an int.
func isInt(t *jsonread.Tensor) bool {
	if t.NumAt < 0 {
		return false
	}
	_, ok := jsonread.Int(t.Src[t.NumAt:jsonread.WordEnd(t.Src, t.NumAt)])
	return ok
}

// FromSpec builds the model that sp describes; name is used in errors.
// It goes through the file's validation (Parse), so every fault is
// reported as it would be for the file: the field, the variable or factor
// and what is wrong.
func FromSpec(name string, sp Spec) (*Model, error) {
	for i, f := range sp.Factors {
		field := fmt.Sprintf("factors[%d]", i)
		if f.Name != "" {
			field = fmt.Sprintf("factors[%d] (%q)", i, f.Name)
		}
		for _, t := range []struct {
			sub string
			t   *Tensor
		}{{"p", f.P.tensor()}, {"matrix", f.Matrix.tensor()}, {"alpha", f.Alpha}, {"values", f.Values}} {
			if t.t == nil || len(t.t.Shape) == 0 {
				continue
			}
			if err := t.t.check(); err != nil {
				return nil, apiError(&Error{File: name, Field: fmt.Sprintf("%s (%s).%s", field, f.Node, t.sub), Err: err})
			}
		}
	}
	data, err := json.Marshal(sp)
	if err != nil {
		return nil, apiError(&Error{File: name, Err: err})
	}
	return apiResult(Parse(name, data))
}

// normalSpec copies the fields of the continuous nodes from the file's
// factor fs into f; isConst tells a text that names one of the file's
// constants.
func normalSpec(f *FactorSpec, fs factorSpec, field string, isConst func(string) bool) error {
	scalar := func(sub string, v jsonValue) (*float64, error) {
		if !v.set || v.t.Null {
			return nil, nil
		}
		x, err := v.scalar(field + sub)
		return &x, err
	}
	operand := func(sub string, v jsonValue) (Operand, error) {
		if name, ok := v.varName(); ok {
			return Operand{Var: name}, nil
		}
		x, err := v.scalar(field + sub)
		return Operand{Value: x}, err
	}
	var err error
	if f.PrecisionValue, err = scalar("precision", fs.PrecisionNum); err != nil {
		return err
	}
	if m := fs.Mean; m.set {
		nm := &NormalMean{Var: m.of}
		if m.obj {
			if nm.Scale, err = scalar("mean.scale", m.scale); err != nil {
				return err
			}
			if name, ok := m.offset.varName(); !ok || name == "" {
				if nm.Offset, err = scalar("mean.offset", m.offset); err != nil {
					return err
				}
			}
			if err := linearSpec(nm, m, field, isConst); err != nil {
				return err
			}
		} else if m.v.t == nil || !m.v.t.Null {
			o, err := operand("mean", m.v)
			if err != nil {
				return err
			}
			nm.Var, nm.Value = o.Var, o.Value
		}
		f.Mean = nm
	}
	for _, l := range []struct {
		sub  string
		list jsonList
		dst  *[]Operand
	}{{"means", fs.Means, &f.Means}, {"precisions", fs.Precisions, &f.Precisions}} {
		if !l.list.set {
			continue
		}
		*l.dst = make([]Operand, len(l.list.items))
		for j, v := range l.list.items {
			if (*l.dst)[j], err = operand(fmt.Sprintf("%s[%d]", l.sub, j), v); err != nil {
				return err
			}
		}
	}
	return nil
}
