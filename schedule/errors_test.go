package schedule_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/messages"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// fixedMessage is a test-only factor on one variable whose average energy
// is always 0 but which sends the fixed message msg. A correct VMP factor
// sends the gradient of its average energy (here 0), so this one is
// deliberately wrong: its update can raise F, and it can push a posterior to
// any natural parameters.
type fixedMessage struct {
	iface messages.Interface
	msg   []float64
}

func (f *fixedMessage) Kind() string                            { return "fixed" }
func (f *fixedMessage) Interfaces() []messages.Interface        { return []messages.Interface{f.iface} }
func (f *fixedMessage) AverageEnergy(stats [][]float64) float64 { return 0 }
func (f *fixedMessage) Message(dst []float64, k int, stats [][]float64) error {
	copy(dst, f.msg)
	return nil
}

// increaseGraph is s ~ Cat(0.5, 0.5) plus a fixedMessage on s sending the
// natural parameters [ln 9, 0], which moves q(s) from uniform to
// (0.9, 0.1) although the true posterior is the prior (0.5, 0.5).
func increaseGraph(t *testing.T) (*ffg.Graph, *ffg.Variable) {
	t.Helper()
	g := ffg.New()
	s, _ := g.AddVariable("s", expfam.CategoricalFamily, 2)
	prior, _ := nodes.NewCategorical([]float64{0.5, 0.5})
	if _, err := g.AddFactor("", prior, s); err != nil {
		t.Fatal(err)
	}
	push := &fixedMessage{messages.Interface{Name: "out", Family: expfam.CategoricalFamily, Shape: []int{2}}, []float64{math.Log(9), 0}}
	if _, err := g.AddFactor("", push, s); err != nil {
		t.Fatal(err)
	}
	return g, s
}

