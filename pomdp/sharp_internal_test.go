package pomdp

import (
	"math"
	"testing"
)

// TestStepCostOnReadsSharpTable: StepCostOn takes a sharp belief's risk
// from the model's table (a value written into the table comes back),
// and only for a belief sure of one state of every factor the modality
// reads: a support of one state at a probability other than 1, or of two
// states, is summed.
func TestStepCostOnReadsSharpTable(t *testing.T) {
	m, err := Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	// The T-maze: location (4 states) and context (2). "where" reads the
	// location (column 2 of location 2); "cue" and "reward" read both,
	// location first, so location 2 and context 1 are column 2·2 + 1.
	qs := make([]float64, m.NumStates())
	qs[2], qs[4+1] = 1, 1
	var sup Support
	sup.Set(m, qs)
	col := []int{2, 5, 5}
	for i := range m.mods {
		md := &m.mods[i]
		if j, ok := m.sharpColumn(md, qs, &sup); !ok || j != col[i] {
			t.Fatalf("modality %d: sharpColumn = %d, %v; want %d, true", i, j, ok, col[i])
		}
	}
	r0, a0, _ := StepCostOn(m, qs, nil, &sup)
	for i := range m.mods {
		m.mods[i].sharpRisk[col[i]] += 1000
	}
	r1, a1, _ := StepCostOn(m, qs, nil, &sup)
	// 3,000 added to each term of a sum of three: within rounding of r0 + 3,000.
	if want := r0 + 1000*float64(len(m.mods)); math.Abs(r1-want) > 1e-9 || a1 != a0 {
		t.Errorf("risk with the table raised: %v, ambiguity %v; want %v, %v", r1, a1, want, a0)
	}
	for _, q := range [][2]float64{{0.75, 0}, {0.5, 0.5}} {
		qs[4], qs[5] = q[0], q[1]
		sup.Set(m, qs)
		for i := range m.mods[1:] {
			if _, ok := m.sharpColumn(&m.mods[1+i], qs, &sup); ok {
				t.Errorf("context %v: modality %d, which reads the context, taken as sharp", q, 1+i)
			}
		}
	}
}
