package pomdp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSmoothedFilterEnumeration: Smoothed of exact filtering is, for every
// kept step, the posterior marginal of every factor given every
// observation so far, which the enumeration of every joint state sequence
// gives (to 1e-12), after Reset and after each of three steps, on random
// two-factor models: without learning (the forward pass redone from the
// record) and with learning (the filtered beliefs kept; the enumeration
// then uses exp E[ln θ] of the priors, the filter's parameters), with and
// without a window (which keeps 2 steps but smooths them given the folded
// observations too), with known actions and with one step of GrowMixed;
// after CarryOver it is unchanged.
func TestSmoothedFilterEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 4))
	plain, err := NewFactorised(randomFS(rng, []int{2, 3}, []int{2, 1}, []int{2, 3}, [][]string{{"x"}, {"y", "x"}}))
	if err != nil {
		t.Fatal(err)
	}
	learned := mixedLearned(t, 3)
	for _, m := range []*Model{plain, learned} {
		gs := mxFilterSpec(m)
		nu := m.NumActions()
		for _, window := range []int{0, 2} {
			for _, mixed := range []bool{false, true} {
				name := fmt.Sprintf("learning %v window %d mixed %v", m == learned, window, mixed)
				p, err := NewPastWith(m, window, PastFilter)
				if err != nil {
					t.Fatal(err)
				}
				obs := []int{rng.IntN(m.NumObs())}
				var mixes [][]float64
				check := func() {
					t.Helper()
					_, marg, _ := mxPath(m, gs, obs, mixes)
					got := p.Smoothed()
					if len(got) != p.Kept() {
						t.Fatalf("%s: %d smoothed steps, %d kept", name, len(got), p.Kept())
					}
					for k, q := range got {
						want := marg[len(marg)-len(got)+k]
						if !mxClose(q, want, 1e-12) {
							t.Errorf("%s, %d observations: smoothed kept step %d %v, enumeration %v", name, len(obs), k, q, want)
						}
					}
				}
				if err := p.Reset(obs[0]); err != nil {
					t.Fatal(err)
				}
				check()
				for step := range 3 {
					o := rng.IntN(m.NumObs())
					obs = append(obs, o)
					if mixed && step == 1 {
						probs := make([]float64, nu)
						for u := range probs {
							probs[u] = float64(u+1) / float64(nu*(nu+1)/2) // (1, 2, ...)/Σ
						}
						mixes = append(mixes, probs)
						err = p.GrowMixed(probs, o)
					} else {
						u := rng.IntN(nu)
						mixes = append(mixes, mxOneHot(nu, u))
						err = p.Grow(u, o)
					}
					if err != nil {
						t.Fatal(err)
					}
					check()
				}
				before := p.Smoothed()
				p.CarryOver()
				after := p.Smoothed()
				for k := range before {
					if !mxClose(after[k], before[k], 0) {
						t.Errorf("%s: CarryOver changed smoothed step %d from %v to %v", name, k, before[k], after[k])
					}
				}
			}
		}
	}
}

