package pomdp

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/jsonread"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// Past is an agent's past and present as one ffg.Graph, the part of the
// generative model that both agents share (paper sections 4 and 6.1):
//
//	S_0 ~ Cat(D),  O_t | S_t ~ Cat(A),  S_(t+1) | S_t, U_t ~ Cat(B[U_t]),
//
// with the observations O_0..O_t and the actions U_0..U_(t-1) observed (an
// action that is not known, GrowMixed, is a hidden U_t with a prior), and,
// when the model has concentrations a, b or d, A, B or D Dirichlet
// variables of the graph with those priors (the agent learns them). With
// several factors and modalities every factor has its own chain of states,
// controls, B and D, and every modality its own observations, linked to the
// states of the factors it depends on by its A. Mean-field VMP over it
// (Infer) gives the posteriors Q(S_τ) (one per factor) and, with learning,
// the Dirichlet posteriors. The literal B, and an A over several factors,
// are floored at LogFloor (FloorColumns) so that a deterministic transition
// or outcome does not make mean-field inference undefined; an A over one
// factor is used as given.
//
// The agents add their own variables to Graph (aci the policy and
// precision, btai the planning tree) and remove them before the past grows.
// A Past is not safe for concurrent use; several may share a model. The
// zero Past is not usable (it has no model): make one with NewPast or
// NewPastWith. Its Reset returns an error.
type Past struct {
	m      *Model
	window int

	g     *ffg.Graph
	steps []pastStep // the kept steps; the last is the present
	t     int        // time index of the present

	facs []pastFactor
	mods []pastModality

	method PastInference
	fl     *filter       // exact filtering (PastFilter), nil otherwise
	ff     *factorFilter // factorised filtering (PastFactorised), nil otherwise

	// Learning across trials (SetLearning): η, ω, and the prior
	// concentrations of the trial as Reset found them, before Grow folds
	// any step into them.
	eta, omega float64
	start      conc
	prior      conc      // priorConc's lists
	recycle    bool      // RecycleExpected
	models     [2]*Model // expectedD's models in turn, when recycled
	flip       int       // the one expectedD writes next
	bound      conc      // lazyExpected's concentrations

	ctrl, outs []int // scratch: controls of an action, outcomes of an observation

	lazy     bool   // PastFilter without a window: the graph is built on first use (lazypast.go)
	started  bool   // a Reset has succeeded
	inferred []bool // lazy, before the graph is built: Infer set step k's posterior
	expected *Model // lazy, before the graph is built: ExpectedModel of the trial
}

// pastFactor is what the past holds for one hidden-state factor: its
// Dirichlet parameters over B and D (nil when fixed), their prior factors
// and concentrations (b in the graph's [next, prev, u] layout), and the
// floored literal B.
type pastFactor struct {
	bVar, dVar     *ffg.Variable
	bPrior, dPrior *ffg.FactorNode
	bAlpha, dAlpha []float64
	pastB          *nodes.Transition
}

// pastModality is what the past holds for one modality: the Dirichlet
// parameter over A (nil when fixed), its prior and the literal A.
type pastModality struct {
	aVar   *ffg.Variable
	aPrior *ffg.FactorNode
	aAlpha []float64
	pastA  *nodes.Transition
	shape  []int // [|O_m|, |S_f| for f in deps]
}

type pastStep struct {
	s, o, u []*ffg.Variable // per factor, per modality, per factor (u: the action taken after this step; nil for the present)
}

// NewPast returns the past of model m. window bounds the time steps kept in
// the graph: when the past grows beyond it, the oldest step is folded into
// a prior over the next state (Grow); 0 keeps every step.
func NewPast(m *Model, window int) (*Past, error) {
	return apiResult(NewPastWith(m, window, PastVMP))
}

