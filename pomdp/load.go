package pomdp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// pomdpJSON is the file format of docs/formats.md.
type pomdpJSON struct {
	A       [][]float64   `json:"A"`
	B       [][][]float64 `json:"B"`
	C       []float64     `json:"C"`
	D       []float64     `json:"D"`
	CStates []float64     `json:"C_states"`
	LogC    []float64     `json:"log_C"`
	LogCS   []float64     `json:"log_C_states"`
	ConcA   [][]float64   `json:"a"`
	ConcB   [][][]float64 `json:"b"`
	ConcD   []float64     `json:"d"`

	Actions      []string `json:"actions"`
	Observations []string `json:"observations"`
	States       []string `json:"states"`
}

// knownKeys are the exact (case-sensitive) keys of the file format.
var knownKeys = map[string]bool{
	"A": true, "B": true, "C": true, "D": true, "C_states": true, "log_C": true, "log_C_states": true,
	"a": true, "b": true, "d": true,
	"actions": true, "observations": true, "states": true,
}

// Load reads and validates a POMDP file (docs/formats.md). Errors start
// with the path, then name the field and the fault.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Parse decodes and validates a POMDP in the JSON format of
// docs/formats.md:
//
//	{"A": [[...]], "B": [[[...]]], "C": [...], "D": [...],
//	 "C_states": [...], "a": [[...]], "b": [[[...]]], "d": [...],
//	 "actions": [...], "observations": [...], "states": [...]}
//
// A[o][s] = P(o|s), B[u][next][prev] = P(next|prev, u), C[o] the target
// distribution over observations, D[s] the initial-state prior. A, B and D
// may be omitted when their Dirichlet concentrations a, b, d are given; they
// then default to the expectations. Keys are case-sensitive and unknown keys
// are rejected. Parse never panics; errors name the field and the fault,
// e.g. "A: row 3 has 2 entries, want 4".
func Parse(data []byte) (*Model, error) {
	// Keys first, case-sensitively: encoding/json would accept "c" for "C".
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, jsonError(err)
	}
	if raw == nil {
		return nil, errors.New("want a JSON object, got null")
	}
	if _, ok := raw["factors"]; ok {
		return parseFactorised(raw)
	}
	if _, ok := raw["modalities"]; ok {
		return nil, errors.New("factors: missing (a file with modalities lists its factors)")
	}
	var unknown []string
	for k := range raw {
		if !knownKeys[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("unknown field %s (known: A, B, C, D, C_states, log_C, log_C_states, a, b, d, actions, observations, states; or factors and modalities)", quote(unknown[0]))
	}
	// A null in log-preferences would decode as 0; JSON has no -Inf, and a
	// user writing null probably meant it.
	for _, k := range []string{"log_C", "log_C_states"} {
		var xs []json.RawMessage
		if v, ok := raw[k]; ok && json.Unmarshal(v, &xs) == nil {
			for i, x := range xs {
				if string(bytes.TrimSpace(x)) == "null" {
					return nil, fmt.Errorf("%s[%d]: null, want a number (JSON has no -Inf: write a very negative log-preference such as -1e6, or use C with a 0)", k, i)
				}
			}
		}
	}

	var f pomdpJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON object")
	}
	sp, err := f.spec()
	if err != nil {
		return nil, err
	}
	return New(sp)
}

