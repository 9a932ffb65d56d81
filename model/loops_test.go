package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The models of the loop tests, each with loops and written out by hand
// (its twin: every element a scalar variable "x[0]", every factor
// written out, by code that does not share the loader's expansion).

// hmmLoops is an HMM of T steps: a learned transition matrix, literal
// emission and initial probabilities given as data constants, one
// observation left out (null) and one soft.
const hmmLoops = `{
  "sizes": {"T": 8},
  "data": {"A": [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]], "D": [0.6, 0.3, 0.1]},
  "variables": [
    {"name": "B", "family": "dirichlet", "shape": [3, 3]},
    {"name": "s", "family": "categorical", "shape": [3], "size": "T"},
    {"name": "o", "family": "categorical", "shape": [3], "size": "T",
     "observed": [0, 0, 1, 1, null, 2, [0.2, 0.3, 0.5], 0]}
  ],
  "factors": [
    {"node": "dirichlet", "out": "B", "alpha": [[4, 1, 1], [1, 4, 1], [1, 1, 4]]},
    {"node": "categorical", "out": "s[0]", "p": "D"},
    {"node": "transition", "name": "step", "for": {"t": "1..T-1"}, "out": "s[t]", "in": ["s[t-1]"], "matrix": "B"},
    {"node": "transition", "for": {"t": "0..T-1"}, "out": "o[t]", "in": ["s[t]"], "matrix": "A"}
  ],
  "settings": {"iterations": 1000, "tolerance": 1e-12}
}`

func hmmTwin() string {
	const A = `[[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]`
	obs := []string{"0", "0", "1", "1", "", "2", "[0.2, 0.3, 0.5]", "0"}
	var v, f []string
	v = append(v, `{"name": "B", "family": "dirichlet", "shape": [3, 3]}`)
	for t := range 8 {
		v = append(v, fmt.Sprintf(`{"name": "s[%d]", "family": "categorical", "shape": [3]}`, t))
	}
	for t := range 8 {
		o := ""
		if obs[t] != "" {
			o = `, "observed": ` + obs[t]
		}
		v = append(v, fmt.Sprintf(`{"name": "o[%d]", "family": "categorical", "shape": [3]%s}`, t, o))
	}
	f = append(f, `{"node": "dirichlet", "out": "B", "alpha": [[4, 1, 1], [1, 4, 1], [1, 1, 4]]}`,
		`{"node": "categorical", "out": "s[0]", "p": [0.6, 0.3, 0.1]}`)
	for t := 1; t < 8; t++ {
		f = append(f, fmt.Sprintf(`{"node": "transition", "name": "step[%d]", "out": "s[%d]", "in": ["s[%d]"], "matrix": "B"}`, t, t, t-1))
	}
	for t := range 8 {
		f = append(f, fmt.Sprintf(`{"node": "transition", "out": "o[%d]", "in": ["s[%d]"], "matrix": %s}`, t, t, A))
	}
	return twin(v, f, `{"iterations": 1000, "tolerance": 1e-12}`)
}

func twin(vars, factors []string, settings string) string {
	return fmt.Sprintf("{\"variables\": [\n  %s],\n \"factors\": [\n  %s],\n \"settings\": %s}\n",
		strings.Join(vars, ",\n  "), strings.Join(factors, ",\n  "), settings)
}

// localLevelTwin writes out examples/models/loops/local-level.json.
func localLevelTwin(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../examples/models/local-level.json")
	if err != nil {
		t.Fatal(err)
	}
	// The same model as the loops file, with x0 named x[0].
	var sp struct {
		Variables []struct {
			Name     string
			Observed *float64
		}
	}
	if err := json.Unmarshal(data, &sp); err != nil {
		t.Fatal(err)
	}
	var ys []float64
	for _, v := range sp.Variables {
		if v.Observed != nil {
			ys = append(ys, *v.Observed)
		}
	}
	T := len(ys)
	v := []string{`{"name": "r", "family": "gamma"}`}
	for i := range T {
		v = append(v, fmt.Sprintf(`{"name": "x[%d]", "family": "normal"}`, i))
	}
	for i, y := range ys {
		v = append(v, fmt.Sprintf(`{"name": "y[%d]", "family": "normal", "observed": %v}`, i, y))
	}
	f := []string{`{"node": "gamma", "out": "r", "shape": 2, "rate": 2}`, `{"node": "normal", "out": "x[0]", "mean": 0, "precision": 0.1}`}
	for i := 1; i < T; i++ {
		f = append(f, fmt.Sprintf(`{"node": "normal", "out": "x[%d]", "mean": "x[%d]", "precision": 4}`, i, i-1))
	}
	for i := range T {
		f = append(f, fmt.Sprintf(`{"node": "normal", "out": "y[%d]", "mean": "x[%d]", "precision": "r"}`, i, i))
	}
	return twin(v, f, `{"method": "sum-product", "iterations": 1000, "tolerance": 1e-12}`)
}

// mixtureYs are the observations of examples/models/gaussian-mixture.json.
var mixtureYs = []float64{-0.762, 2.927, -1.908, 2.081, 3.176, 2.848, -0.289, -1.893, -2.386, -0.053, 4.334, 2.367, -0.469, 0.118, 3.182, -0.286, -0.034, 0.739, -1.286, 3.151, 1.029, -1.012, -2.037, 3.575, 0.819, -2.597, -0.135, -0.981, 0.043, 2.186}