// NewPastWith is NewPast with the past inferred by method: the paper's
// mean field (PastVMP, and PastDefault) or exact filtering (PastFilter;
// docs/pomdp.md, "Past inference"). With PastFilter the graph is there
// all the same (for the agents' own variables and for drawing it), but
// Infer sets the present state's posterior to the marginals of the exact
// filtered joint, and CarryOver learns from the smoothed episode; without
// a window it is built only when asked for (Graph, Present, States,
// FactorStates, Params, or Belief before Infer), the graph of every step
// so far, as it would have grown step by step (HasGraph).
func NewPastWith(m *Model, window int, method PastInference) (*Past, error) {
	if err := Check(m); err != nil {
		return nil, apiError(err)
	}
	if window < 0 || window == 1 {
		return nil, fmt.Errorf("pomdp: window %d, want 0 (keep everything) or >= 2", window)
	}
	if method == PastDefault {
		method = PastVMP
	}
	p := &Past{m: m, window: window, method: method, eta: 1, omega: 1, lazy: method == PastFilter && window == 0}
	if method == PastFilter {
		fl, err := newFilter(m)
		if err != nil {
			return nil, apiError(err)
		}
		p.fl = fl
	} else if method == PastFactorised {
		ff, err := newFactorFilter(m)
		if err != nil {
			return nil, apiError(err)
		}
		p.ff = ff
	} else if method != PastVMP {
		return nil, fmt.Errorf("pomdp: past inference %d: want PastVMP, PastFilter or PastFactorised", int(method))
	}
	for i := range m.factors {
		f := &m.factors[i]
		var pf pastFactor
		if f.concB != nil {
			pf.bAlpha = ToNPU(f.concB, f.ns, f.nu)
		}
		if f.concD != nil {
			pf.dAlpha = clone(f.concD)
		}
		// The graph's layout [next][prev][u] is a |S_f| × |S_f||U_f| matrix
		// whose columns (prev, u) are those of every B_u: flooring it there
		// floors the same columns with the same sums, and the model's B is
		// copied once instead of twice.
		fb := ToNPU(f.b, f.ns, f.nu)
		FloorColumns(fb, f.ns, f.ns*f.nu)
		var err error
		if pf.pastB, err = nodes.NewTransition(fb, []int{f.ns, f.ns, f.nu}); err != nil {
			return nil, fmt.Errorf("pomdp: %sB: %w", m.factorPrefix(i), err)
		}
		p.facs = append(p.facs, pf)
	}
	for i := range m.mods {
		md := &m.mods[i]
		pm := pastModality{shape: []int{md.no}}
		for _, f := range md.deps {
			pm.shape = append(pm.shape, m.factors[f].ns)
		}
		if md.concA != nil {
			pm.aAlpha = clone(md.concA)
		}
		// An A over several factors is floored like B: with a zero in it,
		// the mean-field message to one factor, E over the others of
		// ln A, is -Inf for every state while another factor's belief
		// still covers a state that cannot emit the observation.
		a := md.a
		if len(md.deps) > 1 {
			a = clone(md.a)
			FloorColumns(a, md.no, md.size)
		}
		var err error
		if pm.pastA, err = nodes.NewTransition(a, pm.shape); err != nil {
			return nil, fmt.Errorf("pomdp: %sA: %w", m.modalityPrefix(i), err)
		}
		p.mods = append(p.mods, pm)
	}
	return p, nil
}

// factorPrefix is "" for a single-factor model and `factor "name": `
// otherwise; modalityPrefix likewise.
func (m *Model) factorPrefix(f int) string {
	if !m.factorised {
		return ""
	}
	return fmt.Sprintf("factor %s: ", jsonread.Quote(m.factors[f].name))
}

func (m *Model) modalityPrefix(i int) string {
	if !m.factorised {
		return ""
	}
	return fmt.Sprintf("modality %s: ", jsonread.Quote(m.mods[i].name))
}

// label names a variable of the past: "S_3" in a single-factor model,
// "S₃[location]" with factors (figures draw S_3 as S₃ too).
func (p *Past) label(kind string, t int, name string) string {
	l := kind + "_" + strconv.Itoa(t)
	if !p.m.factorised {
		return l
	}
	return ffg.PrettyName(l) + "[" + name + "]"
}

