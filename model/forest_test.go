package model

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

// forestFile is a linear-Gaussian model with everything the forest takes:
// a scalar root with an affine child, an array chain with a constant's
// precisions, an observed array (y) and an observed scalar (z) with a
// factor between two observed values, and the file's own observations of
// u, which the data sets below keep or replace.
var forestFile = `{
  "sizes": {"T": 4},
  "data": {"P": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12` + strings.Repeat(", 13", 1000) + `]},
  "variables": [
    {"name": "a", "family": "normal"},
    {"name": "x", "family": "normal", "size": "T"},
    {"name": "y", "family": "normal", "size": "T"},
    {"name": "u", "family": "normal", "size": 2, "observed": [0.5, null]},
    {"name": "z", "family": "normal", "observed": 1.5},
    {"name": "w", "family": "normal"}
  ],
  "factors": [
    {"node": "normal", "out": "a", "mean": 1, "precision": 0.5},
    {"node": "normal", "out": "x[0]", "mean": {"of": "a", "scale": 0.5, "offset": -1}, "precision": 2},
    {"node": "normal", "name": "step", "for": {"t": "1..T-1"}, "out": "x[t]", "mean": {"of": "x[t-1]", "scale": 0.9, "offset": 0.1}, "precision": "P[t]"},
    {"node": "normal", "for": {"t": "0..T-1"}, "out": "y[t]", "mean": "x[t]", "precision": 1.5},
    {"node": "normal", "for": {"k": "0..1"}, "out": "u[k]", "mean": "a", "precision": 3},
    {"node": "normal", "out": "w", "mean": "z", "precision": 2},
    {"node": "normal", "out": "z", "mean": 0, "precision": 1}
  ],
  "settings": {"method": "sum-product"}
}`

// TestInferJSONForestSameBytes: for data sets that set T (so that Infer
// builds the model again), InferJSON runs them on a forest (checked) and
// writes the bytes Infer and WriteOutput write, on the same Model and on
// a fresh one; the lines mix set sizes, null elements, the file's own
// sizes and a whole scalar given or hidden.
func TestInferJSONForestSameBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	series := func(n int, holes bool) string {
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			if holes && i%4 == 2 {
				b.WriteString("null")
				continue
			}
			fmt.Fprintf(&b, "%.6g", 10*rng.NormFloat64())
		}
		b.WriteByte(']')
		return b.String()
	}
	lines := []struct {
		line   string
		forest bool
	}{
		{`{"y": ` + series(9, false) + `}`, true},
		{`{"y": ` + series(12, true) + `, "u": [null, 0.25]}`, true},
		{`{"y": ` + series(4, false) + `}`, false}, // the file's T: its build
		{`{"y": ` + series(1, false) + `, "a": 2}`, true},
		{`{"y": ` + series(7, true) + `, "z": null}`, true},
		{`{"y": ` + series(10, false) + `, "y[3]": 1}`, false}, // an element named: refused by CheckData
		// Chunks of elements formatted on every core (forestwrite.go).
		{`{"y": ` + series(3*chunkElements+17, true) + `}`, true},
		// P[t] past the constant's end: Infer's error.
		{`{"y": ` + series(1100, false) + `}`, false},
	}
	m, err := Parse("forest.json", []byte(forestFile))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, tc := range lines {
		where := fmt.Sprintf("data.jsonl:%d", i+1)
		d, err := m.ReadData(where, []byte(tc.line))
		if err != nil {
			t.Fatal(err)
		}
		if got := m.forestRun(ctx, where, d) != nil; got != tc.forest {
			t.Errorf("line %d: on a forest %v, want %v", i+1, got, tc.forest)
		}
		var got, want bytes.Buffer
		_, gerr := m.InferJSON(ctx, where, d, &got)
		fresh, err := Parse("forest.json", []byte(forestFile))
		if err != nil {
			t.Fatal(err)
		}
		res, werr := fresh.Infer(ctx, where, d)
		if werr == nil {
			werr = fresh.WriteOutput(&want, res)
		}
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("line %d: InferJSON's error %v, Infer's %v", i+1, gerr, werr)
		}
		if got.String() != want.String() {
			t.Errorf("line %d: InferJSON wrote\n%s\nInfer and WriteOutput\n%s", i+1, got.String(), want.String())
		}
	}
}

