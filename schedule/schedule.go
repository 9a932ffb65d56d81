package schedule

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/ffg"
)

// Defaults used when Settings is nil or a field is zero.
const (
	DefaultIterations = 100
	DefaultTolerance  = 1e-9
)

// Settings controls a run. The zero value and nil mean the defaults; a
// field out of its range, or set where it has no effect (Loopy without
// sum-product, Damping without Loopy, Order or sum-product for Local), is
// an error of the run, not ignored.
type Settings struct {
	// Iterations caps the number of sweeps (DefaultIterations when 0).
	Iterations int
	// Tolerance: the run has converged when |F_k - F_(k-1)| < Tolerance
	// (DefaultTolerance when 0; must be >= 0).
	Tolerance float64
	// Order, when non-nil, is the update order of a global run; it must
	// list live variables of the graph (observed ones are skipped). nil
	// means every hidden variable in the order it was added.
	Order []*ffg.Variable
	// Method is MethodVMP ("" or "vmp": fully factorised mean field) or
	// MethodSumProduct ("sum-product": the hidden categorical variables
	// get their exact joint posterior by belief propagation on the tree
	// they form, the other variables VMP updates; Run only).
	Method string
	// Loopy allows loops among the discrete variables under sum-product:
	// damped loopy belief propagation (ffg.Graph.SumProductLoopy, with
	// Damping in (0, 1), default 0.5), approximate where there are loops,
	// and F its Bethe approximation, which may rise. Without it a loop is
	// an error.
	Loopy   bool
	Damping float64
	// ParamTolerance, when > 0, is the second test of convergence: the
	// run has converged only when, besides |ΔF| < Tolerance, no hidden
	// variable's natural parameters moved in the last sweep by more than
	// ParamTolerance relative to max(1, |η_i|) (ParamChange; a
	// categorical's log-probabilities are compared up to their common
	// constant). 0 leaves it out: F alone decides, as library runs (BTAI,
	// ACI) always did; model files default to 1e-5 (model.DefaultParamTolerance).
	ParamTolerance float64
}

// The methods of Settings.Method.
const (
	MethodVMP        = "vmp"
	MethodSumProduct = "sum-product"
)

// Increase records a sweep after which F went up by more than the
// tolerance. Under exact coordinate-ascent VMP this cannot happen; it points
// at a bug or at a non-conjugate approximation (nodes.Softmax).
type Increase struct {
	Sweep    int // 1-based
	From, To float64
}

// Result is the outcome of a run.
type Result struct {
	Iterations int       // sweeps performed
	Converged  bool      // |ΔF| < tolerance was reached
	FreeEnergy []float64 // F after each sweep (for Local: the local free energy)
	Increases  []Increase
	// ParamChange is the largest relative change of a natural parameter
	// in the last sweep (Settings.ParamTolerance); 0 when it is not
	// tracked.
	ParamChange float64
}

// Final returns the last entry of the F trace (NaN when no sweep ran, or
// r is nil: the result of a run refused at the start).
func (r *Result) Final() float64 {
	if r == nil || len(r.FreeEnergy) == 0 {
		return math.NaN()
	}
	return r.FreeEnergy[len(r.FreeEnergy)-1]
}

