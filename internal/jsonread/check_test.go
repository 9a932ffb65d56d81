package jsonread

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seeds are the JSON files of the repository that start the fuzzers of
// this package (POMDP files of both formats and model files) and texts
// near the edges of the syntax.
func seeds(f *testing.F) [][]byte {
	var out [][]byte
	var paths []string
	for _, pat := range []string{"../../pomdp/testdata/*.json", "../../examples/pomdp/*.json", "../../cmd/arbor/testdata/models/*.json", "../../examples/models/*.json"} {
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

// FuzzCheck: Check accepts exactly what encoding/json accepts and
// finds a fault where encoding/json's syntax error is (its Offset counts
// the byte at fault).
func FuzzCheck(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fault, off := Check(data)
		var v struct{}
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		isSyntax := errors.As(err, &se)
		if (fault == Valid) == isSyntax {
			t.Fatalf("Check: %d at %d; encoding/json: %v", fault, off, err)
		}
		switch fault {
		case Empty, Truncated:
			// A number or word cut at the end is "invalid character ' '"
			// to encoding/json, at the end too.
			if off != len(data) || se.Offset != int64(len(data)) && se.Error() != "unexpected end of JSON input" {
				t.Fatalf("Check: %d at %d; encoding/json: %v at %d", fault, off, se, se.Offset)
			}
		case BadByte, Trailing:
			if se.Offset != int64(off)+1 || (fault == Trailing) != strings.HasSuffix(se.Error(), "after top-level value") {
				t.Fatalf("Check: %d at %d; encoding/json: %v at %d", fault, off, se, se.Offset)
			}
		}
		if fault != Valid {
			return
		}
		// Skipping and counting agree with encoding/json's view of the
		// value.
		i := Space(data, 0)
		if end := Space(data, Skip(data, i)); end != len(data) {
			t.Fatalf("Skip ends at %d of %d", end, len(data))
		}
		want := 0
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			if _, ok := tok.(json.Number); ok {
				want++
			}
		}
		if got := countNumbers(data, i); got != want {
			t.Fatalf("countNumbers = %d, want %d", got, want)
		}
	})
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		data  string
		fault Fault
		off   int
	}{
		{`{"A": [[1, 2], [3]]}`, Valid, 20},
		{"  \n", Empty, 3},
		{`{"A": [1, 2`, Truncated, 11},
		{`{"A": 1} {}`, Trailing, 9},
		{`{"A": [1, 2,]}`, BadByte, 12},
		{`{"A": [0.5, NaN]}`, BadByte, 12},
		{`{"A": 01}`, BadByte, 7},
		{`[1e]`, BadByte, 3},
		{"[\"a\tb\"]", BadByte, 3},
		{`["\x"]`, BadByte, 3},
		{strings.Repeat("[", 10000) + strings.Repeat("]", 10000), Valid, 20000},
		{strings.Repeat("[", 10001), BadByte, 10000},
	} {
		fault, off := Check([]byte(tc.data))
		if fault != tc.fault || off != tc.off {
			t.Errorf("Check(%.40q) = %d at %d, want %d at %d", tc.data, fault, off, tc.fault, tc.off)
		}
	}
}

// TestArrayObjects counts the objects among the elements of arrays by hand: nested arrays and
// objects, strings holding commas and brackets, white space.
func TestArrayObjects(t *testing.T) {
	for _, c := range []struct {
		json string
		at   int
		want int
	}{
		{`[]`, 0, 0},
		{` [ ] `, 0, 0},
		{`[1]`, 0, 0},
		{`[{}, 2 ,{"b": 1}]`, 0, 2},
		{`[[1, 2], {"a": [3, 4, {}]}, "x,]{y", null, {}]`, 0, 2},
		{"\n[\t{\"a\": \"]\"} ,\n true,{ } ]", 0, 2},
		{`{"f": [{}, {}]}`, 6, 2},
		{`{"f": [1, 2]}`, 0, 0}, // an object, not an array
		{`7`, 0, 0},
		{``, 0, 0},
	} {
		if fault, _ := Check([]byte(c.json)); c.json != "" && fault != 0 {
			t.Fatalf("%q is not valid JSON", c.json)
		}
		if got := ArrayObjects([]byte(c.json), c.at); got != c.want {
			t.Errorf("ArrayObjects(%q, %d) = %d, want %d", c.json, c.at, got, c.want)
		}
	}
}

// TestArrayLen: the number of elements of an array, whatever their kind.
func TestArrayLen(t *testing.T) {
	for _, c := range []struct {
		text string
		at   int
		want int
	}{{`[]`, 0, 0}, {` [ ]`, 0, 0}, {`[1]`, 0, 1}, {`[1, [2, 3], {"a": [4]}, "x,y", null]`, 0, 5}, {`{"y": [[1, 2], [3, 4]]}`, 6, 2}, {`1`, 0, 0}, {``, 0, 0}} {
		if got := ArrayLen([]byte(c.text), c.at); got != c.want {
			t.Errorf("ArrayLen(%s, %d) = %d, want %d", c.text, c.at, got, c.want)
		}
	}
}
