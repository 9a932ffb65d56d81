package pomdp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/arbor-ai/arbor/internal/jsonread"
	modelfile "github.com/arbor-ai/arbor/model"
)

// jsonSeeds are the JSON files of the repository that start the fuzzers
// below (POMDP files of both formats and model files) and texts near the
// edges of the syntax.
func jsonSeeds(f *testing.F) [][]byte {
	var out [][]byte
	var paths []string
	for _, pat := range []string{"testdata/*.json", "../examples/pomdp/*.json", "../cmd/arbor/testdata/models/*.json", "../examples/models/*.json"} {
		ps, _ := filepath.Glob(pat)
		paths = append(paths, ps...)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, data)
	}
	for _, s := range []string{``, ` `, `[`, `{"A": [[0.5, N`, `[1, 2]x`, `{"a":1}}`, `"\u12"`, `"\ud800"`, `-`, `1.`, `1e`, `01`, `-0.0e+1`, `[1,]`, `{"a":}`, `tru`, `nul`, "\"\x01\"", strings.Repeat("[", 10001), strings.Repeat("[", 10000) + strings.Repeat("]", 10000)} {
		out = append(out, []byte(s))
	}
	return out
}

// oldTensor is how Parse read a modality's A before the streaming reader
// (with encoding/json), except that null is no longer taken for 0: the
// reference for tensorFit.
func oldTensor(field string, raw json.RawMessage, shape []int, deps []string) ([]float64, error) {
	var out []float64
	var walk func(path string, raw json.RawMessage, depth int) error
	walk = func(path string, raw json.RawMessage, depth int) error {
		if depth == len(shape) {
			var v float64
			if err := json.Unmarshal(raw, &v); err != nil || string(bytes.TrimSpace(raw)) == "null" {
				return fmt.Errorf("%s: want a number, got %s", path, jsonread.Shorten(strings.TrimSpace(string(raw))))
			}
			out = append(out, v)
			return nil
		}
		var xs []json.RawMessage
		if err := json.Unmarshal(raw, &xs); err != nil || xs == nil {
			return fmt.Errorf("%s: want an array (%s is indexed [outcome]%s), got %s", path, field, axesText(deps), jsonread.Shorten(strings.TrimSpace(string(raw))))
		}
		if shape[depth] < 0 {
			if len(xs) == 0 {
				return fmt.Errorf("%s: empty", path)
			}
			shape[depth] = len(xs)
		}
		if len(xs) != shape[depth] {
			what := "outcomes"
			if depth > 0 {
				what = "states of " + jsonread.Quote(deps[depth-1])
			}
			return fmt.Errorf("%s: %d entries, want %d (%s; %s is indexed [outcome]%s)", path, len(xs), shape[depth], what, field, axesText(deps))
		}
		for i, x := range xs {
			if err := walk(fmt.Sprintf("%s[%d]", path, i), x, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(field, raw, 0); err != nil {
		return nil, err
	}
	return out, nil
}

// FuzzTensorFit: a modality's A read in one pass and checked against its
// shape afterwards (ReadTensor, tensorFit) gives the numbers or the error
// of a walk of the decoded tree against the shape (oldTensor), whatever the
// text.
func FuzzTensorFit(f *testing.F) {
	for _, s := range jsonSeeds(f) {
		f.Add(s, uint8(1), uint8(2), uint8(2), int8(-1))
	}
	f.Add([]byte(`[[1, 0], [0, [1]]]`), uint8(2), uint8(2), uint8(2), int8(-1))
	f.Add([]byte(`[[1, 0, 0], [0, 1]]`), uint8(1), uint8(3), uint8(2), int8(-1))
	f.Add([]byte(`[[[1, 0], [0, 1]], [[0, 1], "x"]]`), uint8(2), uint8(2), uint8(2), int8(2))
	f.Add([]byte(`[[], [1]]`), uint8(1), uint8(1), uint8(1), int8(-1))
	f.Fuzz(func(t *testing.T, data []byte, rank, n1, n2 uint8, n0 int8) {
		if fault, _ := jsonread.Check(data); fault != jsonread.Valid {
			return
		}
		deps := []string{"f1", "f2", "f3"}[:rank%4]
		shape := []int{max(int(n0), -1)}
		for i := range deps {
			shape = append(shape, 1+int([]uint8{n1, n2, n1 ^ n2}[i]%4))
		}
		want, wantErr := oldTensor("A", data, slices.Clone(shape), deps)
		r := &jsonread.Reader{Data: data}
		got, err := tensorFit("A", r.ReadTensor(-1), slices.Clone(shape), deps)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !slices.Equal(got, want) {
			t.Fatalf("shape %v: got %v, %v; want %v, %v", shape, got, err, want, wantErr)
		}
		if err == nil && jsonread.Space(data, r.Pos) != len(data) {
			t.Fatalf("reader at %d of %d after the tensor", r.Pos, len(data))
		}
	})
}

// oldMatrixShape is the shape check of a matrix decoded by encoding/json:
// the reference for matrixShape and matricesShape.
func oldMatrixShape(field string, x [][]float64, why string, rows, cols int) error {
	if len(x) == 0 {
		return fmt.Errorf("%s: empty", field)
	}
	if rows >= 0 && len(x) != rows {
		return fmt.Errorf("%s: %d rows, want %d (%s)", field, len(x), rows, why)
	}
	if cols < 0 {
		cols = len(x[0])
		if cols == 0 {
			return fmt.Errorf("%s: row 0 is empty", field)
		}
		why = "length of row 0"
	}
	for i, row := range x {
		if len(row) != cols {
			return fmt.Errorf("%s: row %d has %d entries, want %d (%s)", field, i, len(row), cols, why)
		}
	}
	return nil
}

// FuzzMatrixShape: a matrix or a list of matrices read flat with a fixed
// rank (readVector) gives the shape errors and the numbers of the nested
// slices encoding/json decodes; its type errors are those of encoding/json
// (with the index added), at the same place, and null is refused.
func FuzzMatrixShape(f *testing.F) {
	for _, s := range jsonSeeds(f) {
		f.Add(s, false, int8(-1))
	}
	f.Add([]byte(`[[[1, 0], [0, 1]], [[0, 1], [1]]]`), true, int8(2))
	f.Add([]byte(`[[1, 0], [0, 1, 2]]`), false, int8(-1))
	f.Add([]byte(`[[], [1]]`), false, int8(-1))
	f.Add([]byte(`[[[1]], [], [[1, 2]]]`), true, int8(1))
	f.Fuzz(func(t *testing.T, data []byte, three bool, ns int8) {
		if fault, _ := jsonread.Check(data); fault != jsonread.Valid {
			return
		}
		rank := 2
		if three {
			rank = 3
		}
		r := &jsonread.Reader{Data: data}
		tt, err := readVector(r, "B", rank)
		var old2 [][]float64
		var old3 [][][]float64
		var oldErr error
		if three {
			oldErr = json.Unmarshal(data, &old3)
		} else {
			oldErr = json.Unmarshal(data, &old2)
		}
		if oldErr != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(oldErr, &te) {
				t.Fatalf("encoding/json: %v", oldErr)
			}
			want := fmt.Sprintf("B: cannot use JSON %s as %v", jsonread.Shorten(te.Value), te.Type)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("got %v, want %q", err, want)
			}
			return
		}
		if err != nil {
			if !bytes.Contains(data, []byte("null")) || !strings.Contains(err.Error(), "JSON null") {
				t.Fatalf("got %v, encoding/json decodes it", err)
			}
			return
		}
		if tt == nil { // null
			if old2 != nil || old3 != nil {
				t.Fatal("nil tensor for a non-null value")
			}
			return
		}
		if !three {
			for _, c := range [][2]int{{-1, -1}, {len(old2), int(ns)}} {
				got := matrixShape("B", tt, "why", c[0], c[1])
				want := oldMatrixShape("B", old2, "why", c[0], c[1])
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("matrixShape(%v): %v, want %v", c, got, want)
				}
				if got == nil && !slices.Equal(tt.Values(), slices.Concat(old2...)) {
					t.Fatal("numbers differ")
				}
			}
			return
		}
		var want error
		var flat []float64
		for u, bu := range old3 {
			if want = oldMatrixShape(fmt.Sprintf("B[%d]", u), bu, "why", int(ns), int(ns)); want != nil {
				break
			}
			flat = append(flat, slices.Concat(bu...)...)
		}
		got := matricesShape("B", tt, "why", int(ns))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("matricesShape(%d): %v, want %v", ns, got, want)
		}
		if got == nil && len(flat) > 0 && !slices.Equal(tt.Values(), flat) {
			t.Fatal("numbers differ")
		}
	})
}

