package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

// The linear predictor of a normal node's mean (docs/models.md, "A linear
// regression"): "mean": {"sum": [{"of": VAR, "scale": NUMBER}, ...],
// "offset": NUMBER or VAR}, the mean Σ_k scale_k·of_k + offset, built as a
// nodes.NormalLinear. In a file with sizes and loops a term may carry its
// own "for" and take a constant's element as its scale (termloops.go).

// SumTerm is one term Scale·Of of a linear predictor (NormalMean.Sum): a
// normal variable and its scale, a number (Scale.Value; nil is 1) or, in a
// file with data constants, a constant's element (Scale.Var, "X[n,k]").
// With loops (For, in the order of the file's keys) the term stands for
// one term per value of its indices, which Of and Scale may use with the
// factor's own loop indices and the sizes. In a file:
// {"of": "w0", "scale": 2.5}, {"for": {"k": "0..K-1"}, "of": "w[k]",
// "scale": "X[n,k]"}.
type SumTerm struct {
	For   Loops
	Of    string
	Scale *Operand
}

// MarshalJSON writes the term's object.
func (t SumTerm) MarshalJSON() ([]byte, error) {
	return apiResult(json.Marshal(struct {
		For   Loops    `json:"for,omitempty"`
		Of    string   `json:"of"`
		Scale *Operand `json:"scale,omitempty"`
	}{t.For, t.Of, t.Scale}))
}

// UnmarshalJSON reads the term's object.
func (t *SumTerm) UnmarshalJSON(data []byte) error {
	var o struct {
		For   Loops
		Of    string
		Scale *Operand
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return apiError(err)
	}
	t.For, t.Of, t.Scale = o.For, o.Of, o.Scale
	return nil
}

// linear reports whether the mean is a linear predictor: a sum, or an
// offset that names a variable.
func (m NormalMean) linear() bool { return m.Sum != nil || m.OffsetVar != "" }

// marshalObject writes the mean's object: {"of", "scale", "offset"} or
// {"sum", "offset"}, the offset a number or a name.
func (m NormalMean) marshalObject() ([]byte, error) {
	if m.Offset != nil && m.OffsetVar != "" {
		return nil, errors.New("model: normal mean: Offset and OffsetVar both set, want a number or a variable")
	}
	var off *Operand
	switch {
	case m.OffsetVar != "":
		off = &Operand{Var: m.OffsetVar}
	case m.Offset != nil:
		off = &Operand{Value: *m.Offset}
	}
	var of *string
	if m.Var != "" {
		of = &m.Var
	}
	var sum *[]SumTerm // "sum": [] too
	if m.Sum != nil {
		sum = &m.Sum
	}
	return json.Marshal(struct {
		Of     *string    `json:"of,omitempty"`
		Scale  *float64   `json:"scale,omitempty"`
		Sum    *[]SumTerm `json:"sum,omitempty"`
		Offset *Operand   `json:"offset,omitempty"`
	}{of, m.Scale, sum, off})
}

// unmarshalObject reads the mean's object.
func (m *NormalMean) unmarshalObject(data []byte) error {
	var o struct {
		Of     string
		Scale  *float64
		Sum    *[]SumTerm
		Offset *json.RawMessage
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return err
	}
	m.Var, m.Scale = o.Of, o.Scale
	if o.Sum != nil {
		m.Sum = *o.Sum
		if m.Sum == nil {
			m.Sum = []SumTerm{}
		}
	}
	if o.Offset != nil {
		if t := bytes.TrimSpace(*o.Offset); len(t) > 0 && t[0] == '"' {
			return json.Unmarshal(t, &m.OffsetVar)
		}
		m.Offset = new(float64)
		return json.Unmarshal(*o.Offset, m.Offset)
	}
	return nil
}

// jsonSum is a mean's "sum" as read: its terms.
type jsonSum struct {
	set   bool
	terms []jsonTerm
}

// jsonTerm is a term of a sum: {"of": VAR, "scale": NUMBER}, with its
// loops ("for"), at its index in the file's sum. A term of a file with a
// scope comes to readLinear resolved (termloops.go): its variable v and
// its scale x, checked.
type jsonTerm struct {
	of       string
	scale    jsonValue
	loops    []loopSpec
	at       int
	resolved bool
	v        *ffg.Variable
	x        float64
}

var termFields = []string{"of", "scale", "for"}

// sum reads a mean's "sum", an array of terms (null: no sum).
func (d *decoder) sum(field string) (jsonSum, error) {
	switch d.r.Peek() {
	case '[':
	case 'n':
		d.r.Skip()
		return jsonSum{}, nil
	default:
		return jsonSum{}, d.fail(field, `want an array of terms {"of": VAR, "scale": NUMBER}, got JSON %s`, d.r.Kind())
	}
	s := jsonSum{set: true, terms: []jsonTerm{}}
	err := d.r.Array(func(i int) error {
		sub := fmt.Sprintf("%s[%d]", field, i)
		if d.r.Peek() != '{' {
			return d.fail(sub, `want a term {"of": VAR, "scale": NUMBER}, got JSON %s`, d.r.Kind())
		}
		t := jsonTerm{at: i}
		err := d.object(sub, termFields, func(k int) error {
			var err error
			switch k {
			case 0:
				t.of, err = d.str(sub + ".of")
			case 1:
				t.scale = d.value()
			case 2:
				t.loops, err = d.loops(sub + ".for")
			}
			return err
		})
		s.terms = append(s.terms, t)
		return err
	})
	return s, err
}

