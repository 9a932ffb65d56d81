package pomdp

// This file is the same in packages pomdp and model, apart from the package
// clause (model's TestJSONReadSame checks it): the two may not import each
// other, and both load JSON files of up to tens of megabytes.
//
// Reading a file takes two passes over its bytes. jsonCheck validates the
// syntax without allocating; then a jsonReader walks the valid text, and
// the decoders of the two packages take from it only the values they
// expect, refusing a wrong type at its first token. Nested arrays of
// numbers are read by readTensor straight into one flat []float64 of
// exactly the right size (the numbers are counted first), so that a file
// costs its size plus 8 bytes per number, not a tree of interfaces or
// copies of its text.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// jsonMaxDepth is the deepest nesting of arrays and objects accepted, that
// of encoding/json (whose syntax errors are reported for a fault).
const jsonMaxDepth = 10000

// jsonFault is what jsonCheck found wrong with a text.
type jsonFault uint8

const (
	jsonValid     jsonFault = iota
	jsonEmpty               // nothing but white space
	jsonTruncated           // the text ends inside the value
	jsonTrailing            // a complete value, then more than white space
	jsonBadByte             // a byte that cannot stand where it is
)

// jsonCheck reports whether data is one JSON value surrounded by white
// space, with the offset of the fault: of the byte at fault, or len(data)
// for jsonEmpty and jsonTruncated. It accepts exactly what encoding/json
// accepts (nesting included), and allocates only its stack of open
// containers.
func jsonCheck(data []byte) (jsonFault, int) {
	var stack []byte // '{' or '[' for each open container
	i := jsonSpace(data, 0)
	if i == len(data) {
		return jsonEmpty, i
	}
	for {
		// A value starts at i.
		if i == len(data) {
			return jsonTruncated, i
		}
		var f jsonFault
		switch c := data[i]; c {
		case '{', '[':
			if len(stack) == jsonMaxDepth {
				return jsonBadByte, i
			}
			i = jsonSpace(data, i+1)
			if i == len(data) {
				return jsonTruncated, i
			}
			if data[i] == c+2 { // '}' and ']' follow their openers by 2
				i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if i, f = jsonCheckKey(data, i); f != jsonValid {
					return f, i
				}
			}
			continue
		case '"':
			if i, f = jsonCheckString(data, i); f != jsonValid {
				return f, i
			}
		case 't':
			if i, f = jsonCheckWord(data, i, "true"); f != jsonValid {
				return f, i
			}
		case 'f':
			if i, f = jsonCheckWord(data, i, "false"); f != jsonValid {
				return f, i
			}
		case 'n':
			if i, f = jsonCheckWord(data, i, "null"); f != jsonValid {
				return f, i
			}
		default:
			if c != '-' && (c < '0' || c > '9') {
				return jsonBadByte, i
			}
			if i, f = jsonCheckNumber(data, i); f != jsonValid {
				return f, i
			}
		}
		// A value ended at i: close containers until the next value.
		for {
			i = jsonSpace(data, i)
			if len(stack) == 0 {
				if i == len(data) {
					return jsonValid, i
				}
				return jsonTrailing, i
			}
			if i == len(data) {
				return jsonTruncated, i
			}
			top := stack[len(stack)-1]
			if data[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if data[i] != ',' {
				return jsonBadByte, i
			}
			i = jsonSpace(data, i+1)
			if top == '[' {
				// A run of numbers, the bulk of a model file, in a
				// tighter loop.
				ended := false // a number ended at i, not followed by a comma
				for i < len(data) && jsonClass[data[i]] == classNumber {
					if i, f = jsonCheckNumber(data, i); f != jsonValid {
						return f, i
					}
					j := i
					if j < len(data) && data[j] != ',' {
						j = jsonSpace(data, j)
					}
					if j < len(data) && data[j] == ',' {
						if i = j + 1; i < len(data) && jsonClass[data[i]] != classNumber {
							i = jsonSpace(data, i)
						}
						continue
					}
					ended = true
					break
				}
				if ended {
					continue
				}
			}
			if top == '{' {
				if i, f = jsonCheckKey(data, i); f != jsonValid {
					return f, i
				}
			}
			break
		}
	}
}

// jsonCheckKey checks an object key and its colon at i, returning the
// start of the value.
func jsonCheckKey(data []byte, i int) (int, jsonFault) {
	if i == len(data) {
		return i, jsonTruncated
	}
	if data[i] != '"' {
		return i, jsonBadByte
	}
	i, f := jsonCheckString(data, i)
	if f != jsonValid {
		return i, f
	}
	i = jsonSpace(data, i)
	if i == len(data) {
		return i, jsonTruncated
	}
	if data[i] != ':' {
		return i, jsonBadByte
	}
	return jsonSpace(data, i+1), jsonValid
}

// jsonCheckString checks the string literal at i, returning its end.
func jsonCheckString(data []byte, i int) (int, jsonFault) {
	for i++; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return i + 1, jsonValid
		case c < 0x20:
			return i, jsonBadByte
		case c == '\\':
			i++
			if i == len(data) {
				return i, jsonTruncated
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for range 4 {
					i++
					if i == len(data) {
						return i, jsonTruncated
					}
					if c := data[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
						return i, jsonBadByte
					}
				}
			default:
				return i, jsonBadByte
			}
		}
	}
	return i, jsonTruncated
}

