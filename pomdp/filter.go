package pomdp

import (
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/schedule"
)

// PastInference is how the past is inferred (Past.Infer).
type PastInference int

const (
	// PastDefault, the zero value, stands for the default of whoever
	// takes the setting: the aci agent filters (as SPM and pymdp infer
	// states), btai and NewPastWith use the paper's mean field.
	PastDefault PastInference = iota
	// PastVMP is the paper's fully factorised mean field over the past
	// (section 6.1): one belief per factor and time step, by VMP on the
	// graph.
	PastVMP
	// PastFilter is exact forward filtering of the present state (the
	// joint over the factors), the single-step state inference of SPM and
	// pymdp. Forward-backward smoothing gives the smoothed beliefs of the
	// kept steps (Past.Smoothed) and, with learning, at the end of the
	// episode the Dirichlet counts (CarryOver).
	PastFilter
	// PastFactorised is filtering under a belief that factorises over the
	// factors, as the BTAI_3MF agent infers states: each step predicts
	// every factor's marginal by its B, then takes the mean-field
	// posterior given the observation (exact when every modality depends
	// on one factor, as then the factors stay independent). It never forms
	// the joint state space; it does not learn, and Smoothed gives the
	// filtered beliefs.
	PastFactorised
)

// String returns "vmp", "filter" or "default", and "PastInference(n)" for
// a value that is none of the constants.
func (pi PastInference) String() string {
	switch pi {
	case PastFilter:
		return "filter"
	case PastVMP:
		return "vmp"
	case PastDefault:
		return "default"
	case PastFactorised:
		return "factorised"
	}
	return fmt.Sprintf("PastInference(%d)", int(pi))
}

// ParsePastInference parses "vmp" or "filter".
func ParsePastInference(s string) (PastInference, error) {
	switch s {
	case "vmp":
		return PastVMP, nil
	case "filter":
		return PastFilter, nil
	case "factorised":
		return PastFactorised, nil
	}
	return 0, fmt.Errorf("pomdp: %q, want vmp, filter or factorised", s)
}

// MaxFilterStates bounds the joint states Π_f |S_f| that exact filtering
// carries; MaxSmoothStates those for which it also learns B (its pairwise
// counts cost the square per step).
const (
	MaxFilterStates = 1 << 16
	MaxSmoothStates = 1 << 10
)

// filter is the state of exact filtering: the filtered joint belief over
// the present state and, with learning, what smoothing needs.
type filter struct {
	J       int
	digits  [][]int     // digits[f][j]: factor f's state in joint state j
	cols    [][]int     // cols[m][j]: modality m's column of A in joint state j
	a       [][]float64 // per modality: A, or exp E[ln A] under the concentrations
	b       [][]float64 // per factor: B, [c][next*ns+prev], or exp E[ln B]
	d       [][]float64 // per factor: D, or exp E[ln D]
	alpha   []float64   // filtered joint over the present state
	tmp     []float64
	next    []float64 // without learning: scratch of filterGrow
	smooth  []float64 // scratch of smooth: β, γ and the likelihood, J each
	spare   conc      // the lists of a, b and d of the trial before last, for filterStart
	first   []float64 // the first belief of the last trial, for filterStart
	postBuf conc      // the posteriors of filterCarryOver (post points to it)
	xi      []float64 // scratch of addTransitionCounts: J × J
	logZ    float64   // ln Z, summed: ln p(o_0..o_t | actions) under a, b, d (the geometric means exp E[ln θ] when learned)

	learn bool
	// The record that smoothing reads (CarryOver, Smoothed): with learning
	// every step of the episode, otherwise the kept steps only. obs[k] is
	// the observation of its step k; acts[k] the action after it, or -1
	// after GrowMixed with mixes[k] the action's distribution (nil for a
	// known action).
	obs     []int
	acts    []int
	mixes   [][]float64
	hist    [][]float64 // with learning: the filtered beliefs α_t of every step
	base    []float64   // without learning: α of the record's first step
	counted bool        // CarryOver has counted the episode (until Reset)
	post    *conc       // the posteriors of the trial CarryOver ended (until Reset)
}

