package pomdp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

// The factorised file format (docs/formats.md, "Factorised"):
//
//	{"factors": [{"name": ..., "states": [...], "controls": [...], "controls_of": ...,
//	              "B": [[[...]]], "D": [...], "C_states": [...],
//	              "log_C_states": [...], "b": [[[...]]], "d": [...]}, ...],
//	 "modalities": [{"name": ..., "outcomes": [...], "depends_on": [...],
//	                 "A": [[...]], "C": [...], "log_C": [...], "a": [[...]]}, ...],
//	 "preferences": [{"modalities": [...], "C": [[...]], "log_C": [[...]]}, ...]}

var (
	topKeys      = []string{"factors", "modalities", "preferences"}
	prefKeys     = []string{"modalities", "C", "log_C"}
	factorKeys   = []string{"name", "states", "controls", "controls_of", "B", "D", "C_states", "log_C_states", "b", "d"}
	modalityKeys = []string{"name", "outcomes", "depends_on", "A", "C", "log_C", "a"}
)

func parseFactorised(file *fileJSON) (*Model, error) {
	var fs FactorisedSpec
	sizes := map[string]int{}
	for i, fj := range file.factors {
		f, err := parseFactor(i, fj)
		if err != nil {
			return nil, err
		}
		if _, dup := sizes[f.Name]; dup {
			for j := range i {
				if fs.Factors[j].Name == f.Name {
					return nil, fmt.Errorf("factors[%d]: name: duplicate %s (also factors[%d])", i, jsonread.Quote(f.Name), j)
				}
			}
		}
		sizes[f.Name] = f.NumStates
		fs.Factors = append(fs.Factors, f)
	}
	for i, mj := range file.mods {
		md, err := parseModality(i, mj, sizes)
		if err != nil {
			return nil, err
		}
		fs.Modalities = append(fs.Modalities, md)
	}
	for i, pj := range file.prefs {
		p, err := parsePreference(i, pj, fs.Modalities)
		if err != nil {
			return nil, err
		}
		fs.Preferences = append(fs.Preferences, p)
	}
	// The slices are the reader's own: the model keeps them.
	return newFactorised(fs)
}

func parseFactor(i int, fj factorJSON) (Factor, error) {
	f := Factor{Name: fj.name, States: fj.states, Controls: fj.controls, ControlsOf: fj.controlsOf}
	where := fmt.Sprintf("factors[%d]: ", i)
	if f.Name != "" {
		where = fmt.Sprintf("factor %s: ", jsonread.Quote(f.Name))
	}
	// |S_f| and |U_f| from B (or b).
	src, x := "B", fj.B
	if !fj.hasB {
		src, x = "b", fj.ConcB
	}
	if !fj.hasB && !fj.hasCB {
		return f, fmt.Errorf("%sB: missing (give B or its concentrations b)", where)
	}
	if x.Len() == 0 {
		return f, fmt.Errorf("%s%s: empty, want one matrix per control", where, src)
	}
	ns := x.First[1].Len
	if ns == 0 {
		return f, fmt.Errorf("%s%s[0]: empty", where, src)
	}
	f.NumStates, f.NumControls = ns, x.Len()
	if f.Controls != nil && len(f.Controls) != x.Len() {
		return f, fmt.Errorf("%s%s: %d matrices, want %d (one per control)", where, src, x.Len(), len(f.Controls))
	}
	for _, t := range []struct {
		field string
		x     *jsonread.Tensor
		ok    bool
	}{{"B", fj.B, fj.hasB}, {"b", fj.ConcB, fj.hasCB}} {
		if !t.ok {
			continue
		}
		if t.x.Len() != x.Len() {
			return f, fmt.Errorf("%s%s: %d matrices, want %d (as in %s)", where, t.field, t.x.Len(), x.Len(), src)
		}
		if err := matricesShape(t.field, t.x, "number of states, from "+src+"[0]", ns); err != nil {
			return f, fmt.Errorf("%s%w; arbor's layout is %s[u][next][prev], one matrix per control", where, err, t.field)
		}
	}
	for _, t := range []struct {
		field string
		x     *jsonread.Tensor
	}{{"D", fj.D}, {"d", fj.ConcD}, {"C_states", fj.CStates}, {"log_C_states", fj.LogCS}} {
		if t.x != nil && t.x.Len() != ns {
			return f, fmt.Errorf("%s%s: %d entries, want %d (number of states, from %s[0])", where, t.field, t.x.Len(), ns, src)
		}
	}
	f.B, f.ConcB = fj.B.Values(), fj.ConcB.Values()
	f.D, f.ConcD = fj.D.Values(), fj.ConcD.Values()
	f.CStates, f.LogCStates = fj.CStates.Values(), fj.LogCS.Values()
	if f.D == nil && f.ConcD == nil {
		return f, fmt.Errorf("%sD: missing (give D or its concentrations d)", where)
	}
	return f, nil
}

