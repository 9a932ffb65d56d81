package btai

// splitMat is an r×c matrix M written as a background per column plus
// deviations, M[i][j] = bg[j] + D[i][j], for the products of local VMP with
// the logarithms of the future's factors (Agent.vmp).
//
// Why: in the models the agent plans with, most columns of Ā and B̄_u are
// "one likely outcome, the rest shared equally" (the maze's noise: ln Ā
// has one ln 0.9 and nine ln(0.1/9) per column), so with bg[j] the most
// frequent entry of column j, D has about one non-zero per column. The
// background's contribution to a product is cheap and often constant:
//
//	(M q)[i]   = Σ_j bg[j] q[j] + (D q)[i]       the first term is the same for every i
//	(Mᵀ q)[j]  = bg[j] Σ_i q[i] + (Dᵀ q)[j]      = bg[j] + (Dᵀ q)[j] when q is a distribution
//
// and D is applied in sparse form. When D is not sparse (fewer than 3 in 4
// entries equal their column's background, e.g. random or learned models)
// the matrix is kept dense with bg = 0, D = M, and the products are the
// dense axpy loops of mulT, bit for bit.
type splitMat struct {
	r, c  int
	bg    []float64 // [c], all 0 when dense
	dense bool

	// Dense form: colM is Mᵀ ([j*r+i], column j contiguous), rowM is M
	// ([i*c+j]).
	colM, rowM []float64

	// Sparse form of D in both orders: the non-zeros of column j are
	// colIdx/colVal[colPtr[j]:colPtr[j+1]] (row indices increasing); those
	// of row i are rowIdx/rowVal[rowPtr[i]:rowPtr[i+1]] (column indices
	// increasing).
	colPtr, colIdx []int32
	colVal         []float64
	rowPtr, rowIdx []int32
	rowVal         []float64
}

// set makes s the split form of the r×c row-major matrix m, reusing s's
// storage. Every entry of m must be finite (the future's logarithms are,
// by floorColumns).
func (s *splitMat) set(m []float64, r, c int) {
	s.r, s.c = r, c
	s.bg = grow(s.bg, c)
	nnz := 0
	for j := range c {
		s.bg[j] = columnMode(m, r, c, j)
		for i := range r {
			if m[i*c+j] != s.bg[j] {
				nnz++
			}
		}
	}
	s.dense = 4*nnz > r*c
	if s.dense {
		clear(s.bg)
		s.rowM = append(s.rowM[:0], m[:r*c]...)
		s.colM = transpose(s.colM, m, r, c)
		return
	}
	s.colPtr = append(s.colPtr[:0], 0)
	s.colIdx, s.colVal = s.colIdx[:0], s.colVal[:0]
	for j := range c {
		for i := range r {
			if d := m[i*c+j] - s.bg[j]; m[i*c+j] != s.bg[j] {
				s.colIdx = append(s.colIdx, int32(i))
				s.colVal = append(s.colVal, d)
			}
		}
		s.colPtr = append(s.colPtr, int32(len(s.colIdx)))
	}
	s.rowPtr = append(s.rowPtr[:0], 0)
	s.rowIdx, s.rowVal = s.rowIdx[:0], s.rowVal[:0]
	for i := range r {
		for j := range c {
			if d := m[i*c+j] - s.bg[j]; m[i*c+j] != s.bg[j] {
				s.rowIdx = append(s.rowIdx, int32(j))
				s.rowVal = append(s.rowVal, d)
			}
		}
		s.rowPtr = append(s.rowPtr, int32(len(s.rowIdx)))
	}
}

// setColumns is set for the r×c matrix whose column j column(j, dst)
// writes into dst (len(dst) = r; the caller's scratch), without the matrix
// being held whole: the same split, value for value, as set on the
// row-major matrix. Each column is computed once when the split is sparse,
// and a second time when it is dense (more than one entry in four off its
// column's background), in which case Mᵀ and M are kept as set keeps them.
func (s *splitMat) setColumns(r, c int, dst []float64, column func(j int, dst []float64)) {
	s.setColumnsIf(r, c, dst, column, true)
}