func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		// te.Value holds the offending literal ("number 1e999"), which
		// can be arbitrarily long: shorten it.
		field := te.Field
		if field == "" {
			return fmt.Errorf("invalid JSON: cannot use %s as %v", shorten(te.Value), te.Type)
		}
		return fmt.Errorf("%s: cannot use JSON %s as %v", shorten(field), shorten(te.Value), te.Type)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, err)
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// spec checks the shapes of the nested arrays, infers the sizes and
// flattens everything into a Spec; New then checks the values.
func (f *pomdpJSON) spec() (Spec, error) {
	var sp Spec
	// Sizes: |O| and |S| from A (or a), |U| from B (or b).
	switch {
	case f.A != nil:
		if err := matrixShape("A", f.A, "", -1, -1); err != nil {
			return sp, err
		}
		sp.NumObs, sp.NumStates = len(f.A), len(f.A[0])
	case f.ConcA != nil:
		if err := matrixShape("a", f.ConcA, "", -1, -1); err != nil {
			return sp, err
		}
		sp.NumObs, sp.NumStates = len(f.ConcA), len(f.ConcA[0])
	default:
		return sp, errors.New("A: missing (give A or its concentrations a)")
	}
	no, ns := sp.NumObs, sp.NumStates
	src := "A"
	if f.A == nil {
		src = "a"
	}
	if f.A != nil && f.ConcA != nil {
		if err := matrixShape("a", f.ConcA, "shape of A", no, ns); err != nil {
			return sp, err
		}
	}

	switch {
	case f.B != nil:
		if len(f.B) == 0 {
			return sp, errors.New("B: empty, want one matrix per action")
		}
		sp.NumActions = len(f.B)
	case f.ConcB != nil:
		if len(f.ConcB) == 0 {
			return sp, errors.New("b: empty, want one matrix per action")
		}
		sp.NumActions = len(f.ConcB)
	default:
		return sp, errors.New("B: missing (give B or its concentrations b)")
	}
	states := "number of states, from " + src
	for _, t := range []struct {
		field string
		x     [][][]float64
	}{{"B", f.B}, {"b", f.ConcB}} {
		if t.x == nil {
			continue
		}
		if len(t.x) != sp.NumActions {
			return sp, fmt.Errorf("%s: %d matrices, want %d (number of actions, from B)", t.field, len(t.x), sp.NumActions)
		}
		for u, bu := range t.x {
			if err := matrixShape(fmt.Sprintf("%s[%d]", t.field, u), bu, states, ns, ns); err != nil {
				return sp, fmt.Errorf("%w; arbor's layout is %s[u][next][prev], one matrix per action (pymdp's B[next][prev][u] must be transposed)", err, t.field)
			}
		}
	}
	for _, t := range []struct {
		field string
		x     []float64
		n     int
		what  string
	}{
		{"C", f.C, no, "number of observations, from " + src},
		{"log_C", f.LogC, no, "number of observations, from " + src},
		{"log_C_states", f.LogCS, ns, states},
		{"D", f.D, ns, states},
		{"d", f.ConcD, ns, states},
		{"C_states", f.CStates, ns, states},
	} {
		if t.x == nil {
			continue
		}
		if len(t.x) == 0 {
			return sp, fmt.Errorf("%s: empty, want %d entries (%s)", t.field, t.n, t.what)
		}
		if len(t.x) != t.n {
			return sp, fmt.Errorf("%s: %d entries, want %d (%s)", t.field, len(t.x), t.n, t.what)
		}
	}

	sp.A, sp.ConcA = flatten2(f.A), flatten2(f.ConcA)
	sp.B, sp.ConcB = flatten3(f.B), flatten3(f.ConcB)
	sp.C, sp.D, sp.ConcD, sp.CStates = f.C, f.D, f.ConcD, f.CStates
	sp.LogC, sp.LogCStates = f.LogC, f.LogCS
	sp.Actions, sp.Observations, sp.States = f.Actions, f.Observations, f.States
	return sp, nil
}

// matrixShape checks that x is a non-empty rectangular matrix; when rows or
// cols are >= 0 it also checks those sizes, explaining them with why.
func matrixShape(field string, x [][]float64, why string, rows, cols int) error {
	if len(x) == 0 {
		return fmt.Errorf("%s: empty", field)
	}
	if rows >= 0 && len(x) != rows {
		return fmt.Errorf("%s: %d rows, want %d (%s)", field, len(x), rows, why)
	}
	if cols < 0 {
		cols = len(x[0])
		if cols == 0 {
			return fmt.Errorf("%s: row 0 is empty", field)
		}
		why = "length of row 0"
	}
	for i, row := range x {
		if len(row) != cols {
			return fmt.Errorf("%s: row %d has %d entries, want %d (%s)", field, i, len(row), cols, why)
		}
	}
	return nil
}

func flatten2(x [][]float64) []float64 {
	if x == nil {
		return nil
	}
	var out []float64
	for _, row := range x {
		out = append(out, row...)
	}
	return out
}

func flatten3(x [][][]float64) []float64 {
	if x == nil {
		return nil
	}
	var out []float64
	for _, m := range x {
		out = append(out, flatten2(m)...)
	}
	return out
}
