package pomdp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

// MaxDependsOn is the largest number of factors one modality may depend on.
const MaxDependsOn = 16

// Factor describes one hidden-state factor of a factorised model
// (FactorisedSpec). Layouts, flat and row-major:
//
//	B[(u*NumStates+next)*NumStates+prev] = P(s_{t+1}=next | s_t=prev, u_t=u)
//	D[s], CStates[s]
//
// A factor without Controls has exactly one matrix in B (it is not
// controllable); NumControls is then 1. ConcB and ConcD are Dirichlet
// concentrations with the layouts of B and D; B (D) may be nil when ConcB
// (ConcD) is given, and then defaults to its expectation. CStates or
// LogCStates give a target over the factor's states (optional).
type Factor struct {
	Name      string   // required, unique among the factors
	NumStates int      // |S_f|
	States    []string // optional names of the states
	// Controls names the controls; NumControls is their number (it may be
	// left 0 when Controls is given). An uncontrolled factor has neither.
	Controls    []string
	NumControls int
	// ControlsOf names an earlier controllable factor whose controls this
	// factor shares: one action moves both (a sprite's x and y under
	// "left", "right", "up", "down"). B then has one matrix per control of
	// that factor, Controls is left nil, and the joint actions are not
	// multiplied by this factor's controls.
	ControlsOf string

	B, D                []float64
	CStates, LogCStates []float64
	ConcB, ConcD        []float64
}

// Modality describes one observation modality of a factorised model. A
// lists P(o | s_(f_1), ..., s_(f_k)) for the factors f_1..f_k of DependsOn,
// in that order, flat and row-major:
//
//	A[((o*|S_(f_1)| + s_1)*|S_(f_2)| + s_2)...]
//
// C or LogC give the target over outcomes (neither: uniform). ConcA holds
// Dirichlet concentrations with A's layout; A may be nil when ConcA is
// given.
type Modality struct {
	Name        string   // required, unique among the modalities
	NumOutcomes int      // |O_m|
	Outcomes    []string // optional names of the outcomes
	DependsOn   []string // factor names, each at most once, in A's axis order

	A, C, LogC []float64
	ConcA      []float64
}

// FactorisedSpec describes a POMDP with several hidden-state factors and
// observation modalities (docs/formats.md, "Factorised"). NewFactorised
// validates it.
type FactorisedSpec struct {
	Factors    []Factor
	Modalities []Modality
	// Preferences are targets over the joint outcomes of several
	// modalities (Preference); optional.
	Preferences []Preference
}

// NewFactorised validates fs and returns the model holding copies of its
// slices. Errors name the factor or modality and the field, e.g.
// `pomdp: factor "location": B[1]: column 2 sums to 0.93, want 1 (tolerance 1e-6)`
// or `pomdp: modality "reward": depends_on[1]: unknown factor "contxt"`.
func NewFactorised(fs FactorisedSpec) (*Model, error) {
	return apiResult(newFactorised(fs.clone()))
}

// clone returns fs with copies of its factors, modalities and their slices
// of numbers (names are copied by checkNames).
func (fs FactorisedSpec) clone() FactorisedSpec {
	factors := make([]Factor, len(fs.Factors))
	for i, f := range fs.Factors {
		f.B, f.D, f.CStates, f.LogCStates = clone(f.B), clone(f.D), clone(f.CStates), clone(f.LogCStates)
		f.ConcB, f.ConcD = clone(f.ConcB), clone(f.ConcD)
		factors[i] = f
	}
	mods := make([]Modality, len(fs.Modalities))
	for i, md := range fs.Modalities {
		md.A, md.C, md.LogC, md.ConcA = clone(md.A), clone(md.C), clone(md.LogC), clone(md.ConcA)
		md.DependsOn = cloneStrings(md.DependsOn)
		mods[i] = md
	}
	prefs := make([]Preference, len(fs.Preferences))
	for i, p := range fs.Preferences {
		p.Modalities = cloneStrings(p.Modalities)
		p.C, p.LogC = clone(p.C), clone(p.LogC)
		prefs[i] = p
	}
	if fs.Preferences == nil {
		prefs = nil
	}
	return FactorisedSpec{Factors: factors, Modalities: mods, Preferences: prefs}
}

