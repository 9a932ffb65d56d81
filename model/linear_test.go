package model

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// regression is a simulated linear regression y_n = Σ_k w_k x_nk + b +
// noise, with the priors of the model: w_k ~ N(m0[k], 1/l0[k]), b ~ N(bm,
// 1/bl), τ ~ Gamma(a0, r0).
type regression struct {
	x      [][]float64 // [n][k]
	y      []float64
	m0, l0 []float64
	bm, bl float64
	a0, r0 float64
}

func simulateRegression(seed uint64, n int) regression {
	rng := rand.New(rand.NewPCG(seed, 2))
	w, b, sd := []float64{1.5, -2, 0.5}, 0.7, 0.5
	r := regression{m0: []float64{0, 0.5, -0.5}, l0: []float64{0.1, 0.2, 1}, bm: 0, bl: 0.01, a0: 2, r0: 1}
	for range n {
		xs := make([]float64, len(w))
		y := b + sd*rng.NormFloat64()
		for k := range xs {
			xs[k] = rng.NormFloat64()
			y += w[k] * xs[k]
		}
		r.x, r.y = append(r.x, xs), append(r.y, y)
	}
	return r
}

// vbPosterior is the mean-field posterior q(w) q(b) q(τ).
type vbPosterior struct {
	wMean, wVar    []float64
	bMean, bVar    float64
	shape, rateTau float64
}

// coordinateAscent is the textbook mean-field VB of the regression, written
// out: q(w_k) = N(m_k, 1/P_k) with P_k = l0_k + E τ Σ_n x_nk² and
// m_k = (l0_k m0_k + E τ Σ_n x_nk (y_n - E b - Σ_(j≠k) x_nj m_j)) / P_k;
// q(b) likewise with P_b = bl + N E τ; q(τ) = Gamma(a0 + N/2,
// r0 + ½ Σ_n E(y_n - Σ_k w_k x_nk - b)²), the expectation
// (y_n - Σ_k x_nk m_k - m_b)² + Σ_k x_nk² v_k + v_b. It starts at the
// priors and sweeps w_0, ..., w_K-1, b, τ until nothing moves.
func (r regression) coordinateAscent() vbPosterior {
	K, N := len(r.m0), len(r.y)
	q := vbPosterior{wMean: append([]float64(nil), r.m0...), wVar: make([]float64, K), bMean: r.bm, bVar: 1 / r.bl, shape: r.a0, rateTau: r.r0}
	for k := range K {
		q.wVar[k] = 1 / r.l0[k]
	}
	for sweep := 0; sweep < 10000; sweep++ {
		prev := append(append([]float64(nil), q.wMean...), q.bMean, q.rateTau)
		eTau := q.shape / q.rateTau
		for k := range K {
			sxx, sxr := 0.0, 0.0
			for n, xs := range r.x {
				res := r.y[n] - q.bMean
				for j := range K {
					if j != k {
						res -= xs[j] * q.wMean[j]
					}
				}
				sxx += xs[k] * xs[k]
				sxr += xs[k] * res
			}
			p := r.l0[k] + eTau*sxx
			q.wMean[k], q.wVar[k] = (r.l0[k]*r.m0[k]+eTau*sxr)/p, 1/p
		}
		sr := 0.0
		for n, xs := range r.x {
			res := r.y[n]
			for k := range K {
				res -= xs[k] * q.wMean[k]
			}
			sr += res
		}
		p := r.bl + float64(N)*eTau
		q.bMean, q.bVar = (r.bl*r.bm+eTau*sr)/p, 1/p
		ss := 0.0
		for n, xs := range r.x {
			res := r.y[n] - q.bMean
			e2 := q.bVar
			for k := range K {
				res -= xs[k] * q.wMean[k]
				e2 += xs[k] * xs[k] * q.wVar[k]
			}
			ss += res*res + e2
		}
		q.shape, q.rateTau = r.a0+float64(N)/2, r.r0+ss/2
		moved := 0.0
		for i, x := range append(append(append([]float64(nil), q.wMean...), q.bMean), q.rateTau) {
			moved = math.Max(moved, math.Abs(x-prev[i]))
		}
		if moved == 0 {
			break
		}
	}
	return q
}

