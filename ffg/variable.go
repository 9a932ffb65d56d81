package ffg

import (
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/expfam"
)

// Variable is a random variable of a graph: hidden, with a mean-field
// posterior q of its family, or observed, with fixed statistics (a one-hot
// vector or soft evidence for a categorical, T(x) for a family observed at
// a value x).
//
// Variables are made by Graph.AddVariable. A zero Variable belongs to no
// graph and has no family: Observe and the setters return an error, Probs,
// Alpha and Gamma panic as for a variable of another family, and Entropy
// is NaN. The methods of a nil *Variable panic (a programming error).
type Variable struct {
	g        *Graph
	id       int
	name     string
	family   expfam.Family
	shape    []int
	observed bool
	removed  bool
	gidx     int32 // the variable's index in that tree's vars, while gstamp is its stamp
	mark     uint64
	gstamp   uint64 // the Gaussian tree that holds the variable (gState.stamp)
	gmark    uint64 // a Gaussian tree being built counts the variable in (gState.stamp)

	// stats holds the expected sufficient statistics that factors read:
	// probabilities (categorical), E[ln p] (dirichlet), [E ln g, E g] (gamma).
	stats []float64
	// param holds the posterior's parameters: alpha (dirichlet) or
	// [shape, rate] (gamma). Categorical posteriors live in stats.
	param []float64
	edges []edge

	// Inline storage so that a small variable costs two allocations (the
	// struct and one float slice), which keeps large, short-lived planning
	// trees cheap for the allocator and the garbage collector.
	shapeBuf [1]int
	edgeBuf  [2]edge

	// Cluster, when set, places the variable in a DOT cluster of that name.
	Cluster string
	// Label, when set, overrides the DOT label.
	Label string
}

type edge struct {
	f *FactorNode
	k int // interface index of the variable in f
}

// Name returns the variable's name ("" when unnamed).
func (v *Variable) Name() string { return v.name }

// ID returns the variable's identifier, unique within its graph.
func (v *Variable) ID() int { return v.id }

// Family returns the variable's exponential family.
func (v *Variable) Family() expfam.Family { return v.family }

// Shape returns the variable's shape: [K] for a categorical, the tensor
// shape for a Dirichlet, nil for a gamma. It must not be modified.
func (v *Variable) Shape() []int { return v.shape }

// Observed reports whether the variable is observed.
func (v *Variable) Observed() bool { return v.observed }

// Removed reports whether the variable has been removed from its graph.
func (v *Variable) Removed() bool { return v.removed }

// Stats returns the expected sufficient statistics the factors read. The
// slice belongs to the variable and must not be modified; it stays valid
// for the variable's lifetime.
func (v *Variable) Stats() []float64 { return v.stats }

// Probs returns the categorical posterior (or the evidence of an observed
// variable). It panics for another family. The slice must not be modified.
func (v *Variable) Probs() []float64 {
	v.must(expfam.CategoricalFamily, "Probs")
	return v.stats
}

// Alpha returns the Dirichlet posterior's concentrations, row-major over
// Shape. It panics for another family. The slice must not be modified.
func (v *Variable) Alpha() []float64 {
	v.must(expfam.DirichletFamily, "Alpha")
	return v.param
}

// Gamma returns the gamma posterior. It panics for another family.
func (v *Variable) Gamma() expfam.Gamma {
	v.must(expfam.GammaFamily, "Gamma")
	return expfam.Gamma{Shape: v.param[0], Rate: v.param[1]}
}

func (v *Variable) must(f expfam.Family, method string) {
	if v.family != f {
		panic(fmt.Sprintf("ffg: %s called on %s variable %q", method, v.family, v.name))
	}
}

func (v *Variable) describe() string {
	if v.name != "" {
		return quote(v.name)
	}
	return fmt.Sprintf("#%d", v.id)
}