// ToNPU turns x[u][next][prev] (the layout of B in a Spec) into
// y[next][prev][u], the layout of the graph's transition tensor (parents
// S_prev then U). It panics if ns or nu is negative or len(x) != ns·ns·nu:
// a programming error.
func ToNPU(x []float64, ns, nu int) []float64 {
	if ns < 0 || nu < 0 || len(x) != ns*ns*nu {
		badDims("ToNPU", "x", len(x), nu, ns, ns)
	}
	y := make([]float64, len(x))
	for u := range nu {
		for n := range ns {
			for p := range ns {
				y[(n*ns+p)*nu+u] = x[(u*ns+n)*ns+p]
			}
		}
	}
	return y
}

// FromNPU is the inverse of ToNPU. It panics as ToNPU does.
func FromNPU(y []float64, ns, nu int) []float64 {
	if ns < 0 || nu < 0 || len(y) != ns*ns*nu {
		badDims("FromNPU", "y", len(y), ns, ns, nu)
	}
	x := make([]float64, len(y))
	for u := range nu {
		for n := range ns {
			for p := range ns {
				x[(u*ns+n)*ns+p] = y[(n*ns+p)*nu+u]
			}
		}
	}
	return x
}

// Reset starts an episode with the first observation obs: a new graph
// holding the Dirichlet parameters (with the current prior concentrations),
// S_0 with its prior D and the observed O_0 (one per factor and modality).
// It does not run inference. An observation that the model cannot explain
// is an error wrapping ErrImpossibleObservation, and the past stays as it
// was.
func (p *Past) Reset(obs int) error {
	m := p.m
	if m == nil {
		return errors.New("pomdp: Past.Reset: the zero Past has no model (use NewPast)")
	}
	if obs < 0 || obs >= m.no {
		return fmt.Errorf("pomdp: Past.Reset: observation %d out of range [0, %d)", obs, m.no)
	}
	// An impossible observation is an error before anything changes.
	var alpha0 []float64
	var z0 float64
	var q0 []float64
	if p.fl != nil {
		var err error
		if alpha0, z0, err = p.filterStart(obs); err != nil {
			return apiError(err)
		}
	} else if p.ff != nil {
		var err error
		if q0, z0, err = p.factorStart(obs); err != nil {
			return apiError(err)
		}
	} else if err := p.vmpPossible(obs, 0); err != nil {
		return apiError(err)
	}
	p.saveStart()
	p.started = true
	if p.lazy {
		p.g = nil
		clear(p.steps)
		p.steps, p.t, p.expected = p.steps[:0], 0, nil
		p.inferred = append(p.inferred[:0], false)
	} else if err := p.startGraph(obs); err != nil {
		return apiError(err)
	}
	if p.fl != nil {
		p.filterReset(obs, alpha0, z0)
	}
	if p.ff != nil {
		p.ff.belief, p.ff.logZ, p.ff.hist = q0, z0, append(p.ff.hist[:0], q0)
	}
	return nil
}

// paperLetter is the label of a literal factor in figures: the paper's
// letter (D, A, B), with the factor's or modality's name in a factorised
// model ("A[where]"). A learned one is drawn as Cat(A) of its parameter.
func (p *Past) paperLetter(letter, name string) string {
	if !p.m.factorised {
		return letter
	}
	return letter + "[" + name + "]"
}

func (p *Past) paramName(kind, name string) string {
	if !p.m.factorised {
		return kind
	}
	return kind + "[" + name + "]"
}

func (p *Past) dirichlet(name string, alpha []float64, shape []int) (*ffg.Variable, *ffg.FactorNode, error) {
	v, err := p.g.AddVariable(name, expfam.DirichletFamily, shape...)
	if err != nil {
		return nil, nil, err
	}
	d, err := nodes.NewDirichlet(alpha, shape)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	f, err := p.g.AddFactor("", d, v)
	return v, f, err
}