// mixtureLoops is examples/models/gaussian-mixture.json with loops: the
// components' prior means a data constant, the mixture's means and
// precisions elements.
func mixtureLoops() string {
	ys, _ := json.Marshal(mixtureYs)
	return `{
  "sizes": {"N": 30, "K": 3},
  "data": {"mu": [-2, 0, 2]},
  "variables": [
    {"name": "z", "family": "categorical", "shape": [3], "size": "N"},
    {"name": "theta", "family": "dirichlet", "shape": [3]},
    {"name": "m", "family": "normal", "size": "K"},
    {"name": "t", "family": "gamma", "size": "K"},
    {"name": "y", "family": "normal", "size": "N", "observed": ` + string(ys) + `}
  ],
  "factors": [
    {"node": "dirichlet", "out": "theta", "alpha": [1, 1, 1]},
    {"node": "normal", "for": {"k": "0..K-1"}, "out": "m[k]", "mean": "mu[k]", "precision": 0.25},
    {"node": "gamma", "for": {"k": "0..K-1"}, "out": "t[k]", "shape": 2, "rate": 1},
    {"node": "categorical", "for": {"n": "0..N-1"}, "out": "z[n]", "p": "theta"},
    {"node": "normal-mixture", "for": {"n": "0..N-1"}, "out": "y[n]", "switch": "z[n]",
     "means": ["m[0]", "m[1]", "m[2]"], "precisions": ["t[0]", "t[1]", "t[K-1]"]}
  ],
  "settings": {"iterations": 1000, "tolerance": 1e-12}
}`
}

func mixtureTwin() string {
	var v, f []string
	for n := range 30 {
		v = append(v, fmt.Sprintf(`{"name": "z[%d]", "family": "categorical", "shape": [3]}`, n))
	}
	v = append(v, `{"name": "theta", "family": "dirichlet", "shape": [3]}`)
	for k := range 3 {
		v = append(v, fmt.Sprintf(`{"name": "m[%d]", "family": "normal"}`, k))
	}
	for k := range 3 {
		v = append(v, fmt.Sprintf(`{"name": "t[%d]", "family": "gamma"}`, k))
	}
	for n, y := range mixtureYs {
		v = append(v, fmt.Sprintf(`{"name": "y[%d]", "family": "normal", "observed": %v}`, n, y))
	}
	f = append(f, `{"node": "dirichlet", "out": "theta", "alpha": [1, 1, 1]}`)
	for k, mu := range []int{-2, 0, 2} {
		f = append(f, fmt.Sprintf(`{"node": "normal", "out": "m[%d]", "mean": %d, "precision": 0.25}`, k, mu))
	}
	for k := range 3 {
		f = append(f, fmt.Sprintf(`{"node": "gamma", "out": "t[%d]", "shape": 2, "rate": 1}`, k))
	}
	for n := range 30 {
		f = append(f, fmt.Sprintf(`{"node": "categorical", "out": "z[%d]", "p": "theta"}`, n))
	}
	for n := range 30 {
		f = append(f, fmt.Sprintf(`{"node": "normal-mixture", "out": "y[%d]", "switch": "z[%d]", "means": ["m[0]", "m[1]", "m[2]"], "precisions": ["t[0]", "t[1]", "t[2]"]}`, n, n))
	}
	return twin(v, f, `{"iterations": 1000, "tolerance": 1e-12}`)
}

// regressionLoops has a two-dimensional array and nested loops: y[n,k] ~
// N(X[n,k] w[k] + 0.5, 1/tau), with the covariates X a constant longer
// than the loops use, w[k] ~ N(mu[k], 1), tau ~ Gamma(G[0], G[1]).
const regressionLoops = `{
  "sizes": {"N": 4, "K": 2},
  "data": {"X": [[0.5, 1], [1, -0.5], [1.5, 0.2], [-1, 2], [9, 9], [9, 9]], "mu": [0, 1], "G": [2, 1]},
  "variables": [
    {"name": "w", "family": "normal", "size": "K"},
    {"name": "tau", "family": "gamma"},
    {"name": "y", "family": "normal", "size": ["N", "K"],
     "observed": [[1.1, 0.4], [1.3, null], [1.9, 0.8], [-0.2, 2.7]]}
  ],
  "factors": [
    {"node": "normal", "for": {"k": "0..K-1"}, "out": "w[k]", "mean": "mu[k]", "precision": 1},
    {"node": "gamma", "out": "tau", "shape": "G[0]", "rate": "G[1]"},
    {"node": "normal", "for": {"n": "0..N-1", "k": "0..K-1"}, "out": "y[n,k]",
     "mean": {"of": "w[k]", "scale": "X[n,k]", "offset": 0.5}, "precision": "tau"}
  ]
}`

func regressionTwin() string {
	X := [][]float64{{0.5, 1}, {1, -0.5}, {1.5, 0.2}, {-1, 2}}
	obs := [][]string{{"1.1", "0.4"}, {"1.3", ""}, {"1.9", "0.8"}, {"-0.2", "2.7"}}
	v := []string{`{"name": "w[0]", "family": "normal"}`, `{"name": "w[1]", "family": "normal"}`, `{"name": "tau", "family": "gamma"}`}
	var f []string
	for n := range 4 {
		for k := range 2 {
			o := ""
			if obs[n][k] != "" {
				o = `, "observed": ` + obs[n][k]
			}
			v = append(v, fmt.Sprintf(`{"name": "y[%d,%d]", "family": "normal"%s}`, n, k, o))
		}
	}
	f = append(f, `{"node": "normal", "out": "w[0]", "mean": 0, "precision": 1}`, `{"node": "normal", "out": "w[1]", "mean": 1, "precision": 1}`,
		`{"node": "gamma", "out": "tau", "shape": 2, "rate": 1}`)
	for n := range 4 {
		for k := range 2 {
			f = append(f, fmt.Sprintf(`{"node": "normal", "out": "y[%d,%d]", "mean": {"of": "w[%d]", "scale": %v, "offset": 0.5}, "precision": "tau"}`, n, k, k, X[n][k]))
		}
	}
	return twin(v, f, `null`)
}

// loopModels are the models with loops and their twins.
func loopModels(t *testing.T) []struct{ name, loops, twin string } {
	ll, err := os.ReadFile("../examples/models/loops/local-level.json")
	if err != nil {
		t.Fatal(err)
	}
	return []struct{ name, loops, twin string }{
		{"hmm", hmmLoops, hmmTwin()},
		{"local-level", string(ll), localLevelTwin(t)},
		{"gaussian-mixture", mixtureLoops(), mixtureTwin()},
		{"regression", regressionLoops, regressionTwin()},
		{"linear-regression", string(mustRead(t, regressionLoopsExample)), exampleRegressionTwin(t)},
		{"triangle", triangleLoops, triangleTwin()},
	}
}

