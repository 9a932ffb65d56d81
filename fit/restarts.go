package fit

import (
	"context"
	"errors"
	"math"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/pomdp"
	"gonum.org/v1/gonum/optimize"
)

// objective returns the function the optimiser minimises on obj, -ln
// posterior, +Inf where the likelihood is -Inf or NaN or θ leaves the box,
// and its gradient by forward differences, whose points pool evaluates
// (nil: in order on obj). The last value is kept (its memo starts at x0
// with value f0), so that a gradient at a point just evaluated costs d
// evaluations. The first fault that stops the fit (the context's) is kept
// in *fault, and the function then returns NaN.
//
// points evaluates the points of a finite difference as negLogPost would
// one after the other, on the objectives of a pool (nil: in order on obj).
func objective(ctx context.Context, obj *Objective, x0 []float64, f0 float64, pool *fdPool) (negLogPost func([]float64) float64, grad func(g, x []float64),
	fault *error, points func(pool *fdPool, pts [][]float64, out []float64)) {
	raw, fault := posterior(ctx, obj)
	lastX := append([]float64(nil), x0...)
	lastF := f0
	negLogPost = func(x []float64) float64 {
		if *fault != nil {
			return math.NaN()
		}
		if equal(lastX, x) {
			return lastF
		}
		v := raw(x)
		if *fault != nil {
			return math.NaN()
		}
		lastX = append(lastX[:0], x...)
		lastF = v
		return v
	}
	points = func(pool *fdPool, pts [][]float64, out []float64) {
		pool.eval(raw, fault, lastX, lastF, pts, out)
		if k := len(pts) - 1; k >= 0 && *fault == nil {
			lastX, lastF = append(lastX[:0], pts[k]...), out[k]
		}
	}
	grad = func(g, x []float64) {
		f0 := negLogPost(x)
		if math.IsInf(f0, 1) || math.IsNaN(f0) {
			for i := range g {
				g[i] = math.NaN()
			}
			return
		}
		fdGradient(g, x, f0, func(pts [][]float64, out []float64) { points(pool, pts, out) })
		// The gradient's evaluations moved the memo; restore it.
		lastX, lastF = append(lastX[:0], x...), f0
	}
	return negLogPost, grad, fault, points
}

// posterior returns -ln posterior on obj without a memo (objective's
// function evaluates through it), and the fault that stops the fit.
func posterior(ctx context.Context, obj *Objective) (func([]float64) float64, *error) {
	fault := new(error)
	return func(x []float64) float64 {
		if *fault != nil {
			return math.NaN()
		}
		for _, t := range x {
			if !(math.Abs(t) <= maxTheta) {
				return math.Inf(1)
			}
		}
		ll, err := obj.LogLikelihood(ctx, x)
		switch {
		case ctx.Err() != nil:
			*fault = ctx.Err()
			return math.NaN()
		case err != nil:
			// A point the agent refuses (a value at the edge of its
			// domain in floating point) is outside the feasible set.
			return math.Inf(1)
		}
		return negLogPostAt(ll, obj.LogPrior(x))
	}, fault
}

// run is the outcome of one optimisation: its best point (nil when the
// likelihood is 0 at its start) and the optimiser's status.
type run struct {
	x      []float64
	fx     float64
	status optimize.Status
	err    error
}

// restarts runs an optimisation from each starting point. With one job
// they run in order on obj, with the objective negLogPost (whose memo
// holds the prior means, the first start); with more, the first start
// runs on obj while the others are shared among set.Jobs − 1 workers,
// each with an Objective of its own (its memo empty at its first start).
// Each optimisation's result depends only on its start, so the runs are
// the same whatever the jobs; evals counts the evaluations of the workers'
// objectives (obj counts its own).
func restarts(ctx context.Context, f agent.Factory, m *pomdp.Model, rec *behaviour.SubjectRecord, index int, set Settings, obj *Objective,
	starts [][]float64, negLogPost func([]float64) float64, grad func(g, x []float64), fault *error, method Method) (runs []run, evals int, err error) {
	one := func(nlp func([]float64) float64, g func(g, x []float64), fault *error, x0 []float64) (run, error) {
		f0 := nlp(x0)
		if *fault != nil {
			return run{}, *fault
		}
		if math.IsInf(f0, 1) {
			return run{}, nil // the likelihood is -Inf here: nothing to descend
		}
		x, fx, status, oerr := minimize(nlp, g, x0, method, set.MaxEvaluations, obj.priors)
		if *fault != nil {
			return run{}, *fault
		}
		return run{x: x, fx: fx, status: status, err: oerr}, nil
	}
	runs = make([]run, len(starts))
	if set.Jobs <= 1 || len(starts) <= 1 {
		for r, x0 := range starts {
			if runs[r], err = one(negLogPost, grad, fault, x0); err != nil {
				return nil, 0, err
			}
		}
		return runs, 0, nil
	}
	// The first start on obj, the others on the workers' objectives.
	type worker struct {
		obj   *Objective
		nlp   func([]float64) float64
		grad  func(g, x []float64)
		fault *error
	}
	workers := make([]*worker, min(set.Jobs-1, len(starts)-1))
	var first run
	done := make(chan error, 1)
	go func() {
		var err error
		first, err = one(negLogPost, grad, fault, starts[0])
		done <- err
	}()
	rest := starts[1:]
	runErr := agent.RunOrdered(ctx, len(rest), 1, len(workers), func(ctx context.Context, w, i int) (run, error) {
		wk := workers[w]
		if wk == nil {
			o, err := NewObjective(f, m, rec, index, &set)
			if err != nil {
				return run{}, err
			}
			wk = &worker{obj: o}
			wk.nlp, wk.grad, wk.fault, _ = objective(ctx, o, nil, math.NaN(), nil)
			workers[w] = wk
		}
		return one(wk.nlp, wk.grad, wk.fault, rest[i])
	}, func(i int, r run) error {
		runs[i+1] = r
		return nil
	})
	if err := <-done; err != nil {
		return nil, 0, err
	}
	var ue *agent.UnitError
	if errors.As(runErr, &ue) {
		runErr = ue.Err
	}
	if runErr != nil {
		return nil, 0, runErr
	}
	runs[0] = first
	for _, wk := range workers {
		if wk != nil {
			evals += wk.obj.evals
		}
	}
	return runs, evals, nil
}