func newFilter(m *Model) (*filter, error) {
	J := 1.0
	for _, f := range m.factors {
		J *= float64(f.ns)
	}
	if J > MaxFilterStates {
		return nil, fmt.Errorf("past inference filter: %g joint states, more than %d (use vmp)", J, MaxFilterStates)
	}
	_, lb, _ := m.Learnable()
	if lb && J > MaxSmoothStates {
		return nil, fmt.Errorf("past inference filter: learning B over %g joint states, more than %d (use vmp)", J, MaxSmoothStates)
	}
	fl := &filter{J: int(J)}
	fl.digits = make([][]int, len(m.factors))
	for f := range m.factors {
		fl.digits[f] = make([]int, fl.J)
	}
	for j := range fl.J {
		x := j
		for f := len(m.factors) - 1; f >= 0; f-- {
			fl.digits[f][j] = x % m.factors[f].ns
			x /= m.factors[f].ns
		}
	}
	fl.cols = make([][]int, len(m.mods))
	for i, md := range m.mods {
		fl.cols[i] = make([]int, fl.J)
		for j := range fl.J {
			c := 0
			for _, f := range md.deps {
				c = c*m.factors[f].ns + fl.digits[f][j]
			}
			fl.cols[i][j] = c
		}
	}
	fl.alpha = make([]float64, fl.J)
	fl.tmp = make([]float64, fl.J)
	la, lb2, ld := m.Learnable()
	fl.learn = la || lb2 || ld
	return fl, nil
}

// geometric returns exp E[ln θ] of Dirichlet columns with concentrations
// alpha (shape [lead, k, n] as in columns): exp(ψ(α) - ψ(Σ_column α)).
func geometric(alpha []float64, shape []int) []float64 {
	return geometricInto(nil, alpha, shape)
}

// geometricInto is geometric written into dst when it has alpha's length.
func geometricInto(dst, alpha []float64, shape []int) []float64 {
	lead, k, n := columns(shape)
	out := dst
	if len(out) != len(alpha) {
		out = make([]float64, len(alpha))
	}
	for l := range lead {
		for j := range n {
			s := 0.0
			for i := range k {
				s += alpha[(l*k+i)*n+j]
			}
			ds := digamma(s)
			for i := range k {
				x := (l*k+i)*n + j
				out[x] = math.Exp(digamma(alpha[x]) - ds)
			}
		}
	}
	return out
}

// params sets the filter's A, B, D: the model's, or for a learned one
// the geometric mean exp E[ln θ] under the current prior concentrations
// (variational Bayes, Beal 2003).
func (p *Past) filterParams() {
	fl, m := p.fl, p.m
	fl.a, fl.b, fl.d = fl.a[:0], fl.b[:0], fl.d[:0]
	for i := range m.mods {
		md := &m.mods[i]
		if al := p.mods[i].aAlpha; al != nil {
			fl.a = append(fl.a, geometricInto(spareAt(fl.a, i, md.a), al, []int{md.no, md.size}))
		} else {
			fl.a = append(fl.a, md.a)
		}
	}
	for i := range m.factors {
		f := &m.factors[i]
		if al := p.facs[i].bAlpha; al != nil {
			fl.b = append(fl.b, geometric(FromNPU(al, f.ns, f.nu), []int{f.nu, f.ns, f.ns}))
		} else {
			fl.b = append(fl.b, f.b)
		}
		if al := p.facs[i].dAlpha; al != nil {
			fl.d = append(fl.d, geometricInto(spareAt(fl.d, i, f.d), al, []int{f.ns}))
		} else {
			fl.d = append(fl.d, f.d)
		}
	}
}

// spareAt returns the slice at position i of the backing array of the
// empty list xs, the list of the trial before last that filterStart
// refills (filterParams), for geometricInto to write over: nil past its
// end, and nil when it is the model's own table own, which is never
// written.
func spareAt(xs [][]float64, i int, own []float64) []float64 {
	if i >= cap(xs) {
		return nil
	}
	x := xs[:i+1][i]
	if len(x) == 0 || len(own) > 0 && &x[0] == &own[0] {
		return nil
	}
	return x
}

// likelihood multiplies x by Π_m A_m(o_m | ·) for the outcomes of obs.
func (p *Past) likelihood(x []float64, obs int) {
	fl := p.fl
	p.outs = p.m.DecodeObs(p.outs, obs)
	for i := range p.m.mods {
		md := &p.m.mods[i]
		row := fl.a[i][p.outs[i]*md.size : (p.outs[i]+1)*md.size]
		cols := fl.cols[i]
		for j := range x {
			x[j] *= row[cols[j]]
		}
	}
}

