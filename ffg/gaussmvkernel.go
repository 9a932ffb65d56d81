package ffg

import "math"

// The small dense kernels of the multivariate Gaussian tree: a Cholesky
// factor L of a message's precision is used by forward substitution only
// (L⁻¹ applied to the coupling and to h), so that the message's matrix is
// a symmetric product KᵀK and a belief's covariance L⁻ᵀL⁻¹, with no
// column-by-column solve through L and Lᵀ.

// fwdSub overwrites x with L⁻¹x for the d×d lower-triangular l.
func fwdSub(l []float64, d int, x []float64) {
	x = x[:d]
	for i := range d {
		row := l[i*d : i*d+i+1]
		s := x[i]
		for k, lik := range row[:i] {
			s -= lik * x[k]
		}
		x[i] = s / row[i]
	}
}

// triInverse writes M = L⁻¹ (lower triangular, zero above the diagonal)
// into m for the d×d lower-triangular l; m must not alias l.
func triInverse(m, l []float64, d int) {
	m = m[:d*d]
	clear(m)
	for c := range d {
		// Column c of M solves L m_c = e_c; its entries above c are zero.
		m[c*d+c] = 1 / l[c*d+c]
		for i := c + 1; i < d; i++ {
			row := l[i*d : i*d+i]
			s := 0.0
			for k := c; k < i; k++ {
				s -= row[k] * m[k*d+c]
			}
			m[i*d+c] = s / l[i*d+i]
		}
	}
}

// triLogDet returns ln|A| = 2 ln Π L_ii from A's Cholesky factor: one
// logarithm of the product while it is a normal number, else the sum of
// the logarithms.
func triLogDet(l []float64, d int) float64 {
	p := 1.0
	for i := range d {
		p *= l[i*d+i]
	}
	if p >= 0x1p-1000 && p <= 0x1p1000 {
		return 2 * math.Log(p)
	}
	return cholLogDet(l, d)
}
