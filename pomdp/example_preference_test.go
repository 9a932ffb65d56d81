package pomdp_test

import (
	"fmt"

	"github.com/arbor-ai/arbor/pomdp"
)

// A preference over two modalities together: "the light and the sound
// agree". Neither modality alone has a preferred outcome, so no pair of
// per-modality targets can state it.
func ExamplePreference() {
	identity := []float64{1, 0, 0, 1}
	m, err := pomdp.NewFactorised(pomdp.FactorisedSpec{
		Factors: []pomdp.Factor{
			{Name: "lamp", NumStates: 2, B: identity, D: []float64{0.5, 0.5}},
			{Name: "bell", NumStates: 2, B: identity, D: []float64{0.5, 0.5}},
		},
		Modalities: []pomdp.Modality{
			{Name: "light", NumOutcomes: 2, DependsOn: []string{"lamp"}, A: identity},
			{Name: "sound", NumOutcomes: 2, DependsOn: []string{"bell"}, A: identity},
		},
		Preferences: []pomdp.Preference{{Modalities: []string{"light", "sound"}, C: []float64{0.45, 0.05, 0.05, 0.45}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, qs := range [][]float64{{1, 0, 1, 0}, {1, 0, 0, 1}} {
		risk, _, _ := pomdp.StepCost(m, qs, nil)
		fmt.Printf("lamp %v, bell %v: risk %.4f\n", qs[:2], qs[2:], risk)
	}
	// Output:
	// lamp [1 0], bell [1 0]: risk 0.7985
	// lamp [1 0], bell [0 1]: risk 2.9957
}