// pathByTokens is the path of the value at byte end found with
// encoding/json's tokens, the reference for jsonPathAt (numbers as
// json.Number: as float64, one out of range would end the tokens early).
func pathByTokens(data []byte, end int64) string {
	type frame struct {
		obj     bool
		key     string
		n       int
		wantKey bool
	}
	var stack []frame
	done := func() {
		if len(stack) == 0 {
			return
		}
		f := &stack[len(stack)-1]
		if f.obj {
			f.wantKey = true
		} else {
			f.n++
		}
	}
	if end < 0 || end > int64(len(data)) {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(data[:end]))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, frame{obj: true, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				done()
			}
		case string:
			if f := len(stack) - 1; f >= 0 && stack[f].obj && stack[f].wantKey {
				stack[f].key, stack[f].wantKey = v, false
				continue
			}
			done()
		default:
			done()
		}
	}
	var b strings.Builder
	for depth, f := range stack {
		if depth == jsonMaxPathDepth {
			fmt.Fprintf(&b, "...(%d levels deep)", len(stack))
			break
		}
		switch {
		case f.obj && f.wantKey:
			return b.String()
		case f.obj:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(jsonread.Shorten(f.key))
		default:
			fmt.Fprintf(&b, "[%d]", f.n)
		}
	}
	return b.String()
}

