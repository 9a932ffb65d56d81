package model

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// validModelFiles lists every model file in examples/models and the
// command's test data that loads and runs.
func validModelFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"../examples/models", "../cmd/arbor/testdata/models"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files {
			m, err := Load(f)
			if err != nil {
				continue
			}
			if _, err := m.Infer(context.Background(), f, nil); err == nil {
				out = append(out, f)
			}
		}
	}
	if len(out) < 5 {
		t.Fatalf("only %d valid model files", len(out))
	}
	return out
}

// result runs m (from its priors) and returns its output as JSON, every
// element of an array under its own name (flatJSON).
func result(t *testing.T, m *Model) []byte {
	t.Helper()
	res, err := m.Infer(context.Background(), m.Name, nil)
	if err != nil {
		t.Fatalf("%s: %v", m.Name, err)
	}
	return flatJSON(m.Output(res))
}

// flatJSON is the JSON of out with every hidden variable under its own
// name, an array's elements too ("x[3]"), as a written-out twin names
// them (without Arrays, an output has no arrays to nest).
func flatJSON(out InferOutput) []byte {
	out.Arrays = nil
	b, _ := json.Marshal(out)
	return b
}

// TestSpecRoundTrip: every valid model file decodes into a Spec whose JSON
// decodes into the same Spec, and FromSpec builds a model with the same
// numbers as the file (1e-12).
func TestSpecRoundTrip(t *testing.T) {
	for _, f := range validModelFiles(t) {
		data, _ := os.ReadFile(f)
		sp, err := ParseSpec(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		again, _ := json.Marshal(sp)
		sp2, err := ParseSpec(again)
		if err != nil {
			t.Fatalf("%s: re-read: %v", f, err)
		}
		if d := cmp.Diff(sp, sp2); d != "" {
			t.Errorf("%s: JSON -> Spec -> JSON -> Spec differs:\n%s", f, d)
		}
		fromFile, _ := Parse(f, data)
		fromSpec, err := FromSpec(f, sp)
		if err != nil {
			t.Fatalf("%s: FromSpec: %v", f, err)
		}
		if !sameNumbers(t, result(t, fromFile), result(t, fromSpec), 1e-12) {
			t.Errorf("%s: the Spec's model differs from the file's", f)
		}
	}
}

// viaBuilder writes the model of sp with the Builder: variables in file
// order (a Dirichlet or Gamma variable with its prior factor), then the
// other factors in file order.
func viaBuilder(t *testing.T, sp Spec) *Builder {
	t.Helper()
	b := New()
	vars := map[string]Var{}
	prior := map[string]FactorSpec{}
	for _, f := range sp.Factors {
		if f.Node == "dirichlet" || f.Node == "gamma" {
			prior[f.Out] = f
		}
	}
	for _, v := range sp.Variables {
		switch v.Family {
		case "categorical":
			h := b.Categorical(v.Name, v.Shape[0])
			if e := v.Observed; e != nil {
				if e.Probs != nil {
					h.ObserveSoft(e.Probs)
				} else {
					h.Observe(e.Index)
				}
			}
			vars[v.Name] = h
		case "dirichlet":
			vars[v.Name] = b.Dirichlet(v.Name, *prior[v.Name].Alpha)
		case "gamma":
			p := prior[v.Name]
			vars[v.Name] = b.Gamma(v.Name, *p.Shape, *p.Rate)
		case "normal":
			h := b.Normal(v.Name)
			if e := v.Observed; e != nil {
				h.ObserveValue(*e.Value)
			}
			vars[v.Name] = h
		}
	}
	operand := func(o Operand) Param {
		if o.Var != "" {
			return Of(vars[o.Var])
		}
		return Num(o.Value)
	}
	for _, f := range sp.Factors {
		out := vars[f.Out]
		var parents []Var
		for _, in := range f.In {
			parents = append(parents, vars[in])
		}
		switch f.Node {
		case "categorical":
			if f.P.Tensor != nil {
				out.Prior(f.P.Tensor.Data)
			} else {
				out.PriorFrom(vars[f.P.Var])
			}
		case "transition":
			if f.Matrix.Tensor != nil {
				out.Given(*f.Matrix.Tensor, parents...)
			} else {
				out.From(vars[f.Matrix.Var], parents...)
			}
		case "softmax":
			out.Softmax(vars[f.Precision], f.Values.Data)
		case "normal":
			mean := Num(f.Mean.Value)
			if m := f.Mean; m.Var != "" {
				mean = Of(vars[m.Var])
				if m.Scale != nil || m.Offset != nil {
					a, c := 1.0, 0.0
					if m.Scale != nil {
						a = *m.Scale
					}
					if m.Offset != nil {
						c = *m.Offset
					}
					mean = Affine(vars[m.Var], a, c)
				}
			}
			if m := f.Mean; m.Sum != nil {
				var terms []Term
				for _, st := range m.Sum {
					s := 1.0
					if st.Scale != nil {
						s = st.Scale.Value
					}
					terms = append(terms, vars[st.Of].Times(s))
				}
				off := Num(0)
				if m.Offset != nil {
					off = Num(*m.Offset)
				} else if m.OffsetVar != "" {
					off = Of(vars[m.OffsetVar])
				}
				mean = Linear(off, terms...)
			}
			prec := Operand{Var: f.Precision}
			if f.PrecisionValue != nil {
				prec.Value = *f.PrecisionValue
			}
			out.NormalFrom(mean, operand(prec))
		case "normal-mixture":
			var means, precs []Param
			for j := range f.Means {
				means = append(means, operand(f.Means[j]))
				precs = append(precs, operand(f.Precisions[j]))
			}
			out.MixtureFrom(vars[f.Switch], means, precs)
		}
		if f.Name != "" && f.Node != "dirichlet" && f.Node != "gamma" {
			b.Name(f.Name)
		}
		if f.Node == "softmax" && f.Update != "" {
			b.spec.Factors[len(b.spec.Factors)-1].Update = f.Update
		}
	}
	if sp.Settings != nil {
		b.Settings(*sp.Settings)
	}
	return b
}

// TestBuilderBuildsEveryFile: every valid model file written with the
// Builder gives the same numbers as the file (1e-12).
func TestBuilderBuildsEveryFile(t *testing.T) {
	for _, f := range validModelFiles(t) {
		data, _ := os.ReadFile(f)
		sp, _ := ParseSpec(data)
		m, err := viaBuilder(t, sp).Build(f)
		if err != nil {
			t.Fatalf("%s: Build: %v", f, err)
		}
		fromFile, _ := Parse(f, data)
		if !sameNumbers(t, result(t, fromFile), result(t, m), 1e-12) {
			t.Errorf("%s: the builder's model differs from the file's", f)
		}
	}
}

// TestBuilderErrors: faults are kept until Build and named there; a fault
// that the file format also has gets the file's message.
func TestBuilderErrors(t *testing.T) {
	two := New()
	alien := two.Categorical("x", 2)
	cases := []struct {
		name  string
		build func(b *Builder)
		want  []string
	}{
		{"handle of another model", func(b *Builder) {
			b.Categorical("s", 2).Given(Tensor{Data: []float64{1, 0, 0, 1}, Shape: []int{2, 2}}, alien)
		}, []string{`parent 1 of "s"`, "another model"}},
		{"duplicate name", func(b *Builder) { b.Categorical("s", 2); b.Categorical("s", 3) }, []string{`"s"`, "twice"}},
		{"empty name", func(b *Builder) { b.Categorical("", 2).Prior([]float64{0.5, 0.5}) }, []string{"variables[0].name", "missing"}},
		{"control character", func(b *Builder) { b.Categorical("s\n1", 2).Prior([]float64{0.5, 0.5}) }, []string{"variables[0].name", "control character"}},
		{"column sum", func(b *Builder) {
			s := b.Categorical("s", 2).Prior([]float64{0.5, 0.5})
			b.Categorical("o", 2).Given(Tensor{Data: []float64{0.9, 0.2, 0.2, 0.8}, Shape: []int{2, 2}}, s)
		}, []string{"factors[1]", "column", "sums to 1.1"}},
		{"index out of range", func(b *Builder) { b.Categorical("o", 2).Observe(5).Prior([]float64{0.5, 0.5}) }, []string{`variables[0] ("o").observed`, "out of range"}},
	}
	for _, c := range cases {
		b := New()
		c.build(b)
		_, err := b.Build("built")
		if err == nil {
			t.Errorf("%s: built", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
	}
	// The same fault in a file gets the same message (but the file name).
	b := New()
	s := b.Categorical("s", 2).Prior([]float64{0.5, 0.5})
	b.Categorical("o", 2).Given(Tensor{Data: []float64{0.9, 0.2, 0.2, 0.8}, Shape: []int{2, 2}}, s)
	_, berr := b.Build("m.json")
	data, _ := json.Marshal(b.Spec())
	_, ferr := Parse("m.json", data)
	if berr == nil || ferr == nil || berr.Error() != ferr.Error() {
		t.Errorf("builder %v, file %v: want the same message", berr, ferr)
	}
}

// ExampleBuilder writes a two-step HMM with a learned transition matrix.
func ExampleBuilder() {
	A := Tensor{Shape: []int{2, 2}, Data: []float64{0.9, 0.2, 0.1, 0.8}}
	b := New()
	B := b.Dirichlet("B", Tensor{Shape: []int{2, 2}, Data: []float64{2, 1, 1, 2}})
	s := b.Categorical("s0", 2).Prior([]float64{0.5, 0.5})
	for t, o := range []int{0, 0, 1} {
		if t > 0 {
			s = b.Categorical(fmt.Sprint("s", t), 2).From(B, s)
		}
		b.Categorical(fmt.Sprint("o", t), 2).Observe(o).Given(A, s)
	}
	m, err := b.Build("hmm")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Infer(context.Background(), "hmm", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	out := m.Output(res)
	fmt.Printf("converged %v, s2 = %.3f\n", out.Converged, out.Posteriors["s2"].P)
	// Output:
	// converged true, s2 = [0.138 0.862]
}
