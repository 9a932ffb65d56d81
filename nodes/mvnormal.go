package nodes

import (
	"fmt"
	"math"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
)

// MvMean is the mean of an MvNormal node: a literal vector, or the affine
// map A·m + b of an mvnormal variable m bound to the node's "mean"
// interface (A the identity and b = 0 for the plain N(x | m, Λ⁻¹); a
// literal A makes the linear-Gaussian transition x_t ~ N(A x_(t-1) + b, Q)).
type MvMean struct {
	Variable bool
	Value    []float64 // the literal mean (d entries)
	Matrix   []float64 // A, d×k row-major; nil: the identity (k = d)
	In       int       // k, the mean variable's dimension (with Matrix)
	Offset   []float64 // b (d entries); nil: 0
}

// LiteralMvMean is the mean fixed at m.
func LiteralMvMean(m []float64) MvMean { return MvMean{Value: m} }

// VariableMvMean is the mean given by an mvnormal variable of the node's
// dimension.
func VariableMvMean() MvMean { return MvMean{Variable: true} }

// AffineMvMean is the mean A·m + b of an mvnormal variable m of dimension
// k; A is d×k row-major, b has d entries or is nil.
func AffineMvMean(a []float64, k int, b []float64) MvMean {
	return MvMean{Variable: true, Matrix: a, In: k, Offset: b}
}

// MvPrecision is the precision matrix Λ of an MvNormal node: a literal
// matrix, or a wishart variable bound to the node's "precision" interface.
type MvPrecision struct {
	Variable bool
	Matrix   []float64 // the literal Λ, d×d row-major
}

// LiteralMvPrecision is the precision fixed at the matrix l.
func LiteralMvPrecision(l []float64) MvPrecision { return MvPrecision{Matrix: l} }

// WishartPrecision is the precision given by a wishart variable.
func WishartPrecision() MvPrecision { return MvPrecision{Variable: true} }

// MvCovariance returns the literal precision Σ⁻¹ of the covariance s (d×d,
// row-major); the error says what is wrong with s.
func MvCovariance(s []float64, d int) (MvPrecision, error) {
	if err := expfam.CheckSPD(s, d); err != nil {
		return MvPrecision{}, fmt.Errorf("nodes: mvnormal: covariance: %w", err)
	}
	n := expfam.MvNormal{Mean: make([]float64, d), Cov: s}
	eta := n.Natural(nil)
	l := eta[d:]
	for i := range l {
		l[i] *= -2
	}
	return MvPrecision{Matrix: l}, nil
}

// MvNormal is the node N(out | μ, Λ⁻¹) over an mvnormal variable of
// dimension d, with log-density
//
//	ln f = ½ ln|Λ| - (d/2) ln 2π - ½ (out - μ)ᵀ Λ (out - μ),
//
// the mean μ a literal or A·m + b of an mvnormal variable m, the precision
// Λ a literal matrix or a wishart variable. Its interfaces are "out", then
// "mean" when the mean is a variable, then "precision" when the precision
// is a variable. ln f is multilinear in (out, out outᵀ), (m, m mᵀ) and
// (Λ, ln|Λ|), so every message is the gradient of E_q[ln f]
// (messages.Polynomial): to out, [E Λ E μ, -E Λ/2]; to m, [Aᵀ E Λ (E out -
// b), -Aᵀ E Λ A/2]; to Λ, [-½ E (out - μ)(out - μ)ᵀ, ½].
type MvNormal struct {
	poly
	d      int
	mean   MvMean
	prec   MvPrecision
	meanIf int
	precIf int
	logDet float64 // ln|Λ| of a literal precision
}