// jsonCheckWord checks the literal word (true, false or null) at i.
func jsonCheckWord(data []byte, i int, word string) (int, jsonFault) {
	for k := 1; k < len(word); k++ {
		if i+k == len(data) {
			return i + k, jsonTruncated
		}
		if data[i+k] != word[k] {
			return i + k, jsonBadByte
		}
	}
	return i + len(word), jsonValid
}

// jsonCheckNumber checks the number at i, returning its end.
func jsonCheckNumber(data []byte, i int) (int, jsonFault) {
	if c := data[i]; c >= '1' && c <= '9' || c == '0' && (i+1 == len(data) || data[i+1] == ',' || data[i+1] == ']') {
		// An integer, the most common number (0 and 1 in matrices).
		for i++; i < len(data) && '0' <= data[i] && data[i] <= '9'; i++ {
		}
		if i == len(data) || data[i] != '.' && data[i] != 'e' && data[i] != 'E' {
			return i, jsonValid
		}
		return jsonCheckFraction(data, i)
	}
	if data[i] == '-' {
		i++
	}
	var f jsonFault
	if i < len(data) && data[i] == '0' {
		i++
	} else if i, f = jsonDigits(data, i); f != jsonValid {
		return i, f
	}
	return jsonCheckFraction(data, i)
}

// jsonCheckFraction checks the fraction and exponent, if any, of the
// number whose integer part ends at i.
func jsonCheckFraction(data []byte, i int) (int, jsonFault) {
	var f jsonFault
	if i < len(data) && data[i] == '.' {
		if i, f = jsonDigits(data, i+1); f != jsonValid {
			return i, f
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i, f = jsonDigits(data, i); f != jsonValid {
			return i, f
		}
	}
	return i, jsonValid
}

// jsonDigits checks one digit or more at i, returning their end.
func jsonDigits(data []byte, i int) (int, jsonFault) {
	if i == len(data) {
		return i, jsonTruncated
	}
	if data[i] < '0' || data[i] > '9' {
		return i, jsonBadByte
	}
	for i++; i < len(data) && '0' <= data[i] && data[i] <= '9'; i++ {
	}
	return i, jsonValid
}

// jsonSpace returns the offset of the first byte at or after i that is
// not JSON white space.
func jsonSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// jsonStringEnd returns the end of the string literal at i.
func jsonStringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '"':
			return i + 1
		case '\\':
			i++
		}
	}
	return len(data)
}

// jsonClass sorts the bytes that matter when skipping valid JSON.
var jsonClass = [256]uint8{
	'"': classQuote, '[': classOpen, '{': classOpen, ']': classClose, '}': classClose,
	'-': classNumber, '0': classNumber, '1': classNumber, '2': classNumber, '3': classNumber, '4': classNumber,
	'5': classNumber, '6': classNumber, '7': classNumber, '8': classNumber, '9': classNumber,
}

const (
	classOther uint8 = iota
	classQuote
	classOpen
	classClose
	classNumber
)

// jsonStructural reports whether any byte of the 8 in x is '"', '[', ']',
// '{' or '}': x|0x20 maps '[' and ']' to '{' and '}' (and nothing else to
// them), and a byte equal to b leaves a zero byte in x^b, which the usual
// bit trick finds.
func jsonStructural(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) &^ v & highs }
	y := x | 0x20*ones
	return zero(x^'"'*ones)|zero(y^'{'*ones)|zero(y^'}'*ones) != 0
}