// newFactorised is NewFactorised without the copy: the model keeps the
// slices of numbers of fs, which the caller hands over (the file reader).
func newFactorised(fs FactorisedSpec) (*Model, error) {
	if len(fs.Factors) == 0 {
		return nil, errors.New("factors: none, want at least one")
	}
	if len(fs.Modalities) == 0 {
		return nil, errors.New("modalities: none, want at least one")
	}
	m := &Model{factorised: true}
	index := make(map[string]int, len(fs.Factors))
	// Guard the sizes against overflow on absurd input.
	const maxElems = 1 << 40
	for i, sf := range fs.Factors {
		if sf.Name == "" {
			return nil, fmt.Errorf("factors[%d]: name: missing", i)
		}
		if f := jsonread.NameFault(sf.Name); f != "" {
			return nil, fmt.Errorf("factors[%d]: name: %s %s", i, jsonread.Quote(sf.Name), f)
		}
		if j, ok := index[sf.Name]; ok {
			return nil, fmt.Errorf("factors[%d]: name: duplicate %s (also factors[%d])", i, jsonread.Quote(sf.Name), j)
		}
		owner := i
		if sf.ControlsOf != "" {
			var err error
			if owner, sf, err = shareControls(sf, m.factors, index); err != nil {
				return nil, fmt.Errorf("factor %s: %w", jsonread.Quote(sf.Name), err)
			}
		}
		index[sf.Name] = i
		f, err := newFactor(sf, maxElems)
		if err != nil {
			return nil, fmt.Errorf("factor %s: %w", jsonread.Quote(sf.Name), err)
		}
		f.owner = owner
		m.factors = append(m.factors, f)
	}
	seen := make(map[string]int, len(fs.Modalities))
	hasC := make([]bool, len(fs.Modalities))
	for i, sm := range fs.Modalities {
		hasC[i] = sm.C != nil || sm.LogC != nil
		if sm.Name == "" {
			return nil, fmt.Errorf("modalities[%d]: name: missing", i)
		}
		if f := jsonread.NameFault(sm.Name); f != "" {
			return nil, fmt.Errorf("modalities[%d]: name: %s %s", i, jsonread.Quote(sm.Name), f)
		}
		if j, ok := seen[sm.Name]; ok {
			return nil, fmt.Errorf("modalities[%d]: name: duplicate %s (also modalities[%d])", i, jsonread.Quote(sm.Name), j)
		}
		seen[sm.Name] = i
		md, err := newModality(sm, m.factors, index, maxElems)
		if err != nil {
			return nil, fmt.Errorf("modality %s: %w", jsonread.Quote(sm.Name), err)
		}
		m.mods = append(m.mods, md)
	}
	if err := m.newPreferences(fs.Preferences, hasC); err != nil {
		return nil, err
	}
	if err := m.finish(); err != nil {
		return nil, err
	}
	return m, nil
}

// shareControls checks ControlsOf of sf against the factors before it and
// returns the owner's index and sf with the owner's controls.
func shareControls(sf Factor, factors []factor, index map[string]int) (int, Factor, error) {
	j, ok := index[sf.ControlsOf]
	switch {
	case !ok:
		return 0, sf, fmt.Errorf("controls_of: unknown factor %s (the factor whose controls it shares must come before it; factors before it: %s)", jsonread.Quote(sf.ControlsOf), factorNames(factors))
	case sf.Controls != nil:
		return 0, sf, errors.New("controls and controls_of: both given, want one (a factor sharing the controls of another has none of its own)")
	case factors[j].owner != j:
		return 0, sf, fmt.Errorf("controls_of: factor %s shares the controls of %s itself; name that one", jsonread.Quote(sf.ControlsOf), jsonread.Quote(factors[factors[j].owner].name))
	case factors[j].nu < 2:
		return 0, sf, fmt.Errorf("controls_of: factor %s has no controls", jsonread.Quote(sf.ControlsOf))
	case sf.NumControls != 0 && sf.NumControls != factors[j].nu:
		return 0, sf, fmt.Errorf("B: %d matrices, want %d (one per control of %s)", sf.NumControls, factors[j].nu, jsonread.Quote(sf.ControlsOf))
	}
	sf.Controls, sf.NumControls = factors[j].controls, factors[j].nu
	return j, sf, nil
}

