package pomdp_test

import (
	"fmt"

	"github.com/arbor-ai/arbor/pomdp"
)

// A factorised model written as a Go value: where a light is (left or
// right; the agent can switch it) and whether a door is open (it opens on
// its own with probability 0.2 per step, and stays open), seen through two
// modalities: a light sensor that reads the light, and a noisy door
// sensor. NewFactorised validates it with the messages a file would get.
func ExampleNewFactorised() {
	m, err := pomdp.NewFactorised(pomdp.FactorisedSpec{
		Factors: []pomdp.Factor{{
			Name: "light", NumStates: 2, States: []string{"left", "right"},
			Controls: []string{"keep", "switch"},
			// B[u][next][prev]: keep, then switch.
			B: []float64{1, 0, 0, 1, 0, 1, 1, 0},
			D: []float64{0.5, 0.5},
		}, {
			Name: "door", NumStates: 2, States: []string{"closed", "open"},
			B: []float64{0.8, 0, 0.2, 1}, // uncontrolled: one matrix
			D: []float64{1, 0},
		}},
		Modalities: []pomdp.Modality{{
			Name: "sensor", NumOutcomes: 2, Outcomes: []string{"dark", "bright"},
			DependsOn: []string{"light"},
			A:         []float64{0.9, 0.1, 0.1, 0.9}, // A[o][light]
			LogC:      []float64{0, 2},               // prefer bright
		}, {
			Name: "door-sensor", NumOutcomes: 2, Outcomes: []string{"shut", "draught"},
			DependsOn: []string{"door", "light"},
			// A[o][door][light]: a draught is felt when the door is open,
			// more clearly with the light on the right.
			A: []float64{0.95, 0.95, 0.3, 0.1, 0.05, 0.05, 0.7, 0.9},
		}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.NumFactors(), "factors,", m.NumModalities(), "modalities,", m.NumActions(), "actions")
	for u := range m.NumActions() {
		fmt.Println("action", u, m.ActionName(u))
	}
	// The first observation: dark, and no draught.
	obs, _ := m.EncodeObs([]int{0, 0})
	qs, _ := pomdp.StatePosterior(nil, m, obs)
	for i, q := range qs {
		fmt.Printf("%-13s %.3f\n", m.StateName(i), q)
	}

	// A mistake is refused with the modality and the field.
	_, err = pomdp.NewFactorised(pomdp.FactorisedSpec{
		Factors:    []pomdp.Factor{{Name: "light", NumStates: 2, B: []float64{1, 0, 0, 1}, D: []float64{1, 0}}},
		Modalities: []pomdp.Modality{{Name: "sensor", NumOutcomes: 2, DependsOn: []string{"lamp"}, A: []float64{1, 0, 0, 1}}},
	})
	fmt.Println(err)
	// Output:
	// 2 factors, 2 modalities, 2 actions
	// action 0 keep
	// action 1 switch
	// light:left    0.900
	// light:right   0.100
	// door:closed   1.000
	// door:open     0.000
	// pomdp: modality "sensor": depends_on[0]: unknown factor "lamp" (factors: "light")
}
