package fit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/pomdp"
)

// Estimate is the estimate of one free parameter.
type Estimate struct {
	Name string
	// Value is the maximum a posteriori estimate on the natural scale,
	// Domain.Inverse(Theta). (The MAP of θ mapped back: not the MAP of the
	// natural-scale density, which differs by the transform's Jacobian.)
	Value float64
	// Theta is the MAP on the transformed scale.
	Theta float64
	// SDTheta is the Laplace posterior SD on the transformed scale and SD
	// its delta-method image on the natural scale, |dx/dθ| SDTheta; NaN
	// without the Laplace approximation (Result.Laplace).
	SD, SDTheta float64
	// Prior is the parameter's prior on the transformed scale.
	Prior Prior
	// Scale names the transformed scale: "log", "logit" or "natural".
	Scale string
}

// Result is the fit of one subject.
type Result struct {
	Subject string
	// Index is the subject's position in its data (from 0).
	Index int
	// Params holds one estimate per free parameter, in Settings.Free's
	// order.
	Params []Estimate
	// Method is the optimiser used (Auto resolved).
	Method Method
	// LogLikelihood is ln P(choices | MAP); -Inf when a recorded choice has
	// probability 0 under the agent at every point tried (Zero locates
	// it).
	LogLikelihood float64
	// LogPrior is the log prior density of θ at the MAP.
	LogPrior float64
	// LogEvidence is the Laplace approximation of the log model evidence,
	// ln P(choices) ≈ ln P(choices | θ*) + ln p(θ*) + (d/2) ln 2π -
	// (1/2) ln det H, H the Hessian of the negative log posterior at the
	// MAP θ*; NaN without the Laplace approximation.
	LogEvidence float64
	// AIC = 2d - 2 ln P(choices | θ*) and BIC = d ln n - 2 ln P(choices |
	// θ*), d free parameters and n choices, at the MAP (not the maximum
	// likelihood; with weak priors the two agree).
	AIC, BIC float64
	// NChoices is the number of scored choices.
	NChoices int
	// Converged reports that the optimiser met its convergence test and,
	// when the Laplace approximation was computed, that the Hessian is
	// positive definite there (a maximum). Reason says why not.
	Converged bool
	Reason    string
	// Laplace reports that the Laplace approximation was computed: SDs,
	// correlations and LogEvidence are valid.
	Laplace bool
	// Warning reports what the caller should know though the fit
	// converged (no Laplace approximation for stepped parameters).
	Warning string
	// Cov and Corr are the Laplace posterior covariance H⁻¹ and
	// correlations on the transformed scale; CovNatural and CorrNatural
	// their delta-method images J H⁻¹ J on the natural scale (J the
	// diagonal of dx/dθ: the correlations are the same). Nil without the
	// Laplace approximation.
	Cov, Corr, CovNatural, CorrNatural [][]float64
	// Eigenvalues are those of H (ascending), reported also when H is not
	// positive definite; nil when the Hessian was not computed.
	Eigenvalues []float64
	// Zero locates a recorded choice of probability 0 under the agent at
	// the MAP (nil when there is none).
	Zero *ZeroChoice
	// Evaluations counts the likelihood evaluations of the subject's fit.
	Evaluations int
}

// maxTheta bounds |θ| during the optimisation (e^25 ≈ 7e10): beyond it the
// objective is +Inf, so that a line search never asks an agent for a
// precision that overflows.
const maxTheta = 25

