package model

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

// The decoder of the fields of sizes, arrays, data constants and loops
// (docs/formats.md, "Sizes, arrays and loops"): "sizes" and "data" of the
// file, "size" and an array's "observed" of a variable, "for" of a factor.
// Type faults are refused as the file is read; the values are checked
// when the model is built (loops.go).

// sizeEntry is one named size of "sizes".
type sizeEntry struct {
	name string
	n    int
}

// dataEntry is one constant of "data".
type dataEntry struct {
	name string
	t    *jsonread.Tensor
}

// extentSpec is one extent of a variable's "size": an expression of sizes
// (expr, "T" or "T+1") or a whole number (n, when expr is "").
type extentSpec struct {
	expr string
	n    int
}

// loopSpec is one loop of a factor's "for": its index and its range
// ("1..T-1").
type loopSpec struct {
	index, rng string
}

// The kinds of an array element's observed value.
const (
	obsNone   uint8 = iota // null: not observed
	obsNumber              // a number (an index or a normal variable's value)
	obsVector              // an array: a probability vector (soft evidence)
)

// observedArray is an array variable's "observed": the element values in
// row-major order and the extents of the nesting (those of the first
// array at each depth; a depth below an empty array has none).
type observedArray struct {
	shape []int
	kind  []uint8
	num   []float64 // per element; the number of an obsNumber
	isInt []bool    // the number is written as an integer (for ParseSpec's Evidence.Index)
	// Per element up to the last vector: a vector of plain numbers read
	// fast (flat), or the tensor of any other (vec); tensor gives either.
	vec  []*jsonread.Tensor
	flat [][]float64

	// The first fault, where reading stopped: at the indices faultPath,
	// faultMsg, or a fault inside the probability vector faultVec.
	fault     bool
	faultPath []int
	faultMsg  string
	faultVec  *jsonread.Tensor
}

// err returns the fault of the observed values, naming field (the
// variable's "observed") and the indices.
func (oa *observedArray) err(field string) error {
	if !oa.fault {
		return nil
	}
	at := field + jsonread.Indices(oa.faultPath)
	if oa.faultVec != nil {
		_, _, err := tensorNumbers(oa.faultVec, at)
		return err
	}
	return &Error{Field: at, Err: errors.New(oa.faultMsg)}
}

// errStop ends a reading at a fault already recorded.
var errStop = errors.New("stop")

// observedArray reads an array variable's observed values: depth nested
// arrays (the dimensions of its size) whose entries are each element's
// observed value or null. A fault is kept in the result.
func (d *decoder) observedArray(depth int) *observedArray {
	oa := &observedArray{}
	var path []int
	fault := func(format string, args ...any) error {
		oa.fault, oa.faultPath, oa.faultMsg = true, append([]int(nil), path...), fmt.Sprintf(format, args...)
		return errStop
	}
	var read func(level int) error
	read = func(level int) error {
		if level == depth {
			k := len(oa.kind)
			switch c := d.r.Peek(); {
			case c == 'n':
				d.r.Skip()
				oa.kind, oa.num, oa.isInt = append(oa.kind, obsNone), append(oa.num, 0), append(oa.isInt, false)
			case c == '-' || '0' <= c && c <= '9':
				lit := d.r.ReadNumber()
				x, ok := jsonread.Float(lit)
				if !ok {
					return fault("%s is not a finite number", shorten(string(lit)))
				}
				// An integer literal has neither a fraction nor an exponent
				// (checked first: jsonread.Int's error costs an allocation).
				isInt := !bytes.ContainsAny(lit, ".eE")
				if isInt {
					_, isInt = jsonread.Int(lit)
				}
				oa.kind, oa.num, oa.isInt = append(oa.kind, obsNumber), append(oa.num, x), append(oa.isInt, isInt)
			case c == '[':
				for len(oa.vec) <= k {
					oa.vec, oa.flat = append(oa.vec, nil), append(oa.flat, nil)
				}
				if x := d.slab.vector(d.r); x != nil {
					oa.flat[k] = x
				} else {
					t := d.r.ReadTensor(-1)
					if t.Fault != nil {
						oa.fault, oa.faultPath, oa.faultVec = true, append([]int(nil), path...), t
						return errStop
					}
					oa.vec[k] = t
				}
				oa.kind, oa.num, oa.isInt = append(oa.kind, obsVector), append(oa.num, 0), append(oa.isInt, false)
			default:
				return fault("want an element's observed value (a number, a probability vector) or null, got JSON %s", d.r.Kind())
			}
			return nil
		}
		if d.r.Peek() != '[' {
			return fault("want an array (the variable's size has %d dimensions), got JSON %s", depth, d.r.Kind())
		}
		n := 0
		err := d.r.Array(func(i int) error {
			path = append(path, i)
			err := read(level + 1)
			path = path[:len(path)-1]
			n++
			return err
		})
		if err != nil {
			return err
		}
		switch {
		case oa.shape[level] < 0:
			oa.shape[level] = n
		case oa.shape[level] != n:
			return fault("%d entries, want %d (ragged array)", n, oa.shape[level])
		}
		return nil
	}
	oa.shape = make([]int, depth)
	for i := range oa.shape {
		oa.shape[i] = -1
	}
	if depth == 1 { // the elements' slices at their final size
		n := jsonread.ArrayLen(d.r.Data, d.r.Pos)
		oa.kind, oa.num, oa.isInt = make([]uint8, 0, n), make([]float64, 0, n), make([]bool, 0, n)
		// An array of vectors (its first element one): their slices too.
		if first := jsonread.Space(d.r.Data, jsonread.Space(d.r.Data, d.r.Pos)+1); n > 0 && first < len(d.r.Data) && d.r.Data[first] == '[' {
			oa.vec, oa.flat = make([]*jsonread.Tensor, 0, n), make([][]float64, 0, n)
		}
	}
	if err := read(0); err != nil && !oa.fault {
		oa.fault, oa.faultMsg = true, err.Error()
	}
	// Below an empty array there is none.
	for i, n := range oa.shape {
		if n < 0 {
			oa.shape = oa.shape[:i]
			break
		}
	}
	return oa
}

