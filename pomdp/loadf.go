package pomdp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The factorised file format (docs/formats.md, "Factorised"):
//
//	{"factors": [{"name": ..., "states": [...], "controls": [...],
//	              "B": [[[...]]], "D": [...], "C_states": [...],
//	              "log_C_states": [...], "b": [[[...]]], "d": [...]}, ...],
//	 "modalities": [{"name": ..., "outcomes": [...], "depends_on": [...],
//	                 "A": [[...]], "C": [...], "log_C": [...], "a": [[...]]}, ...]}

var (
	topKeys      = []string{"factors", "modalities"}
	factorKeys   = []string{"name", "states", "controls", "B", "D", "C_states", "log_C_states", "b", "d"}
	modalityKeys = []string{"name", "outcomes", "depends_on", "A", "C", "log_C", "a"}
)

// checkKeys rejects keys of obj outside known (case-sensitively).
func checkKeys(where string, obj map[string]json.RawMessage, known []string) error {
	var unknown []string
	for k := range obj {
		found := false
		for _, kk := range known {
			if k == kk {
				found = true
				break
			}
		}
		if !found {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return fmt.Errorf("%sunknown field %s (known: %s)", where, quote(unknown[0]), strings.Join(known, ", "))
}

// decodeField decodes obj[key] into v when present, naming the field in
// the error.
func decodeField(where string, obj map[string]json.RawMessage, key string, v any) (bool, error) {
	raw, ok := obj[key]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("%s%s: %w", where, key, jsonValueError(err))
	}
	return true, nil
}

func jsonValueError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("cannot use JSON %s as %v", shorten(te.Value), te.Type)
	}
	return err
}

// objects decodes raw as a JSON array of objects.
func objects(field string, raw json.RawMessage) ([]map[string]json.RawMessage, error) {
	var out []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%s: want an array of objects: %w", field, jsonValueError(err))
	}
	for i, o := range out {
		if o == nil {
			return nil, fmt.Errorf("%s[%d]: null, want an object", field, i)
		}
	}
	return out, nil
}

func parseFactorised(raw map[string]json.RawMessage) (*Model, error) {
	if err := checkKeys("", raw, topKeys); err != nil {
		return nil, fmt.Errorf("%w; a factorised file has only factors and modalities", err)
	}
	if _, ok := raw["modalities"]; !ok {
		return nil, errors.New("modalities: missing")
	}
	fobjs, err := objects("factors", raw["factors"])
	if err != nil {
		return nil, err
	}
	mobjs, err := objects("modalities", raw["modalities"])
	if err != nil {
		return nil, err
	}
	var fs FactorisedSpec
	sizes := map[string]int{}
	for i, obj := range fobjs {
		f, err := parseFactor(i, obj)
		if err != nil {
			return nil, err
		}
		if _, dup := sizes[f.Name]; dup {
			for j := range i {
				if fs.Factors[j].Name == f.Name {
					return nil, fmt.Errorf("factors[%d]: name: duplicate %s (also factors[%d])", i, quote(f.Name), j)
				}
			}
		}
		sizes[f.Name] = f.NumStates
		fs.Factors = append(fs.Factors, f)
	}
	for i, obj := range mobjs {
		md, err := parseModality(i, obj, sizes)
		if err != nil {
			return nil, err
		}
		fs.Modalities = append(fs.Modalities, md)
	}
	return NewFactorised(fs)
}

