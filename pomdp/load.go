package pomdp

import (
	"errors"
	"fmt"
	"os"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

// knownKeys are the exact (case-sensitive) keys of the file format.
var knownKeys = map[string]bool{
	"A": true, "B": true, "C": true, "D": true, "C_states": true, "log_C": true, "log_C_states": true,
	"a": true, "b": true, "d": true,
	"actions": true, "observations": true, "states": true,
}

// Load reads and validates a POMDP file (docs/formats.md). Errors start
// with the package's prefix and the path, then name the field and the
// fault ("pomdp: m.json: D: missing ...").
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, apiError(err)
	}
	m, err := Parse(data)
	if err != nil {
		return nil, inContext(path, err)
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
// then default to the expectations. Keys are case-sensitive; unknown keys
// and a key given twice are rejected, and so is a name (of a state, action,
// observation, factor, control, modality or outcome) with a control
// character or a bidirectional formatting character, which would garble
// the output. Parse never panics; errors name the field and the fault,
// e.g. "A: row 3 has 2 entries, want 4", or for a value of the wrong type
// "A: cannot use JSON number as []float64 (at A[0])".
//
// Parse checks the syntax, then reads the text in one pass, refusing a
// value of the wrong type at its first token: such a file costs nothing
// beyond its text, however big. A valid file costs its text and 8 bytes
// per number (every array is allocated once, at its final size, and the
// Model keeps it without a copy), and the logarithms of C; the logarithms
// of A and the novelty weights are computed when a planner first asks for
// them, not by Parse. For a file of short numbers ("0,1,0,...", 2.4 bytes
// per number) the peak heap is about 5 times the file, for numbers written
// in full about 1.5 times. Concentrations a cost one array more of A's
// size (the expectation E[a] when A is not given): a file of "a":
// [[1,1,1,1],...] peaks at about 7.7 times its size.
func Parse(data []byte) (*Model, error) {
	if fault, off := jsonread.Check(data); fault != jsonread.Valid {
		return nil, apiError(syntaxError(data, off))
	}
	r := &jsonread.Reader{Data: data}
	switch r.Peek() {
	case '{':
	case 'n':
		return nil, errors.New("pomdp: want a JSON object, got null")
	default:
		return nil, fmt.Errorf("pomdp: invalid JSON: cannot use JSON %s as an object (a POMDP file is one JSON object)", r.Kind())
	}
	f, err := readFile(r)
	if err != nil {
		return nil, apiError(err)
	}
	if f.factorised {
		return apiResult(parseFactorised(f))
	}
	sp, err := f.single.spec()
	if err != nil {
		return nil, apiError(err)
	}
	// The slices are the reader's own: the model keeps them.
	return apiResult(newModel(sp))
}

// spec checks the shapes of the nested arrays, infers the sizes and
// takes the flat numbers into a Spec; New then checks the values.
func (f *pomdpJSON) spec() (Spec, error) {
	var sp Spec
	// Sizes: |O| and |S| from A (or a), |U| from B (or b).
	switch {
	case f.A != nil:
		if err := matrixShape("A", f.A, "", -1, -1); err != nil {
			return sp, err
		}
		sp.NumObs, sp.NumStates = f.A.Len(), f.A.First[1].Len
	case f.ConcA != nil:
		if err := matrixShape("a", f.ConcA, "", -1, -1); err != nil {
			return sp, err
		}
		sp.NumObs, sp.NumStates = f.ConcA.Len(), f.ConcA.First[1].Len
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
		if f.B.Len() == 0 {
			return sp, errors.New("B: empty, want one matrix per action")
		}
		sp.NumActions = f.B.Len()
	case f.ConcB != nil:
		if f.ConcB.Len() == 0 {
			return sp, errors.New("b: empty, want one matrix per action")
		}
		sp.NumActions = f.ConcB.Len()
	default:
		return sp, errors.New("B: missing (give B or its concentrations b)")
	}
	states := "number of states, from " + src
	for _, t := range []struct {
		field string
		x     *jsonread.Tensor
	}{{"B", f.B}, {"b", f.ConcB}} {
		if t.x == nil {
			continue
		}
		if t.x.Len() != sp.NumActions {
			return sp, fmt.Errorf("%s: %d matrices, want %d (number of actions, from B)", t.field, t.x.Len(), sp.NumActions)
		}
		if err := matricesShape(t.field, t.x, states, ns); err != nil {
			return sp, fmt.Errorf("%w; arbor's layout is %s[u][next][prev], one matrix per action (pymdp's B[next][prev][u] must be transposed)", err, t.field)
		}
	}
	for _, t := range []struct {
		field string
		x     *jsonread.Tensor
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
		if t.x.Len() == 0 {
			return sp, fmt.Errorf("%s: empty, want %d entries (%s)", t.field, t.n, t.what)
		}
		if t.x.Len() != t.n {
			return sp, fmt.Errorf("%s: %d entries, want %d (%s)", t.field, t.x.Len(), t.n, t.what)
		}
	}

	sp.A, sp.ConcA = f.A.Values(), f.ConcA.Values()
	sp.B, sp.ConcB = f.B.Values(), f.ConcB.Values()
	sp.C, sp.D, sp.ConcD, sp.CStates = f.C.Values(), f.D.Values(), f.ConcD.Values(), f.CStates.Values()
	sp.LogC, sp.LogCStates = f.LogC.Values(), f.LogCS.Values()
	sp.Actions, sp.Observations, sp.States = f.Actions, f.Observations, f.States
	return sp, nil
}

// matrixShape checks that the matrix x (read with rank 2) is not empty and
// rectangular; when rows or cols are >= 0 it also checks those sizes,
// explaining them with why. The error names the first row at fault.
func matrixShape(field string, x *jsonread.Tensor, why string, rows, cols int) error {
	n := x.Len()
	if n == 0 {
		return fmt.Errorf("%s: empty", field)
	}
	if rows >= 0 && n != rows {
		return fmt.Errorf("%s: %d rows, want %d (%s)", field, n, rows, why)
	}
	row0 := x.First[1].Len
	if cols < 0 {
		cols = row0
		if cols == 0 {
			return fmt.Errorf("%s: row 0 is empty", field)
		}
		why = "length of row 0"
	}
	if row0 != cols {
		return fmt.Errorf("%s: row 0 has %d entries, want %d (%s)", field, row0, cols, why)
	}
	if odd := x.Odd[1]; odd != nil {
		return fmt.Errorf("%s: row %d has %d entries, want %d (%s)", field, odd.Path[0], odd.Len, cols, why)
	}
	return nil
}

// matricesShape checks that every matrix of x (read with rank 3) is ns ×
// ns, as matrixShape(field[u], x[u], why, ns, ns) for u = 0, 1, ... would:
// the error names the first matrix or row at fault in the order of the
// text.
func matricesShape(field string, x *jsonread.Tensor, why string, ns int) error {
	// The first array at fault at each depth is the first array there or
	// the first of another length (odd); of those, the first in the text.
	var bad *jsonread.Array
	for d := 1; d <= 2 && d < len(x.First); d++ {
		for _, a := range []*jsonread.Array{x.First[d], x.Odd[d]} {
			if a != nil && a.Len != ns && (bad == nil || a.Seq < bad.Seq) {
				bad = a
			}
		}
	}
	switch {
	case bad == nil:
		return nil
	case len(bad.Path) == 1 && bad.Len == 0:
		return fmt.Errorf("%s[%d]: empty", field, bad.Path[0])
	case len(bad.Path) == 1:
		return fmt.Errorf("%s[%d]: %d rows, want %d (%s)", field, bad.Path[0], bad.Len, ns, why)
	}
	return fmt.Errorf("%s[%d]: row %d has %d entries, want %d (%s)", field, bad.Path[0], bad.Path[1], bad.Len, ns, why)
}