// TestInferJSONForestMv: the 2-D tracking model of examples/models and a
// variant with a scalar mvnormal root (an unknown start, the first
// state's mean an affine map of it), on data sets of several lengths with
// hidden elements: InferJSON runs them on a forest (checked) and writes
// the bytes of Infer and WriteOutput.
func TestInferJSONForestMv(t *testing.T) {
	tracking, err := os.ReadFile("../examples/models/multivariate/tracking.json")
	if err != nil {
		t.Fatal(err)
	}
	rooted := strings.Replace(string(tracking), `{"node": "mvnormal", "out": "x[0]", "mean": [0, 0, 1, -0.5],`,
		`{"node": "mvnormal", "out": "s", "mean": [0, 0], "covariance": [[9, 1], [1, 4]]},
    {"node": "mvnormal", "out": "x[0]", "mean": {"of": "s", "matrix": [[1, 0], [0, 1], [0, 0], [0, 0]], "offset": [0, 0, 1, -0.5]},`, 1)
	rooted = strings.Replace(rooted, `"variables": [`, `"variables": [
    {"name": "s", "family": "mvnormal", "dim": 2},
    {"name": "w", "family": "mvnormal", "dim": 4, "observed": [1, -2, 0.5, 3]},`, 1)
	// w's factor reads s: when a data set gives s too, neither is hidden
	// (the statistics of a 4-D and a 2-D value side by side).
	rooted = strings.Replace(rooted, `"factors": [`, `"factors": [
    {"node": "mvnormal", "out": "w", "mean": {"of": "s", "matrix": [[1, 0], [0, 1], [1, 1], [0, -1]]}, "covariance": [[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [0, 0, 0, 2]]},`, 1)
	if rooted == string(tracking) {
		t.Fatal("the variant is the file")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	series := func(n int) string {
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			if i%5 == 3 {
				b.WriteString("null")
				continue
			}
			fmt.Fprintf(&b, "[%.5g, %.5g]", float64(i)+rng.NormFloat64(), -0.5*float64(i)+rng.NormFloat64())
		}
		b.WriteByte(']')
		return b.String()
	}
	for _, file := range []string{string(tracking), rooted} {
		m, err := Parse("tracking.json", []byte(file))
		if err != nil {
			t.Fatal(err)
		}
		lines := []string{`{"y": ` + series(1) + `}`, `{"y": ` + series(17) + `}`, `{"y": ` + series(40) + `}`, `{"y": ` + series(2*chunkElements+3) + `}`}
		if file == rooted {
			lines = append(lines, `{"y": `+series(9)+`, "s": [0.5, -1.5]}`)
		}
		for i, line := range lines {
			where := fmt.Sprintf("data.jsonl:%d", i+1)
			d, err := m.ReadData(where, []byte(line))
			if err != nil {
				t.Fatal(err)
			}
			if m.forestRun(context.Background(), where, d) == nil {
				t.Errorf("line %d: not on a forest", i+1)
			}
			var got, want bytes.Buffer
			if _, err := m.InferJSON(context.Background(), where, d, &got); err != nil {
				t.Fatal(err)
			}
			fresh, _ := Parse("tracking.json", []byte(file))
			res, err := fresh.Infer(context.Background(), where, d)
			if err != nil {
				t.Fatal(err)
			}
			if err := fresh.WriteOutput(&want, res); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("line %d: InferJSON wrote\n%s\nInfer and WriteOutput\n%s", i+1, got.String(), want.String())
			}
		}
	}
}