// setColumnsIf is setColumns that, when keepDense is false and the split
// is dense, stops there (s.dense set, nothing else kept): for a caller that
// uses only the sparse form.
func (s *splitMat) setColumnsIf(r, c int, dst []float64, column func(j int, dst []float64), keepDense bool) {
	s.r, s.c = r, c
	s.bg = grow(s.bg, c)
	dst = dst[:r]
	s.colPtr = append(s.colPtr[:0], 0)
	s.colIdx, s.colVal = s.colIdx[:0], s.colVal[:0]
	s.dense = false
	for j := range c {
		column(j, dst)
		bg := columnMode(dst, r, 1, 0)
		s.bg[j] = bg
		for i, x := range dst {
			if x != bg {
				s.colIdx = append(s.colIdx, int32(i))
				s.colVal = append(s.colVal, x-bg)
			}
		}
		s.colPtr = append(s.colPtr, int32(len(s.colIdx)))
		if 4*len(s.colIdx) > r*c {
			s.dense = true
			break
		}
	}
	if s.dense {
		clear(s.bg)
		s.colIdx, s.colVal = s.colIdx[:0], s.colVal[:0]
		if !keepDense {
			return
		}
		s.colM = grow(s.colM, r*c)
		for j := range c {
			column(j, s.colM[j*r:(j+1)*r])
		}
		s.rowM = transpose(s.rowM, s.colM, c, r)
		return
	}
	// The rows' non-zeros from the columns', in increasing column order.
	s.rowPtr = append(s.rowPtr[:0], make([]int32, r+1)...)
	for _, i := range s.colIdx {
		s.rowPtr[i+1]++
	}
	for i := range r {
		s.rowPtr[i+1] += s.rowPtr[i]
	}
	nnz := len(s.colIdx)
	if cap(s.rowIdx) < nnz {
		s.rowIdx, s.rowVal = make([]int32, nnz), make([]float64, nnz)
	}
	s.rowIdx, s.rowVal = s.rowIdx[:nnz], s.rowVal[:nnz]
	next := make([]int32, r)
	copy(next, s.rowPtr[:r])
	for j := range c {
		for k := s.colPtr[j]; k < s.colPtr[j+1]; k++ {
			i := s.colIdx[k]
			s.rowIdx[next[i]] = int32(j)
			s.rowVal[next[i]] = s.colVal[k]
			next[i]++
		}
	}
}

// grow returns x with length n, reusing its storage when large enough.
func grow(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

// columnMode returns the most frequent value of column j of the r×c
// row-major m (exact equality; the first such value in row order on
// ties). Quadratic in r, which is fine once per planning step.
func columnMode(m []float64, r, c, j int) float64 {
	best, bestN := m[j], 0
	for i := range r {
		v := m[i*c+j]
		if i > 0 && v == best {
			continue
		}
		n := 0
		for k := i; k < r; k++ {
			if m[k*c+j] == v {
				n++
			}
		}
		if n > bestN {
			best, bestN = v, n
		}
		if bestN >= r-i-1 {
			break // a value first seen later occurs at most r-i-1 times
		}
	}
	return best
}

// mulD sets dst = D q (len(dst) = r, len(q) = c). Dense: exactly
// mulT(dst, Mᵀ, q). Sparse: each dst[i] is the sum over row i's
// non-zeros, in column order.
func (s *splitMat) mulD(dst, q []float64) {
	if s.dense {
		mulT(dst, s.colM, q)
		return
	}
	q = q[:s.c]
	for i := range dst {
		lo, hi := s.rowPtr[i], s.rowPtr[i+1]
		idx, val := s.rowIdx[lo:hi], s.rowVal[lo:hi:hi]
		acc := 0.0
		for k, j := range idx {
			acc += val[k] * q[j]
		}
		dst[i] = acc
	}
}

// addMulDT adds Dᵀ q to dst (len(dst) = c, len(q) = r). Dense: dst[j] +=
// q[i] M[i][j] for i = 0, 1, ..., skipping zero weights (axpy rows).
// Sparse: the sum over column j's non-zeros, in row order, is added to
// dst[j].
func (s *splitMat) addMulDT(dst, q []float64) {
	if s.dense {
		for i, w := range q {
			if w == 0 {
				continue
			}
			axpy(dst, w, s.rowM[i*s.c:(i+1)*s.c])
		}
		return
	}
	q = q[:s.r]
	for j := range dst {
		lo, hi := s.colPtr[j], s.colPtr[j+1]
		idx, val := s.colIdx[lo:hi], s.colVal[lo:hi:hi]
		acc := 0.0
		for k, i := range idx {
			acc += val[k] * q[i]
		}
		dst[j] += acc
	}
}
