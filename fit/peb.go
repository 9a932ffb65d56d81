package fit

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// Parametric empirical Bayes (PEB): a second level over the subjects'
// first-level fits, after SPM12's spm_dcm_peb.m and spm_dcm_peb_bmc.m.
// docs/fitting.md ("Groups") states the model and maps its equations to
// the functions below.

// GroupCov is the form of the between-subject covariance Σ.
type GroupCov int

const (
	// DiagonalCov is a diagonal Σ: the parameters vary over subjects
	// independently.
	DiagonalCov GroupCov = iota
	// FullCov is a full Σ (its Cholesky factor estimated).
	FullCov
)

var groupCovNames = []string{"diag", "full"}

// String returns "diag" or "full".
func (c GroupCov) String() string {
	if c >= 0 && int(c) < len(groupCovNames) {
		return groupCovNames[c]
	}
	return fmt.Sprintf("GroupCov(%d)", int(c))
}

// MarshalText implements encoding.TextMarshaler.
func (c GroupCov) MarshalText() ([]byte, error) {
	if c < 0 || int(c) >= len(groupCovNames) {
		return nil, fmt.Errorf("fit: GroupCov(%d) invalid", int(c))
	}
	return []byte(groupCovNames[c]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler: diag or full.
func (c *GroupCov) UnmarshalText(b []byte) error {
	for i, n := range groupCovNames {
		if string(b) == n {
			*c = GroupCov(i)
			return nil
		}
	}
	return fmt.Errorf("fit: %q, want diag or full", b)
}

// Between-subject covariance prior (docs/fitting.md, "Groups"): the prior
// expectation of Σ's diagonal is the first-level prior variance divided
// by PEBVarianceRatio (SPM's within:between precision ratio, M.beta = 16),
// and the log of each diagonal element of Σ's Cholesky factor squared has
// prior SD PEBLogVarianceSD around it.
const (
	PEBVarianceRatio = 16
	PEBLogVarianceSD = 1
)

// Posterior is a Gaussian first-level posterior N(Mean, Cov) of one
// subject's free parameters on their fitting scale, with the log evidence
// of its fit (under the first-level priors).
type Posterior struct {
	Mean        []float64
	Cov         [][]float64
	LogEvidence float64
}

// PEBSettings configures PEB; nil means the defaults.
type PEBSettings struct {
	// Cov is the form of Σ (default DiagonalCov).
	Cov GroupCov
}

// Effect is one group-level effect: the regression coefficient of a
// parameter on a design column.
type Effect struct {
	Parameter, Covariate string
	// Mean and SD are its posterior mean and SD; Lo and Hi the 90%
	// interval, Mean ∓ 1.6449 SD.
	Mean, SD, Lo, Hi float64
	// PNonzero is the posterior probability of the model with the effect
	// against the one without (the effect fixed at 0), equal prior odds:
	// Bayesian model reduction of the group posterior (Savage-Dickey).
	PNonzero float64
}

// PEBResult is a fitted second level.
type PEBResult struct {
	// Free names the parameters and Columns the design's columns.
	Free, Columns []string
	// Effects holds one effect per parameter and column, parameter-major
	// (Free's order), then Columns' order.
	Effects []Effect
	// BetaCov is the posterior covariance of the effects, in Effects'
	// order.
	BetaCov [][]float64
	// Sigma is the between-subject covariance Σ at its estimate, in
	// Free's order.
	Sigma [][]float64
	// LogEvidence is the group log evidence ln p(all choices | Σ) at the
	// estimate of Σ: the first-level evidences carried through Bayesian
	// model reduction, β and the subjects' parameters integrated out.
	LogEvidence float64
	// ThetaEB and CovEB are each subject's empirical-Bayes posterior,
	// the first-level posterior re-evaluated under the empirical prior
	// N(X_i β, Σ) at β's posterior mean.
	ThetaEB [][]float64
	CovEB   [][][]float64
	// Converged reports that the optimiser of Σ met its convergence test;
	// Reason says why not.
	Converged bool
	Reason    string
}

// z90 is the 95% quantile of the standard normal: the 90% interval is
// mean ± z90 SD.
const z90 = 1.6448536269514722

// pebSubject is one subject's first-level likelihood, by Bayesian model
// reduction: ln p(y | θ) ≈ c - ½ θᵀLθ + θᵀl.
type pebSubject struct {
	L *mat.SymDense
	l *mat.VecDense
	c float64
	x []float64
}

// pebModel holds what the free energy of Σ needs.
type pebModel struct {
	subs     []pebSubject
	d, k     int
	b0, vb   []float64 // β's prior mean and variance, index j = p·k + c
	cov      GroupCov
	lamMean  []float64 // prior means of ln (diagonal of Σ's Cholesky factor)²
	nHyper   int
	priorVar []float64
}

// PEB fits the second level: θ_i = X_i β + ε_i, ε_i ~ N(0, Σ), over the
// first-level posteriors post (one per subject, in design's row order)
// fitted under the priors prior (one per free parameter named by free).
// It returns an error, prefixed "fit:", when the inputs do not fit
// together or a first-level posterior is not a positive definite
// Gaussian.
func PEB(post []Posterior, free []string, prior []Prior, design *Design, s *PEBSettings) (*PEBResult, error) {
	m, err := newPEBModel(post, free, prior, design, s)
	if err != nil {
		return nil, apiError(err)
	}
	lam := m.hyperStart()
	obj := func(x []float64) float64 {
		f, ok := m.freeEnergy(x, nil)
		if !ok {
			return math.Inf(1)
		}
		return -(f + m.logHyperPrior(x))
	}
	res := &PEBResult{Free: append([]string(nil), free...), Columns: append([]string(nil), design.Columns...)}
	grad := func(g, x []float64) {
		fd.Gradient(g, obj, x, &fd.Settings{Formula: fd.Central, Step: 1e-5})
	}
	r, oerr := optimize.Minimize(optimize.Problem{Func: obj, Grad: grad}, lam,
		&optimize.Settings{GradientThreshold: 1e-9, Converger: &optimize.FunctionConverge{Absolute: 1e-13, Iterations: 20}}, &optimize.BFGS{})
	if r != nil && !math.IsInf(r.F, 1) {
		lam = r.X
		res.Converged = converged(r.Status)
		if !res.Converged {
			res.Reason = "the optimiser of Σ stopped: " + r.Status.String()
		}
	} else {
		res.Reason = "the optimiser of Σ failed"
	}
	if oerr != nil {
		// A line search at the precision of the finite differences stops
		// BFGS with an error; the point is a maximum when the gradient is
		// small there.
		g := make([]float64, len(lam))
		grad(g, lam)
		if normInf(g) < 1e-6 {
			res.Converged, res.Reason = true, ""
		} else {
			res.Converged, res.Reason = false, "the optimiser of Σ stopped: "+oerr.Error()
		}
	}
	var st pebState
	f, ok := m.freeEnergy(lam, &st)
	if !ok {
		return nil, errors.New("fit: PEB: the group model has no positive definite posterior at the estimate of Σ")
	}
	res.LogEvidence = f
	res.fill(m, &st)
	return res, nil
}

// newPEBModel checks the inputs and removes the first-level priors.
func newPEBModel(post []Posterior, free []string, prior []Prior, design *Design, s *PEBSettings) (*pebModel, error) {
	var set PEBSettings
	if s != nil {
		set = *s
	}
	d := len(free)
	switch {
	case design == nil:
		return nil, errors.New("fit: PEB: nil design")
	case d == 0:
		return nil, errors.New("fit: PEB: no free parameter")
	case len(prior) != d:
		return nil, fmt.Errorf("fit: PEB: %d priors for %d free parameters", len(prior), d)
	case len(design.X) != len(post):
		return nil, fmt.Errorf("fit: PEB: the design has %d rows for %d subjects", len(design.X), len(post))
	case set.Cov != DiagonalCov && set.Cov != FullCov:
		return nil, fmt.Errorf("fit: PEB: Cov %d, want DiagonalCov or FullCov", int(set.Cov))
	}
	k := len(design.Columns)
	if len(post) < k {
		return nil, fmt.Errorf("fit: PEB: %d subjects for %d design columns (%s): want at least as many subjects as columns", len(post), k, strings.Join(design.Columns, ", "))
	}
	m := &pebModel{d: d, k: k, cov: set.Cov}
	s0inv := mat.NewSymDense(d, nil)
	mu0 := mat.NewVecDense(d, nil)
	lnDetS0 := 0.0
	for p, pr := range prior {
		if err := pr.Check(); err != nil {
			return nil, fmt.Errorf("fit: PEB: prior of %s: %v", free[p], err)
		}
		s0inv.SetSym(p, p, 1/(pr.SD*pr.SD))
		mu0.SetVec(p, pr.Mean)
		lnDetS0 += 2 * math.Log(pr.SD)
		m.priorVar = append(m.priorVar, pr.SD*pr.SD)
	}
	for p := range d {
		for c := range k {
			mean := 0.0
			if design.Columns[c] == InterceptName {
				mean = prior[p].Mean
			}
			m.b0 = append(m.b0, mean)
			m.vb = append(m.vb, m.priorVar[p])
		}
		m.lamMean = append(m.lamMean, math.Log(m.priorVar[p]/PEBVarianceRatio))
	}
	m.nHyper = d
	if set.Cov == FullCov {
		m.nHyper = d * (d + 1) / 2
	}
	for i, q := range post {
		if len(q.Mean) != d || len(q.Cov) != d {
			return nil, fmt.Errorf("fit: PEB: subject %d: a posterior of %d parameters, want %d", i+1, len(q.Mean), d)
		}
		if len(design.X[i]) != k {
			return nil, fmt.Errorf("fit: PEB: design row %d has %d columns, want %d", i+1, len(design.X[i]), k)
		}
		c := mat.NewSymDense(d, nil)
		for a := range d {
			if len(q.Cov[a]) != d {
				return nil, fmt.Errorf("fit: PEB: subject %d: covariance row %d has %d entries, want %d", i+1, a+1, len(q.Cov[a]), d)
			}
			for b := a; b < d; b++ {
				c.SetSym(a, b, q.Cov[a][b])
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(c) || math.IsNaN(q.LogEvidence) || math.IsInf(q.LogEvidence, 0) {
			return nil, fmt.Errorf("fit: PEB: subject %d: the first-level posterior is not a positive definite Gaussian with a finite log evidence (no Laplace approximation)", i+1)
		}
		cinv := mat.NewSymDense(d, nil)
		if err := ch.InverseTo(cinv); err != nil {
			return nil, fmt.Errorf("fit: PEB: subject %d: the first-level covariance is singular", i+1)
		}
		mu := mat.NewVecDense(d, append([]float64(nil), q.Mean...))
		// The likelihood is the posterior divided by the prior (Bayesian
		// model reduction with the prior removed):
		// ln p(y|θ) = F + ln N(θ; μ, C) − ln N(θ; μ0, S0).
		var sub pebSubject
		sub.L = mat.NewSymDense(d, nil)
		for a := range d {
			for b := a; b < d; b++ {
				sub.L.SetSym(a, b, cinv.At(a, b)-s0inv.At(a, b))
			}
		}
		var a, b mat.VecDense
		a.MulVec(cinv, mu)
		b.MulVec(s0inv, mu0)
		sub.l = mat.NewVecDense(d, nil)
		sub.l.SubVec(&a, &b)
		sub.c = q.LogEvidence - 0.5*ch.LogDet() + 0.5*lnDetS0 - 0.5*mat.Dot(mu, &a) + 0.5*mat.Dot(mu0, &b)
		sub.x = design.X[i]
		m.subs = append(m.subs, sub)
	}
	return m, nil
}

// hyperStart returns the prior means of the hyperparameters.
func (m *pebModel) hyperStart() []float64 {
	x := make([]float64, m.nHyper)
	copy(x, m.lamMean)
	return x
}

// sigma returns Σ for the hyperparameters x: the first d are the logs of
// the squared diagonal of its Cholesky factor, the rest (FullCov) the
// factor's lower off-diagonal elements, row by row.
func (m *pebModel) sigma(x []float64) *mat.SymDense {
	d := m.d
	l := mat.NewTriDense(d, mat.Lower, nil)
	for p := range d {
		l.SetTri(p, p, math.Exp(x[p]/2))
	}
	if m.cov == FullCov {
		j := d
		for a := 1; a < d; a++ {
			for b := range a {
				l.SetTri(a, b, x[j])
				j++
			}
		}
	}
	s := mat.NewSymDense(d, nil)
	s.SymOuterK(1, l)
	return s
}

// logHyperPrior is ln p(x) up to a constant: ln L_pp² ~ N(ln(v_p/16),
// PEBLogVarianceSD²) and L_ab ~ N(0, v_a/16).
func (m *pebModel) logHyperPrior(x []float64) float64 {
	lp := 0.0
	for p := range m.d {
		z := (x[p] - m.lamMean[p]) / PEBLogVarianceSD
		lp -= 0.5 * z * z
	}
	if m.cov == FullCov {
		j := m.d
		for a := 1; a < m.d; a++ {
			for range a {
				lp -= 0.5 * x[j] * x[j] / (m.priorVar[a] / PEBVarianceRatio)
				j++
			}
		}
	}
	return lp
}

// pebState is what freeEnergy leaves for the result.
type pebState struct {
	sigma, sigmaInv *mat.SymDense
	beta            *mat.VecDense
	betaCov         *mat.SymDense
	aInv            []*mat.SymDense
}

// freeEnergy returns ln p(Y | Σ(x)) with β and every θ_i integrated out,
// and false where a precision is not positive definite. With st non-nil
// it keeps β's posterior and the subjects' A_i⁻¹.
//
// Subject i contributes, with a_i = X_i β and A_i = L_i + Σ⁻¹,
//
//	ln ∫ p(y_i|θ) N(θ; a_i, Σ) dθ = c_i − ½ ln|Σ| − ½ ln|A_i|
//	    + ½ b_iᵀ A_i⁻¹ b_i − ½ a_iᵀ Σ⁻¹ a_i,   b_i = l_i + Σ⁻¹ a_i,
//
// a quadratic form in β: precision Q_i = Σ⁻¹ − Σ⁻¹A_i⁻¹Σ⁻¹ and linear
// term r_i = Σ⁻¹A_i⁻¹l_i on a_i. Then with β ~ N(β0, Vβ):
// P = Vβ⁻¹ + Σ_i X_iᵀQ_iX_i, h = Vβ⁻¹β0 + Σ_i X_iᵀr_i, and
// ln p(Y|Σ) = Σ_i (const_i) − ½ ln|Vβ| − ½ ln|P| − ½ β0ᵀVβ⁻¹β0 + ½ hᵀP⁻¹h.
func (m *pebModel) freeEnergy(x []float64, st *pebState) (float64, bool) {
	d, k := m.d, m.k
	sigma := m.sigma(x)
	var sch mat.Cholesky
	if !sch.Factorize(sigma) {
		return 0, false
	}
	sinv := mat.NewSymDense(d, nil)
	if err := sch.InverseTo(sinv); err != nil {
		return 0, false
	}
	lnDetS := sch.LogDet()
	n := d * k
	prec := mat.NewSymDense(n, nil)
	h := mat.NewVecDense(n, nil)
	f := 0.0
	a := mat.NewSymDense(d, nil)
	ainv := mat.NewSymDense(d, nil)
	var tmp, q mat.Dense
	var r, al mat.VecDense
	var ach mat.Cholesky
	for _, s := range m.subs {
		a.AddSym(s.L, sinv)
		if !ach.Factorize(a) {
			return 0, false
		}
		if err := ach.InverseTo(ainv); err != nil {
			return 0, false
		}
		if st != nil {
			st.aInv = append(st.aInv, mat.NewSymDense(d, append([]float64(nil), ainv.RawSymmetric().Data...)))
		}
		al.MulVec(ainv, s.l)
		f += s.c - 0.5*lnDetS - 0.5*ach.LogDet() + 0.5*mat.Dot(s.l, &al)
		tmp.Mul(sinv, ainv)
		q.Mul(&tmp, sinv)
		r.MulVec(sinv, &al)
		for p := range d {
			for c := range k {
				i := p*k + c
				h.SetVec(i, h.AtVec(i)+s.x[c]*r.AtVec(p))
				for p2 := range d {
					qv := sinv.At(p, p2) - q.At(p, p2)
					for c2 := range k {
						j := p2*k + c2
						if j < i {
							continue
						}
						prec.SetSym(i, j, prec.At(i, j)+s.x[c]*s.x[c2]*qv)
					}
				}
			}
		}
	}
	for j := range n {
		prec.SetSym(j, j, prec.At(j, j)+1/m.vb[j])
		h.SetVec(j, h.AtVec(j)+m.b0[j]/m.vb[j])
		f -= 0.5*math.Log(m.vb[j]) + 0.5*m.b0[j]*m.b0[j]/m.vb[j]
	}
	var pch mat.Cholesky
	if !pch.Factorize(prec) {
		return 0, false
	}
	beta := mat.NewVecDense(n, nil)
	if err := pch.SolveVecTo(beta, h); err != nil {
		return 0, false
	}
	f += -0.5*pch.LogDet() + 0.5*mat.Dot(h, beta)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	if st != nil {
		st.sigma, st.sigmaInv, st.beta = sigma, sinv, beta
		st.betaCov = mat.NewSymDense(n, nil)
		if err := pch.InverseTo(st.betaCov); err != nil {
			return 0, false
		}
	}
	return f, true
}

// fill sets the result from the state at the estimate of Σ.
func (r *PEBResult) fill(m *pebModel, st *pebState) {
	d, k := m.d, m.k
	r.BetaCov = symRows(st.betaCov)
	r.Sigma = symRows(st.sigma)
	for p := range d {
		for c := range k {
			j := p*k + c
			mean, v := st.beta.AtVec(j), st.betaCov.At(j, j)
			sd := math.Sqrt(v)
			// Savage-Dickey: ln p(Y | β_j = 0) − ln p(Y) = ln q(β_j = 0) −
			// ln p(β_j = 0), the limit of Bayesian model reduction as the
			// effect's prior variance goes to 0.
			dF := normLogPDF(0, mean, v) - normLogPDF(0, m.b0[j], m.vb[j])
			r.Effects = append(r.Effects, Effect{Parameter: r.Free[p], Covariate: r.Columns[c], Mean: mean, SD: sd,
				Lo: mean - z90*sd, Hi: mean + z90*sd, PNonzero: 1 / (1 + math.Exp(dF))})
		}
	}
	var mu, b, t mat.VecDense
	for i, s := range m.subs {
		mu.Reset()
		mu.ReuseAsVec(d)
		for p := range d {
			v := 0.0
			for c := range k {
				v += s.x[c] * st.beta.AtVec(p*k+c)
			}
			mu.SetVec(p, v)
		}
		b.MulVec(st.sigmaInv, &mu)
		b.AddVec(&b, s.l)
		t.MulVec(st.aInv[i], &b)
		r.ThetaEB = append(r.ThetaEB, append([]float64(nil), t.RawVector().Data...))
		r.CovEB = append(r.CovEB, symRows(st.aInv[i]))
	}
}

func symRows(s *mat.SymDense) [][]float64 {
	n := s.SymmetricDim()
	out := make([][]float64, n)
	for i := range n {
		out[i] = make([]float64, n)
		for j := range n {
			out[i][j] = s.At(i, j)
		}
	}
	return out
}

func normLogPDF(x, mean, v float64) float64 {
	z := x - mean
	return -0.5*math.Log(2*math.Pi*v) - 0.5*z*z/v
}

// GroupPosteriors returns the first-level posteriors of results for PEB,
// or an error naming the first subject without a Laplace approximation.
func GroupPosteriors(results []*Result) ([]Posterior, error) {
	out := make([]Posterior, len(results))
	for i, r := range results {
		if r == nil || !r.Laplace {
			name := ""
			reason := "no Laplace approximation"
			if r != nil {
				name = r.Subject
				if r.Reason != "" {
					reason = r.Reason
				} else if r.Warning != "" {
					reason = r.Warning
				}
			}
			return nil, fmt.Errorf("fit: subject %q: the group level needs every subject's Laplace posterior: %s", name, reason)
		}
		mean := make([]float64, len(r.Params))
		for p, e := range r.Params {
			mean[p] = e.Theta
		}
		out[i] = Posterior{Mean: mean, Cov: r.Cov, LogEvidence: r.LogEvidence}
	}
	return out, nil
}
