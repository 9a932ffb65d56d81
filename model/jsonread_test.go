package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-ai/arbor/internal/jsonread"
	"github.com/google/go-cmp/cmp"
)

// oldDecodeTensor is how a literal tensor was read before the streaming
// reader: through encoding/json's tree of interfaces. It is the reference
// for decodeTensor (with long literals cut in errors, as now).
func oldDecodeTensor(raw []byte, field string) ([]float64, []int, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", field, err)
	}
	var data []float64
	var shape []int
	var walk func(v any, depth int, path string) error
	walk = func(v any, depth int, path string) error {
		switch x := v.(type) {
		case json.Number:
			if depth != len(shape) {
				return fmt.Errorf("%s%s: number where an array was expected (ragged array)", field, path)
			}
			f, err := strconv.ParseFloat(string(x), 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return fmt.Errorf("%s%s: %s is not a finite number", field, path, shorten(string(x)))
			}
			data = append(data, f)
			return nil
		case []any:
			if len(x) == 0 {
				return fmt.Errorf("%s%s: empty array", field, path)
			}
			if depth == len(shape) {
				if len(data) != 0 {
					return fmt.Errorf("%s%s: array where a number was expected (ragged array)", field, path)
				}
				shape = append(shape, len(x))
			} else if shape[depth] != len(x) {
				return fmt.Errorf("%s%s: %d entries, want %d (ragged array)", field, path, len(x), shape[depth])
			}
			for i, e := range x {
				if err := walk(e, depth+1, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
			return nil
		}
		kind := map[string]string{"<nil>": "null", "string": "a string", "bool": "a boolean"}[fmt.Sprintf("%T", v)]
		if kind == "" {
			kind = "an object"
		}
		return fmt.Errorf("%s%s: want a number or an array of numbers, got %s", field, path, kind)
	}
	if err := walk(v, 0, ""); err != nil {
		return nil, nil, err
	}
	return data, shape, nil
}

// FuzzDecodeTensor: a literal tensor read in one pass (decodeTensor) gives
// the numbers, the shape or the error of a walk of encoding/json's tree.
func FuzzDecodeTensor(f *testing.F) {
	for _, s := range []string{`1`, `[1, 2]`, `[[1, 2], [3]]`, `[[1, 2], [3, "x"]]`, `[[1, 2], ["x"]]`, `[[1], 2]`, `[1, [2]]`, `[[], [1]]`,
		`[[[1]], [[1], [2]]]`, `[1e999]`, `null`, `[null]`, `{"a": 1}`, `[true]`, `[[1, 2], [3, 4], [5]]`, `[[[1, 2]], [[3, 4], [5, 6]]]`, `"x"`} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("../cmd/arbor/testdata/models/*.json")
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		got, gotShape, err := decodeTensor(data, "x")
		want, wantShape, wantErr := oldDecodeTensor(data, "x")
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !slices.Equal(got, want) || !slices.Equal(gotShape, wantShape) {
			t.Fatalf("got %v %v %v; want %v %v %v", got, gotShape, err, want, wantShape, wantErr)
		}
	})
}

