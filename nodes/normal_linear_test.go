package nodes_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/nodes/nodetest"
)

// linearConfigs returns NormalLinear nodes of K = 0, 1 and 3 terms (scales
// of both signs and a zero), each offset form (literal, variable, affine)
// and each precision form (literal, gamma, scaled gamma).
func linearConfigs(t testing.TB) []*nodes.NormalLinear {
	t.Helper()
	var out []*nodes.NormalLinear
	for _, scales := range [][]float64{nil, {1.3}, {0.7, -1.9, 2.4}, {0.5, 0, -0.25}} {
		for _, off := range []nodes.Mean{nodes.LiteralMean(0.6), nodes.VariableMean(), nodes.AffineMean(-0.8, 0.3)} {
			for _, prec := range []nodes.Precision{nodes.LiteralPrecision(2.5), nodes.VariablePrecision(), nodes.ScaledPrecision(0.3)} {
				n, err := nodes.NewNormalLinear(scales, off, prec)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, n)
			}
		}
	}
	return out
}

// TestNormalLinearMessagesAreGradients runs nodetest on every edge of the
// linear-predictor Normal (out, each term's variable, the offset variable,
// the precision) in every configuration of linearConfigs, with out hidden
// (statistics of a Normal posterior) and observed (statistics [y, y²]):
// each message equals the finite-difference gradient of E_q[ln f].
func TestNormalLinearMessagesAreGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range linearConfigs(t) {
		for trial := range 6 {
			stats := randStats(rng, n)
			if trial%2 == 1 { // out observed
				y := 3*rng.Float64() - 1.5
				stats[nodes.NormalOut] = []float64{y, y * y}
			}
			if err := nodetest.CheckMessages(n, stats, 1e-5, 1e-7); err != nil {
				t.Errorf("%s %v: %v", n.Label(), n.Rules(), err)
			}
		}
	}
}

// TestNormalLinearClosedForms checks the energy and the messages of a
// three-term node with a variable offset and a gamma precision against the
// formulas of NormalLinear's documentation: E μ = Σ a_i E u_i + c,
// E(out - μ)² = E out² - 2 E out E μ + (E μ)² + Σ a_i² Var u_i.
func TestNormalLinearClosedForms(t *testing.T) {
	scales := []float64{0.7, -1.9, 2.4}
	const a, c = -0.8, 0.3 // the offset a·v + c
	n, err := nodes.NewNormalLinear(scales, nodes.AffineMean(a, c), nodes.VariablePrecision())
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Rules(); strings.Join(got, " ") != "out sum[0] sum[1] sum[2] offset precision" {
		t.Fatalf("interfaces %v", got)
	}
	ms := []expfam.Normal{{Mean: 0.4, Var: 0.3}, {Mean: -1.1, Var: 0.05}, {Mean: 0.2, Var: 1.7}, {Mean: 0.9, Var: 0.6}}
	x := expfam.Normal{Mean: 1.2, Var: 0.4}.ExpectedStats(nil)
	tau := expfam.Gamma{Shape: 3, Rate: 2}.ExpectedStats(nil)
	stats := [][]float64{x}
	for _, m := range ms {
		stats = append(stats, m.ExpectedStats(nil))
	}
	stats = append(stats, tau)
	coef := append(append([]float64(nil), scales...), a)
	emu, varMu := c, 0.0
	for i, m := range ms {
		emu += coef[i] * m.Mean
		varMu += coef[i] * coef[i] * m.Var
	}
	sq := x[1] - 2*x[0]*emu + emu*emu + varMu
	want := 0.5*math.Log(2*math.Pi) - 0.5*tau[0] + 0.5*tau[1]*sq
	if got := n.AverageEnergy(stats); math.Abs(got-want) > 1e-12 {
		t.Errorf("energy %.15g, want %.15g", got, want)
	}
	msg := make([]float64, 2)
	_ = n.Message(msg, nodes.NormalOut, stats)
	if math.Abs(msg[0]-tau[1]*emu) > 1e-13 || math.Abs(msg[1]+tau[1]/2) > 1e-14 {
		t.Errorf("to out %v, want [%v %v]", msg, tau[1]*emu, -tau[1]/2)
	}
	for i, m := range ms {
		k := 1 + i
		if i == len(scales) {
			k = n.OffsetInterface()
		} else if k != n.TermInterface(i) {
			t.Fatalf("term %d at interface %d", i, n.TermInterface(i))
		}
		_ = n.Message(msg, k, stats)
		w0 := coef[i] * tau[1] * (x[0] - emu + coef[i]*m.Mean)
		w1 := -coef[i] * coef[i] * tau[1] / 2
		if math.Abs(msg[0]-w0) > 1e-13 || math.Abs(msg[1]-w1) > 1e-13 {
			t.Errorf("to %s: %v, want [%v %v]", n.Rules()[k], msg, w0, w1)
		}
	}
	_ = n.Message(msg, n.PrecisionInterface(), stats)
	if math.Abs(msg[0]-0.5) > 1e-15 || math.Abs(msg[1]+0.5*sq) > 1e-13 {
		t.Errorf("to precision %v, want [0.5 %v]", msg, -0.5*sq)
	}
}