// TestLoopsSameAsTwin: a file with loops and its written-out twin are the
// same model: the same variables and factors in the same order, the same
// posteriors, sweeps and F trace, to the last digit.
func TestLoopsSameAsTwin(t *testing.T) {
	for _, c := range loopModels(t) {
		a, err := Parse(c.name+"-loops.json", []byte(c.loops))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b, err := Parse(c.name+".json", []byte(c.twin))
		if err != nil {
			t.Fatalf("%s twin: %v\n%s", c.name, err, c.twin)
		}
		if len(a.Variables) != len(b.Variables) || len(a.Factors) != len(b.Factors) {
			t.Fatalf("%s: %d variables and %d factors, twin %d and %d", c.name, len(a.Variables), len(a.Factors), len(b.Variables), len(b.Factors))
		}
		for i := range a.Variables {
			if a.Variables[i].Name() != b.Variables[i].Name() || a.Variables[i].Observed() != b.Variables[i].Observed() {
				t.Errorf("%s: variable %d is %q, twin %q", c.name, i, a.Variables[i].Name(), b.Variables[i].Name())
			}
		}
		for i := range a.Factors {
			if a.Factors[i].Name() != b.Factors[i].Name() {
				t.Errorf("%s: factor %d is %q, twin %q", c.name, i, a.Factors[i].Name(), b.Factors[i].Name())
			}
		}
		ra, rb := result(t, a), result(t, b)
		if !bytes.Equal(ra, rb) {
			t.Errorf("%s: results differ:\nloops %s\ntwin  %s", c.name, ra, rb)
		}
		var out InferOutput
		_ = json.Unmarshal(ra, &out)
		if !out.Converged || len(out.Posteriors) == 0 {
			t.Errorf("%s: %d sweeps, converged %v, %d posteriors", c.name, out.Iterations, out.Converged, len(out.Posteriors))
		}
	}
}