// Observe clamps a categorical variable to the outcome index.
func (v *Variable) Observe(index int) error {
	if v.g != nil {
		v.g.version++
	}
	if v.family != expfam.CategoricalFamily {
		return fmt.Errorf("ffg: variable %s: only categorical variables can be observed at an index or a distribution (a normal one at a value: ObserveValue), it is %s", v.describe(), v.family)
	}
	if index < 0 || index >= len(v.stats) {
		return fmt.Errorf("ffg: variable %s: observed index %d out of range [0, %d)", v.describe(), index, len(v.stats))
	}
	for i := range v.stats {
		v.stats[i] = 0
	}
	v.stats[index] = 1
	v.observed = true
	v.uncollapse()
	return nil
}

// uncollapse makes a collapsed factor whose output is v, now observed,
// forget its conditional (GammaCollapsed.Uncollapse): an observed output
// is not kept conditional on anything.
func (v *Variable) uncollapse() {
	for _, e := range v.edges {
		if c, ok := e.f.factor.(GammaCollapsed); ok && e.k == 0 {
			c.Uncollapse()
		}
	}
}

// ObserveSoft clamps a categorical variable to soft evidence p, a
// probability vector of the variable's size.
func (v *Variable) ObserveSoft(p []float64) error {
	if v.g != nil {
		v.g.version++
	}
	if v.family != expfam.CategoricalFamily {
		return fmt.Errorf("ffg: variable %s: only categorical variables can be observed at an index or a distribution (a normal one at a value: ObserveValue), it is %s", v.describe(), v.family)
	}
	if len(p) != len(v.stats) {
		return fmt.Errorf("ffg: variable %s: evidence has %d entries, want %d", v.describe(), len(p), len(v.stats))
	}
	if err := expfam.ValidateDistribution(p, 1e-6); err != nil {
		return fmt.Errorf("ffg: variable %s: evidence: %w", v.describe(), err)
	}
	copy(v.stats, p)
	v.observed = true
	v.uncollapse()
	return nil
}

// Unobserve makes an observed variable hidden again, with a uniform
// posterior.
func (v *Variable) Unobserve() {
	if v.g != nil {
		v.g.version++
	}
	if !v.observed {
		return
	}
	v.observed = false
	v.reset()
}

// SetProbs sets a hidden categorical variable's posterior to p (copied).
// It is how a caller initialises beliefs or writes an exact
// belief-propagation result (as BTAI's predictive mode does).
func (v *Variable) SetProbs(p []float64) error {
	if v.family != expfam.CategoricalFamily || v.observed {
		return fmt.Errorf("ffg: variable %s: SetProbs needs a hidden categorical variable", v.describe())
	}
	if len(p) != len(v.stats) {
		return fmt.Errorf("ffg: variable %s: %d probabilities, want %d", v.describe(), len(p), len(v.stats))
	}
	if err := expfam.ValidateDistribution(p, 1e-6); err != nil {
		return fmt.Errorf("ffg: variable %s: %w", v.describe(), err)
	}
	copy(v.stats, p)
	return nil
}

// SetAlpha sets a Dirichlet variable's posterior concentrations (copied).
func (v *Variable) SetAlpha(alpha []float64) error {
	if v.family != expfam.DirichletFamily {
		return fmt.Errorf("ffg: variable %s: SetAlpha needs a dirichlet variable", v.describe())
	}
	if len(alpha) != len(v.param) {
		return fmt.Errorf("ffg: variable %s: %d concentrations, want %d", v.describe(), len(alpha), len(v.param))
	}
	if err := expfam.ValidateConcentrations(alpha); err != nil {
		return fmt.Errorf("ffg: variable %s: %w", v.describe(), err)
	}
	copy(v.param, alpha)
	v.refreshDirichlet()
	return nil
}

// SetGamma sets a gamma variable's posterior.
func (v *Variable) SetGamma(g expfam.Gamma) error {
	if v.family != expfam.GammaFamily {
		return fmt.Errorf("ffg: variable %s: SetGamma needs a gamma variable", v.describe())
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("ffg: variable %s: %w", v.describe(), err)
	}
	v.param[0], v.param[1] = g.Shape, g.Rate
	g.ExpectedStats(v.stats)
	return nil
}

func (v *Variable) refreshDirichlet() {
	expfam.DirichletTensor{Alpha: v.param, Shape: v.shape}.ExpectedLog(v.stats)
}