// normalise divides x by its sum z and returns z; x is left as it is when
// z is not positive and finite (an observation of probability 0).
func normalise(x []float64) float64 {
	z := 0.0
	for _, v := range x {
		z += v
	}
	if !(z > 0) || math.IsInf(z, 0) {
		return z
	}
	for j := range x {
		x[j] /= z
	}
	return z
}

// jointPrior sets x to the joint prior Π_f D_f over the joint states.
func (p *Past) jointPrior(x []float64) {
	fl := p.fl
	for j := range x {
		v := 1.0
		for f := range p.m.factors {
			v *= fl.d[f][fl.digits[f][j]]
		}
		x[j] = v
	}
}

// filterStart computes the filtered belief of step 0 (a new slice) and
// the evidence z = p(o_0) under the trial's parameters, which it sets
// (filterParams). On an observation of probability 0 it returns an error
// wrapping ErrImpossibleObservation and leaves the filter as it was.
func (p *Past) filterStart(obs int) ([]float64, float64, error) {
	fl := p.fl
	// The new parameters go into the lists of the trial before last
	// (spare), so that the last trial's stay as they were on an error.
	olda, oldb, oldd := fl.a, fl.b, fl.d
	fl.a, fl.b, fl.d = fl.spare.a[:0], fl.spare.b[:0], fl.spare.d[:0]
	p.filterParams()
	alpha := fl.first
	if len(alpha) != fl.J {
		alpha = make([]float64, fl.J)
	}
	p.jointPrior(alpha)
	p.likelihood(alpha, obs)
	z := normalise(alpha)
	if !(z > 0) || math.IsInf(z, 0) {
		pred := make([]float64, fl.J)
		p.jointPrior(pred)
		err := p.filterImpossible(0, obs, pred, z)
		fl.spare = conc{a: fl.a, b: fl.b, d: fl.d}
		fl.a, fl.b, fl.d = olda, oldb, oldd
		return nil, 0, err
	}
	fl.spare = conc{a: olda, b: oldb, d: oldd}
	fl.first = nil
	return alpha, z, nil
}

// filterReset starts filtering with the first observation, whose belief
// alpha and evidence z filterStart computed.
func (p *Past) filterReset(obs int, alpha []float64, z float64) {
	fl := p.fl
	// The first belief of the last trial is free for the next filterStart.
	if fl.learn && len(fl.hist) > 0 {
		fl.first = fl.hist[0]
	} else if !fl.learn {
		fl.first = fl.base
	}
	fl.logZ = 0
	copy(fl.alpha, alpha)
	fl.logZ += math.Log(z)
	fl.obs, fl.acts, fl.mixes, fl.hist = fl.obs[:0], fl.acts[:0], fl.mixes[:0], fl.hist[:0]
	clear(fl.mixes[:cap(fl.mixes)])
	fl.base = nil
	fl.post, fl.counted = nil, false
	fl.obs = append(fl.obs, obs)
	if fl.learn {
		fl.hist = append(fl.hist, alpha)
	} else {
		fl.base = alpha
	}
}

// filterImpossible is the error of observation obs at step t, to which
// the predicted belief pred (before the observation) gives probability 0
// (z, the evidence, is 0; or not finite, which no valid model gives). It
// names the first modality whose outcome alone has probability 0 under
// pred.
func (p *Past) filterImpossible(t, obs int, pred []float64, z float64) error {
	fl, m := p.fl, p.m
	if z != 0 {
		return fmt.Errorf("pomdp: past inference filter: step %d: observation %s: the evidence is %v", t, p.obsText(obs), z)
	}
	culprit := -1
	p.outs = m.DecodeObs(p.outs, obs)
	for i := range m.mods {
		md := &m.mods[i]
		row := fl.a[i][p.outs[i]*md.size : (p.outs[i]+1)*md.size]
		v := 0.0
		for j, w := range pred {
			v += w * row[fl.cols[i][j]]
		}
		if v == 0 {
			culprit = i
			break
		}
	}
	fix := "A or B"
	if t == 0 {
		fix = "A or D"
	}
	return p.impossible(t, obs, culprit, fix)
}