// observe adds the observed O_t of every modality, linked through its A
// to the states s (one per factor) it depends on.
func (p *Past) observe(s []*ffg.Variable, obs, t int) ([]*ffg.Variable, error) {
	p.outs = p.m.DecodeObs(p.outs, obs)
	out := make([]*ffg.Variable, len(p.mods))
	for i := range p.mods {
		pm, md := &p.mods[i], &p.m.mods[i]
		o, err := p.g.AddVariable("", expfam.CategoricalFamily, md.no)
		if err != nil {
			return nil, err
		}
		o.Label, o.Cluster = p.label("O", t, md.name), "past"
		if err := o.Observe(p.outs[i]); err != nil {
			return nil, err
		}
		vars := []*ffg.Variable{o}
		for _, f := range md.deps {
			vars = append(vars, s[f])
		}
		if pm.aVar != nil {
			tr, _ := nodes.NewTransitionDirichlet(pm.shape)
			_, err = p.g.AddFactor("", tr, append(vars, pm.aVar)...)
		} else {
			var fn *ffg.FactorNode
			if fn, err = p.g.AddFactor("", pm.pastA, vars...); err == nil {
				fn.Label = p.paperLetter("A", md.name)
			}
		}
		if err != nil {
			return nil, err
		}
		out[i] = o
	}
	return out, nil
}

// Grow records the action taken at the present step and the observation
// that followed: the graph grows by the observed U_t, the state S_(t+1)
// linked to S_t and U_t through B (one of each per factor), and the
// observed O_(t+1) (one per modality). When the kept steps exceed the
// window, the oldest is folded into a prior over the next state: the VMP
// message it sends (B̊ ⊙ [Q(S_old), Q(U_old)]) becomes a categorical
// prior, and its expected counts are added to the Dirichlet priors, so
// nothing it taught is lost while memory and time per step stay bounded.
// It does not run inference. An observation that the model cannot explain
// is an error wrapping ErrImpossibleObservation, and the past stays as it
// was. GrowMixed is Grow for an action that is not known.
func (p *Past) Grow(action, obs int) error {
	m := p.m
	if !p.started {
		return errors.New("pomdp: Grow before Reset")
	}
	if action < 0 || action >= m.nu {
		return fmt.Errorf("pomdp: Grow: action %d out of range [0, %d)", action, m.nu)
	}
	if obs < 0 || obs >= m.no {
		return fmt.Errorf("pomdp: Grow: observation %d out of range [0, %d)", obs, m.no)
	}
	return apiError(p.grow(action, nil, obs))
}

// grow is Grow of the known action (probs nil) or GrowMixed of the action
// distributed as probs (action -1), both checked.
func (p *Past) grow(action int, probs []float64, obs int) error {
	// An impossible observation is an error before anything changes.
	if p.fl != nil {
		if err := p.filterGrow(action, probs, obs); err != nil {
			return err
		}
	} else if p.ff != nil {
		if err := p.factorGrow(action, probs, obs); err != nil {
			return err
		}
	} else if err := p.vmpPossible(obs, p.t+1); err != nil {
		return err
	}
	if p.lazy && p.g == nil {
		p.t++
		p.inferred = append(p.inferred, false)
		return nil
	}
	return p.growGraph(action, probs, obs)
}

