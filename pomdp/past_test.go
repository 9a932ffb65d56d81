package pomdp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/schedule"
)

var pastSettings = &schedule.Settings{Iterations: 200, Tolerance: 1e-12}

// twoStateModel: A = [[0.8, 0.3], [0.2, 0.7]], B[0] = identity, B[1] =
// swap, C uniform, D = (0.6, 0.4).
func twoStateModel(t *testing.T, concD []float64) *Model {
	t.Helper()
	sp := Spec{NumStates: 2, NumObs: 2, NumActions: 2,
		A: []float64{0.8, 0.3, 0.2, 0.7},
		B: []float64{1, 0, 0, 1, 0, 1, 1, 0},
		C: []float64{0.5, 0.5}, D: []float64{0.6, 0.4}}
	if concD != nil {
		sp.D, sp.ConcD = nil, concD
	}
	m, err := New(sp)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPastFirstObservation: after Reset and Infer, Q(S_0) is the exact
// posterior D ⊙ A[o, :] normalised: o = 0 gives (0.48, 0.12)/0.6 = (0.8,
// 0.2), as StatePosterior computes it.
func TestPastFirstObservation(t *testing.T) {
	m := twoStateModel(t, nil)
	p, err := NewPast(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Reset(0); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Infer(context.Background(), pastSettings); err != nil {
		t.Fatal(err)
	}
	want, err := StatePosterior(nil, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Present().Probs()
	for s := range 2 {
		if math.Abs(got[s]-[]float64{0.8, 0.2}[s]) > 1e-12 || math.Abs(got[s]-want[s]) > 1e-12 {
			t.Errorf("Q(S_0) = %v, want (0.8, 0.2) = %v", got, want)
		}
	}
}

// TestPastWindowAndLearning: with a window of 3 the graph keeps 3 steps
// however long the episode; time goes on; d's posterior after one step is d
// + Q(S_0) (the expected counts of the Dirichlet-categorical update), and
// CarryOver makes it the next episode's prior.
func TestPastWindowAndLearning(t *testing.T) {
	m := twoStateModel(t, []float64{1, 1})
	p, err := NewPast(m, 3)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := p.Reset(1); err != nil {
		t.Fatal(err)
	}
	if err := p.Grow(0, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Infer(ctx, pastSettings); err != nil {
		t.Fatal(err)
	}
	_, _, dv := p.Params()
	q0 := p.States()[0].Probs()
	for s, a := range dv.Alpha() {
		if math.Abs(a-(1+q0[s])) > 1e-9 {
			t.Errorf("d posterior %v, want 1 + Q(S_0) = 1 + %v", dv.Alpha(), q0)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		if err := p.Grow(rng.IntN(2), rng.IntN(2)); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Infer(ctx, pastSettings); err != nil {
			t.Fatal(err)
		}
	}
	if p.Kept() != 3 || p.Time() != 21 {
		t.Errorf("kept %d steps at time %d, want 3 at 21", p.Kept(), p.Time())
	}
	post := append([]float64(nil), dv.Alpha()...)
	p.CarryOver()
	if _, _, d := p.Priors(); math.Abs(d[0]-post[0]) > 0 || math.Abs(d[1]-post[1]) > 0 {
		t.Errorf("prior after CarryOver %v, want the posterior %v", d, post)
	}
}

// TestPastBadInput: out-of-range observations and actions, Grow before
// Reset and a bad window are errors, not panics.
func TestPastBadInput(t *testing.T) {
	m := twoStateModel(t, nil)
	if _, err := NewPast(m, 1); err == nil {
		t.Error("window 1 accepted")
	}
	if _, err := NewPast(nil, 0); err == nil {
		t.Error("nil model accepted")
	}
	p, _ := NewPast(m, 0)
	if err := p.Grow(0, 0); err == nil {
		t.Error("Grow before Reset accepted")
	}
	if err := p.Reset(2); err == nil {
		t.Error("observation 2 of 2 accepted")
	}
	_ = p.Reset(0)
	if err := p.Grow(2, 0); err == nil {
		t.Error("action 2 of 2 accepted")
	}
	if err := p.Grow(0, -1); err == nil {
		t.Error("observation -1 accepted")
	}
}

// TestProcess: the process follows the model. With D = (0.6, 0.4) the first
// state is 0 in 60 % of 20,000 draws (standard error 0.35 %, bound 1.5 %);
// B[1] swaps the state deterministically; observations follow A's column
// of the state (0.8 for state 0, bound 1.5 %).
func TestProcess(t *testing.T) {
	m := twoStateModel(t, nil)
	p := NewProcess(m, rand.New(rand.NewPCG(7, 7)))
	const n = 20000
	first, obs0 := 0, 0
	for range n {
		o := p.Reset()
		if p.State() == 0 {
			first++
			if o == 0 {
				obs0++
			}
		}
		s := p.State()
		if _, err := p.Step(1); err != nil {
			t.Fatal(err)
		}
		if p.State() != 1-s {
			t.Fatalf("B[1] took %d to %d, want %d", s, p.State(), 1-s)
		}
	}
	if f := float64(first) / n; math.Abs(f-0.6) > 0.015 {
		t.Errorf("first state 0 in %.3f of draws, want 0.6", f)
	}
	if f := float64(obs0) / float64(first); math.Abs(f-0.8) > 0.015 {
		t.Errorf("observation 0 from state 0 in %.3f of draws, want 0.8", f)
	}
	if _, err := p.Step(2); err == nil {
		t.Error("action 2 of 2 accepted")
	}
	if p.Done() || p.NumActions() != 2 || p.NumObservations() != 2 {
		t.Error("Done, NumActions or NumObservations wrong")
	}
}

// TestPastFoldCountsOnce: every observation adds the mass of one posterior
// Q(S_t) (sum 1) to the concentrations a, whether its step is still in the
// graph or has been folded out of the window: after 1 + 6 observations a
// sums to its prior (4) plus 7, with a window of 2 as without one (the A
// factor is a neighbour of both S_t and O_t; its counts are folded once).
func TestPastFoldCountsOnce(t *testing.T) {
	sp := twoStateModel(t, nil).Spec()
	sp.A, sp.ConcA = nil, []float64{1, 1, 1, 1}
	m, err := New(sp)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, window := range []int{0, 2} {
		p, err := NewPast(m, window)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Reset(0); err != nil {
			t.Fatal(err)
		}
		for i := range 6 {
			if _, err := p.Infer(ctx, pastSettings); err != nil {
				t.Fatal(err)
			}
			if err := p.Grow(i%2, (i/2)%2); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.Infer(ctx, pastSettings); err != nil {
			t.Fatal(err)
		}
		av, _, _ := p.Params()
		sum := 0.0
		for _, a := range av.Alpha() {
			sum += a
		}
		if math.Abs(sum-11) > 1e-9 {
			t.Errorf("window %d: a sums to %v, want 4 + 7 = 11", window, sum)
		}
	}
}