// NewMvNormal returns an MvNormal node of dimension d. Literal vectors and
// matrices must be finite and at most expfam.MaxNormalMagnitude in size, of
// the right lengths, and a literal precision symmetric positive definite;
// the error names the field ("mean", "mean matrix", "mean offset",
// "precision").
func NewMvNormal(d int, mean MvMean, prec MvPrecision) (*MvNormal, error) {
	if d < 1 || d > expfam.MaxMvDim {
		return nil, fmt.Errorf("nodes: mvnormal: dimension %d, want 1 to %d", d, expfam.MaxMvDim)
	}
	if err := mean.check(d); err != nil {
		return nil, fmt.Errorf("nodes: mvnormal: %w", err)
	}
	if !prec.Variable {
		if err := expfam.CheckSPD(prec.Matrix, d); err != nil {
			return nil, fmt.Errorf("nodes: mvnormal: precision: %w", err)
		}
	}
	n := &MvNormal{d: d, mean: mean, prec: prec, meanIf: -1, precIf: -1}
	n.kind = "mvnormal"
	n.ifs = []messages.Interface{{Name: "out", Family: expfam.MvNormalFamily, Shape: []int{d}}}
	// r = out - μ, one affine function per component.
	r := make([][]aterm, d)
	for i := range d {
		r[i] = append(r[i], aterm{1, lin{0, i}})
	}
	switch {
	case mean.Variable:
		k := mean.in(d)
		n.meanIf = len(n.ifs)
		n.ifs = append(n.ifs, messages.Interface{Name: "mean", Family: expfam.MvNormalFamily, Shape: []int{k}})
		for i := range d {
			if mean.Matrix == nil {
				r[i] = append(r[i], aterm{-1, lin{n.meanIf, i}})
			} else {
				for j := range k {
					if a := mean.Matrix[i*k+j]; a != 0 {
						r[i] = append(r[i], aterm{-a, lin{n.meanIf, j}})
					}
				}
			}
			if mean.Offset != nil && mean.Offset[i] != 0 {
				r[i] = append(r[i], aterm{-mean.Offset[i], lin{-1, 0}})
			}
		}
	default:
		for i := range d {
			if mean.Value[i] != 0 {
				r[i] = append(r[i], aterm{-mean.Value[i], lin{-1, 0}})
			}
		}
	}
	if prec.Variable {
		n.precIf = len(n.ifs)
		n.ifs = append(n.ifs, messages.Interface{Name: "precision", Family: expfam.WishartFamily, Shape: []int{d}})
	}
	// The expanded form has up to |r_i|·|r_j| terms per entry of Λ: refuse
	// one that would not fit in memory (a dense A of a large dimension).
	work := 0
	for i := range d {
		for j := range d {
			if prec.Variable || prec.Matrix[i*d+j] != 0 {
				work += len(r[i]) * len(r[j])
			}
		}
	}
	if work > MaxFormTerms {
		return nil, fmt.Errorf("nodes: mvnormal: the form of dimension %d has %d products, more than %d (a smaller dimension, or a sparser matrix)", d, work, MaxFormTerms)
	}
	q := newQuadForm(n.ifs)
	for i := range d {
		for j := range d {
			if prec.Variable {
				q.quad(-0.5, r[i], r[j], []int{n.precIf, i*d + j})
			} else if l := prec.Matrix[i*d+j]; l != 0 {
				q.quad(-0.5*l, r[i], r[j], nil)
			}
		}
	}
	if prec.Variable {
		q.add(0.5, n.precIf, d*d)
	} else {
		n.logDet = logDet(prec.Matrix, d)
		q.add(0.5 * n.logDet)
	}
	q.add(-0.5 * float64(d) * math.Log(2*math.Pi))
	n.form = q.polynomial()
	return n, nil
}

// MaxFormTerms bounds the products an MvNormal node's form expands to
// (about 40 bytes each while it is built).
const MaxFormTerms = 2_000_000

// logDet returns ln|a| of a symmetric positive definite matrix.
func logDet(a []float64, d int) float64 {
	n := expfam.MvNormal{Mean: make([]float64, d), Cov: a}
	return n.LogDetCov()
}

func (m MvMean) in(d int) int {
	if m.Matrix == nil {
		return d
	}
	return m.In
}

func (m MvMean) check(d int) error {
	if !m.Variable {
		if len(m.Value) != d {
			return fmt.Errorf("mean has %d entries, want %d", len(m.Value), d)
		}
		if err := expfam.ValidateVector(m.Value); err != nil {
			return fmt.Errorf("mean: %w", err)
		}
		return nil
	}
	if m.Matrix != nil {
		if m.In < 1 || m.In > expfam.MaxMvDim || len(m.Matrix) != d*m.In {
			return fmt.Errorf("mean matrix has %d entries for a mean variable of dimension %d, want %d×%d", len(m.Matrix), m.In, d, m.In)
		}
		if err := expfam.ValidateVector(m.Matrix); err != nil {
			return fmt.Errorf("mean matrix: %w", err)
		}
	}
	if m.Offset != nil {
		if len(m.Offset) != d {
			return fmt.Errorf("mean offset has %d entries, want %d", len(m.Offset), d)
		}
		if err := expfam.ValidateVector(m.Offset); err != nil {
			return fmt.Errorf("mean offset: %w", err)
		}
	}
	return nil
}

// Dim returns the node's dimension d.
func (n *MvNormal) Dim() int { return n.d }

// MeanInterface returns the index of the "mean" interface, or -1 when the
// mean is a literal.
func (n *MvNormal) MeanInterface() int { return n.meanIf }

// PrecisionInterface returns the index of the "precision" interface, or
// -1 when the precision is a literal.
func (n *MvNormal) PrecisionInterface() int { return n.precIf }

// Mean returns the node's mean.
func (n *MvNormal) Mean() MvMean { return n.mean }

// Precision returns the node's precision.
func (n *MvNormal) Precision() MvPrecision { return n.prec }

// Label returns the DOT label N(μ, Σ).
func (n *MvNormal) Label() string { return "N(μ, Σ)" }

// LabelWith returns the DOT label N(μ, Σ) with the mean's and the
// precision's variables (neighbours in interface order): N(A·m+b, Λ⁻¹).
func (n *MvNormal) LabelWith(neighbours []string) string {
	mu := "μ"
	if n.mean.Variable {
		mu = neighbours[n.meanIf]
		if n.mean.Matrix != nil {
			mu = "A·" + mu
		}
		if n.mean.Offset != nil {
			mu += "+b"
		}
	}
	sigma := "Σ"
	if n.prec.Variable {
		sigma = neighbours[n.precIf] + "⁻¹"
	}
	return "N(" + mu + ", " + sigma + ")"
}

