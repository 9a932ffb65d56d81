package expfam

import (
	"fmt"
	"math"
)

// Small dense kernels for the symmetric positive definite matrices of the
// multivariate Normal and the Wishart. Matrices are d×d, row-major in
// []float64 (entry (i, j) at [i*d+j]). The kernels do not allocate when the
// caller gives the scratch; they are the textbook algorithms (Golub & Van
// Loan §4.2), fast for the small d of state-space models.

// MaxConditionSPD bounds the condition number a user-supplied symmetric
// positive definite matrix may have (CheckSPD): beyond it the Cholesky
// factor and the inverse lose more than about two digits of double
// precision's sixteen, so the posteriors would not mean what they say.
const MaxConditionSPD = 1e14

// symTol is the relative asymmetry CheckSPD accepts: |a_ij - a_ji| <=
// symTol · max(|a_ij|, |a_ji|), enough for matrices written with a dozen
// digits.
const symTol = 1e-9

// Cholesky writes the lower Cholesky factor L of the symmetric d×d matrix
// a (row-major; only its lower triangle is read) into l (len d·d, may
// alias a) and reports whether a is positive definite: every pivot finite
// and > 0. The upper triangle of l is set to 0. It allocates nothing (the
// sum-product pass over mvnormal trees calls it per message).
func Cholesky(l, a []float64, d int) bool {
	for j := range d {
		s := a[j*d+j]
		for k := range j {
			s -= l[j*d+k] * l[j*d+k]
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return false
		}
		ljj := math.Sqrt(s)
		l[j*d+j] = ljj
		for i := j + 1; i < d; i++ {
			s := a[i*d+j]
			for k := range j {
				s -= l[i*d+k] * l[j*d+k]
			}
			l[i*d+j] = s / ljj
		}
		for i := range j {
			l[i*d+j] = 0
		}
	}
	return true
}

// cholLogDet returns ln|A| = 2 Σ ln L_ii from A's Cholesky factor.
func cholLogDet(l []float64, d int) float64 {
	s := 0.0
	for i := range d {
		s += math.Log(l[i*d+i])
	}
	return 2 * s
}

// CholSolve solves A x = b in place (x = b on entry) from A's Cholesky
// factor l (Cholesky), allocating nothing.
func CholSolve(l []float64, d int, x []float64) {
	for i := range d {
		s := x[i]
		for k := range i {
			s -= l[i*d+k] * x[k]
		}
		x[i] = s / l[i*d+i]
	}
	for i := d - 1; i >= 0; i-- {
		s := x[i]
		for k := i + 1; k < d; k++ {
			s -= l[k*d+i] * x[k]
		}
		x[i] = s / l[i*d+i]
	}
}

// cholInverse writes A⁻¹ (symmetric, full) into inv from A's Cholesky
// factor l; inv must not alias l.
func cholInverse(inv, l []float64, d int) {
	clear(inv)
	for j := range d {
		col := inv[j*d : j*d+d]
		col[j] = 1
		CholSolve(l, d, col)
	}
	// inv holds the columns of A⁻¹ as rows: A⁻¹ is symmetric, so it is
	// A⁻¹ itself up to rounding; make it exactly symmetric.
	Symmetrize(inv, d)
}

// Symmetrize replaces the d×d matrix a by (a + aᵀ)/2, in place.
func Symmetrize(a []float64, d int) {
	for i := range d {
		for j := range i {
			m := 0.5 * (a[i*d+j] + a[j*d+i])
			a[i*d+j], a[j*d+i] = m, m
		}
	}
}

// scratch returns a slice of n floats: the first n of buf when they fit,
// else a new one (the kernels keep d small; a larger d allocates).
func scratch(buf []float64, n int) []float64 {
	if n <= len(buf) {
		return buf[:n:n]
	}
	return make([]float64, n)
}

// CheckSPD returns an error unless a is a d×d symmetric positive definite
// matrix, row-major, whose entries are finite with magnitude at most
// MaxNormalMagnitude, symmetric to a relative 1e-9 and whose condition
// number (estimated from the Cholesky factor's diagonal, a lower bound
// good to a factor of d) is at most MaxConditionSPD. The error names the
// offending entry or the property, without a prefix.
func CheckSPD(a []float64, d int) error {
	if d < 1 {
		return fmt.Errorf("dimension %d, want >= 1", d)
	}
	if len(a) != d*d {
		return fmt.Errorf("%d entries, want %d×%d = %d", len(a), d, d, d*d)
	}
	for i := range d {
		for j := range d {
			x := a[i*d+j]
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > MaxNormalMagnitude {
				return fmt.Errorf("entry [%d][%d] is %g, want a finite number of magnitude <= %g", i, j, x, MaxNormalMagnitude)
			}
			if j < i {
				y := a[j*d+i]
				if math.Abs(x-y) > symTol*math.Max(math.Abs(x), math.Abs(y)) {
					return fmt.Errorf("not symmetric: entry [%d][%d] is %g, entry [%d][%d] is %g", i, j, x, j, i, y)
				}
			}
		}
	}
	var buf [64]float64
	l := scratch(buf[:], d*d)
	if !Cholesky(l, a, d) {
		return fmt.Errorf("not positive definite (a Cholesky pivot is <= 0)")
	}
	lo, hi := math.Inf(1), 0.0
	for i := range d {
		p := l[i*d+i] * l[i*d+i]
		lo, hi = math.Min(lo, p), math.Max(hi, p)
	}
	if hi/lo > MaxConditionSPD {
		return fmt.Errorf("ill-conditioned (condition number above %g, want at most %g)", hi/lo, MaxConditionSPD)
	}
	return nil
}
