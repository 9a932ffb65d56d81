package nodes_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/nodes/nodetest"
)

// randStats returns expected statistics for each interface of a node:
// [m, m² + v] of a random Normal, [ψ(a) - ln b, a/b] of a random gamma, a
// random distribution for a categorical.
func randStats(rng *rand.Rand, f nodetest.Factor) [][]float64 {
	var out [][]float64
	for _, it := range f.Interfaces() {
		switch it.Family {
		case expfam.NormalFamily:
			out = append(out, expfam.Normal{Mean: 4*rng.Float64() - 2, Var: 0.1 + rng.Float64()}.ExpectedStats(nil))
		case expfam.GammaFamily:
			out = append(out, expfam.Gamma{Shape: 0.5 + 3*rng.Float64(), Rate: 0.5 + rng.Float64()}.ExpectedStats(nil))
		case expfam.CategoricalFamily:
			out = append(out, randDist(rng, it.Shape[0]))
		}
	}
	return out
}

// TestNormalMessagesAreGradients runs nodetest on every edge of the Normal
// node in each of its forms (variable or literal mean, affine mean,
// variable or literal precision) and of the mixture with variable and
// literal components: each message equals the finite-difference gradient
// of E_q[ln f] with respect to the receiving neighbour's statistics.
func TestNormalMessagesAreGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var fs []nodetest.Factor
	for _, mean := range []nodes.Mean{nodes.LiteralMean(0.7), nodes.VariableMean(), nodes.AffineMean(0.9, -0.4)} {
		for _, prec := range []nodes.Precision{nodes.LiteralPrecision(2.5), nodes.VariablePrecision(), nodes.ScaledPrecision(0.3)} {
			n, err := nodes.NewNormal(mean, prec)
			if err != nil {
				t.Fatal(err)
			}
			fs = append(fs, n)
		}
	}
	mix, err := nodes.NewNormalMixture(
		[]nodes.Mean{nodes.VariableMean(), nodes.LiteralMean(-1), nodes.VariableMean()},
		[]nodes.Precision{nodes.VariablePrecision(), nodes.VariablePrecision(), nodes.LiteralPrecision(3)})
	if err != nil {
		t.Fatal(err)
	}
	fs = append(fs, mix)
	// A tied precision and a shared mean: one interface each, whose
	// message sums over the components that use it.
	tied, err := nodes.NewNormalMixtureShared(
		[]nodes.Mean{nodes.VariableMean(), nodes.LiteralMean(2), nodes.VariableMean()}, []int{0, 0, 0},
		[]nodes.Precision{nodes.VariablePrecision(), nodes.VariablePrecision(), nodes.VariablePrecision()}, []int{0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tied.Interfaces()); n != 4 {
		t.Errorf("tied mixture: %d interfaces, want 4 (out, switch, one mean, one precision)", n)
	}
	fs = append(fs, tied)
	for _, f := range fs {
		for range 5 {
			if err := nodetest.CheckMessages(f, randStats(rng, f), 1e-5, 1e-7); err != nil {
				t.Errorf("%v: %v", f.Interfaces(), err)
			}
		}
	}
}

