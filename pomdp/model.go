package pomdp

import (
	"fmt"
	"math"
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

// Model is a validated discrete POMDP: likelihood A, transitions B (one matrix
// per action), target distribution C over observations, prior D over the
// initial state, and optionally a target C_states over states, Dirichlet
// concentrations a, b, d and names. It is immutable after construction and
// safe for concurrent use.
type Model struct {
	ns, no, nu int

	a, b, c, d []float64 // probabilities, flat row-major (see Spec)
	cStates    []float64 // nil when absent
	concA      []float64 // nil when absent
	concB      []float64
	concD      []float64

	actions, observations, states []string

	// Caches for the expected free energy.
	logC  []float64 // ln C[o], -Inf where C[o] = 0
	hA    []float64 // hA[s] = H[A(.|s)]
	wA    []float64 // novelty weights W[o*ns+s], nil without concA
	logA  []float64 // ln A[o*ns+s], -Inf where A = 0
	logD  []float64 // ln D[s]
	valid bool
}

// New validates sp and returns a POMDP holding copies of its slices.
// Errors name the field (A, B[u], C, D, C_states, a, b[u], d, actions,
// observations, states) and the fault, e.g.
// "B[1]: column 2 sums to 0.93, want 1 (tolerance 1e-6)".
func New(sp Spec) (*Model, error) {
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
	m.cache()
	return m, nil
}

// cache fills the derived quantities used by the expected free energy.
func (m *Model) cache() {
	ns, no := m.ns, m.no
	m.logC = make([]float64, no)
	for o, c := range m.c {
		m.logC[o] = math.Log(c) // -Inf for c = 0
	}
	m.logD = make([]float64, ns)
	for s, d := range m.d {
		m.logD[s] = math.Log(d)
	}
	m.logA = make([]float64, no*ns)
	m.hA = make([]float64, ns)
	for o := range no {
		for s := range ns {
			p := m.a[o*ns+s]
			m.logA[o*ns+s] = math.Log(p)
			if p > 0 { // 0 ln 0 = 0
				m.hA[s] -= p * math.Log(p)
			}
		}
	}
	if m.concA != nil {
		// W = 1/2 (1/a - 1/a0), a0 the column sums, zero where a = 0
		// (Smith, Friston & Whyte 2022; SPM spm_wnorm masked by a > 0).
		a0 := make([]float64, ns)
		for o := range no {
			for s := range ns {
				a0[s] += m.concA[o*ns+s]
			}
		}
		m.wA = make([]float64, no*ns)
		for o := range no {
			for s := range ns {
				if a := m.concA[o*ns+s]; a > 0 {
					m.wA[o*ns+s] = 0.5 * (1/a - 1/a0[s])
				}
			}
		}
	}
	m.valid = true
}

// NumStates returns |S|.
func (m *Model) NumStates() int { return m.ns }

// NumObs returns |O|.
func (m *Model) NumObs() int { return m.no }

// NumActions returns |U|.
func (m *Model) NumActions() int { return m.nu }

// A returns P(o | s). It panics if an index is out of range.
func (m *Model) A(o, s int) float64 {
	checkIndex("o", o, m.no)
	checkIndex("s", s, m.ns)
	return m.a[o*m.ns+s]
}

// B returns P(s_{t+1}=next | s_t=prev, u_t=u). It panics if an index is out
// of range.
func (m *Model) B(u, next, prev int) float64 {
	checkIndex("u", u, m.nu)
	checkIndex("next", next, m.ns)
	checkIndex("prev", prev, m.ns)
	return m.b[(u*m.ns+next)*m.ns+prev]
}

// C returns the target probability of observation o. It panics if o is out
// of range.
func (m *Model) C(o int) float64 {
	checkIndex("o", o, m.no)
	return m.c[o]
}

// D returns the prior probability of initial state s. It panics if s is out
// of range.
func (m *Model) D(s int) float64 {
	checkIndex("s", s, m.ns)
	return m.d[s]
}

// HasCStates reports whether the model has a target distribution over states.
func (m *Model) HasCStates() bool { return m.cStates != nil }

// Learnable reports which of A, B and D have Dirichlet concentrations (a,
// b, d) and are therefore learned by the agents.
func (m *Model) Learnable() (a, b, d bool) {
	return m.concA != nil, m.concB != nil, m.concD != nil
}

// Spec returns a deep copy of the model in flat form; New(m.Spec())
// reproduces m. A, B and D are always set (to the expectations of the
// concentrations when the input had none).
func (m *Model) Spec() Spec {
	return Spec{
		NumStates: m.ns, NumObs: m.no, NumActions: m.nu,
		A: clone(m.a), B: clone(m.b), C: clone(m.c), D: clone(m.d),
		CStates: clone(m.cStates),
		ConcA:   clone(m.concA), ConcB: clone(m.concB), ConcD: clone(m.concD),
		Actions: cloneStrings(m.actions), Observations: cloneStrings(m.observations),
		States: cloneStrings(m.states),
	}
}

// ActionName returns the name of action u, or its decimal index when the
// model has no names.
func (m *Model) ActionName(u int) string { return name(m.actions, u) }

// ObsName returns the name of observation o, or its decimal index.
func (m *Model) ObsName(o int) string { return name(m.observations, o) }

// StateName returns the name of state s, or its decimal index.
func (m *Model) StateName(s int) string { return name(m.states, s) }

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