func parseFactor(i int, obj map[string]json.RawMessage) (Factor, error) {
	var f Factor
	where := fmt.Sprintf("factors[%d]: ", i)
	if _, err := decodeField(where, obj, "name", &f.Name); err != nil {
		return f, err
	}
	if f.Name != "" {
		where = fmt.Sprintf("factor %s: ", quote(f.Name))
	}
	if err := checkKeys(where, obj, factorKeys); err != nil {
		return f, err
	}
	var b, cb [][][]float64
	var hasB, hasCB bool
	var err error
	if hasB, err = decodeField(where, obj, "B", &b); err != nil {
		return f, err
	}
	if hasCB, err = decodeField(where, obj, "b", &cb); err != nil {
		return f, err
	}
	for _, kv := range []struct {
		key string
		dst any
	}{{"states", &f.States}, {"controls", &f.Controls}, {"D", &f.D}, {"C_states", &f.CStates},
		{"log_C_states", &f.LogCStates}, {"d", &f.ConcD}} {
		if _, err := decodeField(where, obj, kv.key, kv.dst); err != nil {
			return f, err
		}
	}
	if err := nullLogs(where, obj, "log_C_states"); err != nil {
		return f, err
	}
	// |S_f| and |U_f| from B (or b).
	src, x := "B", b
	if !hasB {
		src, x = "b", cb
	}
	if !hasB && !hasCB {
		return f, fmt.Errorf("%sB: missing (give B or its concentrations b)", where)
	}
	if len(x) == 0 {
		return f, fmt.Errorf("%s%s: empty, want one matrix per control", where, src)
	}
	if len(x[0]) == 0 {
		return f, fmt.Errorf("%s%s[0]: empty", where, src)
	}
	ns := len(x[0])
	f.NumStates, f.NumControls = ns, len(x)
	if f.Controls != nil && len(f.Controls) != len(x) {
		return f, fmt.Errorf("%s%s: %d matrices, want %d (one per control)", where, src, len(x), len(f.Controls))
	}
	for _, t := range []struct {
		field string
		x     [][][]float64
		ok    bool
	}{{"B", b, hasB}, {"b", cb, hasCB}} {
		if !t.ok {
			continue
		}
		if len(t.x) != len(x) {
			return f, fmt.Errorf("%s%s: %d matrices, want %d (as in %s)", where, t.field, len(t.x), len(x), src)
		}
		for u, bu := range t.x {
			if err := matrixShape(fmt.Sprintf("%s[%d]", t.field, u), bu, "number of states, from "+src+"[0]", ns, ns); err != nil {
				return f, fmt.Errorf("%s%w; arbor's layout is %s[u][next][prev], one matrix per control", where, err, t.field)
			}
		}
	}
	for _, t := range []struct {
		field string
		x     []float64
	}{{"D", f.D}, {"d", f.ConcD}, {"C_states", f.CStates}, {"log_C_states", f.LogCStates}} {
		if t.x != nil && len(t.x) != ns {
			return f, fmt.Errorf("%s%s: %d entries, want %d (number of states, from %s[0])", where, t.field, len(t.x), ns, src)
		}
	}
	f.B, f.ConcB = flatten3(b), flatten3(cb)
	if !hasB {
		f.B = nil
	}
	if !hasCB {
		f.ConcB = nil
	}
	if f.D == nil && f.ConcD == nil {
		return f, fmt.Errorf("%sD: missing (give D or its concentrations d)", where)
	}
	return f, nil
}

// nullLogs rejects null entries in log-preferences (they would decode as 0).
func nullLogs(where string, obj map[string]json.RawMessage, key string) error {
	var xs []json.RawMessage
	if v, ok := obj[key]; ok && json.Unmarshal(v, &xs) == nil {
		for i, x := range xs {
			if string(bytes.TrimSpace(x)) == "null" {
				return fmt.Errorf("%s%s[%d]: null, want a number (JSON has no -Inf: write a very negative log-preference such as -1e6, or use C with a 0)", where, key, i)
			}
		}
	}
	return nil
}

func parseModality(i int, obj map[string]json.RawMessage, sizes map[string]int) (Modality, error) {
	var md Modality
	where := fmt.Sprintf("modalities[%d]: ", i)
	if _, err := decodeField(where, obj, "name", &md.Name); err != nil {
		return md, err
	}
	if md.Name != "" {
		where = fmt.Sprintf("modality %s: ", quote(md.Name))
	}
	if err := checkKeys(where, obj, modalityKeys); err != nil {
		return md, err
	}
	for _, kv := range []struct {
		key string
		dst any
	}{{"outcomes", &md.Outcomes}, {"depends_on", &md.DependsOn}, {"C", &md.C}, {"log_C", &md.LogC}} {
		if _, err := decodeField(where, obj, kv.key, kv.dst); err != nil {
			return md, err
		}
	}
	if err := nullLogs(where, obj, "log_C"); err != nil {
		return md, err
	}
	if md.DependsOn == nil {
		return md, fmt.Errorf("%sdepends_on: missing (the factors A depends on)", where)
	}
	shape := []int{-1}
	for k, name := range md.DependsOn {
		for j := range k {
			if md.DependsOn[j] == name {
				return md, fmt.Errorf("%sdepends_on[%d]: factor %s listed twice (also depends_on[%d])", where, k, quote(name), j)
			}
		}
		n, ok := sizes[name]
		if !ok {
			names := make([]string, 0, len(sizes))
			for nm := range sizes {
				names = append(names, nm)
			}
			sort.Strings(names)
			return md, fmt.Errorf("%sdepends_on[%d]: unknown factor %s (factors: %s)", where, k, quote(name), nameList(names))
		}
		shape = append(shape, n)
	}
	var err error
	rawA, hasA := obj["A"]
	rawCA, hasCA := obj["a"]
	if !hasA && !hasCA {
		return md, fmt.Errorf("%sA: missing (give A or its concentrations a)", where)
	}
	if hasA {
		if md.A, err = tensor("A", rawA, shape, md.DependsOn); err != nil {
			return md, fmt.Errorf("%s%w", where, err)
		}
	}
	if hasCA {
		if md.ConcA, err = tensor("a", rawCA, shape, md.DependsOn); err != nil {
			return md, fmt.Errorf("%s%w", where, err)
		}
	}
	md.NumOutcomes = shape[0]
	if md.Outcomes != nil && len(md.Outcomes) != shape[0] {
		return md, fmt.Errorf("%soutcomes: %d names, want %d (rows of A)", where, len(md.Outcomes), shape[0])
	}
	for _, t := range []struct {
		field string
		x     []float64
	}{{"C", md.C}, {"log_C", md.LogC}} {
		if t.x != nil && len(t.x) != shape[0] {
			return md, fmt.Errorf("%s%s: %d entries, want %d (number of outcomes, rows of A)", where, t.field, len(t.x), shape[0])
		}
	}
	return md, nil
}

