package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The terms of a linear predictor with loops and constant scales
// (termloops.go): the regression of examples/models/linear-regression.json
// written with loops, and smaller models written out by hand.

const (
	regressionExample      = "../examples/models/linear-regression.json"
	regressionLoopsExample = "../examples/models/loops/linear-regression.json"
)

// exampleRegression reads the data and the priors of
// examples/models/linear-regression.json (weights w0, w1, ..., intercept
// b, precision tau, observations y0, y1, ...).
func exampleRegression(t *testing.T) regression {
	t.Helper()
	sp, err := ParseSpec(mustRead(t, regressionExample))
	if err != nil {
		t.Fatal(err)
	}
	var r regression
	for _, v := range sp.Variables {
		if v.Observed != nil {
			r.y = append(r.y, *v.Observed.Value)
		}
	}
	for _, f := range sp.Factors {
		switch {
		case f.Node == "gamma":
			r.a0, r.r0 = *f.Shape, *f.Rate
		case f.Out == "b":
			r.bm, r.bl = f.Mean.Value, *f.PrecisionValue
		case f.Mean.Sum != nil:
			xs := make([]float64, len(f.Mean.Sum))
			for k, term := range f.Mean.Sum {
				if term.Of != fmt.Sprint("w", k) || f.Mean.OffsetVar != "b" {
					t.Fatalf("factor %+v: want the terms w0, w1, ... and the offset b", f)
				}
				xs[k] = term.Scale.Value
			}
			r.x = append(r.x, xs)
		default:
			r.m0, r.l0 = append(r.m0, f.Mean.Value), append(r.l0, *f.PrecisionValue)
		}
	}
	if len(r.x) != len(r.y) || len(r.m0) != len(r.x[0]) {
		t.Fatalf("%d rows of covariates, %d observations, %d weights", len(r.x), len(r.y), len(r.m0))
	}
	return r
}

// elementNames renames a written-out regression's w0, y12 as the loops
// file's elements w[0], y[12].
var elementNames = regexp.MustCompile(`"([wy])([0-9]+)"`)

func asElements(b []byte) []byte { return elementNames.ReplaceAll(b, []byte(`"$1[$2]"`)) }

// maxNumberDiff returns the largest difference between the numbers of two
// JSON texts of the same structure (+Inf when the structures differ).
func maxNumberDiff(a, b []byte) float64 {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return math.Inf(1)
	}
	var diff func(x, y any) float64
	diff = func(x, y any) float64 {
		switch xv := x.(type) {
		case float64:
			if yv, ok := y.(float64); ok {
				return math.Abs(xv - yv)
			}
		case []any:
			yv, ok := y.([]any)
			if !ok || len(xv) != len(yv) {
				break
			}
			d := 0.0
			for i := range xv {
				d = math.Max(d, diff(xv[i], yv[i]))
			}
			return d
		case map[string]any:
			yv, ok := y.(map[string]any)
			if !ok || len(xv) != len(yv) {
				break
			}
			d := 0.0
			for k := range xv {
				d = math.Max(d, diff(xv[k], yv[k]))
			}
			return d
		default:
			if x == y {
				return 0
			}
		}
		return math.Inf(1)
	}
	return diff(x, y)
}

// loopsFile writes the regression with sizes, constants and loops: the
// covariates X and the priors' means and precisions as data, the weights
// and the observations arrays, one factor line per kind, the
// observation's mean a sum of one term with loops.
func (r regression) loopsFile(settings string) string {
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return fmt.Sprintf(`{
  "sizes": {"N": %d, "K": %d},
  "data": {"X": %s, "m0": %s, "l0": %s},
  "variables": [
    {"name": "w", "family": "normal", "size": "K"},
    {"name": "b", "family": "normal"},
    {"name": "tau", "family": "gamma"},
    {"name": "y", "family": "normal", "size": "N", "observed": %s}
  ],
  "factors": [
    {"node": "normal", "for": {"k": "0..K-1"}, "out": "w[k]", "mean": "m0[k]", "precision": "l0[k]"},
    {"node": "normal", "out": "b", "mean": %s, "precision": %s},
    {"node": "gamma", "out": "tau", "shape": %s, "rate": %s},
    {"node": "normal", "for": {"n": "0..N-1"}, "out": "y[n]",
     "mean": {"sum": [{"for": {"k": "0..K-1"}, "of": "w[k]", "scale": "X[n,k]"}], "offset": "b"}, "precision": "tau"}
  ],
  "settings": %s
}`, len(r.y), len(r.m0), js(r.x), js(r.m0), js(r.l0), js(r.y), num(r.bm), num(r.bl), num(r.a0), num(r.r0), settings)
}

