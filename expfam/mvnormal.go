package expfam

import (
	"errors"
	"fmt"
	"math"
)

// MvNormal is the multivariate Normal distribution of dimension d with mean
// m = Mean (d entries) and covariance Σ = Cov (d×d, row-major), density
//
//	p(x) = (2π)^(-d/2) |Σ|^(-1/2) exp(-½ (x - m)ᵀ Λ (x - m)),  Λ = Σ⁻¹.
//
// Its sufficient statistics are T(x) = [x, x xᵀ] (d + d² entries, the
// matrix row-major), its natural parameters [Λm, -Λ/2], its
// log-normaliser A(η) = ½ mᵀΛm - ½ ln|Λ| + (d/2) ln 2π and its expected
// statistics [m, m mᵀ + Σ]. The methods do not check the parameters; see
// Validate.
type MvNormal struct {
	Mean []float64
	Cov  []float64
}

// Dim returns the dimension d (the length of Mean).
func (n MvNormal) Dim() int { return len(n.Mean) }

// Validate returns an error unless Mean has d >= 1 finite entries of
// magnitude at most MaxNormalMagnitude and Cov is a d×d symmetric positive
// definite matrix (CheckSPD). The error names the field.
func (n MvNormal) Validate() error {
	d := len(n.Mean)
	if d < 1 {
		return errors.New("expfam: mvnormal: mean has no entries, want at least one")
	}
	if err := ValidateVector(n.Mean); err != nil {
		return fmt.Errorf("expfam: mvnormal: mean: %w", err)
	}
	if err := CheckSPD(n.Cov, d); err != nil {
		return fmt.Errorf("expfam: mvnormal: covariance: %w", err)
	}
	return nil
}

// ValidateVector returns an error unless every entry of x is finite with
// magnitude at most MaxNormalMagnitude; the error names the entry, without
// a prefix.
func ValidateVector(x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > MaxNormalMagnitude {
			return fmt.Errorf("entry [%d] is %g, want a finite number of magnitude <= %g", i, v, MaxNormalMagnitude)
		}
	}
	return nil
}

// Natural writes the natural parameters [Λm, -Λ/2] into dst (d + d²
// entries) and returns dst; it allocates when dst is nil and panics if
// len(dst) != d + d² or Cov is not positive definite.
func (n MvNormal) Natural(dst []float64) []float64 {
	d := len(n.Mean)
	dst = makeDst(dst, d+d*d, "MvNormal.Natural")
	l := make([]float64, d*d)
	if !Cholesky(l, n.Cov, d) {
		panic("expfam: MvNormal.Natural: covariance is not positive definite")
	}
	prec := dst[d:]
	cholInverse(prec, l, d)
	for i := range d {
		s := 0.0
		for j := range d {
			s += prec[i*d+j] * n.Mean[j]
		}
		dst[i] = s
	}
	for i := range prec {
		prec[i] *= -0.5
	}
	return dst
}

// ExpectedStats writes [m, m mᵀ + Σ] into dst and returns dst; it
// allocates when dst is nil and panics if len(dst) != d + d².
func (n MvNormal) ExpectedStats(dst []float64) []float64 {
	d := len(n.Mean)
	dst = makeDst(dst, d+d*d, "MvNormal.ExpectedStats")
	copy(dst, n.Mean)
	for i := range d {
		for j := range d {
			dst[d+i*d+j] = n.Mean[i]*n.Mean[j] + n.Cov[i*d+j]
		}
	}
	return dst
}

// LogDetCov returns ln|Σ|, NaN when Cov is not positive definite.
func (n MvNormal) LogDetCov() float64 {
	d := len(n.Mean)
	var buf [64]float64
	l := scratch(buf[:], d*d)
	if !Cholesky(l, n.Cov, d) {
		return math.NaN()
	}
	return cholLogDet(l, d)
}

// Entropy returns ½ ln|2πe Σ| = (d/2)(1 + ln 2π) + ½ ln|Σ|, which is
// A(η) - η·E[T].
func (n MvNormal) Entropy() float64 {
	d := float64(len(n.Mean))
	return 0.5*d*(1+ln2Pi) + 0.5*n.LogDetCov()
}

// LogProb returns ln p(x); len(x) must be d.
func (n MvNormal) LogProb(x []float64) float64 {
	d := len(n.Mean)
	if len(x) != d {
		panic("expfam: MvNormal.LogProb: len(x) != d")
	}
	l := make([]float64, d*d)
	if !Cholesky(l, n.Cov, d) {
		return math.NaN()
	}
	r := make([]float64, d)
	for i := range d {
		r[i] = x[i] - n.Mean[i]
	}
	// Forward solve L z = r: (x - m)ᵀ Σ⁻¹ (x - m) = |z|².
	q := 0.0
	for i := range d {
		s := r[i]
		for k := range i {
			s -= l[i*d+k] * r[k]
		}
		r[i] = s / l[i*d+i]
		q += r[i] * r[i]
	}
	return -0.5*float64(d)*ln2Pi - 0.5*cholLogDet(l, d) - 0.5*q
}

const ln2Pi = 1.8378770664093453 // ln 2π