// jsonSkip returns the end of the valid JSON value at i.
func jsonSkip(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch jsonClass[data[i]] {
	case classQuote:
		return jsonStringEnd(data, i)
	case classOpen:
	default:
		return jsonWordEnd(data, i)
	}
	depth := 0
	for ; i < len(data); i++ {
		// Eight bytes at a time past those that do not matter.
		for i+8 <= len(data) && !jsonStructural(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		if i >= len(data) {
			break
		}
		switch jsonClass[data[i]] {
		case classOther, classNumber:
		case classQuote:
			i = jsonStringEnd(data, i) - 1
		case classOpen:
			depth++
		case classClose:
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return i
}

// jsonWordEnd returns the end of the number or literal word at i.
func jsonWordEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case ',', ']', '}', ':', ' ', '\t', '\n', '\r', '"', '[', '{':
			return i
		}
	}
	return i
}

// jsonReader walks a text that jsonCheck found valid. Its methods do not
// check the syntax again, but never index out of range on any text.
type jsonReader struct {
	data []byte
	pos  int
}

// peek returns the first byte of the next value (or delimiter), 0 at the
// end, after skipping white space.
func (r *jsonReader) peek() byte {
	r.pos = jsonSpace(r.data, r.pos)
	if r.pos < len(r.data) {
		return r.data[r.pos]
	}
	return 0
}

// skip skips the next value.
func (r *jsonReader) skip() {
	r.peek()
	r.pos = jsonSkip(r.data, r.pos)
}

// kind names the type of the next value as encoding/json's type errors do:
// "object", "array", "string", "number", "bool" or "null".
func (r *jsonReader) kind() string {
	return jsonKindAt(r.data, jsonSpace(r.data, r.pos))
}

func jsonKindAt(data []byte, i int) string {
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

// str reads the string at the reader, decoded as encoding/json decodes it
// (escapes; an invalid UTF-8 byte or surrogate becomes U+FFFD).
func (r *jsonReader) str() string {
	start := jsonSpace(r.data, r.pos)
	end := jsonStringEnd(r.data, start)
	r.pos = end
	if end-start < 2 {
		return ""
	}
	body := r.data[start+1 : end-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body)
	}
	var s string
	_ = json.Unmarshal(r.data[start:end], &s)
	return s
}

// object reads the object at the reader, calling f with every key (and its
// offset) and the reader at the key's value, which f must read or skip.
// It stops at f's first error.
func (r *jsonReader) object(f func(key string, at int) error) error {
	if r.peek() != '{' {
		return errJSONReader
	}
	r.pos++
	if r.peek() == '}' {
		r.pos++
		return nil
	}
	for {
		at := jsonSpace(r.data, r.pos)
		key := r.str()
		if r.peek() != ':' {
			return errJSONReader
		}
		r.pos++
		if err := f(key, at); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.pos++
		case '}':
			r.pos++
			return nil
		default:
			return errJSONReader
		}
	}
}

// array reads the array at the reader, calling f with the index of every
// element and the reader at it, which f must read or skip. It stops at f's
// first error.
func (r *jsonReader) array(f func(i int) error) error {
	if r.peek() != '[' {
		return errJSONReader
	}
	r.pos++
	if r.peek() == ']' {
		r.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := f(i); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.pos++
		case ']':
			r.pos++
			return nil
		default:
			return errJSONReader
		}
	}
}

// errJSONReader means a decoder left the reader out of step with the text
// (a bug, reported rather than a panic).
var errJSONReader = fmt.Errorf("internal error: JSON reader out of step")

// jsonFloat converts the text of a JSON number to a float64 as
// encoding/json does; ok is false when it is out of range (±Inf).
func jsonFloat(lit []byte) (float64, bool) {
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
			f /= jsonPow10[frac]
		}
		if neg {
			f = -f
		}
		return f, true
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	return f, err == nil && !math.IsInf(f, 0)
}

var jsonPow10 = [16]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// jsonCountNumbers counts the numbers in the valid JSON value at i.
func jsonCountNumbers(data []byte, i int) int {
	n, depth := 0, 0
	for i < len(data) {
		switch jsonClass[data[i]] {
		case classQuote:
			i = jsonStringEnd(data, i) - 1
		case classOpen:
			depth++
		case classClose:
			depth--
		case classNumber:
			n++
			// The rest of the number: digits, '.', 'e', 'E', '+', '-'.
			for i++; i < len(data) && (jsonClass[data[i]] == classNumber || data[i] == '.' || data[i] == 'e' || data[i] == 'E' || data[i] == '+'); i++ {
			}
			i--
		}
		if depth <= 0 {
			return n
		}
		i++
	}
	return n
}

