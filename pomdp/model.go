package pomdp

import (
	"fmt"
	"math"
	"strings"
	"sync"
)

// Tolerance is the absolute tolerance on the sum of a probability vector
// (a column of A or B, the vectors C, D and C_states) used by New and
// Parse.
const Tolerance = 1e-6

const toleranceText = "1e-6" // Tolerance as written in error messages

// Spec is the flat, row-major description of a POMDP (docs/formats.md) that
// New validates and copies. Index layouts:
//
//	A[o*NumStates+s]                     = P(o | s)
//	B[(u*NumStates+next)*NumStates+prev] = P(s_{t+1}=next | s_t=prev, u_t=u)
//	C[o], D[s], CStates[s]
//
// ConcA, ConcB and ConcD are Dirichlet concentrations with the layouts of A, B
// and D. When A (B, D) is nil and ConcA (ConcB, ConcD) is not, the model uses
// the expectation of the Dirichlet: ConcA with every column normalised.
// CStates, the concentrations and the names are optional (nil).
//
// LogC may replace C, and LogCStates CStates: log-preferences up to an
// additive constant, as SPM and pymdp write them ([0, 3, -6]); the model
// uses C = softmax(LogC). Giving both C and LogC is an error. -Inf entries
// are allowed in Go (C = 0 there), not every one.
type Spec struct {
	NumStates, NumObs, NumActions int

	A, B, C, D          []float64
	CStates             []float64
	LogC, LogCStates    []float64
	ConcA, ConcB, ConcD []float64

	Actions, Observations, States []string
}

// Model is a validated discrete POMDP: one or more hidden-state factors,
// each with its transitions B (one matrix per control), prior D, optional
// target C_states and Dirichlet concentrations b, d; one or more
// observation modalities, each with its likelihood A over the factors it
// depends on, target C and optional concentrations a; and names. A model
// with one factor and one modality is the single-factor POMDP of Spec;
// NewFactorised builds the general one. It is immutable after construction
// and safe for concurrent use.
//
// Beliefs over hidden states are written factor after factor: a belief is
// a vector of NumStates() = Σ_f |S_f| entries, the marginal of factor 0
// first (FactorOffset). Actions and observations are single indices: an
// action is one control per factor (DecodeAction), an observation one
// outcome per modality (EncodeObs, DecodeObs), both in lexicographic order
// with the first factor (modality) varying slowest.
//
// The zero Model is not usable: Check refuses it, and so does every
// function that takes a model, with an error or, for the kernels of the
// expected free energy (Risk, Propagate, PredictObs, ...), a panic that
// their doc comments name; build a Model with New, NewFactorised, Parse or
// Load. A nil *Model is a programming error: its methods panic, as methods
// of a nil pointer do, and so do the methods that take a factor, modality
// or action index out of range (their doc comments say which), as indexing
// a slice does.
type Model struct {
	ns, no, nu int // Σ_f |S_f|, Π_m |O_m|, Π_f |U_f|

	factors    []factor
	mods       []modality
	prefs      []preference // joint preferences over several modalities
	fused      *fusion      // A B_u in one pass (ChildCost), or nil
	factorised bool         // built by NewFactorised (output keyed by name)

	// The single-factor view (factor 0 and modality 0), used by the
	// accessors of a single-factor model.
	a, b, c, d []float64
	cStates    []float64
	concA      []float64
	concB      []float64
	concD      []float64

	actions, observations, states []string

	// Caches for the expected free energy.
	logC   []float64 // modality 0: ln C[o], -Inf where C[o] = 0
	hA     []float64 // modality 0: hA[s] = H[A(.|s)]
	logD   []float64 // factor 0: ln D[s]
	work   float64   // multiply-adds of one propagation and one step cost
	obsLen int       // Σ_m |O_m|
	wLen   int       // len(NoveltyWeights()): Σ_m |O_m| size_m, 0 without any a
	hasA   bool      // some modality has concentrations a
	valid  bool

	// The arrays of A's size that reading a model does not need, computed
	// on first use (the novelty weights, ln A). finish gives every model a
	// fresh one, so that a copy of a Model value (AgentView, ScaleModel,
	// Past.ExpectedModel), which calls finish, never shares it (but for
	// Past.expectedD's, whose A is the model's, and so are its ln A and
	// novelty weights); being behind a pointer, copying a Model copies no
	// lock.
	lazy *derived
}

