package nodes

import (
	"fmt"
	"math"
	"strconv"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
)

// NormalOut is the output interface of a Normal node and of a NormalMixture.
const NormalOut = 0

// Mean is the mean of a Normal node: a literal number, or Scale·m + Offset
// for a normal variable m bound to the node's "mean" interface (Scale 1 and
// Offset 0 for the plain N(x | m, τ); a literal Scale a and Offset b make the
// linear-Gaussian transition x_t ~ N(a x_(t-1) + b, 1/τ)).
type Mean struct {
	Variable             bool
	Value, Scale, Offset float64
}

// LiteralMean is the mean fixed at m.
func LiteralMean(m float64) Mean { return Mean{Value: m} }

// VariableMean is the mean given by a normal variable.
func VariableMean() Mean { return Mean{Variable: true, Scale: 1} }

// AffineMean is the mean a·m + b of a normal variable m.
func AffineMean(a, b float64) Mean { return Mean{Variable: true, Scale: a, Offset: b} }

// Precision is the precision (1/variance) of a Normal node: a literal
// number > 0, or Scale·τ for a gamma variable τ bound to the node's
// "precision" interface (Scale 1 for the plain N(x | m, 1/τ); the
// Normal-Gamma prior's m ~ N(m_0, 1/(λ_0 τ)) has Scale λ_0).
type Precision struct {
	Variable bool
	Value    float64
	Scale    float64
}

// LiteralPrecision is the precision fixed at tau.
func LiteralPrecision(tau float64) Precision { return Precision{Value: tau} }

// VariablePrecision is the precision given by a gamma variable.
func VariablePrecision() Precision { return Precision{Variable: true, Scale: 1} }

// ScaledPrecision is the precision s·τ of a gamma variable τ (s > 0).
func ScaledPrecision(s float64) Precision { return Precision{Variable: true, Scale: s} }

func (m Mean) check(field string) error {
	if m.Variable {
		for _, f := range []struct {
			name string
			x    float64
		}{{"scale", m.Scale}, {"offset", m.Offset}} {
			if err := expfam.ValidateValue(f.x); err != nil {
				return fmt.Errorf("%s %s: %s", field, f.name, trimExpfam(err))
			}
		}
		return nil
	}
	if err := expfam.ValidateValue(m.Value); err != nil {
		return fmt.Errorf("%s: %s", field, trimExpfam(err))
	}
	return nil
}

func (p Precision) check(field string) error {
	if p.Variable {
		if err := expfam.ValidatePrecision(p.Scale); err != nil {
			return fmt.Errorf("%s scale: %s", field, trimExpfam(err))
		}
		return nil
	}
	if err := expfam.ValidatePrecision(p.Value); err != nil {
		return fmt.Errorf("%s: %s", field, trimExpfam(err))
	}
	return nil
}