// Subject fits the free parameters of s to the recorded choices of rec,
// the subject at position index of its data (from 0): the maximum a
// posteriori estimate on the transformed scale under the Gaussian priors
// (Objective), from s.Restarts starting points, and at the best one the
// Laplace approximation (Result). Faults of the settings, the data or the
// agent are errors (a *SubjectError for the data; ErrNoChoices when the
// subject has no choice to fit); a recorded choice of probability 0 is
// not an error but a result with LogLikelihood -Inf, Converged false and a
// Reason. A nil ctx is context.Background(); a cancelled ctx stops the fit
// with ctx.Err().
func Subject(ctx context.Context, f agent.Factory, m *pomdp.Model, rec *behaviour.SubjectRecord, index int, s *Settings) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	obj, err := NewObjective(f, m, rec, index, s)
	if err != nil {
		return nil, apiError(err)
	}
	set := s.resolved()
	d := len(obj.free)
	method := set.Method
	var stepped []string
	for _, p := range obj.free {
		if p.Stepped {
			stepped = append(stepped, p.Name)
		}
	}
	if method == Auto {
		method = BFGS
		if len(stepped) > 0 {
			method = NelderMead
		}
	}
	res := &Result{Subject: rec.Subject, Index: index, Method: method, LogEvidence: math.NaN()}

	// The first evaluation, at the prior means, finds data faults and the
	// number of choices before any optimisation.
	mean := make([]float64, d)
	for i, pr := range obj.priors {
		mean[i] = pr.Mean
	}
	ll0, err := obj.LogLikelihood(ctx, mean)
	if err != nil {
		return nil, apiError(err)
	}
	if obj.n == 0 {
		return nil, apiError(&SubjectError{Subject: rec.Subject, Index: index, Trial: -1, Err: ErrNoChoices})
	}
	res.NChoices = obj.n

	// The objective of the optimiser: -ln posterior at obj (see
	// objective below), its memo holding the prior means.
	//
	// With more than one job and an objective that replays (not the
	// choice rule alone, whose evaluations take microseconds), the points
	// of the Hessian's finite differences are evaluated on the jobs at
	// once, and those of the gradient too when there is one start (with
	// more, the restarts run at once instead).
	var pool, gradPool *fdPool
	if set.Jobs > 1 && obj.choice == nil {
		pool = &fdPool{ctx: ctx, jobs: set.Jobs,
			newObj: func() (*Objective, error) { return NewObjective(f, m, rec, index, &set) }}
		if set.Restarts == 1 {
			gradPool = pool
		}
	}
	negLogPost, grad, fault, points := objective(ctx, obj, mean, negLogPostAt(ll0, obj.LogPrior(mean)), gradPool)

	// The starting points: the prior means, then draws of the priors at
	// twice their SD, in restart order whatever the jobs.
	rng := rand.New(rand.NewPCG(set.Seed, 0x9e3779b97f4a7c15^uint64(index)))
	starts := make([][]float64, set.Restarts)
	for r := range starts {
		x0 := append([]float64(nil), mean...)
		if r > 0 {
			for i, pr := range obj.priors {
				x0[i] = pr.Mean + 2*pr.SD*rng.NormFloat64()
			}
		}
		starts[r] = x0
	}
	runs, evals, err := restarts(ctx, f, m, rec, index, set, obj, starts, negLogPost, grad, fault, method)
	if err != nil {
		return nil, apiError(err)
	}
	bestF := math.Inf(1)
	var bestX []float64
	var bestStatus optimize.Status
	var bestErr error
	for _, r := range runs {
		if r.x != nil && r.fx < bestF {
			bestF, bestX, bestStatus, bestErr = r.fx, r.x, r.status, r.err
		}
	}
	obj.evals += evals
	res.Evaluations = obj.evals
	if bestX == nil {
		// Every start had a recorded choice of probability 0: report at the
		// prior means.
		res.fill(obj, mean)
		res.LogLikelihood = ll0
		res.LogPrior = obj.LogPrior(mean)
		res.Zero = obj.zero
		res.AIC, res.BIC = math.Inf(1), math.Inf(1)
		res.Reason = "the likelihood is 0 at every starting point"
		if z := obj.zero; z != nil {
			res.Reason = fmt.Sprintf("a recorded choice has probability 0 under the agent (trial %d, step %d) at every starting point", z.TrialNumber, z.Step)
		}
		res.Evaluations = obj.evals
		return res, nil
	}
	res.fill(obj, bestX)
	res.LogPrior = obj.LogPrior(bestX)
	ll := -bestF - res.LogPrior
	res.LogLikelihood = ll
	res.AIC = 2*float64(d) - 2*ll
	res.BIC = float64(d)*math.Log(float64(res.NChoices)) - 2*ll
	res.Converged = converged(bestStatus)
	if !res.Converged {
		res.Reason = "the optimiser stopped: " + bestStatus.String()
		if bestErr != nil {
			res.Reason += ": " + bestErr.Error()
		}
	}
	if len(stepped) > 0 {
		res.Warning = fmt.Sprintf("no Laplace approximation: the likelihood is piecewise constant in %s (the agent's plan changes in steps)", strings.Join(stepped, ", "))
	} else {
		res.laplace(func(pts [][]float64, out []float64) { points(pool, pts, out) }, bestX, bestF, obj)
		if *fault != nil {
			return nil, apiError(*fault)
		}
	}
	obj.evals += pool.evals()
	res.Evaluations = obj.evals
	return res, nil
}

