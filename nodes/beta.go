package nodes

import (
	"fmt"
	"math"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
)

// Beta is a fixed Beta prior B(p | a, b) with log-density
//
//	ln f = (a-1) ln p + (b-1) ln(1-p) - ln B(a, b),
//
// linear in the statistics (ln p, ln(1-p)) of its one interface "out"; its
// message is [a-1, b-1].
type Beta struct {
	poly
	prior expfam.Beta
}

// NewBeta returns the prior Beta(a, b); a and b must be finite and > 0.
// The error names the field ("a", "b").
func NewBeta(a, b float64) (*Beta, error) {
	pr := expfam.Beta{A: a, B: b}
	if err := pr.Validate(); err != nil {
		return nil, fmt.Errorf("nodes: beta: %s", strings.TrimPrefix(err.Error(), "expfam: beta: "))
	}
	n := &Beta{prior: pr}
	n.kind = "beta"
	n.ifs = []messages.Interface{{Name: "out", Family: expfam.BetaFamily}}
	n.form = messages.NewPolynomial(1)
	n.form.Term(a-1, 0, 0).Term(b-1, 0, 1)
	n.form.Const = -pr.LogNormalizer()
	return n, nil
}

// Prior returns the prior's parameters.
func (b *Beta) Prior() expfam.Beta { return b.prior }

// Label returns the DOT label Beta(a, b).
func (b *Beta) Label() string { return "Beta(" + fmtNum(b.prior.A) + ", " + fmtNum(b.prior.B) + ")" }

// Bernoulli is the node P(out | p) over a categorical variable of two
// outcomes (index 1 is success) with the probability of success p a
// literal in (0, 1) or a beta variable on the interface "p":
//
//	ln f = out₁ ln p + out₀ ln(1-p),
//
// multilinear in the one-hot out and (ln p, ln(1-p)): the message to out
// is [E ln(1-p), E ln p] and to p the counts [out₁, out₀], which summed
// with a Beta(a, b) prior give Beta(a + successes, b + failures).
type Bernoulli struct {
	poly
	p float64 // the literal p; NaN when p is a variable
}

// NewBernoulli returns the node with the literal probability of success
// p (in (0, 1)); NewBernoulliBeta the one whose p is a beta variable.
func NewBernoulli(p float64) (*Bernoulli, error) {
	if !(p > 0 && p < 1) {
		return nil, fmt.Errorf("nodes: bernoulli: p is %g, want a number in (0, 1) (a certain outcome is an observation)", p)
	}
	n := &Bernoulli{p: p}
	n.kind = "bernoulli"
	n.ifs = []messages.Interface{{Name: "out", Family: expfam.CategoricalFamily, Shape: []int{2}}}
	n.form = messages.NewPolynomial(1)
	n.form.Term(math.Log1p(-p), 0, 0).Term(math.Log(p), 0, 1)
	return n, nil
}

// NewBernoulliBeta returns the Bernoulli node whose probability of
// success is a beta variable (interface 1, "p").
func NewBernoulliBeta() *Bernoulli {
	n := &Bernoulli{p: math.NaN()}
	n.kind = "bernoulli"
	n.ifs = []messages.Interface{
		{Name: "out", Family: expfam.CategoricalFamily, Shape: []int{2}},
		{Name: "p", Family: expfam.BetaFamily},
	}
	n.form = messages.NewPolynomial(2)
	n.form.Term(1, 0, 1, 1, 0).Term(1, 0, 0, 1, 1)
	return n
}

// Label returns the DOT label Ber(p).
func (b *Bernoulli) Label() string {
	if math.IsNaN(b.p) {
		return "Ber(p)"
	}
	return "Ber(" + fmtNum(b.p) + ")"
}

// NormalDot is the univariate Normal whose mean is a dot product with an
// mvnormal variable w of dimension K,
//
//	out ~ N(cᵀw + b, 1/τ),
//
// c a literal vector, the offset b a literal or a normal variable, the
// precision τ a literal or s·τ of a gamma variable: the likelihood of a
// Bayesian linear regression with a weight vector w and covariates c.
// Its interfaces are "out", "weights", then "offset" when the offset is a
// variable, then "precision" when the precision is a variable. With
// r = out - cᵀw - b,
//
//	ln f = ½ ln τ - ½ ln 2π - ½ τ r²,
//
// is multilinear in (out, out²), (w, w wᵀ), the offset's (v, v²) and
// (ln τ, τ); the message to w is [E τ c (E out - E b), -E τ c cᵀ/2].
type NormalDot struct {
	poly
	with   []float64
	offset Mean
	prec   Precision
}

