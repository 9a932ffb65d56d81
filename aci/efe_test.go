package aci

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/arbor-ai/arbor/pomdp"
)

// handModel is the 2-state, 2-observation, 2-action POMDP derived by hand
// below:
//
//	A = [[1, 0.5],   state 0 always shows o0 (H = 0);
//	     [0, 0.5]]   state 1 shows o0 or o1 evenly (H = ln 2).
//	B[0] = identity (stay), B[1] = swap (move).
//	C = [0.9, 0.1], D = [0.5, 0.5].
func handModel(t *testing.T) *pomdp.Model {
	t.Helper()
	m, err := pomdp.New(pomdp.Spec{
		NumStates: 2, NumObs: 2, NumActions: 2,
		A: []float64{1, 0.5, 0, 0.5},
		B: []float64{1, 0, 0, 1, 0, 1, 1, 0},
		C: []float64{0.9, 0.1},
		D: []float64{0.5, 0.5},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestExpectedFreeEnergyHand(t *testing.T) {
	m := handModel(t)
	ln := math.Log
	tests := []struct {
		name        string
		qs          []float64
		policy      []int
		risk, amb   float64
		explanation string
	}{
		{
			name: "stay in s0", qs: []float64{1, 0}, policy: []int{0},
			// Q(s1) = [1, 0], Q(o1) = [1, 0]: risk = 1 ln(1/0.9), ambiguity = 0.
			risk: ln(1 / 0.9), amb: 0,
		},
		{
			name: "move to s1", qs: []float64{1, 0}, policy: []int{1},
			// Q(s1) = [0, 1], Q(o1) = [0.5, 0.5]:
			// risk = 0.5 ln(0.5/0.9) + 0.5 ln(0.5/0.1) = 0.5 ln(25/9) = ln(5/3);
			// ambiguity = H[A(.|s1)] = ln 2.
			risk: ln(5.0 / 3), amb: ln(2),
		},
		{
			name: "stay then move", qs: []float64{1, 0}, policy: []int{0, 1},
			// Step 1 as "stay in s0", step 2 as "move to s1".
			risk: ln(1/0.9) + ln(5.0/3), amb: ln(2),
		},
		{
			name: "uncertain start", qs: []float64{0.5, 0.5}, policy: []int{0},
			// Q(s1) = [0.5, 0.5], Q(o1) = [0.75, 0.25]:
			// risk = 0.75 ln(0.75/0.9) + 0.25 ln(0.25/0.1); ambiguity = 0.5 ln 2.
			risk: 0.75*ln(0.75/0.9) + 0.25*ln(0.25/0.1), amb: 0.5 * ln(2),
		},
		{
			name: "empty policy", qs: []float64{0.5, 0.5}, policy: nil,
			// No future steps: G = 0.
			risk: 0, amb: 0,
		},
	}
	const tol = 1e-14
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, risk, amb, err := ExpectedFreeEnergy(m, tt.qs, tt.policy, nil)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(risk-tt.risk) > tol || math.Abs(amb-tt.amb) > tol || math.Abs(g-(tt.risk+tt.amb)) > tol {
				t.Errorf("G, risk, ambiguity = %v, %v, %v; want %v, %v, %v (tolerance %g)",
					g, risk, amb, tt.risk+tt.amb, tt.risk, tt.amb, tol)
			}
		})
	}

	// Per-step kernels on Q(s) = [0.5, 0.5] (same numbers as "uncertain start").
	qs := []float64{0.5, 0.5}
	if got, want := pomdp.Risk(m, qs), 0.75*ln(0.75/0.9)+0.25*ln(0.25/0.1); math.Abs(got-want) > tol {
		t.Errorf("Risk = %v, want %v", got, want)
	}
	if got, want := pomdp.Ambiguity(m, qs), 0.5*ln(2); math.Abs(got-want) > tol {
		t.Errorf("Ambiguity = %v, want %v", got, want)
	}
}