// derived holds the arrays of a Model computed on first use, each once,
// safely for concurrent use (several agents share one model).
type derived struct {
	wOnce   sync.Once
	w       []float64 // novelty weights of every modality, one after the other; nil without any a
	logOnce sync.Once
	logA    [][]float64 // per modality: ln A[o*size+s], -Inf where A = 0
}

// factor is one hidden-state factor.
type factor struct {
	name                        string
	ns, nu                      int
	off                         int // offset of its marginal in a belief
	stride                      int // joint action u has control (u/stride)%nu
	owner                       int // the factor whose controls it takes (ControlsOf), or its own index
	b, d, cStates, concB, concD []float64
	states, controls            []string
	logD                        []float64
	bc                          []*compact // per control: B in compact form, or nil (dense)
}

// modality is one observation modality.
type modality struct {
	name     string
	no       int
	deps     []int // the factors A depends on, in the order of its axes
	size     int   // Π_(f in deps) |S_f|, the columns of A
	stride   int   // joint observation o has outcome (o/stride)%no
	a, c     []float64
	concA    []float64
	outcomes []string
	logC     []float64 // ln C[o]
	hA       []float64 // H[A(.|s_deps)], size entries
	// The risk of a belief sure of column s (a state of each factor in
	// deps), Σ_o A[o,s] (ln A[o,s] − ln C[o]) over A[o,s] > 0 in
	// ascending o: StepCostOn's sum for that belief, the same operations.
	// Unused in a joint preference, whose modalities have no C of their
	// own (StepCostOn then scores the model as StepCost does).
	sharpRisk []float64
	wOff      int      // offset of its novelty weights in NoveltyWeights
	obsOff    int      // offset of its outcomes in a prediction (ObsLen layout)
	pref      int      // 1 + the index of its joint preference, 0 when none
	ac        *compact // A in compact form (one factor only), or nil (dense)
}

// New validates sp and returns a POMDP holding copies of its slices.
// Errors name the field (A, B[u], C, D, C_states, a, b[u], d, actions,
// observations, states) and the fault, e.g.
// "B[1]: column 2 sums to 0.93, want 1 (tolerance 1e-6)".
func New(sp Spec) (*Model, error) {
	return apiResult(newModel(sp.clone()))
}

// clone returns sp with copies of its slices of numbers (names are copied
// by checkNames).
func (sp Spec) clone() Spec {
	sp.A, sp.B, sp.C, sp.D = clone(sp.A), clone(sp.B), clone(sp.C), clone(sp.D)
	sp.CStates, sp.LogC, sp.LogCStates = clone(sp.CStates), clone(sp.LogC), clone(sp.LogCStates)
	sp.ConcA, sp.ConcB, sp.ConcD = clone(sp.ConcA), clone(sp.ConcB), clone(sp.ConcD)
	return sp
}