// NewNormalDot returns the node; with has K >= 1 finite entries, offset is
// LiteralMean(b) or VariableMean(), prec as for NewNormal. The error names
// the field ("with", "offset", "precision").
func NewNormalDot(with []float64, offset Mean, prec Precision) (*NormalDot, error) {
	k := len(with)
	if k < 1 || k > expfam.MaxMvDim {
		return nil, fmt.Errorf("nodes: normal: dot with a vector of %d entries, want 1 to %d", k, expfam.MaxMvDim)
	}
	if err := expfam.ValidateVector(with); err != nil {
		return nil, fmt.Errorf("nodes: normal: dot with: %w", err)
	}
	if err := offset.check("offset"); err != nil {
		return nil, fmt.Errorf("nodes: normal: %w", err)
	}
	if offset.Variable && (offset.Scale != 1 || offset.Offset != 0) {
		return nil, fmt.Errorf("nodes: normal: offset: a variable offset takes no scale or offset")
	}
	if err := prec.check("precision"); err != nil {
		return nil, fmt.Errorf("nodes: normal: %w", err)
	}
	n := &NormalDot{with: append([]float64(nil), with...), offset: offset, prec: prec}
	n.kind = "normal"
	n.ifs = []messages.Interface{
		{Name: "out", Family: expfam.NormalFamily},
		{Name: "weights", Family: expfam.MvNormalFamily, Shape: []int{k}},
	}
	r := []aterm{{1, lin{0, 0}}}
	for j, c := range with {
		if c != 0 {
			r = append(r, aterm{-c, lin{1, j}})
		}
	}
	if offset.Variable {
		r = append(r, aterm{-1, lin{len(n.ifs), 0}})
		n.ifs = append(n.ifs, messages.Interface{Name: "offset", Family: expfam.NormalFamily})
	} else if offset.Value != 0 {
		r = append(r, aterm{-offset.Value, lin{-1, 0}})
	}
	q := newQuadForm(nil)
	if prec.Variable {
		t := len(n.ifs)
		n.ifs = append(n.ifs, messages.Interface{Name: "precision", Family: expfam.GammaFamily})
		q.ifs = n.ifs
		q.quad(-0.5*prec.Scale, r, r, []int{t, 1})
		q.add(0.5, t, 0)
		q.add(0.5 * math.Log(prec.Scale))
	} else {
		q.ifs = n.ifs
		q.quad(-0.5*prec.Value, r, r, nil)
		q.add(0.5 * math.Log(prec.Value))
	}
	q.add(-0.5 * math.Log(2*math.Pi))
	n.form = q.polynomial()
	return n, nil
}

// With returns the covariates c. The slice must not be modified.
func (n *NormalDot) With() []float64 { return n.with }

// Label returns the DOT label N(cᵀw + b, τ⁻¹).
func (n *NormalDot) Label() string { return "N(cᵀw+b, τ⁻¹)" }

// LabelWith returns the DOT label Beta(a, b) (the prior's numbers).
func (b *Beta) LabelWith([]string) string { return b.Label() }

// LabelWith returns the DOT label Ber(p) with the label of the variable
// p (neighbours in interface order) or the literal.
func (b *Bernoulli) LabelWith(neighbours []string) string {
	if math.IsNaN(b.p) {
		return "Ber(" + neighbours[1] + ")"
	}
	return b.Label()
}

// LabelWith returns the DOT label N(cᵀw + b, τ⁻¹) with the labels of the
// weights', the offset's and the precision's variables.
func (n *NormalDot) LabelWith(neighbours []string) string {
	mu := "cᵀ" + neighbours[1]
	i := 2
	switch {
	case n.offset.Variable:
		mu += "+" + neighbours[i]
		i++
	case n.offset.Value != 0:
		mu += "+" + fmtNum(n.offset.Value)
	}
	tau := fmtNum(1 / n.prec.Value)
	if n.prec.Variable {
		tau = neighbours[i] + "⁻¹"
	}
	return "N(" + mu + ", " + tau + ")"
}
