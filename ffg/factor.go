package ffg

import (
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
)

// Factor is a factor node of a Forney factor graph. It is declared here,
// where it is consumed, and satisfied structurally by the types of package
// nodes.
//
// The engine hands a factor the expected sufficient statistics of its
// neighbours, indexed by interface: probabilities for a categorical
// variable, E[ln p] (row-major) for a Dirichlet, [E ln g, E g] for a gamma.
type Factor interface {
	// Kind is the factor's type, e.g. "transition"; DOT labels use it.
	Kind() string
	// Interfaces lists the interfaces in binding order; interface 0 is the
	// factor's output (the variable it is a distribution over).
	Interfaces() []messages.Interface
	// AverageEnergy returns E_q[-ln f] under the mean-field posterior.
	AverageEnergy(stats [][]float64) float64
}

// Messenger is the optional interface of a factor that can send VMP
// messages. Message writes into dst the message, in the natural parameters
// of the receiving variable's family, to the variable on interface k. It
// returns a *messages.NoRuleError when it has no rule for k.
//
// Conjugate factors derive their messages from their multilinear
// exponential-family form (messages.Multilinear); non-conjugate ones supply
// a hand-written rule. The engine does not care which.
type Messenger interface {
	Message(dst []float64, k int, stats [][]float64) error
}

// RuleLister is the optional interface of a factor that names the
// interfaces it has message rules for; the engine uses it in the error for a
// factor that is not a Messenger.
type RuleLister interface {
	Rules() []string
}

// Labeler is the optional interface of a factor with a DOT label other than
// its kind.
type Labeler interface {
	Label() string
}

// FactorNode is a factor bound into a graph by Graph.AddFactor. A zero
// FactorNode is bound to nothing: its Message is an error and its
// AverageEnergy NaN, as a removed factor's. The methods of a nil
// *FactorNode panic (a programming error).
type FactorNode struct {
	g       *Graph
	id      int
	name    string
	factor  Factor
	vars    []*Variable
	stats   [][]float64 // stats[k] aliases vars[k].stats
	removed bool
	gidx    int32 // its index in the Gaussian tree that holds it
	mark    uint64
	gstamp  uint64 // the Gaussian tree that holds the factor (gState.stamp)

	// Inline storage for factors of up to three interfaces (one allocation).
	varsBuf  [3]*Variable
	statsBuf [3][]float64

	// Cluster, when set, places the factor in a DOT cluster of that name.
	Cluster string
	// Label, when set, overrides the DOT label.
	Label string
}

// Name returns the factor's name ("" when unnamed).
func (f *FactorNode) Name() string { return f.name }

// Factor returns the bound factor.
func (f *FactorNode) Factor() Factor { return f.factor }

// Variables returns the bound variables in interface order. The slice
// belongs to the graph and must not be modified.
func (f *FactorNode) Variables() []*Variable { return f.vars }

// Removed reports whether the factor has been removed from its graph.
func (f *FactorNode) Removed() bool { return f.removed }

// AverageEnergy returns the factor's E_q[-ln f] under the current
// posteriors; NaN for a removed factor, which has no variables any more.
func (f *FactorNode) AverageEnergy() float64 {
	if f.removed || f.factor == nil {
		return math.NaN()
	}
	return f.factor.AverageEnergy(f.stats)
}

func (f *FactorNode) describe() string {
	if f.name != "" {
		return f.factor.Kind() + " " + quote(f.name)
	}
	return f.factor.Kind()
}

func quote(s string) string { return "\"" + s + "\"" }

// Message writes into dst the message from f to the variable on interface k
// under the current posteriors (in that variable's natural parameters). It
// returns a *messages.NoRuleError when f has no rule for k, and an error
// for a removed factor, an interface k it does not have or a dst of
// another length.
func (f *FactorNode) Message(dst []float64, k int) error {
	if f.removed || f.g == nil {
		name := quote(f.name)
		if f.factor != nil {
			name = f.describe()
		}
		return fmt.Errorf("ffg: factor %s is not in a graph (removed, or not made by Graph.AddFactor)", name)
	}
	if k < 0 || k >= len(f.vars) {
		return fmt.Errorf("ffg: factor %s has no interface %d", f.describe(), k)
	}
	if len(dst) != len(f.vars[k].stats) {
		return fmt.Errorf("ffg: factor %s: message buffer of %d entries, want %d", f.describe(), len(dst), len(f.vars[k].stats))
	}
	return f.g.message(dst, edge{f: f, k: k})
}

// GammaNonConjugate is the optional interface of a factor whose average
// energy is not linear in the expected statistics of the Gamma variable at
// one of its interfaces (the softmax policy prior's log-partition
// ln Σ_k exp(-γ G_k) in the precision γ). Its Message for that interface
// gives the linear part; NonConjugate gives the expectation of the rest,
// r(γ), under a candidate posterior q with the moments that are its
// gradient (expfam.GammaMoments), and ok = false when the factor is
// conjugate there after all; NonConjugateAt says which, without the
// expectation. The engine then updates that variable by non-conjugate VMP
// (Graph.Update).
type GammaNonConjugate interface {
	NonConjugateAt(k int) bool
	NonConjugate(k int, stats [][]float64, q expfam.Gamma) (m expfam.GammaMoments, ok bool)
}

// GammaCollapsed is the optional interface of a factor that keeps its
// output (interface 0, a categorical variable) conditional on the Gamma
// variable at its other interface: the posterior is q(γ) q(out | γ) with
// q(out | γ) ∝ f(out | γ) exp(m), m the messages into out from its other
// factors (the collapsed policy precision, nodes.NewSoftmaxCollapsed).
// The engine updates such an output by Collapse, which stores m and gives
// the marginal q(out) = E_q(γ)[q(out | γ)], and refreshes m before and the
// marginal after every update of the Gamma variable (Graph.Update).
// Uncollapse forgets m (Graph.ResetPosteriors).
type GammaCollapsed interface {
	CollapsesOutput() bool
	Collapse(dst, m []float64, q expfam.Gamma) bool
	Uncollapse()
}