// linearSpec copies the linear predictor of the file's mean m into nm
// (ParseSpec): the terms, with their loops, and a variable offset. A
// term's scale given as text is kept when isConst says it names one of the
// file's constants (an element "X[n,k]").
func linearSpec(nm *NormalMean, m jsonMean, field string, isConst func(text string) bool) error {
	if name, ok := m.offset.varName(); ok && name != "" {
		nm.OffsetVar, nm.Offset = name, nil
	}
	if !m.sum.set {
		return nil
	}
	nm.Sum = make([]SumTerm, len(m.sum.terms))
	for k, t := range m.sum.terms {
		nm.Sum[k].Of, nm.Sum[k].For = t.of, loopsSpec(t.loops)
		if t.scale.name != nil && isConst(*t.scale.name) {
			nm.Sum[k].Scale = &Operand{Var: *t.scale.name}
			continue
		}
		if t.scale.set && (t.scale.t == nil || !t.scale.t.Null) {
			x, err := t.scale.scalar(fmt.Sprintf("%smean.sum[%d].scale", field, k))
			if err != nil {
				return err
			}
			nm.Sum[k].Scale = &Operand{Value: x}
		}
	}
	return nil
}

// linearMean is the linear predictor of a normal factor's mean, read from
// the file: the scales of the distinct term variables, the offset, and the
// variables bound to the node after out (the terms', then the offset's).
type linearMean struct {
	scales []float64
	offset nodes.Mean
	vars   []*ffg.Variable
}

// isLinear reports whether the file's mean is a linear predictor: a "sum",
// or an "offset" that names a variable.
func (m jsonMean) isLinear() bool {
	name, ok := m.offset.varName()
	return m.obj && (m.sum.set || (ok && name != ""))
}

// readLinear reads the file's linear predictor m of the factor whose
// output is out. A variable named by several terms, or by a term and the
// offset, is bound once with its scales added. typed looks a variable up
// and checks its family; number reads a number (field .sub); check refuses
// a number out of range; fail is the factor's error for a sub-field.
func readLinear(m jsonMean, typed func(sub, name string, fam expfam.Family) (*ffg.Variable, error),
	number func(sub string, v jsonValue) (float64, error), check func(float64) error,
	fail func(sub, format string, args ...any) error) (*linearMean, error) {
	if m.sum.set && m.of != "" {
		return nil, fail("mean", `"of" and "sum" are two forms of the mean, give one`)
	}
	if m.sum.set && m.scale.set {
		return nil, fail("mean.scale", `not a field of a sum (each term has its own "scale")`)
	}
	terms := m.sum.terms
	if !m.sum.set {
		if m.of == "" {
			return nil, fail("mean.of", "missing (the normal variable the mean is an affine function of)")
		}
		terms = []jsonTerm{{at: -1, of: m.of, scale: m.scale}}
	}
	lm := &linearMean{}
	add := func(v *ffg.Variable, s float64) {
		for i, w := range lm.vars {
			if w == v {
				lm.scales[i] += s
				return
			}
		}
		lm.vars = append(lm.vars, v)
		lm.scales = append(lm.scales, s)
	}
	for _, t := range terms {
		if t.resolved {
			add(t.v, t.x)
			continue
		}
		sub := "mean"
		if t.at >= 0 {
			sub = fmt.Sprintf("mean.sum[%d]", t.at)
		}
		v, err := typed(sub+".of", t.of, expfam.NormalFamily)
		if err != nil {
			return nil, err
		}
		s := 1.0
		if t.scale.set {
			if s, err = number(sub+".scale", t.scale); err != nil {
				return nil, err
			}
			if err := check(s); err != nil {
				return nil, fail(sub+".scale", "%v", err)
			}
		}
		add(v, s)
	}
	lm.offset = nodes.LiteralMean(0)
	if name, ok := m.offset.varName(); ok && name != "" {
		v, err := typed("mean.offset", name, expfam.NormalFamily)
		if err != nil {
			return nil, err
		}
		n := len(lm.vars)
		if add(v, 1); len(lm.vars) > n {
			// A variable of its own: the offset interface.
			lm.vars, lm.scales = lm.vars[:n], lm.scales[:n]
			lm.offset = nodes.VariableMean()
			lm.vars = append(lm.vars, v)
		}
	} else if m.offset.set {
		c, err := number("mean.offset", m.offset)
		if err != nil {
			return nil, err
		}
		if err := check(c); err != nil {
			return nil, fail("mean.offset", "%v", err)
		}
		lm.offset = nodes.LiteralMean(c)
	}
	for k, s := range lm.scales {
		if err := check(s); err != nil {
			return nil, fail("mean", "the scales of variable %q add up to %v", lm.vars[k].Name(), s)
		}
	}
	return lm, nil
}
