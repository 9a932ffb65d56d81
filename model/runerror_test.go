package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/schedule"
)

// runErrorModel: s hidden, o observed with a transition from s, and a gamma.
const runErrorModel = `{"variables": [
  {"name": "s", "family": "categorical", "shape": [2]},
  {"name": "o", "family": "categorical", "shape": [2], "observed": 1},
  {"name": "g", "family": "gamma"}],
 "factors": [
  {"node": "categorical", "out": "s", "p": [0.5, 0.5]},
  {"node": "transition", "out": "o", "in": ["s"], "matrix": [[0.9, 0.2], [0.1, 0.8]]},
  {"node": "gamma", "out": "g", "shape": 1, "rate": 1}]}`

// TestRunErrorFields checks how each failure of a run maps to a field of
// the file: the mapping itself, with the errors schedule.Run returns built
// by hand where no model file within the load-time bounds can produce them
// (model files hit the other branches in cmd/arbor's tests).
func TestRunErrorFields(t *testing.T) {
	m, err := Parse("m.json", []byte(runErrorModel))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Factors) != 3 || m.Factors[1].Factor().Kind() != "transition" {
		t.Fatalf("factors %v, want the 3 of the file in order", m.Factors)
	}
	g := m.Variables[2]
	cases := []struct {
		name         string
		err          error
		field, fault string
	}{
		{"NaN posterior", fmt.Errorf("schedule: sweep 1: %w", &ffg.NaNError{Variable: `"s"`, Detail: "all -Inf"}),
			`variables[0] ("s")`, "inference produced an invalid posterior: all -Inf"},
		// The transition has a hidden neighbour, s: not evidence alone.
		{"factor with a hidden neighbour", &schedule.EnergyError{Sweep: 3, F: math.Inf(1), Factor: m.Factors[1], Term: math.Inf(1)},
			"factors[1] (transition)", "average energy E_q[-ln f] is +Inf after sweep 3"},
		// NaN, not +Inf: not a probability-0 event even if all were observed.
		{"NaN factor term", &schedule.EnergyError{Sweep: 1, F: math.NaN(), Factor: m.Factors[2], Term: math.NaN()},
			"factors[2] (gamma)", "average energy E_q[-ln f] is NaN after sweep 1"},
		{"entropy", &schedule.EnergyError{Sweep: 2, F: math.NaN(), Variable: g, Term: math.NaN()},
			`variables[2] ("g")`, "entropy of the posterior is NaN after sweep 2"},
		{"sum only", &schedule.EnergyError{Sweep: 4, F: math.Inf(-1)},
			"", "free energy is -Inf after sweep 4"},
	}
	for _, tc := range cases {
		got := m.RunError(tc.err)
		var me *Error
		if !errors.As(got, &me) {
			t.Errorf("%s: %v (%T), want *Error", tc.name, got, got)
			continue
		}
		if me.File != "m.json" || me.Field != tc.field || !strings.HasPrefix(me.Err.Error(), tc.fault) {
			t.Errorf("%s: file %q field %q fault %q; want field %q, fault starting %q", tc.name, me.File, me.Field, me.Err, tc.field, tc.fault)
		}
	}
	// Cancellation is not the file's fault: wrapped with the name, not an *Error.
	got := m.RunError(fmt.Errorf("schedule: stopped: %w", context.Canceled))
	var me *Error
	if errors.As(got, &me) || !errors.Is(got, context.Canceled) || !strings.HasPrefix(got.Error(), "model: m.json: ") {
		t.Errorf("cancellation: %v", got)
	}
	if m.RunError(nil) != nil {
		t.Error("RunError(nil) != nil")
	}
}

// TestRunErrorImpossibleEvidence runs inference for real: o = 1 observed
// under the literal p = (1, 0) gives F = -ln 0 = +Inf, blamed on the
// observed field of o.
func TestRunErrorImpossibleEvidence(t *testing.T) {
	m, err := Parse("m.json", []byte(`{"variables": [
	  {"name": "s", "family": "categorical", "shape": [2]},
	  {"name": "o", "family": "categorical", "shape": [2], "observed": 1}],
	 "factors": [{"node": "categorical", "out": "s", "p": [0.5, 0.5]},
	             {"node": "categorical", "out": "o", "p": [1, 0]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = schedule.Run(context.Background(), m.Graph, &m.Settings)
	want := `model: m.json: variables[1] ("o").observed: evidence has probability 0 under the model (factors[1] (categorical) gives it probability 0)`
	if got := m.RunError(err); got == nil || got.Error() != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// TestParseNumericBounds: MaxConcentration and MaxGammaMean are inclusive
// bounds; the least float64 above each is refused.
func TestParseNumericBounds(t *testing.T) {
	above := math.Nextafter(MaxConcentration, math.Inf(1))
	dir := func(alpha string) string {
		return `{"variables": [{"name": "A", "family": "dirichlet", "shape": [2, 2, 2]}],
		  "factors": [{"node": "dirichlet", "out": "A", "alpha": ` + alpha + `}]}`
	}
	gam := func(shape, rate float64) string {
		return fmt.Sprintf(`{"variables": [{"name": "g", "family": "gamma"}],
		  "factors": [{"node": "gamma", "out": "g", "shape": %v, "rate": %v}]}`, shape, rate)
	}
	ok := []string{
		dir(`[[[1, 1], [1, 4e9]], [[1, 1], [1, 6e9]]]`), // column [1 1]: 4e9 + 6e9 = 1e10
		gam(MaxConcentration, 1),                        // shape 1e10, mean 1e10
		gam(1, 1/MaxGammaMean),                          // mean 1 / 1e-10 = 1e10
	}
	for _, text := range ok {
		if _, err := Parse("m.json", []byte(text)); err != nil {
			t.Errorf("at the bound: %v", err)
		}
	}
	bad := []struct{ text, field, fault string }{
		{dir(fmt.Sprintf(`[[[1, 1], [1, %v]], [[1, 1], [1, 1]]]`, above-1)), "factors[0] (dirichlet).alpha",
			"column [1 1] sums to 1.0000000000000002e+10, want at most 1e+10"},
		{gam(above, 1), "factors[0] (gamma).shape", "want at most 1e+10"},
		{gam(2, 1e-10), "factors[0] (gamma).rate", "1e-10 gives the prior mean shape/rate = 2e+10, want at most 1e+10"},
	}
	for _, tc := range bad {
		_, err := Parse("m.json", []byte(tc.text))
		var me *Error
		if !errors.As(err, &me) || me.Field != tc.field || !strings.Contains(me.Err.Error(), tc.fault) {
			t.Errorf("got %v, want field %q, fault %q", err, tc.field, tc.fault)
		}
	}
}
