package expfam

import (
	"fmt"
	"math"
)

// Normal is the univariate Normal (Gaussian) distribution with mean m = Mean
// and variance v = Var (precision τ = 1/v), density
//
//	p(x) = (2πv)^(-1/2) exp(-(x - m)²/(2v)).
//
// Its sufficient statistics are T(x) = [x, x²], its natural parameters
// [τm, -τ/2], its log-normaliser A(η) = τm²/2 - ½ ln τ + ½ ln 2π (with
// base measure 1) and its expected statistics [m, m² + v]. The methods do
// not check the parameters; see Validate.
type Normal struct {
	Mean, Var float64
}

// MaxNormalMagnitude bounds the numbers a Normal accepts: |mean| and
// variance at most 1e150, and variance at least 1e-150, so that the
// statistics x² and the precision stay finite in every sum the engine
// forms.
const MaxNormalMagnitude = 1e150

// Validate returns an error unless the mean is finite with |mean| <=
// MaxNormalMagnitude and the variance is finite, > 0 and within
// [1/MaxNormalMagnitude, MaxNormalMagnitude]. The error names the field.
func (n Normal) Validate() error {
	if err := normalMean(n.Mean); err != nil {
		return err
	}
	return normalVariance("variance", n.Var)
}

func normalMean(m float64) error {
	switch {
	case math.IsNaN(m) || math.IsInf(m, 0):
		return fmt.Errorf("expfam: normal: mean is %g, want a finite number", m)
	case math.Abs(m) > MaxNormalMagnitude:
		return fmt.Errorf("expfam: normal: mean is %g, want |mean| <= %g", m, MaxNormalMagnitude)
	}
	return nil
}

func normalVariance(field string, v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("expfam: normal: %s is %g, want a finite number > 0", field, v)
	case v <= 0:
		return fmt.Errorf("expfam: normal: %s is %g, want > 0", field, v)
	case v < 1/MaxNormalMagnitude || v > MaxNormalMagnitude:
		return fmt.Errorf("expfam: normal: %s is %g, want it in [%g, %g]", field, v, 1/MaxNormalMagnitude, MaxNormalMagnitude)
	}
	return nil
}

// ValidatePrecision returns an error unless tau is a precision a Normal
// accepts (finite, > 0, and 1/tau a valid variance). The error calls it
// "precision".
func ValidatePrecision(tau float64) error {
	if err := normalVariance("precision", tau); err != nil {
		return err
	}
	return nil
}

// ValidateValue returns an error unless x is a value a Normal variable can
// be observed at: finite with |x| <= MaxNormalMagnitude.
func ValidateValue(x float64) error {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Errorf("expfam: normal: value %g, want a finite number", x)
	case math.Abs(x) > MaxNormalMagnitude:
		return fmt.Errorf("expfam: normal: value %g, want |x| <= %g", x, MaxNormalMagnitude)
	}
	return nil
}

// NormalFromNatural returns the Normal with natural parameters
// eta = [τm, -τ/2]. It returns an error if len(eta) != 2 or the result does
// not pass Validate.
func NormalFromNatural(eta []float64) (Normal, error) {
	if len(eta) != 2 {
		return Normal{}, fmt.Errorf("expfam: normal: %d natural parameters, want 2", len(eta))
	}
	tau := -2 * eta[1]
	n := Normal{Mean: eta[0] / tau, Var: 1 / tau}
	if !(tau > 0) || math.IsInf(tau, 0) {
		return Normal{}, fmt.Errorf("expfam: normal: precision %g from natural parameters [%g %g], want a finite number > 0", tau, eta[0], eta[1])
	}
	if err := n.Validate(); err != nil {
		return Normal{}, fmt.Errorf("%w (natural parameters [%g %g])", err, eta[0], eta[1])
	}
	return n, nil
}

// Natural writes the natural parameters [m/v, -1/(2v)] into dst and returns
// dst; it allocates when dst is nil and panics if len(dst) != 2.
func (n Normal) Natural(dst []float64) []float64 {
	dst = makeDst(dst, 2, "Normal.Natural")
	dst[0], dst[1] = n.Mean/n.Var, -0.5/n.Var
	return dst
}

// ExpectedStats writes [E x, E x²] = [m, m² + v] into dst and returns dst; it
// allocates when dst is nil and panics if len(dst) != 2.
func (n Normal) ExpectedStats(dst []float64) []float64 {
	dst = makeDst(dst, 2, "Normal.ExpectedStats")
	dst[0], dst[1] = n.Mean, n.Mean*n.Mean+n.Var
	return dst
}

// LogNormalizer returns A(η) = m²/(2v) + ½ ln(2πv).
func (n Normal) LogNormalizer() float64 {
	return n.Mean*n.Mean/(2*n.Var) + 0.5*math.Log(2*math.Pi*n.Var)
}

// Entropy returns ½ ln(2πe v), which is A(η) - η·E[T].
func (n Normal) Entropy() float64 { return 0.5 * math.Log(2*math.Pi*math.E*n.Var) }

// LogProb returns ln p(x).
func (n Normal) LogProb(x float64) float64 {
	d := x - n.Mean
	return -0.5*math.Log(2*math.Pi*n.Var) - d*d/(2*n.Var)
}

// KL returns KL(n || q) = ½ (ln(v_q/v_n) + (v_n + (m_n - m_q)²)/v_q - 1).
func (n Normal) KL(q Normal) float64 {
	d := n.Mean - q.Mean
	r := n.Var / q.Var
	return 0.5 * (r - 1 - math.Log(r) + d*d/q.Var)
}

type normalDecl struct{}

func (normalDecl) Name() string { return "normal" }

func (normalDecl) Layout(shape []int) ([]int, int, int, error) {
	if len(shape) != 0 && !(len(shape) == 1 && shape[0] == 1) {
		return nil, 0, 0, fmt.Errorf("normal variables are scalar (univariate), got shape %v", shape)
	}
	return nil, 2, 2, nil
}

func (normalDecl) Default(param, stats []float64, _ []int) {
	param[0], param[1] = 0, 1
	stats[0], stats[1] = 0, 1
}

func (normalDecl) FromNatural(param, stats, nat []float64, _ []int) error {
	n, err := NormalFromNatural(nat)
	if err != nil {
		return err
	}
	param[0], param[1] = n.Mean, n.Var
	n.ExpectedStats(stats)
	return nil
}

func (normalDecl) Entropy(param, _ []float64, _ []int) float64 {
	return Normal{Mean: param[0], Var: param[1]}.Entropy()
}

func (normalDecl) StartsAtPrior() bool { return true }

func (normalDecl) ObservedStats(stats []float64, x float64) error {
	if err := ValidateValue(x); err != nil {
		return err
	}
	stats[0], stats[1] = x, x*x
	return nil
}
