package model

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/schedule"
	"github.com/google/go-cmp/cmp"
)

// withObserved returns the model file data with the observed values of d
// written into its variables: what a user would write to run one data set
// by editing the file.
func withObserved(t testing.TB, data []byte, d Data) []byte {
	t.Helper()
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	for _, v := range f["variables"].([]any) {
		vm := v.(map[string]any)
		if ev, ok := d[vm["name"].(string)]; ok {
			if ev.Probs != nil {
				vm["observed"] = ev.Probs
			} else {
				vm["observed"] = ev.Index
			}
		}
	}
	out, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func randomData(rng *rand.Rand) Data {
	d := Data{}
	for i := range 8 {
		switch rng.IntN(3) {
		case 0:
			d[fmt.Sprintf("o%d", i)] = Evidence{Index: rng.IntN(3)}
		case 1:
			p := []float64{rng.Float64() + 0.01, rng.Float64() + 0.01, rng.Float64() + 0.01}
			s := p[0] + p[1] + p[2]
			for k := range p {
				p[k] /= s
			}
			d[fmt.Sprintf("o%d", i)] = Evidence{Index: -1, Probs: p}
		}
	}
	return d
}

// TestInferManyDataSets: one model, 100 data sets. Each result equals a
// fresh build of the file with those observed values to 1e-12 (posteriors
// and the F trace), and the graph keeps its variables and factors.
func TestInferManyDataSets(t *testing.T) {
	data, err := os.ReadFile("../examples/models/hmm.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse("hmm.json", data)
	if err != nil {
		t.Fatal(err)
	}
	nv, nf := len(m.Graph.Variables()), len(m.Graph.Factors())
	rng := rand.New(rand.NewPCG(100, 1))
	for k := range 100 {
		d := randomData(rng)
		res, err := m.Infer(context.Background(), fmt.Sprintf("set %d", k), d)
		if err != nil {
			t.Fatal(err)
		}
		got := m.Output(res)
		fresh, err := Parse("fresh", withObserved(t, data, d))
		if err != nil {
			t.Fatal(err)
		}
		fres, err := schedule.Run(context.Background(), fresh.Graph, &fresh.Settings)
		if err != nil {
			t.Fatal(err)
		}
		want := fresh.Output(fres)
		if got.Iterations != want.Iterations || len(got.FreeEnergy) != len(want.FreeEnergy) {
			t.Fatalf("set %d: %d sweeps, fresh %d", k, got.Iterations, want.Iterations)
		}
		for i := range want.FreeEnergy {
			if math.Abs(got.FreeEnergy[i]-want.FreeEnergy[i]) > 1e-12 {
				t.Fatalf("set %d: F[%d] %v, fresh %v", k, i, got.FreeEnergy[i], want.FreeEnergy[i])
			}
		}
		gj, _ := json.Marshal(got.Posteriors)
		wj, _ := json.Marshal(want.Posteriors)
		if !sameNumbers(t, gj, wj, 1e-12) {
			t.Fatalf("set %d: posteriors differ:\n%s\n%s", k, gj, wj)
		}
	}
	if len(m.Graph.Variables()) != nv || len(m.Graph.Factors()) != nf {
		t.Errorf("the graph grew: %d variables, %d factors; was %d, %d", len(m.Graph.Variables()), len(m.Graph.Factors()), nv, nf)
	}
}

// sameNumbers compares two JSON documents number by number.
func sameNumbers(t testing.TB, a, b []byte, tol float64) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	var eq func(x, y any) bool
	eq = func(x, y any) bool {
		switch xv := x.(type) {
		case float64:
			yv, ok := y.(float64)
			return ok && math.Abs(xv-yv) <= tol
		case []any:
			yv, ok := y.([]any)
			if !ok || len(xv) != len(yv) {
				return false
			}
			for i := range xv {
				if !eq(xv[i], yv[i]) {
					return false
				}
			}
			return true
		case map[string]any:
			yv, ok := y.(map[string]any)
			if !ok || len(xv) != len(yv) {
				return false
			}
			for k := range xv {
				if !eq(xv[k], yv[k]) {
					return false
				}
			}
			return true
		}
		return x == y
	}
	return eq(x, y)
}

// TestInferDataErrors: a data set that does not fit the model is refused
// with the variable and the fault, and changes nothing.
func TestInferDataErrors(t *testing.T) {
	m, err := Load("../examples/models/hmm.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line string
		want []string
	}{
		{`{"o9": 1}`, []string{`"o9"`, "no variable"}},
		{`{"o0": 3}`, []string{`"o0"`, "out of range [0, 3)"}},
		{`{"o0": -1}`, []string{`"o0"`, "whole number"}},
		{`{"o0": 1.5}`, []string{`"o0"`, "whole number"}},
		{`{"o0": [0.5, 0.5]}`, []string{`"o0"`, "2 probabilities, want 3"}},
		{`{"o0": [0.5, 0.6, 0.1]}`, []string{`"o0"`, "sum to 1.2"}},
		{`{"o0": "x"}`, []string{`"o0"`, "index or a probability vector"}},
		{`{"B": 0}`, []string{`"B"`, "cannot be observed"}},
		{`[1, 2]`, []string{"JSON object"}},
		{`{"o0": 1} {}`, []string{"trailing"}},
		{`null`, []string{"null"}},
	} {
		d, err := ParseData("d.jsonl:7", []byte(c.line))
		if err == nil {
			_, err = m.Infer(context.Background(), "d.jsonl:7", d)
		}
		if err == nil {
			t.Errorf("%s: accepted", c.line)
			continue
		}
		msg := err.Error()
		for _, w := range append(c.want, "d.jsonl:7") {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q lacks %q", c.line, msg, w)
			}
		}
	}
}

