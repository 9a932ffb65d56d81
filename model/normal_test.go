package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// localLevelFile is a local-level model of four steps with the observations
// given in the file and the observation precision learned.
const localLevelFile = `{
  "variables": [
    {"name": "r", "family": "gamma"},
    {"name": "x0", "family": "normal"},
    {"name": "x1", "family": "normal"},
    {"name": "x2", "family": "normal"},
    {"name": "y0", "family": "normal", "observed": 0.3},
    {"name": "y1", "family": "normal", "observed": 1.1},
    {"name": "y2", "family": "normal", "observed": 0.7}
  ],
  "factors": [
    {"node": "gamma", "out": "r", "shape": 2, "rate": 1},
    {"node": "normal", "out": "x0", "mean": 0, "precision": 1},
    {"node": "normal", "out": "x1", "mean": {"of": "x0", "scale": 0.9, "offset": 0.1}, "precision": 4},
    {"node": "normal", "out": "x2", "mean": "x1", "precision": 4},
    {"node": "normal", "out": "y0", "mean": "x0", "precision": "r"},
    {"node": "normal", "out": "y1", "mean": "x1", "precision": "r"},
    {"node": "normal", "out": "y2", "mean": "x2", "precision": "r"}
  ],
  "settings": {"method": "sum-product", "iterations": 500, "tolerance": 1e-13}
}`