// FuzzParseSpec: ParseSpec refuses input in one line naming the field, and
// what it accepts goes back to JSON and to the same Spec.
func FuzzParseSpec(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("../examples/models/*.json")
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	// A negative zero, observed or in an array, written back as 0 (once
	// written "-0", which read back as 0).
	f.Add([]byte(`{"variables":[{"name":"x","family":"normal","observed":-0.0}],"factors":[]}`))
	f.Add([]byte(`{"sizes":{"T":2},"variables":[{"name":"x","family":"normal","size":"T","observed":[-0e0,null]}],"factors":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sp, err := ParseSpec(data)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "model: ") || strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("error %q", msg)
			}
			return
		}
		again, err := json.Marshal(sp)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		sp2, err := ParseSpec(again)
		if err != nil {
			t.Fatalf("%s: %v", again, err)
		}
		a, _ := json.Marshal(sp2)
		if !bytes.Equal(a, again) {
			t.Fatalf("round trip: %s, then %s", again, a)
		}
	})
}

// TestParseDuplicateKeys: a key given twice is refused, in the file, a
// variable, a factor and the settings, also when the two differ only in
// case (keys match case-insensitively); ParseSpec refuses it too.
func TestParseDuplicateKeys(t *testing.T) {
	const v = `{"name": "s", "family": "categorical", "shape": [2]}`
	const fac = `{"node": "categorical", "out": "s", "p": [0.5, 0.5]}`
	for _, tc := range []struct {
		name, json, field, fault string
	}{
		{"top", `{"variables": [` + v + `],` + "\n" + ` "variables": [` + v + `]}`, "", `duplicate key "variables" (line 2, column 2)`},
		{"top, faulty first", `{"factors": 5, "variables": [` + v + `], "factors": [` + fac + `]}`, "", `duplicate key "factors" (line 1, column 85)`},
		{"variable, faulty first", `{"variables": [{"name": "s", "family": "categorical", "shape": "x", "shape": [2]}]}`, "variables[0]", `duplicate key "shape"`},
		{"top type error", `{"factors": 5, "variables": [` + v + `]}`, "factors", "want an array, got JSON number (line 1, column 14)"},
		{"variable", `{"variables": [{"name": "s", "family": "categorical", "shape": [2], "shape": [3]}]}`, "variables[0]", `duplicate key "shape"`},
		{"variable, other case", `{"variables": [{"name": "s", "Name": "t", "family": "categorical", "shape": [2]}]}`, "variables[0]", `duplicate key "Name"`},
		{"factor", `{"variables": [` + v + `], "factors": [{"node": "categorical", "out": "s", "p": [0.5, 0.5], "p": "s"}]}`, "factors[0]", `duplicate key "p"`},
		{"settings", `{"variables": [` + v + `], "settings": {"iterations": 5, "iterations": 6}}`, "settings", `duplicate key "iterations"`},
		// A key with escapes is its decoded text (the error quotes that),
		// matched as any other key.
		{"escaped", `{"variables": [{"n\u0061me": "s", "name": "t", "family": "categorical", "shape": [2]}]}`, "variables[0]", `duplicate key "name"`},
		{"escaped, other case", `{"variables": [` + v + `], "factors": [{"node": "categorical", "out": "s", "p": [0.5, 0.5], "\u0050": "s"}]}`, "factors[0]", `duplicate key "P"`},
		{"escaped, unknown", `{"variables": [{"n\u0061mes": "s"}]}`, "variables[0].names", `unknown field (fields: name, family, shape, observed, size, dim)`},
	} {
		_, err := Parse("m.json", []byte(tc.json))
		var me *Error
		if !errorsAs(err, &me) || me.Field != tc.field || me.Err.Error() != tc.fault {
			t.Errorf("%s: got %v, want field %q, fault %q", tc.name, err, tc.field, tc.fault)
		}
		if _, err := ParseSpec([]byte(tc.json)); err == nil || !strings.Contains(err.Error(), tc.fault) {
			t.Errorf("%s: ParseSpec: %v, want %q", tc.name, err, tc.fault)
		}
	}
}

func errorsAs(err error, me **Error) bool {
	e, ok := err.(*Error)
	*me = e
	return ok
}

// TestParseNameRule: variable and factor names with a control character or
// a bidirectional formatting character are refused, naming the character.
func TestParseNameRule(t *testing.T) {
	for _, tc := range []struct{ json, field, fault string }{
		{`{"variables": [{"name": "s\u202e", "family": "categorical", "shape": [2]}]}`, "variables[0].name", `"s\u202e" contains a control character (U+202E)`},
		{`{"variables": [{"name": "s", "family": "categorical", "shape": [2]}], "factors": [{"node": "categorical", "name": "p\u0007", "out": "s", "p": [0.5, 0.5]}]}`,
			"factors[0].name", `"p\a" contains a control character (U+0007)`},
	} {
		_, err := Parse("m.json", []byte(tc.json))
		var me *Error
		if !errorsAs(err, &me) || me.Field != tc.field || me.Err.Error() != tc.fault {
			t.Errorf("got %v, want field %q, fault %q", err, tc.field, tc.fault)
		}
	}
}

// TestParseDataDuplicateKeys: a data line naming a variable twice is
// refused (before, the last value won); so are data after the object, a
// null inside a vector and a value of another JSON type, named by its type
// (a null value unobserves: TestDataNullUnobserves).
func TestParseDataDuplicateKeys(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"o0": 1, "o1": 2, "o0": 1}`, `d.jsonl:3: duplicate key "o0"`},
		{`{"o0": 1} ]`, `d.jsonl:3: trailing data after the JSON object`},
		{`{"o0": "a"}`, `d.jsonl:3: "o0": want a number (a normal variable's value), an outcome index or a probability vector (a categorical variable's), got JSON string`},
		{`{"o0": true}`, `d.jsonl:3: "o0": want a number (a normal variable's value), an outcome index or a probability vector (a categorical variable's), got JSON bool`},
		{`{"o0": [0.5, null, 0.5]}`, `d.jsonl:3: "o0": want an outcome index or a probability vector`},
		{`{"o0": 1`, `d.jsonl:3: want a JSON object from variable names to observed values: unexpected EOF`},
		{`{"o0": x}`, `d.jsonl:3: want a JSON object from variable names to observed values: invalid character 'x' looking for beginning of value`},
		{`[1]`, `d.jsonl:3: want a JSON object from variable names to observed values, got JSON array`},
	} {
		_, err := ParseData("d.jsonl:3", []byte(tc.line))
		if err == nil || err.Error() != "model: "+tc.want {
			t.Errorf("%s: %v, want %q", tc.line, err, tc.want)
		}
	}
	d, err := ParseData("d.jsonl:3", []byte(`{"o0": 2, "o1": [0.25, 0.75], "o2": []}`))
	if err != nil || d["o0"].Index != 2 || !slices.Equal(d["o1"].Probs, []float64{0.25, 0.75}) || d["o2"].Probs == nil {
		t.Errorf("got %v, %v", d, err)
	}
}

