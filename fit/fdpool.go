package fit

import (
	"context"
	"math"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// The derivatives of the fit are finite differences of the negative log
// posterior: a forward difference for the optimiser's gradient (one
// evaluation per free parameter) and central differences for the Hessian
// of the Laplace approximation (2d(d+1) evaluations for d parameters).
// fdGradient and fdHessian compute them as gonum's fd.Gradient and
// fd.Hessian compute them one point after the other (the same points, the
// same sums in the same order, so the same bits), with the points handed
// to eval at once, which may evaluate them in parallel (fdPool).

// gradStep is the step of the optimiser's forward differences.
const gradStep = 1e-6

// fdGradient writes into g the forward-difference gradient at x of the
// function whose value at x is f0 and whose values at other points eval
// gives: fd.Gradient(g, f, x, &fd.Settings{Formula: fd.Forward, Step:
// gradStep, OriginKnown: true, OriginValue: f0}).
func fdGradient(g, x []float64, f0 float64, eval func(pts [][]float64, out []float64)) {
	st := fd.Forward.Stencil
	var pts [][]float64
	for i := range x {
		for _, pt := range st {
			if pt.Loc != 0 {
				p := append([]float64(nil), x...)
				p[i] += pt.Loc * gradStep
				pts = append(pts, p)
			}
		}
	}
	out := make([]float64, len(pts))
	eval(pts, out)
	k := 0
	for i := range x {
		var deriv float64
		for _, pt := range st {
			if pt.Loc == 0 {
				deriv += pt.Coeff * f0
				continue
			}
			deriv += pt.Coeff * out[k]
			k++
		}
		g[i] = deriv / gradStep
	}
}

// fdHessian writes into h the central-difference Hessian at x of the
// function whose values eval gives: fd.Hessian(h, f, x,
// &fd.Settings{Formula: fd.Central}) (whose stencil has no point at x).
func fdHessian(h *mat.SymDense, x []float64, eval func(pts [][]float64, out []float64)) {
	st := fd.Central.Stencil
	step := math.Sqrt(fd.Central.Step)
	n := len(x)
	var pts [][]float64
	for i := range n {
		for j := i; j < n; j++ {
			for _, pti := range st {
				for _, ptj := range st {
					p := append([]float64(nil), x...)
					p[i] += pti.Loc * step
					p[j] += ptj.Loc * step
					pts = append(pts, p)
				}
			}
		}
	}
	out := make([]float64, len(pts))
	eval(pts, out)
	is2 := 1 / (step * step)
	k := 0
	for i := range n {
		for j := i; j < n; j++ {
			var hess float64
			for _, pti := range st {
				for _, ptj := range st {
					hess += out[k] * pti.Coeff * ptj.Coeff * is2
					k++
				}
			}
			h.SetSym(i, j, hess)
		}
	}
}

// fdPool evaluates the points of a finite difference of one subject's
// negative log posterior on several objectives at once (Settings.Jobs):
// the subject's own and, made at their first use, one for each further
// job. A point's value depends on the point alone, and a point equal to
// the one before it is taken from it without an evaluation (negLogPost's
// memo does so on one objective), so that the derivatives and the
// evaluations counted are those of one job. A nil pool, or one of one
// job, evaluates the points in order on the subject's objective.
type fdPool struct {
	ctx     context.Context
	jobs    int
	newObj  func() (*Objective, error)
	workers []fdWorker
}

// fdWorker is a further job's objective and its -ln posterior without a
// memo (posterior).
type fdWorker struct {
	obj   *Objective
	raw   func([]float64) float64
	fault *error
}

// evals returns the evaluations of the workers' objectives.
func (p *fdPool) evals() int {
	if p == nil {
		return 0
	}
	n := 0
	for _, w := range p.workers {
		n += w.obj.evals
	}
	return n
}

// grow returns the pool's first n workers, made as needed; fewer when one
// cannot be made (the fault then in *fault).
func (p *fdPool) grow(n int, fault *error) []fdWorker {
	for len(p.workers) < n {
		o, err := p.newObj()
		if err != nil {
			*fault = err
			break
		}
		raw, wf := posterior(p.ctx, o)
		p.workers = append(p.workers, fdWorker{obj: o, raw: raw, fault: wf})
	}
	return p.workers[:min(n, len(p.workers))]
}

// eval writes into out[k] the value at pts[k] of raw, the subject's -ln
// posterior without a memo (fault its fault), or of a worker's, in
// parallel, as negLogPost would give them one after the other from its
// memo (lastX, lastF): a point equal to the one before it (the first: to
// lastX) takes that one's value and is not evaluated. After a fault every
// value is NaN.
func (p *fdPool) eval(raw func([]float64) float64, fault *error, lastX []float64, lastF float64, pts [][]float64, out []float64) {
	todo := make([]int, 0, len(pts)) // the points evaluated, ascending
	for k := range pts {
		prev := lastX
		if k > 0 {
			prev = pts[k-1]
		}
		if !equal(pts[k], prev) {
			todo = append(todo, k)
		}
	}
	var workers []fdWorker
	if p != nil && p.jobs > 1 && len(todo) > 1 && *fault == nil {
		workers = p.grow(min(p.jobs, len(todo))-1, fault)
	}
	var next atomic.Int64
	run := func(f func([]float64) float64) {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(todo) {
				return
			}
			k := todo[i]
			out[k] = f(pts[k])
		}
	}
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(w.raw)
		}()
	}
	run(raw)
	wg.Wait()
	for _, w := range workers {
		if *fault == nil && *w.fault != nil {
			*fault = *w.fault
		}
	}
	j := 0
	for k := range pts {
		switch {
		case *fault != nil:
			out[k] = math.NaN()
		case j < len(todo) && todo[j] == k:
			j++
		case k == 0:
			out[0] = lastF
		default:
			out[k] = out[k-1]
		}
	}
}