func trimExpfam(err error) string {
	s := err.Error()
	const p = "expfam: normal: "
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// addNormalTerms adds to p the terms of
//
//	ln N(x | μ, 1/τ) = ½ ln τ - ½ ln 2π - ½ τ (x - μ)²,
//	(x - μ)² = x² - 2a x m - 2b x + a² m² + 2ab m + b²   (μ = a m + b),
//
// each multiplied by the extra (interface, statistic) pairs (the switch
// state of a mixture). x, m and tau are the interfaces of the output, the
// mean and the precision (-1 when literal). Statistic 0 of a normal is x,
// 1 is x²; of a gamma 0 is ln τ, 1 is τ. It returns the constant of the
// terms that contain no interface at all (when extra is empty).
func addNormalTerms(p *messages.Polynomial, x, m, tau int, mean Mean, prec Precision, extra ...int) float64 {
	c := 0.0
	// The factor τ: the precision interface's statistic τ, or the literal.
	term := func(coef float64, pairs ...int) {
		if coef == 0 {
			return
		}
		pairs = append(pairs, extra...)
		if tau >= 0 {
			pairs = append(pairs, tau, 1)
			coef *= prec.Scale
		} else {
			coef *= prec.Value
		}
		if len(pairs) == 0 {
			c += coef
			return
		}
		p.Term(coef, pairs...)
	}
	term(-0.5, x, 1)
	if mean.Variable {
		a, b := mean.Scale, mean.Offset
		term(a, x, 0, m, 0)
		term(b, x, 0)
		term(-0.5*a*a, m, 1)
		term(-a*b, m, 0)
		term(-0.5 * b * b)
	} else {
		mu := mean.Value
		term(mu, x, 0)
		term(-0.5 * mu * mu)
	}
	// ½ ln(sτ) - ½ ln 2π.
	if tau >= 0 {
		p.Term(0.5, append([]int{tau, 0}, extra...)...)
		if k := 0.5*math.Log(prec.Scale) - 0.5*math.Log(2*math.Pi); len(extra) > 0 {
			p.Term(k, extra...)
		} else {
			c += k
		}
	} else {
		k := 0.5*math.Log(prec.Value) - 0.5*math.Log(2*math.Pi)
		if len(extra) > 0 {
			p.Term(k, extra...)
		} else {
			c += k
		}
	}
	return c
}

// poly is the part shared by the continuous conjugate nodes: interfaces
// and a messages.Polynomial, from which the messages, the average energy
// and the sum-product potential are derived.
type poly struct {
	kind string
	ifs  []messages.Interface
	form *messages.Polynomial
}

// Kind returns the node type.
func (c *poly) Kind() string { return c.kind }

// Interfaces returns the node's interfaces; interface 0 is its output.
func (c *poly) Interfaces() []messages.Interface { return c.ifs }

// Rules names the interfaces the node has message rules for: all of them.
func (c *poly) Rules() []string {
	out := make([]string, len(c.ifs))
	for i, it := range c.ifs {
		out[i] = it.Name
	}
	return out
}

// Message writes the VMP message to interface k, derived from the
// multilinear form (messages.Polynomial.Message).
func (c *poly) Message(dst []float64, k int, stats [][]float64) error {
	if len(stats) != len(c.ifs) {
		return fmt.Errorf("nodes: %s: %d neighbour statistics for %d interfaces", c.kind, len(stats), len(c.ifs))
	}
	if k < 0 || k >= len(c.ifs) {
		return &messages.NoRuleError{Factor: c.kind, Interface: fmt.Sprintf("#%d", k), Rules: c.Rules()}
	}
	c.form.Message(dst, k, stats)
	return nil
}

// AverageEnergy returns E_q[-ln f], minus the form's expectation.
func (c *poly) AverageEnergy(stats [][]float64) float64 {
	return -c.form.ExpectedLog(stats)
}

// Polynomial returns the node's multilinear form in its neighbours'
// sufficient statistics, from which the engine derives its VMP messages
// and, for sum-product, its Gaussian potential.
func (c *poly) Polynomial() *messages.Polynomial { return c.form }

// Normal is the node N(out | μ, 1/τ) with log-density
//
//	ln f = ½ ln τ - ½ ln 2π - ½ τ (out - μ)²,
//
// the mean μ a literal or Scale·m + Offset of a normal variable m, the
// precision τ a literal or Scale·τ of a gamma variable. Its interfaces are "out", then
// "mean" when the mean is a variable, then "precision" when the precision
// is a variable. With both literal it is a Normal prior on out.
//
// ln f is multilinear in (out, out²), (m, m²) and (ln τ, τ), so every
// message is the gradient of E_q[ln f] (messages.Polynomial): to out,
// [E τ E μ, -E τ/2]; to m, [a E τ (E out - b), -a² E τ/2]; to τ,
// [½, -½ E(out - μ)²].
type Normal struct {
	poly
	mean   Mean
	prec   Precision
	meanIf int
	precIf int
}

// NewNormal returns a Normal node. A literal mean must be finite (and at
// most expfam.MaxNormalMagnitude in size), a literal precision finite and
// > 0; the error names the field ("mean", "precision", "mean scale", "mean
// offset").
func NewNormal(mean Mean, prec Precision) (*Normal, error) {
	if err := mean.check("mean"); err != nil {
		return nil, fmt.Errorf("nodes: normal: %w", err)
	}
	if err := prec.check("precision"); err != nil {
		return nil, fmt.Errorf("nodes: normal: %w", err)
	}
	n := &Normal{mean: mean, prec: prec, meanIf: -1, precIf: -1}
	n.kind = "normal"
	n.ifs = []messages.Interface{{Name: "out", Family: expfam.NormalFamily}}
	if mean.Variable {
		n.meanIf = len(n.ifs)
		n.ifs = append(n.ifs, messages.Interface{Name: "mean", Family: expfam.NormalFamily})
	}
	if prec.Variable {
		n.precIf = len(n.ifs)
		n.ifs = append(n.ifs, messages.Interface{Name: "precision", Family: expfam.GammaFamily})
	}
	n.form = messages.NewPolynomial(len(n.ifs))
	n.form.Const = addNormalTerms(n.form, NormalOut, n.meanIf, n.precIf, mean, prec)
	return n, nil
}

// MeanInterface returns the index of the "mean" interface, or -1 when the
// mean is a literal.
func (n *Normal) MeanInterface() int { return n.meanIf }

// PrecisionInterface returns the index of the "precision" interface, or -1
// when the precision is a literal.
func (n *Normal) PrecisionInterface() int { return n.precIf }

// Mean returns the node's mean.
func (n *Normal) Mean() Mean { return n.mean }

// Precision returns the node's precision.
func (n *Normal) Precision() Precision { return n.prec }

// Label returns the DOT label N(μ, 1/τ), with the literals written out.
func (n *Normal) Label() string {
	mu := "μ"
	switch {
	case !n.mean.Variable:
		mu = fmtNum(n.mean.Value)
	case n.mean.Scale != 1 || n.mean.Offset != 0:
		mu = fmtNum(n.mean.Scale) + "·μ"
		if n.mean.Offset != 0 {
			mu += "+" + fmtNum(n.mean.Offset)
		}
	}
	tau := "τ⁻¹"
	if !n.prec.Variable {
		tau = fmtNum(1 / n.prec.Value)
	}
	return "N(" + mu + ", " + tau + ")"
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

// LabelWith returns the DOT label N(μ, τ⁻¹) with the labels of the mean's
// and the precision's variables (neighbours, in interface order) or the
// literals.
func (n *Normal) LabelWith(neighbours []string) string {
	mu := ""
	switch {
	case !n.mean.Variable:
		mu = fmtNum(n.mean.Value)
	default:
		mu = neighbours[n.meanIf]
		if n.mean.Scale != 1 {
			mu = fmtNum(n.mean.Scale) + mu
		}
		if n.mean.Offset != 0 {
			mu += "+" + fmtNum(n.mean.Offset)
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
	return "N(" + mu + ", " + tau + ")"
}

// NormalMixture is the switching Normal y ~ N(m_z, 1/τ_z) selected by a
// categorical z of K states:
//
//	ln f = Σ_k z_k (½ ln τ_k - ½ ln 2π - ½ τ_k (y - m_k)²),
//
// each m_k a literal or a normal variable, each τ_k a literal or a gamma
// variable. Its interfaces are "out" (y), "switch" (z), then the variable
// means "means[k]" in order of k, then the variable precisions
// "precisions[k]". The form is multilinear in z, (y, y²), each (m_k, m_k²)
// and each (ln τ_k, τ_k), so its messages are derived like Normal's: to z,
// the expected log-density of each component; to y, Σ_k E z_k [E τ_k E m_k,
// -E τ_k/2]; to m_k and τ_k, Normal's messages weighted by E z_k.
type NormalMixture struct {
	poly
	k int
}

// NormalSwitch is the switch interface of a NormalMixture.
const NormalSwitch = 1

// NewNormalMixture returns the mixture of len(means) components; precisions
// must have as many entries (K >= 1). Literal means and precisions are
// checked as by NewNormal; a mean must be a plain variable or a literal
// (no scale or offset). Errors name the entry ("means[1]").
func NewNormalMixture(means []Mean, precisions []Precision) (*NormalMixture, error) {
	return NewNormalMixtureShared(means, nil, precisions, nil)
}

// NewNormalMixtureShared is NewNormalMixture where components may share a
// variable: meanVar[j] numbers the variable of component j's mean (0, 1,
// ... in order of first use; ignored for a literal mean), precVar[j] that
// of its precision, so that a tied precision is one "precisions[j]"
// interface used by every component that shares it. A nil meanVar or
// precVar gives every variable its own interface. The interfaces are
// "out", "switch", then one per distinct mean variable, named after the
// first component that uses it, then one per distinct precision variable.
func NewNormalMixtureShared(means []Mean, meanVar []int, precisions []Precision, precVar []int) (*NormalMixture, error) {
	k := len(means)
	if k < 1 {
		return nil, fmt.Errorf("nodes: normal-mixture: no components, want at least one mean")
	}
	if len(precisions) != k {
		return nil, fmt.Errorf("nodes: normal-mixture: %d means and %d precisions, want one of each per component", k, len(precisions))
	}
	m := &NormalMixture{k: k}
	m.kind = "normal-mixture"
	m.ifs = []messages.Interface{
		{Name: "out", Family: expfam.NormalFamily},
		{Name: "switch", Family: expfam.CategoricalFamily, Shape: []int{k}},
	}
	if (meanVar != nil && len(meanVar) != k) || (precVar != nil && len(precVar) != k) {
		return nil, fmt.Errorf("nodes: normal-mixture: %d means with %d variable numbers and %d precisions with %d, want one per component", k, len(meanVar), len(precisions), len(precVar))
	}
	// bind gives component j's variable number v an interface, shared by
	// the components with the same number.
	bind := func(seen map[int]int, nums []int, j int, name string, fam expfam.Family) (int, error) {
		v := j
		if nums != nil {
			v = nums[j]
		}
		if i, ok := seen[v]; ok {
			if m.ifs[i].Family != fam {
				return 0, fmt.Errorf("nodes: normal-mixture: %s: variable number %d is already a %s", name, v, m.ifs[i].Family)
			}
			return i, nil
		}
		seen[v] = len(m.ifs)
		m.ifs = append(m.ifs, messages.Interface{Name: name, Family: fam})
		return seen[v], nil
	}
	meanIf := make([]int, k)
	precIf := make([]int, k)
	seenMean, seenPrec := map[int]int{}, map[int]int{}
	for j, mu := range means {
		field := "means[" + strconv.Itoa(j) + "]"
		if err := mu.check(field); err != nil {
			return nil, fmt.Errorf("nodes: normal-mixture: %w", err)
		}
		if mu.Variable && (mu.Scale != 1 || mu.Offset != 0) {
			return nil, fmt.Errorf("nodes: normal-mixture: %s: a mixture mean is a variable or a number (no scale or offset)", field)
		}
		meanIf[j] = -1
		if mu.Variable {
			var err error
			if meanIf[j], err = bind(seenMean, meanVar, j, field, expfam.NormalFamily); err != nil {
				return nil, err
			}
		}
	}
	for j, p := range precisions {
		field := "precisions[" + strconv.Itoa(j) + "]"
		if err := p.check(field); err != nil {
			return nil, fmt.Errorf("nodes: normal-mixture: %w", err)
		}
		precIf[j] = -1
		if p.Variable {
			var err error
			if precIf[j], err = bind(seenPrec, precVar, j, field, expfam.GammaFamily); err != nil {
				return nil, err
			}
		}
	}
	m.form = messages.NewPolynomial(len(m.ifs))
	for j := range k {
		addNormalTerms(m.form, NormalOut, meanIf[j], precIf[j], means[j], precisions[j], NormalSwitch, j)
	}
	return m, nil
}

// K returns the number of components.
func (m *NormalMixture) K() int { return m.k }

// Label returns the DOT label, "NM" followed by K.
func (m *NormalMixture) Label() string { return "NM" + strconv.Itoa(m.k) }

// LabelWith returns the DOT label N(μ_z, τ_z⁻¹) with the switch's label
// (neighbours in interface order).
func (m *NormalMixture) LabelWith(neighbours []string) string {
	z := neighbours[NormalSwitch]
	return "N(μ[" + z + "], τ[" + z + "]⁻¹)"
}