// MvNormalFromNatural returns the multivariate Normal of dimension d with
// natural parameters eta = [Λm, -Λ/2] (the matrix part is symmetrised
// first). It returns an error when len(eta) != d + d², Λ is not positive
// definite, or the mean or the variances leave the limits of Validate.
func MvNormalFromNatural(eta []float64, d int) (MvNormal, error) {
	if d < 1 || len(eta) != d+d*d {
		return MvNormal{}, fmt.Errorf("expfam: mvnormal: %d natural parameters for dimension %d, want d + d² = %d", len(eta), d, d+d*d)
	}
	n := MvNormal{Mean: make([]float64, d), Cov: make([]float64, d*d)}
	if err := mvFromNatural(n.Mean, n.Cov, eta, d); err != nil {
		return MvNormal{}, err
	}
	return n, nil
}

// mvFromNatural writes the mean and the covariance of the Normal with
// natural parameters eta; it does not allocate for d <= 8. On an error
// mean and cov are left as they were.
func mvFromNatural(mean, cov, eta []float64, d int) error {
	var buf [192]float64
	w := scratch(buf[:], 3*d*d)
	prec, l, inv := w[:d*d], w[d*d:2*d*d], w[2*d*d:]
	for i := range d * d {
		prec[i] = -2 * eta[d+i]
	}
	Symmetrize(prec, d)
	if !Cholesky(l, prec, d) {
		return fmt.Errorf("expfam: mvnormal: the precision matrix from the natural parameters is not positive definite (diagonal %v)", diag(prec, d))
	}
	cholInverse(inv, l, d)
	var mbuf [8]float64
	m := scratch(mbuf[:], d)
	copy(m, eta[:d])
	CholSolve(l, d, m)
	for i := range d {
		v := inv[i*d+i]
		if math.IsNaN(m[i]) || math.Abs(m[i]) > MaxNormalMagnitude {
			return fmt.Errorf("expfam: mvnormal: mean[%d] is %g, want a finite number of magnitude <= %g", i, m[i], MaxNormalMagnitude)
		}
		if !(v >= 1/MaxNormalMagnitude && v <= MaxNormalMagnitude) {
			return fmt.Errorf("expfam: mvnormal: variance[%d] is %g, want it in [%g, %g]", i, v, 1/MaxNormalMagnitude, MaxNormalMagnitude)
		}
	}
	copy(mean, m)
	copy(cov, inv)
	return nil
}

func diag(a []float64, d int) []float64 {
	out := make([]float64, d)
	for i := range d {
		out[i] = a[i*d+i]
	}
	return out
}

// VectorObserver is the optional interface of a Declaration whose
// variables can be observed at a vector x (the mvnormal family):
// ObservedVectorStats writes T(x) into stats, or returns an error when x
// has the wrong length or is not in the support.
type VectorObserver interface {
	ObservedVectorStats(stats, x []float64) error
}

type mvnormalDecl struct{}

func (mvnormalDecl) Name() string { return "mvnormal" }

func (mvnormalDecl) Layout(shape []int) ([]int, int, int, error) {
	if len(shape) != 1 || shape[0] < 1 || shape[0] > MaxMvDim {
		return nil, 0, 0, fmt.Errorf("mvnormal shape %v, want [d] with 1 <= d <= %d", shape, MaxMvDim)
	}
	d := shape[0]
	return shape, d + d*d, d + d*d, nil
}

// MaxMvDim is the largest dimension of an mvnormal or wishart variable.
const MaxMvDim = 64

func (mvnormalDecl) Default(param, stats []float64, shape []int) {
	d := shape[0]
	clear(param)
	clear(stats)
	for i := range d {
		param[d+i*d+i] = 1
		stats[d+i*d+i] = 1
	}
}

func (mvnormalDecl) FromNatural(param, stats, nat []float64, shape []int) error {
	d := shape[0]
	if err := mvFromNatural(param[:d], param[d:], nat, d); err != nil {
		return err
	}
	MvNormal{Mean: param[:d], Cov: param[d:]}.ExpectedStats(stats)
	return nil
}

func (mvnormalDecl) Entropy(param, _ []float64, shape []int) float64 {
	d := shape[0]
	return MvNormal{Mean: param[:d], Cov: param[d:]}.Entropy()
}

func (mvnormalDecl) StartsAtPrior() bool { return true }

func (mvnormalDecl) ObservedVectorStats(stats, x []float64) error {
	d := len(x)
	if d+d*d != len(stats) {
		return fmt.Errorf("expfam: mvnormal: observed vector of %d entries, want %d", d, dimOf(len(stats)))
	}
	if err := ValidateVector(x); err != nil {
		return fmt.Errorf("expfam: mvnormal: value %w", err)
	}
	copy(stats, x)
	for i := range d {
		for j := range d {
			stats[d+i*d+j] = x[i] * x[j]
		}
	}
	return nil
}

// dimOf returns d from d + d² = n.
func dimOf(n int) int {
	d := int(math.Sqrt(float64(n)))
	for d+d*d > n {
		d--
	}
	for (d+1)+(d+1)*(d+1) <= n {
		d++
	}
	return d
}
