package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// TestAppendFloat checks the number format against encoding/json on values
// of every magnitude; a non-finite value is null.
func TestAppendFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 1.5e300, 5e-324, math.MaxFloat64}
	for range 2000 {
		vals = append(vals, (rng.Float64()-0.5)*math.Pow(10, float64(rng.IntN(80)-40)))
	}
	for _, v := range vals {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendFloat(nil, v); !bytes.Equal(got, want) {
			t.Errorf("AppendFloat(%v) = %s, encoding/json %s", v, got, want)
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := string(AppendFloat(nil, v)); got != "null" {
			t.Errorf("AppendFloat(%v) = %s, want null", v, got)
		}
		if b, _ := json.Marshal(Floats([]float64{v})); string(b) != "[null]" {
			t.Errorf("Floats(%v) = %s, want [null]", v, b)
		}
	}
}

// TestConcentrations: learned concentrations in the file's shapes, keyed
// by factor and modality for a factorised model, only those learned.
func TestConcentrations(t *testing.T) {
	m, err := pomdp.Load("../../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	c := &pomdp.Concentrations{A: make([][]float64, 3), B: make([][]float64, 2), D: [][]float64{nil, {2, 3}}}
	b, err := json.Marshal(Concentrations(m, c))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"factors":{"context":{"d":[2,3]}},"modalities":{}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	if Concentrations(m, nil) != nil || Concentrations(m, &pomdp.Concentrations{}) != nil {
		t.Error("nothing learned: want nil")
	}
	if b, _ := json.Marshal(Nest([]float64{1, 2, 3, 4, 5, 6}, []int{2, 1, 3})); string(b) != "[[[1,2,3]],[[4,5,6]]]" {
		t.Errorf("Nest: %s", b)
	}
}

// TestReason drops the first library prefix only, and leaves a message
// without one alone.
func TestReason(t *testing.T) {
	for msg, want := range map[string]string{
		"pomdp: B[0]: column 1 sums to 0.9":      "B[0]: column 1 sums to 0.9",
		"aci: pomdp: model: nil":                 "pomdp: model: nil",
		"model: m.json: variables[0]: bad":       "m.json: variables[0]: bad",
		"--model m.json: B: bad":                 "--model m.json: B: bad",
		"fitting: x":                             "fitting: x",
		"open x.json: no such file or directory": "open x.json: no such file or directory",
	} {
		if got := Reason(errors.New(msg)); got != want {
			t.Errorf("Reason(%q) = %q, want %q", msg, got, want)
		}
	}
}
