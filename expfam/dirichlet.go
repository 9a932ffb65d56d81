package expfam

import (
	"fmt"
	"math"
	"strconv"
)

// Dirichlet is a distribution over probability vectors p of length K =
// len(Alpha) with concentrations Alpha. Its sufficient statistic is
// T(p) = ln p, its natural parameter is α - 1, its log-normaliser is
// ln B(α) = Σ ln Γ(α_i) - ln Γ(α_0) with α_0 = Σ α_i, and its expected
// sufficient statistics are E[ln p_i] = ψ(α_i) - ψ(α_0) (paper Appendix D).
//
// The methods do not check Alpha; see Validate. Accuracy: ψ is accurate to
// about 2e-15 absolute (mathext.Digamma after a recurrence shift, see
// digamma), so ExpectedLog keeps ~1e-15 absolute even when ψ(α_i) - ψ(α_0) is
// tiny. Entropy and LogNormalizer involve math.Lgamma(α_0) itself and carry a
// few of its ulp, about 1e-9 absolute at α_0 near 1e6. KL is evaluated in a
// form whose terms vanish when the two concentrations are close, so nearby
// large concentrations keep ~1e-8 relative accuracy.
type Dirichlet struct {
	Alpha []float64
}

// Validate returns an error unless Alpha has at least one entry and every
// entry is finite and > 0. The error names the offending index.
func (d Dirichlet) Validate() error {
	return validateConcentrations(d.Alpha, "dirichlet: alpha")
}

// Natural writes the natural parameters α - 1 into dst and returns dst; it
// allocates when dst is nil and panics if len(dst) != len(d.Alpha).
func (d Dirichlet) Natural(dst []float64) []float64 {
	dst = makeDst(dst, len(d.Alpha), "Dirichlet.Natural")
	for i, a := range d.Alpha {
		dst[i] = a - 1
	}
	return dst
}

// ExpectedLog writes E[ln p_i] = ψ(α_i) - ψ(α_0), the expected sufficient
// statistics (paper Appendix D), into dst and returns dst; it allocates when
// dst is nil and panics if len(dst) != len(d.Alpha).
func (d Dirichlet) ExpectedLog(dst []float64) []float64 {
	dst = makeDst(dst, len(d.Alpha), "Dirichlet.ExpectedLog")
	colExpectedLog(dst, d.Alpha, 0, 1, len(d.Alpha))
	return dst
}

// Mean writes E[p_i] = α_i / α_0 into dst and returns dst; it allocates when
// dst is nil and panics if len(dst) != len(d.Alpha).
func (d Dirichlet) Mean(dst []float64) []float64 {
	dst = makeDst(dst, len(d.Alpha), "Dirichlet.Mean")
	colMean(dst, d.Alpha, 0, 1, len(d.Alpha))
	return dst
}

// LogNormalizer returns ln B(α) = Σ ln Γ(α_i) - ln Γ(α_0).
func (d Dirichlet) LogNormalizer() float64 {
	return colLogB(d.Alpha, 0, 1, len(d.Alpha))
}

// Entropy returns the differential entropy
//
//	H = ln B(α) + (α_0 - K) ψ(α_0) - Σ (α_i - 1) ψ(α_i),
//
// which is A(η) - η·E[T] with η = α - 1 and E[T] = ψ(α) - ψ(α_0). It is
// negative for concentrated distributions.
func (d Dirichlet) Entropy() float64 {
	return colEntropy(d.Alpha, 0, 1, len(d.Alpha))
}

// KL returns KL(d || q) = ln B(β) - ln B(α) + Σ (α_i - β_i)(ψ(α_i) - ψ(α_0)),
// where α = d.Alpha and β = q.Alpha. It panics if the lengths differ.
func (d Dirichlet) KL(q Dirichlet) float64 {
	if len(d.Alpha) != len(q.Alpha) {
		panic("expfam: Dirichlet.KL: length mismatch " + strconv.Itoa(len(d.Alpha)) + " != " + strconv.Itoa(len(q.Alpha)))
	}
	return colKL(d.Alpha, q.Alpha, 0, 1, len(d.Alpha))
}

// DirichletAlphaFromNatural writes the concentrations α = eta + 1 into dst. It
// returns an error naming the first index whose α is not finite or not > 0,
// and then leaves dst unchanged. dst may be eta itself; a nil dst only
// validates. It panics if dst is not nil and len(dst) != len(eta), and it does
// not allocate unless it returns an error.
func DirichletAlphaFromNatural(dst, eta []float64) error {
	if dst != nil && len(dst) != len(eta) {
		panic("expfam: DirichletAlphaFromNatural: len(dst) = " + strconv.Itoa(len(dst)) + ", len(eta) = " + strconv.Itoa(len(eta)))
	}
	for i, e := range eta {
		a := e + 1
		if !(a > 0) || math.IsInf(a, 1) {
			return fmt.Errorf("expfam: dirichlet natural parameter %d is %g: concentration %g, want finite and > 0", i, e, a)
		}
	}
	if dst != nil {
		for i, e := range eta {
			dst[i] = e + 1
		}
	}
	return nil
}

// The column kernels below work on the k entries a[off], a[off+stride], …,
// a[off+(k-1)*stride]: a Dirichlet vector is one column with stride 1, a
// DirichletTensor column j has off = j and stride = Cols().

func colSum(a []float64, off, stride, k int) float64 {
	var s float64
	for i := range k {
		s += a[off+i*stride]
	}
	return s
}

func colExpectedLog(dst, a []float64, off, stride, k int) {
	psi0 := digamma(colSum(a, off, stride, k))
	for i := range k {
		idx := off + i*stride
		dst[idx] = digamma(a[idx]) - psi0
	}
}

func colMean(dst, a []float64, off, stride, k int) {
	s := colSum(a, off, stride, k)
	for i := range k {
		idx := off + i*stride
		dst[idx] = a[idx] / s
	}
}

func colLogB(a []float64, off, stride, k int) float64 {
	var s, l float64
	for i := range k {
		x := a[off+i*stride]
		s += x
		l += lgamma(x)
	}
	return l - lgamma(s)
}

func colEntropy(a []float64, off, stride, k int) float64 {
	a0 := colSum(a, off, stride, k)
	// Group each i's terms, ln Γ(α_i) - (α_i - 1) ψ(α_i), to keep partial
	// sums small.
	h := -lgamma(a0) + (a0-float64(k))*digamma(a0)
	for i := range k {
		x := a[off+i*stride]
		h += lgamma(x) - (x-1)*digamma(x)
	}
	return h
}

// colKL returns KL(Dir(a) || Dir(b)) of one column, written as
//
//	Σ_i D(α_i, β_i) - D(α_0, β_0),  D(x, y) = ln Γ(y) - ln Γ(x) - (y - x) ψ(x),
//
// which rearranges ln B(β) - ln B(α) + Σ (α_i - β_i)(ψ(α_i) - ψ(α_0)) into
// small terms (see lgammaBregman) so that nearby large concentrations keep
// their accuracy.
func colKL(a, b []float64, off, stride, k int) float64 {
	var a0, b0 float64
	for i := range k {
		a0 += a[off+i*stride]
		b0 += b[off+i*stride]
	}
	kl := -lgammaBregman(a0, b0, digamma(a0))
	for i := range k {
		x, y := a[off+i*stride], b[off+i*stride]
		kl += lgammaBregman(x, y, digamma(x))
	}
	return kl
}
