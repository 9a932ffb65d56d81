package pomdp_test

import (
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// twoControlModel has two controllable factors, x (2 states, controls a
// and b) and y (3 states, controls p, q and r), and one modality o on x:
// 6 joint actions, the first factor varying slowest.
func twoControlModel(t *testing.T) *pomdp.Model {
	t.Helper()
	id := func(n, copies int) []float64 {
		var b []float64
		for range copies {
			for i := range n {
				for j := range n {
					b = append(b, map[bool]float64{true: 1}[i == j])
				}
			}
		}
		return b
	}
	m, err := pomdp.NewFactorised(pomdp.FactorisedSpec{
		Factors: []pomdp.Factor{
			{Name: "x", NumStates: 2, Controls: []string{"a", "b"}, D: []float64{1, 0}, B: id(2, 2)},
			{Name: "y", NumStates: 3, Controls: []string{"p", "q", "r"}, D: []float64{1, 0, 0}, B: id(3, 3)},
		},
		Modalities: []pomdp.Modality{{Name: "o", NumOutcomes: 2, DependsOn: []string{"x"}, A: id(2, 1)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