// predict sets dst(j') = Σ_j T_u(j' | j) src(j), T_u the product of the
// factors' B under the controls of action u, one factor's axis at a time.
func (p *Past) predict(dst, src []float64, action int) {
	fl, m := p.fl, p.m
	p.ctrl = m.DecodeAction(p.ctrl, action)
	cur := append(fl.tmp[:0], src...)
	stride := fl.J
	for fi := range m.factors {
		f := &m.factors[fi]
		stride /= f.ns
		bu := fl.b[fi][p.ctrl[fi]*f.ns*f.ns : (p.ctrl[fi]+1)*f.ns*f.ns]
		clear(dst)
		// Joint index j = (hi·ns + s)·stride + lo for this factor's s.
		for j, v := range cur {
			if v == 0 {
				continue
			}
			s := fl.digits[fi][j]
			base := j - s*stride
			for n := range f.ns {
				if w := bu[n*f.ns+s]; w != 0 {
					dst[base+n*stride] += w * v
				}
			}
		}
		copy(cur, dst)
	}
}

// filterGrow moves the filtered belief through the action (a known
// action, or with probs non-nil the mixture Σ_u probs[u] T_u) and the next
// observation, the step t+1. On an observation of probability 0 it returns
// an error wrapping ErrImpossibleObservation and leaves the filter as it
// was.
func (p *Past) filterGrow(action int, probs []float64, obs int) error {
	fl := p.fl
	// Learning keeps every step's belief (hist); otherwise only alpha.
	next := fl.next
	if fl.learn {
		// A buffer of an earlier trial's step, past the record's end
		// (filterReset keeps them), or a new one.
		next = nil
		if n := len(fl.hist); n < cap(fl.hist) {
			next = fl.hist[:n+1][n]
		}
	}
	if len(next) != fl.J {
		next = make([]float64, fl.J)
	}
	if !fl.learn {
		fl.next = next
	}
	p.filterPredict(next, fl.alpha, action, probs)
	p.likelihood(next, obs)
	z := normalise(next)
	if !(z > 0) || math.IsInf(z, 0) {
		pred := make([]float64, fl.J)
		p.filterPredict(pred, fl.alpha, action, probs)
		return p.filterImpossible(p.t+1, obs, pred, z)
	}
	fl.logZ += math.Log(z)
	copy(fl.alpha, next)
	fl.obs = append(fl.obs, obs)
	fl.acts = append(fl.acts, action)
	fl.mixes = append(fl.mixes, probs)
	if fl.learn {
		fl.hist = append(fl.hist, next)
	}
	return nil
}

// filterPredict is predict for a known action (probs nil) or the mixture
// Σ_u probs[u] T_u of GrowMixed.
func (p *Past) filterPredict(dst, src []float64, action int, probs []float64) {
	if probs == nil {
		p.predict(dst, src, action)
		return
	}
	p.predictMixed(dst, src, probs)
}

// filterBackward is backward for a known action (probs nil) or the
// mixture of GrowMixed.
func (p *Past) filterBackward(dst, x []float64, action int, probs []float64) {
	if probs == nil {
		p.backward(dst, x, action)
		return
	}
	p.backwardMixed(dst, x, probs)
}

// filterFold drops the oldest step of the record when the window folds it
// and nothing is learned (learning keeps the whole episode): the record's
// first belief moves one step on.
func (p *Past) filterFold() {
	fl := p.fl
	if fl.learn || len(fl.obs) < 2 {
		return
	}
	next := make([]float64, fl.J)
	p.filterPredict(next, fl.base, fl.acts[0], fl.mixes[0])
	p.likelihood(next, fl.obs[1])
	normalise(next)
	fl.base = next
	fl.obs = append(fl.obs[:0], fl.obs[1:]...)
	fl.acts = append(fl.acts[:0], fl.acts[1:]...)
	n := copy(fl.mixes, fl.mixes[1:])
	fl.mixes[n] = nil
	fl.mixes = fl.mixes[:n]
}

// filtered returns the filtered beliefs α of the record's steps: the
// kept history with learning, otherwise recomputed from the record's
// first belief.
func (p *Past) filtered() [][]float64 {
	fl := p.fl
	if fl.learn {
		return fl.hist
	}
	out := make([][]float64, len(fl.obs))
	out[0] = fl.base
	for k := 1; k < len(out); k++ {
		out[k] = make([]float64, fl.J)
		p.filterPredict(out[k], out[k-1], fl.acts[k-1], fl.mixes[k-1])
		p.likelihood(out[k], fl.obs[k])
		normalise(out[k])
	}
	return out
}

// filterInfer writes the marginals of the filtered belief into the present
// states' posteriors and returns -ln Z as F (Infer).
func (p *Past) filterInfer() (*schedule.Result, error) {
	if err := p.filterPresent(); err != nil {
		return nil, err
	}
	return &schedule.Result{Iterations: 1, Converged: true, FreeEnergy: []float64{-p.fl.logZ}}, nil
}