// jsonTensor is a number or a nested array of numbers read by readTensor:
// its numbers flat in the order of the text (row-major when it is
// rectangular), the lengths of its arrays and its first fault.
type jsonTensor struct {
	data  []float64
	depth int // the depth of its numbers: 0 for a number, 1 for [1, 2]; -1 before the first
	null  bool
	src   []byte // the text it was read from (for the text of a fault)

	// first[d] is the first array at depth d (the tensor itself at depth
	// 0; nil when there is none). With a fixed rank, odd[d] is the first
	// array at depth d of another length than first[d].
	first []*jsonArray
	odd   []*jsonArray
	num   int // the offset of the first number, -1 before it

	fault *jsonTensorFault // the first fault: reading stopped there
}

// jsonArray is one array of a tensor: its length, its rank in the order of
// the text (0 for the tensor itself, then one more for every array that
// opens), its offset and its indices.
type jsonArray struct {
	n, seq, off int
	path        []int
}

// jsonTensorFault is a value that does not fit: at path (its indices),
// starting at offset off.
type jsonTensorFault struct {
	kind jsonTensorFaultKind
	path []int
	off  int
	n    int // the length, for tensorEmpty and tensorLength
	want int // the length of the first array at that depth, for tensorLength
}

type jsonTensorFaultKind uint8

const (
	tensorValue  jsonTensorFaultKind = iota // a string, boolean, null or object
	tensorRange                             // a number out of the range of float64
	tensorNumber                            // a number where an array belongs
	tensorArray                             // an array where a number belongs
	tensorEmpty                             // an empty array (free rank only)
	tensorLength                            // an array of another length than the first at its depth (free rank only)
)

// readTensor reads the value at the reader as numbers. With rank >= 0 the
// numbers must be at that depth (a number at another depth, an array at
// it or any other value is a fault), and arrays may have any lengths
// (first and odd record them, for the caller's messages). With rank < 0
// the depth is that of the first number and the arrays must be
// rectangular and not empty; the fault is then the first value, in the
// order of the text, that breaks the shape set by the first array at its
// depth, as a walk from the top of the tree would find it. A null at the
// top is a tensor with null set. After a fault with rank >= 0 the reader
// is left inside the value (the caller reports it, or skips the value from
// its start); otherwise it is after the value.
func (r *jsonReader) readTensor(rank int) *jsonTensor {
	data := r.data
	start := jsonSpace(data, r.pos)
	t := &jsonTensor{depth: -1, num: -1, src: data}
	if rank >= 0 {
		t.depth = rank
	}
	if start < len(data) && data[start] == 'n' {
		t.null = true
		t.fault = &jsonTensorFault{kind: tensorValue, off: start}
		r.pos = jsonSkip(data, start)
		return t
	}
	var idx []int  // idx[d]: the index of the current element of the open array at depth d
	var open []int // open[d]: the offset of the open array at depth d
	var seqs []int // seqs[d]: its rank in the text
	seq := 0
	fault := func(kind jsonTensorFaultKind, off, n int) *jsonTensor {
		t.fault = &jsonTensorFault{kind: kind, path: append([]int(nil), idx...), off: off, n: n}
		t.data = nil
		r.pos = off
		if rank < 0 {
			r.pos = t.unwind(data, idx, open)
		}
		return t
	}
	i := start
	for {
		// A value at i.
		i = jsonSpace(data, i)
		if i >= len(data) {
			return fault(tensorValue, i, 0)
		}
		d := len(idx)
		switch c := data[i]; {
		case c == '[':
			j := jsonSpace(data, i+1)
			empty := j < len(data) && data[j] == ']'
			switch {
			case rank < 0 && empty:
				return fault(tensorEmpty, i, 0)
			case rank >= 0 && d >= rank, rank < 0 && t.depth >= 0 && d >= t.depth:
				return fault(tensorArray, i, 0)
			}
			if empty {
				if t.closeArray(d, 0, seq, i, idx, rank) {
					return fault(tensorLength, i, 0)
				}
				seq++
				i = j + 1
				break
			}
			idx = append(idx, 0)
			open = append(open, i)
			seqs = append(seqs, seq)
			seq++
			i = j
			continue
		case c == '-' || '0' <= c && c <= '9':
			if rank >= 0 && d != rank || rank < 0 && t.depth >= 0 && d != t.depth {
				return fault(tensorNumber, i, 0)
			}
			if t.num < 0 {
				// The first number: count them all and allocate once.
				t.num, t.depth = i, d
				t.data = make([]float64, 0, jsonCountNumbers(data, start))
			}
			end := jsonWordEnd(data, i)
			x, ok := jsonFloat(data[i:end])
			if !ok {
				return fault(tensorRange, i, 0)
			}
			t.data = append(t.data, x)
			i = end
		default:
			return fault(tensorValue, i, 0)
		}
		// A value ended at i: close arrays until the next element.
		for {
			if len(idx) == 0 {
				r.pos = i
				return t
			}
			i = jsonSpace(data, i)
			if i < len(data) && data[i] == ',' {
				idx[len(idx)-1]++
				i++
				break
			}
			d := len(idx) - 1
			if n, off := idx[d]+1, open[d]; t.closeArray(d, n, seqs[d], off, idx[:d], rank) {
				idx, open = idx[:d], open[:d]
				return fault(tensorLength, off, n)
			}
			idx, open, seqs = idx[:d], open[:d], seqs[:d]
			i++
		}
	}
}