// fold removes the oldest kept step (see Grow). A hidden U_old (GrowMixed)
// enters the message through its posterior Q(U_old), as S_old does, and
// goes with its prior.
func (p *Past) fold() error {
	if p.fl != nil {
		p.filterFold()
	}
	old, next := p.steps[0], p.steps[1]
	priors := make([][]float64, len(p.facs))
	for i := range p.facs {
		ns := p.m.factors[i].ns
		msg := make([]float64, ns)
		// The transition from the oldest state of this factor to the next.
		var toNext *ffg.FactorNode
		for _, f := range next.s[i].Neighbors(nil) {
			vs := f.Variables()
			if len(vs) >= 3 && vs[0] == next.s[i] && vs[1] == old.s[i] {
				toNext = f
			}
		}
		if toNext == nil {
			return errors.New("fold: transition to the next state not found")
		}
		if err := toNext.Message(msg, 0); err != nil {
			return err
		}
		priors[i] = make([]float64, ns)
		expfam.Softmax(priors[i], msg)
	}
	// Dirichlet counts from every factor of the old step, each once (an A
	// factor is a neighbour of both S_old and O_old). Exact filtering
	// learns from the whole episode at CarryOver instead.
	seen := map[*ffg.FactorNode]bool{}
	if p.fl != nil {
		seen = nil
	}
	var olds []*ffg.Variable
	for _, group := range [][]*ffg.Variable{old.s, old.o} {
		if seen == nil {
			break
		}
		for _, v := range group {
			for _, f := range v.Neighbors(nil) {
				if !seen[f] {
					seen[f] = true
					p.foldCounts(f)
				}
			}
		}
	}
	olds = append(append(append(olds, old.s...), old.o...), old.u...)
	p.g.RemoveVariables(olds...)
	for i, q := range priors {
		c, err := nodes.NewCategorical(q)
		if err != nil {
			return fmt.Errorf("fold: %w", err)
		}
		if _, err := p.g.AddFactor("", c, next.s[i]); err != nil {
			return err
		}
	}
	p.steps = append(p.steps[:0], p.steps[1:]...)
	return p.refreshPriors()
}

// foldCounts adds the expected counts that factor f sends to a Dirichlet
// parameter to that parameter's prior concentrations.
func (p *Past) foldCounts(f *ffg.FactorNode) {
	for k, v := range f.Variables() {
		if v.Family() != expfam.DirichletFamily || k == 0 {
			continue
		}
		counts := make([]float64, len(v.Stats()))
		if f.Message(counts, k) != nil {
			continue
		}
		dst := p.alphaOf(v)
		for i, c := range counts {
			dst[i] += c
		}
	}
}

// alphaOf returns the prior concentrations of the Dirichlet variable v.
func (p *Past) alphaOf(v *ffg.Variable) []float64 {
	for i := range p.mods {
		if p.mods[i].aVar == v {
			return p.mods[i].aAlpha
		}
	}
	for i := range p.facs {
		switch v {
		case p.facs[i].bVar:
			return p.facs[i].bAlpha
		case p.facs[i].dVar:
			return p.facs[i].dAlpha
		}
	}
	return nil
}

type paramRef struct {
	v     *ffg.Variable
	f     **ffg.FactorNode
	alpha []float64
}

// params lists the Dirichlet parameters: every modality's A, then every
// factor's B, then every factor's D.
func (p *Past) params() []paramRef {
	var out []paramRef
	for i := range p.mods {
		out = append(out, paramRef{p.mods[i].aVar, &p.mods[i].aPrior, p.mods[i].aAlpha})
	}
	for i := range p.facs {
		out = append(out, paramRef{p.facs[i].bVar, &p.facs[i].bPrior, p.facs[i].bAlpha})
	}
	for i := range p.facs {
		out = append(out, paramRef{p.facs[i].dVar, &p.facs[i].dPrior, p.facs[i].dAlpha})
	}
	return out
}

// refreshPriors rebuilds the Dirichlet prior factors from the (folded)
// prior concentrations, keeping the posteriors.
func (p *Past) refreshPriors() error {
	for _, d := range p.params() {
		if d.v == nil {
			continue
		}
		post := clone(d.v.Alpha())
		p.g.RemoveFactor(*d.f)
		prior, err := nodes.NewDirichlet(d.alpha, d.v.Shape())
		if err != nil {
			return err
		}
		if *d.f, err = p.g.AddFactor("", prior, d.v); err != nil {
			return err
		}
		// Binding a prior resets the posterior to it; keep the posterior.
		if err := d.v.SetAlpha(post); err != nil {
			return err
		}
	}
	return nil
}