// TestNormalLinearOneTermIsNormal: one term with a literal offset is
// Normal with an affine mean, and no term with a variable offset is Normal
// with a variable mean: the same form, so the same messages and energy bit
// for bit.
func TestNormalLinearOneTermIsNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, prec := range []nodes.Precision{nodes.LiteralPrecision(2.5), nodes.ScaledPrecision(0.3)} {
		lin, _ := nodes.NewNormalLinear([]float64{0.9}, nodes.LiteralMean(-0.4), prec)
		aff, _ := nodes.NewNormal(nodes.AffineMean(0.9, -0.4), prec)
		off, _ := nodes.NewNormalLinear(nil, nodes.AffineMean(1.7, 0.2), prec)
		aff2, _ := nodes.NewNormal(nodes.AffineMean(1.7, 0.2), prec)
		pairs := [][2]polyFactor{{lin, aff}, {off, aff2}}
		for _, p := range pairs {
			if p[0].Polynomial().NumTerms() != p[1].Polynomial().NumTerms() || p[0].Polynomial().Const != p[1].Polynomial().Const {
				t.Errorf("forms differ: %d terms and %v, %d and %v", p[0].Polynomial().NumTerms(), p[0].Polynomial().Const, p[1].Polynomial().NumTerms(), p[1].Polynomial().Const)
			}
			stats := randStats(rng, p[0])
			if e0, e1 := p[0].AverageEnergy(stats), p[1].AverageEnergy(stats); e0 != e1 {
				t.Errorf("energy %v, Normal's %v", e0, e1)
			}
			for k := range p[0].Interfaces() {
				m0, m1 := make([]float64, 2), make([]float64, 2)
				_ = p[0].Message(m0, k, stats)
				_ = p[1].Message(m1, k, stats)
				if m0[0] != m1[0] || m0[1] != m1[1] {
					t.Errorf("interface %d: %v, Normal's %v", k, m0, m1)
				}
			}
		}
	}
}

// TestNormalLinearRefusesBadLiterals: errors name the field.
func TestNormalLinearRefusesBadLiterals(t *testing.T) {
	for _, tc := range []struct {
		scales []float64
		off    nodes.Mean
		prec   nodes.Precision
		want   string
	}{
		{[]float64{1, math.NaN()}, nodes.LiteralMean(0), nodes.LiteralPrecision(1), "nodes: normal-linear: sum[1] scale: value NaN"},
		{[]float64{1e300}, nodes.LiteralMean(0), nodes.LiteralPrecision(1), "sum[0] scale: value 1e+300"},
		{[]float64{1}, nodes.LiteralMean(math.Inf(1)), nodes.LiteralPrecision(1), "offset: value +Inf"},
		{[]float64{1}, nodes.AffineMean(math.NaN(), 0), nodes.LiteralPrecision(1), "offset scale: value NaN"},
		{[]float64{1}, nodes.LiteralMean(0), nodes.LiteralPrecision(0), "precision: precision is 0, want > 0"},
		{[]float64{1}, nodes.LiteralMean(0), nodes.ScaledPrecision(-1), "precision scale: precision is -1"},
	} {
		_, err := nodes.NewNormalLinear(tc.scales, tc.off, tc.prec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewNormalLinear(%v, %v, %v) = %v, want an error containing %q", tc.scales, tc.off, tc.prec, err, tc.want)
		}
	}
}

// TestNormalLinearLabels: the DOT labels write the terms with their
// neighbours' labels, the literals and the precision.
func TestNormalLinearLabels(t *testing.T) {
	n, _ := nodes.NewNormalLinear([]float64{1, -0.5, 2}, nodes.VariableMean(), nodes.VariablePrecision())
	if got, want := n.LabelWith([]string{"y", "w0", "w1", "w2", "b", "tau"}), "N(w0-0.5w1+2w2+b, tau⁻¹)"; got != want {
		t.Errorf("LabelWith = %q, want %q", got, want)
	}
	if got, want := n.Label(), "N(Σ3+b, τ⁻¹)"; got != want {
		t.Errorf("Label = %q, want %q", got, want)
	}
	long, _ := nodes.NewNormalLinear([]float64{1, 1, 1, 1, -1}, nodes.LiteralMean(-2), nodes.LiteralPrecision(4))
	if got, want := long.LabelWith([]string{"y", "a", "b", "c", "d", "e"}), "N(a+b+…-e-2, 0.25)"; got != want {
		t.Errorf("LabelWith = %q, want %q", got, want)
	}
	none, _ := nodes.NewNormalLinear(nil, nodes.LiteralMean(0), nodes.LiteralPrecision(1))
	if got, want := none.LabelWith([]string{"y"}), "N(0, 1)"; got != want {
		t.Errorf("LabelWith = %q, want %q", got, want)
	}
}

// BenchmarkNormalLinearMessageToWeight is the hot path of a regression's
// sweep: the message of one observation's node to one weight, for K = 3
// and K = 30 terms (with an offset variable and a gamma precision).
func BenchmarkNormalLinearMessageToWeight(b *testing.B) {
	for _, k := range []int{3, 30} {
		b.Run(fmt.Sprint("K=", k), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			scales := make([]float64, k)
			for i := range scales {
				scales[i] = rng.NormFloat64()
			}
			n, err := nodes.NewNormalLinear(scales, nodes.VariableMean(), nodes.VariablePrecision())
			if err != nil {
				b.Fatal(err)
			}
			stats := randStats(rng, n)
			msg := make([]float64, 2)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				_ = n.Message(msg, n.TermInterface(i%k), stats)
			}
		})
	}
}

// polyFactor is a continuous node: a factor with its form.
type polyFactor interface {
	nodetest.Factor
	Polynomial() *messages.Polynomial
}
