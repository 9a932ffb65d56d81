package aci

import (
	"errors"
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/pomdp"
)

// FigureGraph returns a new graph to draw the agent at the present step t
// as the paper's figure of classic active inference does (section 4): the
// past and present as the agent's graph holds them (S_0..S_t, the observed
// O_0..O_t and U_0..U_(t-1), with D, A, B and the learned parameters), the
// policy π with its prior (and γ when inferred), and the future the policy
// selects, which the agent scores off the graph (EvaluatePolicies): for
// τ = t+1 … t+T (T the horizon), per factor the state S_τ with its
// transition B from S_(τ-1), joined to π when the factor has controls,
// and per modality the predicted observation O_τ through A, hidden. The
// future is in the cluster "future".
//
// The graph is built anew for drawing: the agent's graph (Graph) is not
// changed, and neither is any belief of the agent. The tables of the
// figure are not the agent's (the future's are uniform, and learned
// parameters start at the model's priors): draw it, do not infer on it.
// Before Act there is no π, and the graph holds the past alone. It is an
// error without a trial (before Reset).
func (a *Agent) FigureGraph() (*ffg.Graph, error) {
	if a.past == nil {
		return nil, apiError(errZero)
	}
	if len(a.obs) == 0 || !a.begun {
		return nil, errors.New("aci: FigureGraph: no trial (call Reset)")
	}
	m := a.m
	p, err := pomdp.NewPastWith(m, 0, a.opts.Past)
	if err != nil {
		return nil, apiError(err)
	}
	if err := p.Reset(a.obs[0]); err != nil {
		return nil, apiError(err)
	}
	for i, u := range a.acts {
		if u < 0 {
			// An action that was not known: a hidden U_t, whatever its
			// distribution was (the figure shows no numbers).
			probs := make([]float64, a.nu)
			for k := range probs {
				probs[k] = 1 / float64(a.nu)
			}
			err = p.GrowMixed(probs, a.obs[i+1])
		} else {
			err = p.Grow(u, a.obs[i+1])
		}
		if err != nil {
			return nil, apiError(err)
		}
	}
	g := p.Graph()
	if a.pi == nil && !a.piOut {
		return g, nil
	}
	pi, err := a.figurePolicy(g)
	if err != nil {
		return nil, apiError(err)
	}
	return g, apiError(a.figureFuture(g, p, pi))
}

// figurePolicy adds π (and γ) to g as inferPolicy adds them to the
// agent's graph, with their factors' labels. The figure's π has one value
// per joint action rather than one per held policy (up to GraphPolicies):
// its size is not drawn, and so the future's B tables are no larger than
// the past's.
func (a *Agent) figurePolicy(g *ffg.Graph) (*ffg.Variable, error) {
	k := a.nu
	pi, err := g.AddVariable("pi", expfam.CategoricalFamily, k)
	if err != nil {
		return nil, err
	}
	pi.Cluster = "policy"
	uniform, err := nodes.NewCategorical(uniformProbs(k))
	if err != nil {
		return nil, err
	}
	if a.opts.Habits != nil {
		f, err := g.AddFactor("", uniform, pi)
		if err != nil {
			return nil, err
		}
		f.Label, f.Cluster = "habit E", "policy"
	}
	if a.gamma == nil {
		f, err := g.AddFactor("", uniform, pi)
		if err != nil {
			return nil, err
		}
		f.Label, f.Cluster = fmt.Sprintf("σ(-%g G)", a.opts.Gamma), "policy"
		return pi, nil
	}
	gv, err := g.AddVariable("gamma", expfam.GammaFamily)
	if err != nil {
		return nil, err
	}
	gv.Cluster = "policy"
	prior, err := nodes.NewGamma(1, a.opts.Beta)
	if err != nil {
		return nil, err
	}
	if _, err := g.AddFactor("", prior, gv); err != nil {
		return nil, err
	}
	G := make([]float64, k) // the softmax's G are not drawn
	sm, err := nodes.NewSoftmax(G)
	if err != nil {
		return nil, err
	}
	f, err := g.AddFactor("", sm, pi, gv)
	if err != nil {
		return nil, err
	}
	f.Cluster = "policy"
	return pi, nil
}

