package expfam

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// digammaShift is the argument from which mathext.Digamma is used directly.
// mathext.Digamma shifts its argument to x >= 7 and truncates the asymptotic
// series after the (x-1/2)^-8 term, which leaves an absolute error of about
// 5e-11 (0.00756 (x-1/2)^-10, the first omitted term, at x = 7). Shifting to
// x >= 32 by the recurrence ψ(x) = ψ(x+1) - 1/x brings the omitted term below
// 1e-17.
const digammaShift = 32

// digamma returns ψ(x) = d/dx ln Γ(x) for x > 0 to about 1e-16 relative,
// from mathext.Digamma(x+n) - Σ_{k<n} 1/(x+k) with x+n >= digammaShift. For
// other x (zero, negative, NaN, infinite) it returns mathext.Digamma(x).
func digamma(x float64) float64 {
	if !(x > 0) || x >= digammaShift {
		return mathext.Digamma(x)
	}
	var s float64
	for ; x < digammaShift; x++ {
		s += 1 / x
	}
	return mathext.Digamma(x) - s
}

// Nodes and weights of 8-point Gauss-Legendre quadrature on [-1, 1] (positive
// half; computed with mpmath at 30 digits).
var (
	glNodes   = [4]float64{0.18343464249564980494, 0.52553240991632898582, 0.79666647741362673959, 0.96028985649753623168}
	glWeights = [4]float64{0.36268378337836198297, 0.31370664587788728734, 0.22238103445337447054, 0.10122853629037625915}
)

// lgammaBregman returns the Bregman divergence of ln Γ from x to y,
//
//	ln Γ(y) - ln Γ(x) - (y - x) ψ(x) = ∫_x^y (ψ(t) - ψ(x)) dt,
//
// given psiX = ψ(x), for x, y > 0. The KL divergences of the Dirichlet and the
// Gamma families are sums of these terms. When y is close to x the direct
// difference of math.Lgamma values loses the absolute accuracy of
// ln Γ(x) (about 2e-9 at x = 1e6), so the integral form is evaluated by
// 8-point Gauss-Legendre quadrature of digamma instead: with
// |y - x| <= min(x, y)/4 the nearest pole of ψ (at 0) is far enough that the
// quadrature error is below 1e-18 relative.
func lgammaBregman(x, y, psiX float64) float64 {
	if x == y {
		return 0
	}
	d := y - x
	if math.Abs(d) > 0.25*math.Min(x, y) || math.IsInf(d, 0) || math.IsNaN(d) {
		return lgamma(y) - lgamma(x) - d*psiX
	}
	m, h := x+0.5*d, 0.5*d
	var s float64
	for k, t := range glNodes {
		s += glWeights[k] * ((digamma(m-h*t) - psiX) + (digamma(m+h*t) - psiX))
	}
	return h * s
}