// ControlOwner returns the factor whose controls factor f takes: f itself,
// or the factor of its ControlsOf. It panics if f is out of range [0,
// NumFactors()).
func (m *Model) ControlOwner(f int) int { return m.factorAt("ControlOwner", f).owner }

func newFactor(sf Factor, maxElems float64) (factor, error) {
	ns := sf.NumStates
	if ns < 1 {
		return factor{}, fmt.Errorf("NumStates: %d, want >= 1", ns)
	}
	nu := sf.NumControls
	switch {
	case sf.Controls != nil && nu == 0:
		nu = len(sf.Controls)
	case sf.Controls == nil && nu == 0:
		nu = 1
	}
	if nu < 1 {
		return factor{}, fmt.Errorf("NumControls: %d, want >= 1", nu)
	}
	if float64(ns)*float64(ns)*float64(nu) > maxElems {
		return factor{}, fmt.Errorf("sizes %d states, %d controls: too large", ns, nu)
	}
	if sf.Controls == nil && nu > 1 {
		return factor{}, fmt.Errorf("B: %d matrices for a factor without controls, want 1 (name its controls to make it controllable)", nu)
	}
	f := factor{name: sf.Name, ns: ns, nu: nu}
	var err error
	if f.concB, err = checkConc("b", sf.ConcB, []int{nu, ns, ns}); err != nil {
		return f, err
	}
	if f.concD, err = checkConc("d", sf.ConcD, []int{ns}); err != nil {
		return f, err
	}
	if f.b, err = checkProb("B", sf.B, f.concB, "b", []int{nu, ns, ns}); err != nil {
		return f, err
	}
	if f.d, err = checkProb("D", sf.D, f.concD, "d", []int{ns}); err != nil {
		return f, err
	}
	cs, err := fromLog("C_states", "log_C_states", sf.CStates, sf.LogCStates, ns)
	if err != nil {
		return f, err
	}
	if cs != nil {
		if f.cStates, err = checkProb("C_states", cs, nil, "", []int{ns}); err != nil {
			return f, err
		}
	}
	if f.states, err = checkNames("states", sf.States, ns, "states"); err != nil {
		return f, err
	}
	if f.controls, err = checkNames("controls", sf.Controls, nu, "matrices in B"); err != nil {
		return f, err
	}
	return f, nil
}

func newModality(sm Modality, factors []factor, index map[string]int, maxElems float64) (modality, error) {
	no := sm.NumOutcomes
	if no < 1 {
		return modality{}, fmt.Errorf("NumOutcomes: %d, want >= 1", no)
	}
	if len(sm.DependsOn) == 0 {
		return modality{}, errors.New("depends_on: empty, want at least one factor")
	}
	if len(sm.DependsOn) > MaxDependsOn {
		return modality{}, fmt.Errorf("depends_on: %d factors, want at most %d", len(sm.DependsOn), MaxDependsOn)
	}
	md := modality{name: sm.Name, no: no}
	shape := []int{no}
	size := float64(no)
	for k, name := range sm.DependsOn {
		f, ok := index[name]
		if !ok {
			return md, fmt.Errorf("depends_on[%d]: unknown factor %s (factors: %s)", k, jsonread.Quote(name), factorNames(factors))
		}
		for j := range k {
			if sm.DependsOn[j] == name {
				return md, fmt.Errorf("depends_on[%d]: factor %s listed twice (also depends_on[%d])", k, jsonread.Quote(name), j)
			}
		}
		md.deps = append(md.deps, f)
		shape = append(shape, factors[f].ns)
		size *= float64(factors[f].ns)
	}
	if size > maxElems {
		return md, fmt.Errorf("A: %g entries: too large", size)
	}
	cols := prod(shape[1:])
	var err error
	if md.concA, err = checkConcShape("a", sm.ConcA, shape); err != nil {
		return md, err
	}
	if sm.A == nil && md.concA == nil {
		return md, errors.New("A: missing (give A or its concentrations a)")
	}
	if sm.A != nil {
		if len(sm.A) != prod(shape) {
			return md, fmt.Errorf("A: %d entries, want %d (%s)", len(sm.A), prod(shape), shapeText(shape, sm.DependsOn))
		}
		if err := checkFinite("A", "probability", sm.A, shape); err != nil {
			return md, err
		}
		if md.a, err = checkProb("A", sm.A, nil, "", []int{no, cols}); err != nil {
			return md, columnError(err, shape)
		}
	} else {
		md.a = expectation(md.concA, []int{no, cols})
	}
	c, err := fromLog("C", "log_C", sm.C, sm.LogC, no)
	if err != nil {
		return md, err
	}
	if c == nil {
		// Neither C nor log_C: a uniform target.
		c = make([]float64, no)
		for o := range c {
			c[o] = 1 / float64(no)
		}
	}
	if md.c, err = checkProb("C", c, nil, "", []int{no}); err != nil {
		return md, err
	}
	if md.outcomes, err = checkNames("outcomes", sm.Outcomes, no, "outcomes"); err != nil {
		return md, err
	}
	return md, nil
}