// resolve checks s and the graph g of a run (local: of Local) and returns
// the iteration cap and the tolerance.
func (s *Settings) resolve(g *ffg.Graph, local bool) (iters int, tol float64, err error) {
	if g == nil {
		return 0, 0, errors.New("schedule: nil graph")
	}
	iters, tol = DefaultIterations, DefaultTolerance
	if s == nil {
		return iters, tol, nil
	}
	if s.Iterations < 0 {
		return 0, 0, fmt.Errorf("schedule: iterations %d, want >= 0", s.Iterations)
	}
	if s.Iterations > 0 {
		iters = s.Iterations
	}
	if s.Tolerance < 0 || math.IsNaN(s.Tolerance) {
		return 0, 0, fmt.Errorf("schedule: tolerance %v, want >= 0", s.Tolerance)
	}
	if s.Tolerance > 0 {
		tol = s.Tolerance
	}
	if s.ParamTolerance < 0 || math.IsNaN(s.ParamTolerance) {
		return 0, 0, fmt.Errorf("schedule: param tolerance %v, want >= 0", s.ParamTolerance)
	}
	switch s.Method {
	case "", MethodVMP:
	case MethodSumProduct:
		if local {
			return 0, 0, fmt.Errorf("schedule: Local runs %s only; method %s is for Run", MethodVMP, MethodSumProduct)
		}
	default:
		return 0, 0, fmt.Errorf("schedule: method %q, want %s or %s", s.Method, MethodVMP, MethodSumProduct)
	}
	if s.Loopy && s.Method != MethodSumProduct {
		return 0, 0, fmt.Errorf("schedule: loopy needs method %s (VMP takes loops as they are)", MethodSumProduct)
	}
	if s.Damping != 0 {
		if !s.Loopy {
			return 0, 0, fmt.Errorf("schedule: damping %v needs loopy", s.Damping)
		}
		if !(s.Damping > 0 && s.Damping < 1) {
			return 0, 0, fmt.Errorf("schedule: damping %v, want a number in (0, 1)", s.Damping)
		}
	}
	if s.Order != nil {
		if local {
			return 0, 0, errors.New("schedule: Local sweeps its vars in their order; Order is for Run")
		}
		for i, v := range s.Order {
			if v == nil || v.Removed() {
				return 0, 0, fmt.Errorf("schedule: order[%d]: variable not in the graph", i)
			}
		}
	}
	return iters, tol, nil
}

// Run performs global inference: sweeps of VMP updates over the hidden
// variables (in Settings.Order or in the order they were added) until
// |ΔF| < tolerance or the iteration cap, tracking F after every sweep. It
// returns the result so far together with an error when an update fails
// (a *ffg.NaNError names the variable whose update produced a NaN), when F
// is not finite after a sweep (an *EnergyError names the term responsible),
// or when ctx is done. A nil g and settings out of range are errors, with
// a nil result; a nil ctx is taken as context.Background(), as an
// uncancellable run. A graph without hidden variables converges after one
// sweep, with F the sum of its factors' average energies (0 when empty).
func Run(ctx context.Context, g *ffg.Graph, s *Settings) (*Result, error) {
	iters, tol, err := s.resolve(g, false)
	if err != nil {
		return nil, err
	}
	if s != nil && s.Method == MethodSumProduct {
		return runSumProduct(ctx, g, s, iters, tol)
	}
	order := g.Variables()
	if s != nil && s.Order != nil {
		order = s.Order
	}
	return sweep(ctx, g, order, nil, iters, tol, s.paramTol(), g.FreeEnergy)
}

func (s *Settings) paramTol() float64 {
	if s == nil {
		return 0
	}
	return s.ParamTolerance
}

// Local performs local inference: sweeps over vars only (observed ones are
// skipped), as BTAI does for newly expanded nodes, tracking the local free
// energy (ffg.Graph.LocalFreeEnergy), which differs from F by a constant
// while only vars change. Its errors are Run's, and a nil or removed
// variable in vars is one too; a nil ctx is taken as context.Background().
// No vars is a run that converges after one sweep at a local free energy
// of 0.
func Local(ctx context.Context, g *ffg.Graph, vars []*ffg.Variable, s *Settings) (*Result, error) {
	iters, tol, err := s.resolve(g, true)
	if err != nil {
		return nil, err
	}
	for i, v := range vars {
		if v == nil || v.Removed() {
			return nil, fmt.Errorf("schedule: vars[%d]: variable not in the graph", i)
		}
	}
	return sweep(ctx, g, vars, vars, iters, tol, s.paramTol(), func() float64 { return g.LocalFreeEnergy(vars) })
}

