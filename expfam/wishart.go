package expfam

import (
	"errors"
	"fmt"
	"math"
)

// Wishart is the distribution of a d×d symmetric positive definite matrix
// Λ with DF = ν > d - 1 degrees of freedom and Scale = V (d×d, row-major),
// density
//
//	p(Λ) = |Λ|^((ν-d-1)/2) exp(-½ tr(V⁻¹Λ)) / (2^(νd/2) |V|^(ν/2) Γ_d(ν/2)),
//
// with Γ_d the multivariate gamma function. Its sufficient statistics are
// T(Λ) = [Λ, ln|Λ|] (d² + 1 entries), its natural parameters
// [-V⁻¹/2, (ν-d-1)/2], its log-normaliser A(η) = (νd/2) ln 2 +
// (ν/2) ln|V| + ln Γ_d(ν/2) and its expected statistics
// [νV, Σ_(i=1..d) ψ((ν+1-i)/2) + d ln 2 + ln|V|]. It is the conjugate
// prior of a multivariate Normal's precision matrix. The methods do not
// check the parameters; see Validate.
type Wishart struct {
	DF    float64
	Scale []float64
}

// Dim returns d (Scale has d² entries).
func (w Wishart) Dim() int { return isqrt(len(w.Scale)) }

func isqrt(n int) int {
	d := int(math.Sqrt(float64(n)))
	for d*d > n {
		d--
	}
	for (d+1)*(d+1) <= n {
		d++
	}
	return d
}

// Validate returns an error unless Scale is a d×d symmetric positive
// definite matrix (CheckSPD) and DF is finite and > d - 1. The error names
// the field.
func (w Wishart) Validate() error {
	d := w.Dim()
	if d < 1 || d*d != len(w.Scale) {
		return fmt.Errorf("expfam: wishart: scale has %d entries, want d² for a dimension d >= 1", len(w.Scale))
	}
	if err := CheckSPD(w.Scale, d); err != nil {
		return fmt.Errorf("expfam: wishart: scale: %w", err)
	}
	return checkDF(w.DF, d)
}

func checkDF(nu float64, d int) error {
	if math.IsNaN(nu) || math.IsInf(nu, 0) || !(nu > float64(d-1)) || nu > MaxNormalMagnitude {
		return fmt.Errorf("expfam: wishart: degrees of freedom %g, want a finite number > d - 1 = %d", nu, d-1)
	}
	return nil
}

// ExpectedStats writes [νV, E ln|Λ|] into dst (d² + 1 entries) and returns
// dst; it allocates when dst is nil and panics if the length is wrong.
func (w Wishart) ExpectedStats(dst []float64) []float64 {
	d := w.Dim()
	dst = makeDst(dst, d*d+1, "Wishart.ExpectedStats")
	for i, v := range w.Scale {
		dst[i] = w.DF * v
	}
	dst[d*d] = w.ExpectedLogDet()
	return dst
}

// Mean returns E[Λ] = νV (a new slice).
func (w Wishart) Mean() []float64 {
	out := make([]float64, len(w.Scale))
	for i, v := range w.Scale {
		out[i] = w.DF * v
	}
	return out
}

// logDetScale returns ln|V|, NaN when V is not positive definite.
func (w Wishart) logDetScale() float64 {
	d := w.Dim()
	var buf [64]float64
	l := scratch(buf[:], d*d)
	if !Cholesky(l, w.Scale, d) {
		return math.NaN()
	}
	return cholLogDet(l, d)
}

// ExpectedLogDet returns E[ln|Λ|] = Σ_(i=1..d) ψ((ν+1-i)/2) + d ln 2 + ln|V|.
func (w Wishart) ExpectedLogDet() float64 {
	return w.expectedLogDet(w.logDetScale())
}

func (w Wishart) expectedLogDet(logDetV float64) float64 {
	d := w.Dim()
	s := float64(d)*math.Ln2 + logDetV
	for i := 1; i <= d; i++ {
		s += digamma((w.DF + 1 - float64(i)) / 2)
	}
	return s
}

