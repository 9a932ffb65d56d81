package btai

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// noveltyModel is a two-state, two-observation model with
// A = [[0.8, 0.3], [0.2, 0.7]] (columns are states).
func noveltyModel(t *testing.T) *pomdp.Model {
	t.Helper()
	m, err := pomdp.New(pomdp.Spec{NumStates: 2, NumObs: 2, NumActions: 2,
		A: []float64{0.8, 0.3, 0.2, 0.7},
		B: []float64{1, 0, 0, 1, 0, 1, 1, 0},
		C: []float64{0.9, 0.1}, D: []float64{0.5, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestNoveltyByHand checks the novelty term against a hand derivation.
// With the prior a = κ A at κ = 1, a_0[s] = 1 and
//
//	W = ½ (1/a - 1/a_0) = ½ [[1/0.8 - 1, 1/0.3 - 1], [1/0.2 - 1, 1/0.7 - 1]]
//	  = [[0.125, 7/6], [2, 3/14]].
//
// For Q(S) = (0.6, 0.4): Ā Q = (0.6, 0.4), W Q = (0.075 + 7/15, 1.2 +
// 3/35) = (13/24, 9/7), so novelty = 0.6·13/24 + 0.4·9/7 = 0.325 + 18/35 =
// 0.839285714... At κ = 10 every W entry is divided by 10, and so is the
// novelty. A state known for sure gives ½ (|O| - 1)/a_0[s] = 0.5 (κ = 1).
func TestNoveltyByHand(t *testing.T) {
	for _, tc := range []struct {
		kappa float64
		qs    []float64
		want  float64
	}{
		{1, []float64{0.6, 0.4}, 0.325 + 18.0/35},
		{10, []float64{0.6, 0.4}, (0.325 + 18.0/35) / 10},
		{1, []float64{1, 0}, 0.5},
		{1, []float64{0, 1}, 0.5},
	} {
		o := DefaultOptions()
		o.Novelty, o.NoveltyPrior = true, tc.kappa
		a, err := NewAgent(noveltyModel(t), &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Reset(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		// Back to the prior, before the first observation's counts.
		for i, p := range a.m.SharedA(0) {
			a.nA[i] = tc.kappa * p
		}
		if err := a.prepareFuture(); err != nil {
			t.Fatal(err)
		}
		if got := a.novelty(&a.sc, tc.qs); math.Abs(got-tc.want) > 1e-14 {
			t.Errorf("κ %g, Q(S) %v: novelty %.17g, want %.17g", tc.kappa, tc.qs, got, tc.want)
		}
		// The node cost is the classic cost minus λ × novelty.
		qo := []float64{0.6, 0.4}
		if got, want := a.cost(&a.sc, tc.qs, qo), a.baseCost(&a.sc, tc.qs, qo)-*o.NoveltyScale*tc.want; math.Abs(got-want) > 1e-12 {
			t.Errorf("κ %g: cost %v, want classic - λ novelty = %v", tc.kappa, got, want)
		}
	}
}

// TestNoveltyLearning: each observation adds the posterior Q(S_t) to its
// row of the concentrations, the planning Ā is their normalised mean, and
// a new episode starts again from the prior unless NoveltyCarry is set.
func TestNoveltyLearning(t *testing.T) {
	ctx := context.Background()
	for _, carry := range []bool{false, true} {
		o := DefaultOptions()
		o.Novelty, o.NoveltyCarry, o.Iterations = true, carry, 5
		a, err := NewAgent(noveltyModel(t), &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Reset(ctx, 1); err != nil {
			t.Fatal(err)
		}
		q0 := append([]float64(nil), a.Belief()...)
		if err := a.Step(ctx, 0, 0); err != nil {
			t.Fatal(err)
		}
		q1 := a.Belief()
		want := []float64{0.8 + q1[0], 0.3 + q1[1], 0.2 + q0[0], 0.7 + q0[1]}
		for i := range want {
			if math.Abs(a.nA[i]-want[i]) > 1e-15 {
				t.Fatalf("carry %v: concentrations %v, want %v", carry, a.nA, want)
			}
		}
		if err := a.prepareFuture(); err != nil {
			t.Fatal(err)
		}
		for s := range 2 {
			z := want[s] + want[2+s]
			if math.Abs(a.abar[s]-want[s]/z) > 1e-15 || math.Abs(a.abar[2+s]-want[2+s]/z) > 1e-15 {
				t.Fatalf("carry %v: Ā %v, want the normalised concentrations", carry, a.abar)
			}
		}
		if err := a.Reset(ctx, 1); err != nil {
			t.Fatal(err)
		}
		q0 = a.Belief()
		if carry {
			want[1*2+0] += q0[0]
			want[1*2+1] += q0[1]
		} else {
			want = []float64{0.8, 0.3, 0.2 + q0[0], 0.7 + q0[1]}
		}
		for i := range want {
			if math.Abs(a.nA[i]-want[i]) > 1e-15 {
				t.Fatalf("carry %v: after a new episode concentrations %v, want %v", carry, a.nA, want)
			}
		}
	}
}

// TestNoveltyOptionsValidate: the novelty options are checked only when
// novelty is on, and name the option.
func TestNoveltyOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		scale, prior float64
		want         string
	}{
		{-1, 1, "novelty scale"},
		{math.NaN(), 1, "novelty scale"},
		{math.Inf(1), 1, "novelty scale"},
		{1, -1, "novelty prior"}, // 0 is the default, 1
		{1, math.NaN(), "novelty prior"},
		{1, 1e-7, "novelty prior"},
		{1, 1e7, "novelty prior"},
		{2e6, 1, "novelty scale"},
	} {
		o := DefaultOptions()
		o.Novelty, o.NoveltyScale, o.NoveltyPrior = true, ptr(tc.scale), tc.prior
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("scale %v prior %v: %v, want an error naming %s", tc.scale, tc.prior, err, tc.want)
		}
		o.Novelty = false
		if err := o.Validate(); err != nil {
			t.Errorf("novelty off: %v", err)
		}
	}
}

// TestNoveltyModelConcentrations: for a model with its own concentrations
// a, novelty uses the posterior the graph learns (no counts of its own),
// and the term is Σ_o (Ā q)(o) (W q)(o) with Ā and W from that posterior,
// computed here directly from the formula.
func TestNoveltyModelConcentrations(t *testing.T) {
	sp := noveltyModel(t).Spec()
	sp.ConcA = []float64{2, 3, 1, 0.5}
	m, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Novelty = true
	o.Past = pomdp.PastVMP // the graph learns a within the episode (exact filtering learns it at the episode's end)
	a, err := NewAgent(m, &o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Reset(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if a.nA != nil {
		t.Fatalf("counts kept beside a model with a: %v", a.nA)
	}
	if err := a.prepareFuture(); err != nil {
		t.Fatal(err)
	}
	alpha := a.aVar.Alpha() // [o*2+s]
	if alpha[2]+alpha[3] <= 1.5 {
		t.Fatalf("posterior %v: the observation's counts were not learned", alpha)
	}
	qs := []float64{0.3, 0.7}
	want := 0.0
	for obs := range 2 {
		pq, wq := 0.0, 0.0
		for s := range 2 {
			a0 := alpha[s] + alpha[2+s]
			pq += alpha[obs*2+s] / a0 * qs[s]
			wq += 0.5 * (1/alpha[obs*2+s] - 1/a0) * qs[s]
		}
		want += pq * wq
	}
	if got := a.novelty(&a.sc, qs); math.Abs(got-want) > 1e-14 {
		t.Errorf("novelty %.17g, want %.17g", got, want)
	}
}
