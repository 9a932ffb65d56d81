package pomdp

import (
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

// Exact filtering without a window (the default of aci's replay and fit)
// never reads the graph of the past: its belief, evidence, smoothing and
// learning live in the filter. Such a Past keeps no graph until something
// asks for one (Graph, Present, States, FactorStates, Params, or Belief
// before Infer): ensureGraph then builds the graph of the trial so far from
// the filter's record, as Reset and Grow would have built it step by step,
// with the posterior of every step at which Infer ran set to the filtered
// marginals it set then, and from there on the past grows its graph as
// any other.

// startGraph is the graph that Reset starts: the Dirichlet parameters
// (with the prior concentrations the trial started from), S_0 with its
// prior D and the observed O_0.
func (p *Past) startGraph(obs int) error {
	m := p.m
	p.g = ffg.New()
	clear(p.steps)
	p.steps = p.steps[:0]
	p.t = 0
	var err error
	for i := range p.mods {
		pm := &p.mods[i]
		pm.aVar = nil
		if p.start.a[i] != nil {
			if pm.aVar, pm.aPrior, err = p.dirichlet(p.paramName("A", m.mods[i].name), p.start.a[i], pm.shape); err != nil {
				return err
			}
		}
	}
	for i := range p.facs {
		pf, f := &p.facs[i], &m.factors[i]
		pf.bVar = nil
		if p.start.b[i] != nil {
			if pf.bVar, pf.bPrior, err = p.dirichlet(p.paramName("B", f.name), p.start.b[i], []int{f.ns, f.ns, f.nu}); err != nil {
				return err
			}
		}
	}
	for i := range p.facs {
		pf, f := &p.facs[i], &m.factors[i]
		pf.dVar = nil
		if p.start.d[i] != nil {
			if pf.dVar, pf.dPrior, err = p.dirichlet(p.paramName("D", f.name), p.start.d[i], []int{f.ns}); err != nil {
				return err
			}
		}
	}
	st := pastStep{s: make([]*ffg.Variable, len(p.facs))}
	for i := range p.facs {
		pf, f := &p.facs[i], &m.factors[i]
		s, err := p.g.AddVariable(p.label("S", 0, f.name), expfam.CategoricalFamily, f.ns)
		if err != nil {
			return err
		}
		s.Cluster = "past"
		if pf.dVar != nil {
			c, _ := nodes.NewCategoricalDirichlet(f.ns)
			_, err = p.g.AddFactor("", c, s, pf.dVar)
		} else {
			var c *nodes.Categorical
			if c, err = nodes.NewCategorical(f.d); err == nil {
				var fn *ffg.FactorNode
				if fn, err = p.g.AddFactor("", c, s); err == nil {
					fn.Label = p.paperLetter("D", f.name)
				}
			}
		}
		if err != nil {
			return fmt.Errorf("%sD: %w", m.factorPrefix(i), err)
		}
		st.s[i] = s
	}
	if st.o, err = p.observe(st.s, obs, 0); err != nil {
		return err
	}
	p.steps = append(p.steps, st)
	return nil
}

// growGraph is the graph part of grow: the action (known, or distributed
// as probs) and the next observation obs.
func (p *Past) growGraph(action int, probs []float64, obs int) error {
	m := p.m
	prev := &p.steps[len(p.steps)-1]
	if probs == nil {
		p.ctrl = m.DecodeAction(p.ctrl, action)
	}
	prev.u = make([]*ffg.Variable, len(p.facs))
	st := pastStep{s: make([]*ffg.Variable, len(p.facs))}
	for i := range p.facs {
		pf, f := &p.facs[i], &m.factors[i]
		u, err := p.g.AddVariable("", expfam.CategoricalFamily, f.nu)
		if err != nil {
			return err
		}
		u.Label, u.Cluster = p.label("U", p.t, f.name), "past"
		switch {
		case probs == nil:
			err = u.Observe(p.ctrl[i])
		case f.nu == 1:
			err = u.Observe(0)
		default:
			err = p.hiddenControl(u, probs, i)
		}
		if err != nil {
			return err
		}
		prev.u[i] = u
		s, err := p.g.AddVariable("", expfam.CategoricalFamily, f.ns)
		if err != nil {
			return err
		}
		s.Label, s.Cluster = p.label("S", p.t+1, f.name), "past"
		if pf.bVar != nil {
			tr, _ := nodes.NewTransitionDirichlet([]int{f.ns, f.ns, f.nu})
			_, err = p.g.AddFactor("", tr, s, prev.s[i], u, pf.bVar)
		} else {
			var fn *ffg.FactorNode
			if fn, err = p.g.AddFactor("", pf.pastB, s, prev.s[i], u); err == nil {
				fn.Label = p.paperLetter("B", f.name)
			}
		}
		if err != nil {
			return err
		}
		st.s[i] = s
	}
	p.t++
	var err error
	if st.o, err = p.observe(st.s, obs, p.t); err != nil {
		return err
	}
	p.steps = append(p.steps, st)
	if p.window > 0 && len(p.steps) > p.window {
		return p.fold()
	}
	return nil
}

// HasGraph reports whether the graph of the past exists now, without
// building it: false before Reset, and with PastFilter without a window
// until something asks for the graph.
func (p *Past) HasGraph() bool { return p.g != nil }

// ensureGraph builds the graph of a lazy Past that has none yet (see the
// top of this file).
func (p *Past) ensureGraph() {
	if !p.lazy || p.g != nil || !p.started {
		return
	}
	fl := p.fl
	if err := p.startGraph(fl.obs[0]); err != nil {
		panic(fmt.Sprintf("pomdp: building the graph of the past: %v", err))
	}
	for k := 1; k < len(fl.obs); k++ {
		if err := p.growGraph(fl.acts[k-1], fl.mixes[k-1], fl.obs[k]); err != nil {
			panic(fmt.Sprintf("pomdp: building the graph of the past: step %d: %v", k, err))
		}
	}
	alphas := p.filtered()
	for k, done := range p.inferred {
		if done {
			if err := p.setMarginals(p.steps[k].s, alphas[k]); err != nil {
				panic(fmt.Sprintf("pomdp: building the graph of the past: step %d: %v", k, err))
			}
		}
	}
	p.expected = nil
}

// setMarginals sets the posteriors of the states s (one per factor) to the
// marginals of the joint belief alpha.
func (p *Past) setMarginals(s []*ffg.Variable, alpha []float64) error {
	fl, m := p.fl, p.m
	for fi := range m.factors {
		q := make([]float64, m.factors[fi].ns)
		for j, v := range alpha {
			q[fl.digits[fi][j]] += v
		}
		if err := s[fi].SetProbs(normalized(q)); err != nil {
			return err
		}
	}
	return nil
}

// marginals returns the marginals of the joint belief alpha, every
// factor's one after the other, as setMarginals computes them, in dst
// when its capacity suffices.
func (p *Past) marginals(dst, alpha []float64) []float64 {
	fl, m := p.fl, p.m
	out := dst[:0]
	if cap(out) < m.ns {
		out = make([]float64, m.ns)
	}
	out = out[:m.ns]
	clear(out)
	for fi := range m.factors {
		f := &m.factors[fi]
		q := out[f.off : f.off+f.ns]
		for j, v := range alpha {
			q[fl.digits[fi][j]] += v
		}
		normalized(q)
	}
	return out
}

// lazyExpected is ExpectedModel of a lazy Past without a graph: the
// posteriors of the graph's Dirichlet parameters would be their priors,
// the concentrations the trial started from, as binding the prior gives
// them (boundAlpha); computed once per trial.
func (p *Past) lazyExpected() (*Model, error) {
	if p.expected != nil {
		return p.expected, nil
	}
	// The concentrations go into lists kept from one trial to the next:
	// the expected model copies what it keeps of them.
	post := copyConc(p.bound, p.start)
	p.bound = post
	for _, xs := range post.lists() {
		for _, alpha := range xs {
			boundAlpha(alpha)
		}
	}
	m, err := p.expectedFrom(post)
	if err != nil {
		return nil, err
	}
	p.expected = m
	return m, nil
}

// boundAlpha sets alpha to the concentrations of a Dirichlet variable whose
// posterior starts at the prior alpha bound to it (ffg.Graph.AddFactor):
// its natural parameters 0 + (α - 1), the prior's message, and back,
// (α - 1) + 1, which is α itself only where the subtraction is exact.
func boundAlpha(alpha []float64) {
	for i, a := range alpha {
		nat := 0.0
		nat += a - 1
		alpha[i] = nat + 1
	}
}