// checkConcShape is checkConc for a tensor of any rank.
func checkConcShape(field string, x []float64, shape []int) ([]float64, error) {
	if x == nil {
		return nil, nil
	}
	if len(x) != prod(shape) {
		return nil, fmt.Errorf("%s: %d entries, want %d", field, len(x), prod(shape))
	}
	return checkConc(field, x, shape)
}

// columnError rewrites "A: column j ..." of a flattened check into the
// multi-index of A's axes.
func columnError(err error, shape []int) error {
	var j int
	msg := err.Error()
	if _, e := fmt.Sscanf(msg, "A: column %d", &j); e != nil || len(shape) <= 2 {
		return err
	}
	rest := msg[strings.Index(msg, " sums"):]
	return fmt.Errorf("A: column [:]%s%s", elemName("", shape[1:], j), rest)
}

func shapeText(shape []int, deps []string) string {
	parts := make([]string, len(shape))
	parts[0] = fmt.Sprintf("%d outcomes", shape[0])
	for i, d := range deps {
		parts[i+1] = fmt.Sprintf("%d states of %s", shape[i+1], jsonread.Quote(d))
	}
	return strings.Join(parts, " × ")
}

func factorNames(fs []factor) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return jsonread.NameList(names)
}

// Factorised reports whether m was built from a factorised description
// (NewFactorised, or a file with "factors" and "modalities"), even one with
// a single factor: its output lists beliefs by factor and modality name.
func (m *Model) Factorised() bool { return m.factorised }

// NumFactors returns the number of hidden-state factors.
func (m *Model) NumFactors() int { return len(m.factors) }

// NumModalities returns the number of observation modalities.
func (m *Model) NumModalities() int { return len(m.mods) }

// factorAt returns factor f for method fn, panicking if f is out of range.
func (m *Model) factorAt(fn string, f int) *factor {
	if uint(f) >= uint(len(m.factors)) {
		badIndex(fn, "factor", f, len(m.factors))
	}
	return &m.factors[f]
}

// modalityAt returns modality i for method fn, panicking if i is out of
// range.
func (m *Model) modalityAt(fn string, i int) *modality {
	if uint(i) >= uint(len(m.mods)) {
		badIndex(fn, "modality", i, len(m.mods))
	}
	return &m.mods[i]
}

// FactorName returns the name of factor f ("" in a single-factor model).
// It panics if f is out of range [0, NumFactors()).
func (m *Model) FactorName(f int) string { return m.factorAt("FactorName", f).name }

// FactorSize returns |S_f|. It panics if f is out of range [0,
// NumFactors()).
func (m *Model) FactorSize(f int) int { return m.factorAt("FactorSize", f).ns }

// FactorOffset returns where the marginal of factor f starts in a belief.
// It panics if f is out of range [0, NumFactors()).
func (m *Model) FactorOffset(f int) int { return m.factorAt("FactorOffset", f).off }

// FactorControls returns |U_f|, the number of controls of factor f (1 for
// an uncontrolled factor). It panics if f is out of range [0,
// NumFactors()).
func (m *Model) FactorControls(f int) int { return m.factorAt("FactorControls", f).nu }

// FactorStateName returns the name of state s of factor f, or its decimal
// index (also for s out of range). It panics if f is out of range [0,
// NumFactors()).
func (m *Model) FactorStateName(f, s int) string {
	return name(m.factorAt("FactorStateName", f).states, s)
}

