package messages

func checkVecs(op string, w Tensor, vecs [][]float64, skip int) {
	if len(vecs) != len(w.Shape) {
		panic("messages: " + op + ": number of vectors does not match the tensor rank")
	}
	n := 1
	for j, s := range w.Shape {
		n *= s
		if j != skip && len(vecs[j]) != s {
			panic("messages: " + op + ": vector length does not match its axis")
		}
	}
	if len(w.Data) != n {
		panic("messages: " + op + ": tensor data length does not match its shape")
	}
}

// rowWeight returns the product of vecs[j][idx[j]] over the leading axes
// j < len(idx), skipping axis skip.
func rowWeight(vecs [][]float64, idx []int, skip int) float64 {
	wgt := 1.0
	for j, i := range idx {
		if j != skip {
			wgt *= vecs[j][i]
		}
	}
	return wgt
}

// next advances the odometer idx over shape, returning false when done.
func next(idx, shape []int) bool {
	for j := len(idx) - 1; j >= 0; j-- {
		idx[j]++
		if idx[j] < shape[j] {
			return true
		}
		idx[j] = 0
	}
	return false
}

// maxRank bounds the rank handled without allocation.
const maxRank = 16

// Inner computes the generalized inner product of paper Appendix A,
//
//	dst(x_axis) = sum over x_j, j != axis, of W(x_1, ..., x_n) prod_{j != axis} vecs[j](x_j),
//
// i.e. the weighted average of w over every axis but axis. vecs[axis] is
// ignored and may be nil. A zero weight skips its term, so 0 · (-Inf) = 0.
// dst is allocated when nil and must otherwise have length w.Shape[axis].
// Inner panics (messages: ...) on mismatched lengths or a rank above 16. It
// does not allocate when dst is given.
func Inner(dst []float64, w Tensor, vecs [][]float64, axis int) []float64 {
	r := len(w.Shape)
	if axis < 0 || axis >= r {
		panic("messages: Inner: axis out of range")
	}
	if r > maxRank {
		panic("messages: Inner: rank above 16")
	}
	checkVecs("Inner", w, vecs, axis)
	if dst == nil {
		dst = make([]float64, w.Shape[axis])
	} else if len(dst) != w.Shape[axis] {
		panic("messages: Inner: dst length does not match the axis")
	}
	for i := range dst {
		dst[i] = 0
	}
	data := w.Data
	if r == 1 {
		copy(dst, data)
		return dst
	}
	last := r - 1
	nl := w.Shape[last]
	if r == 2 {
		if axis == 1 {
			v := vecs[0]
			for i, vi := range v {
				if vi == 0 {
					continue
				}
				row := data[i*nl : i*nl+nl]
				for k, x := range row {
					dst[k] += vi * x
				}
			}
			return dst
		}
		v := vecs[1]
		for i := range dst {
			dst[i] = dotSkip(data[i*nl:i*nl+nl], v)
		}
		return dst
	}
	var idxBuf [maxRank]int
	idx := idxBuf[:last]
	for off := 0; off < len(data); off += nl {
		wgt := rowWeight(vecs, idx, axis)
		if wgt != 0 {
			row := data[off : off+nl]
			if axis == last {
				for k, x := range row {
					dst[k] += wgt * x
				}
			} else {
				dst[idx[axis]] += wgt * dotSkip(row, vecs[last])
			}
		}
		next(idx, w.Shape[:last])
	}
	return dst
}

// dotSkip returns sum_k v[k] x[k], skipping terms where v[k] == 0. The
// plain product is tried first (no branch per term); only when it is NaN,
// which 0 · (-Inf) produces, are the zero terms skipped.
func dotSkip(x, v []float64) float64 {
	x = x[:len(v)]
	var s0, s1 float64
	k := 0
	for ; k+1 < len(v); k += 2 {
		s0 += v[k] * x[k]
		s1 += v[k+1] * x[k+1]
	}
	if k < len(v) {
		s0 += v[k] * x[k]
	}
	if s := s0 + s1; s == s {
		return s
	}
	s := 0.0
	for k, vk := range v {
		if vk != 0 {
			s += vk * x[k]
		}
	}
	return s
}

// Contract returns the full contraction <W, vecs[0] ⊗ ... ⊗ vecs[n-1]>,
// with the same zero convention as [Inner]. It panics on mismatched lengths.
func Contract(w Tensor, vecs [][]float64) float64 {
	r := len(w.Shape)
	if r > maxRank {
		panic("messages: Contract: rank above 16")
	}
	checkVecs("Contract", w, vecs, -1)
	last := r - 1
	nl := w.Shape[last]
	var idxBuf [maxRank]int
	idx := idxBuf[:last]
	total := 0.0
	for off := 0; off < len(w.Data); off += nl {
		if wgt := rowWeight(vecs, idx, -1); wgt != 0 {
			total += wgt * dotSkip(w.Data[off:off+nl], vecs[last])
		}
		next(idx, w.Shape[:last])
	}
	return total
}

// Outer writes the generalized outer product ⊗[vecs...] (paper Appendix A)
// into dst, row-major over the shape (len(vecs[0]), ..., len(vecs[n-1])).
// dst is allocated when nil. It does not allocate when dst is given. It
// panics (with a "messages: " message) when dst is given and its length is
// not the product of the vector lengths, or when there are no vectors or
// more than 16 (AddOuter): programming errors, as an index out of range
// of a slice is.
func Outer(dst []float64, vecs ...[]float64) []float64 {
	n := 1
	for _, v := range vecs {
		n *= len(v)
	}
	if dst == nil {
		dst = make([]float64, n)
	} else if len(dst) != n {
		panic("messages: Outer: dst length does not match the product of the vector lengths")
	}
	for i := range dst {
		dst[i] = 0
	}
	AddOuter(dst, 1, vecs...)
	return dst
}

// AddOuter adds scale · ⊗[vecs...] into dst. It panics when len(dst) is not
// the product of the vector lengths or when there are more than 16 vectors.
func AddOuter(dst []float64, scale float64, vecs ...[]float64) {
	r := len(vecs)
	if r == 0 || r > maxRank {
		panic("messages: AddOuter: need 1 to 16 vectors")
	}
	var shapeBuf, idxBuf [maxRank]int
	shape := shapeBuf[:r]
	n := 1
	for j, v := range vecs {
		shape[j] = len(v)
		n *= len(v)
	}
	if len(dst) != n {
		panic("messages: AddOuter: dst length does not match the product of the vector lengths")
	}
	last := r - 1
	nl := shape[last]
	idx := idxBuf[:last]
	for off := 0; off < n; off += nl {
		wgt := scale * rowWeight(vecs, idx, -1)
		if wgt != 0 {
			row := dst[off : off+nl]
			for k, x := range vecs[last] {
				row[k] += wgt * x
			}
		}
		next(idx, shape[:last])
	}
}