// Infer runs global VMP on the graph with settings (whatever else the
// agent has added to it takes part).
//
// With PastFilter it sets the present state's posterior to the marginals
// of the exact filtered joint instead, and returns F = -ln Z, Z the
// normaliser of the filter: the exact -ln p(o_0..o_t | actions) when A, B
// and D are fixed; with learned parameters the filter runs under their
// geometric means exp E[ln θ], and -ln Z is not the marginal likelihood
// under the Dirichlet priors (docs/aci.md, "The free energy of the past").
func (p *Past) Infer(ctx context.Context, settings *schedule.Settings) (*schedule.Result, error) {
	if !p.started {
		return nil, errors.New("pomdp: Infer before Reset")
	}
	if p.fl != nil {
		if ctx != nil {
			if err := ctx.Err(); err != nil {
				return nil, apiError(err)
			}
		}
		return apiResult(p.filterInfer())
	}
	if p.ff != nil {
		if ctx != nil {
			if err := ctx.Err(); err != nil {
				return nil, apiError(err)
			}
		}
		return apiResult(p.factorInfer())
	}
	return apiResult(schedule.Run(ctx, p.g, settings))
}

// InferInto is Infer writing the result into res, whose FreeEnergy slice
// it reuses when its capacity suffices: exact filtering (PastFilter,
// PastFactorised) then allocates nothing, for a caller that infers at
// every step and keeps no result (a replay scoring recorded choices).
// PastVMP runs Infer and copies its result. On an error res is left as
// it was.
func (p *Past) InferInto(ctx context.Context, settings *schedule.Settings, res *schedule.Result) error {
	if res == nil {
		return errors.New("pomdp: InferInto: nil result")
	}
	return apiError(p.inferTo(ctx, settings, res))
}

// Update is Infer with the default settings, keeping no result: the
// present state's posterior is set (Belief), and exact filtering
// (PastFilter, PastFactorised) allocates nothing, for a caller that reads
// the belief and not F (si's agent).
func (p *Past) Update(ctx context.Context) error {
	return apiError(p.inferTo(ctx, nil, nil))
}

// inferTo is InferInto, and Update when res is nil; its callers give
// its errors the package prefix.
func (p *Past) inferTo(ctx context.Context, settings *schedule.Settings, res *schedule.Result) error {
	if p.fl == nil && p.ff == nil {
		r, err := p.Infer(ctx, settings)
		if err != nil {
			return err
		}
		if res != nil {
			*res = *r
		}
		return nil
	}
	if !p.started {
		return errors.New("pomdp: Infer before Reset")
	}
	if ctx != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	logZ := 0.0
	if p.fl != nil {
		if err := p.filterPresent(); err != nil {
			return err
		}
		logZ = p.fl.logZ
	} else {
		if err := p.factorPresent(); err != nil {
			return err
		}
		logZ = p.ff.logZ
	}
	if res != nil {
		*res = schedule.Result{Iterations: 1, Converged: true, FreeEnergy: append(res.FreeEnergy[:0], -logZ)}
	}
	return nil
}

// CarryOver ends the trial: it makes the trial's Dirichlet posteriors the
// prior concentrations of the next trial (empirical priors, paper section
// 4.1). The posteriors are the priors plus the trial's expected counts
//
//	Δa = Σ_τ o_τ ⊗ Q(S_τ),  Δb_u = Σ_τ [u_τ = u] Q(S_(τ+1)) ⊗ Q(S_τ),  Δd = Q(S_0)
//
// (per modality and factor) as VMP computes them, the steps folded out of
// a window included. With PastFilter the counts are the same sums over the
// smoothed (forward-backward) posteriors of the trial under the
// geometric-mean parameters exp E[ln θ] of the trial's priors, and the
// pairwise posterior of consecutive states for Δb; they are counted once
// (a second CarryOver adds nothing). The next priors are
//
//	c' = ω c + η Δc
//
// with c the priors the trial started from (Reset) and η, ω those of
// SetLearning; with the defaults η = ω = 1, c' is the posterior itself,
// a' = a + Σ_τ o_τ ⊗ Q(S_τ) and so on. Without learning it does nothing.
func (p *Past) CarryOver() {
	if p.fl != nil {
		_ = p.filterCarryOver()
		return
	}
	p.carry(p.vmpPosteriors())
}