func parseModality(i int, mj modalityJSON, sizes map[string]int) (Modality, error) {
	md := Modality{Name: mj.name, Outcomes: mj.outcomes, DependsOn: mj.dependsOn}
	where := fmt.Sprintf("modalities[%d]: ", i)
	if md.Name != "" {
		where = fmt.Sprintf("modality %s: ", jsonread.Quote(md.Name))
	}
	md.C, md.LogC = mj.C.Values(), mj.LogC.Values()
	if md.DependsOn == nil {
		return md, fmt.Errorf("%sdepends_on: missing (the factors A depends on)", where)
	}
	shape := []int{-1}
	for k, name := range md.DependsOn {
		for j := range k {
			if md.DependsOn[j] == name {
				return md, fmt.Errorf("%sdepends_on[%d]: factor %s listed twice (also depends_on[%d])", where, k, jsonread.Quote(name), j)
			}
		}
		n, ok := sizes[name]
		if !ok {
			names := make([]string, 0, len(sizes))
			for nm := range sizes {
				names = append(names, nm)
			}
			sort.Strings(names)
			return md, fmt.Errorf("%sdepends_on[%d]: unknown factor %s (factors: %s)", where, k, jsonread.Quote(name), jsonread.NameList(names))
		}
		shape = append(shape, n)
	}
	if !mj.hasA && !mj.hasCA {
		return md, fmt.Errorf("%sA: missing (give A or its concentrations a)", where)
	}
	var err error
	if mj.hasA {
		if md.A, err = tensorFit("A", mj.A, shape, md.DependsOn); err != nil {
			return md, fmt.Errorf("%s%w", where, err)
		}
	}
	if mj.hasCA {
		if md.ConcA, err = tensorFit("a", mj.ConcA, shape, md.DependsOn); err != nil {
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
		n     int
	}{{"C", md.C, mj.C.Len()}, {"log_C", md.LogC, mj.LogC.Len()}} {
		if t.x != nil && t.n != shape[0] {
			return md, fmt.Errorf("%s%s: %d entries, want %d (number of outcomes, rows of A)", where, t.field, t.n, shape[0])
		}
	}
	return md, nil
}

// parsePreference checks the table of the i-th joint preference against
// the outcomes of its modalities (an unknown or repeated modality is left
// to NewFactorised, which names it).
func parsePreference(i int, pj prefJSON, mods []Modality) (Preference, error) {
	p := Preference{Modalities: pj.modalities}
	where := fmt.Sprintf("preferences[%d]: ", i)
	if p.Modalities == nil {
		return p, fmt.Errorf("%smodalities: missing (the modalities the table is over)", where)
	}
	shape := make([]int, len(p.Modalities))
	index := ""
	for k, name := range p.Modalities {
		for _, md := range mods {
			if md.Name == name {
				shape[k] = md.NumOutcomes
			}
		}
		if shape[k] == 0 {
			return p, nil // NewFactorised names the unknown modality
		}
		index += "[" + jsonread.Shorten(name) + "]"
	}
	what := func(d int) string { return "outcomes of " + jsonread.Quote(p.Modalities[d]) }
	var err error
	for _, t := range []struct {
		field string
		x     *jsonread.Tensor
		dst   *[]float64
	}{{"C", pj.C, &p.C}, {"log_C", pj.LogC, &p.LogC}} {
		if t.x == nil || len(shape) == 0 {
			continue
		}
		if *t.dst, err = tensorFitAxes(t.field, t.x, shape, what, index); err != nil {
			return p, fmt.Errorf("%s%w", where, err)
		}
	}
	return p, nil
}

// tensorFit checks that t, a nested array read with a free rank, has the
// shape shape (shape[0] = -1: any, set from t) and returns its numbers
// flat and row-major. The error names the first index that does not fit,
// in the order of the text, as a walk of the nested arrays from the top
// against shape would find it: the first array of every depth, then the
// first number, then the fault ReadTensor met (which, once those fit, is
// also the first that does not fit shape).
func tensorFit(field string, t *jsonread.Tensor, shape []int, deps []string) ([]float64, error) {
	what := func(d int) string {
		if d > 0 {
			return "states of " + jsonread.Quote(deps[d-1])
		}
		return "outcomes"
	}
	return tensorFitAxes(field, t, shape, what, "[outcome]"+axesText(deps))
}

// tensorFitAxes is tensorFit with the axes described by what (what(d) the
// entries of axis d) and index (the text of the indexing, "[outcome][...]").
func tensorFitAxes(field string, t *jsonread.Tensor, shape []int, what func(d int) string, index string) ([]float64, error) {
	got := func(off int) string {
		return jsonread.Shorten(string(t.Src[jsonread.Space(t.Src, off):jsonread.Skip(t.Src, jsonread.Space(t.Src, off))]))
	}
	path := func(p []int) string { return field + jsonread.Indices(p) }
	wantArray := func(p []int, off int) error {
		return fmt.Errorf("%s: want an array (%s is indexed %s), got %s", path(p), field, index, got(off))
	}
	wantNumber := func(p []int, off int) error {
		return fmt.Errorf("%s: want a number, got %s", path(p), got(off))
	}
	length := func(p []int, n int) error {
		d := len(p)
		if d == 0 && shape[0] < 0 {
			if n == 0 {
				return fmt.Errorf("%s: empty", field)
			}
			shape[0] = n
			return nil
		}
		if n == shape[d] {
			return nil
		}
		return fmt.Errorf("%s: %d entries, want %d (%s; %s is indexed %s)", path(p), n, shape[d], what(d), field, index)
	}
	rank := len(shape)
	// The first path: the first array at every depth, then a number.
	d := 0
	for ; d < len(t.First) && t.First[d] != nil; d++ {
		a := t.First[d]
		if d == rank {
			return nil, wantNumber(a.Path, a.Off)
		}
		if err := length(a.Path, a.Len); err != nil {
			return nil, err
		}
	}
	if t.NumAt >= 0 && t.Depth == d && d < rank {
		return nil, wantArray(make([]int, d), t.NumAt)
	}
	if f := t.Fault; f != nil {
		k := len(f.Path)
		switch f.Kind {
		case jsonread.TensorEmpty, jsonread.TensorLength:
			if k < rank {
				if err := length(f.Path, f.Len); err != nil {
					return nil, err
				}
			}
			return nil, wantNumber(f.Path, f.Off)
		case jsonread.TensorArray:
			return nil, wantNumber(f.Path, f.Off)
		}
		if k < rank {
			return nil, wantArray(f.Path, f.Off)
		}
		return nil, wantNumber(f.Path, f.Off)
	}
	return t.Data, nil
}

func axesText(deps []string) string {
	var sb strings.Builder
	for _, d := range deps {
		sb.WriteString("[" + jsonread.Shorten(d) + "]")
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
		ControlsOf string    `json:"controls_of,omitempty"`
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
	type prefJSON struct {
		Modalities []string `json:"modalities"`
		C          any      `json:"C,omitempty"`
		LogC       any      `json:"log_C,omitempty"`
	}
	var out struct {
		Factors     []factorJSON   `json:"factors"`
		Modalities  []modalityJSON `json:"modalities"`
		Preferences []prefJSON     `json:"preferences,omitempty"`
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
			Name: f.Name, States: f.States, Controls: f.Controls, ControlsOf: f.ControlsOf, D: f.D,
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
	for _, p := range fs.Preferences {
		var shape []int
		for _, name := range p.Modalities {
			for _, md := range fs.Modalities {
				if md.Name == name {
					shape = append(shape, md.NumOutcomes)
				}
			}
		}
		out.Preferences = append(out.Preferences, prefJSON{Modalities: p.Modalities, C: nest(p.C, shape), LogC: nest(p.LogC, shape)})
	}
	return apiResult(json.Marshal(out))
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