// TestNormalAverageEnergy checks E_q[-ln f] against the closed form
// ½ ln 2π - ½ E ln τ + ½ E τ (E x² - 2 E x E μ + E μ²), μ = a m + b, with
// E μ = a E m + b and E μ² = a² E m² + 2ab E m + b², and the messages to
// x, m and τ against the formulas in Normal's documentation.
func TestNormalAverageEnergy(t *testing.T) {
	const a, b = 0.8, 0.3
	n, _ := nodes.NewNormal(nodes.AffineMean(a, b), nodes.VariablePrecision())
	x := expfam.Normal{Mean: 1.2, Var: 0.4}.ExpectedStats(nil)
	m := expfam.Normal{Mean: -0.5, Var: 0.9}.ExpectedStats(nil)
	tau := expfam.Gamma{Shape: 3, Rate: 2}.ExpectedStats(nil)
	stats := [][]float64{x, m, tau}
	emu := a*m[0] + b
	emu2 := a*a*m[1] + 2*a*b*m[0] + b*b
	want := 0.5*math.Log(2*math.Pi) - 0.5*tau[0] + 0.5*tau[1]*(x[1]-2*x[0]*emu+emu2)
	if got := n.AverageEnergy(stats); math.Abs(got-want) > 1e-13 {
		t.Errorf("energy %.15g, want %.15g", got, want)
	}
	msg := make([]float64, 2)
	_ = n.Message(msg, 0, stats)
	if math.Abs(msg[0]-tau[1]*emu) > 1e-14 || math.Abs(msg[1]+tau[1]/2) > 1e-14 {
		t.Errorf("to out %v, want [%v %v]", msg, tau[1]*emu, -tau[1]/2)
	}
	_ = n.Message(msg, 1, stats)
	if math.Abs(msg[0]-a*tau[1]*(x[0]-b)) > 1e-14 || math.Abs(msg[1]+a*a*tau[1]/2) > 1e-14 {
		t.Errorf("to mean %v", msg)
	}
	_ = n.Message(msg, 2, stats)
	if math.Abs(msg[0]-0.5) > 1e-15 || math.Abs(msg[1]+0.5*(x[1]-2*x[0]*emu+emu2)) > 1e-14 {
		t.Errorf("to precision %v", msg)
	}
	// Both literal: the energy is -ln N(x; μ, 1/τ) averaged, a Normal prior.
	p, _ := nodes.NewNormal(nodes.LiteralMean(2), nodes.LiteralPrecision(4))
	q := expfam.Normal{Mean: 1.5, Var: 0.2}
	// E_q[-ln N(x; 2, 1/4)] = ½ ln(2π/4) + 2 E(x - 2)² = ½ ln(π/2) + 2 (0.2 + 0.25).
	wantP := 0.5*math.Log(math.Pi/2) + 2*(0.2+0.25)
	if got := p.AverageEnergy([][]float64{q.ExpectedStats(nil)}); math.Abs(got-wantP) > 1e-14 {
		t.Errorf("prior energy %v, want %v", got, wantP)
	}
}

func TestNormalRefusesBadLiterals(t *testing.T) {
	for _, tc := range []struct {
		mean nodes.Mean
		prec nodes.Precision
		want string
	}{
		{nodes.LiteralMean(math.NaN()), nodes.LiteralPrecision(1), "nodes: normal: mean: value NaN"},
		{nodes.LiteralMean(0), nodes.LiteralPrecision(0), "nodes: normal: precision: precision is 0, want > 0"},
		{nodes.LiteralMean(0), nodes.LiteralPrecision(-2), "precision is -2, want > 0"},
		{nodes.LiteralMean(0), nodes.LiteralPrecision(math.Inf(1)), "precision is +Inf"},
		{nodes.AffineMean(math.Inf(-1), 0), nodes.VariablePrecision(), "mean scale: value -Inf"},
	} {
		_, err := nodes.NewNormal(tc.mean, tc.prec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewNormal(%v, %v) = %v, want an error containing %q", tc.mean, tc.prec, err, tc.want)
		}
	}
	if _, err := nodes.NewNormalMixture([]nodes.Mean{nodes.VariableMean()}, nil); err == nil || !strings.Contains(err.Error(), "1 means and 0 precisions") {
		t.Errorf("mixture with missing precisions: %v", err)
	}
	if _, err := nodes.NewNormalMixture([]nodes.Mean{nodes.VariableMean(), nodes.LiteralMean(0)},
		[]nodes.Precision{nodes.VariablePrecision(), nodes.LiteralPrecision(0)}); err == nil || !strings.Contains(err.Error(), "precisions[1]: precision is 0") {
		t.Errorf("mixture with precision 0: %v", err)
	}
}
