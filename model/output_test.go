package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/schedule"
)

// flatOutput is InferOutput as encoding/json writes it without
// MarshalJSON: the output of a model without arrays, byte for byte.
type flatOutput struct {
	Iterations int                  `json:"iterations"`
	Converged  bool                 `json:"converged"`
	FreeEnergy []float64            `json:"free_energy"`
	Posteriors map[string]Posterior `json:"posteriors"`
}

// writeOutput runs m and returns WriteOutput's bytes, checked against
// json.Marshal of Output.
func writeOutput(t *testing.T, m *Model, where string, d Data) ([]byte, InferOutput) {
	t.Helper()
	res, err := m.Infer(context.Background(), where, d)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	var buf bytes.Buffer
	if err := m.WriteOutput(&buf, res); err != nil {
		t.Fatal(err)
	}
	out := m.Output(res)
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := buf.Bytes(); !bytes.Equal(got, append(b, '\n')) {
		t.Fatalf("%s: WriteOutput\n%s\njson.Marshal(Output)\n%s", where, got, b)
	}
	return buf.Bytes(), out
}

// TestOutputWithoutArrays: the output of every model file without arrays
// is what encoding/json writes of the plain struct, byte for byte, and
// WriteOutput streams the same; with arrays, it reads back (UnmarshalJSON)
// into the same Posteriors and Arrays.
func TestOutputWithoutArrays(t *testing.T) {
	files := validModelFiles(t)
	loops, _ := filepath.Glob("../examples/models/loops/*.json")
	for _, f := range append(files, loops...) {
		m, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		got, out := writeOutput(t, m, f, nil)
		if m.Arrays() != nil {
			var back InferOutput
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			// Alpha reads back as []any: compare the JSON.
			again, _ := json.Marshal(back)
			if !bytes.Equal(append(again, '\n'), got) || len(back.Posteriors) != len(out.Posteriors) || len(back.Arrays) != len(out.Arrays) || len(out.Arrays) == 0 {
				t.Errorf("%s: read back and written again:\n%s\nwas\n%s", f, again, got)
			}
			for name, p := range out.Posteriors {
				a, _ := json.Marshal(p)
				b, _ := json.Marshal(back.Posteriors[name])
				if !bytes.Equal(a, b) {
					t.Errorf("%s: %s read back as %s, was %s", f, name, b, a)
				}
			}
			for name, a := range out.Arrays {
				if !cmp.Equal(a.Size, back.Arrays[name].Size) || len(a.Elements) != len(back.Arrays[name].Elements) {
					t.Errorf("%s: array %s read back as %v", f, name, back.Arrays[name].Size)
				}
			}
			continue
		}
		want, _ := json.Marshal(flatOutput{out.Iterations, out.Converged, out.FreeEnergy, out.Posteriors})
		if !bytes.Equal(got, append(want, '\n')) || out.Arrays != nil {
			t.Errorf("%s: got\n%s\nwant\n%s", f, got, want)
		}
	}
}