// sweep runs the sweeps; scope is the set of variables whose terms make up
// energy (nil: the whole graph), searched for the culprit when F is not
// finite.
func sweep(ctx context.Context, g *ffg.Graph, order, scope []*ffg.Variable, iters int, tol, ptol float64, energy func() float64) (*Result, error) {
	res := &Result{FreeEnergy: make([]float64, 0, min(iters, 64))}
	var pc paramChange
	if ctx == nil {
		ctx = context.Background()
	}
	prev := energy()
	for it := 1; it <= iters; it++ {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("schedule: stopped before sweep %d: %w", it, err)
		}
		pc.start(ptol)
		for _, v := range order {
			if v.Observed() {
				continue
			}
			pc.before(v)
			if err := g.Update(v); err != nil {
				return res, fmt.Errorf("schedule: sweep %d: %w", it, err)
			}
			pc.after(v)
		}
		res.ParamChange = pc.max
		f := energy()
		res.Iterations = it
		res.FreeEnergy = append(res.FreeEnergy, f)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return res, nonFinite(g, scope, it, f)
		}
		if res.compare(it, prev, f, tol, ptol) {
			break
		}
		prev = f
	}
	return res, nil
}

// compare notes an increase of F from prev to f at sweep it (beyond the
// tolerance and rounding) and reports whether the run has converged,
// setting Converged: |f - prev| < tol.
func (res *Result) compare(it int, prev, f, tol, ptol float64) bool {
	if f-prev > tol && f-prev > 1e-12*math.Abs(prev) {
		res.Increases = append(res.Increases, Increase{Sweep: it, From: prev, To: f})
	}
	res.Converged = math.Abs(f-prev) < tol && (ptol == 0 || res.ParamChange <= ptol)
	return res.Converged
}

// runSumProduct is Run with Method sum-product: each sweep updates the
// hidden variables that are not categorical (Dirichlet tensors from the
// factors' joint beliefs, ffg.Graph.UpdateStructured), then runs exact
// sum-product over the categorical ones (ffg.Graph.SumProduct), and tracks
// the structured free energy, which no step can raise: each is the exact
// minimisation of F over its block.
func runSumProduct(ctx context.Context, g *ffg.Graph, s *Settings, iters int, tol float64) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	var order []*ffg.Variable
	src := g.Variables()
	if s.Order != nil {
		src = s.Order
	}
	n := 0
	for _, v := range src {
		if !v.Observed() && !v.Categorical() {
			n++
		}
	}
	order = make([]*ffg.Variable, 0, n)
	for _, v := range src { // resolve checked s.Order
		if !v.Observed() && !v.Categorical() {
			order = append(order, v)
		}
	}
	res := &Result{FreeEnergy: make([]float64, 0, min(iters, 64))}
	var pc paramChange
	pass := g.SumProduct
	if s.Loopy {
		pass = func() (float64, error) {
			logZ, _, err := g.SumProductLoopy(ffg.LoopyOptions{Damping: s.Damping})
			return logZ, err
		}
	}
	logZ, err := pass()
	if err != nil {
		return res, fmt.Errorf("schedule: %w", err)
	}
	prev := g.StructuredFreeEnergy(logZ)
	for it := 1; it <= iters; it++ {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("schedule: stopped before sweep %d: %w", it, err)
		}
		pc.start(s.ParamTolerance)
		for _, v := range order {
			pc.before(v)
			if err := g.UpdateStructured(v); err != nil {
				return res, fmt.Errorf("schedule: sweep %d: %w", it, err)
			}
			pc.after(v)
		}
		res.ParamChange = pc.max
		if logZ, err = pass(); err != nil {
			return res, fmt.Errorf("schedule: sweep %d: %w", it, err)
		}
		f := g.StructuredFreeEnergy(logZ)
		res.Iterations = it
		res.FreeEnergy = append(res.FreeEnergy, f)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			// The culprit, when a term of the mean-field F is not finite
			// either; otherwise an *EnergyError with F alone.
			return res, nonFinite(g, nil, it, f)
		}
		if res.compare(it, prev, f, tol, s.ParamTolerance) {
			break
		}
		prev = f
	}
	return res, nil
}
