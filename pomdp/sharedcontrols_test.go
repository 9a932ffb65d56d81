package pomdp

import (
	"encoding/json"
	"strings"
	"testing"
)

// sharedToy: factor x (2 states) with controls stay and flip; factor y (2
// states) shares x's controls (flip swaps both); one modality per factor.
const sharedToy = `{"factors": [
  {"name": "x", "controls": ["stay", "flip"], "D": [1, 0], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]]},
  {"name": "y", "controls_of": "x", "D": [0.25, 0.75], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]]}],
 "modalities": [
  {"name": "ox", "depends_on": ["x"], "A": [[1, 0], [0, 1]]},
  {"name": "oy", "depends_on": ["y"], "A": [[1, 0], [0, 1]]}]}`

// TestSharedControls: a factor sharing another's controls moves under the
// same action, and the joint actions are the owner's alone.
func TestSharedControls(t *testing.T) {
	m, err := Parse([]byte(sharedToy))
	if err != nil {
		t.Fatal(err)
	}
	if m.NumActions() != 2 || m.ActionName(1) != "flip" || m.ControlOwner(1) != 0 || m.FactorControls(1) != 2 {
		t.Fatalf("%d actions, action 1 %q, owner %d, controls %d; want 2, flip, 0, 2", m.NumActions(), m.ActionName(1), m.ControlOwner(1), m.FactorControls(1))
	}
	next := make([]float64, 4)
	Propagate(m, next, []float64{1, 0, 0.25, 0.75}, 1)
	if want := []float64{0, 1, 0.75, 0.25}; !equalFloats(next, want) {
		t.Errorf("flip: %v, want %v", next, want)
	}
	if got := m.DecodeAction(nil, 1); got[0] != 1 || got[1] != 1 {
		t.Errorf("DecodeAction(1) = %v, want [1 1]", got)
	}
	if u, err := m.EncodeControls([]int{1, 0}); err != nil || u != 1 {
		t.Errorf("EncodeControls([1 0]) = %d, %v; want 1 (y's entry ignored)", u, err)
	}
	data, err := json.Marshal(m.FactorisedSpec())
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(data)
	if err != nil || back.NumActions() != 2 || back.ControlOwner(1) != 0 {
		t.Errorf("round trip: %v, %s", err, data)
	}
	for _, tc := range []struct{ from, to, want string }{
		{`"controls_of": "x"`, `"controls_of": "z"`, `factor "y": controls_of: unknown factor "z"`},
		{`"controls_of": "x"`, `"controls_of": "x", "controls": ["a", "b"]`, `factor "y": controls and controls_of: both given`},
		{`"controls_of": "x"`, `"controls_of": 3`, `controls_of: want a factor name, got JSON number`},
		{`"controls": ["stay", "flip"], "D": [1, 0], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]]`, `"D": [1, 0], "B": [[[1, 0], [0, 1]]]`, `factor "y": controls_of: factor "x" has no controls`},
		{`"controls_of": "x", "D": [0.25, 0.75], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]]`, `"controls_of": "x", "D": [0.25, 0.75], "B": [[[1, 0], [0, 1]]]`, `factor "y": B: 1 matrices, want 2 (one per control of "x")`},
	} {
		_, err := Parse([]byte(strings.Replace(sharedToy, tc.from, tc.to, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.to, err, tc.want)
		}
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