// fill sets the estimates at θ.
func (r *Result) fill(obj *Objective, theta []float64) {
	r.Params = make([]Estimate, len(obj.free))
	for i, p := range obj.free {
		r.Params[i] = Estimate{Name: p.Name, Theta: theta[i], Value: p.Domain.Inverse(theta[i]),
			SD: math.NaN(), SDTheta: math.NaN(), Prior: obj.priors[i], Scale: scaleName(p.Domain)}
	}
}

// negLogPostAt is the objective of the optimiser, -(ll + lp), +Inf where
// the likelihood is 0 or not a number.
func negLogPostAt(ll, lp float64) float64 {
	if math.IsNaN(ll) || math.IsInf(ll, -1) {
		return math.Inf(1)
	}
	return -(ll + lp)
}

// converged reports whether an optimiser status is a convergence.
func converged(s optimize.Status) bool {
	switch s {
	case optimize.Success, optimize.FunctionConvergence, optimize.GradientThreshold, optimize.StepConvergence, optimize.MethodConverge, optimize.FunctionThreshold:
		return true
	}
	return false
}

// minimize runs one optimisation from x0 and returns the best point.
func minimize(f func([]float64) float64, grad func(g, x []float64), x0 []float64, method Method, maxEvals int, priors []Prior) ([]float64, float64, optimize.Status, error) {
	p := optimize.Problem{Func: f}
	settings := &optimize.Settings{FuncEvaluations: maxEvals}
	var m optimize.Method
	switch method {
	case NelderMead:
		size := 0.0
		for _, pr := range priors {
			size += pr.SD
		}
		m = &optimize.NelderMead{SimplexSize: size / float64(len(priors))}
		settings.Converger = &optimize.FunctionConverge{Absolute: 1e-7, Relative: 1e-10, Iterations: 20 * len(x0)}
	default:
		p.Grad = grad
		m = &optimize.BFGS{}
		settings.GradientThreshold = 1e-3
		settings.Converger = &optimize.FunctionConverge{Absolute: 1e-6, Iterations: 1}
	}
	res, err := optimize.Minimize(p, x0, settings, m)
	if res == nil {
		return x0, f(x0), optimize.Failure, err
	}
	x, fx := res.X, res.F
	status := res.Status
	if err != nil && method != NelderMead && !math.IsInf(fx, 1) {
		// A line search that can no longer decrease the objective stops
		// BFGS with an error at the precision of the finite differences;
		// the point is a maximum when the gradient there is small.
		g := make([]float64, len(x))
		grad(g, x)
		if normInf(g) < 1e-3 {
			status, err = optimize.GradientThreshold, nil
		}
	}
	return x, fx, status, err
}