// filterPresent is filterInfer without its result: the present state's
// posterior set (or marked as inferred when there is no graph).
func (p *Past) filterPresent() error {
	if p.g == nil {
		p.inferred[len(p.inferred)-1] = true
		return nil
	}
	return p.setMarginals(p.steps[len(p.steps)-1].s, p.fl.alpha)
}

func normalized(q []float64) []float64 {
	z := 0.0
	for _, v := range q {
		z += v
	}
	if z > 0 {
		for i := range q {
			q[i] /= z
		}
	}
	return q
}

// filterCarryOver smooths the episode (forward-backward), adds the
// expected counts to a copy of the prior concentrations (variational Bayes
// with an exact E-step under exp E[ln θ]), which makes the trial's
// posteriors, and carries them over (Past.carry).
func (p *Past) filterCarryOver() error {
	fl := p.fl
	if !fl.learn || fl.counted || len(fl.hist) == 0 {
		return nil
	}
	// The posteriors go into the lists the last trial's took (until
	// Reset they are Posteriors', which copies them).
	fl.postBuf = copyConc(fl.postBuf, p.priorConc())
	post := fl.postBuf
	p.smoothCounts(post)
	p.carry(post)
	fl.post = &fl.postBuf
	// Counted once: a second CarryOver of the same episode adds nothing.
	// The record stays for Smoothed until Reset.
	fl.counted = true
	return nil
}

// filterPosteriors returns the posteriors of the trial (new slices):
// the priors plus the smoothed counts of the steps so far, or after
// CarryOver the posteriors it carried over.
func (p *Past) filterPosteriors() conc {
	fl := p.fl
	if !fl.learn || fl.counted || len(fl.hist) == 0 {
		if fl.post != nil {
			return fl.post.clone()
		}
		return p.priorConc().clone()
	}
	post := p.priorConc().clone()
	p.smoothCounts(post)
	return post
}

// smooth runs the backward pass of forward-backward over the filtered
// beliefs alphas of the record, from its last step back to step from:
// state(t, γ_t) with the smoothed joint γ_t ∝ α_t β_t (normalised), and,
// for every step t > from, pair(t, lik) with lik = P(o_t | ·) β_t, before
// β moves back through the action into step t-1 (nil pair: none).
func (p *Past) smooth(alphas [][]float64, from int, state func(t int, gamma []float64), pair func(t int, lik []float64)) {
	fl := p.fl
	if len(fl.smooth) != 3*fl.J {
		fl.smooth = make([]float64, 3*fl.J)
	}
	beta, gamma, lik := fl.smooth[:fl.J], fl.smooth[fl.J:2*fl.J], fl.smooth[2*fl.J:]
	for j := range beta {
		beta[j] = 1
	}
	for t := len(alphas) - 1; t >= from; t-- {
		// γ_t ∝ α_t β_t.
		for j := range gamma {
			gamma[j] = alphas[t][j] * beta[j]
		}
		normalized(gamma)
		state(t, gamma)
		if t == from {
			break
		}
		// lik(j') = P(o_t | j') β_t(j'); β_(t-1)(j) = Σ_j' T(j'|j) lik(j').
		for j := range lik {
			lik[j] = beta[j]
		}
		p.likelihood(lik, fl.obs[t])
		if pair != nil {
			pair(t, lik)
		}
		p.filterBackward(beta, lik, fl.acts[t-1], fl.mixes[t-1])
		normalized(beta)
	}
}

// smoothCounts smooths the episode so far (forward-backward) and adds its
// expected counts to dst, concentrations in the past's layouts:
//
//	d_f += Q(s_f,0),  a_m[o_m,t, ·] += Q(s_deps(m),t),
//	b_f[u_f,t][s', s] += Q(s_f,t+1 = s', s_f,t = s)
//
// and for a step of GrowMixed, whose action is not known,
// b_f[c][s', s] += Q(s_f,t+1 = s', s_f,t = s, u_f,t = c), the action's
// posterior included.
func (p *Past) smoothCounts(dst conc) {
	fl, m := p.fl, p.m
	_, learnB, _ := m.Learnable()
	var pair func(t int, lik []float64)
	if learnB {
		pair = func(t int, lik []float64) {
			if probs := fl.mixes[t-1]; probs != nil {
				p.addTransitionCountsMixed(dst, fl.hist[t-1], lik, probs)
			} else {
				p.addTransitionCounts(dst, fl.hist[t-1], lik, fl.acts[t-1])
			}
		}
	}
	p.smooth(fl.hist, 0, func(t int, gamma []float64) { p.addStateCounts(dst, gamma, t) }, pair)
}