// tensor decodes a nested JSON array of numbers whose shape must be shape
// (shape[0] = -1: any, set from the data), flattening it row-major. The
// error names the first index that does not fit.
func tensor(field string, raw json.RawMessage, shape []int, deps []string) ([]float64, error) {
	var out []float64
	var walk func(path string, raw json.RawMessage, depth int) error
	walk = func(path string, raw json.RawMessage, depth int) error {
		if depth == len(shape) {
			var v float64
			if err := json.Unmarshal(raw, &v); err != nil {
				return fmt.Errorf("%s: want a number, got %s", path, shorten(strings.TrimSpace(string(raw))))
			}
			out = append(out, v)
			return nil
		}
		var xs []json.RawMessage
		if err := json.Unmarshal(raw, &xs); err != nil || xs == nil {
			return fmt.Errorf("%s: want an array (%s is indexed [outcome]%s), got %s", path, field, axesText(deps), shorten(strings.TrimSpace(string(raw))))
		}
		if shape[depth] < 0 {
			if len(xs) == 0 {
				return fmt.Errorf("%s: empty", path)
			}
			shape[depth] = len(xs)
		}
		if len(xs) != shape[depth] {
			what := "outcomes"
			if depth > 0 {
				what = "states of " + quote(deps[depth-1])
			}
			return fmt.Errorf("%s: %d entries, want %d (%s; %s is indexed [outcome]%s)", path, len(xs), shape[depth], what, field, axesText(deps))
		}
		for i, x := range xs {
			if err := walk(fmt.Sprintf("%s[%d]", path, i), x, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(field, raw, 0); err != nil {
		return nil, err
	}
	return out, nil
}

func axesText(deps []string) string {
	var sb strings.Builder
	for _, d := range deps {
		sb.WriteString("[" + shorten(d) + "]")
	}
	if sb.Len() > 100 {
		return fmt.Sprintf("[%d factors]", len(deps))
	}
	return sb.String()
}

// MarshalJSON writes fs in the factorised file format (docs/formats.md):
// Parse reads it back to the same model. Matrices are nested arrays in the
// layouts of the format (B[u][next][prev], A[o][s_1]...[s_k]).
func (fs FactorisedSpec) MarshalJSON() ([]byte, error) {
	type factorJSON struct {
		Name       string    `json:"name"`
		States     []string  `json:"states,omitempty"`
		Controls   []string  `json:"controls,omitempty"`
		D          []float64 `json:"D,omitempty"`
		B          any       `json:"B,omitempty"`
		CStates    []float64 `json:"C_states,omitempty"`
		LogCStates []float64 `json:"log_C_states,omitempty"`
		ConcB      any       `json:"b,omitempty"`
		ConcD      []float64 `json:"d,omitempty"`
	}
	type modalityJSON struct {
		Name      string    `json:"name"`
		Outcomes  []string  `json:"outcomes,omitempty"`
		DependsOn []string  `json:"depends_on"`
		A         any       `json:"A,omitempty"`
		C         []float64 `json:"C,omitempty"`
		LogC      []float64 `json:"log_C,omitempty"`
		ConcA     any       `json:"a,omitempty"`
	}
	var out struct {
		Factors    []factorJSON   `json:"factors"`
		Modalities []modalityJSON `json:"modalities"`
	}
	sizes := map[string]int{}
	for _, f := range fs.Factors {
		nu := f.NumControls
		if nu == 0 {
			nu = max(1, len(f.Controls))
		}
		shape := []int{nu, f.NumStates, f.NumStates}
		sizes[f.Name] = f.NumStates
		out.Factors = append(out.Factors, factorJSON{
			Name: f.Name, States: f.States, Controls: f.Controls, D: f.D,
			B: nest(f.B, shape), CStates: f.CStates, LogCStates: f.LogCStates,
			ConcB: nest(f.ConcB, shape), ConcD: f.ConcD,
		})
	}
	for _, md := range fs.Modalities {
		shape := []int{md.NumOutcomes}
		for _, d := range md.DependsOn {
			shape = append(shape, sizes[d])
		}
		out.Modalities = append(out.Modalities, modalityJSON{
			Name: md.Name, Outcomes: md.Outcomes, DependsOn: md.DependsOn,
			A: nest(md.A, shape), C: md.C, LogC: md.LogC, ConcA: nest(md.ConcA, shape),
		})
	}
	return json.Marshal(out)
}

// nest turns the flat row-major x of the given shape into nested slices
// (nil for nil x or a size mismatch, which NewFactorised reports).
func nest(x []float64, shape []int) any {
	if x == nil || len(x) != prod(shape) {
		return nil
	}
	if len(shape) == 1 {
		return x
	}
	n := len(x) / shape[0]
	out := make([]any, shape[0])
	for i := range out {
		out[i] = nest(x[i*n:(i+1)*n], shape[1:])
	}
	return out
}