// TestSmoothedVMP: Smoothed of the mean field is the posteriors of the
// graph's states as the last Infer left them, FactorStates' Probs of
// every factor one after the other, bit for bit, with and without a
// window; before Reset it is nil.
func TestSmoothedVMP(t *testing.T) {
	m := mixedLearned(t, 4)
	for _, window := range []int{0, 2} {
		p, err := NewPast(m, window)
		if err != nil {
			t.Fatal(err)
		}
		if p.Smoothed() != nil {
			t.Error("Smoothed before Reset is not nil")
		}
		rng := rand.New(rand.NewPCG(6, 6))
		if err := p.Reset(rng.IntN(m.NumObs())); err != nil {
			t.Fatal(err)
		}
		for range 4 {
			if _, err := p.Infer(context.Background(), pastSettings); err != nil {
				t.Fatal(err)
			}
			got := p.Smoothed()
			if len(got) != p.Kept() {
				t.Fatalf("window %d: %d smoothed steps, %d kept", window, len(got), p.Kept())
			}
			for k, q := range got {
				var want []float64
				for f := range m.NumFactors() {
					want = append(want, p.FactorStates(f)[k].Probs()...)
				}
				if !mxClose(q, want, 0) {
					t.Errorf("window %d: smoothed step %d %v, FactorStates %v", window, k, q, want)
				}
			}
			if err := p.Grow(rng.IntN(m.NumActions()), rng.IntN(m.NumObs())); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// impossibleModel: 2 states, 3 observations, 2 actions. A (rows o, columns
// s) = [[1, 0], [0, 1], [0, 0]]: o_0 shows state 0, o_1 state 1, and o_2
// is never emitted; B[0] the identity, B[1] the swap; D as given.
func impossibleModel(t *testing.T, d []float64) *Model {
	t.Helper()
	m, err := New(Spec{NumStates: 2, NumObs: 3, NumActions: 2,
		A: []float64{1, 0, 0, 1, 0, 0},
		B: []float64{1, 0, 0, 1, 0, 1, 1, 0},
		C: []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, D: d})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// wantImpossible checks that err wraps ErrImpossibleObservation, starts
// with "pomdp: " and holds every one of parts.
func wantImpossible(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if !errors.Is(err, ErrImpossibleObservation) {
		t.Errorf("%s: error %v, want ErrImpossibleObservation", what, err)
		return
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "pomdp: ") {
		t.Errorf("%s: %q does not start with \"pomdp: \"", what, msg)
	}
	for _, s := range append(parts, "probability 0 given the past", "nonzero mass there, e.g. a small floor") {
		if !strings.Contains(msg, s) {
			t.Errorf("%s: %q does not say %q", what, msg, s)
		}
	}
}

// finiteBelief fails unless every entry of the present belief is finite.
func finiteBelief(t *testing.T, what string, p *Past) {
	t.Helper()
	for _, v := range p.Belief() {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("%s: belief %v", what, p.Belief())
			return
		}
	}
}

// TestImpossibleObservationFilter: exact filtering refuses, at Reset,
// Grow or GrowMixed, an observation to which the model gives probability
// 0 given the past, with ErrImpossibleObservation, naming the step and
// the observation, and leaves the past as it was (the step is not taken,
// the belief stays finite): o_2, which A never emits; o_1 at step 0 when
// D = (1, 0) rules out the only state that emits it; o_1 after o_0 (state
// 0 for sure) and the identity, which keeps state 0. The swap, or a
// mixture with mass on it, makes o_1 possible: state 1 for sure.
func TestImpossibleObservationFilter(t *testing.T) {
	ctx := context.Background()
	m := impossibleModel(t, []float64{0.5, 0.5})
	p, err := NewPastWith(m, 0, PastFilter)
	if err != nil {
		t.Fatal(err)
	}
	wantImpossible(t, "Reset(2)", p.Reset(2), "step 0", "observation 2", "A or D")
	if p.Graph() != nil {
		t.Error("a failed first Reset made a graph")
	}
	if err := p.Reset(0); err != nil {
		t.Fatal(err)
	}
	wantImpossible(t, "Grow(0, 1)", p.Grow(0, 1), "step 1", "observation 1", "A or B")
	wantImpossible(t, "Grow(1, 2)", p.Grow(1, 2), "step 1", "observation 2", "A or B")
	wantImpossible(t, "GrowMixed((1, 0), 1)", p.GrowMixed([]float64{1, 0}, 1), "step 1", "observation 1")
	if p.Time() != 0 || p.Kept() != 1 {
		t.Errorf("after the errors time %d with %d steps kept, want 0 and 1", p.Time(), p.Kept())
	}
	res, err := p.Infer(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// p(o_0) = D(0) A(0|0) + D(1) A(0|1) = 0.5·1 + 0.5·0, so F = ln 2;
	// Q(S_0) = (0.5, 0)/0.5 = (1, 0).
	if got := p.Belief(); got[0] != 1 || got[1] != 0 || math.Abs(res.Final()-math.Ln2) > 1e-15 {
		t.Errorf("after the errors belief %v and F %v, want (1, 0) and -ln p(o_0) = ln 2", got, res.Final())
	}
	if err := p.GrowMixed([]float64{0.5, 0.5}, 1); err != nil {
		t.Fatal(err)
	}
	if err := p.Grow(1, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Infer(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := p.Belief(); got[0] != 1 || got[1] != 0 {
		t.Errorf("belief %v after the swap and o_0, want (1, 0)", got)
	}
	// A failed Reset keeps the trial that was going on.
	wantImpossible(t, "Reset(2) in a trial", p.Reset(2), "step 0", "observation 2")
	if p.Time() != 2 || p.Kept() != 3 {
		t.Errorf("a failed Reset left time %d with %d steps kept, want 2 and 3", p.Time(), p.Kept())
	}
	finiteBelief(t, "after a failed Reset", p)

	pd, err := NewPastWith(impossibleModel(t, []float64{1, 0}), 0, PastFilter)
	if err != nil {
		t.Fatal(err)
	}
	wantImpossible(t, "D = (1, 0), Reset(1)", pd.Reset(1), "step 0", "observation 1", "A or D")
}

// TestImpossibleObservationVMP: the mean field floors B, so after step 0
// it takes an observation that B rules out but some state can emit (o_1
// after o_0 and the identity: no error, F finite, Q(S_1) = (0, 1) exactly,
// A ruling out state 0); it refuses with ErrImpossibleObservation, before
// anything changes, one that A rules out in every state (o_2) and, at step
// 0, one that D and A together rule out (o_1 when D = (1, 0)): its
// posterior would be NaN.
func TestImpossibleObservationVMP(t *testing.T) {
	ctx := context.Background()
	m := impossibleModel(t, []float64{0.5, 0.5})
	p, err := NewPast(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantImpossible(t, "Reset(2)", p.Reset(2), "step 0", "observation 2", "A or D")
	if err := p.Reset(0); err != nil {
		t.Fatal(err)
	}
	wantImpossible(t, "Grow(1, 2)", p.Grow(1, 2), "step 1", "observation 2", "give A a nonzero")
	wantImpossible(t, "GrowMixed((0.5, 0.5), 2)", p.GrowMixed([]float64{0.5, 0.5}, 2), "step 1", "observation 2")
	if p.Time() != 0 || p.Kept() != 1 {
		t.Errorf("after the errors time %d with %d steps kept, want 0 and 1", p.Time(), p.Kept())
	}
	if err := p.Grow(0, 1); err != nil {
		t.Fatalf("Grow(0, 1): %v (the floored B makes it possible)", err)
	}
	res, err := p.Infer(ctx, pastSettings)
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Final(); math.IsNaN(f) || math.IsInf(f, 0) {
		t.Errorf("F = %v", f)
	}
	if got := p.Belief(); got[0] != 0 || got[1] != 1 {
		t.Errorf("Q(S_1) = %v, want (0, 1)", got)
	}

	pd, err := NewPast(impossibleModel(t, []float64{1, 0}), 0)
	if err != nil {
		t.Fatal(err)
	}
	wantImpossible(t, "D = (1, 0), Reset(1)", pd.Reset(1), "step 0", "observation 1", "A or D")
	if pd.Graph() != nil {
		t.Error("a failed first Reset made a graph")
	}
}

// namedImpossible is a factorised model with names: factor "where" (a, b;
// controls stay, move: the identity and the swap; D = (1, 0)), factor
// "ctx" (l, r; no controls; the identity; D = (1, 0)); modality "see" over
// where (floor, wall, door; door never emitted) and modality "hint" over
// [ctx, where] (left, right; right has probability 0 in (l, a), left in
// (r, a)). The other entries are arbitrary, columns summing to 1.
func namedImpossible(t *testing.T) *Model {
	t.Helper()
	m, err := NewFactorised(FactorisedSpec{
		Factors: []Factor{
			{Name: "where", NumStates: 2, States: []string{"a", "b"}, Controls: []string{"stay", "move"},
				B: []float64{1, 0, 0, 1, 0, 1, 1, 0}, D: []float64{1, 0}},
			{Name: "ctx", NumStates: 2, States: []string{"l", "r"}, B: []float64{1, 0, 0, 1}, D: []float64{1, 0}},
		},
		Modalities: []Modality{
			{Name: "see", NumOutcomes: 3, Outcomes: []string{"floor", "wall", "door"}, DependsOn: []string{"where"},
				A: []float64{0.9, 0.2, 0.1, 0.8, 0, 0}},
			{Name: "hint", NumOutcomes: 2, Outcomes: []string{"left", "right"}, DependsOn: []string{"ctx", "where"},
				A: []float64{1, 0.5, 0, 0.5, 0, 0.5, 1, 0.5}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestImpossibleObservationNames: the error names the observation by its
// modalities' outcomes and the modality that alone rules it out: "see"
// never emits door (both past inferences); hint "right" has probability 0
// in the only joint state D allows, (l, a), which exact filtering refuses
// while the mean field, whose A over two factors is floored, takes it
// with a finite free energy.
func TestImpossibleObservationNames(t *testing.T) {
	m := namedImpossible(t)
	door := jointObs(t, m, 2, 0)
	right := jointObs(t, m, 0, 1)
	for _, method := range []PastInference{PastVMP, PastFilter} {
		p, err := NewPastWith(m, 0, method)
		if err != nil {
			t.Fatal(err)
		}
		wantImpossible(t, method.String()+" door", p.Reset(door),
			fmt.Sprintf(`observation %d ("see": "door", "hint": "left")`, door),
			`modality "see" gives outcome "door" probability 0`)
		err = p.Reset(right)
		if method == PastFilter {
			wantImpossible(t, "filter right", err,
				fmt.Sprintf(`observation %d ("see": "floor", "hint": "right")`, right),
				`modality "hint" gives outcome "right" probability 0`)
			continue
		}
		if err != nil {
			t.Fatalf("vmp right: %v", err)
		}
		res, err := p.Infer(context.Background(), pastSettings)
		if err != nil {
			t.Fatal(err)
		}
		if f := res.Final(); math.IsNaN(f) || math.IsInf(f, 0) {
			t.Errorf("vmp right: F = %v", f)
		}
		finiteBelief(t, "vmp right", p)
	}
}
