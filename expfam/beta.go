package expfam

import (
	"fmt"
	"math"
)

// Beta is the distribution on (0, 1) with shapes a = A and b = B, density
//
//	p(x) = x^(a-1) (1-x)^(b-1) / B(a, b).
//
// Its sufficient statistics are T(x) = [ln x, ln(1-x)], its natural
// parameters [a - 1, b - 1], its log-normaliser ln B(a, b) = ln Γ(a) +
// ln Γ(b) - ln Γ(a+b) and its expected statistics [ψ(a) - ψ(a+b),
// ψ(b) - ψ(a+b)]. It is the two-outcome Dirichlet written over the
// probability of success, the conjugate prior of a Bernoulli. The methods
// do not check the parameters; see Validate.
type Beta struct {
	A, B float64
}

// Validate returns an error unless a and b are finite and > 0. The error
// names the field.
func (b Beta) Validate() error {
	for _, f := range []struct {
		name string
		x    float64
	}{{"a", b.A}, {"b", b.B}} {
		if math.IsNaN(f.x) || math.IsInf(f.x, 0) || !(f.x > 0) {
			return fmt.Errorf("expfam: beta: %s is %g, want a finite number > 0", f.name, f.x)
		}
	}
	return nil
}

// BetaFromNatural returns the Beta with natural parameters [a-1, b-1], or
// an error when a shape is not finite and > 0.
func BetaFromNatural(eta []float64) (Beta, error) {
	if len(eta) != 2 {
		return Beta{}, fmt.Errorf("expfam: beta: %d natural parameters, want 2", len(eta))
	}
	b := Beta{A: eta[0] + 1, B: eta[1] + 1}
	if err := b.Validate(); err != nil {
		return Beta{}, fmt.Errorf("%w (natural parameters [%g %g])", err, eta[0], eta[1])
	}
	return b, nil
}

// Mean returns E[x] = a/(a+b).
func (b Beta) Mean() float64 { return b.A / (b.A + b.B) }

// ExpectedStats writes [ψ(a) - ψ(a+b), ψ(b) - ψ(a+b)] into dst and returns
// dst; it allocates when dst is nil and panics if len(dst) != 2.
func (b Beta) ExpectedStats(dst []float64) []float64 {
	dst = makeDst(dst, 2, "Beta.ExpectedStats")
	s := digamma(b.A + b.B)
	dst[0], dst[1] = digamma(b.A)-s, digamma(b.B)-s
	return dst
}

// LogNormalizer returns ln B(a, b).
func (b Beta) LogNormalizer() float64 { return lgamma(b.A) + lgamma(b.B) - lgamma(b.A+b.B) }

// Entropy returns ln B(a, b) - (a-1) ψ(a) - (b-1) ψ(b) + (a+b-2) ψ(a+b),
// which is A(η) - η·E[T].
func (b Beta) Entropy() float64 {
	return b.LogNormalizer() - (b.A-1)*digamma(b.A) - (b.B-1)*digamma(b.B) + (b.A+b.B-2)*digamma(b.A+b.B)
}

type betaDecl struct{}

func (betaDecl) Name() string { return "beta" }

func (betaDecl) Layout(shape []int) ([]int, int, int, error) {
	if len(shape) != 0 && !(len(shape) == 1 && shape[0] == 1) {
		return nil, 0, 0, fmt.Errorf("beta variables are scalar, got shape %v", shape)
	}
	return nil, 2, 2, nil
}

// Default is Beta(1, 1), the uniform distribution.
func (betaDecl) Default(param, stats []float64, _ []int) {
	param[0], param[1] = 1, 1
	Beta{A: 1, B: 1}.ExpectedStats(stats)
}

func (betaDecl) FromNatural(param, stats, nat []float64, _ []int) error {
	b, err := BetaFromNatural(nat)
	if err != nil {
		return err
	}
	param[0], param[1] = b.A, b.B
	b.ExpectedStats(stats)
	return nil
}

func (betaDecl) Entropy(param, _ []float64, _ []int) float64 {
	return Beta{A: param[0], B: param[1]}.Entropy()
}

func (betaDecl) StartsAtPrior() bool { return true }

// ObservedStats observes a probability x in (0, 1): T(x) = [ln x, ln(1-x)].
func (betaDecl) ObservedStats(stats []float64, x float64) error {
	if !(x > 0 && x < 1) {
		return fmt.Errorf("expfam: beta: value %g, want a number in (0, 1)", x)
	}
	stats[0], stats[1] = math.Log(x), math.Log1p(-x)
	return nil
}