// file writes the regression as a model file: the weights w0, w1, w2, the
// intercept b and the precision tau as scalar variables, then one
// observed variable and one normal factor per observation, its mean the
// linear predictor {"sum": [{"of": "w0", "scale": x_n0}, ...], "offset":
// "b"}.
func (r regression) file(settings string) string {
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	var sb strings.Builder
	sb.WriteString("{\n  \"variables\": [\n")
	for k := range r.m0 {
		fmt.Fprintf(&sb, "    {\"name\": \"w%d\", \"family\": \"normal\"},\n", k)
	}
	sb.WriteString("    {\"name\": \"b\", \"family\": \"normal\"},\n    {\"name\": \"tau\", \"family\": \"gamma\"}")
	for n, y := range r.y {
		fmt.Fprintf(&sb, ",\n    {\"name\": \"y%d\", \"family\": \"normal\", \"observed\": %s}", n, num(y))
	}
	sb.WriteString("\n  ],\n  \"factors\": [\n")
	for k := range r.m0 {
		fmt.Fprintf(&sb, "    {\"node\": \"normal\", \"out\": \"w%d\", \"mean\": %s, \"precision\": %s},\n", k, num(r.m0[k]), num(r.l0[k]))
	}
	fmt.Fprintf(&sb, "    {\"node\": \"normal\", \"out\": \"b\", \"mean\": %s, \"precision\": %s},\n", num(r.bm), num(r.bl))
	fmt.Fprintf(&sb, "    {\"node\": \"gamma\", \"out\": \"tau\", \"shape\": %s, \"rate\": %s}", num(r.a0), num(r.r0))
	for n, xs := range r.x {
		fmt.Fprintf(&sb, ",\n    {\"node\": \"normal\", \"out\": \"y%d\", \"mean\": {\"sum\": [", n)
		for k, x := range xs {
			if k > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "{\"of\": \"w%d\", \"scale\": %s}", k, num(x))
		}
		sb.WriteString("], \"offset\": \"b\"}, \"precision\": \"tau\"}")
	}
	fmt.Fprintf(&sb, "\n  ],\n  \"settings\": %s\n}\n", settings)
	return sb.String()
}

// build writes the regression with the Builder, in the file's order.
func (r regression) build(settings SettingsSpec) (*Model, error) {
	b := New()
	w := make([]Var, len(r.m0))
	for k := range w {
		w[k] = b.Normal(fmt.Sprint("w", k))
	}
	bias := b.Normal("b")
	tau := b.Gamma("tau", r.a0, r.r0) // the variable and its prior factor
	ys := make([]Var, len(r.y))
	for n, y := range r.y {
		ys[n] = b.Normal(fmt.Sprint("y", n)).ObserveValue(y)
	}
	for k := range w {
		w[k].NormalFrom(Num(r.m0[k]), Num(r.l0[k]))
	}
	bias.NormalFrom(Num(r.bm), Num(r.bl))
	terms := make([]Term, len(w))
	for n, xs := range r.x {
		for k, x := range xs {
			terms[k] = w[k].Times(x)
		}
		ys[n].NormalFrom(Linear(Of(bias), terms...), Of(tau))
	}
	b.Settings(settings)
	return b.Build("regression")
}

