package jsonread

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Reader walks a text that Check found valid, from offset Pos. Its
// methods do not check the syntax again, but never index out of range on
// any text. A decoder may move Pos itself, to a value's start (to read it
// again or skip it) or past it (Skip).
type Reader struct {
	Data []byte // the whole text
	Pos  int    // the offset of the next byte to read
}

// Peek returns the first byte of the next value (or delimiter), 0 at the
// end, after skipping white space.
func (r *Reader) Peek() byte {
	r.Pos = Space(r.Data, r.Pos)
	if r.Pos < len(r.Data) {
		return r.Data[r.Pos]
	}
	return 0
}

// Skip skips the next value.
func (r *Reader) Skip() {
	r.Peek()
	r.Pos = Skip(r.Data, r.Pos)
}

// Kind names the type of the next value as encoding/json's type errors do:
// "object", "array", "string", "number", "bool" or "null".
func (r *Reader) Kind() string {
	return KindAt(r.Data, Space(r.Data, r.Pos))
}

// KindAt names the type of the value at offset i of data, as Kind does
// ("null" past the end).
func KindAt(data []byte, i int) string {
	if i >= len(data) {
		return "null"
	}
	switch data[i] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// ReadString reads the string at the reader, decoded as encoding/json decodes it
// (escapes; an invalid UTF-8 byte or surrogate becomes U+FFFD).
func (r *Reader) ReadString() string {
	start := Space(r.Data, r.Pos)
	end := stringEnd(r.Data, start)
	r.Pos = end
	if end-start < 2 {
		return ""
	}
	return Key(r.Data[start+1 : end-1])
}

// Key returns the string whose text between its quotes is raw, decoded as
// ReadString decodes it.
func Key(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw)
	}
	var s string
	q := make([]byte, 0, len(raw)+2)
	_ = json.Unmarshal(append(append(append(q, '"'), raw...), '"'), &s)
	return s
}

// Object reads the object at the reader, calling f with every key (and its
// offset) and the reader at the key's value, which f must read or skip.
// It stops at f's first error.
func (r *Reader) Object(f func(key string, at int) error) error {
	return r.ObjectRaw(func(raw []byte, at int) error { return f(Key(raw), at) })
}

// ObjectRaw is Object with each key's text as written between its quotes
// (escapes not decoded; Key decodes it), so that a reader that matches the
// keys against names it knows makes no string of them.
func (r *Reader) ObjectRaw(f func(raw []byte, at int) error) error {
	if r.Peek() != '{' {
		return ErrOutOfStep
	}
	r.Pos++
	if r.Peek() == '}' {
		r.Pos++
		return nil
	}
	for {
		at := Space(r.Data, r.Pos)
		end := stringEnd(r.Data, at)
		var raw []byte // "" for a text that ends early, as ReadString reads it
		if end-at >= 2 {
			raw = r.Data[at+1 : end-1]
		}
		r.Pos = end
		if r.Peek() != ':' {
			return ErrOutOfStep
		}
		r.Pos++
		if err := f(raw, at); err != nil {
			return err
		}
		switch r.Peek() {
		case ',':
			r.Pos++
		case '}':
			r.Pos++
			return nil
		default:
			return ErrOutOfStep
		}
	}
}

// Array reads the array at the reader, calling f with the index of every
// element and the reader at it, which f must read or skip. It stops at f's
// first error.
func (r *Reader) Array(f func(i int) error) error {
	if r.Peek() != '[' {
		return ErrOutOfStep
	}
	r.Pos++
	if r.Peek() == ']' {
		r.Pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := f(i); err != nil {
			return err
		}
		switch r.Peek() {
		case ',':
			r.Pos++
		case ']':
			r.Pos++
			return nil
		default:
			return ErrOutOfStep
		}
	}
}

// ReadNumber reads the number at the reader and returns its text.
func (r *Reader) ReadNumber() []byte {
	start := Space(r.Data, r.Pos)
	r.Pos = WordEnd(r.Data, start)
	return r.Data[start:r.Pos]
}

// Text returns the text of the value at offset i, leaving the reader
// where it is.
func (r *Reader) Text(i int) []byte {
	i = Space(r.Data, i)
	return r.Data[i:Skip(r.Data, i)]
}

// ErrOutOfStep means a decoder left the reader out of step with the text
// (a bug, reported rather than a panic): Object and Array return it when
// the reader is not at the delimiter they expect.
var ErrOutOfStep = fmt.Errorf("internal error: JSON reader out of step")

// Float converts the text of a JSON number to a float64 as
// encoding/json does; ok is false when it is out of range (±Inf).
func Float(lit []byte) (float64, bool) {
	// Most numbers of a model file are short decimals: with at most 15
	// significant digits and no exponent, the digits and the power of 10
	// are exact float64 values, so one division rounds correctly (the
	// fast path of strconv, without its setup cost).
	var mant uint64
	digits, frac, i := 0, -1, 0
	neg := len(lit) > 0 && lit[0] == '-'
	if neg {
		i++
	}
	for ; i < len(lit); i++ {
		c := lit[i]
		switch {
		case '0' <= c && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if frac >= 0 {
				frac++
			}
		case c == '.' && frac < 0:
			frac = 0
		default:
			digits = 100 // an exponent: the slow path
		}
		if digits > 15 {
			break
		}
	}
	if digits > 0 && digits <= 15 {
		f := float64(mant)
		if frac > 0 {
			f /= pow10[frac]
		}
		if neg {
			f = -f
		}
		return f, true
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	return f, err == nil && !math.IsInf(f, 0)
}

var pow10 = [16]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// Int converts the text of a JSON number to an int as encoding/json does:
// an integer literal (no fraction, no exponent) in range.
func Int(lit []byte) (int, bool) {
	n, err := strconv.ParseInt(string(lit), 10, 0)
	return int(n), err == nil
}

// NameFault says what makes name unfit to be printed in a line of output:
// a control character (C0, DEL, C1), a line or paragraph separator, or a
// bidirectional formatting character (U+061C, U+200E, U+200F, U+202A to
// U+202E, U+2066 to U+2069), which would reorder or hide the text after
// it on a terminal. It returns "" for a fit name.
func NameFault(name string) string {
	for _, r := range name {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\u061c' ||
			r == '\u200e' || r == '\u200f' || '\u202a' <= r && r <= '\u202e' || '\u2066' <= r && r <= '\u2069' {
			return fmt.Sprintf("contains a control character (U+%04X)", r)
		}
	}
	return ""
}