// TestLoopsSameAsExampleFile: the local-level model with loops is
// examples/models/local-level.json (x0 there is x[0] here).
func TestLoopsSameAsExampleFile(t *testing.T) {
	a, err := Load("../examples/models/loops/local-level.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load("../examples/models/local-level.json")
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := result(t, a), result(t, b)
	for _, p := range []string{"x", "y"} {
		for i := 19; i >= 0; i-- {
			rb = bytes.ReplaceAll(rb, []byte(fmt.Sprintf(`"%s%d"`, p, i)), []byte(fmt.Sprintf(`"%s[%d]"`, p, i)))
		}
	}
	if !sameNumbers(t, ra, rb, 0) {
		t.Errorf("loops %s\nfile  %s", ra, rb)
	}
}

// TestLoopsSpecRoundTrip: a file with loops read into a Spec and written
// back keeps its sizes, arrays, constants and loops; the Spec read again
// is the same, and FromSpec builds the same model as the file.
func TestLoopsSpecRoundTrip(t *testing.T) {
	for _, c := range loopModels(t) {
		sp, err := ParseSpec([]byte(c.loops))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		again, err := json.Marshal(sp)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, want := range []string{`"sizes":`, `"for":`, `"size":`} {
			if !bytes.Contains(again, []byte(want)) {
				t.Errorf("%s: written back without %s: %s", c.name, want, again)
			}
		}
		sp2, err := ParseSpec(again)
		if err != nil {
			t.Fatalf("%s: re-read: %v\n%s", c.name, err, again)
		}
		if d := cmp.Diff(sp, sp2); d != "" {
			t.Errorf("%s: JSON -> Spec -> JSON -> Spec differs:\n%s", c.name, d)
		}
		fromFile, _ := Parse(c.name, []byte(c.loops))
		fromSpec, err := FromSpec(c.name, sp)
		if err != nil {
			t.Fatalf("%s: FromSpec: %v", c.name, err)
		}
		if a, b := result(t, fromFile), result(t, fromSpec); !bytes.Equal(a, b) {
			t.Errorf("%s: the Spec's model differs from the file's:\n%s\n%s", c.name, a, b)
		}
	}
	// The Go values.
	sp, _ := ParseSpec([]byte(regressionLoops))
	if sp.Sizes["N"] != 4 || sp.Sizes["K"] != 2 || len(sp.Data["X"].Data) != 12 {
		t.Errorf("sizes %v, data %v", sp.Sizes, sp.Data)
	}
	y := sp.Variables[2]
	if d := cmp.Diff(Size{{Expr: "N"}, {Expr: "K"}}, y.Size); d != "" {
		t.Errorf("size: %s", d)
	}
	if o := y.ObservedArray; o == nil || len(o.Elements) != 8 || o.Elements[3] != nil || *o.Elements[2].Value != 1.3 {
		t.Errorf("observed %+v", o)
	}
	f := sp.Factors[2]
	if d := cmp.Diff(Loops{{"n", "0..N-1"}, {"k", "0..K-1"}}, f.For); d != "" {
		t.Errorf("for: %s", d)
	}
	if f.DataRefs["mean.scale"] != "X[n,k]" || f.Mean.Var != "w[k]" || sp.Factors[1].DataRefs["shape"] != "G[0]" {
		t.Errorf("factor %+v, %+v", f, sp.Factors[1])
	}
}

// TestLoopsRanges: ranges are inclusive, an end below the start is an
// empty loop, nested loops run in key order and an inner range may use
// the outer index.
func TestLoopsRanges(t *testing.T) {
	model := func(T int, loops string) *Model {
		t.Helper()
		m, err := Parse("m.json", []byte(fmt.Sprintf(`{"sizes": {"T": %d, "K": 3},
		  "variables": [{"name": "x", "family": "normal", "size": ["T", "K"]}],
		  "factors": [{"node": "normal", "name": "f", "for": %s, "out": "x[i,j]", "mean": 0, "precision": 1}]}`, T, loops)))
		if err != nil {
			t.Fatalf("%s: %v", loops, err)
		}
		return m
	}
	names := func(m *Model) string {
		var s []string
		for _, f := range m.Factors {
			s = append(s, f.Name())
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		T           int
		loops, want string
	}{
		{3, `{"i": "0..T-1", "j": "0..0"}`, "f[0,0] f[1,0] f[2,0]"},
		{3, `{"i": "1..T-1", "j": "i..K-1"}`, "f[1,1] f[1,2] f[2,2]"},
		{3, `{"j": "0..1", "i": "2*j..(T-1)*j"}`, "f[0,0] f[1,2]"},
		{1, `{"i": "1..T-1", "j": "0..K-1"}`, ""},
		{0, `{"i": "0..T-1", "j": "0..K-1"}`, ""},
		{3, `{"i": "0..T*1000000000000", "j": "1..0"}`, ""},
		{3, `{"i": "-(1-T)-1..T-1", "j": "(K - 1)..K*1-1"}`, "f[1,2] f[2,2]"},
	} {
		if got := names(model(c.T, c.loops)); got != c.want {
			t.Errorf("T = %d, for %s: factors %q, want %q", c.T, c.loops, got, c.want)
		}
	}
	// An unobserved element's name and order: row-major.
	m := model(2, `{"i": "0..0", "j": "0..0"}`)
	var got []string
	for _, v := range m.Variables {
		got = append(got, v.Name())
	}
	if want := "x[0,0] x[0,1] x[0,2] x[1,0] x[1,1] x[1,2]"; strings.Join(got, " ") != want {
		t.Errorf("elements %v, want %s", got, want)
	}
}

// TestLoopsData: data sets name an array's elements; the model's
// RunError names an element with its array's index in the file.
func TestLoopsData(t *testing.T) {
	m, err := Parse("m.json", []byte(hmmLoops))
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseData("d:1", []byte(`{"o[4]": 2, "o[0]": [0.5, 0.5, 0]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Infer(context.Background(), "d:1", d)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Output(res).Posteriors["o[4]"]; ok {
		t.Errorf("o[4] observed, yet in the posteriors")
	}
	if got := m.variableField(len(m.Variables) - 1); got != `variables[2] ("o[7]")` {
		t.Errorf("variableField: %s", got)
	}
}

// TestLoopsErrors: every fault of sizes, arrays, constants and loops is one
// *Error naming the file, the field and what is wrong (with the loop
// values where they matter).
func TestLoopsErrors(t *testing.T) {
	// file writes a model with sizes T = 5, a normal array x of size T and
	// the given extra top-level fields, variables and factors.
	file := func(top, vars, factors string) string {
		return `{"sizes": {"T": 5}` + top + `, "variables": [{"name": "x", "family": "normal", "size": "T"}` + vars + `], "factors": [` + factors + `]}`
	}
	prior := `{"node": "normal", "for": {"t": "0..T-1"}, "out": "x[t]", "mean": 0, "precision": 1}`
	cases := []struct {
		name, json, field, fault string
	}{
		{"index out of range", file("", "", `{"node": "normal", "for": {"t": "0..T-1"}, "out": "x[t]", "mean": "x[t-1]", "precision": 1}`),
			"factors[0] (normal).mean", "x[t-1] with t = 0: index -1 out of [0, 5)"},
		{"out of range without loops", file("", "", `{"node": "normal", "out": "x[T]", "mean": 0, "precision": 1}`),
			"factors[0] (normal).out", "x[T]: index 5 out of [0, 5)"},
		{"unknown size in a range", file("", "", `{"node": "normal", "for": {"t": "0..N-1"}, "out": "x[t]", "mean": 0, "precision": 1}`),
			"factors[0].for.t", `unknown name "N" (sizes: T; no loop index here)`},
		{"unknown index", file("", "", `{"node": "normal", "for": {"t": "0..T-1"}, "out": "x[j]", "mean": 0, "precision": 1}`),
			"factors[0] (normal).out", `unknown name "j" (sizes: T; loop indices: t)`},
		{"unknown index in a parent", file("", `, {"name": "s", "family": "categorical", "shape": [2], "size": 5}`,
			`{"node": "transition", "for": {"t": "1..T-1"}, "out": "s[t]", "in": ["s[u-1]"], "matrix": [[1, 0], [0, 1]]}`),
			"factors[0] (transition).in[0]", `unknown name "u"`},
		{"inner range uses a later index", file("", "", `{"node": "normal", "for": {"t": "0..k", "k": "0..T-1"}, "out": "x[t]", "mean": 0, "precision": 1}`),
			"factors[0].for.t", `unknown name "k"`},
		{"observed too short", file("", `, {"name": "y", "family": "normal", "size": "T", "observed": [1, 2, null, 4]}`, prior),
			`variables[1] ("y").observed`, "4 entries, want 5 (size T)"},
		{"observed nested too shallow", `{"sizes": {"N": 2, "K": 3}, "variables": [{"name": "y", "family": "normal", "size": ["N", "K"], "observed": [1, 2]}]}`,
			`variables[0] ("y").observed[0]`, "want an array (the variable's size has 2 dimensions), got JSON number"},
		{"observed inner extent", `{"sizes": {"N": 2, "K": 3}, "variables": [{"name": "y", "family": "normal", "size": ["N", "K"], "observed": [[1, 2], [3, 4]]}]}`,
			`variables[0] ("y").observed[0]`, "2 entries, want 3 (size K)"},
		{"observed ragged", `{"sizes": {"N": 2, "K": 3}, "variables": [{"name": "y", "family": "normal", "size": ["N", "K"], "observed": [[1, 2, 3], [3, 4]]}]}`,
			`variables[0] ("y").observed[1]`, "2 entries, want 3 (ragged array)"},
		{"observed element", file("", `, {"name": "o", "family": "categorical", "shape": [2], "size": 2, "observed": [1, 2]}`, prior),
			`variables[1] ("o").observed[1]`, "index 2 out of range [0, 2)"},
		{"observed string", file("", `, {"name": "o", "family": "categorical", "shape": [2], "size": 2, "observed": [1, "a"]}`, prior),
			`variables[1] ("o").observed[1]`, "got JSON string"},
		{"negative size", `{"sizes": {"T": -1}, "variables": [{"name": "x", "family": "normal"}]}`, "sizes.T", "want a whole number >= 0, got -1"},
		{"fractional size", `{"sizes": {"T": 2.5}, "variables": [{"name": "x", "family": "normal"}]}`, "sizes.T", "want a whole number >= 0, got 2.5"},
		{"size as a string", `{"sizes": {"T": "5"}, "variables": [{"name": "x", "family": "normal"}]}`, "sizes.T", "want a whole number >= 0, got JSON string"},
		{"size not a name", `{"sizes": {"2T": 5}, "variables": [{"name": "x", "family": "normal"}]}`, "sizes.2T", "not a name"},
		{"unknown size of an array", `{"variables": [{"name": "x", "family": "normal", "size": "N"}]}`,
			`variables[0] ("x").size`, `unknown name "N"`},
		{"negative extent", `{"sizes": {"T": 2}, "variables": [{"name": "x", "family": "normal", "size": ["T", "T-3"]}]}`,
			`variables[0] ("x").size[1]`, "T-3 = -1, want a whole number >= 0"},
		{"array too large", `{"sizes": {"T": 20000000}, "variables": [{"name": "x", "family": "normal", "size": "T"}]}`,
			`variables[0] ("x").size`, "the model would have 20,000,000 variables and factors once its arrays and loops are expanded, more than the limit of 10,000,000 (model.MaxItems)"},
		{"loops too long", file("", "", `{"node": "normal", "for": {"i": "0..T*1000000", "t": "0..T-1"}, "out": "x[t]", "mean": 0, "precision": 1}`),
			`factors[0].for`, "the model would have 25,000,010 variables and factors"},
		{"loops beyond counting", file("", "", `{"node": "normal", "for": {"i": "0..T*1000000000000", "t": "i..0"}, "out": "x[t]", "mean": 0, "precision": 1}`),
			`factors[0].for`, "more than the limit of 10,000,000"},
		{"overflow", file("", "", `{"node": "normal", "for": {"t": "0..9223372036854775807+T"}, "out": "x[t]", "mean": 0, "precision": 1}`),
			`factors[0].for.t`, "integer overflow"},
		{"variable named as a size", `{"sizes": {"T": 2}, "variables": [{"name": "T", "family": "normal"}]}`,
			`variables[0] ("T").name`, `"T" is also a size`},
		{"constant named as a size", `{"sizes": {"T": 2}, "data": {"T": [1]}, "variables": [{"name": "x", "family": "normal"}]}`,
			`data.T`, `"T" is also a size`},
		{"variable named as a constant", `{"data": {"x": [1]}, "variables": [{"name": "x", "family": "normal"}]}`,
			`variables[0] ("x").name`, `"x" is also a data constant`},
		{"index named as a size", file("", "", `{"node": "normal", "for": {"T": "0..4"}, "out": "x[T]", "mean": 0, "precision": 1}`),
			`factors[0].for.T`, `"T" is a size`},
		{"constant element out of range", file(`, "data": {"mu": [1, 2, 3]}`, "", `{"node": "normal", "for": {"t": "0..T-1"}, "out": "x[t]", "mean": "mu[t]", "precision": 1}`),
			"factors[0] (normal).mean", "mu[t] with t = 3: index 3 out of [0, 3)"},
		{"constant element of a 2-D constant", file(`, "data": {"X": [[1, 2], [3, 4]]}`, "", `{"node": "normal", "for": {"t": "0..T-2"}, "out": "x[t]", "mean": {"of": "x[T-1]", "scale": "X[t,1]"}, "precision": 1}`),
			"factors[0] (normal).mean.scale", "X[t,1] with t = 2: index 2 out of [0, 2) in dimension 1"},
		{"constant part where a number goes", file(`, "data": {"X": [[1, 2], [3, 4]]}`, "", `{"node": "normal", "for": {"t": "0..T-1"}, "out": "x[t]", "mean": "X[0]", "precision": 1}`),
			"factors[0] (normal).mean", "want a number, got an array"},
		{"constant as a variable", file(`, "data": {"mu": [1, 2, 3]}`, "", `{"node": "normal", "out": "mu[0]", "mean": 0, "precision": 1}`),
			"factors[0] (normal).out", `"mu[0]" is a data constant, want a variable`},
		{"constant not an array", file(`, "data": {"c": 1}`, "", prior), "data.c", "want an array of numbers, got a number"},
		{"constant ragged", file(`, "data": {"c": [[1], [1, 2]]}`, "", prior), "data.c[1]", "2 entries, want 1 (ragged array)"},
		{"array without index", file("", "", `{"node": "normal", "out": "x", "mean": 0, "precision": 1}`),
			"factors[0] (normal).out", `"x" is an array of size [5]: name one element, such as x[0]`},
		{"too many indices", file("", "", `{"node": "normal", "out": "x[0,1]", "mean": 0, "precision": 1}`),
			"factors[0] (normal).out", "2 indices for an array of 1 dimensions"},
		{"bad index", file("", "", `{"node": "normal", "for": {"t": "0..T-1"}, "out": "x[t+]", "mean": 0, "precision": 1}`),
			"factors[0] (normal).out", `index "t+": unexpected end of the expression`},
		{"bad range", file("", "", `{"node": "normal", "for": {"t": "0-T"}, "out": "x[t]", "mean": 0, "precision": 1}`),
			"factors[0].for.t", `want a range "FIRST..LAST"`},
		{"range not a string", file("", "", `{"node": "normal", "for": {"t": 5}, "out": "x[t]", "mean": 0, "precision": 1}`),
			"factors[0].for.t", "want a range such as"},
		{"loop factor names clash", file("", "", `{"node": "normal", "name": "f[1]", "out": "x[1]", "mean": 0, "precision": 1}, {"node": "normal", "name": "f", "for": {"t": "0..1"}, "out": "x[t]", "mean": 0, "precision": 1}`),
			`factors[1] ("f").name`, `duplicate factor name "f[1]"`},
		{"element named as a variable", `{"sizes": {"T": 2}, "variables": [{"name": "x[1]", "family": "normal"}, {"name": "x", "family": "normal", "size": "T"}]}`,
			`variables[1] ("x").name`, `element "x[1]" has the name of another variable`},
		{"array name with a bracket", `{"variables": [{"name": "x[", "family": "normal", "size": 2}]}`,
			`variables[0] ("x[").name`, "an array's name cannot hold"},
		{"observed gamma array", `{"variables": [{"name": "g", "family": "gamma", "size": 2, "observed": [1, 2]}]}`,
			`variables[0] ("g").observed`, "only categorical, normal and mvnormal variables can be observed"},
		{"family of an element", file("", `, {"name": "g", "family": "gamma", "size": 5}`, `{"node": "normal", "for": {"t": "0..T-1"}, "out": "x[t]", "mean": "g[t]", "precision": 1}`),
			"factors[0] (normal).mean", `variable "g[t]" is gamma, want normal (with t = 0)`},
		{"scalar indexed", `{"variables": [{"name": "r", "family": "normal"}, {"name": "x", "family": "normal", "size": 2}], "factors": [{"node": "normal", "out": "x[0]", "mean": "r[0]", "precision": 1}]}`,
			"factors[0] (normal).mean", `"r[0]": "r" is a variable, not an array`},
		{"size empty array", `{"variables": [{"name": "x", "family": "normal", "size": []}]}`,
			`variables[0].size`, "empty array"},
	}
	for _, tc := range cases {
		_, err := Parse("m.json", []byte(tc.json))
		var me *Error
		if !errors.As(err, &me) {
			t.Errorf("%s: error %v (%T), want *Error", tc.name, err, err)
			continue
		}
		// The faults inside a literal array (a constant, a probability
		// vector) name their field in the message, as elsewhere.
		field, fault := me.Field, me.Err.Error()
		if field == "" {
			field, fault, _ = strings.Cut(fault, ": ")
		}
		if me.File != "m.json" || field != tc.field || !strings.Contains(fault, tc.fault) {
			t.Errorf("%s: got file %q field %q fault %q; want field %q, fault containing %q", tc.name, me.File, me.Field, me.Err, tc.field, tc.fault)
		}
		if strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("%s: multi-line error %q", tc.name, err)
		}
	}
}

// TestLoopsLimitBeforeBuilding: a file over MaxItems is refused before
// anything is built, at once.
func TestLoopsLimitBeforeBuilding(t *testing.T) {
	start := time.Now()
	_, err := Parse("m.json", []byte(`{"sizes": {"T": 9000000}, "variables": [{"name": "x", "family": "normal", "size": "T"}],
	  "factors": [{"node": "normal", "for": {"t": "0..T-1"}, "out": "x[t]", "mean": 0, "precision": 1}]}`))
	if err == nil || !strings.Contains(err.Error(), "factors[0].for: the model would have 18,000,000 variables and factors") {
		t.Errorf("error %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refused after %v", d)
	}
}

// localLevelFiles writes a local-level model of T steps (x_t ~ N(x_(t-1),
// 1/4), y_t ~ N(x_t, 1/r), r ~ Gamma(2, 2)) with loops, and written out.
func localLevelFiles(T int) (loops, written []byte) {
	ys := make([]string, T)
	for i := range ys {
		ys[i] = fmt.Sprintf("%.3f", math.Sin(float64(i)/7)+0.3*math.Cos(float64(i)*1.7))
	}
	loops = []byte(fmt.Sprintf(`{"sizes": {"T": %d},
 "variables": [{"name": "r", "family": "gamma"}, {"name": "x", "family": "normal", "size": "T"},
   {"name": "y", "family": "normal", "size": "T", "observed": [%s]}],
 "factors": [{"node": "gamma", "out": "r", "shape": 2, "rate": 2},
   {"node": "normal", "out": "x[0]", "mean": 0, "precision": 0.1},
   {"node": "normal", "for": {"t": "1..T-1"}, "out": "x[t]", "mean": "x[t-1]", "precision": 4},
   {"node": "normal", "for": {"t": "0..T-1"}, "out": "y[t]", "mean": "x[t]", "precision": "r"}],
 "settings": {"method": "sum-product"}}`, T, strings.Join(ys, ", ")))
	v := []string{`{"name": "r", "family": "gamma"}`}
	for i := range T {
		v = append(v, fmt.Sprintf(`{"name": "x[%d]", "family": "normal"}`, i))
	}
	for i, y := range ys {
		v = append(v, fmt.Sprintf(`{"name": "y[%d]", "family": "normal", "observed": %s}`, i, y))
	}
	f := []string{`{"node": "gamma", "out": "r", "shape": 2, "rate": 2}`, `{"node": "normal", "out": "x[0]", "mean": 0, "precision": 0.1}`}
	for i := 1; i < T; i++ {
		f = append(f, fmt.Sprintf(`{"node": "normal", "out": "x[%d]", "mean": "x[%d]", "precision": 4}`, i, i-1))
	}
	for i := range T {
		f = append(f, fmt.Sprintf(`{"node": "normal", "out": "y[%d]", "mean": "x[%d]", "precision": "r"}`, i, i))
	}
	return loops, []byte(twin(v, f, `{"method": "sum-product"}`))
}

// TestLoopsLargeSameAsTwin: 2,000 steps, with loops and written out, give
// the same numbers.
func TestLoopsLargeSameAsTwin(t *testing.T) {
	loops, written := localLevelFiles(2000)
	a, err := Parse("loops", loops)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("written", written)
	if err != nil {
		t.Fatal(err)
	}
	if ra, rb := result(t, a), result(t, b); !bytes.Equal(ra, rb) {
		t.Errorf("results differ")
	}
}

// BenchmarkBuildLoops reads and builds a local-level model of 10^5 steps
// written with loops (docs/benchmarks.md, "Model files with loops").
func BenchmarkBuildLoops(b *testing.B) {
	data, _ := localLevelFiles(100_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("loops", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildWrittenOut reads and builds the same model written out.
func BenchmarkBuildWrittenOut(b *testing.B) {
	_, data := localLevelFiles(100_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("written", data); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzParseLoops is FuzzParse's contract on files with sizes, arrays,
// constants and loops (MaxItems lowered to 10^4, the pairs of terms of
// the sums to 10^5, to keep models small):
// Parse never panics, refuses in one line naming the file, and what it
// accepts runs and draws; ParseSpec reads what Parse reads, and its Spec
// builds through FromSpec to a model of as many variables and factors.
func FuzzParseLoops(f *testing.F) {
	ll, _ := os.ReadFile("../examples/models/loops/local-level.json")
	lr, _ := os.ReadFile(regressionLoopsExample)
	for _, s := range []string{hmmLoops, mixtureLoops(), regressionLoops, string(ll), string(lr), triangleLoops,
		`{"sizes": {"T": 3}, "variables": [{"name": "x", "family": "normal", "size": ["T", 2]}], "factors": [{"node": "normal", "for": {"i": "0..T-1", "j": "i-i..1"}, "out": "x[i,j]", "mean": 0, "precision": 1}]}`,
		`{"sizes": {"T": 2}, "data": {"P": [[0.5, 0.5], [1, 0]]}, "variables": [{"name": "s", "family": "categorical", "shape": [2], "size": "T", "observed": [null, [0.1, 0.9]]}], "factors": [{"node": "categorical", "for": {"t": "0..T-1"}, "out": "s[t]", "p": "P[t]"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func(l, p int64) { itemLimit, pairLimit = l, p }(itemLimit, pairLimit)
		itemLimit, pairLimit = 10_000, 100_000
		m, err := Parse("fuzz.json", data)
		_, serr := ParseSpec(data)
		if err != nil {
			msg := err.Error()
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T, want *Error: %v", err, err)
			}
			if strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "model: fuzz.json: ") {
				t.Fatalf("error %q", msg)
			}
			return
		}
		if serr != nil {
			t.Fatalf("Parse reads it, ParseSpec: %v", serr)
		}
		sp, _ := ParseSpec(data)
		m2, err := FromSpec("fuzz.json", sp)
		if err != nil {
			t.Fatalf("FromSpec: %v", err)
		}
		if len(m2.Variables) != len(m.Variables) || len(m2.Factors) != len(m.Factors) {
			t.Fatalf("FromSpec: %d variables and %d factors, the file %d and %d", len(m2.Variables), len(m2.Factors), len(m.Variables), len(m.Factors))
		}
		m.Settings.Iterations = min(max(m.Settings.Iterations, 1), 3)
		if res, err := m.Infer(context.Background(), "fuzz", nil); err == nil {
			if _, err := json.Marshal(m.Output(res)); err != nil {
				t.Fatalf("output does not encode: %v", err)
			}
		} else if _, ok := m.RunError(err).(*Error); !ok && !strings.HasPrefix(err.Error(), "model: fuzz.json: ") {
			t.Fatalf("run error %v", err)
		}
		if err := m.Graph.WriteDOT(io.Discard); err != nil {
			t.Fatalf("WriteDOT: %v", err)
		}
	})
}

// TestBuilderArrays: the Builder's arrays write the local-level model
// element by element, and it is the file's with loops, to the last digit;
// the HMM's observed array with a hidden element too.
func TestBuilderArrays(t *testing.T) {
	file, err := Load("../examples/models/loops/local-level.json")
	if err != nil {
		t.Fatal(err)
	}
	sp, _ := ParseSpec(mustRead(t, "../examples/models/loops/local-level.json"))
	ys := sp.Variables[2].ObservedArray.Elements
	b := New()
	r := b.Gamma("r", 2, 2)
	x := b.NormalArray("x", len(ys))
	y := b.NormalArray("y", len(ys))
	x.At(0).NormalFrom(Num(0), Num(0.1))
	for i := 1; i < x.Len(); i++ {
		x.At(i).NormalFrom(Of(x.At(i-1)), Num(4))
	}
	for i, e := range ys {
		y.At(i).ObserveValue(*e.Value)
	}
	for i := range ys {
		y.At(i).NormalFrom(Of(x.At(i)), Of(r))
	}
	b.Settings(*sp.Settings)
	m, err := b.Build("built")
	if err != nil {
		t.Fatal(err)
	}
	if a, c := result(t, file), result(t, m); !bytes.Equal(a, c) {
		t.Errorf("builder %s\nfile %s", c, a)
	}

	// A categorical array, two dimensions, an element left hidden.
	b = New()
	s := b.CategoricalArray("s", 2, 2, 3)
	A := Tensor{Data: []float64{0.9, 0.2, 0.1, 0.8}, Shape: []int{2, 2}}
	for i := range 2 {
		for j := range 3 {
			s.At(i, j).Prior([]float64{0.5, 0.5})
		}
	}
	o := b.CategoricalArray("o", 2, 2)
	o.At(0).Observe(1).Given(A, s.At(0, 2))
	o.At(1).Given(A, s.At(1, 0))
	m, err = b.Build("built")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.Variables); n != 8 || m.Variables[2].Name() != "s[0,2]" || !m.Variables[6].Observed() || m.Variables[7].Observed() {
		t.Errorf("%d variables: %v", n, m.Variables)
	}
	data, _ := json.Marshal(b.Spec())
	if !bytes.Contains(data, []byte(`"size":[2,3]`)) || !bytes.Contains(data, []byte(`"observed":[1,null]`)) {
		t.Errorf("spec %s", data)
	}

	for _, c := range []struct {
		build func(b *Builder)
		want  string
	}{
		{func(b *Builder) { b.NormalArray("x", 2).At(2).NormalFrom(Num(0), Num(1)) }, `array "x": element [2] out of its size [2]`},
		{func(b *Builder) { b.NormalArray("x", 2, 2).At(1).NormalFrom(Num(0), Num(1)) }, `array "x": element [1] out of its size [2 2]`},
		{func(b *Builder) { b.Normal("x[0]"); b.NormalArray("x", 2).At(0).NormalFrom(Num(0), Num(1)) }, `"x[0]" added twice`},
		{func(b *Builder) { b.NormalArray("x", -1) }, `size [-1], want extents >= 0`},
	} {
		b := New()
		c.build(b)
		if _, err := b.Build("built"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDataArrays: a data set names an array whole, its elements' values
// with null for a hidden element; its length sets the size its extent
// names, for that data set (the model built again), and the next data set
// at the file's size gets the file's build back. Each result equals a
// fresh build of the file with those values written in.
func TestDataArrays(t *testing.T) {
	src := string(mustRead(t, "../examples/models/loops/local-level.json"))
	m, err := Parse("ll.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	// withObserved writes the file with T and y's observed values.
	withObserved := func(T int, ys string) string {
		i := strings.Index(src, `"observed": [`)
		j := strings.Index(src[i:], "]") + i + 1
		out := src[:i] + `"observed": ` + ys + src[j:]
		return strings.Replace(out, `"T": 20`, fmt.Sprintf(`"T": %d`, T), 1)
	}
	fresh := func(text string) []byte {
		f, err := Parse("ll.json", []byte(text))
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		return result(t, f)
	}
	run := func(line string) []byte {
		d, err := m.ReadData("d:1", []byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		res, err := m.Infer(context.Background(), "d:1", d)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return flatJSON(m.Output(res))
	}
	ys20 := `[1.67, null, 0.588, -1.109, -1.453, -2.022, -1.65, 1.1, 1.61, 0.128, -2.127, 0.09, 0.204, -2.584, 0.94, 1.707, 1.553, -0.051, 0.839, -0.094]`
	for _, c := range []struct {
		line string
		T    int
		ys   string
	}{
		{`{"y": [0.3, null, 1.2]}`, 3, `[0.3, null, 1.2]`},
		{`{"y[2]": 0.5}`, 20, strings.Replace(src[strings.Index(src, `"observed": [`)+12:strings.Index(src, "]}\n")+1], "0.588", "0.5", 1)},
		{`{"y": ` + ys20 + `}`, 20, ys20},
		{`{"y": [0.3, 0.4, 1.2, 2, 0.1]}`, 5, `[0.3, 0.4, 1.2, 2, 0.1]`},
		{`{}`, 20, src[strings.Index(src, `"observed": [`)+12 : strings.Index(src, "]}\n")+1]},
	} {
		got := run(c.line)
		text := withObserved(c.T, c.ys)
		if want := fresh(text); !bytes.Equal(got, want) {
			t.Errorf("%s: got %s\nwant %s", c.line, got, want)
		}
		if n := len(m.Variables); n != 2*c.T+1 {
			t.Errorf("%s: %d variables, want %d", c.line, n, 2*c.T+1)
		}
	}

	two := `{"sizes": {"T": 2, "K": 2}, "variables": [
	  {"name": "a", "family": "normal", "size": "T"}, {"name": "b", "family": "normal", "size": ["T", "K"]},
	  {"name": "o", "family": "categorical", "shape": [3], "size": 2}],
	 "factors": [{"node": "normal", "for": {"t": "0..T-1"}, "out": "a[t]", "mean": 0, "precision": 1},
	   {"node": "normal", "for": {"t": "0..T-1", "k": "0..K-1"}, "out": "b[t,k]", "mean": "a[t]", "precision": 1},
	   {"node": "categorical", "for": {"i": "0..1"}, "out": "o[i]", "p": [0.2, 0.3, 0.5]}]}`
	m, err = Parse("two.json", []byte(two))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ line, want string }{
		{`{"a": [1, 2, 3], "b": [[1, 2], [3, 4]]}`, `d:1: "b": 2 entries set the size T to 2, and "a" sets it to 3`},
		{`{"o": [0, 5]}`, `d:1: "o"[1]: index 5 out of range [0, 3)`},
		{`{"o": [0, 1, 2]}`, `d:1: "o": 3 entries, want 2 (the variable's size)`},
		{`{"a": [1, null], "a[1]": 2}`, `d:1: "a[1]": also given by "a", the whole array`},
		{`{"b": [1, 2]}`, `d:1: "b"[0]: want an array (the variable's size has 2 dimensions), got JSON number`},
		{`{"a": [1, "x"]}`, `d:1: "a"[1]: want an element's observed value`},
	} {
		d, err := m.ReadData("d:1", []byte(c.line))
		if err == nil {
			_, err = m.Infer(context.Background(), "d:1", d)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.line, err, c.want)
		}
	}
	d, err := m.ReadData("d:1", []byte(`{"a": [1, 2, 3], "b": [[1, null], [3, 4], [5, 6]]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Infer(context.Background(), "d:1", d); err != nil {
		t.Fatal(err)
	}
	if len(m.Variables) != 3+6+2 || m.Variables[4].Name() != "b[0,1]" || m.Variables[4].Observed() || !m.Variables[5].Observed() {
		t.Errorf("%d variables", len(m.Variables))
	}
}

// TestLoopsRunError: a fault found while inferring names the factor of a
// loop with its loop values.
func TestLoopsRunError(t *testing.T) {
	m, err := Parse("m.json", []byte(`{"sizes": {"T": 3}, "variables": [{"name": "s", "family": "categorical", "shape": [2], "size": "T", "observed": [0, 0, 1]}],
	  "factors": [{"node": "categorical", "out": "s[0]", "p": [0.5, 0.5]},
	    {"node": "transition", "for": {"t": "1..T-1"}, "out": "s[t]", "in": ["s[t-1]"], "matrix": [[1, 0], [0, 1]]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Infer(context.Background(), "m.json", nil)
	want := `model: m.json: variables[0] ("s[2]").observed: evidence has probability 0 under the model (factors[1] (transition) with t = 2 gives it probability 0)`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