// figureFuture adds the future to g, folded: one step S_τ, O_τ in a
// plate "τ = t+1 … t+T" (with the numbers), its transitions from the
// present state S_t.
func (a *Agent) figureFuture(g *ffg.Graph, p *pomdp.Past, pi *ffg.Variable) error {
	m := a.m
	spec := m.FactorisedSpec()
	k := pi.Shape()[0]
	name := func(kind string, fname string) string {
		if !m.Factorised() {
			return kind + "τ"
		}
		return kind + "τ[" + fname + "]"
	}
	letter := func(l, fname string) string {
		if !m.Factorised() {
			return l
		}
		return l + "[" + fname + "]"
	}
	index := map[string]int{}
	trans := make([]*nodes.Transition, len(spec.Factors))
	prev := make([]*ffg.Variable, len(spec.Factors))
	for i, f := range spec.Factors {
		index[f.Name] = i
		st := p.FactorStates(i)
		prev[i] = st[len(st)-1]
		shape := []int{f.NumStates, f.NumStates}
		if f.NumControls > 1 {
			shape = append(shape, k)
		}
		tr, err := nodes.NewTransition(uniformTable(shape), shape)
		if err != nil {
			return fmt.Errorf("%s: %w", letter("B", f.Name), err)
		}
		trans[i] = tr
	}
	obsA := make([]*nodes.Transition, len(spec.Modalities))
	for j, md := range spec.Modalities {
		shape := []int{md.NumOutcomes}
		for _, dep := range md.DependsOn {
			shape = append(shape, spec.Factors[index[dep]].NumStates)
		}
		tr, err := nodes.NewTransition(uniformTable(shape), shape)
		if err != nil {
			return fmt.Errorf("%s: %w", letter("A", md.Name), err)
		}
		obsA[j] = tr
	}
	t, T := p.Time(), a.opts.Horizon
	plate := fmt.Sprintf("τ = %d … %d", t+1, t+T)
	if T == 1 {
		plate = fmt.Sprintf("τ = %d", t+1)
	}
	cur := make([]*ffg.Variable, len(spec.Factors))
	for i, f := range spec.Factors {
		s, err := g.AddVariable("", expfam.CategoricalFamily, f.NumStates)
		if err != nil {
			return err
		}
		s.Label, s.Cluster = name("S", f.Name), plate
		vars := []*ffg.Variable{s, prev[i]}
		if f.NumControls > 1 {
			vars = append(vars, pi)
		}
		fn, err := g.AddFactor("", trans[i], vars...)
		if err != nil {
			return err
		}
		fn.Label, fn.Cluster = letter("B", f.Name), plate
		cur[i] = s
	}
	for j, md := range spec.Modalities {
		o, err := g.AddVariable("", expfam.CategoricalFamily, md.NumOutcomes)
		if err != nil {
			return err
		}
		o.Label, o.Cluster = name("O", md.Name), plate
		vars := []*ffg.Variable{o}
		for _, dep := range md.DependsOn {
			vars = append(vars, cur[index[dep]])
		}
		fn, err := g.AddFactor("", obsA[j], vars...)
		if err != nil {
			return err
		}
		fn.Label, fn.Cluster = letter("A", md.Name), plate
	}
	return nil
}

func uniformProbs(n int) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = 1 / float64(n)
	}
	return p
}

// uniformTable is a conditional table of the shape [child, parents...]
// whose every column is uniform.
func uniformTable(shape []int) []float64 {
	n := 1
	for _, d := range shape {
		n *= d
	}
	w := make([]float64, n)
	for i := range w {
		w[i] = 1 / float64(shape[0])
	}
	return w
}