// filterSmoothed returns the smoothed marginals of every kept step (see
// Past.Smoothed).
func (p *Past) filterSmoothed() [][]float64 {
	fl, m := p.fl, p.m
	alphas := p.filtered()
	kept := p.Kept()
	from := len(alphas) - kept
	out := make([][]float64, kept)
	p.smooth(alphas, from, func(t int, gamma []float64) {
		q := make([]float64, m.ns)
		for fi := range m.factors {
			off := m.factors[fi].off
			for j, v := range gamma {
				q[off+fl.digits[fi][j]] += v
			}
		}
		out[t-from] = q
	}, nil)
	return out
}

// backward sets dst(j) = Σ_j' T_u(j' | j) x(j').
func (p *Past) backward(dst, x []float64, action int) {
	fl, m := p.fl, p.m
	p.ctrl = m.DecodeAction(p.ctrl, action)
	cur := append(fl.tmp[:0], x...)
	stride := fl.J
	for fi := range m.factors {
		f := &m.factors[fi]
		stride /= f.ns
		bu := fl.b[fi][p.ctrl[fi]*f.ns*f.ns : (p.ctrl[fi]+1)*f.ns*f.ns]
		clear(dst)
		for j := range dst {
			s := fl.digits[fi][j]
			base := j - s*stride
			v := 0.0
			for n := range f.ns {
				v += bu[n*f.ns+s] * cur[base+n*stride]
			}
			dst[j] = v
		}
		copy(cur, dst)
	}
}

// addStateCounts adds the smoothed joint γ at step t to dst's d (t = 0)
// and to every a of dst.
func (p *Past) addStateCounts(dst conc, gamma []float64, t int) {
	fl, m := p.fl, p.m
	if t == 0 {
		for fi := range m.factors {
			if d := dst.d[fi]; d != nil {
				for j, v := range gamma {
					d[fl.digits[fi][j]] += v
				}
			}
		}
	}
	p.outs = m.DecodeObs(p.outs, fl.obs[t])
	for i := range m.mods {
		a := dst.a[i]
		if a == nil {
			continue
		}
		md := &m.mods[i]
		row := a[p.outs[i]*md.size : (p.outs[i]+1)*md.size]
		for j, v := range gamma {
			row[fl.cols[i][j]] += v
		}
	}
}

// addTransitionCounts adds the pairwise posterior of the step from t-1
// (filtered belief prev) to t (lik = P(o_t | ·) β_t) to every b of dst:
// ξ(j', j) ∝ prev(j) T_u(j' | j) lik(j').
func (p *Past) addTransitionCounts(dst conc, prev, lik []float64, action int) {
	fl, m := p.fl, p.m
	p.ctrl = m.DecodeAction(p.ctrl, action)
	// T_u(j'|j) = Π_f B_f[c_f](s'_f | s_f).
	trans := func(jn, jp int) float64 {
		v := 1.0
		for fi := range m.factors {
			f := &m.factors[fi]
			v *= fl.b[fi][(p.ctrl[fi]*f.ns+fl.digits[fi][jn])*f.ns+fl.digits[fi][jp]]
			if v == 0 {
				return 0
			}
		}
		return v
	}
	z := 0.0
	if len(fl.xi) != fl.J*fl.J {
		fl.xi = make([]float64, fl.J*fl.J)
	}
	xi := fl.xi
	clear(xi)
	for jp, a := range prev {
		if a == 0 {
			continue
		}
		for jn, l := range lik {
			if l == 0 {
				continue
			}
			v := a * trans(jn, jp) * l
			xi[jn*fl.J+jp] = v
			z += v
		}
	}
	if !(z > 0) {
		return
	}
	for fi := range m.factors {
		b := dst.b[fi] // [next][prev][u]
		if b == nil {
			continue
		}
		f := &m.factors[fi]
		c := p.ctrl[fi]
		for jn := range fl.J {
			for jp := range fl.J {
				if v := xi[jn*fl.J+jp]; v != 0 {
					b[(fl.digits[fi][jn]*f.ns+fl.digits[fi][jp])*f.nu+c] += v / z
				}
			}
		}
	}
}

// digamma is expfam's ψ.
func digamma(x float64) float64 { return expfam.Digamma(x) }