// LogMvGamma returns ln Γ_d(a) = d(d-1)/4 ln π + Σ_(i=1..d) ln Γ(a + (1-i)/2).
func LogMvGamma(a float64, d int) float64 {
	s := float64(d*(d-1)) / 4 * math.Log(math.Pi)
	for i := 1; i <= d; i++ {
		s += lgamma(a + float64(1-i)/2)
	}
	return s
}

// LogNormalizer returns A(η) = (νd/2) ln 2 + (ν/2) ln|V| + ln Γ_d(ν/2).
func (w Wishart) LogNormalizer() float64 {
	d := w.Dim()
	return w.DF*float64(d)/2*math.Ln2 + w.DF/2*w.logDetScale() + LogMvGamma(w.DF/2, d)
}

// Entropy returns A(η) - η·E[T] = A(η) + νd/2 - (ν-d-1)/2 E[ln|Λ|].
func (w Wishart) Entropy() float64 {
	d := float64(w.Dim())
	ld := w.logDetScale()
	a := w.DF*d/2*math.Ln2 + w.DF/2*ld + LogMvGamma(w.DF/2, w.Dim())
	return a + w.DF*d/2 - (w.DF-d-1)/2*w.expectedLogDet(ld)
}

// WishartFromNatural returns the Wishart of dimension d with natural
// parameters eta = [-V⁻¹/2, (ν-d-1)/2] (the matrix part is symmetrised
// first), or an error when V⁻¹ is not positive definite or ν <= d - 1.
func WishartFromNatural(eta []float64, d int) (Wishart, error) {
	if d < 1 || len(eta) != d*d+1 {
		return Wishart{}, fmt.Errorf("expfam: wishart: %d natural parameters for dimension %d, want d² + 1 = %d", len(eta), d, d*d+1)
	}
	w := Wishart{Scale: make([]float64, d*d)}
	nu, err := wishartFromNatural(w.Scale, eta, d)
	if err != nil {
		return Wishart{}, err
	}
	w.DF = nu
	return w, nil
}

// wishartFromNatural writes V into scale and returns ν; it does not
// allocate for d <= 8. On an error scale is left as it was.
func wishartFromNatural(scale, eta []float64, d int) (float64, error) {
	nu := 2*eta[d*d] + float64(d) + 1
	if err := checkDF(nu, d); err != nil {
		return 0, fmt.Errorf("%w (natural parameter %g)", err, eta[d*d])
	}
	var buf [128]float64
	w := scratch(buf[:], 2*d*d)
	vinv, l := w[:d*d], w[d*d:]
	for i := range d * d {
		vinv[i] = -2 * eta[i]
	}
	Symmetrize(vinv, d)
	if !Cholesky(l, vinv, d) {
		return 0, errors.New("expfam: wishart: the inverse scale from the natural parameters is not positive definite")
	}
	cholInverse(scale, l, d)
	return nu, nil
}

type wishartDecl struct{}

func (wishartDecl) Name() string { return "wishart" }

func (wishartDecl) Layout(shape []int) ([]int, int, int, error) {
	if len(shape) != 1 || shape[0] < 1 || shape[0] > MaxMvDim {
		return nil, 0, 0, fmt.Errorf("wishart shape %v, want [d] with 1 <= d <= %d", shape, MaxMvDim)
	}
	d := shape[0]
	return shape, d*d + 1, d*d + 1, nil
}

// Default is W(d, I): ν = d, V = I.
func (wishartDecl) Default(param, stats []float64, shape []int) {
	d := shape[0]
	clear(param)
	param[0] = float64(d)
	for i := range d {
		param[1+i*d+i] = 1
	}
	Wishart{DF: param[0], Scale: param[1:]}.ExpectedStats(stats)
}

func (wishartDecl) FromNatural(param, stats, nat []float64, shape []int) error {
	d := shape[0]
	nu, err := wishartFromNatural(param[1:], nat, d)
	if err != nil {
		return err
	}
	param[0] = nu
	Wishart{DF: nu, Scale: param[1:]}.ExpectedStats(stats)
	return nil
}

func (wishartDecl) Entropy(param, _ []float64, _ []int) float64 {
	return Wishart{DF: param[0], Scale: param[1:]}.Entropy()
}

func (wishartDecl) StartsAtPrior() bool { return true }