// closeArray records the array at depth d that has just been read in
// full (length n, rank seq in the text, offset off, indices path); with a
// free rank it reports whether its length breaks the shape.
func (t *jsonTensor) closeArray(d, n, seq, off int, path []int, rank int) bool {
	for len(t.first) <= d {
		t.first = append(t.first, nil)
		t.odd = append(t.odd, nil)
	}
	first := t.first[d]
	switch {
	case first == nil:
		t.first[d] = &jsonArray{n: n, seq: seq, off: off, path: append([]int(nil), path...)}
	case n == first.n:
	case rank < 0:
		return true
	case t.odd[d] == nil:
		t.odd[d] = &jsonArray{n: n, seq: seq, off: off, path: append([]int(nil), path...)}
	}
	return false
}

// unwind finishes a free-rank tensor at a fault: it reads the rest of the
// arrays still open (idx, open) to learn their lengths, records those on
// the first path, and makes the fault the outermost open array whose
// length breaks the shape, if any, as that comes first in the text. It
// returns the end of the tensor.
func (t *jsonTensor) unwind(data []byte, idx, open []int) int {
	f := t.fault
	if f.kind == tensorLength {
		f.want = t.first[len(f.path)].n
	}
	n := make([]int, len(idx))
	// The rest of every open array, innermost first, after the fault.
	i := jsonSkip(data, jsonSpace(data, f.off))
	if f.kind == tensorLength {
		i = f.off
		i = jsonSkip(data, i) // the array at fault, closed
	}
	for d := len(idx) - 1; d >= 0; d-- {
		count := idx[d] + 1
		for {
			i = jsonSpace(data, i)
			if i >= len(data) || data[i] != ',' {
				i++ // the closing bracket
				break
			}
			count++
			i = jsonSkip(data, jsonSpace(data, i+1))
		}
		n[d] = count
	}
	for d := range idx {
		for len(t.first) <= d {
			t.first = append(t.first, nil)
			t.odd = append(t.odd, nil)
		}
		if t.first[d] == nil {
			t.first[d] = &jsonArray{n: n[d], off: open[d], path: make([]int, d)}
			continue
		}
		if n[d] != t.first[d].n {
			t.fault = &jsonTensorFault{kind: tensorLength, path: append([]int(nil), idx[:d]...), off: open[d], n: n[d], want: t.first[d].n}
			break
		}
	}
	return i
}

// jsonIndices writes indices as "[1][2]".
func jsonIndices(path []int) string {
	var b []byte
	for _, i := range path {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ']')
	}
	return string(b)
}

// nameFault says what makes name unfit to be printed in a line of output:
// a control character (C0, DEL, C1), a line or paragraph separator, or a
// bidirectional formatting character (U+061C, U+200E, U+200F, U+202A to
// U+202E, U+2066 to U+2069), which would reorder or hide the text after
// it on a terminal. It returns "" for a fit name.
func nameFault(name string) string {
	for _, r := range name {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\u061c' ||
			r == '\u200e' || r == '\u200f' || '\u202a' <= r && r <= '\u202e' || '\u2066' <= r && r <= '\u2069' {
			return fmt.Sprintf("contains a control character (U+%04X)", r)
		}
	}
	return ""
}