// newModel is New without the copy: the model keeps sp's slices of
// numbers, which the caller hands over (Parse, whose slices nothing else
// holds, so that a file's numbers are not held twice).
func newModel(sp Spec) (*Model, error) {
	ns, no, nu := sp.NumStates, sp.NumObs, sp.NumActions
	if ns < 1 {
		return nil, fmt.Errorf("NumStates: %d, want >= 1", ns)
	}
	if no < 1 {
		return nil, fmt.Errorf("NumObs: %d, want >= 1", no)
	}
	if nu < 1 {
		return nil, fmt.Errorf("NumActions: %d, want >= 1", nu)
	}
	// Guard the products below against overflow on absurd sizes.
	const maxElems = 1 << 40
	if float64(ns)*float64(ns)*float64(nu) > maxElems || float64(no)*float64(ns) > maxElems {
		return nil, fmt.Errorf("sizes %d states, %d observations, %d actions: too large", ns, no, nu)
	}
	m := &Model{ns: ns, no: no, nu: nu}

	var err error
	// Concentrations first: the probabilities may default to them.
	if m.concA, err = checkConc("a", sp.ConcA, []int{no, ns}); err != nil {
		return nil, err
	}
	if m.concB, err = checkConc("b", sp.ConcB, []int{nu, ns, ns}); err != nil {
		return nil, err
	}
	if m.concD, err = checkConc("d", sp.ConcD, []int{ns}); err != nil {
		return nil, err
	}

	if m.a, err = checkProb("A", sp.A, m.concA, "a", []int{no, ns}); err != nil {
		return nil, err
	}
	if m.b, err = checkProb("B", sp.B, m.concB, "b", []int{nu, ns, ns}); err != nil {
		return nil, err
	}
	if m.d, err = checkProb("D", sp.D, m.concD, "d", []int{ns}); err != nil {
		return nil, err
	}
	if sp.C, err = fromLog("C", "log_C", sp.C, sp.LogC, no); err != nil {
		return nil, err
	}
	if sp.CStates, err = fromLog("C_states", "log_C_states", sp.CStates, sp.LogCStates, ns); err != nil {
		return nil, err
	}
	if m.c, err = checkProb("C", sp.C, nil, "", []int{no}); err != nil {
		return nil, err
	}
	if sp.CStates != nil {
		if m.cStates, err = checkProb("C_states", sp.CStates, nil, "", []int{ns}); err != nil {
			return nil, err
		}
	}
	if m.actions, err = checkNames("actions", sp.Actions, nu, "actions"); err != nil {
		return nil, err
	}
	if m.observations, err = checkNames("observations", sp.Observations, no, "observations"); err != nil {
		return nil, err
	}
	if m.states, err = checkNames("states", sp.States, ns, "states"); err != nil {
		return nil, err
	}
	m.factors = []factor{{
		ns: ns, nu: nu, b: m.b, d: m.d, cStates: m.cStates, concB: m.concB, concD: m.concD,
		states: m.states, controls: m.actions,
	}}
	m.mods = []modality{{no: no, deps: []int{0}, a: m.a, c: m.c, concA: m.concA, outcomes: m.observations}}
	if err := m.finish(); err != nil {
		return nil, err
	}
	return m, nil
}

// finish computes the sizes, strides and offsets of the factors and
// modalities, the single-factor view and the caches of the expected free
// energy.
func (m *Model) finish() error {
	const maxIndex = 1 << 53 // joint indices stay exact in a float64 too
	m.ns, m.nu, m.no, m.obsLen = 0, 1, 1, 0
	for i := range m.factors {
		m.factors[i].off = m.ns
		m.ns += m.factors[i].ns
	}
	for i := len(m.factors) - 1; i >= 0; i-- {
		f := &m.factors[i]
		if f.owner != i {
			continue // after the loop: its owner's stride
		}
		f.stride = m.nu
		if float64(m.nu)*float64(f.nu) > maxIndex {
			return fmt.Errorf("actions: the product of the factors' controls is too large (over 2^53)")
		}
		m.nu *= f.nu
	}
	for i := range m.factors {
		m.factors[i].stride = m.factors[m.factors[i].owner].stride
	}
	for i := len(m.mods) - 1; i >= 0; i-- {
		md := &m.mods[i]
		md.stride = m.no
		if float64(m.no)*float64(md.no) > maxIndex {
			return fmt.Errorf("observations: the product of the modalities' outcomes is too large (over 2^53)")
		}
		m.no *= md.no
	}
	f0, md0 := &m.factors[0], &m.mods[0]
	m.b, m.d, m.cStates, m.concB, m.concD = f0.b, f0.d, f0.cStates, f0.concB, f0.concD
	m.states = f0.states
	m.a, m.c, m.concA, m.observations = md0.a, md0.c, md0.concA, md0.outcomes
	if len(m.factors) == 1 {
		m.actions = f0.controls
	} else {
		m.actions = nil
	}

	for i := range m.factors {
		f := &m.factors[i]
		f.logD = make([]float64, f.ns)
		for s, d := range f.d {
			f.logD[s] = math.Log(d)
		}
		m.work += float64(f.ns) * float64(f.ns)
	}
	hasA := false
	wLen := 0
	for i := range m.mods {
		md := &m.mods[i]
		md.size = 1
		for _, f := range md.deps {
			md.size *= m.factors[f].ns
		}
		m.work += float64(md.no) * float64(md.size)
		md.logC = make([]float64, md.no)
		for o, c := range md.c {
			md.logC[o] = math.Log(c) // -Inf for c = 0
		}
		md.hA = make([]float64, md.size)
		md.sharpRisk = make([]float64, md.size)
		for o := range md.no {
			for s := range md.size {
				p := md.a[o*md.size+s]
				if p > 0 { // 0 ln 0 = 0
					lp := math.Log(p)
					md.hA[s] -= p * lp
					md.sharpRisk[s] += p * (lp - md.logC[o])
				}
			}
		}
		md.wOff = wLen
		wLen += md.no * md.size
		md.obsOff = m.obsLen
		m.obsLen += md.no
		hasA = hasA || md.concA != nil
	}
	m.wLen, m.hasA = 0, hasA
	if hasA {
		m.wLen = wLen
	}
	m.finishPreferences()
	m.compactTensors()
	m.lazy = new(derived)
	m.logC, m.hA, m.logD = md0.logC, md0.hA, f0.logD
	m.valid = true
	return nil
}

