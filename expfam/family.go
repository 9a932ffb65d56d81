package expfam

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Family identifies an exponential family. The built-in families are
// constants; Declare adds another one, from any package, and returns its
// Family. What the engine needs to know about a family it asks its
// Declaration, never a list of families.
type Family int

// The built-in families of arbor.
const (
	CategoricalFamily Family = iota + 1
	DirichletFamily
	GammaFamily
	NormalFamily
	MvNormalFamily
	WishartFamily
	BetaFamily
)

// Declaration is what a family declares so that the engine (package ffg)
// can hold a posterior of it: the layout of its sufficient statistics
// T(x) and of its posterior's parameters, the default posterior, the
// posterior from natural parameters (paper eq. 7: a posterior is the
// natural parameters summed from the messages) and its entropy. A family's
// log-normaliser and the expectations a message needs are its expected
// sufficient statistics E[T(x)] = ∇A(η), which FromNatural writes.
//
// stats has Layout's nstats entries: E[T(x)], what every factor reads. The
// natural parameters have the same length. param has nparam entries (it may
// be empty): the posterior's own parameters (α of a Dirichlet, shape and
// rate of a gamma, mean and variance of a Normal). The methods must not
// allocate, and must not keep the slices.
type Declaration interface {
	// Name is the family's name in model files and errors.
	Name() string
	// Layout checks a variable's shape and returns the shape to keep (a
	// scalar family returns nil), the number of sufficient statistics and
	// the number of parameters. The error says what is wrong with the
	// shape, without a prefix naming the variable.
	Layout(shape []int) (canon []int, nstats, nparam int, err error)
	// Default writes the posterior of a variable that no factor
	// constrains (uniform categorical, Dir(1), Gamma(1, 1), N(0, 1)).
	Default(param, stats []float64, shape []int)
	// FromNatural writes the posterior with natural parameters nat, and
	// returns an error (leaving param and stats as they were) when nat is
	// not the natural parameter of a valid distribution.
	FromNatural(param, stats, nat []float64, shape []int) error
	// Entropy returns H[q] of the posterior.
	Entropy(param, stats []float64, shape []int) float64
}

// PriorStarter is the optional interface of a Declaration whose variables
// start at their prior: when a factor is bound with the variable as its
// output (interface 0), the engine sets the posterior to that factor's
// message (the Dirichlet, gamma and Normal families; a categorical variable
// starts uniform).
type PriorStarter interface {
	StartsAtPrior() bool
}

// ValueObserver is the optional interface of a Declaration whose variables
// can be observed at a real value x: ObservedStats writes T(x) into stats,
// or returns an error when x is not in the family's support.
type ValueObserver interface {
	ObservedStats(stats []float64, x float64) error
}

type familyTable struct {
	decls []Declaration // decls[f] declares Family f; decls[0] is nil
}

var (
	families  atomic.Pointer[familyTable]
	declareMu sync.Mutex
)

func init() {
	families.Store(&familyTable{decls: []Declaration{
		nil,
		CategoricalFamily: categoricalDecl{},
		DirichletFamily:   dirichletDecl{},
		GammaFamily:       gammaDecl{},
		NormalFamily:      normalDecl{},
		MvNormalFamily:    mvnormalDecl{},
		WishartFamily:     wishartDecl{},
		BetaFamily:        betaDecl{},
	}})
}

// Declare adds a family and returns its Family value. The name must be
// new, non-empty and made of lower-case letters, digits and '-'. Declare is
// safe for concurrent use; lookups (Family.Declaration, String,
// ParseFamily) never block.
func Declare(d Declaration) (Family, error) {
	if d == nil {
		return 0, errors.New("expfam: Declare: nil declaration")
	}
	name := d.Name()
	if name == "" || strings.TrimLeft(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return 0, fmt.Errorf("expfam: Declare: family name %q, want lower-case letters, digits and '-'", name)
	}
	declareMu.Lock()
	defer declareMu.Unlock()
	old := families.Load()
	for _, e := range old.decls[1:] {
		if e.Name() == name {
			return 0, fmt.Errorf("expfam: Declare: family %q already exists", name)
		}
	}
	t := &familyTable{decls: append(append([]Declaration(nil), old.decls...), d)}
	families.Store(t)
	return Family(len(t.decls) - 1), nil
}

// Declaration returns what f declares, or nil for a value that is not a
// family.
func (f Family) Declaration() Declaration {
	t := families.Load()
	if f < 1 || int(f) >= len(t.decls) {
		return nil
	}
	return t.decls[f]
}