// TestNormalFileBuilderAndSpec: the same local-level model from the file,
// from the Builder and from the file's Spec (JSON → Spec → JSON) gives the
// same posteriors bit for bit; its output prints the normal posteriors as
// {"family": "normal", "mean": m, "variance": v}; a data line with numbers
// replaces the observations.
func TestNormalFileBuilderAndSpec(t *testing.T) {
	fromFile, err := Parse("ll.json", []byte(localLevelFile))
	if err != nil {
		t.Fatal(err)
	}
	b := New()
	r := b.Gamma("r", 2, 1)
	x0 := b.Normal("x0").NormalFrom(Num(0), Num(1))
	x1 := b.Normal("x1").NormalFrom(Affine(x0, 0.9, 0.1), Num(4))
	x2 := b.Normal("x2").NormalFrom(Of(x1), Num(4))
	for i, x := range []Var{x0, x1, x2} {
		b.Normal([]string{"y0", "y1", "y2"}[i]).ObserveValue([]float64{0.3, 1.1, 0.7}[i]).NormalFrom(Of(x), Of(r))
	}
	b.Settings(SettingsSpec{Method: "sum-product", Iterations: 500, Tolerance: 1e-13})
	// The builder adds y after x's factors; reorder nothing: compare by name.
	fromBuilder, err := b.Build("builder")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ParseSpec([]byte(localLevelFile))
	if err != nil {
		t.Fatal(err)
	}
	fromSpec, err := FromSpec("spec", sp)
	if err != nil {
		t.Fatal(err)
	}
	var outs []InferOutput
	for _, m := range []*Model{fromFile, fromBuilder, fromSpec} {
		res, err := m.Infer(context.Background(), "run", nil)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, m.Output(res))
	}
	for _, name := range []string{"x0", "x1", "x2", "r"} {
		want, _ := json.Marshal(outs[0].Posteriors[name])
		for i, o := range outs[1:] {
			got, _ := json.Marshal(o.Posteriors[name])
			if string(got) != string(want) {
				t.Errorf("%s: model %d gives %s, the file %s", name, i+1, got, want)
			}
		}
	}
	p := outs[0].Posteriors["x1"]
	if p.Family != "normal" || p.Mean == nil || p.Variance == nil || !(*p.Variance > 0) {
		t.Errorf("x1 posterior %+v", p)
	}
	js, _ := json.Marshal(p)
	if !strings.HasPrefix(string(js), `{"family":"normal","mean":`) || !strings.Contains(string(js), `"variance":`) {
		t.Errorf("x1 as JSON: %s", js)
	}
	// Data lines with numbers: the same as a file with those observations.
	d, err := ParseData("d.jsonl:1", []byte(`{"y0": -0.25, "y1": 2, "y2": 0.5}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := fromFile.Infer(context.Background(), "d.jsonl:1", d)
	if err != nil {
		t.Fatal(err)
	}
	viaData := fromFile.Output(res)
	edited := strings.NewReplacer(`"observed": 0.3`, `"observed": -0.25`, `"observed": 1.1`, `"observed": 2`, `"observed": 0.7`, `"observed": 0.5`).Replace(localLevelFile)
	m2, err := Parse("edited.json", []byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	res2, err := m2.Infer(context.Background(), "edited", nil)
	if err != nil {
		t.Fatal(err)
	}
	direct := m2.Output(res2)
	for _, name := range []string{"x0", "x1", "x2", "r"} {
		a, _ := json.Marshal(viaData.Posteriors[name])
		c, _ := json.Marshal(direct.Posteriors[name])
		if string(a) != string(c) {
			t.Errorf("%s: data line %s, edited file %s", name, a, c)
		}
	}
	if math.Abs(*viaData.Posteriors["x0"].Mean-*outs[0].Posteriors["x0"].Mean) < 1e-6 {
		t.Error("the data line changed nothing")
	}
}

// TestNormalFileErrors: each bad input names the file and the field; the
// same faults from the builder name the variable.
func TestNormalFileErrors(t *testing.T) {
	base := func(vars, factors string) string {
		return `{"variables": [{"name": "m", "family": "normal"}, {"name": "s", "family": "categorical", "shape": [2]},
		{"name": "t", "family": "gamma"}, {"name": "y", "family": "normal", "observed": 1.5}` + vars + `],
		"factors": [{"node": "gamma", "out": "t", "shape": 1, "rate": 1}, {"node": "normal", "out": "m", "mean": 0, "precision": 1}` + factors + `]}`
	}
	for _, c := range []struct {
		file string
		want []string
	}{
		{base("", `, {"node": "normal", "out": "y", "mean": "m", "precision": 0}`), []string{"f.json", "factors[2] (normal).precision", "want a finite number > 0"}},
		{base("", `, {"node": "normal", "out": "y", "mean": "m", "precision": -2}`), []string{"factors[2] (normal).precision", "-2"}},
		{base("", `, {"node": "normal", "out": "y", "mean": "m", "precision": 1e999}`), []string{"factors[2] (normal).precision", "not a finite number"}},
		{base("", `, {"node": "normal", "out": "y", "mean": 1e999, "precision": 1}`), []string{"factors[2] (normal).mean", "not a finite number"}},
		{base("", `, {"node": "normal", "out": "y", "mean": "s", "precision": 1}`), []string{"factors[2] (normal).mean", `variable "s" is categorical, want normal`}},
		{base("", `, {"node": "normal", "out": "y", "mean": "m", "precision": "s"}`), []string{"factors[2] (normal).precision", `"s" is categorical, want gamma`}},
		{base("", `, {"node": "normal", "out": "y", "mean": {"of": "m", "scale": "x"}, "precision": 1}`), []string{"factors[2] (normal).mean.scale"}},
		{base("", `, {"node": "normal", "out": "y", "mean": {"scale": 2}, "precision": 1}`), []string{"factors[2] (normal).mean.of", "missing"}},
		{base("", `, {"node": "normal", "out": "y", "precision": 1}`), []string{"factors[2] (normal).mean", "missing"}},
		{base("", `, {"node": "normal", "out": "s", "mean": "m", "precision": 1}`), []string{"factors[2] (normal).out", "want normal"}},
		{base("", `, {"node": "normal-mixture", "out": "y", "switch": "s", "means": ["m"], "precisions": [1, 2]}`), []string{"factors[2] (normal-mixture).means", "1 entries, want 2"}},
		{base("", `, {"node": "normal-mixture", "out": "y", "switch": "s", "means": ["m", 0], "precisions": [1]}`), []string{"factors[2] (normal-mixture).precisions", "1 entries, want 2"}},
		{base("", `, {"node": "normal-mixture", "out": "y", "switch": "s", "means": ["m", 0], "precisions": [1, 0]}`), []string{"precisions[1]", "want a finite number > 0"}},
		{base("", `, {"node": "normal-mixture", "out": "y", "switch": "m", "means": ["m", 0], "precisions": [1, 1]}`), []string{"factors[2] (normal-mixture).switch", "want categorical"}},
		{base(`, {"name": "z", "family": "normal", "observed": 1e999}`, ""), []string{`variables[4] ("z").observed`, "not a finite number"}},
		{base(`, {"name": "z", "family": "normal", "observed": [1, 2]}`, ""), []string{`variables[4] ("z").observed`, "want a number"}},
		{base(`, {"name": "z", "family": "normal", "shape": [2]}`, ""), []string{`variables[4] ("z").shape`, "scalar"}},
		{base("", `, {"node": "normal", "out": "y", "mean": "m", "precision": 1, "switch": "s"}`), []string{"factors[2] (normal).switch", "not a field of a normal node"}},
	} {
		_, err := Parse("f.json", []byte(c.file))
		if err == nil {
			t.Errorf("accepted: %s", c.file)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q lacks %q", err, w)
			}
		}
	}
	// Data lines: a normal variable needs a finite number.
	m, err := Parse("f.json", []byte(base("", `, {"node": "normal", "out": "y", "mean": "m", "precision": "t"}`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ line, want string }{
		{`{"y": [0.5, 0.5]}`, `d:1: "y": want a number`},
		{`{"y": 1e999}`, `"y"`},
		{`{"s": 0.5}`, `"s": 0.5, want an outcome index`},
	} {
		d, err := ParseData("d:1", []byte(c.line))
		if err == nil {
			_, err = m.Infer(context.Background(), "d:1", d)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.line, err, c.want)
		}
	}
	// The builder names the variable.
	for _, c := range []struct {
		build func(b *Builder)
		want  string
	}{
		{func(b *Builder) { b.Normal("y").NormalFrom(Num(0), Num(0)) }, `variable "y": precision: precision is 0, want > 0`},
		{func(b *Builder) { b.Normal("y").NormalFrom(Num(math.NaN()), Num(1)) }, `variable "y": mean: value NaN`},
		{func(b *Builder) { b.Normal("y").ObserveValue(math.Inf(1)) }, `variable "y": observed value +Inf`},
		{func(b *Builder) { s := b.Categorical("s", 2); b.Normal("y").NormalFrom(Of(s), Num(1)) }, `variable "y": mean "s" is categorical, want normal`},
		{func(b *Builder) {
			s := b.Categorical("s", 2)
			b.Normal("y").MixtureFrom(s, []Param{Num(0)}, []Param{Num(1), Num(1)})
		}, `variable "y": 1 means and 2 precisions, want 2 of each`},
		{func(b *Builder) {
			s := b.Categorical("s", 2)
			b.Normal("y").MixtureFrom(s, []Param{Num(0), Num(1)}, []Param{Num(1), Num(-1)})
		}, `variable "y": precisions[1]: precision is -1`},
	} {
		b := New()
		c.build(b)
		_, err := b.Build("b")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("builder: error %v, want %q", err, c.want)
		}
	}
}

// TestMixtureTiedPrecision: a mixture whose components share one
// precision variable (written twice in "precisions") binds it once; at the
// fixed point q(t) = Gamma(a_0 + n/2, b_0 + ½ Σ_i Σ_k r_ik (y_i - m_k)²)
// with the literal means m = (-1, 1) and r_ik = q(z_i = k), and
// r_i1 ∝ exp(E ln θ_1 - ½ E t (y_i - m_1)²) with θ = (0.5, 0.5) literal.
func TestMixtureTiedPrecision(t *testing.T) {
	ys := []float64{-1.2, -0.7, 0.9, 1.4, -1.1, 1.05}
	file := `{"variables": [{"name": "t", "family": "gamma"}`
	for i := range ys {
		file += fmt.Sprintf(`, {"name": "z%d", "family": "categorical", "shape": [2]}, {"name": "y%d", "family": "normal", "observed": %v}`, i, i, ys[i])
	}
	file += `], "factors": [{"node": "gamma", "out": "t", "shape": 2, "rate": 1}`
	for i := range ys {
		file += fmt.Sprintf(`, {"node": "categorical", "out": "z%d", "p": [0.5, 0.5]}, {"node": "normal-mixture", "out": "y%d", "switch": "z%d", "means": [-1, 1], "precisions": ["t", "t"]}`, i, i, i)
	}
	file += `], "settings": {"iterations": 1000, "tolerance": 1e-14}}`
	m, err := Parse("tied.json", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Infer(context.Background(), "tied", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := m.Output(res)
	q := out.Posteriors["t"]
	ss := 0.0
	for i, y := range ys {
		r := out.Posteriors[fmt.Sprintf("z%d", i)].P
		ss += r[0]*(y+1)*(y+1) + r[1]*(y-1)*(y-1)
		et := *q.Shape / *q.Rate
		want := 1 / (1 + math.Exp(-0.5*et*((y-1)*(y-1)-(y+1)*(y+1))))
		if math.Abs(r[0]-want) > 1e-6 {
			t.Errorf("z%d: q(z = 0) = %v, want %v", i, r[0], want)
		}
	}
	if math.Abs(*q.Shape-(2+float64(len(ys))/2)) > 1e-12 || math.Abs(*q.Rate-(1+ss/2)) > 1e-6 {
		t.Errorf("q(t) = Gamma(%v, %v), want Gamma(%v, %v)", *q.Shape, *q.Rate, 2+float64(len(ys))/2, 1+ss/2)
	}
}

// TestNormalImproper: under sum-product a chain with no prior and no
// evidence has no proper Gaussian posterior; the run fails as bad input
// naming a variable of the chain.
func TestNormalImproper(t *testing.T) {
	m, err := Parse("improper.json", []byte(`{"variables": [{"name": "x", "family": "normal"}, {"name": "y", "family": "normal"}],
	  "factors": [{"node": "normal", "out": "y", "mean": "x", "precision": 1}], "settings": {"method": "sum-product"}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Infer(context.Background(), "improper", nil)
	var me *Error
	if !errors.As(err, &me) || !strings.Contains(err.Error(), `improper.json: variables[`) || !strings.Contains(err.Error(), "no proper Gaussian") {
		t.Errorf("error %v, want an *Error naming a variable and the improper posterior", err)
	}
}
