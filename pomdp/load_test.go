package pomdp

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A valid 2-observation, 3-state, 2-action model used as the base of the
// bad-input cases below.
const (
	okA = `"A": [[0.5, 1, 0.25], [0.5, 0, 0.75]]`
	okB = `"B": [[[1,0,0],[0,1,0],[0,0,1]], [[0,0,1],[1,0,0],[0,1,0]]]`
	okC = `"C": [0.9, 0.1]`
	okD = `"D": [0.2, 0.3, 0.5]`
)

func model(fields ...string) string { return "{" + strings.Join(fields, ", ") + "}" }

func TestParseValid(t *testing.T) {
	m, err := Parse([]byte(model(okA, okB, okC, okD,
		`"C_states": [0, 0, 1]`, `"actions": ["stay", "rotate"]`,
		`"observations": ["dark", "light"]`, `"states": ["x", "y", "z"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if m.NumStates() != 3 || m.NumObs() != 2 || m.NumActions() != 2 {
		t.Fatalf("sizes %d %d %d, want 3 2 2", m.NumStates(), m.NumObs(), m.NumActions())
	}
	// B[1][0][2] = 1: action "rotate" takes state 2 to state 0 (from the JSON).
	if m.B(1, 0, 2) != 1 || m.A(1, 2) != 0.75 || m.C(0) != 0.9 || m.D(2) != 0.5 {
		t.Error("accessors disagree with the JSON")
	}
	if !m.HasCStates() || m.ActionName(1) != "rotate" || m.ObsName(0) != "dark" || m.StateName(2) != "z" {
		t.Error("optional fields not kept")
	}

	// Only concentrations: A, B, D are their expectations (normalised
	// columns): a column [1, 3] gives [0.25, 0.75], a column [1, 1]
	// gives [0.5, 0.5].
	m, err = Parse([]byte(model(
		`"a": [[1, 2, 1], [3, 2, 1]]`,
		`"b": [[[1,1,1],[1,1,1],[2,2,2]]]`,
		`"d": [1, 1, 2]`, okC)))
	if err != nil {
		t.Fatal(err)
	}
	if m.A(1, 0) != 0.75 || m.A(0, 2) != 0.5 || m.B(0, 2, 1) != 0.5 || m.D(2) != 0.5 {
		t.Error("expectations of the concentrations wrong")
	}
	if a, b, d := m.Learnable(); !a || !b || !d {
		t.Error("Learnable() false")
	}
	// Round trip through Spec.
	m2, err := New(m.Spec())
	if err != nil || m2.A(1, 0) != 0.75 {
		t.Errorf("New(m.Spec()): %v", err)
	}
}

func TestParseBadInput(t *testing.T) {
	tests := []struct {
		name, json, want string // want: substring of the error
	}{
		// Syntax and structure.
		{"not JSON", `{"A": [`, "invalid JSON"},
		{"null document", `null`, "want a JSON object"},
		{"array document", `[1, 2]`, "cannot use"},
		{"unknown field", model(okA, okB, okC, okD, `"E": 1`), `unknown field "E"`},
		{"wrong case", model(okA, okB, `"c": [0.9, 0.1]`, okD), `unknown field "c"`},
		{"string number", model(`"A": [["x", 1, 1], [0, 0, 0]]`, okB, okC, okD), "A: cannot use JSON string"},
		{"trailing data", model(okA, okB, okC, okD) + ` {}`, "invalid JSON"},
		// Missing required fields.
		{"missing A", model(okB, okC, okD), "A: missing"},
		{"missing B", model(okA, okC, okD), "B: missing"},
		{"missing C", model(okA, okB, okD), "C: missing"},
		{"missing D", model(okA, okB, okC), "D: missing"},
		{"null A", model(`"A": null`, okB, okC, okD), "A: missing"},
		// Empty arrays.
		{"empty A", model(`"A": []`, okB, okC, okD), "A: empty"},
		{"empty A row", model(`"A": [[], []]`, okB, okC, okD), "A: row 0 is empty"},
		{"empty B", model(okA, `"B": []`, okC, okD), "B: empty"},
		{"empty B[0]", model(okA, `"B": [[]]`, okC, okD), "B[0]: empty"},
		{"empty C", model(okA, okB, `"C": []`, okD), "C: empty"},
		{"empty D", model(okA, okB, okC, `"D": []`), "D: empty"},
		// Ragged arrays.
		{"ragged A", model(`"A": [[0.5, 1, 0.25], [0.5, 0]]`, okB, okC, okD), "A: row 1 has 2 entries, want 3"},
		{"ragged B", model(okA, `"B": [[[1,0,0],[0,1],[0,0,1]], [[0,0,1],[1,0,0],[0,1,0]]]`, okC, okD), "B[0]: row 1 has 2 entries, want 3"},
		// Inconsistent sizes.
		{"B rows", model(okA, `"B": [[[1,0],[0,1]]]`, okC, okD), "B[0]: 2 rows, want 3 (number of states, from A)"},
		{"C size", model(okA, okB, `"C": [0.5, 0.25, 0.25]`, okD), "C: 3 entries, want 2 (number of observations, from A)"},
		{"D size", model(okA, okB, okC, `"D": [0.5, 0.5]`), "D: 2 entries, want 3 (number of states, from A)"},
		{"C_states size", model(okA, okB, okC, okD, `"C_states": [1]`), "C_states: 1 entries, want 3"},
		{"a shape", model(okA, okB, okC, okD, `"a": [[1, 1, 1]]`), "a: 1 rows, want 2 (shape of A)"},
		{"b count", model(okA, okB, okC, okD, `"b": [[[1,1,1],[1,1,1],[1,1,1]]]`), "b: 1 matrices, want 2 (number of actions, from B)"},
		{"d size", model(okA, okB, okC, okD, `"d": [1, 1]`), "d: 2 entries, want 3"},
		// Log-preferences and layouts of other tools.
		{"C and log_C", model(okA, okB, okC, okD, `"log_C": [0, 1]`), "C and log_C: both given, want one"},
		{"C_states and log_C_states", model(okA, okB, okC, okD, `"C_states": [0.2, 0.3, 0.5]`, `"log_C_states": [0, 0, 0]`), "C_states and log_C_states: both given"},
		{"log_C size", model(okA, okB, `"log_C": [0, 1, 2]`, okD), "log_C: 3 entries, want 2 (number of observations, from A)"},
		{"log_C_states size", model(okA, okB, okC, okD, `"log_C_states": [0]`), "log_C_states: 1 entries, want 3"},
		{"log_C null", model(okA, okB, `"log_C": [0, null]`, okD), "log_C[1]: null, want a number"},
		{"log_C misspelt", model(okA, okB, `"logC": [0, 1]`, okD), `unknown field "logC" (known: A, B, C, D, C_states, log_C,`},
		// pymdp's B[next][prev][u] for 3 states and 2 actions: 3 matrices of
		// 3 rows of 2, where arbor wants 2 of 3 × 3.
		{"B in pymdp layout", model(okA, `"B": [[[1,0],[0,1],[0,0]],[[0,0],[1,0],[0,1]],[[0,1],[0,0],[1,0]]]`, okC, okD), "arbor's layout is B[u][next][prev]"},
		{"names count", model(okA, okB, okC, okD, `"actions": ["up"]`), "actions: 1 names, want 2 (number of actions)"},
		{"duplicate name", model(okA, okB, okC, okD, `"states": ["x", "y", "x"]`), `states[2]: duplicate name "x"`},
		// Not distributions.
		{"A column", model(`"A": [[0.5, 1, 0.25], [0.5, 0, 0.7]]`, okB, okC, okD), "A: column 2 sums to 0.95, want 1 (tolerance 1e-6)"},
		{"B column", model(okA, `"B": [[[1,0,0],[0,1,0],[0,0,1]], [[0,0,1],[1,0,0],[0,1,-0.07]]]`, okC, okD), "B[1][2][2]: negative probability -0.07"},
		{"B column sum", model(okA, `"B": [[[1,0,0],[0,1,0],[0,0,1]], [[0,0,0.93],[1,0,0],[0,1,0]]]`, okC, okD), "B[1]: column 2 sums to 0.93, want 1 (tolerance 1e-6)"},
		{"C sum", model(okA, okB, `"C": [1, 1]`, okD), "C: not a distribution: sums to 2, want 1"},
		{"D sum", model(okA, okB, okC, `"D": [0.2, 0.3, 0.4]`), "D: not a distribution: sums to 0.9"},
		{"C_states sum", model(okA, okB, okC, okD, `"C_states": [0, 0, 0]`), "C_states: not a distribution: sums to 0"},
		{"negative A", model(`"A": [[1.5, 1, 0.25], [-0.5, 0, 0.75]]`, okB, okC, okD), "A[1][0]: negative probability -0.5"},
		{"negative C", model(okA, okB, `"C": [1.1, -0.1]`, okD), "C[1]: negative probability -0.1"},
		// Concentrations.
		{"negative a", model(okA, okB, okC, okD, `"a": [[1, 1, -1], [1, 1, 1]]`), "a[0][2]: negative concentration -1"},
		// A concentration of 0 is refused element by element (review
		// finding: the loader used to accept it and only btai's Dirichlet
		// nodes or the learning agent refused it later, with other exit
		// statuses). The first zero in row-major order is named.
		{"zero a column", model(okA, okB, okC, okD, `"a": [[1, 1, 0], [1, 1, 0]]`), "a[0][2]: 0, want > 0"},
		{"zero a entry", model(okA, okB, okC, okD, `"a": [[0, 1, 1], [1, 1, 1]]`), "a[0][0]: 0, want > 0"},
		{"zero b entry", model(okA, okC, okD, `"b": [[[1,1,1],[1,1,1],[1,1,1]], [[1,1,1],[1,1,1],[1,0,1]]]`, `"B": [[[1,0,0],[0,1,0],[0,0,1]], [[0,0,1],[1,0,0],[0,1,0]]]`), "b[1][2][1]: 0, want > 0"},
		{"zero d", model(okA, okB, okC, `"d": [0, 0, 0]`), "d[0]: 0, want > 0"},
		{"zero d entry", model(okA, okB, okC, `"d": [1, 0, 1]`), "d[1]: 0, want > 0"},
		{"negative b", model(okA, okC, okD, `"b": [[[1,1,1],[1,-2,1],[1,1,1]]]`), "b[0][1][1]: negative concentration -2"},
		{"number overflow", model(okA, okB, okC, `"D": [1e400, 0, 0]`), "D: cannot use JSON number 1e400"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.json))
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// NaN and Inf cannot be written in JSON; they reach a POMDP through Spec.
func TestNewNonFinite(t *testing.T) {
	base := func() Spec {
		return Spec{
			NumStates: 2, NumObs: 1, NumActions: 1,
			A: []float64{1, 1}, B: []float64{1, 0, 0, 1}, C: []float64{1}, D: []float64{0.5, 0.5},
		}
	}
	tests := []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"D NaN", func(s *Spec) { s.D = []float64{0.5, math.NaN()} }, "D[1]: NaN"},
		{"A Inf", func(s *Spec) { s.A = []float64{1, math.Inf(1)} }, "A[0][1]: +Inf, want finite"},
		{"a NaN", func(s *Spec) { s.ConcA = []float64{math.NaN(), 1} }, "a[0][0]: NaN"},
		{"B length", func(s *Spec) { s.B = []float64{1, 0, 0} }, "B: 3 entries, want 4"},
		{"no states", func(s *Spec) { s.NumStates = 0 }, "NumStates: 0, want >= 1"},
		{"huge", func(s *Spec) { s.NumStates, s.NumActions = 1<<30, 1<<30 }, "too large"},
	}
	for _, tt := range tests {
		sp := base()
		tt.edit(&sp)
		_, err := New(sp)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := New(base()); err != nil {
		t.Errorf("base spec: %v", err)
	}
}

func TestLoadNamesPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(path, []byte(model(okA, okB, okC)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.HasPrefix(err.Error(), "pomdp: "+path+": D: missing") {
		t.Errorf("error %v, want prefix %q", err, path+": D: missing")
	}
	if _, err := Load(filepath.Join(dir, "absent.json")); err == nil {
		t.Error("absent file: no error")
	}
}

// FuzzParse checks that Parse never panics, that an error is one
// line shorter than 300 bytes whatever the size of the input (names, keys
// and literals are quoted shortened), and that an accepted model is usable:
// its Spec round-trips and a short evaluation works or fails with an error.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.json")
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(model(okA, okB, okC, okD)))
	f.Add([]byte(model(`"a": [[1, 2], [3, 0]]`, `"b": [[[1, 1], [1, 1]]]`, `"d": [1, 1]`, `"C": [0, 1]`)))
	f.Add([]byte(strings.Repeat("[", 20_000)))
	f.Add([]byte(`{"` + strings.Repeat("k", 1000) + `": 1}`))
	f.Add([]byte(model(okA, okB, okC, okD, `"states": ["`+strings.Repeat("s", 500)+`", "`+strings.Repeat("s", 500)+`", "x"]`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			if m != nil {
				t.Fatal("non-nil model with an error")
			}
			if msg := err.Error(); len(msg) >= 300 || strings.Contains(msg, "\n") {
				t.Fatalf("error of %d bytes (want one line < 300): %.400q", len(msg), msg)
			}
			return
		}
		if m.NumFactors() == 1 && m.NumModalities() == 1 {
			if _, err := New(m.Spec()); err != nil {
				t.Fatalf("Spec round trip: %v", err)
			}
		}
		if _, err := NewFactorised(m.FactorisedSpec()); err != nil {
			t.Fatalf("FactorisedSpec round trip: %v", err)
		}
		if m.NumActions() <= 4 && m.NumStates() <= 64 && m.NumObs() <= 64 {
			// Every accepted model can be used: posteriors and one step of
			// the expected free energy for every action, without a panic.
			next := make([]float64, m.NumStates())
			for obs := range m.NumObs() {
				qs, err := StatePosterior(nil, m, obs)
				if err != nil {
					continue
				}
				for u := range m.NumActions() {
					Propagate(m, next, qs, u)
					_, _, _ = StepCost(m, next, m.NoveltyWeights())
				}
			}
		}
	})
}

// TestParseShortErrors: input that is huge in one place (a 3 MB run of
// '[', a 100 kB key, number or name) gives an error that still names the
// field but stays short: before, the key, the number literal and the
// duplicated name were quoted whole (about 100 kB on one line). 300 bytes
// keeps the line readable in a terminal.
func TestParseShortErrors(t *testing.T) {
	long := strings.Repeat("y", 100_000)
	tests := []struct {
		name, json, want string
	}{
		{"deep nesting", strings.Repeat("[", 3_000_000), "invalid JSON"},
		{"deep A", `{"A": ` + strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000) + `}`, "invalid JSON"},
		{"long key", `{"` + long + `": 1}`, `unknown field "yyyy`},
		{"long number", `{"A": [[1e` + strings.Repeat("9", 100_000) + `]]}`, "A: cannot use JSON number 1e999"},
		{"long name", model(okA, okB, okC, okD, `"actions": ["`+long+`", "`+long+`"]`), `actions[1]: duplicate name "yyyy`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.json))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if len(msg) >= 300 || !strings.Contains(msg, tt.want) {
				t.Errorf("error of %d bytes %.400q, want < 300 bytes containing %q", len(msg), msg, tt.want)
			}
		})
	}
}

// TestLogC: log-preferences as SPM and pymdp write them give C =
// softmax(log_C). For log_C = [0, 3, -6]: C = (1, e^3, e^-6) / (1 + e^3 +
// e^-6) = (0.04742, 0.95246, 0.00012), computed here from the closed form;
// an additive constant does not change it; -Inf gives C = 0 in Go.
func TestLogC(t *testing.T) {
	z := 1 + math.Exp(3) + math.Exp(-6)
	want := []float64{1 / z, math.Exp(3) / z, math.Exp(-6) / z}
	base := Spec{NumStates: 1, NumObs: 3, NumActions: 1, A: []float64{0.2, 0.3, 0.5}, B: []float64{1}, D: []float64{1}}
	for _, logC := range [][]float64{{0, 3, -6}, {10, 13, 4}} {
		sp := base
		sp.LogC = logC
		m, err := New(sp)
		if err != nil {
			t.Fatal(err)
		}
		for o, w := range want {
			if math.Abs(m.C(o)-w) > 1e-15 {
				t.Errorf("log_C %v: C[%d] = %.17g, want %.17g", logC, o, m.C(o), w)
			}
		}
	}
	sp := base
	sp.LogC = []float64{0, math.Inf(-1), 0}
	m, err := New(sp)
	if err != nil || m.C(1) != 0 || m.C(0) != 0.5 {
		t.Errorf("log_C with -Inf: %v, C = %v, %v", err, m.C(0), m.C(1))
	}
	m2, err := Parse([]byte(`{"A": [[0.2], [0.3], [0.5]], "B": [[[1]]], "D": [1], "log_C": [0, 3, -6]}`))
	if err != nil {
		t.Fatal(err)
	}
	for o, w := range want {
		if math.Abs(m2.C(o)-w) > 1e-15 {
			t.Errorf("file: C[%d] = %v, want %v", o, m2.C(o), w)
		}
	}
	for _, bad := range [][]float64{{math.NaN(), 0, 0}, {math.Inf(1), 0, 0}, {math.Inf(-1), math.Inf(-1), math.Inf(-1)}} {
		sp := base
		sp.LogC = bad
		if _, err := New(sp); err == nil || !strings.Contains(err.Error(), "log_C") {
			t.Errorf("log_C %v: %v, want an error naming log_C", bad, err)
		}
	}
}