// TestInferJSONFallsBack: what the forest does not take runs through
// Infer, with Infer's result or error: a model with a gamma variable, a
// loop of hidden variables (Infer's error names it), a hidden element
// without a factor, a sum in a mean.
func TestInferJSONFallsBack(t *testing.T) {
	for _, tc := range []struct{ name, file, line string }{
		{"gamma", `{"sizes": {"T": 2}, "variables": [{"name": "r", "family": "gamma"}, {"name": "x", "family": "normal", "size": "T"}],
		  "factors": [{"node": "gamma", "out": "r", "shape": 2, "rate": 2}, {"node": "normal", "for": {"t": "0..T-1"}, "out": "x[t]", "mean": 0, "precision": "r"}],
		  "settings": {"method": "sum-product"}}`, `{"x": [1, 2, 3]}`},
		{"undirected loop", `{"sizes": {"T": 3}, "variables": [{"name": "x", "family": "normal", "size": "T"}, {"name": "s", "family": "normal"}, {"name": "y", "family": "normal", "size": "T"}],
		  "factors": [{"node": "normal", "out": "s", "mean": 0, "precision": 1}, {"node": "normal", "for": {"t": "0..T-1"}, "out": "x[t]", "mean": "s", "precision": 1},
		  {"node": "normal", "for": {"t": "1..T-1"}, "out": "x[t]", "mean": "x[t-1]", "precision": 1}, {"node": "normal", "for": {"t": "0..T-1"}, "out": "y[t]", "mean": "x[t]", "precision": 1}],
		  "settings": {"method": "sum-product"}}`, `{"y": [1, 2, 3, 4]}`},
		{"no factor", `{"sizes": {"T": 2}, "variables": [{"name": "x", "family": "normal", "size": "T"}, {"name": "y", "family": "normal", "size": "T"}],
		  "factors": [{"node": "normal", "for": {"t": "0..T-2"}, "out": "y[t]", "mean": "x[t]", "precision": 1}, {"node": "normal", "for": {"t": "0..T-1"}, "out": "x[t]", "mean": 0, "precision": 1}],
		  "settings": {"method": "sum-product"}}`, `{"y": [1, 2, null]}`},
		{"sum", `{"sizes": {"N": 2}, "variables": [{"name": "w", "family": "normal"}, {"name": "y", "family": "normal", "size": "N"}],
		  "factors": [{"node": "normal", "out": "w", "mean": 0, "precision": 1}, {"node": "normal", "for": {"n": "0..N-1"}, "out": "y[n]", "mean": {"sum": [{"of": "w", "scale": 2}], "offset": 1}, "precision": 1}],
		  "settings": {"method": "sum-product"}}`, `{"y": [1, 2, 3]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse(tc.name, []byte(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			d, err := m.ReadData("d:1", []byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			if m.forestRun(context.Background(), "d:1", d) != nil {
				t.Error("ran on a forest")
			}
			var got, want bytes.Buffer
			_, gerr := m.InferJSON(context.Background(), "d:1", d, &got)
			fresh, _ := Parse(tc.name, []byte(tc.file))
			res, werr := fresh.Infer(context.Background(), "d:1", d)
			if werr == nil {
				werr = fresh.WriteOutput(&want, res)
			}
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || got.String() != want.String() {
				t.Errorf("InferJSON: %v\n%s\nInfer: %v\n%s", gerr, got.String(), werr, want.String())
			}
		})
	}
}

// TestForestCycle: the check of directed cycles over elements (directedCycle): 0 ← 1 ← 2
// ← 0 closes one; without its last arrow, or with an undirected loop
// only (0 ← 1, 0 ← 2, 1 ← 2), there is none.
func TestForestCycle(t *testing.T) {
	for _, tc := range []struct {
		outs, parents, start []int32
		want                 bool
	}{
		{[]int32{0, 1, 2}, []int32{1, 2, 0}, []int32{0, 1, 2, 3}, true},
		{[]int32{0, 1}, []int32{1, 2}, []int32{0, 1, 2}, false},
		{[]int32{0, 0, 1}, []int32{1, 2, 2}, []int32{0, 1, 2, 3}, false},
	} {
		if _, _, _, _, got := directedCycle(3, tc.outs, tc.parents, tc.start); got != tc.want {
			t.Errorf("outs %v parents %v: %v, want %v", tc.outs, tc.parents, got, tc.want)
		}
	}
}

// TestValueSlabVectorAsReadTensor: the fast reader of an observed array's
// vectors reads what jsonread.ReadTensor reads, or leaves the value to it
// (nil, the reader where it was) for anything but a flat array of finite
// numbers. The text is valid JSON, as a data line or a model file is
// checked whole before it is read.
func TestValueSlabVectorAsReadTensor(t *testing.T) {
	var vs valueSlab
	for _, text := range []string{
		`[1, 2.5, -3e2]`, ` [ 0.1 ,0.2 ]`, `[7]`, `[1e308, -1e-320]`,
		`[]`, `[[1, 2]]`, `[1, [2]]`, `[1, "a"]`, `[1e999]`, `[null]`, `[true]`, `[{}]`,
	} {
		data := []byte(text + `, 9]`)
		r := &jsonread.Reader{Data: data}
		got := vs.vector(r)
		want := (&jsonread.Reader{Data: data}).ReadTensor(-1)
		if got == nil {
			if r.Pos != 0 {
				t.Errorf("%s: left the reader at %d, want 0", text, r.Pos)
			}
			if want.Fault == nil && want.Depth == 1 && len(want.Data) > 0 {
				t.Errorf("%s: refused a flat vector ReadTensor reads", text)
			}
			continue
		}
		if want.Fault != nil || want.Depth != 1 || !slices.Equal(got, want.Data) {
			t.Errorf("%s: read %v; ReadTensor %v at depth %d, fault %v", text, got, want.Data, want.Depth, want.Fault)
		}
		end := &jsonread.Reader{Data: data}
		end.ReadTensor(-1)
		if r.Pos != end.Pos {
			t.Errorf("%s: the reader at %d, ReadTensor's at %d", text, r.Pos, end.Pos)
		}
	}
}

// TestInferJSONForestRandom: random linear-Gaussian models with loops (a
// chain x, a second array z hanging from it, observations y of z, a
// scalar root; random scales, offsets and precisions, a precision from a
// constant) on random data sets (random lengths, hidden elements, a scalar
// given or hidden): InferJSON runs each data set that sets T on a forest
// and writes the bytes of Infer and WriteOutput.
func TestInferJSONForestRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	num := func(lo, hi float64) string { return fmt.Sprintf("%.4g", lo+(hi-lo)*rng.Float64()) }
	for trial := range 12 {
		prec := make([]string, 64)
		for i := range prec {
			prec[i] = num(0.2, 5)
		}
		file := fmt.Sprintf(`{
  "sizes": {"T": 3},
  "data": {"P": [%s]},
  "variables": [
    {"name": "r", "family": "normal"},
    {"name": "x", "family": "normal", "size": "T"},
    {"name": "z", "family": "normal", "size": "T"},
    {"name": "y", "family": "normal", "size": "T"}
  ],
  "factors": [
    {"node": "normal", "out": "r", "mean": %s, "precision": %s},
    {"node": "normal", "out": "x[0]", "mean": {"of": "r", "scale": %s, "offset": %s}, "precision": %s},
    {"node": "normal", "for": {"t": "1..T-1"}, "out": "x[t]", "mean": {"of": "x[t-1]", "scale": %s, "offset": %s}, "precision": "P[t]"},
    {"node": "normal", "for": {"t": "0..T-1"}, "out": "z[t]", "mean": {"of": "x[t]", "scale": %s}, "precision": %s},
    {"node": "normal", "for": {"t": "0..T-1"}, "out": "y[t]", "mean": "z[t]", "precision": %s}
  ],
  "settings": {"method": "sum-product"}
}`, strings.Join(prec, ", "), num(-2, 2), num(0.1, 2), num(-2, 2), num(-1, 1), num(0.5, 3), num(0.5, 1.2), num(-0.5, 0.5), num(-2, 2), num(0.5, 4), num(0.3, 3))
		m, err := Parse("random.json", []byte(file))
		if err != nil {
			t.Fatal(err)
		}
		n := 4 + rng.IntN(60)
		ys := make([]string, n)
		for i := range ys {
			ys[i] = num(-30, 30)
			if rng.IntN(5) == 0 {
				ys[i] = "null"
			}
		}
		line := `{"y": [` + strings.Join(ys, ", ") + `]`
		switch rng.IntN(3) {
		case 0:
			line += `, "r": ` + num(-1, 1)
		case 1:
			line += `, "x": [` + strings.TrimSuffix(strings.Repeat("null, ", n), ", ") + `]`
		}
		line += "}"
		d, err := m.ReadData("d:1", []byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if m.forestRun(context.Background(), "d:1", d) == nil {
			t.Errorf("trial %d: not on a forest", trial)
		}
		var got, want bytes.Buffer
		_, gerr := m.InferJSON(context.Background(), "d:1", d, &got)
		fresh, _ := Parse("random.json", []byte(file))
		res, werr := fresh.Infer(context.Background(), "d:1", d)
		if werr == nil {
			werr = fresh.WriteOutput(&want, res)
		}
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || got.String() != want.String() {
			t.Errorf("trial %d: InferJSON %v\n%s\nInfer %v\n%s", trial, gerr, got.String(), werr, want.String())
		}
	}
}

// TestInferJSONFileValuesOfAnotherSize: a data set that sets T through x
// while the file observes y at its own T: the file's values no longer fit
// (Infer's error), and InferJSON says the same, without a panic.
func TestInferJSONFileValuesOfAnotherSize(t *testing.T) {
	const file = `{"sizes": {"T": 3},
  "variables": [{"name": "x", "family": "normal", "size": "T"}, {"name": "y", "family": "normal", "size": "T", "observed": [1, 2, 3]}],
  "factors": [{"node": "normal", "for": {"t": "0..T-1"}, "out": "x[t]", "mean": 0, "precision": 1},
    {"node": "normal", "for": {"t": "0..T-1"}, "out": "y[t]", "mean": "x[t]", "precision": 1}],
  "settings": {"method": "sum-product"}}`
	m, err := Parse("sizes.json", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.ReadData("d:1", []byte(`{"x": [null, null, null, null, 0.5]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	_, gerr := m.InferJSON(context.Background(), "d:1", d, &got)
	fresh, _ := Parse("sizes.json", []byte(file))
	_, werr := fresh.Infer(context.Background(), "d:1", d)
	if werr == nil || fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Errorf("InferJSON: %v; Infer: %v (want an error, the same)", gerr, werr)
	}
}

// FuzzInferJSON: on the model of TestInferJSONForestSameBytes and any data
// line that ReadData takes, InferJSON never panics and gives Infer's error
// or Infer's and WriteOutput's bytes.
func FuzzInferJSON(f *testing.F) {
	for _, s := range []string{`{"y": [1, 2, 3, 4, 5]}`, `{"y": [0.5, null, 2], "u": [null, 1]}`, `{"y": [1e300, -1e300]}`,
		`{"y": [], "a": 1}`, `{"y": [1, 2], "z": null}`, `{"y": [[1], 2]}`, `{"x": [null, null], "y": [1]}`, `{"y": [1, 2], "y[0]": 3}`} {
		f.Add([]byte(s))
	}
	m, err := Parse("forest.json", []byte(forestFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		d, err := m.ReadData("d:1", line)
		if err != nil {
			return
		}
		for _, ev := range d {
			if ev.Elements != nil && len(ev.Elements.Elements) > 2000 {
				return // a longer chain than P's constants: Infer's error, slowly
			}
		}
		var got, want bytes.Buffer
		_, gerr := m.InferJSON(context.Background(), "d:1", d, &got)
		fresh, _ := Parse("forest.json", []byte(forestFile))
		res, werr := fresh.Infer(context.Background(), "d:1", d)
		if werr == nil {
			werr = fresh.WriteOutput(&want, res)
		}
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || got.String() != want.String() {
			t.Errorf("%s: InferJSON %v\n%s\nInfer %v\n%s", line, gerr, got.String(), werr, want.String())
		}
	})
}
