package model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
)

// TestParseErrorFields checks the structure of the error, not only its
// text: File, Field and the fault are separate, so callers can rely on them.
func TestParseErrorFields(t *testing.T) {
	cases := []struct {
		name, json, field, fault string
	}{
		{"no variables", `{"factors": []}`, "variables", "missing or empty"},
		{"unnamed", `{"variables": [{"family": "gamma"}]}`, "variables[0].name", "missing"},
		{"top-level field", `{"variables": [], "varables": []}`, "varables", "unknown field (fields: variables, factors, settings)"},
		{"factor field", `{"variables": [{"name": "s", "family": "categorical", "shape": [2]}],
			"factors": [{"node": "categorical", "out": "s", "p": [0.5, 0.5], "alpha": [1, 1]}]}`,
			"factors[0] (categorical).alpha", "not a field of a categorical node"},
		{"no out", `{"variables": [{"name": "s", "family": "categorical", "shape": [2]}],
			"factors": [{"node": "categorical", "p": [0.5, 0.5]}]}`, "factors[0] (categorical).out", "missing"},
		{"softmax values", `{"variables": [{"name": "pi", "family": "categorical", "shape": [2]}, {"name": "g", "family": "gamma"}],
			"factors": [{"node": "softmax", "out": "pi", "precision": "g", "values": [1, 2, 3]}]}`,
			"factors[0] (softmax).values", "shape [3], want [2]"},
		{"iterations", `{"variables": [{"name": "s", "family": "categorical", "shape": [2]}], "settings": {"iterations": 0}}`,
			"settings.iterations", "want a whole number in 1..1000000"},
		{"trailing", `{"variables": []} {}`, "", "data after the top-level object"},
		{"not an object", `[1, 2]`, "", "want a JSON object, got JSON array"},
		{"empty", ``, "", "malformed JSON: empty file"},
		{"too big", fmt.Sprintf(`{"variables": [{"name": "A", "family": "dirichlet", "shape": [%d, 2]}]}`, MaxElements),
			`variables[0] ("A").shape`, fmt.Sprintf("more than %d entries", MaxElements)},
		{"too big in all", fmt.Sprintf(`{"variables": [{"name": "a", "family": "categorical", "shape": [%d]}, {"name": "b", "family": "categorical", "shape": [%d]}]}`, MaxElements/2+1, MaxElements/2),
			`variables[1] ("b").shape`, "more than 8388608 entries in all"},
	}
	for _, tc := range cases {
		_, err := Parse("m.json", []byte(tc.json))
		var me *Error
		if !errors.As(err, &me) {
			t.Errorf("%s: error %v (%T), want *Error", tc.name, err, err)
			continue
		}
		if me.File != "m.json" || me.Field != tc.field || !strings.Contains(me.Err.Error(), tc.fault) {
			t.Errorf("%s: got file %q field %q fault %q; want field %q, fault containing %q", tc.name, me.File, me.Field, me.Err, tc.field, tc.fault)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: multi-line error %q", tc.name, err)
		}
	}
}

// TestParseBuildsGraph checks what a valid file turns into: families,
// shapes, observations, file order and settings.
func TestParseBuildsGraph(t *testing.T) {
	m, err := Parse("m.json", []byte(`{
	  "variables": [
	    {"name": "g", "family": "gamma", "shape": [1]},
	    {"name": "pi", "family": "categorical", "shape": [3]},
	    {"name": "o", "family": "categorical", "shape": [2], "observed": [0.25, 0.75]},
	    {"name": "B", "family": "dirichlet", "shape": [2, 3]}],
	  "factors": [
	    {"node": "gamma", "out": "g", "shape": 2, "rate": 4},
	    {"node": "softmax", "out": "pi", "precision": "g", "values": [1, 2, 3]},
	    {"node": "dirichlet", "out": "B", "alpha": [[1, 2, 3], [4, 5, 6]]},
	    {"node": "transition", "out": "o", "in": ["pi"], "matrix": "B"}],
	  "settings": {"iterations": 7, "tolerance": 1e-6}}`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range m.Variables {
		names = append(names, v.Name())
	}
	if got := strings.Join(names, " "); got != "g pi o B" {
		t.Errorf("variables in order %q", got)
	}
	if m.Settings.Iterations != 7 || m.Settings.Tolerance != 1e-6 {
		t.Errorf("settings %+v", m.Settings)
	}
	if g := m.Variables[0].Gamma(); g.Shape != 2 || g.Rate != 4 {
		t.Errorf("gamma initial posterior %+v, want its prior (2, 4)", g)
	}
	o := m.Variables[2]
	if !o.Observed() || o.Probs()[0] != 0.25 || o.Probs()[1] != 0.75 {
		t.Errorf("soft evidence %v", o.Probs())
	}
	b := m.Variables[3]
	if b.Family() != expfam.DirichletFamily || fmt.Sprint(b.Shape()) != "[2 3]" || fmt.Sprint(b.Alpha()) != "[1 2 3 4 5 6]" {
		t.Errorf("B: %v %v %v", b.Family(), b.Shape(), b.Alpha())
	}
	if n := len(m.Graph.Factors()); n != 4 {
		t.Errorf("%d factors, want 4", n)
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent.json")
	_, err := Load(path)
	var me *Error
	if !errors.As(err, &me) || me.File != path || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want *Error for %s wrapping ErrNotExist", err, path)
	}
	if got, want := err.Error(), "model: "+path+": no such file or directory"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// BenchmarkParse measures loading the 8-step HMM example model.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("../examples/models/hmm.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("hmm.json", data); err != nil {
			b.Fatal(err)
		}
	}
}
