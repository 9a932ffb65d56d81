package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// MvMeanSpec is the part of a NormalMean that the multivariate nodes use:
// an mvnormal node's literal mean Vector (NormalMean.Var ""), or its
// affine mean {"of": Var, "matrix": Matrix, "offset": OffsetVector}; or a
// normal node's dot product {"dot": {"of": DotOf, "with": DotWith},
// "offset": b} with the offset in NormalMean.Offset or OffsetVar.
type MvMeanSpec struct {
	Vector       []float64
	Matrix       *Tensor
	OffsetVector []float64
	DotOf        string
	DotWith      []float64
	// DotWithRef, when set, is a part of a data constant given as the
	// vector ("X[n]", in a loop), written in place of DotWith.
	DotWithRef string
}

type dotJSON struct {
	Of   string `json:"of"`
	With any    `json:"with"`
}

// marshal writes the mean m whose Mv is mv.
func (mv *MvMeanSpec) marshal(m NormalMean) ([]byte, error) {
	switch {
	case mv.DotOf != "":
		var off *Operand
		switch {
		case m.OffsetVar != "":
			off = &Operand{Var: m.OffsetVar}
		case m.Offset != nil:
			off = &Operand{Value: *m.Offset}
		}
		return json.Marshal(struct {
			Dot    dotJSON  `json:"dot"`
			Offset *Operand `json:"offset,omitempty"`
		}{dotJSON{mv.DotOf, withOf(mv)}, off})
	case m.Var == "":
		return json.Marshal(mv.Vector)
	case mv.Matrix == nil && mv.OffsetVector == nil:
		return json.Marshal(m.Var)
	}
	return json.Marshal(struct {
		Of     string    `json:"of"`
		Matrix *Tensor   `json:"matrix,omitempty"`
		Offset []float64 `json:"offset,omitempty"`
	}{m.Var, mv.Matrix, mv.OffsetVector})
}

func withOf(mv *MvMeanSpec) any {
	if mv.DotWithRef != "" {
		return mv.DotWithRef
	}
	return mv.DotWith
}

// unmarshalMv reads a mean object with "matrix", "dot" or a vector
// "offset"; ok is false for the objects of a normal's mean.
func (m *NormalMean) unmarshalMv(data []byte) (ok bool, err error) {
	var o struct {
		Of     string
		Matrix *Tensor
		Offset json.RawMessage
		Dot    *dotJSON
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return false, nil // the normal reader reports it
	}
	vecOffset := len(bytes.TrimSpace(o.Offset)) > 0 && bytes.TrimSpace(o.Offset)[0] == '['
	if o.Matrix == nil && o.Dot == nil && !vecOffset {
		return false, nil
	}
	*m = NormalMean{Var: o.Of, Mv: &MvMeanSpec{Matrix: o.Matrix}}
	if o.Dot != nil {
		m.Mv.DotOf = o.Dot.Of
		switch w := o.Dot.With.(type) {
		case string:
			m.Mv.DotWithRef = w
		case []any:
			for _, x := range w {
				f, ok := x.(float64)
				if !ok {
					return true, fmt.Errorf("mean.dot.with: want numbers, got %v", x)
				}
				m.Mv.DotWith = append(m.Mv.DotWith, f)
			}
		}
		if len(o.Offset) > 0 {
			var op Operand
			if err := json.Unmarshal(o.Offset, &op); err != nil {
				return true, err
			}
			if op.Var != "" {
				m.OffsetVar = op.Var
			} else {
				m.Offset = &op.Value
			}
		}
		return true, nil
	}
	if len(o.Offset) > 0 {
		return true, json.Unmarshal(o.Offset, &m.Mv.OffsetVector)
	}
	return true, nil
}

// dimSpec copies a variable's "dim".
func dimSpec(v *VariableSpec, vs varSpec, field string) error {
	if !vs.Dim.set || vs.Dim.t.Null {
		return nil
	}
	x, err := vs.Dim.scalar(field)
	if err != nil {
		return err
	}
	if x != math.Trunc(x) || math.Abs(x) > math.MaxInt32 {
		return fmt.Errorf("%s: want a whole number, got %v", field, x)
	}
	v.Dim = int(x)
	return nil
}

// mvSpec copies the fields of the multivariate and Beta nodes from the
// file's factor fs into f, and takes out of fs what normalSpec must not
// read (an mvnormal's mean and precision matrix, a dot mean).
func mvSpec(f *FactorSpec, fs *factorSpec, field string) error {
	for _, p := range []struct {
		key string
		v   jsonValue
		dst **float64
	}{{"df", fs.DF, &f.DF}, {"a", fs.A, &f.A}, {"b", fs.B, &f.B}} {
		if p.v.set && !p.v.t.Null {
			x, err := p.v.scalar(field + p.key)
			if err != nil {
				return err
			}
			*p.dst = &x
		}
	}
	tensor := func(key string, v jsonValue) (*Tensor, error) {
		if !v.set || v.t.Null {
			return nil, nil
		}
		data, shape, err := v.numbers(field + key)
		if err != nil {
			return nil, err
		}
		// A copy: a number the file repeats is read once (valueSlab.number).
		return &Tensor{Data: slices.Clone(data), Shape: shape}, nil
	}
	var err error
	if f.Scale, err = tensor("scale", fs.Scale); err != nil {
		return err
	}
	if f.Covariance, err = tensor("covariance", fs.Covariance); err != nil {
		return err
	}
	m := fs.Mean
	switch {
	case fs.Node == "mvnormal":
		if _, isName := fs.PrecisionNum.varName(); !isName {
			if f.PrecisionMatrix, err = tensor("precision", fs.PrecisionNum); err != nil {
				return err
			}
		}
		fs.PrecisionNum = jsonValue{}
		if !m.set {
			return nil
		}
		nm := &NormalMean{Mv: &MvMeanSpec{}}
		switch {
		case m.obj:
			nm.Var = m.of
			if nm.Mv.Matrix, err = tensor("mean.matrix", m.matrix); err != nil {
				return err
			}
			if t, err := tensor("mean.offset", m.offset); err != nil {
				return err
			} else if t != nil {
				nm.Mv.OffsetVector = t.Data
			}
		default:
			if name, ok := m.v.varName(); ok {
				nm.Var = name
			} else if t, err := tensor("mean", m.v); err != nil {
				return err
			} else if t != nil {
				nm.Mv.Vector = t.Data
			}
		}
		f.Mean, fs.Mean = nm, jsonMean{}
	case m.dot != nil:
		nm := &NormalMean{Mv: &MvMeanSpec{DotOf: m.dot.of}}
		if name, ok := m.dot.with.varName(); ok {
			nm.Mv.DotWithRef = name
		} else if t, err := tensor("mean.dot.with", m.dot.with); err != nil {
			return err
		} else if t != nil {
			nm.Mv.DotWith = t.Data
		}
		if name, ok := m.offset.varName(); ok {
			nm.OffsetVar = name
		} else if m.offset.set {
			x, err := m.offset.scalar(field + "mean.offset")
			if err != nil {
				return err
			}
			nm.Offset = &x
		}
		f.Mean, fs.Mean = nm, jsonMean{}
	}
	return nil
}