// ControlName returns the name of control c of factor f (its decimal
// index when the model does not name it, or c is out of range). It panics
// if f is out of range [0, NumFactors()).
func (m *Model) ControlName(f, c int) string {
	fa := m.factorAt("ControlName", f)
	if len(m.factors) == 1 && fa.controls == nil {
		return name(m.actions, c)
	}
	return name(fa.controls, c)
}

// ControlNames returns the names of factor f's controls (a copy), or nil
// when the model does not name them. It panics if f is out of range [0,
// NumFactors()).
func (m *Model) ControlNames(f int) []string {
	return cloneStrings(m.factorAt("ControlNames", f).controls)
}

// ModalityName returns the name of modality i ("" in a single-factor
// model). It panics if i is out of range [0, NumModalities()).
func (m *Model) ModalityName(i int) string { return m.modalityAt("ModalityName", i).name }

// ModalitySize returns |O_i|. It panics if i is out of range [0,
// NumModalities()).
func (m *Model) ModalitySize(i int) int { return m.modalityAt("ModalitySize", i).no }

// OutcomeName returns the name of outcome o of modality i, or its decimal
// index (also for o out of range). It panics if i is out of range [0,
// NumModalities()).
func (m *Model) OutcomeName(i, o int) string {
	return name(m.modalityAt("OutcomeName", i).outcomes, o)
}

// OutcomeNames returns the names of modality i's outcomes (a copy), or
// nil when the model does not name them. It panics if i is out of range
// [0, NumModalities()).
func (m *Model) OutcomeNames(i int) []string {
	return cloneStrings(m.modalityAt("OutcomeNames", i).outcomes)
}

// DependsOn returns the factors that modality i depends on, in the order of
// its A's axes (a copy). It panics if i is out of range [0,
// NumModalities()).
func (m *Model) DependsOn(i int) []int {
	return append([]int(nil), m.modalityAt("DependsOn", i).deps...)
}

// StepWork returns the multiply-adds of one future step: Σ_f |S_f|² for
// the propagation plus Σ_m |O_m| Π_(f in deps(m)) |S_f| for the predicted
// outcomes.
func (m *Model) StepWork() float64 { return m.work }

// DecodeAction writes the control of every factor under action u into dst
// (allocated when nil or too short) and returns it. It panics if u is out
// of range [0, NumActions()).
func (m *Model) DecodeAction(dst []int, u int) []int {
	if uint(u) >= uint(m.nu) {
		badIndex("DecodeAction", "action", u, m.nu)
	}
	if cap(dst) < len(m.factors) {
		dst = make([]int, len(m.factors))
	}
	dst = dst[:len(m.factors)]
	for i, f := range m.factors {
		dst[i] = (u / f.stride) % f.nu
	}
	return dst
}

// EncodeControls returns the joint action index of one control per factor
// (controls in factor order; 0 for a factor that is not controllable; the
// entry of a factor that shares another's controls is ignored), or
// an error naming the factor whose control is out of range: the inverse of
// DecodeAction. A nil or zero model is Check's error.
func (m *Model) EncodeControls(controls []int) (int, error) {
	if err := Check(m); err != nil {
		return 0, apiError(err)
	}
	if len(controls) != len(m.factors) {
		return 0, fmt.Errorf("pomdp: %d controls, want %d (one per factor)", len(controls), len(m.factors))
	}
	u := 0
	for i, f := range m.factors {
		if f.owner != i {
			continue // the owner's control
		}
		c := controls[i]
		if c < 0 || c >= f.nu {
			return 0, fmt.Errorf("pomdp: control %d of factor %s: out of range [0, %d)", c, jsonread.Quote(f.name), f.nu)
		}
		u += c * f.stride
	}
	return u, nil
}

// EncodeObs returns the observation index of one outcome per modality
// (outcomes in modality order), or an error naming the modality whose
// outcome is out of range. A nil or zero model is Check's error.
func (m *Model) EncodeObs(outcomes []int) (int, error) {
	if err := Check(m); err != nil {
		return 0, apiError(err)
	}
	if len(outcomes) != len(m.mods) {
		return 0, fmt.Errorf("pomdp: %d outcomes, want %d (one per modality%s)", len(outcomes), len(m.mods), modalityList(m))
	}
	o := 0
	for i, md := range m.mods {
		x := outcomes[i]
		if x < 0 || x >= md.no {
			if len(m.mods) == 1 {
				return 0, fmt.Errorf("pomdp: observation %d out of range [0, %d)", x, md.no)
			}
			return 0, fmt.Errorf("pomdp: outcome %d of modality %s: out of range [0, %d)", x, jsonread.Quote(md.name), md.no)
		}
		o += x * md.stride
	}
	return o, nil
}