// noveltyWeights returns the novelty weights of every modality, one after
// the other (nil when no modality has concentrations a), computing them on
// the first call.
func (m *Model) noveltyWeights() []float64 {
	if !m.hasA || m.lazy == nil {
		return nil
	}
	c := m.lazy
	c.wOnce.Do(func() {
		// W = 1/2 (1/a - 1/a0), a0 the column sums, zero where a = 0
		// (Smith, Friston & Whyte 2022; SPM spm_wnorm masked by a > 0);
		// zero for a modality without concentrations.
		wA := make([]float64, m.wLen)
		for i := range m.mods {
			md := &m.mods[i]
			if md.concA == nil {
				continue
			}
			no, ns := md.no, md.size
			a0 := make([]float64, ns)
			for o := range no {
				for s := range ns {
					a0[s] += md.concA[o*ns+s]
				}
			}
			w := wA[md.wOff : md.wOff+no*ns]
			for o := range no {
				for s := range ns {
					if a := md.concA[o*ns+s]; a > 0 {
						w[o*ns+s] = 0.5 * (1/a - 1/a0[s])
					}
				}
			}
		}
		c.w = wA
	})
	return c.w
}

// logA returns ln A of every modality (-Inf where A = 0), computing them
// on the first call. m must be valid (finish gives it its cache).
func (m *Model) logA() [][]float64 {
	c := m.lazy
	c.logOnce.Do(func() {
		logA := make([][]float64, len(m.mods))
		for i := range m.mods {
			a := m.mods[i].a
			l := make([]float64, len(a))
			for j, p := range a {
				l[j] = math.Log(p)
			}
			logA[i] = l
		}
		c.logA = logA
	})
	return c.logA
}

// NumStates returns the length of a state belief, Σ_f |S_f|: |S| for a
// single factor.
func (m *Model) NumStates() int { return m.ns }

// NumObs returns the number of observation indices, Π_m |O_m|: |O| for a
// single modality.
func (m *Model) NumObs() int { return m.no }

// NumActions returns the number of actions, Π_f |U_f| over the factors'
// controls: |U| for a single factor.
func (m *Model) NumActions() int { return m.nu }

// single panics unless m has one factor and one modality.
func (m *Model) single(what string) {
	if len(m.factors) != 1 || len(m.mods) != 1 {
		panic(fmt.Sprintf("pomdp: %s on a model with %d factors and %d modalities (use FactorisedSpec)", what, len(m.factors), len(m.mods)))
	}
}

// A returns P(o | s) of a model with one factor and one modality. It panics
// if an index is out of range or the model has several factors or
// modalities.
func (m *Model) A(o, s int) float64 {
	m.single("A")
	checkIndex("o", o, m.no)
	checkIndex("s", s, m.ns)
	return m.a[o*m.ns+s]
}

// B returns P(s_{t+1}=next | s_t=prev, u_t=u) of a model with one factor
// and one modality. It panics if an index is out of range or the model has
// several factors or modalities.
func (m *Model) B(u, next, prev int) float64 {
	m.single("B")
	checkIndex("u", u, m.nu)
	checkIndex("next", next, m.ns)
	checkIndex("prev", prev, m.ns)
	return m.b[(u*m.ns+next)*m.ns+prev]
}

