package pomdp_test

import (
	"math"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// TestAgentView: with both A and a in a file, the process samples from A
// and the agent's view is E[a]: a = [[3, 1], [1, 1]] gives the columns
// (3/4, 1/4) and (1/2, 1/2); D without d stays.
func TestAgentView(t *testing.T) {
	m, err := pomdp.Parse([]byte(`{"A": [[0.9, 0.2], [0.1, 0.8]], "a": [[3, 1], [1, 1]],
		"B": [[[1, 0], [0, 1]]], "C": [0.5, 0.5], "D": [0.3, 0.7]}`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.AgentView()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ got, want float64 }{
		{m.A(0, 0), 0.9}, {v.A(0, 0), 0.75}, {v.A(1, 0), 0.25}, {v.A(0, 1), 0.5}, {v.D(1), 0.7},
	} {
		if math.Abs(c.got-c.want) > 1e-15 {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}
	plain, err := pomdp.Parse([]byte(`{"A": [[1, 0], [0, 1]], "B": [[[1, 0], [0, 1]]], "C": [0.5, 0.5], "D": [0.3, 0.7]}`))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := plain.AgentView(); v != plain {
		t.Error("a model without concentrations: want the model itself")
	}
}

// TestNewRefusesUnfitNames: names built in Go go through the same rule as
// the file's: a control or bidirectional character is refused (U+202E
// reverses the text a terminal shows).
func TestNewRefusesUnfitNames(t *testing.T) {
	sp := pomdp.Spec{NumStates: 1, NumObs: 1, NumActions: 1, A: []float64{1}, B: []float64{1}, C: []float64{1}, D: []float64{1},
		Actions: []string{"go\u202eleft"}}
	if _, err := pomdp.New(sp); err == nil || !strings.Contains(err.Error(), "U+202E") {
		t.Errorf("an action name with U+202E: %v", err)
	}
	fs := pomdp.FactorisedSpec{
		Factors:    []pomdp.Factor{{Name: "x\n", NumStates: 1, B: []float64{1}, D: []float64{1}}},
		Modalities: []pomdp.Modality{{Name: "o", NumOutcomes: 1, DependsOn: []string{"x\n"}, A: []float64{1}}},
	}
	if _, err := pomdp.NewFactorised(fs); err == nil || !strings.Contains(err.Error(), "U+000A") {
		t.Errorf("a factor name with a newline: %v", err)
	}
}