func TestRiskInfiniteWhenTargetExcludesOutcome(t *testing.T) {
	// C = [1, 0] and Q(o) = [0.5, 0.5] after moving to s1: KL = +Inf.
	sp := handModel(t).Spec()
	sp.C = []float64{1, 0}
	m, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	_, risk, _, err := ExpectedFreeEnergy(m, []float64{1, 0}, []int{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(risk, 1) {
		t.Errorf("risk = %v, want +Inf", risk)
	}
	// Staying in s0 predicts o0 only: KL = 1 ln(1/1) = 0, 0 ln 0 = 0 for o1.
	_, risk, _, _ = ExpectedFreeEnergy(m, []float64{1, 0}, []int{0}, nil)
	if risk != 0 {
		t.Errorf("risk = %v, want 0", risk)
	}
}

func TestNoveltyHand(t *testing.T) {
	// a = [[1, 1], [1, 3]] (A absent: A = E[a] = [[0.5, 0.25], [0.5, 0.75]]).
	// W = 1/2 (1/a - 1/a0), a0 = [2, 4]:
	//   W = [[0.5(1 - 1/2), 0.5(1 - 1/4)], [0.5(1 - 1/2), 0.5(1/3 - 1/4)]]
	//     = [[0.25, 0.375], [0.25, 1/24]].
	// Policy [0] (stay) from qs = [1, 0]: Q(s) = [1, 0], Q(o) = [0.5, 0.5],
	// W Q(s) = [0.25, 0.25], novelty = 0.5*0.25 + 0.5*0.25 = 0.25.
	// Policy [1] (move): Q(s) = [0, 1], Q(o) = [0.25, 0.75],
	// W Q(s) = [0.375, 1/24], novelty = 0.25*0.375 + 0.75/24 = 0.125.
	sp := handModel(t).Spec()
	sp.A, sp.ConcA = nil, []float64{1, 1, 1, 3}
	m, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.A(1, 1); got != 0.75 {
		t.Fatalf("A(1,1) = %v, want 0.75 (expectation of a)", got)
	}
	const tol = 1e-15
	for _, tt := range []struct {
		policy []int
		want   float64
	}{{[]int{0}, 0.25}, {[]int{1}, 0.125}} {
		g, risk, amb, err := ExpectedFreeEnergy(m, []float64{1, 0}, tt.policy, &EFEOptions{Novelty: true})
		if err != nil {
			t.Fatal(err)
		}
		if nov := risk + amb - g; math.Abs(nov-tt.want) > tol {
			t.Errorf("policy %v: novelty = %v, want %v", tt.policy, nov, tt.want)
		}
	}
	if got := pomdp.Novelty(m, []float64{1, 0}); math.Abs(got-0.25) > tol {
		t.Errorf("Novelty = %v, want 0.25", got)
	}
	// Without concentrations the option is an error.
	if _, _, _, err := ExpectedFreeEnergy(handModel(t), []float64{1, 0}, []int{0}, &EFEOptions{Novelty: true}); err == nil {
		t.Error("Novelty without a: no error")
	}
}

func TestExpectedFreeEnergyBadInput(t *testing.T) {
	m := handModel(t)
	for _, tt := range []struct {
		name   string
		qs     []float64
		policy []int
	}{
		{"short qs", []float64{1}, []int{0}},
		{"qs not normalised", []float64{0.5, 0.6}, []int{0}},
		{"qs NaN", []float64{math.NaN(), 1}, []int{0}},
		{"action out of range", []float64{1, 0}, []int{0, 2}},
		{"negative action", []float64{1, 0}, []int{-1}},
	} {
		if _, _, _, err := ExpectedFreeEnergy(m, tt.qs, tt.policy, nil); err == nil {
			t.Errorf("%s: no error", tt.name)
		} else {
			t.Logf("%s: %v", tt.name, err)
		}
	}
	if _, _, _, err := ExpectedFreeEnergy(nil, []float64{1, 0}, nil, nil); err == nil {
		t.Error("nil model: no error")
	}
}

func TestAllPoliciesInfinite(t *testing.T) {
	// C = [0, 1] (only o1 wanted) but from s0 stay predicts o0 surely and
	// switch predicts o0 with probability 0.5: every policy has risk +Inf.
	// The rule (package documentation, "Zeros in C") is the limit M -> Inf
	// of softmax(-gamma min(G, M)): all policies tie at M, so q_pi is
	// uniform, 1/2 for each of the 2 policies of horizon 1, and the action
	// marginal is 1/2 per action. Before the rule, both paths returned an
	// error while `arbor btai plan` printed the infinite costs.
	sp := handModel(t).Spec()
	sp.C = []float64{0, 1}
	m, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := EvaluatePolicies(m, []float64{1, 0}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range ps.G {
		if !math.IsInf(g, 1) {
			t.Fatalf("G[%d] = %v, want +Inf", i, g)
		}
	}
	qpi, err := ps.Posterior(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]float64{0.5, 0.5}, qpi); d != "" {
		t.Errorf("Posterior mismatch (-want +got):\n%s", d)
	}
	rk, err := TopPolicies(m, []float64{1, 0}, 1, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]float64{0.5, 0.5}, rk.ActionProbs); d != "" {
		t.Errorf("TopPolicies.ActionProbs mismatch (-want +got):\n%s", d)
	}
	// The kept policy is the lowest index among the tied ones, policy [0].
	if len(rk.Best) != 1 || rk.Best[0].Index != 0 || rk.Best[0].QPi != 0.5 {
		t.Errorf("TopPolicies.Best = %+v, want policy 0 with q_pi 0.5", rk.Best)
	}
}

// TestSomePoliciesInfinite: with C = [1, 0] from s0 (handModel), "stay"
// predicts o0 surely (risk KL[δ0 || C] = 0) and "switch" puts 0.5 on o1,
// which C forbids (risk +Inf). The limit rule gives the finite policy all
// the mass: q_pi = [1, 0] on both paths.
func TestSomePoliciesInfinite(t *testing.T) {
	sp := handModel(t).Spec()
	sp.C = []float64{1, 0}
	m, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := EvaluatePolicies(m, []float64{1, 0}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	qpi, err := ps.Posterior(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]float64{1, 0}, qpi); d != "" {
		t.Errorf("Posterior mismatch (-want +got):\n%s", d)
	}
	rk, err := TopPolicies(m, []float64{1, 0}, 1, 2, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]float64{1, 0}, rk.ActionProbs); d != "" {
		t.Errorf("TopPolicies.ActionProbs mismatch (-want +got):\n%s", d)
	}
}

// TestRiskNoveltyShareStepCost: Risk and Novelty are computed by stepCost,
// the kernel of ExpectedFreeEnergy; on random beliefs they must agree with
// it bit for bit (the same arithmetic in the same order), and the
// hand-derived values of TestExpectedFreeEnergyHand and TestNoveltyHand pin the results.
func TestRiskNoveltyShareStepCost(t *testing.T) {
	sp := handModel(t).Spec()
	sp.ConcA = []float64{3, 1, 1, 2}
	sp.A = nil
	m, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		x := rng.Float64()
		qs := []float64{x, 1 - x}
		r, a, n := pomdp.StepCost(m, qs, m.NoveltyWeights())
		if pomdp.Risk(m, qs) != r || pomdp.Ambiguity(m, qs) != a || pomdp.Novelty(m, qs) != n {
			t.Fatalf("qs %v: Risk, Ambiguity, Novelty = %v, %v, %v; stepCost %v, %v, %v",
				qs, pomdp.Risk(m, qs), pomdp.Ambiguity(m, qs), pomdp.Novelty(m, qs), r, a, n)
		}
	}
}