func modalityList(m *Model) string {
	if !m.factorised {
		return ""
	}
	names := make([]string, len(m.mods))
	for i, md := range m.mods {
		names[i] = md.name
	}
	return ": " + strings.Join(names, ", ")
}

// DecodeObs writes the outcome of every modality in observation o into dst
// (allocated when nil or too short) and returns it. It panics if o is out
// of range [0, NumObs()).
func (m *Model) DecodeObs(dst []int, o int) []int {
	if uint(o) >= uint(m.no) {
		badIndex("DecodeObs", "observation", o, m.no)
	}
	if cap(dst) < len(m.mods) {
		dst = make([]int, len(m.mods))
	}
	dst = dst[:len(m.mods)]
	for i, md := range m.mods {
		dst[i] = (o / md.stride) % md.no
	}
	return dst
}

// FactorisedSpec returns a deep copy of m as a factorised description;
// NewFactorised(m.FactorisedSpec()) builds the same model. A single-factor
// model gets the factor name "state" and the modality name "observation".
func (m *Model) FactorisedSpec() FactorisedSpec {
	var fs FactorisedSpec
	for _, f := range m.factors {
		nm := f.name
		if nm == "" {
			nm = "state"
		}
		controls := cloneStrings(f.controls)
		if controls == nil && f.nu > 1 {
			controls = make([]string, f.nu)
			for u := range controls {
				controls[u] = fmt.Sprint(u)
			}
		}
		controlsOf := ""
		if j := f.owner; j != len(fs.Factors) {
			controls, controlsOf = nil, fs.Factors[j].Name
		}
		fs.Factors = append(fs.Factors, Factor{
			Name: nm, NumStates: f.ns, States: cloneStrings(f.states),
			Controls: controls, NumControls: f.nu, ControlsOf: controlsOf,
			B: clone(f.b), D: clone(f.d), CStates: clone(f.cStates),
			ConcB: clone(f.concB), ConcD: clone(f.concD),
		})
	}
	for _, md := range m.mods {
		nm := md.name
		if nm == "" {
			nm = "observation"
		}
		deps := make([]string, len(md.deps))
		for k, f := range md.deps {
			deps[k] = fs.Factors[f].Name
		}
		fs.Modalities = append(fs.Modalities, Modality{
			Name: nm, NumOutcomes: md.no, Outcomes: cloneStrings(md.outcomes), DependsOn: deps,
			A: clone(md.a), C: clone(md.c), ConcA: clone(md.concA),
		})
	}
	for _, p := range m.prefs {
		names := make([]string, len(p.mods))
		for k, i := range p.mods {
			names[k] = fs.Modalities[i].Name
		}
		fs.Preferences = append(fs.Preferences, Preference{Modalities: names, C: clone(p.c)})
	}
	return fs
}

// SplitBelief returns the marginal of every factor in the belief qs
// (sub-slices of qs, no copy). It panics if len(qs) != NumStates().
func (m *Model) SplitBelief(qs []float64) [][]float64 {
	if len(qs) != m.ns {
		badLen("SplitBelief", "qs", len(qs), m.ns)
	}
	out := make([][]float64, len(m.factors))
	for i, f := range m.factors {
		out[i] = qs[f.off : f.off+f.ns : f.off+f.ns]
	}
	return out
}

// ObsLen returns Σ_m |O_m|, the length of a prediction over observations
// (PredictObs): every modality's distribution, one after the other.
func (m *Model) ObsLen() int { return m.obsLen }

// ObsOffset returns where modality i starts in a prediction (PredictObs).
// It panics if i is out of range [0, NumModalities()).
func (m *Model) ObsOffset(i int) int {
	m.modalityAt("ObsOffset", i)
	n := 0
	for _, md := range m.mods[:i] {
		n += md.no
	}
	return n
}

// ModalityA returns a copy of modality i's A, flat over [o][s_deps...].
// It panics if i is out of range [0, NumModalities()).
func (m *Model) ModalityA(i int) []float64 { return clone(m.modalityAt("ModalityA", i).a) }

