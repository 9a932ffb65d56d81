package nodes

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
)

// NormalLinear is the Normal node whose mean is a linear predictor,
//
//	out ~ N(μ, 1/τ),   μ = Σ_k s_k m_k + b,
//
// each m_k a normal variable with a numeric scale s_k, the offset b a
// literal or a·v + c of a normal variable v, the precision a literal or
// s·τ of a gamma variable. It is the likelihood of a linear regression,
// y_n ~ N(Σ_k w_k x_nk + b, 1/τ): the weights w_k are the term variables,
// the covariates x_nk their scales, b the intercept and τ the noise
// precision. Its interfaces are "out", "sum[0]", ..., "sum[K-1]" (term k's
// variable), then "offset" when the offset is a variable, then "precision"
// when the precision is a variable. The variables of the terms and of the
// offset must be distinct (a variable used twice is one term, its scales
// added; package model does this).
//
// Write μ = Σ_i a_i u_i + c over the normal variables u_i of the mean (the
// terms' with a_i = s_i, the offset's with its scale a) and the literal c.
// Then
//
//	ln f = ½ ln τ - ½ ln 2π - ½ τ (out - μ)²,
//	(out - μ)² = out² - 2 Σ_i a_i out u_i - 2c out + Σ_i a_i² u_i²
//	           + 2 Σ_(i<j) a_i a_j u_i u_j + 2c Σ_i a_i u_i + c²,
//
// is multilinear in (out, out²), each (u_i, u_i²) and (ln τ, τ): a cross
// term u_i u_j takes the statistic u of each, so its expectation under mean
// field is E[u_i] E[u_j]. Every message is the gradient of E_q[ln f]
// (messages.Polynomial), as for Normal: to out, [E τ E μ, -E τ/2]; to u_i,
// [a_i E τ (E out - E μ + a_i E u_i), -a_i² E τ/2]; to τ,
// [½, -½ E(out - μ)²] with E(out - μ)² = E out² - 2 E out E μ + (E μ)²
// + Σ_i a_i² Var u_i. With one term and a literal offset it is
// Normal with the mean AffineMean(s_0, b), term for term.
type NormalLinear struct {
	poly
	scales []float64
	offset Mean
	prec   Precision
	offIf  int
	precIf int
}

// NewNormalLinear returns the Normal node whose mean is
// Σ_k scales[k]·m_k + offset, with one "sum[k]" interface per scale (K =
// len(scales) >= 0). The offset is LiteralMean(b), VariableMean() (a
// normal variable v) or AffineMean(a, c) (a·v + c); the precision as for
// NewNormal. Scales and literals must be finite and at most
// expfam.MaxNormalMagnitude in size (a scale may be 0); the error names
// the field ("sum[1] scale", "offset", "offset scale", "precision").
func NewNormalLinear(scales []float64, offset Mean, prec Precision) (*NormalLinear, error) {
	for k, s := range scales {
		if err := expfam.ValidateValue(s); err != nil {
			return nil, fmt.Errorf("nodes: normal-linear: sum[%d] scale: %s", k, trimExpfam(err))
		}
	}
	if err := offset.check("offset"); err != nil {
		return nil, fmt.Errorf("nodes: normal-linear: %w", err)
	}
	if err := prec.check("precision"); err != nil {
		return nil, fmt.Errorf("nodes: normal-linear: %w", err)
	}
	n := &NormalLinear{scales: append([]float64(nil), scales...), offset: offset, prec: prec, offIf: -1, precIf: -1}
	n.kind = "normal-linear"
	n.ifs = make([]messages.Interface, 0, len(scales)+3)
	n.ifs = append(n.ifs, messages.Interface{Name: "out", Family: expfam.NormalFamily})
	coefs := make([]linearCoef, 0, len(scales)+1)
	for k, s := range scales {
		coefs = append(coefs, linearCoef{iface: len(n.ifs), a: s})
		n.ifs = append(n.ifs, messages.Interface{Name: "sum[" + strconv.Itoa(k) + "]", Family: expfam.NormalFamily})
	}
	c := offset.Value
	if offset.Variable {
		n.offIf = len(n.ifs)
		coefs = append(coefs, linearCoef{iface: n.offIf, a: offset.Scale})
		n.ifs = append(n.ifs, messages.Interface{Name: "offset", Family: expfam.NormalFamily})
		c = offset.Offset
	}
	if prec.Variable {
		n.precIf = len(n.ifs)
		n.ifs = append(n.ifs, messages.Interface{Name: "precision", Family: expfam.GammaFamily})
	}
	n.form = messages.NewPolynomial(len(n.ifs))
	n.form.Const = addLinearTerms(n.form, NormalOut, n.precIf, coefs, c, prec)
	return n, nil
}

// linearCoef is a_i of the normal variable on interface iface in the mean
// Σ_i a_i u_i + c.
type linearCoef struct {
	iface int
	a     float64
}

