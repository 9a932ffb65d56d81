package model

import "github.com/arbor-ai/arbor/internal/jsonread"

// valueSlab holds the values a decoder reads for the fields that take a
// number or a name ("mean": 0, "precision": "r") and the vectors of an
// observed array: a written-out file of 10^5 factors has a few such fields
// in each, a data line 10^4 vectors, and each used to cost an allocation
// or several (a tensor, its numbers, a name). They are
// cut from chunks instead, which are never moved, so the pointers stay
// valid.
type valueSlab struct {
	tensors []jsonread.Tensor
	names   []string
	nums    []float64
	same    map[string]*jsonread.Tensor // a shared number's tensor by its text
}

// slabChunk is the number of values of a chunk.
const slabChunk = 1024

func (s *valueSlab) tensor() *jsonread.Tensor {
	if len(s.tensors) == cap(s.tensors) {
		s.tensors = make([]jsonread.Tensor, 0, slabChunk)
	}
	s.tensors = s.tensors[:len(s.tensors)+1]
	return &s.tensors[len(s.tensors)-1]
}

func (s *valueSlab) name(n string) *string {
	if len(s.names) == cap(s.names) {
		s.names = make([]string, 0, slabChunk)
	}
	s.names = append(s.names, n)
	return &s.names[len(s.names)-1]
}

// number reads the number at r as r.ReadTensor(-1) reads a number that is
// in range (a tensor of depth 0 and one number); for any other value it
// leaves r where it was and returns nil.
//
// With share, a number of the same text as one of the first maxSame that
// were read with share gets the same tensor: a factor's field repeats
// (the precision of each of 10^5 written-out factors), and a tensor is
// read, never written, and what is read of it (its number, its text) is the
// same for every number of the same text.
func (s *valueSlab) number(r *jsonread.Reader, share bool) *jsonread.Tensor {
	start := r.Pos
	if c := r.Peek(); c != '-' && (c < '0' || c > '9') {
		return nil
	}
	lit := r.ReadNumber()
	if t, ok := s.same[string(lit)]; share && ok {
		return t
	}
	x, ok := jsonread.Float(lit)
	if !ok {
		r.Pos = start
		return nil
	}
	if len(s.nums) == cap(s.nums) {
		s.nums = make([]float64, 0, slabChunk)
	}
	s.nums = append(s.nums, x)
	n := len(s.nums)
	t := s.tensor()
	*t = jsonread.Tensor{Data: s.nums[n-1 : n : n], Src: r.Data, NumAt: r.Pos - len(lit)}
	if share && len(s.same) < maxSame {
		if s.same == nil {
			s.same = map[string]*jsonread.Tensor{}
		}
		s.same[string(lit)] = t
	}
	return t
}

// maxSame bounds the numbers whose tensors number shares.
const maxSame = 64

// vector reads the vector at r, a flat array of finite numbers (an
// observed array's element: an mvnormal's value, a probability vector),
// and returns its numbers, as r.ReadTensor(-1) reads them when it finds no
// fault. For any other value (empty, nested, not a number, out of range)
// it leaves r where it was and returns nil, for ReadTensor to read it and
// name the fault.
func (s *valueSlab) vector(r *jsonread.Reader) []float64 {
	start := r.Pos
	if r.Peek() != '[' {
		return nil
	}
	r.Pos++
	if r.Peek() == ']' {
		r.Pos = start
		return nil
	}
	if len(s.nums) == cap(s.nums) {
		s.nums = make([]float64, 0, slabChunk) // earlier values keep the old array
	}
	from := len(s.nums)
	for {
		if c := r.Peek(); c != '-' && (c < '0' || c > '9') {
			break
		}
		x, ok := jsonread.Float(r.ReadNumber())
		if !ok {
			break
		}
		s.nums = append(s.nums, x)
		switch r.Peek() {
		case ',':
			r.Pos++
			continue
		case ']':
			r.Pos++
			return s.nums[from:len(s.nums):len(s.nums)]
		}
		break
	}
	s.nums = s.nums[:from]
	r.Pos = start
	return nil
}