// laplace computes the Laplace approximation at the MAP x, where the
// negative log posterior is fx, its Hessian by central differences whose
// points eval evaluates.
func (r *Result) laplace(eval func(pts [][]float64, out []float64), x []float64, fx float64, obj *Objective) {
	d := len(x)
	h := mat.NewSymDense(d, nil)
	fdHessian(h, x, eval)
	var eig mat.EigenSym
	if !eig.Factorize(h, false) {
		r.Converged = false
		r.Reason = "the Hessian of the log posterior at the optimum could not be decomposed"
		return
	}
	r.Eigenvalues = eig.Values(nil)
	for _, v := range r.Eigenvalues {
		if !(v > 0) || math.IsInf(v, 0) {
			r.Converged = false
			r.Reason = fmt.Sprintf("the Hessian of the negative log posterior at the optimum is not positive definite (eigenvalues %v): not a maximum, no Laplace approximation", fmtFloats(r.Eigenvalues))
			return
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(h) {
		r.Converged = false
		r.Reason = "the Hessian of the log posterior at the optimum is numerically singular: no Laplace approximation"
		return
	}
	var cov mat.SymDense
	if err := chol.InverseTo(&cov); err != nil {
		r.Converged = false
		r.Reason = "the Hessian of the log posterior at the optimum is numerically singular: no Laplace approximation"
		return
	}
	r.Laplace = true
	jac := make([]float64, d)
	for i, p := range obj.free {
		jac[i] = p.Domain.Jacobian(x[i])
	}
	r.Cov, r.CovNatural = make([][]float64, d), make([][]float64, d)
	for i := range d {
		r.Cov[i], r.CovNatural[i] = make([]float64, d), make([]float64, d)
		for j := range d {
			r.Cov[i][j] = cov.At(i, j)
			r.CovNatural[i][j] = jac[i] * cov.At(i, j) * jac[j]
		}
	}
	r.Corr, r.CorrNatural = corr(r.Cov), corr(r.CovNatural)
	for i := range d {
		r.Params[i].SDTheta = math.Sqrt(r.Cov[i][i])
		r.Params[i].SD = math.Sqrt(r.CovNatural[i][i])
	}
	r.LogEvidence = -fx + 0.5*float64(d)*math.Log(2*math.Pi) - 0.5*chol.LogDet()
}

func corr(c [][]float64) [][]float64 {
	out := make([][]float64, len(c))
	for i := range c {
		out[i] = make([]float64, len(c))
		for j := range c {
			out[i][j] = c[i][j] / math.Sqrt(c[i][i]*c[j][j])
		}
	}
	return out
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func normInf(g []float64) float64 {
	n := 0.0
	for _, v := range g {
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		n = math.Max(n, math.Abs(v))
	}
	return n
}

func fmtFloats(x []float64) string {
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = fmt.Sprintf("%.4g", v)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// Subjects fits every subject of recs (Subject, with index its position in
// recs) on s.Jobs goroutines and calls emit with each result in the order
// of recs, from the calling goroutine, as soon as it and every earlier one
// are ready. The results do not depend on s.Jobs. The first error (a
// subject's, or emit's) stops the fits and is returned; a subject's error
// is a *SubjectError (wrapping ErrNoChoices for a subject with no choice).
// When ctx is done, the results finished before are still emitted and
// ctx.Err() is returned.
func Subjects(ctx context.Context, f agent.Factory, m *pomdp.Model, recs []behaviour.SubjectRecord, s *Settings, emit func(r *Result) error) error {
	if emit == nil {
		return errors.New("fit: Subjects: nil emit")
	}
	if f == nil {
		return errors.New("fit: nil agent factory")
	}
	if err := pomdp.Check(m); err != nil {
		return apiError(err)
	}
	set := s.resolved()
	if err := set.Validate(f.Params(m)); err != nil {
		return apiError(err)
	}
	inner := set.PerSubject(len(recs))
	err := agent.RunOrdered(ctx, len(recs), 1, set.Jobs, func(ctx context.Context, _, k int) (*Result, error) {
		return Subject(ctx, f, m, &recs[k], k, inner)
	}, func(_ int, r *Result) error { return emit(r) })
	var ue *agent.UnitError
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return apiError(err)
}

// Group is the summary of the fits of several subjects under one model.
type Group struct {
	// Subjects is the number of subjects; Laplace the number with a
	// Laplace approximation.
	Subjects, Laplace int
	// LogEvidence is the sum of the subjects' log evidences (the log
	// evidence of the model for the group, subjects independent); NaN when
	// a subject has none.
	LogEvidence float64
	// LogLikelihood, AIC and BIC are sums over the subjects.
	LogLikelihood, AIC, BIC float64
	// NChoices is the total number of choices; NotConverged the number of
	// subjects whose fit did not converge.
	NChoices, NotConverged int
}

// Add adds one subject's result to the summary. It panics if r is nil: a
// programming error, since Subject returns a result or an error.
func (g *Group) Add(r *Result) {
	if r == nil {
		panic("fit: Group.Add: nil *Result")
	}
	g.Subjects++
	if r.Laplace {
		g.Laplace++
	}
	g.LogEvidence += r.LogEvidence
	g.LogLikelihood += r.LogLikelihood
	g.AIC += r.AIC
	g.BIC += r.BIC
	g.NChoices += r.NChoices
	if !r.Converged {
		g.NotConverged++
	}
}