func TestJSONPathAt(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"A": [[0.5, N`, "A[0][1]"},
		{`{"A": [[1]], "B": [[[1]], [[0.5, I`, "B[1][0][1]"},
		{`{"A": [[1], [2]], "x": {"y": [1, 2, }`, "x.y[2]"},
		{`{"A": [1], `, ""},
		{`{"A": `, "A"},
		{``, ""},
		{strings.Repeat("[", 20), "[0][0][0][0][0][0][0][0]...(19 levels deep)"},
	} {
		if got := jsonPathAt([]byte(tc.data), int64(len(tc.data))-1); got != tc.want {
			t.Errorf("jsonPathAt(%q) = %q, want %q", tc.data, got, tc.want)
		}
	}
}

// FuzzJSONPathAt: the path of a syntax error is the one encoding/json's
// tokens give, at any offset.
func FuzzJSONPathAt(f *testing.F) {
	for _, s := range jsonSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v struct{}
		var se *json.SyntaxError
		ends := []int64{-1, 0, int64(len(data) / 2), int64(len(data)), int64(len(data)) + 5}
		if errors.As(json.Unmarshal(data, &v), &se) {
			ends = append(ends, se.Offset-1)
		}
		for _, end := range ends {
			if end >= 0 && end <= int64(len(data)) {
				if f, _ := jsonread.Check(data[:end]); f != jsonread.Valid && f != jsonread.Truncated && f != jsonread.Empty {
					continue // the path is asked for valid text only
				}
			}
			if got, want := jsonPathAt(data, end), pathByTokens(data, end); got != want {
				t.Fatalf("jsonPathAt(%q, %d) = %q, want %q", data, end, got, want)
			}
		}
	})
}

func TestParseSyntaxErrorPath(t *testing.T) {
	_, err := Parse([]byte(`{"A": [[0.5, NaN], [0.5, 0.5]]}`))
	want := "A[0][1]: invalid JSON at byte 14: invalid character 'N' looking for beginning of value (JSON has no NaN or Infinity)"
	if err == nil || err.Error() != "pomdp: "+want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestParseDuplicateKeys: a key given twice is refused, at the top and in
// a factor or modality (named as its other faults are), even when the
// values agree; so is a repeated key whose first value is faulty.
func TestParseDuplicateKeys(t *testing.T) {
	fact, err := os.ReadFile("testdata/factorised-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	dupIn := func(obj, key, value string) []byte { // the key again at the start of the object obj
		i := bytes.Index(fact, []byte(obj))
		if i < 0 {
			t.Fatalf("no %s in the file", obj)
		}
		j := bytes.LastIndexByte(fact[:i], '{') + 1
		return slices.Concat(fact[:j], []byte(`"`+key+`": `+value+`, `), fact[j:])
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"top", []byte(model(okA, okB, okC, okD, okD)), `duplicate key "D"`},
		{"top, faulty first", []byte(model(`"A": "x"`, okA, okB, okC, okD)), `duplicate key "A"`},
		{"names", []byte(model(okA, okB, okC, okD, `"states": ["x", "y", "z"]`, `"states": ["x", "y", "z"]`)), `duplicate key "states"`},
		{"factorised top", append([]byte(`{"modalities": [], `), fact[1:]...), `duplicate key "modalities"`},
		{"factor", dupIn(`"name": "location"`, "D", "[1, 0, 0, 0]"), `factor "location": duplicate key "D"`},
		{"factor name", dupIn(`"name": "location"`, "name", `"x"`), `factors[0]: duplicate key "name"`},
		{"factor, faulty first", dupIn(`"name": "location"`, "B", `1`), `factor "location": duplicate key "B"`},
		{"modality", dupIn(`"name": "reward"`, "A", "[]"), `modality "reward": duplicate key "A"`},
	} {
		_, err := Parse(tc.data)
		if err == nil || err.Error() != "pomdp: "+tc.want {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestParseNames: a name with a control character or a bidirectional
// override, in any name field, is refused naming the field and the
// character (quoted, so the error itself prints safely).
func TestParseNames(t *testing.T) {
	fact, err := os.ReadFile("testdata/factorised-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	replace := func(old, new string) []byte {
		if !bytes.Contains(fact, []byte(old)) {
			t.Fatalf("no %s in the file", old)
		}
		return bytes.Replace(fact, []byte(old), []byte(new), 1)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"state", []byte(model(okA, okB, okC, okD, `"states": ["x", "y\u202ez", "z"]`)), `states[1]: "y\u202ez" contains a control character (U+202E)`},
		{"action", []byte(model(okA, okB, okC, okD, `"actions": ["a\nb", "c"]`)), `actions[0]: "a\nb" contains a control character (U+000A)`},
		{"observation", []byte(model(okA, okB, okC, okD, `"observations": ["o", "\u001b[31mred"]`)), `observations[1]: "\x1b[31mred" contains a control character (U+001B)`},
		{"isolate", []byte(model(okA, okB, okC, okD, `"observations": ["o", "p\u2066"]`)), `observations[1]: "p\u2066" contains a control character (U+2066)`},
		{"factor", replace(`"name": "location"`, `"name": "loc\u202eation"`), `factors[0]: name: "loc\u202eation" contains a control character (U+202E)`},
		{"factor state", replace(`"cue", "left"`, `"cue\u0085", "left"`), `factor "location": states[1]: "cue\u0085" contains a control character (U+0085)`},
		{"control", replace(`"go-cue"`, `"go\u200f-cue"`), `factor "location": controls[1]: "go\u200f-cue" contains a control character (U+200F)`},
		{"modality", replace(`"name": "reward"`, `"name": "re\rward"`), `modalities[2]: name: "re\rward" contains a control character (U+000D)`},
		{"outcome", replace(`"none", "reward"`, `"none", "rew\u2028ard"`), `modality "reward": outcomes[1]: "rew\u2028ard" contains a control character (U+2028)`},
	} {
		_, err := Parse(tc.data)
		if err == nil || err.Error() != "pomdp: "+tc.want {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	// Printable names in any script, emoji joiners included, are fine.
	if _, err := Parse([]byte(model(okA, okB, okC, okD, `"states": ["רחוב", "街", "👩‍💻"]`))); err != nil {
		t.Errorf("printable names: %v", err)
	}
}

// TestNameRuleAsModel: POMDP files and model files refuse the same names,
// for every rune that is refused and a few that are not.
func TestNameRuleAsModel(t *testing.T) {
	runes := []rune{0, 7, '\n', 0x1b, 0x7f, 0x85, 0x9f, 0x61c, 0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069, 0x2028, 0x2029,
		'a', 0xa0, 0x200b, 0x200d, 0x2060, 0xfeff, 0xfffd, 0x1f600}
	for _, r := range runes {
		name := "s" + string(r)
		quoted, _ := json.Marshal(name)
		_, perr := Parse([]byte(model(okA, okB, okC, okD, `"states": [`+string(quoted)+`, "y", "z"]`)))
		_, merr := modelfile.Parse("m.json", []byte(`{"variables": [{"name": `+string(quoted)+`, "family": "categorical", "shape": [2]}]}`))
		if (perr == nil) != (merr == nil) || (perr == nil) != (jsonread.NameFault(name) == "") {
			t.Errorf("U+%04X: pomdp %v, model %v, jsonread.NameFault %q", r, perr, merr, jsonread.NameFault(name))
		}
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

// bigFile writes head, then the items next(0), ..., next(items-1) joined
// by commas, then tail, to the file name in dir, and returns its contents.
func bigFile(t *testing.T, dir, name string, items int, head, tail string, next func(i int) string) []byte {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(head)
	for i := range items {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(next(i))
	}
	w.WriteString(tail)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestParseMemory: a file refused for a wrong type costs nothing beyond
// its text and is refused at once, however big; a valid file costs its
// text, 8 bytes per number read (each array allocated once at its final
// size, and kept by the model without a copy), the logarithms of C (8
// bytes per number of C) and, for concentrations a without A, E[a] (8
// bytes per number of a); ln A and the novelty weights are computed on
// first use, not by Parse. The multiples of the file size are logged
// (go test -v).
//
// The bounds pinned: a file of numbers "0" and "1" has about 2.4 bytes per
// number (rows "[0,0,0,0]," are 10 bytes for 4 numbers, C's ",0" 2 bytes
// per number, 12 bytes a row of A and its C), so the 5 numbers of a row
// take 40/12 = 3.3 times the file and ln C 8/12 = 0.67 times: 4.0 times the
// file allocated, 5.0 times with the file itself; with a instead of A,
// E[a] adds 32/12 = 2.7 times: 6.7 times allocated, 7.7 with the file. The
// test allows 8 bytes per number read and per number the model derives
// plus 1 MiB, 8 times the file allocated, and (what is documented) 10
// times the file plus 4 MiB with the file; it measures allocation with the
// collector off (runtime.MemStats TotalAlloc), so that nothing freed early
// hides a copy.
func TestParseMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads files of 48 to 60 MB")
	}
	dir := t.TempDir()
	const mb = 1 << 20
	zero := func(int) string { return "0" }
	// Rows of A over 4 states, the first row 1s (each column sums to 1).
	dense := func(i int) string {
		if i == 0 {
			return "[1,1,1,1]"
		}
		return "[0,0,0,0]"
	}
	ones := func(int) string { return "[1,1,1,1]" } // concentrations a of 1s
	// Rows of A of full-precision floats, as tools write them.
	const no = 600_000
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([][4]float64, no)
	var sums [4]float64
	for i := range rows {
		for s := range 4 {
			rows[i][s] = rng.Float64()
			sums[s] += rows[i][s]
		}
	}
	floats := func(i int) string {
		var parts [4]string
		for s, x := range rows[i] {
			parts[s] = strconv.FormatFloat(x/sums[s], 'g', -1, 64)
		}
		return "[" + strings.Join(parts[:], ",") + "]"
	}
	oneHot := func(n int) string { return "[1" + strings.Repeat(",0", n-1) + "]" }
	const rest = `"B": [[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]], "D": [0.25,0.25,0.25,0.25]` // 20 numbers
	const factor = `{"factors": [{"name": "s", ` + rest + `}], "modalities": [{"name": "o", "depends_on": ["s"], "A": [`
	const factorConc = `{"factors": [{"name": "s", ` + rest + `}], "modalities": [{"name": "o", "depends_on": ["s"], "a": [`
	const rowsDense = 4 * mb // A 40 MB, C 8 MB
	for _, f := range []struct {
		name    string
		data    []byte
		numbers int
		fault   string // a substring of the error; "" for a valid file
		derived int    // numbers the model derives: ln C, and E[a] without A
	}{
		{"single, A a flat array (60 MB)", bigFile(t, dir, "flat.json", 30*mb, `{"A": [`, "]}", zero),
			30 * mb, "A: cannot use JSON number as []float64 (at A[0])", 0},
		{"factorised, B a flat array (60 MB)", bigFile(t, dir, "fflat.json", 30*mb, `{"factors": [{"name": "s", "B": [`, `]}], "modalities": []}`, zero),
			30 * mb, `factor "s": B: cannot use JSON number as [][]float64 (at B[0])`, 0},
		{"single, 0s and 1s (48 MB)", bigFile(t, dir, "dense.json", rowsDense, `{"A": [`, `], "C": `+oneHot(rowsDense)+`, `+rest+`}`, dense),
			5*rowsDense + 20, "", rowsDense},
		{"factorised, 0s and 1s (48 MB)", bigFile(t, dir, "fdense.json", rowsDense, factor, `], "C": `+oneHot(rowsDense)+`}]}`, dense),
			5*rowsDense + 20, "", rowsDense},
		{"single, full-precision floats", bigFile(t, dir, "floats.json", no, `{"A": [`, `], "C": `+oneHot(no)+`, `+rest+`}`, floats),
			5*no + 20, "", no},
		{"factorised, full-precision floats", bigFile(t, dir, "ffloats.json", no, factor, `], "C": `+oneHot(no)+`}]}`, floats),
			5*no + 20, "", no},
		{"single, concentrations a of 1s (48 MB)", bigFile(t, dir, "conc.json", rowsDense, `{"a": [`, `], "C": `+oneHot(rowsDense)+`, `+rest+`}`, ones),
			5*rowsDense + 20, "", 5 * rowsDense},
		{"factorised, concentrations a of 1s (48 MB)", bigFile(t, dir, "fconc.json", rowsDense, factorConc, `], "C": `+oneHot(rowsDense)+`}]}`, ones),
			5*rowsDense + 20, "", 5 * rowsDense},
	} {
		size := int64(len(f.data))
		alloc, kept, took, err := parseCost(func() (any, error) { return Parse(f.data) })
		t.Logf("%s: %.1f MB, %d numbers: %v; %.3fs; allocated %.2f× the file (peak heap at most %.2f× with the file), the model keeps %.2f×",
			f.name, float64(size)/mb, f.numbers, err, took.Seconds(), float64(alloc)/float64(size), float64(size+alloc)/float64(size), float64(kept)/float64(size))
		if f.fault != "" {
			if err == nil || !strings.Contains(err.Error(), f.fault) {
				t.Errorf("%s: error %v, want %q", f.name, err, f.fault)
			}
			if alloc > mb || took > 3*time.Second {
				t.Errorf("%s: %d bytes and %v to refuse, want < 1 MiB and well under a second", f.name, alloc, took)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		// The numbers (8 bytes each) and those the model derives (ln C,
		// E[a] without A), plus 1 MiB for the small things: no number is
		// held twice, and neither ln A nor the novelty weights are made.
		if bound := 8*int64(f.numbers) + 8*int64(f.derived) + mb; alloc > bound {
			t.Errorf("%s: allocated %d bytes, want at most %d (8 per number read or derived + 1 MiB)", f.name, alloc, bound)
		}
		if alloc > 8*size {
			t.Errorf("%s: allocated %.2f× the file, want at most 8×", f.name, float64(alloc)/float64(size))
		}
		if peak := size + alloc; peak > 10*size+4*mb {
			t.Errorf("%s: peak heap with the file %.2f× the file, want at most 10× + 4 MiB", f.name, float64(peak)/float64(size))
		}
	}
}

// BenchmarkParseFactorised measures reading a typical factorised model
// (the T-maze of pymdp's tutorials).
func BenchmarkParseFactorised(b *testing.B) {
	benchmarkParse(b, "testdata/factorised-tmaze.json")
}

// BenchmarkParseSingle measures reading a single-factor model.
func BenchmarkParseSingle(b *testing.B) {
	benchmarkParse(b, "testdata/tiny-pomdp.json")
}

func benchmarkParse(b *testing.B, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNewCopies: New and NewFactorised keep copies of the caller's slices
// (the file reader alone hands its own slices over), so that changing a
// slice after the call leaves the model as it was.
func TestNewCopies(t *testing.T) {
	sp := Spec{NumStates: 2, NumObs: 2, NumActions: 1,
		A: []float64{0.9, 0.2, 0.1, 0.8}, B: []float64{1, 0, 0, 1}, LogC: []float64{0, 1}, D: []float64{0.5, 0.5},
		ConcA: []float64{9, 2, 1, 8}, ConcB: []float64{1, 1, 1, 1}, ConcD: []float64{1, 1}, CStates: []float64{0.5, 0.5}}
	m, err := New(sp)
	if err != nil {
		t.Fatal(err)
	}
	want := m.Spec()
	for _, x := range [][]float64{sp.A, sp.B, sp.LogC, sp.D, sp.ConcA, sp.ConcB, sp.ConcD, sp.CStates} {
		for i := range x {
			x[i] = -7
		}
	}
	if diff := cmp.Diff(want, m.Spec()); diff != "" {
		t.Errorf("New: the model changed with the caller's slices (-before +after):\n%s", diff)
	}

	fs := FactorisedSpec{
		Factors: []Factor{{Name: "s", NumStates: 2, B: []float64{1, 0, 0, 1}, D: []float64{0.5, 0.5}, ConcD: []float64{1, 2}, LogCStates: []float64{0, 0}}},
		Modalities: []Modality{{Name: "o", NumOutcomes: 2, DependsOn: []string{"s"},
			A: []float64{0.9, 0.2, 0.1, 0.8}, C: []float64{0.25, 0.75}, ConcA: []float64{9, 2, 1, 8}}},
	}
	mf, err := NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	wantF := mf.FactorisedSpec()
	for _, x := range [][]float64{fs.Factors[0].B, fs.Factors[0].D, fs.Factors[0].ConcD, fs.Factors[0].LogCStates,
		fs.Modalities[0].A, fs.Modalities[0].C, fs.Modalities[0].ConcA} {
		for i := range x {
			x[i] = -7
		}
	}
	fs.Modalities[0].DependsOn[0] = "t"
	if diff := cmp.Diff(wantF, mf.FactorisedSpec()); diff != "" {
		t.Errorf("NewFactorised: the model changed with the caller's slices (-before +after):\n%s", diff)
	}
}