// Wishart is a fixed Wishart prior W(Λ | ν, V) over a d×d precision
// matrix, with log-density
//
//	ln f = (ν-d-1)/2 ln|Λ| - ½ tr(V⁻¹ Λ) - A(ν, V),
//
// linear in the statistics (Λ, ln|Λ|) of its one interface "out"; its
// message is the prior's natural parameters [-V⁻¹/2, (ν-d-1)/2].
type Wishart struct {
	poly
	prior expfam.Wishart
}

// NewWishart returns the prior W(ν, V); V (d×d, row-major) must be
// symmetric positive definite and ν > d - 1. The error names the field
// ("df", "scale").
func NewWishart(df float64, scale []float64, d int) (*Wishart, error) {
	if d < 1 || d > expfam.MaxMvDim || len(scale) != d*d {
		return nil, fmt.Errorf("nodes: wishart: scale has %d entries, want %d×%d", len(scale), d, d)
	}
	w := expfam.Wishart{DF: df, Scale: append([]float64(nil), scale...)}
	if err := expfam.CheckSPD(scale, d); err != nil {
		return nil, fmt.Errorf("nodes: wishart: scale: %w", err)
	}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("nodes: wishart: df: %s", strings.TrimPrefix(err.Error(), "expfam: wishart: "))
	}
	n := &Wishart{prior: w}
	n.kind = "wishart"
	n.ifs = []messages.Interface{{Name: "out", Family: expfam.WishartFamily, Shape: []int{d}}}
	p, err := MvCovariance(scale, d) // V⁻¹
	if err != nil {
		return nil, err
	}
	n.form = messages.NewPolynomial(1)
	for i, v := range p.Matrix {
		if v != 0 {
			n.form.Term(-0.5*v, 0, i)
		}
	}
	n.form.Term((df-float64(d)-1)/2, 0, d*d)
	n.form.Const = -w.LogNormalizer()
	return n, nil
}

// Prior returns the prior's parameters.
func (w *Wishart) Prior() expfam.Wishart { return w.prior }

// Label returns the DOT label W(ν, V).
func (w *Wishart) Label() string { return "W(" + fmtNum(w.prior.DF) + ", V)" }

// LogDensityAt returns E_q[ln f] with the neighbours on the interfaces k
// where points[k] is non-nil at those points and the others at their
// expected statistics stats[k], evaluated in residual form,
//
//	½ E ln|Λ| - (d/2) ln 2π - ½ (rᵀ E[Λ] r + tr(E[Λ] C_out) + tr(E[Λ] A C_m Aᵀ)),
//
// r = x̄ - A m̄ - b from the points or means, C the covariances of the
// neighbours that are not points (zero for an observed one). The
// polynomial form gives the same number as a sum of terms of the size of
// x², which cancel; this form keeps its accuracy far from the origin,
// where the free energy of a long state-space model is read.
func (n *MvNormal) LogDensityAt(points, stats [][]float64) float64 {
	d := n.d
	var rbuf [64]float64
	r := rbuf[:0]
	if d > len(rbuf) {
		r = make([]float64, 0, d)
	}
	x := points[0]
	if x == nil {
		x = stats[0][:d]
	}
	r = append(r, x...)
	var m []float64
	k := 0
	if n.mean.Variable {
		k = n.mean.in(d)
		if m = points[n.meanIf]; m == nil {
			m = stats[n.meanIf][:k]
		}
	}
	for i := range d {
		switch {
		case !n.mean.Variable:
			r[i] -= n.mean.Value[i]
		case n.mean.Matrix == nil:
			r[i] -= m[i]
		default:
			for j := range k {
				r[i] -= n.mean.Matrix[i*k+j] * m[j]
			}
		}
		if n.mean.Offset != nil {
			r[i] -= n.mean.Offset[i]
		}
	}
	lam, logDet := n.prec.Matrix, n.logDet
	if n.prec.Variable {
		lam, logDet = stats[n.precIf][:d*d], stats[n.precIf][d*d]
	}
	q := 0.0
	for i := range d {
		for j := range d {
			l := lam[i*d+j]
			q += l * r[i] * r[j]
			if points[0] == nil {
				q += l * (stats[0][d+i*d+j] - x[i]*x[j])
			}
		}
	}
	if n.mean.Variable && points[n.meanIf] == nil {
		s := stats[n.meanIf][k:]
		at := func(i, a int) float64 {
			if n.mean.Matrix == nil {
				if i == a {
					return 1
				}
				return 0
			}
			return n.mean.Matrix[i*k+a]
		}
		for i := range d {
			for j := range d {
				for a := range k {
					for b := range k {
						if c := s[a*k+b] - m[a]*m[b]; c != 0 {
							q += lam[i*d+j] * at(i, a) * c * at(j, b)
						}
					}
				}
			}
		}
	}
	return 0.5*logDet - 0.5*float64(d)*math.Log(2*math.Pi) - 0.5*q
}

// LabelWith returns the DOT label W(ν, V).
func (w *Wishart) LabelWith([]string) string { return w.Label() }