// key writes an object's key as a field name.
func key(k string) string { return strings.Trim(strconv.Quote(shorten(k)), `"`) }

// namedObject reads an object whose keys are names (not fields): a key
// given twice is an error.
func (d *decoder) namedObject(field, want string, f func(name, sub string) error) error {
	switch d.r.Peek() {
	case '{':
	case 'n':
		d.r.Skip()
		return nil
	default:
		return d.fail(field, "want a JSON object %s, got JSON %s", want, d.r.Kind())
	}
	seen := map[string]bool{}
	return d.r.Object(func(name string, _ int) error {
		sub := field + "." + key(name)
		if seen[name] {
			return d.fail(field, "duplicate key %q", shorten(name))
		}
		seen[name] = true
		return f(name, sub)
	})
}

// identFault is the error for a size, an index or a constant whose name
// expressions cannot use.
func identFault(name string) error {
	return fmt.Errorf("%q is not a name (a letter or _, then letters, digits and _)", shorten(name))
}

// sizes reads "sizes": names to whole numbers >= 0.
func (d *decoder) sizes() ([]sizeEntry, error) {
	out := []sizeEntry{}
	err := d.namedObject("sizes", "from size names to whole numbers", func(name, sub string) error {
		if !isIdent(name) {
			return &Error{File: d.file, Field: sub, Err: identFault(name)}
		}
		if c := d.r.Peek(); c != '-' && (c < '0' || c > '9') {
			return d.fail(sub, "want a whole number >= 0, got JSON %s", d.r.Kind())
		}
		lit := d.r.ReadNumber()
		n, ok := jsonread.Int(lit)
		if !ok || n < 0 {
			return d.fail(sub, "want a whole number >= 0, got %s", shorten(string(lit)))
		}
		out = append(out, sizeEntry{name, n})
		return nil
	})
	return out, err
}

// dataConstants reads "data": names to arrays of numbers.
func (d *decoder) dataConstants() ([]dataEntry, error) {
	out := []dataEntry{}
	err := d.namedObject("data", "from names to arrays of numbers", func(name, sub string) error {
		if !isIdent(name) {
			return &Error{File: d.file, Field: sub, Err: identFault(name)}
		}
		out = append(out, dataEntry{name, d.r.ReadTensor(-1)})
		return nil
	})
	return out, err
}

// loops reads a factor's "for": loop indices to ranges.
func (d *decoder) loops(field string) ([]loopSpec, error) {
	var out []loopSpec
	err := d.namedObject(field, `from loop indices to ranges such as "0..T-1"`, func(name, sub string) error {
		if !isIdent(name) {
			return &Error{File: d.file, Field: sub, Err: identFault(name)}
		}
		if d.r.Peek() != '"' {
			return d.fail(sub, `want a range such as "0..T-1", got JSON %s`, d.r.Kind())
		}
		out = append(out, loopSpec{name, d.r.ReadString()})
		return nil
	})
	return out, err
}

// size reads a variable's "size": a size's name (or an expression of
// sizes), a whole number, or an array of them (null is none).
func (d *decoder) size(field string) ([]extentSpec, error) {
	one := func(sub string) (extentSpec, error) {
		switch c := d.r.Peek(); {
		case c == '"':
			s := d.r.ReadString()
			if strings.TrimSpace(s) == "" {
				return extentSpec{}, d.fail(sub, "empty (want a size's name, such as \"T\")")
			}
			return extentSpec{expr: s}, nil
		case c == '-' || '0' <= c && c <= '9':
			lit := d.r.ReadNumber()
			n, ok := jsonread.Int(lit)
			if !ok || n < 0 {
				return extentSpec{}, d.fail(sub, "want a whole number >= 0, got %s", shorten(string(lit)))
			}
			return extentSpec{n: n}, nil
		}
		return extentSpec{}, d.fail(sub, "want a size's name or a whole number, got JSON %s", d.r.Kind())
	}
	switch d.r.Peek() {
	case 'n':
		d.r.Skip()
		return nil, nil
	case '[':
	default:
		e, err := one(field)
		if err != nil {
			return nil, err
		}
		return []extentSpec{e}, nil
	}
	var out []extentSpec
	err := d.r.Array(func(i int) error {
		e, err := one(fmt.Sprintf("%s[%d]", field, i))
		out = append(out, e)
		return err
	})
	if err == nil && len(out) == 0 {
		return nil, d.fail(field, "empty array (want a size's name, a whole number or an array of them)")
	}
	return out, err
}

// tensor returns the tensor of element k, an obsVector.
func (oa *observedArray) tensor(k int) *jsonread.Tensor {
	if x := oa.flat[k]; x != nil {
		return &jsonread.Tensor{Data: x, Depth: 1, First: []*jsonread.Array{{Len: len(x)}}, NumAt: -1}
	}
	return oa.vec[k]
}