// C returns the target probability of observation o of a model with one
// factor and one modality. It panics if o is out of range or the model has
// several factors or modalities.
func (m *Model) C(o int) float64 {
	m.single("C")
	checkIndex("o", o, m.no)
	return m.c[o]
}

// D returns the prior probability of initial state s of a model with one
// factor and one modality. It panics if s is out of range or the model has
// several factors or modalities.
func (m *Model) D(s int) float64 {
	m.single("D")
	checkIndex("s", s, m.ns)
	return m.d[s]
}

// HasCStates reports whether some factor has a target distribution over
// its states.
func (m *Model) HasCStates() bool {
	for _, f := range m.factors {
		if f.cStates != nil {
			return true
		}
	}
	return false
}

// Learnable reports which of A, B and D have Dirichlet concentrations (a,
// b, d) in some modality or factor, and are therefore learned by the
// agents.
func (m *Model) Learnable() (a, b, d bool) {
	for _, md := range m.mods {
		a = a || md.concA != nil
	}
	for _, f := range m.factors {
		b = b || f.concB != nil
		d = d || f.concD != nil
	}
	return a, b, d
}

// Spec returns a deep copy of a model with one factor and one modality in
// flat form; New(m.Spec()) reproduces it. A, B and D are always set (to the
// expectations of the concentrations when the input had none). It panics
// on a model with several factors or modalities: use FactorisedSpec.
func (m *Model) Spec() Spec {
	m.single("Spec")
	return Spec{
		NumStates: m.ns, NumObs: m.no, NumActions: m.nu,
		A: clone(m.a), B: clone(m.b), C: clone(m.c), D: clone(m.d),
		CStates: clone(m.cStates),
		ConcA:   clone(m.concA), ConcB: clone(m.concB), ConcD: clone(m.concD),
		Actions: cloneStrings(m.actions), Observations: cloneStrings(m.observations),
		States: cloneStrings(m.states),
	}
}

// ActionName returns the name of action u: the name of the control, or
// with several controllable factors the names of their controls joined by
// "+"; a decimal index stands for a missing name, and for the whole of an
// action out of range [0, NumActions()).
func (m *Model) ActionName(u int) string {
	if len(m.factors) == 1 {
		return name(m.actions, u)
	}
	if uint(u) >= uint(m.nu) {
		return fmt.Sprint(u)
	}
	var parts []string
	for i, f := range m.factors {
		if f.controls == nil && f.nu == 1 || f.owner != i {
			continue
		}
		parts = append(parts, name(f.controls, (u/f.stride)%f.nu))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "+")
}

// ObsName returns the name of observation o: the outcome's name, or with
// several modalities the names of their outcomes joined by "+"; a decimal
// index stands for a missing name, and for the whole of an observation out
// of range [0, NumObs()).
func (m *Model) ObsName(o int) string {
	if len(m.mods) == 1 {
		return name(m.observations, o)
	}
	if uint(o) >= uint(m.no) {
		return fmt.Sprint(o)
	}
	parts := make([]string, len(m.mods))
	for i, md := range m.mods {
		parts[i] = name(md.outcomes, (o/md.stride)%md.no)
	}
	return strings.Join(parts, "+")
}

// StateName returns the name of entry s of a belief: the state's name, or
// with several factors "factor:state"; a decimal index stands for a missing
// name, and for the whole of an entry out of range [0, NumStates()).
func (m *Model) StateName(s int) string {
	if len(m.factors) == 1 {
		return name(m.states, s)
	}
	if uint(s) >= uint(m.ns) {
		return fmt.Sprint(s)
	}
	for _, f := range m.factors {
		if s < f.off+f.ns {
			return f.name + ":" + name(f.states, s-f.off)
		}
	}
	return fmt.Sprint(s)
}

func name(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprint(i)
}

func checkIndex(what string, i, n int) {
	if i < 0 || i >= n {
		panic(fmt.Sprintf("pomdp: index %s=%d out of range [0, %d)", what, i, n))
	}
}

func clone(x []float64) []float64 {
	if x == nil {
		return nil
	}
	return append([]float64(nil), x...)
}

func cloneStrings(x []string) []string {
	if x == nil {
		return nil
	}
	return append([]string(nil), x...)
}
