package expfam_test

import (
	"math"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
)

func TestValidateDistribution(t *testing.T) {
	for _, p := range [][]float64{{1}, {0.7, 0.2, 0.1}, {0, 1, 0}, {0.5, 0.5 + 1e-9}} {
		if err := expfam.ValidateDistribution(p, 1e-6); err != nil {
			t.Errorf("ValidateDistribution(%v): %v", p, err)
		}
	}
	for _, tc := range []struct {
		p    []float64
		frag []string
	}{
		{nil, []string{"no entries"}},
		{[]float64{0.5, -0.1, 0.6}, []string{"entry 1", "-0.1", ">= 0"}},
		{[]float64{0.5, 0.5, math.NaN()}, []string{"entry 2", "NaN", "finite"}},
		{[]float64{math.Inf(1), 0}, []string{"entry 0", "+Inf"}},
		{[]float64{0.5, 0.4}, []string{"sum to 0.9,", "want 1", "tolerance 1e-06"}},
		{[]float64{0.6, 0.6}, []string{"sum to 1.2"}},
	} {
		wantErr(t, "ValidateDistribution", expfam.ValidateDistribution(tc.p, 1e-6), tc.frag...)
	}
}

func TestValidateColumns(t *testing.T) {
	// Shape [2, 3]: columns (0.1, 0.9), (0.5, 0.5), (1, 0) in row-major layout.
	if err := expfam.ValidateColumns([]float64{0.1, 0.5, 1, 0.9, 0.5, 0}, []int{2, 3}, 1e-9); err != nil {
		t.Error(err)
	}
	if err := expfam.ValidateColumns([]float64{0.25, 0.75}, []int{2}, 1e-9); err != nil {
		t.Error(err)
	}
	// Shape [2, 2, 3]: column [1 2] (flat 5) holds entries 5 and 11.
	bad := make([]float64, 12)
	for j := range 6 {
		bad[j], bad[6+j] = 0.5, 0.5
	}
	bad[11] = 0.4
	neg := append([]float64(nil), bad...)
	neg[11], neg[5] = -0.1, 1.1
	for _, tc := range []struct {
		name  string
		t     []float64
		shape []int
		frag  []string
	}{
		{"sum", bad, []int{2, 2, 3}, []string{"column [1 2] sums to 0.9,", "want 1"}},
		{"negative", neg, []int{2, 2, 3}, []string{"entry [1 1 2]", "column [1 2]", "-0.1", ">= 0"}},
		{"NaN", []float64{0.5, math.NaN()}, []int{2, 1}, []string{"entry [1 0]", "column [0]", "NaN"}},
		{"vector sum", []float64{0.5, 0.2}, []int{2}, []string{"column [] sums to 0.7"}},
		{"length", []float64{1, 0}, []int{2, 2}, []string{"shape [2 2] has 4 entries, got 2"}},
		{"rank 0", []float64{1}, nil, []string{"no axes"}},
		{"zero axis", nil, []int{0}, []string{"axis 0 has size 0"}},
		{"overflow", nil, []int{math.MaxInt, 3}, []string{"too many"}},
	} {
		wantErr(t, tc.name, expfam.ValidateColumns(tc.t, tc.shape, 1e-6), tc.frag...)
	}
}

func TestValidateConcentrations(t *testing.T) {
	if err := expfam.ValidateConcentrations([]float64{1e-300, 1e300}); err != nil {
		t.Error(err)
	}
	wantErr(t, "empty", expfam.ValidateConcentrations(nil), "no entries")
	wantErr(t, "zero", expfam.ValidateConcentrations([]float64{1, 0}), "concentration[1]", "is 0", "> 0")
	wantErr(t, "NaN", expfam.ValidateConcentrations([]float64{math.NaN()}), "concentration[0]", "NaN", "finite")
	wantErr(t, "-Inf", expfam.ValidateConcentrations([]float64{1, 2, math.Inf(-1)}), "concentration[2]", "-Inf")
}
