package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
}

// VariableSpec is one variable: a name, a family (categorical, dirichlet,
// gamma), a shape, and for a categorical variable optional evidence.
type VariableSpec struct {
	Name     string    `json:"name"`
	Family   string    `json:"family"`
	Shape    []int     `json:"shape,omitempty"`
	Observed *Evidence `json:"observed,omitempty"`
}

// FactorSpec is one factor; which fields it uses depends on Node (see the
// file format).
type FactorSpec struct {
	Node      string   `json:"node"`
	Name      string   `json:"name,omitempty"`
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
}

// SettingsSpec holds a file's settings (zero fields are left out).
type SettingsSpec struct {
	Iterations int     `json:"iterations,omitempty"`
	Tolerance  float64 `json:"tolerance,omitempty"`
	Method     string  `json:"method,omitempty"`
	Loopy      bool    `json:"loopy,omitempty"`
	Damping    float64 `json:"damping,omitempty"`
}

// Tensor is a literal array of numbers: Data row-major with Shape; in JSON
// a nested array.
type Tensor struct {
	Data  []float64
	Shape []int
}

// MarshalJSON writes the nested array.
func (t Tensor) MarshalJSON() ([]byte, error) {
	if len(t.Shape) == 0 {
		return json.Marshal(t.Data)
	}
	return json.Marshal(nest(t.Data, t.Shape))
}

// UnmarshalJSON reads a nested array of numbers (rectangular).
func (t *Tensor) UnmarshalJSON(data []byte) error {
	d, shape, err := decodeTensor(data, "tensor")
	if err != nil {
		return err
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

// MarshalJSON writes the variable name or the nested array.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.Tensor != nil {
		return json.Marshal(*v.Tensor)
	}
	return json.Marshal(v.Var)
}

// UnmarshalJSON reads a variable name or a nested array.
func (v *Value) UnmarshalJSON(data []byte) error {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '"' {
		return json.Unmarshal(data, &v.Var)
	}
	v.Tensor = new(Tensor)
	return v.Tensor.UnmarshalJSON(data)
}

// MarshalJSON writes an index or a probability vector.
func (e Evidence) MarshalJSON() ([]byte, error) {
	if e.Probs != nil {
		return json.Marshal(e.Probs)
	}
	return json.Marshal(e.Index)
}

// UnmarshalJSON reads an index or a probability vector.
func (e *Evidence) UnmarshalJSON(data []byte) error {
	var idx int
	if err := json.Unmarshal(data, &idx); err == nil {
		*e = Evidence{Index: idx}
		return nil
	}
	var p []float64
	if err := json.Unmarshal(data, &p); err != nil {
		return errors.New("observed: want an index or a probability vector")
	}
	*e = Evidence{Index: -1, Probs: p}
	return nil
}

// ParseSpec decodes a model file into its Go value without building it.
func ParseSpec(data []byte) (Spec, error) {
	var sp Spec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sp); err != nil {
		return sp, fmt.Errorf("model: %v", err)
	}
	return sp, nil
}

// FromSpec builds the model that sp describes; name is used in errors.
// It goes through the file's validation (Parse), so every fault is
// reported as it would be for the file: the field, the variable or factor
// and what is wrong.
func FromSpec(name string, sp Spec) (*Model, error) {
	data, err := json.Marshal(sp)
	if err != nil {
		return nil, &Error{File: name, Err: err}
	}
	return Parse(name, data)
}