// TestLoopsLinearRegression is the proof of terms with loops:
// examples/models/loops/linear-regression.json, the regression of
// examples/models/linear-regression.json in one factor line per kind
// (K = 3 weights, N = 20 observations), gives the written-out file's
// posteriors and F trace (the same numbers: to 1e-12, measured 0), and
// its VMP fixed point is the hand-written coordinate-ascent VB of
// TestLinearRegressionIsMeanFieldVB to 1e-8. So does the N = 200
// simulated regression of that test written with loops, under VMP and
// under sum-product.
func TestLoopsLinearRegression(t *testing.T) {
	loops, err := Load(regressionLoopsExample)
	if err != nil {
		t.Fatal(err)
	}
	written, err := Load(regressionExample)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(mustRead(t, regressionLoopsExample), []byte("\n")); n > 25 {
		t.Errorf("%s: %d lines, want at most 25", regressionLoopsExample, n)
	}
	r := exampleRegression(t)
	sim := simulateRegression(42, 200)
	const settings = `{"iterations": 1000, "tolerance": 1e-13}`
	simLoops, err := Parse("sim-loops.json", []byte(sim.loopsFile(settings)))
	if err != nil {
		t.Fatal(err)
	}
	simWritten, err := Parse("sim.json", []byte(sim.file(settings)))
	if err != nil {
		t.Fatal(err)
	}
	const spSettings = `{"method": "sum-product", "iterations": 1000, "tolerance": 1e-13}`
	simSP, err := Parse("sim-sp-loops.json", []byte(sim.loopsFile(spSettings)))
	if err != nil {
		t.Fatal(err)
	}
	simSPWritten, err := Parse("sim-sp.json", []byte(sim.file(spSettings)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name            string
		loops, written  *Model
		r               regression
		vars, factors   int
		wantTermsPerObs int
	}{
		{"example", loops, written, r, 3 + 2 + 20, 3 + 2 + 20, 3},
		{"simulated", simLoops, simWritten, sim, 3 + 2 + 200, 3 + 2 + 200, 3},
		{"simulated, sum-product", simSP, simSPWritten, sim, 3 + 2 + 200, 3 + 2 + 200, 3},
	} {
		if len(c.loops.Variables) != c.vars || len(c.loops.Factors) != c.factors || len(c.written.Factors) != c.factors {
			t.Fatalf("%s: %d variables and %d factors, written out %d factors; want %d and %d", c.name, len(c.loops.Variables), len(c.loops.Factors), len(c.written.Factors), c.vars, c.factors)
		}
		if got := len(c.loops.Factors[c.factors-1].Variables()); got != c.wantTermsPerObs+3 {
			t.Errorf("%s: the last observation's factor joins %d variables, want y, %d weights, b and tau", c.name, got, c.wantTermsPerObs)
		}
		ra, rb := result(t, c.loops), asElements(result(t, c.written))
		d := maxNumberDiff(ra, rb)
		t.Logf("%s: loops and written out differ by at most %g in every posterior number and F", c.name, d)
		if !(d <= 1e-12) {
			t.Errorf("%s: loops and written out differ by %g:\nloops   %s\nwritten %s", c.name, d, ra, rb)
		}
		// The fixed point: 100 sweeps, whatever F does (F is flat at the
		// optimum: the example file stops when it moves by less than
		// 1e-12, 12 sweeps and 3e-8 from the fixed point in tau's rate).
		c.loops.Settings.Iterations, c.loops.Settings.Tolerance = 100, 1e-300
		want := c.r.coordinateAscent()
		got, out := regressionPosterior(t, c.loops)
		dv, what := got.maxDiff(want)
		t.Logf("%s: after %d sweeps, F = %.10g; largest difference from coordinate ascent %.3g (%s)", c.name, out.Iterations, out.FreeEnergy[len(out.FreeEnergy)-1], dv, what)
		if !(dv <= 1e-8) {
			t.Errorf("%s: %s differs from coordinate ascent by %.3g\n got %+v\nwant %+v", c.name, what, dv, got, want)
		}
	}
}

// triangleLoops mixes terms: one with loops whose range uses the factor's
// index (y[n] takes w[0], ..., w[n]), a term without loops with a constant
// scale, a term whose loop is empty, and a number scale; repeated
// variables are merged as in a written-out sum.
const triangleLoops = `{
  "sizes": {"N": 4, "K": 4},
  "data": {"X": [[0.5, 1, -1, 2], [1, -0.5, 0.3, 1], [1.5, 0.2, -0.7, 0.4], [-1, 2, 0.1, 0.6]]},
  "variables": [
    {"name": "w", "family": "normal", "size": "K"},
    {"name": "tau", "family": "gamma"},
    {"name": "y", "family": "normal", "size": "N", "observed": [0.4, -1.2, 2.5, 0.9]}
  ],
  "factors": [
    {"node": "normal", "for": {"k": "0..K-1"}, "out": "w[k]", "mean": 0, "precision": 1},
    {"node": "gamma", "out": "tau", "shape": 2, "rate": 1},
    {"node": "normal", "for": {"n": "0..N-1"}, "out": "y[n]",
     "mean": {"sum": [{"for": {"k": "0..n"}, "of": "w[k]", "scale": "X[n,k]"}, {"of": "w[K-1]", "scale": "X[n,0]"},
                      {"for": {"j": "n+1..n"}, "of": "w[j]"}, {"of": "w[0]", "scale": 0.5}], "offset": 0.25},
     "precision": "tau"}
  ],
  "settings": {"iterations": 1000, "tolerance": 1e-12}
}`

func triangleTwin() string {
	X := [][]float64{{0.5, 1, -1, 2}, {1, -0.5, 0.3, 1}, {1.5, 0.2, -0.7, 0.4}, {-1, 2, 0.1, 0.6}}
	ys := []string{"0.4", "-1.2", "2.5", "0.9"}
	var v, f []string
	for k := range 4 {
		v = append(v, fmt.Sprintf(`{"name": "w[%d]", "family": "normal"}`, k))
	}
	v = append(v, `{"name": "tau", "family": "gamma"}`)
	for n, y := range ys {
		v = append(v, fmt.Sprintf(`{"name": "y[%d]", "family": "normal", "observed": %s}`, n, y))
	}
	for k := range 4 {
		f = append(f, fmt.Sprintf(`{"node": "normal", "out": "w[%d]", "mean": 0, "precision": 1}`, k))
	}
	f = append(f, `{"node": "gamma", "out": "tau", "shape": 2, "rate": 1}`)
	for n := range 4 {
		var terms []string
		for k := 0; k <= n; k++ {
			terms = append(terms, fmt.Sprintf(`{"of": "w[%d]", "scale": %v}`, k, X[n][k]))
		}
		terms = append(terms, fmt.Sprintf(`{"of": "w[3]", "scale": %v}`, X[n][0]), `{"of": "w[0]", "scale": 0.5}`)
		f = append(f, fmt.Sprintf(`{"node": "normal", "out": "y[%d]", "mean": {"sum": [%s], "offset": 0.25}, "precision": "tau"}`, n, strings.Join(terms, ", ")))
	}
	return twin(v, f, `{"iterations": 1000, "tolerance": 1e-12}`)
}

// exampleRegressionTwin is examples/models/linear-regression.json with its
// variables named as the loops file's elements.
func exampleRegressionTwin(t *testing.T) string {
	return string(asElements(mustRead(t, regressionExample)))
}

// TestLoopsTermsSpec: a term's loops and constant scale are kept in the
// Spec (SumTerm.For, SumTerm.Scale.Var), written back, read again to the
// same Spec (through ParseSpec and encoding/json), and FromSpec builds the
// file's model; a Spec written in Go builds it too.
func TestLoopsTermsSpec(t *testing.T) {
	data := mustRead(t, regressionLoopsExample)
	sp, err := ParseSpec(data)
	if err != nil {
		t.Fatal(err)
	}
	wantTerm := SumTerm{For: Loops{{Index: "k", Range: "0..K-1"}}, Of: "w[k]", Scale: &Operand{Var: "X[n,k]"}}
	f := sp.Factors[3]
	if d := cmp.Diff([]SumTerm{wantTerm}, f.Mean.Sum); d != "" || f.Mean.OffsetVar != "b" || f.Precision != "tau" {
		t.Errorf("the observations' factor %+v: terms differ:\n%s", f, d)
	}
	again, err := json.Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"mean":{"sum":[{"for":{"k":"0..K-1"},"of":"w[k]","scale":"X[n,k]"}],"offset":"b"}`; !bytes.Contains(again, []byte(want)) {
		t.Errorf("written back without %s:\n%s", want, again)
	}
	sp2, err := ParseSpec(again)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(sp, sp2); d != "" {
		t.Errorf("JSON -> Spec -> JSON -> Spec differs:\n%s", d)
	}
	var viaJSON struct{ Factors []struct{ Mean *NormalMean } }
	if err := json.Unmarshal(again, &viaJSON); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(f.Mean, viaJSON.Factors[3].Mean); d != "" {
		t.Errorf("Spec -> JSON -> json.Unmarshal differs:\n%s", d)
	}
	fromFile, _ := Parse("file", data)
	want := result(t, fromFile)
	fromSpec, err := FromSpec("spec", sp)
	if err != nil {
		t.Fatal(err)
	}
	if got := result(t, fromSpec); !bytes.Equal(got, want) {
		t.Errorf("FromSpec:\n%s\nfile:\n%s", got, want)
	}
	// The same Spec written in Go.
	r := exampleRegression(t)
	var X []float64
	for _, xs := range r.x {
		X = append(X, xs...)
	}
	obs := &Observations{Shape: []int{len(r.y)}}
	for i := range r.y {
		obs.Elements = append(obs.Elements, &Evidence{Index: -1, Value: &r.y[i]})
	}
	zero, hundredth := 0.0, 0.01
	goSpec := Spec{
		Sizes: map[string]int{"N": len(r.y), "K": 3},
		Data:  map[string]Tensor{"X": {Data: X, Shape: []int{len(r.y), 3}}},
		Variables: []VariableSpec{{Name: "w", Family: "normal", Size: Size{{Expr: "K"}}}, {Name: "b", Family: "normal"},
			{Name: "tau", Family: "gamma"}, {Name: "y", Family: "normal", Size: Size{{Expr: "N"}}, ObservedArray: obs}},
		Factors: []FactorSpec{
			{Node: "normal", For: Loops{{Index: "k", Range: "0..K-1"}}, Out: "w[k]", Mean: &NormalMean{Value: zero}, PrecisionValue: &hundredth},
			{Node: "normal", Out: "b", Mean: &NormalMean{Value: zero}, PrecisionValue: &hundredth},
			{Node: "gamma", Out: "tau", Shape: &r.a0, Rate: &r.r0},
			{Node: "normal", For: Loops{{Index: "n", Range: "0..N-1"}}, Out: "y[n]", Mean: &NormalMean{Sum: []SumTerm{wantTerm}, OffsetVar: "b"}, Precision: "tau"},
		},
		Settings: &SettingsSpec{Iterations: 1000, Tolerance: 1e-12},
	}
	m, err := FromSpec("go", goSpec)
	if err != nil {
		t.Fatal(err)
	}
	if got := result(t, m); !bytes.Equal(got, want) {
		t.Errorf("the Spec written in Go:\n%s\nfile:\n%s", got, want)
	}
}

// TestBuilderLinearArrays: the Builder writes the regression with arrays
// and a Go loop over k building the terms, w.At(k).Times(x), and it is the
// loops file's model: the same posteriors to the last digit, and F to
// 1e-12 (the Builder adds tau's prior with tau, so the terms of F are
// summed in another order).
func TestBuilderLinearArrays(t *testing.T) {
	r := exampleRegression(t)
	b := New()
	K, N := len(r.m0), len(r.y)
	w := b.NormalArray("w", K)
	bias := b.Normal("b")
	tau := b.Gamma("tau", r.a0, r.r0)
	y := b.NormalArray("y", N)
	for n, yn := range r.y {
		y.At(n).ObserveValue(yn)
	}
	for k := range K {
		w.At(k).NormalFrom(Num(r.m0[k]), Num(r.l0[k]))
	}
	bias.NormalFrom(Num(r.bm), Num(r.bl))
	terms := make([]Term, K)
	for n, xs := range r.x {
		for k, x := range xs {
			terms[k] = w.At(k).Times(x)
		}
		y.At(n).NormalFrom(Linear(Of(bias), terms...), Of(tau))
	}
	b.Settings(SettingsSpec{Iterations: 1000, Tolerance: 1e-12})
	m, err := b.Build("builder")
	if err != nil {
		t.Fatal(err)
	}
	file, err := Load(regressionLoopsExample)
	if err != nil {
		t.Fatal(err)
	}
	a, c := result(t, m), result(t, file)
	var pa, pc InferOutput
	_ = json.Unmarshal(a, &pa)
	_ = json.Unmarshal(c, &pc)
	if d := maxNumberDiff(a, c); !(d <= 1e-12) || !cmp.Equal(pa.Posteriors, pc.Posteriors) {
		t.Errorf("builder and file differ by %g\nbuilder %s\nfile    %s", d, a, c)
	}
}

// TestLoopsTermErrors: each fault of a term's loops or constant scale is
// one *Error naming the file, the field down to the term, and the loop
// values where they matter.
func TestLoopsTermErrors(t *testing.T) {
	file := func(top, mean string) string {
		return `{"sizes": {"N": 2, "K": 3}, "data": {"X": [[0.5, 1, 2], [1, -1, 0.5]], "Z": [1e200, 1]` + top + `},
		  "variables": [{"name": "w", "family": "normal", "size": "K"}, {"name": "tau", "family": "gamma"},
		    {"name": "g", "family": "gamma", "size": "K"}, {"name": "y", "family": "normal", "size": "N", "observed": [1, 2]}],
		  "factors": [{"node": "gamma", "out": "tau", "shape": 2, "rate": 1},
		    {"node": "normal", "for": {"n": "0..N-1"}, "out": "y[n]", "mean": {"sum": [` + mean + `]}, "precision": "tau"}]}`
	}
	cases := []struct {
		name, json, field, fault string
	}{
		{"scale out of range", file("", `{"for": {"k": "1..K"}, "of": "w[k-1]", "scale": "X[n,k]"}`),
			"factors[1] (normal).mean.sum[0].scale", "X[n,k] with n = 0, k = 3: index 3 out of [0, 3) in dimension 2"},
		{"variable out of range", file("", `{"of": "w[0]"}, {"for": {"k": "0..K-1"}, "of": "w[k+1]", "scale": "X[n,k]"}`),
			"factors[1] (normal).mean.sum[1].of", "w[k+1] with n = 0, k = 2: index 3 out of [0, 3)"},
		{"range not an integer expression", file("", `{"for": {"k": "0..K/2"}, "of": "w[k]"}`),
			"factors[1].mean.sum[0].for.k", `"0..K/2": unexpected "/2" at column 5`},
		{"range of a constant", file("", `{"for": {"k": "0..X"}, "of": "w[k]"}`),
			"factors[1].mean.sum[0].for.k", `unknown name "X" (sizes: N, K; loop indices: n)`},
		{"range of a fraction", file("", `{"for": {"k": "0..1.5"}, "of": "w[k]"}`),
			"factors[1].mean.sum[0].for.k", `unexpected ".5"`},
		{"range not a string", file("", `{"for": {"k": 2}, "of": "w[k]"}`),
			"factors[1].mean.sum[0].for.k", "want a range such as"},
		{"for not an object", file("", `{"for": "0..K-1", "of": "w[k]"}`),
			"factors[1].mean.sum[0].for", "want a JSON object"},
		{"index of the factor", file("", `{"for": {"n": "0..K-1"}, "of": "w[n]"}`),
			"factors[1].mean.sum[0].for.n", `"n" is a loop index of the factor`},
		{"index a size", file("", `{"for": {"K": "0..2"}, "of": "w[K]"}`),
			"factors[1].mean.sum[0].for.K", `"K" is a size`},
		{"index used outside its term", file("", `{"for": {"k": "0..K-1"}, "of": "w[k]"}, {"of": "w[k]"}`),
			"factors[1] (normal).mean.sum[1].of", `unknown name "k" (sizes: N, K; loop indices: n)`},
		{"scale a variable", file("", `{"for": {"k": "0..K-1"}, "of": "w[k]", "scale": "tau"}`),
			"factors[1] (normal).mean.sum[0].scale", `"tau" is not a data constant: a term's scale is a number or a constant's element`},
		{"scale a part", file("", `{"for": {"k": "0..K-1"}, "of": "w[k]", "scale": "X[n]"}`),
			"factors[1] (normal).mean.sum[0].scale", `"X[n]" is a part of a constant, of shape [3]: want a number`},
		{"scale too large", file("", `{"for": {"k": "0..1"}, "of": "w[k]", "scale": "Z[k]"}`),
			"factors[1] (normal).mean.sum[0].scale", "Z[k] with n = 0, k = 0: 1e+200, want a finite number of size at most 1e+150"},
		{"number scale too large", file("", `{"for": {"k": "0..1"}, "of": "w[k]", "scale": 1e300}`),
			"factors[1] (normal).mean.sum[0].scale", "want a finite number of size at most"},
		{"of a constant", file("", `{"for": {"k": "0..K-1"}, "of": "X[n,k]"}`),
			"factors[1] (normal).mean.sum[0].of", `"X[n,k]" is a data constant, want a variable`},
		{"of unknown", file("", `{"for": {"k": "0..K-1"}, "of": "v[k]"}`),
			"factors[1] (normal).mean.sum[0].of", `unknown variable "v[k]"`},
		{"of missing", file("", `{"for": {"k": "0..K-1"}, "scale": "X[n,k]"}`),
			"factors[1] (normal).mean.sum[0].of", "missing"},
		{"of an element of another family", file("", `{"for": {"k": "0..K-1"}, "of": "g[k]"}`),
			"factors[1] (normal).mean.sum[0].of", `g[k] with n = 0, k = 0: variable "g[0]" is gamma, want normal`},
		{"of a variable of another family", file("", `{"for": {"k": "0..K-1"}, "of": "tau"}`),
			"factors[1] (normal).mean.sum[0].of", `variable "tau" is gamma, want normal (with n = 0)`},
		{"terms over the limit", file("", `{"for": {"k": "0..9999999"}, "of": "w[0]"}`),
			"factors[1].mean.sum[0].for", "the model would have 20,000,012 variables, factors and sum terms once its arrays and loops are expanded, more than the limit of 10,000,000"},
		{"sums too large", file("", `{"for": {"k": "0..2999"}, "of": "w[0]"}`),
			"factors[1] (normal).mean.sum", "3,000 terms with n = 1: the model's sums so far would make 9,003,000 products of two terms (a sum of K terms makes K(K+1)/2), more than the limit of 8,388,608 (model.MaxElements)"},
		{"unknown field", file("", `{"for": {"k": "0..1"}, "of": "w[k]", "sclae": 1}`),
			"factors[1].mean.sum[0].sclae", "unknown field (fields: of, scale, for)"},
	}
	for _, tc := range cases {
		_, err := Parse("m.json", []byte(tc.json))
		var me *Error
		if !errors.As(err, &me) {
			t.Errorf("%s: error %v (%T), want *Error", tc.name, err, err)
			continue
		}
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