// String returns the family's name as used in model files: "categorical",
// "dirichlet", "gamma", "normal", "mvnormal", "wishart", "beta" or a declared
// family's name. An unknown value gives "Family(n)".
func (f Family) String() string {
	if d := f.Declaration(); d != nil {
		return d.Name()
	}
	return "Family(" + strconv.Itoa(int(f)) + ")"
}

// ParseFamily returns the family named s (exactly as String spells it). The
// error for an unknown name quotes it and lists the valid names.
func ParseFamily(s string) (Family, error) {
	t := families.Load()
	for f, d := range t.decls[1:] {
		if d.Name() == s {
			return Family(f + 1), nil
		}
	}
	names := make([]string, 0, len(t.decls)-1) // for the error only
	for _, d := range t.decls[1:] {
		names = append(names, d.Name())
	}
	return 0, fmt.Errorf("expfam: unknown family %q (valid: %s)", s, strings.Join(names, ", "))
}

// The built-in declarations.

type categoricalDecl struct{}

func (categoricalDecl) Name() string { return "categorical" }

func (categoricalDecl) Layout(shape []int) ([]int, int, int, error) {
	if len(shape) != 1 || shape[0] < 1 {
		return nil, 0, 0, fmt.Errorf("categorical shape %v, want [K] with K >= 1", shape)
	}
	return shape, shape[0], 0, nil
}

func (categoricalDecl) Default(_, stats []float64, _ []int) {
	u := 1 / float64(len(stats))
	for i := range stats {
		stats[i] = u
	}
}

var errCategoricalNatural = errors.New("categorical natural parameters are all -Inf or not finite (contradictory evidence?)")

// FromNatural is the softmax. On an error it leaves NaN in stats (Softmax's
// answer), so that a caller that ignores the error cannot read a stale
// posterior as a valid one.
func (categoricalDecl) FromNatural(_, stats, nat []float64, _ []int) error {
	if lz := Softmax(stats, nat); math.IsNaN(lz) {
		return errCategoricalNatural
	}
	return nil
}

func (categoricalDecl) Entropy(_, stats []float64, _ []int) float64 {
	return Categorical{P: stats}.Entropy()
}

type dirichletDecl struct{}

func (dirichletDecl) Name() string { return "dirichlet" }

func (dirichletDecl) Layout(shape []int) ([]int, int, int, error) {
	if len(shape) == 0 {
		return nil, 0, 0, errors.New("dirichlet messages: empty shape")
	}
	n := 1
	for i, s := range shape {
		if s <= 0 {
			return nil, 0, 0, fmt.Errorf("dirichlet messages: shape %v: axis %d has extent %d, want > 0", shape, i, s)
		}
		if n > math.MaxInt32/s {
			return nil, 0, 0, fmt.Errorf("dirichlet messages: shape %v is too large", shape)
		}
		n *= s
	}
	return shape, n, n, nil
}

func (dirichletDecl) Default(param, stats []float64, shape []int) {
	for i := range param {
		param[i] = 1
	}
	DirichletTensor{Alpha: param, Shape: shape}.ExpectedLog(stats)
}

func (dirichletDecl) FromNatural(param, stats, nat []float64, shape []int) error {
	if err := DirichletAlphaFromNatural(param, nat); err != nil {
		return err
	}
	DirichletTensor{Alpha: param, Shape: shape}.ExpectedLog(stats)
	return nil
}

func (dirichletDecl) Entropy(param, _ []float64, shape []int) float64 {
	return DirichletTensor{Alpha: param, Shape: shape}.Entropy()
}

func (dirichletDecl) StartsAtPrior() bool { return true }

type gammaDecl struct{}

func (gammaDecl) Name() string { return "gamma" }

func (gammaDecl) Layout(shape []int) ([]int, int, int, error) {
	if len(shape) != 0 && !(len(shape) == 1 && shape[0] == 1) {
		return nil, 0, 0, fmt.Errorf("gamma variables are scalar, got shape %v", shape)
	}
	return nil, 2, 2, nil
}

func (gammaDecl) Default(param, stats []float64, _ []int) {
	param[0], param[1] = 1, 1
	Gamma{Shape: 1, Rate: 1}.ExpectedStats(stats)
}

func (gammaDecl) FromNatural(param, stats, nat []float64, _ []int) error {
	g, err := GammaFromNatural(nat)
	if err != nil {
		return err
	}
	param[0], param[1] = g.Shape, g.Rate
	g.ExpectedStats(stats)
	return nil
}

func (gammaDecl) Entropy(param, _ []float64, _ []int) float64 {
	return Gamma{Shape: param[0], Rate: param[1]}.Entropy()
}

func (gammaDecl) StartsAtPrior() bool { return true }
