package agent

import (
	"math"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// TestChoiceProbs: two controllable factors x (2 controls) and y (3
// controls) and a joint distribution P over the 6 joint actions. With
// IndependentActions the choice distribution is Px(cx)^α Py(cy)^α / (Zx
// Zy), Px and Py the row and column sums of the 2 × 3 table of P; with
// JointActions it is P^α / Z. For α = 1 the first is the product of the
// marginals: with the table below (rows cx, columns cy)
//
//	0.10 0.20 0.30   Px = 0.6
//	0.15 0.05 0.20   Px = 0.4
//	Py = 0.25 0.25 0.50
//
// P(cx = 0, cy = 2) = 0.6 · 0.5 = 0.3 and P(cx = 1, cy = 1) = 0.4 · 0.25 = 0.1.
func TestChoiceProbs(t *testing.T) {
	m, err := pomdp.Parse([]byte(`{"factors": [
	  {"name": "x", "controls": ["a", "b"], "B": [[[1]], [[1]]], "D": [1]},
	  {"name": "y", "controls": ["p", "q", "r"], "B": [[[1]], [[1]], [[1]]], "D": [1]}],
	  "modalities": [{"name": "o", "depends_on": ["x"], "A": [[1]]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.NumActions() != 6 {
		t.Fatalf("%d joint actions, want 6", m.NumActions())
	}
	table := [2][3]float64{{0.10, 0.20, 0.30}, {0.15, 0.05, 0.20}}
	probs := make([]float64, 6)
	var ctrl []int
	for u := range probs {
		ctrl = m.DecodeAction(ctrl, u)
		probs[u] = table[ctrl[0]][ctrl[1]]
	}
	px := [2]float64{0.6, 0.4}
	py := [3]float64{0.25, 0.25, 0.5}
	for _, alpha := range []float64{0, 1, 2.5} {
		got, err := ChoiceProbs(nil, m, probs, alpha, IndependentActions)
		if err != nil {
			t.Fatal(err)
		}
		zx := math.Pow(px[0], alpha) + math.Pow(px[1], alpha)
		zy := math.Pow(py[0], alpha) + math.Pow(py[1], alpha) + math.Pow(py[2], alpha)
		sum := 0.0
		for u, p := range got {
			ctrl = m.DecodeAction(ctrl, u)
			want := math.Pow(px[ctrl[0]], alpha) * math.Pow(py[ctrl[1]], alpha) / (zx * zy)
			if math.Abs(p-want) > 1e-15 {
				t.Errorf("α %v, u %d %v: independent %v, want %v", alpha, u, ctrl, p, want)
			}
			sum += p
		}
		if math.Abs(sum-1) > 1e-15 {
			t.Errorf("α %v: sums to %v", alpha, sum)
		}
		joint, err := ChoiceProbs(nil, m, probs, alpha, JointActions)
		if err != nil {
			t.Fatal(err)
		}
		pw, _ := PowerProbs(nil, probs, alpha)
		for u := range joint {
			if joint[u] != pw[u] {
				t.Errorf("α %v: joint %v, want PowerProbs %v", alpha, joint, pw)
				break
			}
		}
	}
	// The hand values at α = 1.
	got, _ := ChoiceProbs(nil, m, probs, 1, IndependentActions)
	for u, p := range got {
		ctrl = m.DecodeAction(ctrl, u)
		if ctrl[0] == 0 && ctrl[1] == 2 && math.Abs(p-0.3) > 1e-15 || ctrl[0] == 1 && ctrl[1] == 1 && math.Abs(p-0.1) > 1e-15 {
			t.Errorf("u %d %v: %v", u, ctrl, p)
		}
	}
	// Faults.
	if _, err := ChoiceProbs(nil, m, probs[:5], 1, IndependentActions); err == nil {
		t.Error("5 probabilities for 6 joint actions: no error")
	}
	if _, err := ChoiceProbs(nil, m, probs, -1, IndependentActions); err == nil {
		t.Error("α = -1: no error")
	}
	if _, err := ChoiceProbs(nil, nil, probs, 1, IndependentActions); err == nil {
		t.Error("nil model: no error")
	}
	if _, err := ChoiceProbs(nil, m, probs, 1, ActionFactors(7)); err == nil {
		t.Error("ActionFactors(7): no error")
	}
	for _, s := range []string{"joint", "independent"} {
		a, err := ParseActionFactors(s)
		if err != nil || a.String() != s || !a.Valid() {
			t.Errorf("%q: %v %v", s, a, err)
		}
	}
	if _, err := ParseActionFactors("both"); err == nil {
		t.Error(`"both": no error`)
	}
}
