package fit_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/fit"
)

// TestChoiceRates: two subjects' trials on the T-maze, counted by hand.
func TestChoiceRates(t *testing.T) {
	m := loadTMaze(t)
	nu := m.NumActions()
	// Subject a: trial 1 takes actions 1 then 3, trial 2 takes 1 then a
	// missed response; subject b: trial 1 takes 2 then 3. The outcome of
	// modality 0 before each choice is 0 at step 0 and 1 at step 1.
	out := [][]int{make([]int, m.NumModalities()), make([]int, m.NumModalities()), make([]int, m.NumModalities())}
	out[1][0] = 1
	recs := []behaviour.SubjectRecord{
		{Subject: "a", Trials: []behaviour.TrialRecord{{Trial: 1, Actions: []int{1, 3}, Outcomes: out}, {Trial: 2, Actions: []int{1, -1}, Outcomes: out}}},
		{Subject: "b", Trials: []behaviour.TrialRecord{{Trial: 1, Actions: []int{2, 3}, Outcomes: out}}},
	}
	rates := func(pairs ...float64) []float64 {
		r := make([]float64, nu)
		for i := 0; i < len(pairs); i += 2 {
			r[int(pairs[i])] = pairs[i+1]
		}
		return r
	}
	byTrial, byOutcome := fit.ChoiceRates(m, recs)
	want := []fit.ChoiceRate{
		{Trial: 1, Step: 0, Modality: -1, Outcome: -1, Choices: 2, Rates: rates(1, 0.5, 2, 0.5)},
		{Trial: 1, Step: 1, Modality: -1, Outcome: -1, Choices: 2, Rates: rates(3, 1)},
		{Trial: 2, Step: 0, Modality: -1, Outcome: -1, Choices: 1, Rates: rates(1, 1)},
	}
	opt := cmpopts.EquateApprox(0, 1e-12)
	if diff := cmp.Diff(want, byTrial, opt); diff != "" {
		t.Errorf("by trial: mismatch (-want +got):\n%s", diff)
	}
	// Step 0: 3 choices after outcome 0 of modality 0 (1, 1, 2); step 1: 2
	// after outcome 1 (3, 3); the other modalities show outcome 0 always.
	var first []fit.ChoiceRate
	for _, r := range byOutcome {
		if r.Modality == 0 {
			first = append(first, r)
		}
		if r.Choices == 0 || math.Abs(sum(r.Rates)-1) > 1e-12 {
			t.Errorf("cell %+v: rates do not sum to 1", r)
		}
	}
	wantFirst := []fit.ChoiceRate{
		{Trial: 0, Step: 0, Modality: 0, Outcome: 0, Choices: 3, Rates: rates(1, 2.0/3, 2, 1.0/3)},
		{Trial: 0, Step: 1, Modality: 0, Outcome: 1, Choices: 2, Rates: rates(3, 1)},
	}
	if diff := cmp.Diff(wantFirst, first, opt); diff != "" {
		t.Errorf("by outcome of modality 0: mismatch (-want +got):\n%s", diff)
	}
	if len(byOutcome) != 2*m.NumModalities() {
		t.Errorf("%d cells by outcome, want 2 per modality", len(byOutcome))
	}
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}
