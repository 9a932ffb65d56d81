package pomdp

import (
	"context"
	"errors"
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// Past is an agent's past and present as one ffg.Graph, the part of the
// generative model that both agents share (paper sections 4 and 6.1):
//
//	S_0 ~ Cat(D),  O_t | S_t ~ Cat(A),  S_(t+1) | S_t, U_t ~ Cat(B[U_t]),
//
// with the observations O_0..O_t and the actions U_0..U_(t-1) observed, and,
// when the model has concentrations a, b or d, A, B or D Dirichlet
// variables of the graph with those priors (the agent learns them).
// Mean-field VMP over it (Infer) gives the posteriors Q(S_τ) and, with
// learning, the Dirichlet posteriors. The literal B is floored at LogFloor
// (FloorColumns) so that a deterministic transition does not make mean-field
// inference undefined; A is used as given.
//
// The agents add their own variables to Graph (aci the policy and
// precision, btai the planning tree) and remove them before the past grows.
// A Past is not safe for concurrent use.
type Past struct {
	m          *Model
	ns, no, nu int
	window     int

	g     *ffg.Graph
	steps []pastStep // the kept steps; the last is the present
	t     int        // time index of the present

	// Dirichlet parameters (nil when fixed), their prior factors and the
	// prior concentrations (b in the graph's [next, prev, u] layout).
	aVar, bVar, dVar       *ffg.Variable
	aPrior, bPrior, dPrior *ffg.FactorNode
	aAlpha, bAlpha, dAlpha []float64

	pastA, pastB *nodes.Transition
}

type pastStep struct {
	s, o, u *ffg.Variable // u is the action taken after this step (nil for the present)
}

// NewPast returns the past of model m. window bounds the time steps kept in
// the graph: when the past grows beyond it, the oldest step is folded into
// a prior over the next state (Grow); 0 keeps every step.
func NewPast(m *Model, window int) (*Past, error) {
	if err := Check(m); err != nil {
		return nil, err
	}
	if window < 0 || window == 1 {
		return nil, fmt.Errorf("window %d, want 0 (keep everything) or >= 2", window)
	}
	p := &Past{m: m, ns: m.ns, no: m.no, nu: m.nu, window: window}
	if m.concA != nil {
		p.aAlpha = clone(m.concA)
	}
	if m.concB != nil {
		p.bAlpha = ToNPU(m.concB, m.ns, m.nu)
	}
	if m.concD != nil {
		p.dAlpha = clone(m.concD)
	}
	var err error
	if p.pastA, err = nodes.NewTransition(m.a, []int{m.no, m.ns}); err != nil {
		return nil, fmt.Errorf("A: %w", err)
	}
	fb := clone(m.b)
	for u := range m.nu {
		FloorColumns(fb[u*m.ns*m.ns:(u+1)*m.ns*m.ns], m.ns, m.ns)
	}
	if p.pastB, err = nodes.NewTransition(ToNPU(fb, m.ns, m.nu), []int{m.ns, m.ns, m.nu}); err != nil {
		return nil, fmt.Errorf("B: %w", err)
	}
	return p, nil
}

// ToNPU turns x[u][next][prev] (the layout of B in a Spec) into
// y[next][prev][u], the layout of the graph's transition tensor (parents
// S_prev then U).
func ToNPU(x []float64, ns, nu int) []float64 {
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

// FromNPU is the inverse of ToNPU.
func FromNPU(y []float64, ns, nu int) []float64 {
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
// S_0 with its prior D and the observed O_0. It does not run inference.
func (p *Past) Reset(obs int) error {
	if obs < 0 || obs >= p.no {
		return fmt.Errorf("observation %d out of range [0, %d)", obs, p.no)
	}
	p.g = ffg.New()
	clear(p.steps)
	p.steps = p.steps[:0]
	p.t = 0
	p.aVar, p.bVar, p.dVar = nil, nil, nil
	var err error
	if p.aAlpha != nil {
		if p.aVar, p.aPrior, err = p.dirichlet("A", p.aAlpha, []int{p.no, p.ns}); err != nil {
			return err
		}
	}
	if p.bAlpha != nil {
		if p.bVar, p.bPrior, err = p.dirichlet("B", p.bAlpha, []int{p.ns, p.ns, p.nu}); err != nil {
			return err
		}
	}
	if p.dAlpha != nil {
		if p.dVar, p.dPrior, err = p.dirichlet("D", p.dAlpha, []int{p.ns}); err != nil {
			return err
		}
	}
	s, err := p.g.AddVariable("S_0", expfam.CategoricalFamily, p.ns)
	if err != nil {
		return err
	}
	s.Cluster = "past"
	if p.dVar != nil {
		c, _ := nodes.NewCategoricalDirichlet(p.ns)
		_, err = p.g.AddFactor("", c, s, p.dVar)
	} else {
		var c *nodes.Categorical
		if c, err = nodes.NewCategorical(p.m.d); err == nil {
			_, err = p.g.AddFactor("", c, s)
		}
	}
	if err != nil {
		return fmt.Errorf("D: %w", err)
	}
	o, err := p.observe(s, obs, 0)
	if err != nil {
		return err
	}
	p.steps = append(p.steps, pastStep{s: s, o: o})
	return nil
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

// observe adds the observed O_t linked to s through A.
func (p *Past) observe(s *ffg.Variable, obs, t int) (*ffg.Variable, error) {
	o, err := p.g.AddVariable("", expfam.CategoricalFamily, p.no)
	if err != nil {
		return nil, err
	}
	o.Label, o.Cluster = fmt.Sprintf("O_%d", t), "past"
	if err := o.Observe(obs); err != nil {
		return nil, err
	}
	if p.aVar != nil {
		tr, _ := nodes.NewTransitionDirichlet([]int{p.no, p.ns})
		_, err = p.g.AddFactor("", tr, o, s, p.aVar)
	} else {
		_, err = p.g.AddFactor("", p.pastA, o, s)
	}
	return o, err
}

// Grow records the action taken at the present step and the observation
// that followed: the graph grows by the observed U_t, the state S_(t+1)
// linked to S_t and U_t through B, and the observed O_(t+1). When the
// kept steps exceed the window, the oldest is folded into a prior over the
// next state: the VMP message it sends (B̊ ⊙ [Q(S_old), U_old]) becomes a
// categorical prior, and its expected counts are added to the Dirichlet
// priors, so nothing it taught is lost while memory and time per step stay
// bounded. It does not run inference.
func (p *Past) Grow(action, obs int) error {
	if p.g == nil {
		return errors.New("Grow before Reset")
	}
	if action < 0 || action >= p.nu {
		return fmt.Errorf("action %d out of range [0, %d)", action, p.nu)
	}
	if obs < 0 || obs >= p.no {
		return fmt.Errorf("observation %d out of range [0, %d)", obs, p.no)
	}
	prev := &p.steps[len(p.steps)-1]
	u, err := p.g.AddVariable("", expfam.CategoricalFamily, p.nu)
	if err != nil {
		return err
	}
	u.Label, u.Cluster = fmt.Sprintf("U_%d", p.t), "past"
	if err := u.Observe(action); err != nil {
		return err
	}
	prev.u = u
	p.t++
	s, err := p.g.AddVariable("", expfam.CategoricalFamily, p.ns)
	if err != nil {
		return err
	}
	s.Label, s.Cluster = fmt.Sprintf("S_%d", p.t), "past"
	if p.bVar != nil {
		tr, _ := nodes.NewTransitionDirichlet([]int{p.ns, p.ns, p.nu})
		_, err = p.g.AddFactor("", tr, s, prev.s, u, p.bVar)
	} else {
		_, err = p.g.AddFactor("", p.pastB, s, prev.s, u)
	}
	if err != nil {
		return err
	}
	o, err := p.observe(s, obs, p.t)
	if err != nil {
		return err
	}
	p.steps = append(p.steps, pastStep{s: s, o: o})
	if p.window > 0 && len(p.steps) > p.window {
		return p.fold()
	}
	return nil
}

// fold removes the oldest kept step (see Grow).
func (p *Past) fold() error {
	old, next := p.steps[0], p.steps[1]
	msg := make([]float64, p.ns)
	// The oldest step's factors: its prior (if any), its observation
	// factor, and the transition to the next state.
	var toNext *ffg.FactorNode
	for _, f := range next.s.Neighbors(nil) {
		vs := f.Variables()
		if len(vs) >= 3 && vs[0] == next.s && vs[1] == old.s {
			toNext = f
		}
	}
	if toNext == nil {
		return errors.New("fold: transition to the next state not found")
	}
	if err := toNext.Message(msg, 0); err != nil {
		return err
	}
	q := make([]float64, p.ns)
	expfam.Softmax(q, msg)
	// Dirichlet counts from every factor of the old step, each once (the
	// A factor is a neighbour of both S_old and O_old).
	seen := map[*ffg.FactorNode]bool{}
	for _, v := range []*ffg.Variable{old.s, old.o} {
		for _, f := range v.Neighbors(nil) {
			if !seen[f] {
				seen[f] = true
				p.foldCounts(f)
			}
		}
	}
	p.g.RemoveVariables(old.s, old.o, old.u)
	c, err := nodes.NewCategorical(q)
	if err != nil {
		return fmt.Errorf("fold: %w", err)
	}
	if _, err := p.g.AddFactor("", c, next.s); err != nil {
		return err
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
		var dst []float64
		switch v {
		case p.aVar:
			dst = p.aAlpha
		case p.bVar:
			dst = p.bAlpha
		case p.dVar:
			dst = p.dAlpha
		}
		for i, c := range counts {
			dst[i] += c
		}
	}
}

// refreshPriors rebuilds the Dirichlet prior factors from the (folded)
// prior concentrations, keeping the posteriors.
func (p *Past) refreshPriors() error {
	for _, d := range []struct {
		v     *ffg.Variable
		f     **ffg.FactorNode
		alpha []float64
	}{{p.aVar, &p.aPrior, p.aAlpha}, {p.bVar, &p.bPrior, p.bAlpha}, {p.dVar, &p.dPrior, p.dAlpha}} {
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
func (p *Past) Infer(ctx context.Context, settings *schedule.Settings) (*schedule.Result, error) {
	if p.g == nil {
		return nil, errors.New("Infer before Reset")
	}
	return schedule.Run(ctx, p.g, settings)
}

// CarryOver makes the current Dirichlet posteriors the prior concentrations
// of the next episode (empirical priors, paper section 4.1): with
//
//	a' = a + Σ_τ o_τ ⊗ Q(S_τ),  b'_u = b_u + Σ_τ [u_τ = u] Q(S_(τ+1)) ⊗ Q(S_τ),  d' = d + Q(S_0)
//
// as VMP computes them. Without learning it does nothing.
func (p *Past) CarryOver() {
	if p.aVar != nil {
		copy(p.aAlpha, p.aVar.Alpha())
	}
	if p.bVar != nil {
		copy(p.bAlpha, p.bVar.Alpha())
	}
	if p.dVar != nil {
		copy(p.dAlpha, p.dVar.Alpha())
	}
}

// Graph returns the graph (nil before Reset).
func (p *Past) Graph() *ffg.Graph { return p.g }

// Time returns t, the time index of the present step.
func (p *Past) Time() int { return p.t }

// Present returns S_t, the present state.
func (p *Past) Present() *ffg.Variable { return p.steps[len(p.steps)-1].s }

// States returns the kept states, oldest first (all of S_0..S_t without a
// window); the slice is the caller's, the variables are the graph's.
func (p *Past) States() []*ffg.Variable {
	out := make([]*ffg.Variable, len(p.steps))
	for i, st := range p.steps {
		out[i] = st.s
	}
	return out
}

// Kept returns the number of time steps kept in the graph.
func (p *Past) Kept() int { return len(p.steps) }

// Params returns the Dirichlet variables of A, B and D (nil for a parameter
// that is not learned). B's tensor is in the graph's [next, prev, u]
// layout.
func (p *Past) Params() (a, b, d *ffg.Variable) { return p.aVar, p.bVar, p.dVar }

// Priors returns the prior concentrations of the current episode in the
// layouts of a Spec (a[o][s], b[u][next][prev], d[s], flattened; copies);
// after CarryOver these are the learned ones. A parameter that is not
// learned is nil.
func (p *Past) Priors() (a, b, d []float64) {
	if p.bAlpha != nil {
		b = FromNPU(p.bAlpha, p.ns, p.nu)
	}
	return clone(p.aAlpha), b, clone(p.dAlpha)
}