// posterior reads q(w), q(b), q(τ) from a model's output, the weights
// named w0, w1, ... or w[0], w[1], ...
func regressionPosterior(t *testing.T, m *Model) (vbPosterior, InferOutput) {
	t.Helper()
	res, err := m.Infer(context.Background(), m.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := m.Output(res)
	var q vbPosterior
	for k := 0; ; k++ {
		p, ok := out.Posteriors[fmt.Sprint("w", k)]
		if !ok {
			p, ok = out.Posteriors[fmt.Sprintf("w[%d]", k)]
		}
		if !ok {
			break
		}
		q.wMean, q.wVar = append(q.wMean, *p.Mean), append(q.wVar, *p.Variance)
	}
	q.bMean, q.bVar = *out.Posteriors["b"].Mean, *out.Posteriors["b"].Variance
	q.shape, q.rateTau = *out.Posteriors["tau"].Shape, *out.Posteriors["tau"].Rate
	return q, out
}

// maxDiff returns the largest difference between the numbers of two
// posteriors, and what it is.
func (q vbPosterior) maxDiff(o vbPosterior) (float64, string) {
	d, what := 0.0, ""
	check := func(name string, a, b float64) {
		if x := math.Abs(a - b); !(x <= d) {
			d, what = x, name
		}
	}
	for k := range q.wMean {
		check(fmt.Sprintf("mean of w%d", k), q.wMean[k], o.wMean[k])
		check(fmt.Sprintf("variance of w%d", k), q.wVar[k], o.wVar[k])
	}
	check("mean of b", q.bMean, o.bMean)
	check("variance of b", q.bVar, o.bVar)
	check("shape of tau", q.shape, o.shape)
	check("rate of tau", q.rateTau, o.rateTau)
	return d, what
}

// TestLinearRegressionIsMeanFieldVB is the proof of the linear predictor:
// a regression with K = 3 unknown weights (each its own Normal prior), an
// unknown intercept (Normal) and an unknown noise precision (Gamma) on
// N = 200 simulated points. Its VMP fixed point, written out as a file
// (one factor per observation) and with the Builder, equals the
// hand-written coordinate-ascent mean-field VB to 1e-8 in every posterior
// mean and variance and in the Gamma's shape and rate; the Spec of the
// file round-trips; and under sum-product (every weight leaves the
// Gaussian tree: each factor joins four hidden normals) the fixed point
// is the same.
func TestLinearRegressionIsMeanFieldVB(t *testing.T) {
	r := simulateRegression(42, 200)
	want := r.coordinateAscent()
	// Converged when F changes by less than 1e-13 (eight sweeps).
	const settings = `{"iterations": 1000, "tolerance": 1e-13}`
	text := r.file(settings)
	fromFile, err := Parse("regression.json", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	fromBuilder, err := r.build(SettingsSpec{Iterations: 1000, Tolerance: 1e-13})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ParseSpec([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(sp)
	sp2, err := ParseSpec(again)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(sp, sp2); d != "" {
		t.Errorf("JSON -> Spec -> JSON -> Spec differs:\n%s", d)
	}
	fromSpec, err := FromSpec("spec", sp)
	if err != nil {
		t.Fatal(err)
	}
	sumProduct, err := Parse("sp.json", []byte(r.file(`{"method": "sum-product", "iterations": 1000, "tolerance": 1e-13}`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    *Model
	}{{"file", fromFile}, {"builder", fromBuilder}, {"spec", fromSpec}, {"sum-product", sumProduct}} {
		got, out := regressionPosterior(t, c.m)
		d, what := got.maxDiff(want)
		t.Logf("%s: %d sweeps; largest difference from coordinate ascent %.3g (%s)", c.name, out.Iterations, d, what)
		if !out.Converged {
			t.Errorf("%s: not converged after %d sweeps", c.name, out.Iterations)
		}
		if !(d <= 1e-8) {
			t.Errorf("%s: %s differs from coordinate ascent by %.3g\n got %+v\nwant %+v", c.name, what, d, got, want)
		}
	}
	// The posterior is near the truth that simulated the data.
	for k, w := range []float64{1.5, -2, 0.5} {
		if z := (want.wMean[k] - w) / math.Sqrt(want.wVar[k]); math.Abs(z) > 4 {
			t.Errorf("w%d: posterior mean %v, variance %v, truth %v", k, want.wMean[k], want.wVar[k], w)
		}
	}
	if et := want.shape / want.rateTau; et < 2 || et > 8 {
		t.Errorf("E τ = %v, truth 4", et)
	}
	// The builder writes the file's Spec: the same posteriors bit for bit.
	a, _ := regressionPosterior(t, fromFile)
	b, _ := regressionPosterior(t, fromBuilder)
	if d, what := a.maxDiff(b); d != 0 {
		t.Errorf("builder and file differ in %s by %g", what, d)
	}
}

// TestLinearSumProductExact: under sum-product a linear node that joins
// two hidden normals (y observed, y ~ N(2w + b, 1/4), w ~ N(0, 1),
// b ~ N(0.5, 1/2)) is a pairwise factor of the Gaussian tree, and the
// posterior of (w, b) is exact: precision Λ = diag(1, 2) + 4 [2 1]ᵀ[2 1],
// mean Λ⁻¹ (prior shift + 4 y [2 1]ᵀ). Two observations of the same pair
// close a loop, which exact inference refuses, naming a factor.
func TestLinearSumProductExact(t *testing.T) {
	const y = 1.3
	file := `{"variables": [{"name": "w", "family": "normal"}, {"name": "b", "family": "normal"}, {"name": "y", "family": "normal", "observed": 1.3}%s],
	  "factors": [{"node": "normal", "out": "w", "mean": 0, "precision": 1}, {"node": "normal", "out": "b", "mean": 0.5, "precision": 2},
	    {"node": "normal", "name": "obs", "out": "y", "mean": {"sum": [{"of": "w", "scale": 2}], "offset": "b"}, "precision": 4}%s],
	  "settings": {"method": "sum-product", "iterations": 200, "tolerance": 1e-14}}`
	m, err := Parse("pair.json", []byte(fmt.Sprintf(file, "", "")))
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Infer(context.Background(), "pair", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := m.Output(res)
	l00, l01, l11 := 1+4*4.0, 4*2.0, 2+4.0
	h0, h1 := 4*y*2, 2*0.5+4*y
	det := l00*l11 - l01*l01
	for _, c := range []struct {
		name       string
		mean, vari float64
	}{{"w", (l11*h0 - l01*h1) / det, l11 / det}, {"b", (l00*h1 - l01*h0) / det, l00 / det}} {
		p := out.Posteriors[c.name]
		if math.Abs(*p.Mean-c.mean) > 1e-12 || math.Abs(*p.Variance-c.vari) > 1e-12 {
			t.Errorf("%s: N(%v, %v), want the exact N(%v, %v)", c.name, *p.Mean, *p.Variance, c.mean, c.vari)
		}
	}
	loop := fmt.Sprintf(file, `, {"name": "y2", "family": "normal", "observed": 0.4}`,
		`, {"node": "normal", "name": "obs2", "out": "y2", "mean": {"sum": [{"of": "w", "scale": -1}], "offset": "b"}, "precision": 4}`)
	m, err = Parse("loop.json", []byte(loop))
	if err == nil {
		_, err = m.Infer(context.Background(), "loop", nil)
	}
	if err == nil || !strings.Contains(err.Error(), "loop") || !strings.Contains(err.Error(), `factor normal-linear "obs`) {
		t.Errorf("two observations of one pair under sum-product: %v, want a loop error naming the factor", err)
	}
}

// TestLinearSpecRoundTrip: a Spec with linear predictors (scales given and
// left out, a variable and a number offset, an empty sum, a variable
// offset of an affine mean) is written as JSON and read back, through
// ParseSpec and through encoding/json, to the same Spec; both offsets at
// once cannot be written.
func TestLinearSpecRoundTrip(t *testing.T) {
	two, half := 2.0, 0.5
	sp := Spec{
		Variables: []VariableSpec{{Name: "w", Family: "normal"}, {Name: "v", Family: "normal"}, {Name: "b", Family: "normal"},
			{Name: "y", Family: "normal", Observed: &Evidence{Index: -1, Value: &half}}, {Name: "z", Family: "normal"}, {Name: "u", Family: "normal"}},
		Factors: []FactorSpec{
			{Node: "normal", Out: "w", Mean: &NormalMean{}, PrecisionValue: &two},
			{Node: "normal", Out: "v", Mean: &NormalMean{Sum: []SumTerm{}, Offset: &half}, PrecisionValue: &two},
			{Node: "normal", Out: "b", Mean: &NormalMean{Var: "w", Scale: &two, OffsetVar: "v"}, PrecisionValue: &two},
			{Node: "normal", Name: "obs", Out: "y", Mean: &NormalMean{Sum: []SumTerm{{Of: "w", Scale: &Operand{Value: -1.5}}, {Of: "v"}}, OffsetVar: "b"}, PrecisionValue: &two},
			{Node: "normal", Out: "z", Mean: &NormalMean{Sum: []SumTerm{{Of: "w", Scale: &Operand{Value: 3}}}, Offset: &two}, PrecisionValue: &two},
			{Node: "normal", Out: "u", Mean: &NormalMean{Sum: []SumTerm{{Of: "z"}}}, PrecisionValue: &two},
		},
	}
	data, err := json.Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"mean":{"sum":[{"of":"w","scale":-1.5},{"of":"v"}],"offset":"b"}`; !strings.Contains(string(data), want) {
		t.Errorf("JSON %s lacks %s", data, want)
	}
	got, err := ParseSpec(data)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(sp, got); d != "" {
		t.Errorf("Spec -> JSON -> ParseSpec differs:\n%s", d)
	}
	var viaJSON struct{ Factors []struct{ Mean *NormalMean } }
	if err := json.Unmarshal(data, &viaJSON); err != nil {
		t.Fatal(err)
	}
	for i := range sp.Factors {
		if d := cmp.Diff(sp.Factors[i].Mean, viaJSON.Factors[i].Mean); d != "" {
			t.Errorf("factor %d: Spec -> JSON -> json.Unmarshal differs:\n%s", i, d)
		}
	}
	if _, err := FromSpec("sp", sp); err != nil {
		t.Errorf("FromSpec: %v", err)
	}
	sp.Factors[4].Mean.OffsetVar = "b"
	if _, err := json.Marshal(sp); err == nil || !strings.Contains(err.Error(), "Offset and OffsetVar") {
		t.Errorf("both offsets: %v", err)
	}
}

// TestLinearMergesRepeatedVariables: a variable named by several terms,
// or by a term and the offset, is bound once with its scales added:
// w + 2w + w is 4w, the same node and numbers as {"of": "w", "scale": 4}.
func TestLinearMergesRepeatedVariables(t *testing.T) {
	file := `{"variables": [{"name": "w", "family": "normal"}, {"name": "t", "family": "gamma"}, {"name": "y", "family": "normal", "observed": 2.5}],
	  "factors": [{"node": "normal", "out": "w", "mean": 0, "precision": 1}, {"node": "gamma", "out": "t", "shape": 2, "rate": 1},
	    {"node": "normal", "out": "y", "mean": %s, "precision": "t"}]}`
	var outs []string
	for _, mean := range []string{`{"sum": [{"of": "w"}, {"of": "w", "scale": 2}], "offset": "w"}`, `{"of": "w", "scale": 4}`} {
		m, err := Parse("f.json", []byte(fmt.Sprintf(file, mean)))
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, string(result(t, m)))
	}
	if outs[0] != outs[1] {
		t.Errorf("merged terms %s, one term %s", outs[0], outs[1])
	}
}

// TestLinearFileErrors: each fault of a linear predictor names the file
// and the field down to the term; the builder's name the variable.
func TestLinearFileErrors(t *testing.T) {
	base := `{"variables": [{"name": "w", "family": "normal"}, {"name": "s", "family": "categorical", "shape": [2]},
		{"name": "t", "family": "gamma"}, {"name": "y", "family": "normal", "observed": 1.5}],
		"factors": [{"node": "gamma", "out": "t", "shape": 1, "rate": 1}, {"node": "normal", "out": "w", "mean": 0, "precision": 1},
		{"node": "normal", "out": "y", "mean": %s, "precision": "t"}]}`
	for _, c := range []struct {
		mean string
		want []string
	}{
		{`{"sum": 3}`, []string{"f.json", "factors[2].mean.sum", "want an array of terms"}},
		{`{"sum": [1]}`, []string{"factors[2].mean.sum[0]", "want a term"}},
		{`{"sum": [{"of": "w", "sclae": 1}]}`, []string{`factors[2].mean.sum[0].sclae`, "unknown field (fields: of, scale, for)"}},
		{`{"sum": [{"of": "w"}, {"of": "w", "scale": "X"}]}`, []string{"factors[2] (normal).mean.sum[1].scale", "got a string"}},
		{`{"sum": [{"of": "w"}, {"of": "w", "scale": 1e999}]}`, []string{"factors[2] (normal).mean.sum[1].scale", "not a finite number"}},
		{`{"sum": [{"of": "w", "scale": 1e300}]}`, []string{"factors[2] (normal).mean.sum[0].scale", "want a finite number of size at most"}},
		{`{"sum": [{"scale": 2}]}`, []string{"factors[2] (normal).mean.sum[0].of", "missing"}},
		{`{"sum": [{"of": "nope"}]}`, []string{"factors[2] (normal).mean.sum[0].of", `unknown variable "nope"`}},
		{`{"sum": [{"of": "s"}]}`, []string{"factors[2] (normal).mean.sum[0].of", `"s" is categorical, want normal`}},
		{`{"sum": [{"of": "y"}]}`, []string{"factors[2] (normal)", "bound to two interfaces"}},
		{`{"sum": [{"of": "w"}], "of": "w"}`, []string{"factors[2] (normal).mean", `"of" and "sum" are two forms`}},
		{`{"sum": [{"of": "w"}], "scale": 2}`, []string{"factors[2] (normal).mean.scale", "not a field of a sum"}},
		{`{"sum": [{"of": "w"}], "offset": "t"}`, []string{"factors[2] (normal).mean.offset", `"t" is gamma, want normal`}},
		{`{"sum": [{"of": "w"}], "offset": 1e999}`, []string{"factors[2] (normal).mean.offset", "not a finite number"}},
		{`{"sum": [{"of": "w", "scale": 6e149}, {"of": "w", "scale": 6e149}]}`, []string{"factors[2] (normal).mean", `scales of variable "w" add up to 1.2e+150`}},
		{`{"scale": 2, "offset": "w"}`, []string{"factors[2] (normal).mean.of", "missing"}},
	} {
		_, err := Parse("f.json", []byte(fmt.Sprintf(base, c.mean)))
		if err == nil {
			t.Errorf("accepted: %s", c.mean)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.mean, err, w)
			}
		}
	}
	for _, c := range []struct {
		build func(b *Builder)
		want  string
	}{
		{func(b *Builder) {
			s := b.Categorical("s", 2)
			b.Normal("y").NormalFrom(Linear(Num(0), b.Normal("w").Times(1), s.Times(2)), Num(1))
		}, `variable "y": mean: sum[1]: "s" is categorical, want normal`},
		{func(b *Builder) {
			b.Normal("y").NormalFrom(Linear(Num(0), b.Normal("w").Times(math.NaN())), Num(1))
		}, `variable "y": mean: sum[0] scale: value NaN`},
		{func(b *Builder) {
			b.Normal("y").NormalFrom(Linear(Num(math.Inf(1)), b.Normal("w").Times(1)), Num(1))
		}, `variable "y": mean offset: value +Inf`},
		{func(b *Builder) {
			b.Normal("y").NormalFrom(Linear(Of(b.Gamma("t", 1, 1))), Num(1))
		}, `variable "y": mean offset "t" is gamma, want normal`},
		{func(b *Builder) {
			w := b.Normal("w")
			b.Normal("y").NormalFrom(Linear(Linear(Num(0), w.Times(1)), w.Times(1)), Num(1))
		}, `variable "y": mean offset: a number, a normal variable or an affine function of one, not a linear predictor`},
		{func(b *Builder) {
			b.Normal("y").NormalFrom(Num(0), Linear(Num(1), b.Normal("w").Times(1)))
		}, `variable "y": precision: a linear predictor is a mean, not a precision`},
		{func(b *Builder) {
			b.Normal("y").NormalFrom(Linear(Num(0), New().Normal("w").Times(1)), Num(1))
		}, `variable "y": mean: sum[0] "w": a variable of another model`},
		{func(b *Builder) {
			s := b.Categorical("s", 2)
			b.Normal("y").MixtureFrom(s, []Param{Linear(Num(0)), Num(1)}, []Param{Num(1), Num(1)})
		}, `variable "y": means[0]: a mixture mean is a number or a variable`},
	} {
		b := New()
		c.build(b)
		_, err := b.Build("b")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("builder: error %v, want %q", err, c.want)
		}
	}
}

// TestLinearBuilderAffineOffset: an affine offset a·v + c in the builder is
// the term a·v and the number c, which gives the numbers of the file that
// writes them so.
func TestLinearBuilderAffineOffset(t *testing.T) {
	b := New()
	w, v := b.Normal("w"), b.Normal("v")
	w.NormalFrom(Num(0), Num(1))
	v.NormalFrom(Num(1), Num(2))
	b.Normal("y").ObserveValue(0.75).NormalFrom(Linear(Affine(v, -0.5, 0.25), w.Times(2)), Num(3))
	m, err := b.Build("b")
	if err != nil {
		t.Fatal(err)
	}
	file := `{"variables": [{"name": "w", "family": "normal"}, {"name": "v", "family": "normal"}, {"name": "y", "family": "normal", "observed": 0.75}],
	  "factors": [{"node": "normal", "out": "w", "mean": 0, "precision": 1}, {"node": "normal", "out": "v", "mean": 1, "precision": 2},
	    {"node": "normal", "out": "y", "mean": {"sum": [{"of": "w", "scale": 2}, {"of": "v", "scale": -0.5}], "offset": 0.25}, "precision": 3}]}`
	fm, err := Parse("f.json", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if a, c := string(result(t, m)), string(result(t, fm)); a != c {
		t.Errorf("builder %s, file %s", a, c)
	}
}

// ExampleLinear writes a linear regression y_n ~ N(w_0 x_n + w_1 x_n² + b,
// 1/τ) with the builder: the weights, the intercept and the noise
// precision are unknown, and each observation's mean is the linear
// predictor over the weights with the covariates as scales. The data
// are 1 + x + 2x² plus noise.
func ExampleLinear() {
	xs := []float64{-1, -0.5, 0, 0.5, 1, 1.5, 2}
	ys := []float64{2.1, 0.9, 1.1, 1.9, 4.1, 6.9, 11.1}
	b := New()
	w0 := b.Normal("w0").NormalFrom(Num(0), Num(0.01))
	w1 := b.Normal("w1").NormalFrom(Num(0), Num(0.01))
	bias := b.Normal("b").NormalFrom(Num(0), Num(0.01))
	tau := b.Gamma("tau", 1, 0.1)
	for n, x := range xs {
		b.Normal(fmt.Sprint("y", n)).ObserveValue(ys[n]).
			NormalFrom(Linear(Of(bias), w0.Times(x), w1.Times(x*x)), Of(tau))
	}
	m, err := b.Build("regression")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Infer(context.Background(), "regression", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	out := m.Output(res)
	for _, v := range []string{"w0", "w1", "b"} {
		fmt.Printf("%s: mean %.2f\n", v, *out.Posteriors[v].Mean)
	}
	// Output:
	// w0: mean 0.96
	// w1: mean 2.04
	// b: mean 0.99
}