// TestOutputArraySameAsTwin: the local-level model with loops gives, as
// the elements of x in index order, the posteriors of x0..x19 of its
// written-out twin (examples/models/local-level.json); y, all observed,
// is left out, as the twin's observed variables are.
func TestOutputArraySameAsTwin(t *testing.T) {
	a, err := Load("../examples/models/loops/local-level.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load("../examples/models/local-level.json")
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := writeOutput(t, a, "loops", nil)
	jb, _ := writeOutput(t, b, "twin", nil)
	var oa, ob struct {
		FreeEnergy []float64                  `json:"free_energy"`
		Posteriors map[string]json.RawMessage `json:"posteriors"`
	}
	if err := json.Unmarshal(ja, &oa); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(jb, &ob); err != nil {
		t.Fatal(err)
	}
	var xs []json.RawMessage
	if err := json.Unmarshal(oa.Posteriors["x"], &xs); err != nil || len(xs) != 20 || len(oa.Posteriors) != 2 {
		t.Fatalf("x: %d elements (%v), %d posteriors; want 20 elements and r, x:\n%s", len(xs), err, len(oa.Posteriors), ja)
	}
	for i, x := range xs {
		if !sameNumbers(t, x, ob.Posteriors[fmt.Sprint("x", i)], 1e-12) {
			t.Errorf("x[%d] = %s, twin's x%d = %s", i, x, i, ob.Posteriors[fmt.Sprint("x", i)])
		}
	}
	if !sameNumbers(t, oa.Posteriors["r"], ob.Posteriors["r"], 1e-12) || len(oa.FreeEnergy) != len(ob.FreeEnergy) {
		t.Errorf("r or F differ:\n%s\n%s", ja, jb)
	}
	if _, ok := oa.Posteriors["y"]; ok {
		t.Errorf("y, all observed, listed:\n%s", ja)
	}
}

// TestOutputArrayNests: a two-dimensional array is an array of arrays,
// null for its observed elements; Arrays gives its elements in index
// order, the same as Posteriors by name.
func TestOutputArrayNests(t *testing.T) {
	m, err := Parse("reg.json", []byte(regressionLoops))
	if err != nil {
		t.Fatal(err)
	}
	got, out := writeOutput(t, m, "reg", nil)
	var o struct {
		Posteriors struct {
			Y [][]*Posterior `json:"y"`
			W []*Posterior   `json:"w"`
		} `json:"posteriors"`
	}
	if err := json.Unmarshal(got, &o); err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	y := o.Posteriors.Y
	if len(y) != 4 || len(o.Posteriors.W) != 2 {
		t.Fatalf("y %d rows, w %d elements:\n%s", len(y), len(o.Posteriors.W), got)
	}
	for n, row := range y {
		for k, p := range row {
			if (p != nil) != (n == 1 && k == 1) || len(row) != 2 {
				t.Errorf("y[%d,%d] = %v; want y[1,1] only, 2 columns", n, k, p)
			}
		}
	}
	if !strings.Contains(string(got), `"y":[[null,null],[null,{"family":"normal","mean":`) {
		t.Errorf("y not nested:\n%s", got)
	}
	ya := out.Arrays["y"]
	if !cmp.Equal(ya.Size, []int{4, 2}) || len(ya.Elements) != 8 || ya.Elements[3] == nil || ya.Elements[2] != nil {
		t.Errorf("Arrays[y] = %v %v", ya.Size, ya.Elements)
	}
	if p := ya.Elements[3]; p == nil || *p.Mean != *out.Posteriors["y[1,1]"].Mean || *p.Mean != *y[1][1].Mean {
		t.Errorf("y[1,1]: Arrays %v, Posteriors %v", p, out.Posteriors["y[1,1]"])
	}
	for k := range 2 {
		if *out.Arrays["w"].Elements[k].Mean != *out.Posteriors[fmt.Sprintf("w[%d]", k)].Mean {
			t.Errorf("w[%d]: Arrays and Posteriors differ", k)
		}
	}
}

// TestOutputDataSetsSetLength: data sets that set an array's length give
// arrays of that length, and the file's again after them.
func TestOutputDataSetsSetLength(t *testing.T) {
	m, err := Load("../examples/models/loops/local-level.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line string
		n    int
	}{{`{"y": [0.3, null, 1.2]}`, 3}, {`{"y": [0.3, 0.4, 1.2, 2, 0.1, 0.5, 0.9]}`, 7}, {`{}`, 20}, {`{"y": [0.3]}`, 1}} {
		d, err := m.ReadData("d:1", []byte(c.line))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := writeOutput(t, m, "d:1", d)
		var o struct {
			Posteriors map[string]json.RawMessage `json:"posteriors"`
		}
		var x, y []*Posterior
		if err := json.Unmarshal(got, &o); err != nil || json.Unmarshal(o.Posteriors["x"], &x) != nil {
			t.Fatalf("%s: %v\n%s", c.line, err, got)
		}
		_ = json.Unmarshal(o.Posteriors["y"], &y)
		if len(x) != c.n || (c.line == `{"y": [0.3, null, 1.2]}`) != (len(y) == 3 && y[0] == nil && y[1] != nil) {
			t.Errorf("%s: x has %d elements, want %d; y %v", c.line, len(x), c.n, y)
		}
	}
}

// TestOutputEmptyArray: an array of no elements is listed, [].
func TestOutputEmptyArray(t *testing.T) {
	m, err := Parse("e.json", []byte(`{"sizes": {"T": 0},
  "variables": [{"name": "a", "family": "normal"}, {"name": "x", "family": "normal", "size": ["T", 2]}],
  "factors": [{"node": "normal", "out": "a", "mean": 0, "precision": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got, out := writeOutput(t, m, "e", nil)
	if !strings.Contains(string(got), `"x":[]`) || len(out.Arrays["x"].Elements) != 0 {
		t.Errorf("got %s", got)
	}
	var back InferOutput
	if err := json.Unmarshal(got, &back); err != nil || !cmp.Equal(back.Arrays["x"].Size, []int{0}) {
		t.Errorf("read back: %v %v", back.Arrays, err)
	}
}

// TestOutputNumbers: numbers are written as encoding/json writes them,
// and one JSON cannot hold is an error.
func TestOutputNumbers(t *testing.T) {
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -1.5, 1e-6, 9.99e-7, 1e-7, 1.234e-300, 5e-324, 1e20, 1e21, 123456789012345678901234.0, math.MaxFloat64, 0.1, 1.0 / 3} {
		w := &jsonWriter{}
		w.float(x)
		want, _ := json.Marshal(x)
		if string(w.b) != string(want) || w.err != nil {
			t.Errorf("%v: got %s, want %s", x, w.b, want)
		}
	}
	for _, s := range []string{"x", `a"b`, "<&>", "é", "x[1,2]", "\u2028"} {
		w := &jsonWriter{}
		w.str(s)
		if want, _ := json.Marshal(s); string(w.b) != string(want) {
			t.Errorf("%q: got %s, want %s", s, w.b, want)
		}
	}
	nan := math.NaN()
	out := InferOutput{Posteriors: map[string]Posterior{"x": {Family: "normal", Mean: &nan, Variance: &nan}}}
	if _, err := json.Marshal(out); err == nil || !strings.Contains(err.Error(), "unsupported value: NaN") {
		t.Errorf("NaN: %v", err)
	}
	var m *Model
	var buf bytes.Buffer
	if err := m.WriteOutput(&buf, &schedule.Result{Iterations: 2}); err != nil || buf.String() != `{"iterations":2,"converged":false,"free_energy":[],"posteriors":{}}`+"\n" {
		t.Errorf("nil model: %q %v", buf.String(), err)
	}
}

// TestOutputMatrices: a matrix is written as encoding/json writes it (the
// reference) whether an entry below the diagonal takes its mirror's text
// (equal bits) or not (a different number, -0 against 0, a ragged or
// non-square matrix), and an mvnormal posterior as its Posterior.
func TestOutputMatrices(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, m := range [][][]float64{
		{{1.5, 0.1, 1e-7}, {0.1, 2, 1.0 / 3}, {1e-7, 1.0 / 3, 3}},
		{{1, 2}, {3, 4}},
		{{0, negZero}, {negZero, 0}},
		{{1, 2, 3}, {2, 4}},
		{{1, 2, 3}, {2, 4, 5}, {3, 5, 6}, {1}},
		{{1, 2}, {2, 4, 9}, {3, 9, 5}},
		{{1, 2}, {2, 4}, {5, 6}},
		{{7}},
		{},
	} {
		w := &jsonWriter{}
		w.matrix(m)
		if want, _ := json.Marshal(m); string(w.b) != string(want) {
			t.Errorf("%v: got %s, want %s", m, w.b, want)
		}
	}
	n := expfam.MvNormal{Mean: []float64{1, -2}, Cov: []float64{0.5, 0.1, 0.1, 0.4}}
	w := &jsonWriter{}
	w.mvNormal(n)
	p := Posterior{Family: "mvnormal", Mv: &MvPosterior{MeanVector: n.Mean, Covariance: [][]float64{n.Cov[:2], n.Cov[2:]}}}
	want := &jsonWriter{}
	want.posterior(&p)
	if string(w.b) != string(want.b) || !strings.Contains(string(w.b), `"covariance":[[0.5,0.1],[0.1,0.4]]`) {
		t.Errorf("mvnormal: got %s, want %s", w.b, want.b)
	}
}

// TestOutputReadBack: UnmarshalJSON refuses arrays that are not
// rectangular arrays of posteriors.
func TestOutputReadBack(t *testing.T) {
	for _, text := range []string{
		`{"posteriors": {"x": [[null], [null, null]]}}`,
		`{"posteriors": {"x": [null, [null]]}}`,
		`{"posteriors": {"x": [[null], null]}}`,
		`{"posteriors": {"x": [1]}}`,
	} {
		var o InferOutput
		if err := json.Unmarshal([]byte(text), &o); err == nil {
			t.Errorf("%s: read as %+v", text, o)
		}
	}
	var o InferOutput
	text := `{"Iterations": 3, "posteriors": {"s": {"family": "gamma", "shape": 1, "rate": 2}, "x": [[null, {"family": "normal", "mean": 1, "variance": 2}]]}}`
	if err := json.Unmarshal([]byte(text), &o); err != nil {
		t.Fatal(err)
	}
	if o.Iterations != 3 || len(o.Posteriors) != 2 || *o.Posteriors["x[0,1]"].Mean != 1 || !cmp.Equal(o.Arrays["x"].Size, []int{1, 2}) || o.Arrays["x"].Elements[0] != nil {
		t.Errorf("read %+v", o)
	}
	b, _ := json.Marshal(o)
	if want := `{"iterations":3,"converged":false,"free_energy":null,"posteriors":{"s":{"family":"gamma","shape":1,"rate":2},"x":[[null,{"family":"normal","mean":1,"variance":2}]]}}`; string(b) != want {
		t.Errorf("written back\n%s\nwant\n%s", b, want)
	}
}

// BenchmarkWriteOutput writes the output of a local-level model of 10^5
// steps (examples/models/loops/kalman.json): "stream" is WriteOutput (the
// output of arbor infer --json), "marshal" json.Marshal of Output, "flat"
// the encoding of every element under its own name that arbor infer
// --json wrote before arrays were written whole (encoding/json of the map
// of names).
func BenchmarkWriteOutput(b *testing.B) {
	data, err := os.ReadFile("../examples/models/loops/kalman.json")
	if err != nil {
		b.Fatal(err)
	}
	const T = 100000
	ys := make([]string, T)
	for i := range ys {
		ys[i] = fmt.Sprintf("%.3f", math.Sin(float64(i)/50))
	}
	text := strings.Replace(string(data), `"T": 3`, fmt.Sprintf(`"T": %d`, T), 1)
	text = strings.Replace(text, "[0.5, -0.2, 0.1]", "["+strings.Join(ys, ",")+"]", 1)
	m, err := Parse("kalman.json", []byte(text))
	if err != nil {
		b.Fatal(err)
	}
	res, err := m.Infer(context.Background(), "kalman.json", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("stream", func(b *testing.B) {
		for b.Loop() {
			if err := m.WriteOutput(io.Discard, res); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(m.Output(res)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("flat", func(b *testing.B) {
		for b.Loop() {
			out := m.Output(res)
			if err := json.NewEncoder(io.Discard).Encode(flatOutput{out.Iterations, out.Converged, out.FreeEnergy, out.Posteriors}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
