package expfam

import (
	"fmt"
	"math"
)

// Gamma is the distribution with shape a = Shape and rate b = Rate, density
//
//	p(g) = b^a g^(a-1) e^(-b g) / Γ(a),  g > 0.
//
// Its sufficient statistics are T(g) = [ln g, g], its natural parameters
// [a - 1, -b], its log-normaliser ln Γ(a) - a ln b and its expected
// statistics [ψ(a) - ln b, a/b]. The methods do not check the parameters; see
// Validate.
type Gamma struct {
	Shape, Rate float64
}

// Validate returns an error unless the shape and the rate are finite and > 0.
// The error names the field.
func (g Gamma) Validate() error {
	if err := positive("shape", g.Shape); err != nil {
		return err
	}
	return positive("rate", g.Rate)
}

func positive(field string, x float64) error {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Errorf("expfam: gamma: %s is %g, want a finite number > 0", field, x)
	case x <= 0:
		return fmt.Errorf("expfam: gamma: %s is %g, want > 0", field, x)
	}
	return nil
}

// GammaFromNatural returns the Gamma with natural parameters eta = [a-1, -b].
// It returns an error if len(eta) != 2 or the resulting shape or rate is not
// finite and > 0.
func GammaFromNatural(eta []float64) (Gamma, error) {
	if len(eta) != 2 {
		return Gamma{}, fmt.Errorf("expfam: gamma: %d natural parameters, want 2", len(eta))
	}
	g := Gamma{Shape: eta[0] + 1, Rate: 0 - eta[1]} // 0 - x: no -0 in messages
	if err := g.Validate(); err != nil {
		return Gamma{}, fmt.Errorf("%w (natural parameters [%g %g])", err, eta[0], eta[1])
	}
	return g, nil
}

// Natural writes the natural parameters [a - 1, -b] into dst and returns dst;
// it allocates when dst is nil and panics if len(dst) != 2.
func (g Gamma) Natural(dst []float64) []float64 {
	dst = makeDst(dst, 2, "Gamma.Natural")
	dst[0], dst[1] = g.Shape-1, -g.Rate
	return dst
}

// ExpectedStats writes the expected sufficient statistics
// [E ln g, E g] = [ψ(a) - ln b, a/b] into dst and returns dst; it allocates
// when dst is nil and panics if len(dst) != 2.
func (g Gamma) ExpectedStats(dst []float64) []float64 {
	dst = makeDst(dst, 2, "Gamma.ExpectedStats")
	dst[0], dst[1] = g.ExpectedLog(), g.Mean()
	return dst
}

// Mean returns E[g] = a/b.
func (g Gamma) Mean() float64 { return g.Shape / g.Rate }

// ExpectedLog returns E[ln g] = ψ(a) - ln b.
func (g Gamma) ExpectedLog() float64 { return digamma(g.Shape) - math.Log(g.Rate) }

// LogNormalizer returns ln Γ(a) - a ln b.
func (g Gamma) LogNormalizer() float64 { return lgamma(g.Shape) - g.Shape*math.Log(g.Rate) }

// Entropy returns a - ln b + ln Γ(a) + (1 - a) ψ(a), which is A(η) - η·E[T].
func (g Gamma) Entropy() float64 {
	a := g.Shape
	return a - math.Log(g.Rate) + lgamma(a) + (1-a)*digamma(a)
}

// KL returns KL(g || q) for g = (a, b), q = (c, d):
//
//	(a - c) ψ(a) - ln Γ(a) + ln Γ(c) + c ln(b/d) + a (d - b)/b,
//
// evaluated as D(a, c) + (a - c) r + c (r - ln(1 + r)) with r = (d - b)/b and
// D(a, c) = ln Γ(c) - ln Γ(a) - (c - a) ψ(a), which keeps its accuracy when q
// is close to g and the shapes are large.
func (g Gamma) KL(q Gamma) float64 {
	a, b, c, d := g.Shape, g.Rate, q.Shape, q.Rate
	r := (d - b) / b
	return lgammaBregman(a, c, digamma(a)) + (a-c)*r + c*(r-math.Log1p(r))
}
