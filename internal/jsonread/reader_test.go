package jsonread

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"testing"
)

// FuzzNumber: Float and Int convert the text of a JSON number as
// encoding/json does into a float64 and an int, and refuse what it
// refuses (a float64 out of range, an int written with a fraction or an
// exponent, or out of range).
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1", "0.5", "-12.25", "123456789012345", "1234567890123456", "0.1", "0.000000000000001",
		"1e3", "1E-400", "1e309", "-1.7976931348623157e308", "2.2250738585072014e-308", "9223372036854775807", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		data := []byte(lit)
		if len(data) == 0 || data[0] != '-' && (data[0] < '0' || data[0] > '9') {
			return
		}
		if end, fault := CheckNumber(data, 0); fault != Valid || end != len(data) {
			return
		}
		var x float64
		xerr := json.Unmarshal(data, &x)
		if got, ok := Float(data); ok != (xerr == nil) || ok && math.Float64bits(got) != math.Float64bits(x) {
			t.Fatalf("Float(%s) = %v, %v; encoding/json: %v, %v", lit, got, ok, x, xerr)
		}
		var n int
		nerr := json.Unmarshal(data, &n)
		if got, ok := Int(data); ok != (nerr == nil) || ok && got != n {
			t.Fatalf("Int(%s) = %v, %v; encoding/json: %v, %v", lit, got, ok, n, nerr)
		}
	})
}

// FuzzReadString: ReadString decodes a string literal as encoding/json
// does, and leaves the reader after it.
func FuzzReadString(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"\u00e9\n"`, `"\ud800"`, `"\ud83d\ude00"`, "\"\xff\"", `"a\"b"`, `"\/"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		data := []byte(lit)
		if len(data) == 0 || data[0] != '"' {
			return
		}
		if end, fault := CheckString(data, 0); fault != Valid || end != len(data) {
			return
		}
		var want string
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		r := &Reader{Data: data}
		if got := r.ReadString(); got != want || r.Pos != len(data) {
			t.Fatalf("ReadString(%s) = %q at %d, want %q at %d", lit, got, r.Pos, want, len(data))
		}
	})
}

func TestNameFault(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"location", ""},
		{"街 👩‍💻", ""},                 // printable in any script, emoji joiners included
		{"a\u00a0b\u200bc\ufeff", ""}, // spaces and invisible characters that do not reorder the text
		{"a\nb", "contains a control character (U+000A)"},
		{"red\x1b[31m", "contains a control character (U+001B)"},
		{"x\u0085", "contains a control character (U+0085)"},
		{"x\u2028", "contains a control character (U+2028)"},
		{"x\u061c", "contains a control character (U+061C)"},
		{"x\u200f", "contains a control character (U+200F)"},
		{"loc\u202eation", "contains a control character (U+202E)"},
		{"p\u2066", "contains a control character (U+2066)"},
	} {
		if got := NameFault(tc.name); got != tc.want {
			t.Errorf("NameFault(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestOutOfStep: Object and Array at a value of another type report
// ErrOutOfStep instead of reading on.
func TestOutOfStep(t *testing.T) {
	r := &Reader{Data: []byte(`[1, 2]`)}
	if err := r.Object(func(string, int) error { return nil }); !errors.Is(err, ErrOutOfStep) {
		t.Errorf("Object at an array: %v", err)
	}
	r = &Reader{Data: []byte(`{"a": 1}`)}
	if err := r.Array(func(int) error { return nil }); !errors.Is(err, ErrOutOfStep) {
		t.Errorf("Array at an object: %v", err)
	}
}

// TestObjectRawKeys: ObjectRaw gives each key's text as written, its
// offset and the reader at its value; Key decodes the text as ReadString
// does (escapes, U+FFFD for an invalid byte), and Object gives the keys
// decoded.
func TestObjectRawKeys(t *testing.T) {
	data := []byte("{\"a\": 1, \"b\\u0063\": [2], \"\": null, \"\xff\": {}}")
	var raws, keys []string
	var ats []int
	r := &Reader{Data: data}
	if err := r.ObjectRaw(func(raw []byte, at int) error {
		raws, ats = append(raws, string(raw)), append(ats, at)
		keys = append(keys, Key(raw))
		r.Skip()
		return nil
	}); err != nil || r.Pos != len(data) {
		t.Fatalf("ObjectRaw: %v, reader at %d of %d", err, r.Pos, len(data))
	}
	wantRaw := []string{"a", "b\\u0063", "", "\xff"}
	wantKeys := []string{"a", "bc", "", "\ufffd"}
	wantAt := []int{1, 9, 25, 35} // the offsets of the opening quotes, counted in data
	for i := range wantRaw {
		if i >= len(raws) || raws[i] != wantRaw[i] || keys[i] != wantKeys[i] || ats[i] != wantAt[i] {
			t.Fatalf("keys %q decoded %q at %v, want %q decoded %q at %v", raws, keys, ats, wantRaw, wantKeys, wantAt)
		}
	}
	var decoded []string
	r = &Reader{Data: data}
	if err := r.Object(func(key string, _ int) error { decoded = append(decoded, key); r.Skip(); return nil }); err != nil {
		t.Fatal(err)
	}
	for i, k := range wantKeys {
		if i >= len(decoded) || decoded[i] != k {
			t.Fatalf("Object's keys %q, want %q", decoded, wantKeys)
		}
	}
}

// TestReadTensor: the numbers, shape and fault of a few tensors read with
// a free and a fixed rank.
func TestReadTensor(t *testing.T) {
	for _, tc := range []struct {
		text  string
		rank  int
		data  []float64
		shape []int
		fault TensorFaultKind
		path  string
		end   int // where the reader is left; -1: the end of the text
	}{
		{`[[1, 2], [3, 4]]`, -1, []float64{1, 2, 3, 4}, []int{2, 2}, 0, "", -1},
		{`0.5`, -1, []float64{0.5}, nil, 0, "", -1},
		{`[[1, 2], [3]]`, -1, nil, []int{2, 2}, TensorLength, "[1]", -1},
		{`[[1], []]`, -1, nil, []int{2, 1}, TensorEmpty, "[1]", -1},
		{`[[1, 2], 3]`, -1, nil, []int{2, 2}, TensorNumber, "[1]", -1},
		{`[1, 1e999]`, -1, nil, []int{2}, TensorRange, "[1]", -1},
		{`[1, "x"]`, 1, nil, nil, TensorValue, "[1]", 4}, // left at the fault, the array not closed
		{`[[1, 2], [3]]`, 2, []float64{1, 2, 3}, []int{2, 2}, 0, "", -1},
	} {
		r := &Reader{Data: []byte(tc.text)}
		tt := r.ReadTensor(tc.rank)
		end := tc.end
		if end < 0 {
			end = len(tc.text)
		}
		var fault TensorFaultKind
		path := ""
		if tt.Fault != nil {
			fault, path = tt.Fault.Kind, Indices(tt.Fault.Path)
		}
		if !slices.Equal(tt.Data, tc.data) || !slices.Equal(tt.Shape(), tc.shape) || (tt.Fault != nil) != (tc.path != "") || fault != tc.fault || path != tc.path || r.Pos != end {
			t.Errorf("%s, rank %d: %v %v, fault %d at %q, reader at %d; want %v %v, fault %d at %q, reader at %d",
				tc.text, tc.rank, tt.Data, tt.Shape(), fault, path, r.Pos, tc.data, tc.shape, tc.fault, tc.path, end)
		}
	}
}