// Learning reports whether any parameter is learned (false for the zero
// Past).
func (p *Past) Learning() bool {
	if p.m == nil {
		return false
	}
	a, b, d := p.m.Learnable()
	return a || b || d
}

// ExpectedModel returns the model with every learned A, B and D replaced
// by the expectation of its current Dirichlet posterior (and the posterior
// concentrations kept, for the novelty term), or the model itself when
// nothing is learned or before Reset. The zero Past is an error.
func (p *Past) ExpectedModel() (*Model, error) {
	if p.m == nil {
		return nil, errors.New("pomdp: ExpectedModel: the zero Past has no model (use NewPast)")
	}
	if !p.Learning() || !p.started {
		return p.m, nil
	}
	if p.g == nil {
		return apiResult(p.lazyExpected())
	}
	return apiResult(p.expectedFrom(p.vmpPosteriors()))
}

// expectedFrom is ExpectedModel with the Dirichlet posteriors post (nil
// where a parameter is not learned).
func (p *Past) expectedFrom(post conc) (*Model, error) {
	if onlyD(post) {
		return p.expectedD(post), nil
	}
	m := *p.m
	m.factors = append([]factor(nil), p.m.factors...)
	m.mods = append([]modality(nil), p.m.mods...)
	for i := range m.mods {
		if al := post.a[i]; al != nil {
			md := &m.mods[i]
			md.concA = clone(al)
			md.a = expectation(md.concA, []int{md.no, len(md.concA) / md.no})
		}
	}
	for i := range m.factors {
		f := &m.factors[i]
		if al := post.b[i]; al != nil {
			f.concB = FromNPU(al, f.ns, f.nu)
			f.b = expectation(f.concB, []int{f.nu, f.ns, f.ns})
		}
		if al := post.d[i]; al != nil {
			f.concD = clone(al)
			f.d = expectation(f.concD, []int{f.ns})
		}
	}
	m.work, m.valid = 0, false
	if err := m.finish(); err != nil {
		return nil, fmt.Errorf("learned parameters: %w", err)
	}
	return &m, nil
}

// PlanningModel returns the model a planner reads from the present
// belief: ExpectedModel when A or B is learned, otherwise the Past's own
// model. A plan reads A, B and C and starts from the present belief, never
// from D, and the expected model of one that learns D alone shares A, B
// and C with the model: the same plan, without making that expected model
// at each call. The zero Past is an error.
func (p *Past) PlanningModel() (*Model, error) {
	if p.m == nil {
		return nil, errors.New("pomdp: PlanningModel: the zero Past has no model (use NewPast)")
	}
	if a, b, _ := p.m.Learnable(); !a && !b {
		return p.m, nil
	}
	return apiResult(p.ExpectedModel())
}

// Graph returns the graph (nil before Reset). With PastFilter and no
// window the first call of a trial builds it (see NewPastWith).
func (p *Past) Graph() *ffg.Graph {
	p.ensureGraph()
	return p.g
}

// Time returns t, the time index of the present step.
func (p *Past) Time() int { return p.t }

// Present returns S_t, the present state (of the first factor); nil
// before Reset.
func (p *Past) Present() *ffg.Variable {
	p.ensureGraph()
	if len(p.steps) == 0 {
		return nil
	}
	return p.steps[len(p.steps)-1].s[0]
}

// Belief returns Q(S_t), the posterior over the present state: every
// factor's marginal, one after the other (a new slice); nil before Reset.
func (p *Past) Belief() []float64 { return p.BeliefInto(nil) }