// FuzzParseData: any line gives a data set or an error naming the input,
// never a panic; a data set either fits the model or is refused.
func FuzzParseData(f *testing.F) {
	m, err := Load("../examples/models/hmm.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{`{"o0": 1, "o3": [0.2, 0.5, 0.3]}`, `{}`, `{"o9": 1}`, `{"B": [1]}`, `{"o0": 1e300}`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		d, err := ParseData("fuzz:1", line)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "model: fuzz:1") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q", err)
			}
			return
		}
		if err := m.CheckData("fuzz:1", d); err != nil {
			return
		}
		if _, err := m.Infer(context.Background(), "fuzz:1", d); err != nil && !strings.HasPrefix(err.Error(), "model: fuzz:1") && !strings.Contains(err.Error(), "hmm.json") {
			t.Fatalf("infer: %v", err)
		}
	})
}

// BenchmarkInferReuse runs the HMM of examples/models/hmm.json on a new data
// set without rebuilding it; BenchmarkInferFreshBuild parses and builds the
// file for each. The reuse path adds no variables or factors
// (TestInferManyDataSets).
func BenchmarkInferReuse(b *testing.B) {
	data, _ := os.ReadFile("../examples/models/hmm.json")
	m, err := Parse("hmm.json", data)
	if err != nil {
		b.Fatal(err)
	}
	d := Data{"o0": {Index: 1}, "o3": {Index: -1, Probs: []float64{0.2, 0.5, 0.3}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Infer(context.Background(), "bench", d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkInferFreshBuild(b *testing.B) {
	data, _ := os.ReadFile("../examples/models/hmm.json")
	d := Data{"o0": {Index: 1}, "o3": {Index: -1, Probs: []float64{0.2, 0.5, 0.3}}}
	file := withObserved(b, data, d)
	b.ReportAllocs()
	for b.Loop() {
		m, err := Parse("fresh", file)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := schedule.Run(context.Background(), m.Graph, &m.Settings); err != nil {
			b.Fatal(err)
		}
	}
}

// TestInferPrecisionDataSets: the shared-precision model (collapsed
// softmax factors, which keep the messages of their last update) run on
// several data sets in turn gives each time the numbers of a fresh build
// with those choices.
func TestInferPrecisionDataSets(t *testing.T) {
	path := "../examples/models/precision.json"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse("precision.json", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, choices := range [][3]int{{0, 3, 2}, {1, 1, 1}, {0, 3, 2}, {3, 0, 2}} {
		d := Data{"u0": {Index: choices[0]}, "u1": {Index: choices[1]}, "u2": {Index: choices[2]}}
		got, err := m.Infer(context.Background(), "precision.json", d)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := Parse("precision.json", withObserved(t, data, d))
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh.Infer(context.Background(), "precision.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.FreeEnergy) != len(want.FreeEnergy) || math.Abs(got.Final()-want.Final()) > 1e-12 {
			t.Errorf("choices %v: %d sweeps, F %.15f; fresh build %d sweeps, F %.15f", choices, len(got.FreeEnergy), got.Final(), len(want.FreeEnergy), want.Final())
		}
		for i, v := range m.Variables {
			a, b := v.Stats(), fresh.Variables[i].Stats()
			for k := range a {
				if math.Abs(a[k]-b[k]) > 1e-12 {
					t.Errorf("choices %v: %s[%d] = %g, fresh build %g", choices, v.Name(), k, a[k], b[k])
				}
			}
		}
	}
}

// TestCollapsedNeedsVMP: "update": "collapsed" with the method
// sum-product is refused with the factor's field; without "update" a
// sum-product model gets the exact (mean-field) treatment and runs.
func TestCollapsedNeedsVMP(t *testing.T) {
	data, err := os.ReadFile("../examples/models/precision.json")
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	f["settings"] = map[string]any{"method": "sum-product"}
	plain, _ := json.Marshal(f)
	m, err := Parse("p.json", plain)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Infer(context.Background(), "p.json", nil); err != nil {
		t.Errorf("sum-product with the default update: %v", err)
	}
	for _, fac := range f["factors"].([]any) {
		if fm := fac.(map[string]any); fm["node"] == "softmax" {
			fm["update"] = "collapsed"
			break
		}
	}
	bad, _ := json.Marshal(f)
	_, err = Parse("p.json", bad)
	if err == nil || !strings.Contains(err.Error(), "update: collapsed needs the method vmp") {
		t.Errorf("collapsed with sum-product: %v", err)
	}
}

// TestDataNullUnobserves: null in a data set leaves a variable hidden for
// that data set, whatever its family and whatever the model file observes:
// the result equals the file's with that variable's "observed" removed
// (an HMM's categorical o1; a local-level model's normal y3), and the
// next data set without the null observes it again.
func TestDataNullUnobserves(t *testing.T) {
	for _, c := range []struct{ file, name, observed string }{
		{"../examples/models/hmm.json", "o1", `"observed": 0`},
		{"../examples/models/local-level.json", "y3", `"observed": `},
	} {
		src, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(c.file, src)
		if err != nil {
			t.Fatal(err)
		}
		// The twin: the variable's line without its observed value.
		lines := strings.Split(string(src), "\n")
		found := false
		for i, l := range lines {
			if strings.Contains(l, `"name": "`+c.name+`"`) && strings.Contains(l, c.observed) {
				at := strings.Index(l, `, "observed"`)
				lines[i] = l[:at] + "}" + l[strings.LastIndex(l, "}")+1:]
				found = true
			}
		}
		if !found {
			t.Fatalf("%s: no observed %s", c.file, c.name)
		}
		twin, err := Parse("twin.json", []byte(strings.Join(lines, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		d, err := m.ReadData("d.jsonl:1", []byte(`{"`+c.name+`": null}`))
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Infer(context.Background(), "d.jsonl:1", d)
		if err != nil {
			t.Fatal(err)
		}
		want, err := twin.Infer(context.Background(), "twin", Data{})
		if err != nil {
			t.Fatal(err)
		}
		got, exp := m.Output(res), twin.Output(want)
		if !cmp.Equal(got, exp) {
			t.Errorf("%s with %s null: %s", c.file, c.name, cmp.Diff(exp, got))
		}
		if _, ok := got.Posteriors[c.name]; !ok {
			t.Errorf("%s: no posterior for the unobserved %s", c.file, c.name)
		}
		res, err = m.Infer(context.Background(), "d.jsonl:2", Data{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.Output(res).Posteriors[c.name]; ok {
			t.Errorf("%s: %s still hidden in the next data set", c.file, c.name)
		}
	}
}
