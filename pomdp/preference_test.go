package pomdp

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The two-modality toy of the joint-preference tests: factors f1 and f2
// (two states each, not controlled, B the identity); modality x reports f1
// through A_x = [[0.9, 0.2], [0.1, 0.8]], modality y reports f2 exactly.
const prefToyBase = `{"factors": [
  {"name": "f1", "D": [0.5, 0.5], "B": [[[1, 0], [0, 1]]]},
  {"name": "f2", "D": [0.5, 0.5], "B": [[[1, 0], [0, 1]]]}],
 "modalities": [
  {"name": "x", "depends_on": ["f1"], "A": [[0.9, 0.2], [0.1, 0.8]]XC},
  {"name": "y", "depends_on": ["f2"], "A": [[1, 0], [0, 1]]YC}]PREFS}`

func prefToy(t *testing.T, xc, yc, prefs string) *Model {
	t.Helper()
	r := strings.NewReplacer("XC", xc, "YC", yc, "PREFS", prefs)
	m, err := Parse([]byte(r.Replace(prefToyBase)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestJointPreferenceHand: the risk of a joint preference over (x, y),
// C = [[0.4, 0.1], [0.1, 0.4]] (not a product), at Q(f1) = [0.5, 0.5],
// Q(f2) = [0.75, 0.25]. By hand: Q(x) = A_x Q(f1) = [0.55, 0.45], Q(y) =
// [0.75, 0.25]; the joint outcome is predicted as Q(x) ⊗ Q(y), whose mass
// on the diagonal (C = 0.4) is 0.55·0.75 + 0.45·0.25 = 0.525 and off it
// (C = 0.1) 0.475, so
//
//	risk = Σ Q(x) ln Q(x) + Σ Q(y) ln Q(y) - 0.525 ln 0.4 - 0.475 ln 0.1
//	ambiguity = 0.5 H[0.9, 0.1] + 0.5 H[0.2, 0.8] (y is exact: 0)
func TestJointPreferenceHand(t *testing.T) {
	m := prefToy(t, "", "", `, "preferences": [{"modalities": ["x", "y"], "C": [[0.4, 0.1], [0.1, 0.4]]}]`)
	xlx := func(p float64) float64 { return p * math.Log(p) }
	wantRisk := xlx(0.55) + xlx(0.45) + xlx(0.75) + xlx(0.25) - 0.525*math.Log(0.4) - 0.475*math.Log(0.1)
	wantAmb := -0.5*(xlx(0.9)+xlx(0.1)) - 0.5*(xlx(0.2)+xlx(0.8))
	qs := []float64{0.5, 0.5, 0.75, 0.25}
	r, a, _ := StepCost(m, qs, nil)
	if math.Abs(r-wantRisk) > 1e-12 || math.Abs(a-wantAmb) > 1e-12 {
		t.Errorf("StepCost = %.15g, %.15g; want %.15g, %.15g", r, a, wantRisk, wantAmb)
	}
	qo := make([]float64, m.ObsLen())
	PredictObs(m, qo, qs)
	if got := ObsRisk(m, qo); math.Abs(got-wantRisk) > 1e-12 {
		t.Errorf("ObsRisk = %.15g, want %.15g", got, wantRisk)
	}
	wantCross := -0.525*math.Log(0.4) - 0.475*math.Log(0.1)
	if got := ObsCrossEntropy(m, qo); math.Abs(got-wantCross) > 1e-12 {
		t.Errorf("ObsCrossEntropy = %.15g, want %.15g", got, wantCross)
	}
	if m.NumPreferences() != 1 || m.ModalityC(0) != nil || m.PreferenceModalities(0)[1] != 1 {
		t.Errorf("preferences %d, C of x %v, modalities %v", m.NumPreferences(), m.ModalityC(0), m.PreferenceModalities(0))
	}
}

// TestJointPreferenceProduct: a joint table that is the product of two
// per-modality targets gives the risk of those targets, for beliefs drawn
// over a grid, in both the dense and the sparse form of the table (a table
// mostly of one value is held sparse).
func TestJointPreferenceProduct(t *testing.T) {
	for _, tc := range []struct{ cx, cy []float64 }{
		{[]float64{0.3, 0.7}, []float64{0.2, 0.8}},   // dense
		{[]float64{0.5, 0.5}, []float64{0.25, 0.75}}, // half the table one value: dense
		{[]float64{0.5, 0.5}, []float64{0.5, 0.5}},   // one value: sparse, no entry
	} {
		js := func(x []float64) string { b, _ := json.Marshal(x); return string(b) }
		per := prefToy(t, `, "C": `+js(tc.cx), `, "C": `+js(tc.cy), "")
		tab := [][]float64{{tc.cx[0] * tc.cy[0], tc.cx[0] * tc.cy[1]}, {tc.cx[1] * tc.cy[0], tc.cx[1] * tc.cy[1]}}
		b, _ := json.Marshal(tab)
		joint := prefToy(t, "", "", `, "preferences": [{"modalities": ["x", "y"], "C": `+string(b)+`}]`)
		for _, p := range []float64{0, 0.1, 0.5, 0.9, 1} {
			for _, q := range []float64{0, 0.3, 1} {
				qs := []float64{p, 1 - p, q, 1 - q}
				r1, a1, _ := StepCost(per, qs, nil)
				r2, a2, _ := StepCost(joint, qs, nil)
				if math.Abs(r1-r2) > 1e-12 || a1 != a2 {
					t.Errorf("C %v %v, qs %v: per modality %.15g %.15g, joint %.15g %.15g", tc.cx, tc.cy, qs, r1, a1, r2, a2)
				}
			}
		}
	}
}

// TestJointPreferenceSparse: the sparse form of a table (one value almost
// everywhere, as dSprites' goal rows) gives the dense sum's expectation.
func TestJointPreferenceSparse(t *testing.T) {
	tab := make([]float64, 3*4*5)
	tab[7], tab[8], tab[33], tab[59] = 5, 1, -5, -2 // 7 and 8 share the outcomes of a and b
	p := Preference{Modalities: []string{"a", "b", "c"}, LogC: tab}
	var fs FactorisedSpec
	for i, n := range []int{3, 4, 5} {
		name := string(rune('a' + i))
		a := make([]float64, n*n)
		b := make([]float64, n*n)
		d := make([]float64, n)
		for s := range n {
			d[s] = 1 / float64(n)
			b[s*n+s] = 1
			for o := range n {
				a[o*n+s] = 1 / float64(n)
			}
		}
		fs.Factors = append(fs.Factors, Factor{Name: name, NumStates: n, B: b, D: d})
		fs.Modalities = append(fs.Modalities, Modality{Name: name, NumOutcomes: n, DependsOn: []string{name}, A: a})
	}
	fs.Preferences = []Preference{p}
	m, err := NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	if !m.prefs[0].sparse || len(m.prefs[0].dev) != 4 || len(m.prefs[0].gEnd) != 3 {
		t.Fatalf("sparse %v with %d entries in %d groups, want true with 4 in 3", m.prefs[0].sparse, len(m.prefs[0].dev), len(m.prefs[0].gEnd))
	}
	qo := []float64{0.2, 0.3, 0.5, 0.1, 0.2, 0.3, 0.4, 0.05, 0.15, 0.2, 0.25, 0.35}
	want := 0.0 // brute force over the 60 joint outcomes
	for i := range 3 {
		for j := range 4 {
			for k := range 5 {
				want += qo[i] * qo[3+j] * qo[7+k] * m.prefs[0].logC[(i*4+j)*5+k]
			}
		}
	}
	if got := -ObsCrossEntropy(m, qo); math.Abs(got-want) > 1e-12 {
		t.Errorf("E[ln C] = %.15g, want %.15g", got, want)
	}
}

// TestJointPreferenceRoundTrip: a model with a joint preference written by
// MarshalJSON reads back to the same table and costs.
func TestJointPreferenceRoundTrip(t *testing.T) {
	m := prefToy(t, "", "", `, "preferences": [{"modalities": ["y", "x"], "log_C": [[0, 1], [2, 3]]}]`)
	data, err := json.Marshal(m.FactorisedSpec())
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	qs := []float64{0.3, 0.7, 0.6, 0.4}
	r1, _, _ := StepCost(m, qs, nil)
	r2, _, _ := StepCost(back, qs, nil)
	if r1 != r2 || back.PreferenceModalities(0)[0] != 1 {
		t.Errorf("risk %v, read back %v; modalities %v", r1, r2, back.PreferenceModalities(0))
	}
	// Sharpening a joint preference doubles its log table.
	sharp, err := ScaleModel(m, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := sharp.PreferenceC(0)
	if got, want := math.Log(c[3]/c[0]), 6.0; math.Abs(got-want) > 1e-12 {
		t.Errorf("sharpened ln C ratio %v, want %v", got, want)
	}
}

// TestJointPreferenceErrors: every fault of a preference is one line naming
// the preference, the field and the reason.
func TestJointPreferenceErrors(t *testing.T) {
	for _, tc := range []struct{ xc, prefs, want string }{
		{"", `, "preferences": [{"modalities": ["x", "z"], "C": [[0.25, 0.25], [0.25, 0.25]]}]`,
			`preferences[0]: modalities[1]: unknown modality "z" (modalities: "x", "y")`},
		{"", `, "preferences": [{"modalities": ["x", "x"], "C": [[0.25, 0.25], [0.25, 0.25]]}]`,
			`preferences[0]: modalities[1]: modality "x" listed twice (also modalities[0])`},
		{"", `, "preferences": [{"modalities": ["x", "y"], "C": [[0.5, 0.5]]}]`,
			`preferences[0]: C: 1 entries, want 2 (outcomes of "x"; C is indexed [x][y])`},
		{"", `, "preferences": [{"modalities": ["x", "y"], "C": [0.25, 0.25, 0.25, 0.25]}]`,
			`preferences[0]: C: 4 entries, want 2 (outcomes of "x"; C is indexed [x][y])`},
		{"", `, "preferences": [{"modalities": ["x", "y"], "C": [[0.5, 0.75], [0.25, -0.5]]}]`,
			`preferences[0]: C[1][1]: negative probability -0.5`},
		{"", `, "preferences": [{"modalities": ["x", "y"], "C": [[0.5, 0.5], [0.5, 0.5]]}]`,
			`preferences[0]: C: not a distribution: sums to 2, want 1 (tolerance 1e-6)`},
		{"", `, "preferences": [{"modalities": ["x", "y"], "log_C": [[0, 1e400], [0, 0]]}]`,
			`preferences[0]: log_C[0][1]: want a number, got 1e400`},
		{"", `, "preferences": [{"modalities": ["x", "y"]}]`,
			`preferences[0]: C: missing (give C or log_C over the joint outcomes)`},
		{"", `, "preferences": [{"C": [0.5, 0.5]}]`,
			`preferences[0]: modalities: missing`},
		{"", `, "preferences": [{"modalities": [], "C": []}]`,
			`preferences[0]: modalities: empty, want at least one modality`},
		{`, "C": [0.5, 0.5]`, `, "preferences": [{"modalities": ["x"], "C": [0.5, 0.5]}]`,
			`preferences[0]: modalities[0]: modality "x" has its own C or log_C`},
		{"", `, "preferences": [{"modalities": ["x"], "C": [0.5, 0.5]}, {"modalities": ["y", "x"], "C": [[0.25, 0.25], [0.25, 0.25]]}]`,
			`preferences[1]: modalities[1]: modality "x" is already in preferences[0]`},
		{"", `, "preferences": [{"modalities": ["x"], "C": [0.5, 0.5], "D": 1}]`,
			`preferences[0]: unknown field "D" (known: modalities, C, log_C)`},
	} {
		r := strings.NewReplacer("XC", tc.xc, "YC", "", "PREFS", tc.prefs)
		_, err := Parse([]byte(r.Replace(prefToyBase)))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line containing %q", tc.prefs, err, tc.want)
		}
	}
}