// BeliefInto is Belief written into dst, which is reused when its
// capacity suffices (nil before Reset).
func (p *Past) BeliefInto(dst []float64) []float64 {
	if !p.started {
		return nil
	}
	if p.lazy && p.g == nil {
		if p.inferred[len(p.inferred)-1] {
			return p.marginals(dst, p.fl.alpha)
		}
		p.ensureGraph()
	}
	out := dst[:0]
	if cap(out) < p.m.ns {
		out = make([]float64, 0, p.m.ns)
	}
	for _, s := range p.steps[len(p.steps)-1].s {
		out = append(out, s.Probs()...)
	}
	return out
}

// Smoothed returns the posterior marginals Q(S_τ) of every kept step, τ
// oldest first, each the concatenation of every factor's marginal (new
// slices, laid out as Belief): PastFilter gives the exact smoothed
// (forward-backward) marginals given every observation of the trial so far
// (the joint posterior over the joint state marginalised per factor; the
// last is the filtered belief of the present), Infer need not run first;
// PastVMP the graph's current mean-field posteriors (after the last
// Infer), those of FactorStates. Before Reset it returns nil. After
// CarryOver it still describes the trial, until the next Reset.
//
// Without learning, PastFilter keeps the observations and actions of the
// kept steps and the filtered belief of the oldest, and redoes the forward
// pass on each call (time O(kept steps · joint states · Σ_f |S_f|)).
func (p *Past) Smoothed() [][]float64 {
	if !p.started {
		return nil
	}
	if p.fl != nil {
		return p.filterSmoothed()
	}
	if p.ff != nil {
		return p.factorSmoothed()
	}
	out := make([][]float64, len(p.steps))
	for k, st := range p.steps {
		q := make([]float64, 0, p.m.ns)
		for _, s := range st.s {
			q = append(q, s.Probs()...)
		}
		out[k] = q
	}
	return out
}

// States returns the kept states (of the first factor), oldest first (all
// of S_0..S_t without a window); the slice is the caller's, the variables
// are the graph's.
func (p *Past) States() []*ffg.Variable { return p.FactorStates(0) }

// FactorStates returns the kept states of factor f, oldest first (none
// before Reset). It panics if f is out of range [0, NumFactors()) of the
// model.
func (p *Past) FactorStates(f int) []*ffg.Variable {
	if p.m != nil {
		p.m.factorAt("FactorStates", f)
	}
	p.ensureGraph()
	out := make([]*ffg.Variable, len(p.steps))
	for i, st := range p.steps {
		out[i] = st.s[f]
	}
	return out
}

// Kept returns the number of time steps kept in the graph.
func (p *Past) Kept() int {
	if p.lazy && p.g == nil && p.started {
		return len(p.fl.obs)
	}
	return len(p.steps)
}

// Params returns the Dirichlet variables of A, B and D (of the first
// modality and factor; nil for a parameter that is not learned). B's tensor
// is in the graph's [next, prev, u] layout. The zero Past has none.
func (p *Past) Params() (a, b, d *ffg.Variable) {
	if p.m == nil {
		return nil, nil, nil
	}
	p.ensureGraph()
	return p.mods[0].aVar, p.facs[0].bVar, p.facs[0].dVar
}

// Priors returns the prior concentrations of the first modality's A and
// the first factor's B and D only (copies), in the layouts of the model
// file, flattened: a[o][s_1]...[s_k] over the first modality's factors
// (a[o][s] for a single-factor Spec), b[u][next][prev], d[s]; after
// CarryOver these are the learned ones. A parameter that is not learned is
// nil. The other modalities and factors are left out, learned or not:
// Concentrations returns every one (Priors is its A[0], B[0], D[0]). The
// zero Past has none.
func (p *Past) Priors() (a, b, d []float64) {
	if p.m == nil {
		return nil, nil, nil
	}
	f := &p.m.factors[0]
	if p.facs[0].bAlpha != nil {
		b = FromNPU(p.facs[0].bAlpha, f.ns, f.nu)
	}
	return clone(p.mods[0].aAlpha), b, clone(p.facs[0].dAlpha)
}

// Method returns how the past is inferred.
func (p *Past) Method() PastInference { return p.method }
