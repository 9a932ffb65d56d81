package jsonread

import "strconv"

// countNumbers counts the numbers in the valid JSON value at i.
func countNumbers(data []byte, i int) int {
	n, depth := 0, 0
	for i < len(data) {
		switch byteClass[data[i]] {
		case classQuote:
			i = stringEnd(data, i) - 1
		case classOpen:
			depth++
		case classClose:
			depth--
		case classNumber:
			n++
			// The rest of the number: digits, '.', 'e', 'E', '+', '-'.
			for i++; i < len(data) && (byteClass[data[i]] == classNumber || data[i] == '.' || data[i] == 'e' || data[i] == 'E' || data[i] == '+'); i++ {
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

// Tensor is a number or a nested array of numbers read by ReadTensor:
// its numbers flat in the order of the text (row-major when it is
// rectangular), the lengths of its arrays and its first fault.
type Tensor struct {
	Data  []float64 // the numbers (nil after a fault)
	Depth int       // the depth of its numbers: 0 for a number, 1 for [1, 2]; -1 before the first
	Null  bool      // the value is null
	Src   []byte    // the text it was read from (for the text of a fault)

	// First[d] is the first array at depth d (the tensor itself at depth
	// 0; nil when there is none). With a fixed rank, Odd[d] is the first
	// array at depth d of another length than First[d].
	First []*Array
	Odd   []*Array
	NumAt int // the offset of the first number, -1 before it

	Fault *TensorFault // the first fault: reading stopped there
}

// Array is one array of a tensor.
type Array struct {
	Len  int   // its length
	Seq  int   // its rank in the order of the text: 0 for the tensor itself, then one more for every array that opens
	Off  int   // its offset in the text
	Path []int // its indices in the tensor
}

// TensorFault is a value that does not fit: at Path (its indices),
// starting at offset Off.
type TensorFault struct {
	Kind TensorFaultKind
	Path []int
	Off  int
	Len  int // the length, for TensorEmpty and TensorLength
	Want int // the length of the first array at that depth, for TensorLength
}

// TensorFaultKind is what is wrong with the value of a TensorFault.
type TensorFaultKind uint8

// The kinds of TensorFault.
const (
	TensorValue  TensorFaultKind = iota // a string, boolean, null or object
	TensorRange                         // a number out of the range of float64
	TensorNumber                        // a number where an array belongs
	TensorArray                         // an array where a number belongs
	TensorEmpty                         // an empty array (free rank only)
	TensorLength                        // an array of another length than the first at its depth (free rank only)
)

// ReadTensor reads the value at the reader as numbers. With rank >= 0 the
// numbers must be at that depth (a number at another depth, an array at
// it or any other value is a fault), and arrays may have any lengths
// (First and Odd record them, for the caller's messages). With rank < 0
// the depth is that of the first number and the arrays must be
// rectangular and not empty; the fault is then the first value, in the
// order of the text, that breaks the shape set by the first array at its
// depth, as a walk from the top of the tree would find it. A null at the
// top is a tensor with Null set. After a fault with rank >= 0 the reader
// is left inside the value (the caller reports it, or skips the value from
// its start); otherwise it is after the value.
func (r *Reader) ReadTensor(rank int) *Tensor {
	data := r.Data
	start := Space(data, r.Pos)
	t := &Tensor{Depth: -1, NumAt: -1, Src: data}
	if rank >= 0 {
		t.Depth = rank
	}
	if start < len(data) && data[start] == 'n' {
		t.Null = true
		t.Fault = &TensorFault{Kind: TensorValue, Off: start}
		r.Pos = Skip(data, start)
		return t
	}
	var idx []int  // idx[d]: the index of the current element of the open array at depth d
	var open []int // open[d]: the offset of the open array at depth d
	var seqs []int // seqs[d]: its rank in the text
	seq := 0
	fault := func(kind TensorFaultKind, off, n int) *Tensor {
		t.Fault = &TensorFault{Kind: kind, Path: append([]int(nil), idx...), Off: off, Len: n}
		t.Data = nil
		r.Pos = off
		if rank < 0 {
			r.Pos = t.unwind(data, idx, open)
		}
		return t
	}
	i := start
	for {
		// A value at i.
		i = Space(data, i)
		if i >= len(data) {
			return fault(TensorValue, i, 0)
		}
		d := len(idx)
		switch c := data[i]; {
		case c == '[':
			j := Space(data, i+1)
			empty := j < len(data) && data[j] == ']'
			switch {
			case rank < 0 && empty:
				return fault(TensorEmpty, i, 0)
			case rank >= 0 && d >= rank, rank < 0 && t.Depth >= 0 && d >= t.Depth:
				return fault(TensorArray, i, 0)
			}
			if empty {
				if t.closeArray(d, 0, seq, i, idx, rank) {
					return fault(TensorLength, i, 0)
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
			if rank >= 0 && d != rank || rank < 0 && t.Depth >= 0 && d != t.Depth {
				return fault(TensorNumber, i, 0)
			}
			if t.NumAt < 0 {
				// The first number: count them all and allocate once.
				t.NumAt, t.Depth = i, d
				t.Data = make([]float64, 0, countNumbers(data, start))
			}
			end := WordEnd(data, i)
			x, ok := Float(data[i:end])
			if !ok {
				return fault(TensorRange, i, 0)
			}
			t.Data = append(t.Data, x)
			i = end
		default:
			return fault(TensorValue, i, 0)
		}
		// A value ended at i: close arrays until the next element.
		for {
			if len(idx) == 0 {
				r.Pos = i
				return t
			}
			i = Space(data, i)
			if i < len(data) && data[i] == ',' {
				idx[len(idx)-1]++
				i++
				break
			}
			d := len(idx) - 1
			if n, off := idx[d]+1, open[d]; t.closeArray(d, n, seqs[d], off, idx[:d], rank) {
				idx, open = idx[:d], open[:d]
				return fault(TensorLength, off, n)
			}
			idx, open, seqs = idx[:d], open[:d], seqs[:d]
			i++
		}
	}
}

// closeArray records the array at depth d that has just been read in
// full (length n, rank seq in the text, offset off, indices path); with a
// free rank it reports whether its length breaks the shape.
func (t *Tensor) closeArray(d, n, seq, off int, path []int, rank int) bool {
	for len(t.First) <= d {
		t.First = append(t.First, nil)
		t.Odd = append(t.Odd, nil)
	}
	first := t.First[d]
	switch {
	case first == nil:
		t.First[d] = &Array{Len: n, Seq: seq, Off: off, Path: append([]int(nil), path...)}
	case n == first.Len:
	case rank < 0:
		return true
	case t.Odd[d] == nil:
		t.Odd[d] = &Array{Len: n, Seq: seq, Off: off, Path: append([]int(nil), path...)}
	}
	return false
}

// unwind finishes a free-rank tensor at a fault: it reads the rest of the
// arrays still open (idx, open) to learn their lengths, records those on
// the first path, and makes the fault the outermost open array whose
// length breaks the shape, if any, as that comes first in the text. It
// returns the end of the tensor.
func (t *Tensor) unwind(data []byte, idx, open []int) int {
	f := t.Fault
	if f.Kind == TensorLength {
		f.Want = t.First[len(f.Path)].Len
	}
	n := make([]int, len(idx))
	// The rest of every open array, innermost first, after the fault.
	i := Skip(data, Space(data, f.Off))
	if f.Kind == TensorLength {
		i = f.Off
		i = Skip(data, i) // the array at fault, closed
	}
	for d := len(idx) - 1; d >= 0; d-- {
		count := idx[d] + 1
		for {
			i = Space(data, i)
			if i >= len(data) || data[i] != ',' {
				i++ // the closing bracket
				break
			}
			count++
			i = Skip(data, Space(data, i+1))
		}
		n[d] = count
	}
	for d := range idx {
		for len(t.First) <= d {
			t.First = append(t.First, nil)
			t.Odd = append(t.Odd, nil)
		}
		if t.First[d] == nil {
			t.First[d] = &Array{Len: n[d], Off: open[d], Path: make([]int, d)}
			continue
		}
		if n[d] != t.First[d].Len {
			t.Fault = &TensorFault{Kind: TensorLength, Path: append([]int(nil), idx[:d]...), Off: open[d], Len: n[d], Want: t.First[d].Len}
			break
		}
	}
	return i
}

// Indices writes indices as "[1][2]".
func Indices(path []int) string {
	var b []byte
	for _, i := range path {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ']')
	}
	return string(b)
}

// Len returns the length of the tensor's outer array (0 for nil, null or
// a number).
func (t *Tensor) Len() int {
	if t == nil || len(t.First) == 0 || t.First[0] == nil {
		return 0
	}
	return t.First[0].Len
}

// Shape returns the lengths of the first arrays at every depth: the
// tensor's shape when it is rectangular.
func (t *Tensor) Shape() []int {
	var s []int
	for _, a := range t.First {
		if a == nil {
			break
		}
		s = append(s, a.Len)
	}
	return s
}

// Values returns the numbers of a rectangular tensor, flat and row-major
// (nil for nil).
func (t *Tensor) Values() []float64 {
	if t == nil {
		return nil
	}
	return t.Data
}