// TestIncreaseReported: an update that raises F is recorded with its sweep
// and both values, by Run and by Local.
func TestIncreaseReported(t *testing.T) {
	// F = E_q[-ln p] + 0 - H[q] = KL(q || (0.5, 0.5)) = ln 2 - H[q].
	// Before sweep 1, q(s) is uniform: F = ln 2 - ln 2 = 0.
	// After sweep 1, q(s) = (0.9, 0.1): F = ln 2 + 0.9 ln 0.9 + 0.1 ln 0.1
	// = 0.368064... Sweep 2 repeats the same update, so F does not change
	// and the run converges after 2 sweeps with one increase, at sweep 1.
	to := math.Log(2) + 0.9*math.Log(0.9) + 0.1*math.Log(0.1)
	want := []schedule.Increase{{Sweep: 1, From: 0, To: to}}
	approx := cmpopts.EquateApprox(0, 1e-15)
	for _, local := range []bool{false, true} {
		g, s := increaseGraph(t)
		var res *schedule.Result
		var err error
		if local {
			res, err = schedule.Local(context.Background(), g, []*ffg.Variable{s}, nil)
		} else {
			res, err = schedule.Run(context.Background(), g, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, res.Increases, approx); diff != "" {
			t.Errorf("local=%v: increases mismatch (-want +got):\n%s", local, diff)
		}
		if diff := cmp.Diff([]float64{to, to}, res.FreeEnergy, approx); diff != "" || !res.Converged {
			t.Errorf("local=%v: converged=%v, F trace mismatch (-want +got):\n%s", local, res.Converged, diff)
		}
	}
}

// TestNoIncreaseWhenFFalls: the chain of schedule_test.go is exact
// coordinate ascent, so F never rises and nothing is recorded.
func TestNoIncreaseWhenFFalls(t *testing.T) {
	g, _ := chain(t)
	res, err := schedule.Run(context.Background(), g, &schedule.Settings{Tolerance: 1e-14, Iterations: 1000})
	if err != nil || len(res.Increases) != 0 {
		t.Errorf("err %v, increases %+v; want none", err, res.Increases)
	}
}

// impossibleGraph: hidden s ~ Cat(0.2, 0.8) and, independently, observed
// o = 0 with P(o) = Cat(0, 0, 1), evidence of probability 0.
func impossibleGraph(t *testing.T) (g *ffg.Graph, s, o *ffg.Variable, bad *ffg.FactorNode) {
	t.Helper()
	g = ffg.New()
	s, _ = g.AddVariable("s", expfam.CategoricalFamily, 2)
	o, _ = g.AddVariable("o", expfam.CategoricalFamily, 3)
	ps, _ := nodes.NewCategorical([]float64{0.2, 0.8})
	po, _ := nodes.NewCategorical([]float64{0, 0, 1})
	if _, err := g.AddFactor("", ps, s); err != nil {
		t.Fatal(err)
	}
	bad, err := g.AddFactor("", po, o)
	if err != nil {
		t.Fatal(err)
	}
	_ = o.Observe(0)
	return g, s, o, bad
}

// TestInfiniteEnergyNamesFactor: evidence of probability 0 under a fixed
// factor makes E_q[-ln f] = -ln 0 = +Inf; the run stops after sweep 1 with
// an *EnergyError naming that factor.
func TestInfiniteEnergyNamesFactor(t *testing.T) {
	g, _, _, bad := impossibleGraph(t)
	res, err := schedule.Run(context.Background(), g, nil)
	var ee *schedule.EnergyError
	if !errors.As(err, &ee) {
		t.Fatalf("got %v, want an *EnergyError", err)
	}
	if ee.Sweep != 1 || !math.IsInf(ee.F, 1) || ee.Factor != bad || !math.IsInf(ee.Term, 1) || ee.Variable != nil {
		t.Errorf("got %+v; want sweep 1, F = +Inf, the factor on o with term +Inf", ee)
	}
	if want := `schedule: sweep 1: free energy is +Inf: average energy of factor categorical on "o" is +Inf`; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	if res == nil || res.Iterations != 1 {
		t.Errorf("result %+v, want the one sweep done", res)
	}
}

// TestLocalEnergyScope: local inference sees only the terms of F that
// involve its variables, so the impossible evidence on o does not stop a
// local run over s, but does stop one whose variables include o.
func TestLocalEnergyScope(t *testing.T) {
	g, s, o, bad := impossibleGraph(t)
	res, err := schedule.Local(context.Background(), g, []*ffg.Variable{s}, nil)
	if err != nil || !res.Converged {
		t.Fatalf("local over s: %v, %+v", err, res)
	}
	// q(s) is the prior (0.2, 0.8) by Bayes' rule with no evidence on s.
	if diff := cmp.Diff([]float64{0.2, 0.8}, s.Probs(), cmpopts.EquateApprox(0, 1e-15)); diff != "" {
		t.Errorf("q(s) mismatch (-want +got):\n%s", diff)
	}
	_, err = schedule.Local(context.Background(), g, []*ffg.Variable{s, o}, nil)
	var ee *schedule.EnergyError
	if !errors.As(err, &ee) || ee.Factor != bad {
		t.Errorf("local over s, o: got %v, want an *EnergyError naming the factor on o", err)
	}
}

// TestNaNEntropyNamesVariable: a (deliberately wrong) factor that pushes a
// gamma posterior to shape 1e308 leaves every average energy finite (the
// factor's is 0), but the entropy a - ln b + ln Γ(a) + (1 - a) ψ(a) is
// +Inf - Inf = NaN in float64; the error names the variable.
func TestNaNEntropyNamesVariable(t *testing.T) {
	g := ffg.New()
	gv, _ := g.AddVariable("g", expfam.GammaFamily)
	// Natural parameters [a - 1, -b] for a = 1e308, b = 1.
	push := &fixedMessage{messages.Interface{Name: "out", Family: expfam.GammaFamily}, []float64{1e308 - 1, -1}}
	if _, err := g.AddFactor("", push, gv); err != nil {
		t.Fatal(err)
	}
	_, err := schedule.Run(context.Background(), g, nil)
	var ee *schedule.EnergyError
	if !errors.As(err, &ee) || ee.Variable != gv || ee.Factor != nil || !math.IsNaN(ee.Term) || !math.IsNaN(ee.F) {
		t.Fatalf("got %v (%+v), want an *EnergyError naming variable g with a NaN entropy", err, ee)
	}
	if !strings.HasSuffix(err.Error(), `free energy is NaN: entropy of variable "g" is NaN`) {
		t.Errorf("message %q", err)
	}
}