// addLinearTerms adds to p the terms of
//
//	ln N(x | μ, 1/τ) = ½ ln τ - ½ ln 2π - ½ τ (x - μ)²,   μ = Σ_i a_i u_i + c,
//
// in the order of addNormalTerms (x², x u_i, x, u_i², u_i u_j, u_i, then
// the constant), so that one coefficient and a literal c give Normal's
// terms. x and tau are the interfaces of the output and the precision (-1
// when literal). It returns the constant of the terms that contain no
// interface.
func addLinearTerms(p *messages.Polynomial, x, tau int, coefs []linearCoef, c float64, prec Precision) float64 {
	k := 0.0
	// The factor τ: the precision interface's statistic τ, or the literal.
	var buf [6]int
	term := func(coef float64, pairs ...int) {
		if coef == 0 {
			return
		}
		pairs = append(buf[:0], pairs...)
		if tau >= 0 {
			pairs = append(pairs, tau, 1)
			coef *= prec.Scale
		} else {
			coef *= prec.Value
		}
		if len(pairs) == 0 {
			k += coef
			return
		}
		p.Term(coef, pairs...)
	}
	term(-0.5, x, 1)
	for _, u := range coefs {
		term(u.a, x, 0, u.iface, 0)
	}
	term(c, x, 0)
	for i, u := range coefs {
		term(-0.5*u.a*u.a, u.iface, 1)
		for _, v := range coefs[i+1:] {
			term(-u.a*v.a, u.iface, 0, v.iface, 0)
		}
		term(-c*u.a, u.iface, 0)
	}
	term(-0.5 * c * c)
	// ½ ln(sτ) - ½ ln 2π.
	if tau >= 0 {
		p.Term(0.5, tau, 0)
		k += 0.5*math.Log(prec.Scale) - 0.5*math.Log(2*math.Pi)
	} else {
		k += 0.5*math.Log(prec.Value) - 0.5*math.Log(2*math.Pi)
	}
	return k
}

// K returns the number of terms.
func (n *NormalLinear) K() int { return len(n.scales) }

// Scale returns the scale of term k.
func (n *NormalLinear) Scale(k int) float64 { return n.scales[k] }

// TermInterface returns the index of term k's interface, "sum[k]".
func (n *NormalLinear) TermInterface(k int) int { return 1 + k }

// OffsetInterface returns the index of the "offset" interface, or -1 when
// the offset is a literal.
func (n *NormalLinear) OffsetInterface() int { return n.offIf }

// PrecisionInterface returns the index of the "precision" interface, or -1
// when the precision is a literal.
func (n *NormalLinear) PrecisionInterface() int { return n.precIf }

// Offset returns the node's offset.
func (n *NormalLinear) Offset() Mean { return n.offset }

// Precision returns the node's precision.
func (n *NormalLinear) Precision() Precision { return n.prec }

// Label returns the DOT label N(Σ, τ⁻¹) with the number of terms and the
// literals written out: "N(Σ3+b, τ⁻¹)".
func (n *NormalLinear) Label() string {
	mu := "Σ" + strconv.Itoa(len(n.scales))
	switch {
	case n.offset.Variable:
		mu += "+b"
	case n.offset.Value != 0:
		mu += signed(n.offset.Value)
	}
	tau := "τ⁻¹"
	if !n.prec.Variable {
		tau = fmtNum(1 / n.prec.Value)
	}
	return "N(" + mu + ", " + tau + ")"
}

// LabelWith returns the DOT label N(s_0 m_0 + ... + b, τ⁻¹) with the labels
// of the neighbours (in interface order) or the literals; of more than
// four terms the first two and the last are written.
func (n *NormalLinear) LabelWith(neighbours []string) string {
	var sb strings.Builder
	write := func(s float64, name string) {
		switch {
		case sb.Len() == 0 && s == 1:
		case sb.Len() == 0:
			sb.WriteString(fmtNum(s))
		case s == 1:
			sb.WriteString("+")
		case s == -1:
			sb.WriteString("-")
		default:
			sb.WriteString(signed(s))
		}
		sb.WriteString(name)
	}
	k := len(n.scales)
	for j, s := range n.scales {
		if k > 4 && j == 2 {
			sb.WriteString("+…")
			continue
		}
		if k > 4 && j > 2 && j < k-1 {
			continue
		}
		write(s, neighbours[1+j])
	}
	switch {
	case n.offset.Variable:
		write(n.offset.Scale, neighbours[n.offIf])
		if n.offset.Offset != 0 {
			sb.WriteString(signed(n.offset.Offset))
		}
	case n.offset.Value != 0 || sb.Len() == 0:
		if sb.Len() == 0 {
			sb.WriteString(fmtNum(n.offset.Value))
		} else {
			sb.WriteString(signed(n.offset.Value))
		}
	}
	tau := ""
	if n.prec.Variable {
		tau = neighbours[n.precIf] + "⁻¹"
		if n.prec.Scale != 1 {
			tau = "(" + fmtNum(n.prec.Scale) + neighbours[n.precIf] + ")⁻¹"
		}
	} else {
		tau = fmtNum(1 / n.prec.Value)
	}
	return "N(" + sb.String() + ", " + tau + ")"
}

// signed writes x with its sign, "+2" or "-0.5".
func signed(x float64) string {
	if x < 0 {
		return fmtNum(x)
	}
	return "+" + fmtNum(x)
}
