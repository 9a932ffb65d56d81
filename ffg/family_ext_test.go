package ffg_test

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/messages"
	"github.com/arbor-ai/arbor/schedule"
)

// The Beta family, declared from outside the module's packages: T(p) =
// [ln p, ln(1-p)], η = [a-1, b-1], A(η) = ln B(a, b), E[T] =
// [ψ(a) - ψ(a+b), ψ(b) - ψ(a+b)]; param = [a, b].
type betaDecl struct{}

func (betaDecl) Name() string { return "test-beta" }
func (betaDecl) Layout(shape []int) ([]int, int, int, error) {
	return nil, 2, 2, nil
}
func (betaDecl) Default(param, stats []float64, _ []int) {
	param[0], param[1] = 1, 1
	betaStats(stats, 1, 1)
}
func (betaDecl) FromNatural(param, stats, nat []float64, _ []int) error {
	a, b := nat[0]+1, nat[1]+1
	if !(a > 0 && b > 0) || math.IsInf(a+b, 0) {
		return errBadBeta
	}
	param[0], param[1] = a, b
	betaStats(stats, a, b)
	return nil
}
func (betaDecl) Entropy(param, _ []float64, _ []int) float64 {
	a, b := param[0], param[1]
	return lbeta(a, b) - (a-1)*mathext.Digamma(a) - (b-1)*mathext.Digamma(b) + (a+b-2)*mathext.Digamma(a+b)
}
func (betaDecl) StartsAtPrior() bool { return true }

type betaError struct{}

func (betaError) Error() string { return "not a beta" }

var errBadBeta = betaError{}

func betaStats(dst []float64, a, b float64) {
	s := mathext.Digamma(a + b)
	dst[0], dst[1] = mathext.Digamma(a)-s, mathext.Digamma(b)-s
}

func lbeta(a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return la + lb - lab
}

// betaPrior is the factor Beta(p; a, b): ln f = (a-1) ln p + (b-1) ln(1-p) - ln B(a, b).
type betaPrior struct {
	fam  expfam.Family
	a, b float64
}

func (f *betaPrior) Kind() string { return "beta" }
func (f *betaPrior) Interfaces() []messages.Interface {
	return []messages.Interface{{Name: "out", Family: f.fam}}
}
func (f *betaPrior) AverageEnergy(stats [][]float64) float64 {
	return -((f.a-1)*stats[0][0] + (f.b-1)*stats[0][1] - lbeta(f.a, f.b))
}
func (f *betaPrior) Message(dst []float64, k int, stats [][]float64) error {
	dst[0], dst[1] = f.a-1, f.b-1
	return nil
}

// bernoulli is P(y | p) = p^y (1-p)^(1-y) with y a categorical of 2 states:
// ln f = y_1 ln p + y_0 ln(1-p).
type bernoulli struct{ fam expfam.Family }

func (f *bernoulli) Kind() string { return "bernoulli" }
func (f *bernoulli) Interfaces() []messages.Interface {
	return []messages.Interface{{Name: "out", Family: expfam.CategoricalFamily, Shape: []int{2}}, {Name: "p", Family: f.fam}}
}
func (f *bernoulli) AverageEnergy(stats [][]float64) float64 {
	y, lp := stats[0], stats[1]
	return -(y[1]*lp[0] + y[0]*lp[1])
}
func (f *bernoulli) Message(dst []float64, k int, stats [][]float64) error {
	y, lp := stats[0], stats[1]
	if k == 0 {
		dst[0], dst[1] = lp[1], lp[0]
	} else {
		dst[0], dst[1] = y[1], y[0]
	}
	return nil
}

// TestDeclaredFamily declares the Beta family from a _test package and
// runs VMP on a Beta-Bernoulli model with it. With every y observed the
// posterior is the conjugate Beta(a + heads, b + tails) and F equals
// -ln p(y) = -ln B(a + heads, b + tails) + ln B(a, b), exactly; with one y
// hidden as well, the fixed point satisfies the mean-field equations
// q(p) = Beta(a + heads + E y, b + tails + 1 - E y), q(y=1) ∝ exp E[ln p],
// (to 1e-8: the run stops when F moves by less than 1e-14, and F is flat
// to second order at the fixed point) and F stays above -ln p(observed y)
// (the hidden y sums out to 1).
func TestDeclaredFamily(t *testing.T) {
	fam, err := expfam.Declare(betaDecl{})
	if err != nil {
		t.Fatal(err)
	}
	if fam.String() != "test-beta" {
		t.Errorf("String = %q", fam.String())
	}
	if f, err := expfam.ParseFamily("test-beta"); err != nil || f != fam {
		t.Errorf("ParseFamily = %v, %v", f, err)
	}
	if _, err := expfam.Declare(betaDecl{}); err == nil {
		t.Error("declaring the same name twice: no error")
	}
	const a, b = 2.0, 3.0
	ys := []int{1, 1, 0, 1, 1, 0, 1} // 5 heads, 2 tails
	for _, hidden := range []bool{false, true} {
		g := ffg.New()
		p, err := g.AddVariable("p", fam)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.AddFactor("prior", &betaPrior{fam: fam, a: a, b: b}, p); err != nil {
			t.Fatal(err)
		}
		for _, yv := range ys {
			y, _ := g.AddVariable("", expfam.CategoricalFamily, 2)
			if err := y.Observe(yv); err != nil {
				t.Fatal(err)
			}
			if _, err := g.AddFactor("", &bernoulli{fam: fam}, y, p); err != nil {
				t.Fatal(err)
			}
		}
		var yh *ffg.Variable
		if hidden {
			yh, _ = g.AddVariable("yh", expfam.CategoricalFamily, 2)
			if _, err := g.AddFactor("", &bernoulli{fam: fam}, yh, p); err != nil {
				t.Fatal(err)
			}
		}
		res, err := schedule.Run(context.Background(), g, &schedule.Settings{Iterations: 500, Tolerance: 1e-14})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Increases) != 0 {
			t.Errorf("hidden=%v: F rose: %v", hidden, res.Increases)
		}
		logEvidence := lbeta(a+5, b+2) - lbeta(a, b)
		F := res.FreeEnergy[len(res.FreeEnergy)-1]
		ab := p.Params()
		if !hidden {
			if math.Abs(ab[0]-(a+5)) > 1e-12 || math.Abs(ab[1]-(b+2)) > 1e-12 {
				t.Errorf("posterior Beta(%v, %v), want Beta(%v, %v)", ab[0], ab[1], a+5, b+2)
			}
			if math.Abs(F+logEvidence) > 1e-12 {
				t.Errorf("F = %.15g, want -ln p(y) = %.15g", F, -logEvidence)
			}
			continue
		}
		ey := yh.Probs()[1]
		if math.Abs(ab[0]-(a+5+ey)) > 1e-8 || math.Abs(ab[1]-(b+2+1-ey)) > 1e-8 {
			t.Errorf("q(p) = Beta(%v, %v), want Beta(%v, %v)", ab[0], ab[1], a+5+ey, b+3-ey)
		}
		s := p.Stats()
		want := math.Exp(s[0]) / (math.Exp(s[0]) + math.Exp(s[1]))
		if math.Abs(ey-want) > 1e-8 {
			t.Errorf("q(y=1) = %v, want %v", ey, want)
		}
		if !(F >= -logEvidence-1e-12) {
			t.Errorf("F = %v below -ln p(y) = %v", F, -logEvidence)
		}
	}
}