// ModalityC returns a copy of modality i's target C, nil for a modality
// whose target is part of a joint preference (Preference). It panics if i
// is out of range [0, NumModalities()).
func (m *Model) ModalityC(i int) []float64 { return clone(m.modalityAt("ModalityC", i).c) }

// FactorB returns a copy of factor f's B, flat over [u][next][prev]. It
// panics if f is out of range [0, NumFactors()).
func (m *Model) FactorB(f int) []float64 { return clone(m.factorAt("FactorB", f).b) }

// FactorCStates returns a copy of factor f's target over states, nil when
// it has none. It panics if f is out of range [0, NumFactors()).
func (m *Model) FactorCStates(f int) []float64 {
	return clone(m.factorAt("FactorCStates", f).cStates)
}

// ModalityExpect returns Σ_j x[j] Π_k q_(f_k)(j_k): the expectation of x,
// a tensor over modality i's factors (row-major in the order of
// DependsOn(i), as one outcome's row of its A), under the product of the
// factor marginals in the belief qs. It does not allocate. It panics if i
// is out of range [0, NumModalities()), len(x) is not the size of the
// modality's A row (Π_k |S_(f_k)|) or len(qs) != NumStates().
func (m *Model) ModalityExpect(i int, x, qs []float64) float64 {
	md := m.modalityAt("ModalityExpect", i)
	if len(x) != md.size {
		badLen("ModalityExpect", "x", len(x), md.size)
	}
	if len(qs) != m.ns {
		badLen("ModalityExpect", "qs", len(qs), m.ns)
	}
	return m.expect(md, x, qs)
}

// ModalityMarginal sets dst[s] = Σ_(j: j_k = s) x[j] Π_(l≠k) q_(f_l)(j_l)
// for axis k of modality i (the factor DependsOn(i)[k]): x, a tensor over
// the modality's factors, averaged over every factor but one under the
// belief qs. dst has the size of that factor. It does not allocate. It
// panics if i or k is out of range, or a slice has the wrong length (dst
// |S_(f_k)|, x the size of the modality's A row, qs NumStates()).
func (m *Model) ModalityMarginal(dst []float64, i, k int, x, qs []float64) {
	md := m.modalityAt("ModalityMarginal", i)
	nd := len(md.deps)
	if uint(k) >= uint(nd) {
		badIndex("ModalityMarginal", "axis", k, nd)
	}
	nk := m.factors[md.deps[k]].ns
	switch {
	case len(dst) != nk:
		badLen("ModalityMarginal", "dst", len(dst), nk)
	case len(x) != md.size:
		badLen("ModalityMarginal", "x", len(x), md.size)
	case len(qs) != m.ns:
		badLen("ModalityMarginal", "qs", len(qs), m.ns)
	}
	clear(dst)
	var idx [MaxDependsOn]int
	// Walk every index j of x in row-major order with the weight
	// Π_(l≠k) q(j_l); the weight changes only when an index other than
	// axis k moves.
	n := md.size
	for j := range n {
		w := 1.0
		for l := range nd {
			if l != k {
				f := &m.factors[md.deps[l]]
				w *= qs[f.off+idx[l]]
			}
		}
		dst[idx[k]] += w * x[j]
		for l := nd - 1; l >= 0; l-- {
			idx[l]++
			if idx[l] < m.factors[md.deps[l]].ns {
				break
			}
			idx[l] = 0
		}
	}
}

// PredictObs writes into dst (ObsLen entries) Q(o_m) = Σ_(s_deps) A_m[o,
// s_deps] Π_f q_f(s_f) for every modality m, one after the other: the
// predicted observations of the belief qs. It does not allocate. It panics
// if m is nil or not a valid model (Check), len(qs) != m.NumStates() or
// len(dst) != m.ObsLen(): programming errors, as for Risk.
func PredictObs(m *Model, dst, qs []float64) {
	if m == nil || !m.valid || len(qs) != m.ns {
		badBelief("PredictObs", m, qs)
	}
	if len(dst) != m.obsLen {
		badLen("PredictObs", "dst", len(dst), m.obsLen)
	}
	off := 0
	for i := range m.mods {
		md := &m.mods[i]
		for o := range md.no {
			dst[off+o] = m.expect(md, md.a[o*md.size:(o+1)*md.size], qs)
		}
		off += md.no
	}
}