// Normal returns the Normal posterior (or, for an observed variable, the
// value as a Normal of variance 0). It panics for another family.
func (v *Variable) Normal() expfam.Normal {
	v.must(expfam.NormalFamily, "Normal")
	if v.observed {
		return expfam.Normal{Mean: v.stats[0]}
	}
	return expfam.Normal{Mean: v.param[0], Var: v.param[1]}
}

// SetNormal sets a hidden Normal variable's posterior.
func (v *Variable) SetNormal(n expfam.Normal) error {
	if v.family != expfam.NormalFamily || v.observed {
		return fmt.Errorf("ffg: variable %s: SetNormal needs a hidden normal variable", v.describe())
	}
	if err := n.Validate(); err != nil {
		return fmt.Errorf("ffg: variable %s: %w", v.describe(), err)
	}
	v.param[0], v.param[1] = n.Mean, n.Var
	n.ExpectedStats(v.stats)
	return nil
}

// Params returns the posterior's parameters as the family declares them
// (α of a Dirichlet, [shape, rate] of a gamma, [mean, variance] of a
// Normal; nil for a categorical, whose posterior is Stats). The slice must
// not be modified.
func (v *Variable) Params() []float64 { return v.param }

// ObserveValue clamps a variable of a family that can be observed at a
// real value (expfam.ValueObserver: the Normal family) to x. Its
// statistics become T(x).
func (v *Variable) ObserveValue(x float64) error {
	if v.g != nil {
		v.g.version++
	}
	vo, ok := v.family.Declaration().(expfam.ValueObserver)
	if !ok {
		return fmt.Errorf("ffg: variable %s: a %s variable cannot be observed at a value", v.describe(), v.family)
	}
	if err := vo.ObservedStats(v.stats, x); err != nil {
		return fmt.Errorf("ffg: variable %s: %w", v.describe(), err)
	}
	v.observed = true
	return nil
}

// reset sets the default posterior the family declares: uniform
// categorical, Dir(1), Gamma(1, 1), N(0, 1).
func (v *Variable) reset() {
	v.family.Declaration().Default(v.param, v.stats, v.shape)
}

// startsAtPrior reports whether the family's variables start at the prior
// bound to them (expfam.PriorStarter).
func (v *Variable) startsAtPrior() bool {
	ps, ok := v.family.Declaration().(expfam.PriorStarter)
	return ok && ps.StartsAtPrior()
}

// Entropy returns H[q] of a hidden variable's posterior, 0 for an observed
// one (NaN for a zero Variable, which has no posterior).
func (v *Variable) Entropy() float64 {
	if v.observed {
		return 0
	}
	if v.family.Declaration() == nil {
		return math.NaN()
	}
	return v.family.Declaration().Entropy(v.param, v.stats, v.shape)
}

// setFromNatural sets the posterior from the summed natural parameters in
// v.natural() (paper eq. 8: the prior's natural parameters plus the messages), as
// the family declares (expfam.Declaration.FromNatural).
func (v *Variable) setFromNatural() error {
	if err := v.family.Declaration().FromNatural(v.param, v.stats, v.natural(), v.shape); err != nil {
		return &NaNError{Variable: v.describe(), Detail: err.Error()}
	}
	return nil
}

// NaNError reports an update that produced an invalid posterior (NaN,
// infinite or out-of-domain parameters), naming the variable.
type NaNError struct {
	Variable string
	Detail   string
}

func (e *NaNError) Error() string {
	return fmt.Sprintf("ffg: update of variable %s produced an invalid posterior: %s", e.Variable, e.Detail)
}

// Categorical reports whether v is a categorical variable (the variables
// that sum-product treats exactly).
func (v *Variable) Categorical() bool { return v.family == expfam.CategoricalFamily }

// natural returns the buffer of the sum of the messages into v (its
// natural parameters as its last update summed them, Natural), which the
// graph allocates at v's first update: a variable that no update reaches
// (one set by sum-product, an observation) holds none. message returns the
// graph's scratch for one message: a graph updates one variable at a time,
// so one buffer serves every variable.
func (v *Variable) natural() []float64 {
	if v.g.natTmp != nil {
		return v.g.natTmp
	}
	return v.g.natOf(v)
}

func (v *Variable) message() []float64 { return v.g.scratch(&v.g.msg, len(v.stats)) }
