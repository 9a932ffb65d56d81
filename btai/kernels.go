package btai

// The arithmetic kernels of planning: products with the transition and
// likelihood matrices (dense, transposed, and in split form) and the
// novelty weights.

// splitMul sets dst = M q for M in split form: Σ_j bg[j] q[j], the same
// for every entry, plus the sparse deviations D q.
func splitMul(dst []float64, m *splitMat, q []float64) {
	c := 0.0
	for j, b := range m.bg {
		c += b * q[j]
	}
	m.mulD(dst, q)
	for i := range dst {
		dst[i] += c
	}
}

// noveltyWeights sets wT[s*no+o] = W[o, s] = ½ (1/a[o, s] - 1/Σ_o' a[o', s])
// for the concentrations a[o*ns+s], with W = 0 where a = 0: the weights of
// the expected information gain about A (see Agent.novelty).
func noveltyWeights(wT, a []float64, no, ns int) {
	for s := range ns {
		sum := 0.0
		for o := range no {
			sum += a[o*ns+s]
		}
		for o := range no {
			w := 0.0
			if x := a[o*ns+s]; x > 0 {
				w = 0.5 * (1/x - 1/sum)
			}
			wT[s*no+o] = w
		}
	}
}

// transpose returns the n×m transpose of the m×n row-major matrix x, in
// dst's storage when it is large enough.
func transpose(dst, x []float64, m, n int) []float64 {
	if cap(dst) < m*n {
		dst = make([]float64, m*n)
	}
	dst = dst[:m*n]
	for i := range m {
		for j := range n {
			dst[j*m+i] = x[i*n+j]
		}
	}
	return dst
}

// mulT sets dst = M q where mt is the transpose of M (row p of mt is
// column p of M): dst[i] = Σ_p q[p] M[i][p], summed in the order p = 0,
// 1, ... exactly as a dot product of row i with q would be (same
// rounding), but with len(dst) independent accumulators instead of one
// dependent chain of additions, which is what makes it fast.
func mulT(dst, mt, q []float64) {
	n := len(dst)
	clear(dst)
	for p, w := range q {
		if w == 0 {
			continue // adds ±0 to every entry: no change (dst is never -0)
		}
		row := mt[p*n : (p+1)*n : (p+1)*n]
		axpy(dst, w, row)
	}
}

// axpy sets dst[i] += w·x[i], unrolled by four (each entry is still one
// multiply and one add: the same rounding as the plain loop).
func axpy(dst []float64, w float64, x []float64) {
	x = x[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d, r := dst[i:i+4:i+4], x[i:i+4:i+4]
		d[0] += w * r[0]
		d[1] += w * r[1]
		d[2] += w * r[2]
		d[3] += w * r[3]
	}
	for ; i < len(dst); i++ {
		dst[i] += w * x[i]
	}
}

// mulRows sets dst = M q for the row-major len(dst)×len(q) matrix m:
// dst[i] = Σ_p M[i][p] q[p], summed in the order p = 0, 1, ..., the same
// rounding as mulT over Mᵀ (a zero q[p] adds +0, which mulT skips: no
// change, M being a probability matrix). Four rows go at once, so that
// four independent sums run side by side.
func mulRows(dst, m, q []float64) {
	n := len(q)
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		r0 := m[i*n : (i+1)*n : (i+1)*n]
		r1 := m[(i+1)*n : (i+2)*n : (i+2)*n]
		r2 := m[(i+2)*n : (i+3)*n : (i+3)*n]
		r3 := m[(i+3)*n : (i+4)*n : (i+4)*n]
		var s0, s1, s2, s3 float64
		for p, w := range q {
			s0 += r0[p] * w
			s1 += r1[p] * w
			s2 += r2[p] * w
			s3 += r3[p] * w
		}
		dst[i], dst[i+1], dst[i+2], dst[i+3] = s0, s1, s2, s3
	}
	for ; i < len(dst); i++ {
		r := m[i*n : (i+1)*n : (i+1)*n]
		s := 0.0
		for p, w := range q {
			s += r[p] * w
		}
		dst[i] = s
	}
}