// parseCost runs parse with the collector off and returns the bytes it
// allocated (with nothing freed, a bound on its peak heap), those still
// held by its result, and its time.
func parseCost(parse func() (any, error)) (alloc, kept int64, took time.Duration, err error) {
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	m, err := parse()
	took = time.Since(start)
	runtime.ReadMemStats(&after)
	alloc = int64(after.TotalAlloc - before.TotalAlloc)
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept = int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(m)
	return alloc, kept, took, err
}

// TestParseMemory: a model file refused for a wrong type costs nothing
// beyond its text and is refused at once, however big; a valid one costs
// its text, 8 bytes per number read (each literal allocated once at its
// final size) and the graph built from it (kept). The multiples of the
// file size are logged (go test -v).
func TestParseMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads files of 48 to 60 MB")
	}
	const mb = 1 << 20
	write := func(name string, items int, head, tail string, next func(i int) string) []byte {
		var b bytes.Buffer
		b.WriteString(head)
		for i := range items {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(next(i))
		}
		b.WriteString(tail)
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	// An identity transition of n × n: 2 bytes a number.
	const n = 4900
	oneHot := "[1" + strings.Repeat(",0", n-1) + "]"
	head := fmt.Sprintf(`{"variables": [{"name": "s", "family": "categorical", "shape": [%d]}, {"name": "o", "family": "categorical", "shape": [%d]}],
	 "factors": [{"node": "categorical", "out": "s", "p": %s}, {"node": "transition", "out": "o", "in": ["s"], "matrix": [`, n, n, oneHot)
	identity := func(i int) string {
		return oneHot[:1] + strings.Repeat("0,", i) + "1" + strings.Repeat(",0", n-1-i) + "]"
	}
	zero := func(int) string { return "0" }
	// A transition of nf × nf full-precision numbers (about 20 bytes
	// each, as tools write them): row i of M[o][s], every column a
	// distribution (the entries of column s are (s+1)·k-th powers of a
	// ratio, normalised).
	const nf = 1550
	colSum := make([]float64, nf)
	entry := func(o, s int) float64 { return math.Pow(0.999, float64((o+1)*(s+1))) + 0.1 }
	for o := range nf {
		for s := range nf {
			colSum[s] += entry(o, s)
		}
	}
	headF := fmt.Sprintf(`{"variables": [{"name": "s", "family": "categorical", "shape": [%d]}, {"name": "o", "family": "categorical", "shape": [%d]}],
	 "factors": [{"node": "categorical", "out": "s", "p": [1%s]}, {"node": "transition", "out": "o", "in": ["s"], "matrix": [`, nf, nf, strings.Repeat(",0", nf-1))
	floats := func(o int) string {
		parts := make([]string, nf)
		for s := range nf {
			parts[s] = strconv.FormatFloat(entry(o, s)/colSum[s], 'g', -1, 64)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	for _, f := range []struct {
		name    string
		data    []byte
		numbers int
		fault   string // a substring of the error; "" for a valid file
	}{
		{"variables a flat array (60 MB)", write("flat.json", 30*mb, `{"variables": [`, `]}`, zero), 30 * mb, "variables[0]: want a JSON object, got JSON number"},
		{"a literal of the wrong shape (60 MB)", write("shape.json", 30*mb, `{"variables": [{"name": "s", "family": "categorical", "shape": [2]}], "factors": [{"node": "categorical", "out": "s", "p": [[`, `]]}]}`, zero),
			30 * mb, "want a variable name or a probability vector, got shape [1 31457280]"},
		{"identity transition (48 MB)", write("identity.json", n, head, `]}]}`, identity), n*n + n, ""},
		{"full-precision transition", write("floats.json", nf, headF, `]}]}`, floats), nf*nf + nf, ""},
	} {
		size := int64(len(f.data))
		alloc, kept, took, err := parseCost(func() (any, error) { return Parse("m.json", f.data) })
		t.Logf("%s: %.1f MB, %d numbers: %v; %.3fs; allocated %.2f× the file (peak heap at most %.2f× with the file), the model keeps %.2f×",
			f.name, float64(size)/mb, f.numbers, err, took.Seconds(), float64(alloc)/float64(size), float64(size+alloc)/float64(size), float64(kept)/float64(size))
		switch {
		case f.fault != "" && (err == nil || !strings.Contains(err.Error(), f.fault)):
			t.Errorf("%s: error %v, want %q", f.name, err, f.fault)
		case f.fault == "" && err != nil:
			t.Errorf("%s: %v", f.name, err)
		}
		// Reading: 8 bytes a number; building: the graph (kept) and the
		// nodes' work, at most 8 bytes a number.
		if bound := 16*int64(f.numbers) + kept + 4*mb; alloc > bound {
			t.Errorf("%s: allocated %d bytes, want at most %d (16 per number + the model kept + 4 MiB)", f.name, alloc, bound)
		}
		if strings.HasPrefix(f.fault, "variables[0]") && (alloc > mb || took > 3*time.Second) {
			t.Errorf("%s: %d bytes and %v to refuse, want < 1 MiB and well under a second", f.name, alloc, took)
		}
		// Numbers written in full: three times 8 bytes for about 20 bytes
		// of text (the numbers read, their logarithms and the graph's copy
		// of them, nodes.NewTransition), 1.1 times the file; 10 times at
		// most.
		// Numbers written as short as JSON allows (the identity, 2 bytes
		// a number): 8 bytes read, 8 for their logarithms (the tensor
		// takes that array without a copy) and the graph: 9 times the
		// file with the file itself. Every valid file: at most 10 times
		// plus 4 MiB.
		if f.fault == "" && size+alloc > 10*size+4*mb {
			t.Errorf("%s: peak heap at most %.2f× the file, want at most 10× plus 4 MiB", f.name, float64(size+alloc)/float64(size))
		}
	}
}

// TestTooManyObjectsRefusedBeforeReading: with the limit lowered to 5, six
// variables or six factors written out are refused when the array is
// counted, before any is read, with the count and the limit.
func TestTooManyObjectsRefusedBeforeReading(t *testing.T) {
	defer func(l int64) { itemLimit = l }(itemLimit)
	itemLimit = 5
	six := strings.Repeat(`{"name": "x", "family": "normal"}, `, 5) + `{"name": "x", "family": "normal"}`
	for _, c := range []struct{ file, want string }{
		{`{"variables": [` + six + `]}`, `model: m.json: variables: 6 written out, more than the limit of 5 (model.MaxItems)`},
		{`{"variables": [], "factors": [{}, {}, {}, {}, {}, {}]}`, `model: m.json: factors: 6 written out, more than the limit of 5 (model.MaxItems)`},
	} {
		if _, err := Parse("m.json", []byte(c.file)); err == nil || err.Error() != c.want {
			t.Errorf("Parse: got %v, want %s", err, c.want)
		}
		if _, err := ParseSpec([]byte(c.file)); err == nil || !strings.Contains(err.Error(), "more than the limit of 5") {
			t.Errorf("ParseSpec: got %v, want the limit", err)
		}
	}
	// Five are read (and fail later for what they say, not for their count).
	five := `{"variables": [], "factors": [{}, {}, {}, {}, {}]}`
	if _, err := Parse("m.json", []byte(five)); err == nil || strings.Contains(err.Error(), "limit") {
		t.Errorf("five factors: got %v, want an error other than the limit", err)
	}
}

// TestValueSlabNumberAsReadTensor: a number field read from the slab is
// the tensor ReadTensor reads (a number in range), or left to it.
//
// With sharing, a number read again (the second pass) gets the tensor of
// its first reading, whose text is the same: the numbers are equal, the
// offset of the text is the first reading's, and the reader moves on.
func TestValueSlabNumberAsReadTensor(t *testing.T) {
	var s valueSlab
	first := map[string]*jsonread.Tensor{}
	for pass, share := range []bool{false, true, true} {
		for _, text := range []string{`4`, ` -0.5e3`, `1e999`, `0`, `-0`, `[1]`, `"a"`, `null`, `1.5E-7`} {
			data := []byte(text + `, 2`)
			r := &jsonread.Reader{Data: data}
			got := s.number(r, share)
			if got != nil && share {
				if f, ok := first[text]; !ok {
					first[text] = got
				} else if got != f {
					t.Errorf("pass %d: %s: a tensor of its own, want the first reading's", pass, text)
				}
			}
			w := &jsonread.Reader{Data: data}
			want := w.ReadTensor(-1)
			if got == nil {
				if r.Pos != 0 || (want.Fault == nil && want.Depth == 0) {
					t.Errorf("%s: refused (reader at %d); ReadTensor %+v", text, r.Pos, want)
				}
				continue
			}
			if d := cmp.Diff(want.Shape(), got.Shape()); d != "" || !cmp.Equal(want.Data, got.Data) || want.Depth != got.Depth || want.NumAt != got.NumAt || want.Fault != nil || r.Pos != w.Pos {
				t.Errorf("pass %d: %s: %+v at %d; ReadTensor %+v at %d", pass, text, got, r.Pos, want, w.Pos)
			}
		}
	}
	if len(first) != 5 {
		t.Errorf("%d numbers shared, want the 5 in range", len(first))
	}
}

// TestParseSpecTensorsOwnTheirNumbers: a number that a file writes twice
// is read once, but the Spec's tensors each have their own numbers, so
// that editing one factor's spec leaves the other's as it was.
func TestParseSpecTensorsOwnTheirNumbers(t *testing.T) {
	sp, err := ParseSpec([]byte(`{"variables": [{"name": "s", "family": "categorical", "shape": [1]}, {"name": "u", "family": "categorical", "shape": [1]}],
		"factors": [{"node": "categorical", "out": "s", "p": 0.5}, {"node": "categorical", "out": "u", "p": 0.5},
			{"node": "dirichlet", "out": "s", "alpha": 0.5}, {"node": "dirichlet", "out": "u", "alpha": 0.5}]}`))
	if err != nil {
		t.Fatal(err)
	}
	f := sp.Factors
	f[0].P.Tensor.Data[0], f[2].Alpha.Data[0] = 0.9, 0.9
	if f[1].P.Tensor.Data[0] != 0.5 || f[3].Alpha.Data[0] != 0.5 {
		t.Errorf("editing factors 0 and 2 changed factors 1 and 3: p %v, alpha %v, want 0.5", f[1].P.Tensor.Data, f[3].Alpha.Data)
	}
}
