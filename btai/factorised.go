package btai

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/arbor-ai/arbor/pomdp"
)

// Planning on a model with several hidden-state factors or observation
// modalities (docs/btai.md, "Factorised models"). Every node of the tree
// holds one marginal per factor, Q(S_I) = Π_f Q(S_f,I), and one per
// modality, Q(O_I) = Π_m Q(O_m,I), written one after the other as in
// pomdp: the expansion is over the joint actions (one control per
// controllable factor), and the costs are summed over the modalities (and
// factors). The computation never forms the joint state space: one node
// costs about Σ_f |S_f|² + Σ_m |O_m| Π_(f in deps(m)) |S_f|.
//
// The tree stays in compact form (Agent.NodePosteriors gives a node's
// posteriors): global inference, which needs the tree in the graph, and
// the novelty bonus over A are refused on such models, with an error.
type factorised struct {
	m     *pomdp.Model // the model of the current plan (pomdp.Past.PlanningModel)
	root  []float64    // Q(S_t), every factor
	lnA   [][]float64  // per modality: ln of Ā floored (pomdp.FloorColumns), [o*size+j]
	lnB   [][]float64  // per factor: ln of B̄ floored, [c][next*ns+prev]
	logC  [][]float64  // per modality: ln C
	logCS [][]float64  // per factor: ln C_states (uniform when absent)
	axes  [][]axis     // per factor: the modalities that depend on it, and at which axis

	ctrl []int       // scratch: the controls of an action
	mpar []float64   // scratch: B̊_f ⊙ Q(S_f,parent), every factor
	eta  []float64   // scratch: natural parameters of one factor or modality
	msg  []float64   // scratch: one factor's message from one modality
	y    [][]float64 // scratch: per modality, y[j] = Σ_o Q(o) ln Ā[o, j]
	pred []float64   // scratch: predicted observations (feef)

	fast     *fastPred // the fast path of large models (fastPred), or nil
	fastCost float64   // the classic cost of the node the fast path inferred last
	depth    int       // the depth of the node being inferred (for fast)
}

type axis struct{ mod, k int }

// newFactorisedAgent is NewAgent for a model with several factors or
// modalities.
func newFactorisedAgent(m *pomdp.Model, o Options, rng *rand.Rand) (*Agent, error) {
	if o.GlobalInference {
		return nil, errors.New("btai: global inference on a model with several factors or modalities: the planning tree is not added to the graph (use local inference)")
	}
	if o.Novelty {
		return nil, errors.New("btai: novelty on a model with several factors or modalities is not available (the bonus is over one modality's A)")
	}
	a := &Agent{m: m, opts: o, rng: rng, ns: m.NumStates(), no: m.ObsLen(), nu: m.NumActions(), nobs: m.NumObs()}
	var err error
	if a.past, err = pomdp.NewPastWith(m, max(o.Window, 0), o.Past); err != nil {
		return nil, apiError(err)
	}
	if err := a.past.SetLearning(pomdp.Learning{Rate: o.LearningRate, Forgetting: o.Forgetting}); err != nil {
		return nil, apiError(err)
	}
	f := &factorised{axes: make([][]axis, m.NumFactors())}
	for i := range m.NumModalities() {
		for k, fac := range m.DependsOn(i) {
			f.axes[fac] = append(f.axes[fac], axis{i, k})
		}
		c := m.ModalityC(i)
		for o := range c {
			c[o] = math.Log(c[o])
		}
		f.logC = append(f.logC, c)
	}
	maxS, maxO := 0, 0
	for fac := range m.NumFactors() {
		ns := m.FactorSize(fac)
		maxS = max(maxS, ns)
		cs := m.FactorCStates(fac)
		if cs == nil {
			cs = make([]float64, ns)
			for s := range cs {
				cs[s] = 1 / float64(ns)
			}
		}
		for s := range cs {
			cs[s] = math.Log(cs[s])
		}
		f.logCS = append(f.logCS, cs)
	}
	f.y = make([][]float64, m.NumModalities())
	for i := range m.NumModalities() {
		maxO = max(maxO, m.ModalitySize(i))
		size := len(m.ModalityA(i)) / m.ModalitySize(i)
		f.y[i] = make([]float64, size)
	}
	f.mpar = make([]float64, a.ns)
	f.eta = make([]float64, max(maxS, maxO))
	f.msg = make([]float64, maxS)
	f.pred = make([]float64, a.no)
	f.fast = newFastPred(m, o)
	a.fact = f
	a.costs = make([]float64, a.nu)
	a.sc = scratch{qs: make([]float64, a.ns), qo: make([]float64, a.no)}
	a.kids = make([]float64, a.nu*a.ns)
	a.cur = make([]float64, a.ns)
	a.keepLimit, a.ringLimit = keepAllFloats, ringFloats
	return a, nil
}

// prepareFactorised takes the planning model (pomdp.Past.PlanningModel:
// the learned means when the model learns A or B) and the floored
// logarithms that mean-field inference on the new nodes uses, and the
// present belief. The logarithms are computed again only when the planning
// model changed: a model that learns neither A nor B is its own, so they
// are computed once per agent.
func (a *Agent) prepareFactorised() error {
	f := a.fact
	m, err := a.past.PlanningModel()
	if err != nil {
		return apiError(err)
	}
	if m == f.m && f.lnA != nil {
		f.root = a.past.BeliefInto(f.root[:0])
		if f.fast != nil {
			f.fast.reset(f.root)
		}
		return nil
	}
	if f.fast != nil {
		f.fast.setModel(m)
	}
	f.m = m
	f.lnA = f.lnA[:0]
	for i := range m.NumModalities() {
		x := m.ModalityA(i)
		no := m.ModalitySize(i)
		pomdp.FloorColumns(x, no, len(x)/no)
		for j, p := range x {
			x[j] = math.Log(p)
		}
		f.lnA = append(f.lnA, x)
	}
	f.lnB = f.lnB[:0]
	for fac := range m.NumFactors() {
		x := m.FactorB(fac)
		ns := m.FactorSize(fac)
		for c := range m.FactorControls(fac) {
			pomdp.FloorColumns(x[c*ns*ns:(c+1)*ns*ns], ns, ns)
		}
		for j, p := range x {
			x[j] = math.Log(p)
		}
		f.lnB = append(f.lnB, x)
	}
	f.root = a.past.BeliefInto(f.root[:0])
	if f.fast != nil {
		f.fast.reset(f.root)
	}
	return nil
}

// inferFactorised computes Q(S_I) and Q(O_I) of a new node for action u
// below a parent with posterior qp into sc.qs and sc.qo: the prediction
// (Q(S_f,I) = B̄_f[u_f] Q(S_f,parent) and Q(O_m,I) = Ā_m Π_f Q(S_f,I)),
// and with VMP inference the mean-field updates started from it.
func (a *Agent) inferFactorised(sc *scratch, qp []float64, u int) error {
	f := a.fact
	if f.fast != nil {
		f.fastCost = f.fast.node(f.m, sc.qs, sc.qo, qp, u, f.depth)
		return nil
	}
	pomdp.Propagate(f.m, sc.qs, qp, u)
	pomdp.PredictObs(f.m, sc.qo, sc.qs)
	if a.opts.Inference != VMP {
		return nil
	}
	return a.vmpFactorised(sc, qp, u)
}

// vmpFactorised iterates the paper's mean-field updates (section 6.2) for
// a new node, one factor and one modality at a time:
//
//	Q*(S_f,I) = σ(B̊_f[u_f] ⊙ Q(S_f,parent) + Σ_(m: f in deps(m)) Σ_o Q(O_m,I)(o) E_(Q(S_g,I), g≠f)[Å_m(o, ·)])
//	Q*(O_m,I) = σ(E_(Π_f Q(S_f,I))[Å_m(·, s_deps)])
//
// with Å and B̊ the logarithms of the floored Ā and B̄, as for one factor.
// Each update lowers the node's free energy
//
//	F = Σ_f E[ln Q(S_f) - B̊_f ⊙ Q(S_f,parent)] + Σ_m E[ln Q(O_m) - Å_m]
//
// (coordinate descent); the sweeps stop when it changes by less than
// Options.VMPTolerance or after Options.VMPIterations.
func (a *Agent) vmpFactorised(sc *scratch, qp []float64, u int) error {
	f, m := a.fact, a.fact.m
	f.ctrl = m.DecodeAction(f.ctrl, u)
	for fac := range m.NumFactors() {
		off, ns := m.FactorOffset(fac), m.FactorSize(fac)
		lnb := f.lnB[fac][f.ctrl[fac]*ns*ns:]
		par := qp[off : off+ns]
		for s := range ns {
			v := 0.0
			for p, q := range par {
				v += lnb[s*ns+p] * q
			}
			f.mpar[off+s] = v
		}
	}
	prev := math.Inf(1)
	for range a.opts.VMPIterations {
		// y_m[j] = Σ_o Q(O_m)(o) Å_m[o, j], fixed while the factors move.
		for i, y := range f.y {
			clear(y)
			qo := sc.qo[m.ObsOffset(i) : m.ObsOffset(i)+m.ModalitySize(i)]
			la := f.lnA[i]
			for o, q := range qo {
				if q == 0 {
					continue
				}
				row := la[o*len(y) : (o+1)*len(y)]
				for j, x := range row {
					y[j] += q * x
				}
			}
		}
		F := 0.0
		for fac := range m.NumFactors() {
			off, ns := m.FactorOffset(fac), m.FactorSize(fac)
			eta := f.eta[:ns]
			copy(eta, f.mpar[off:off+ns])
			for _, ax := range f.axes[fac] {
				msg := f.msg[:ns]
				m.ModalityMarginal(msg, ax.mod, ax.k, f.y[ax.mod], sc.qs)
				for s, v := range msg {
					eta[s] += v
				}
			}
			q := sc.qs[off : off+ns]
			if mx, _ := softmax(q, eta); math.IsNaN(mx) {
				return fmt.Errorf("btai: local inference: Q(S_I) of factor %s undefined under B̄ and Ā", m.FactorName(fac))
			}
			for s, p := range q {
				if p > 0 {
					F += p * (math.Log(p) - f.mpar[off+s])
				}
			}
		}
		for i := range m.NumModalities() {
			off, no := m.ObsOffset(i), m.ModalitySize(i)
			eta := f.eta[:no]
			size := len(f.y[i])
			for o := range no {
				eta[o] = m.ModalityExpect(i, f.lnA[i][o*size:(o+1)*size], sc.qs)
			}
			q := sc.qo[off : off+no]
			if mx, _ := softmax(q, eta); math.IsNaN(mx) {
				return fmt.Errorf("btai: local inference: Q(O_I) of modality %s undefined under Ā", m.ModalityName(i))
			}
			for o, p := range q {
				if p > 0 {
					F += p * (math.Log(p) - eta[o])
				}
			}
		}
		if math.Abs(F-prev) < a.opts.VMPTolerance {
			break
		}
		prev = F
	}
	return nil
}

// costFactorised is baseCost on a model with several factors or
// modalities: the terms of one factor and modality summed over them, with
// the product belief (docs/btai.md, "Factorised models"):
//
//	classic: Σ_m KL[Q(O_m) ‖ C_m] + Σ_m E[H[Ā_m]]
//	pcost:   Σ_f KL[Q(S_f) ‖ C_f] + Σ_m KL[Q(O_m) ‖ C_m]
//	feef:    Σ_f E[ln Q(S_f) - ln C_f] - Σ_m E[H[Ā_m]] - Σ_m Σ_o (Ā_m Q(S))(o) ln C_m(o)
//
// A joint preference C_P over several modalities replaces their KL terms
// by KL[Π_(m in P) Q(O_m) ‖ C_P] and their cross-entropy by
// -E_(Π_m Q(O_m))[ln C_P] (pomdp.ObsRisk, pomdp.ObsCrossEntropy).
func (a *Agent) costFactorised(qs, qo []float64) float64 {
	f, m := a.fact, a.fact.m
	if f.fast != nil {
		return f.fastCost // of qs and qo, which the fast path inferred with it
	}
	g := 0.0
	switch a.opts.Cost {
	case PCost, FEEF:
		for fac := range m.NumFactors() {
			off, ns := m.FactorOffset(fac), m.FactorSize(fac)
			if a.opts.Cost == PCost {
				g += kl(qs[off:off+ns], f.logCS[fac])
				continue
			}
			for s, q := range qs[off : off+ns] {
				if q > 0 {
					g += q * (math.Log(q) - f.logCS[fac][s])
				}
			}
		}
	}
	if m.NumPreferences() > 0 {
		// Joint preferences: the observation terms from pomdp, the joint
		// outcome predicted as the product of the modalities' marginals.
		switch a.opts.Cost {
		case FEEF:
			pomdp.PredictObs(m, f.pred, qs)
			return g - pomdp.Ambiguity(m, qs) + pomdp.ObsCrossEntropy(m, f.pred)
		case PCost:
			return g + pomdp.ObsRisk(m, qo)
		}
		return pomdp.ObsRisk(m, qo) + pomdp.Ambiguity(m, qs)
	}
	switch a.opts.Cost {
	case FEEF:
		g -= pomdp.Ambiguity(m, qs)
		pomdp.PredictObs(m, f.pred, qs)
		for i := range m.NumModalities() {
			off := m.ObsOffset(i)
			for o, q := range f.pred[off : off+m.ModalitySize(i)] {
				if q > 0 {
					g -= q * f.logC[i][o]
				}
			}
		}
	case PCost:
		for i := range m.NumModalities() {
			off := m.ObsOffset(i)
			g += kl(qo[off:off+m.ModalitySize(i)], f.logC[i])
		}
	default:
		for i := range m.NumModalities() {
			off := m.ObsOffset(i)
			g += kl(qo[off:off+m.ModalitySize(i)], f.logC[i])
		}
		g += pomdp.Ambiguity(m, qs)
	}
	return g
}

// NodePosteriors returns Q(S_I) and Q(O_I) of node k (k >= 1) of the last
// plan, recomputed from its parent exactly as at expansion (new slices):
// with several factors or modalities every factor's (modality's) marginal,
// one after the other (pomdp.Model.FactorOffset, ObsOffset). For a model
// with one factor and one modality they are also the graph's (Tree).
func (a *Agent) NodePosteriors(k int) (qs, qo []float64, err error) {
	if k < 1 || k >= len(a.tree.Nodes) {
		return nil, nil, fmt.Errorf("btai: node %d out of range [1, %d)", k, len(a.tree.Nodes))
	}
	n := &a.tree.Nodes[k]
	qp, err := a.nodeProbs(n.Parent)
	if err != nil {
		return nil, nil, apiError(err)
	}
	a.fact.depth = n.Depth
	if err := a.infer(&a.sc, qp, n.Action); err != nil {
		return nil, nil, apiError(err)
	}
	return append([]float64(nil), a.sc.qs...), append([]float64(nil), a.sc.qo...), nil
}

// LearnedModel returns the model with every learned A, B and D replaced by
// the expectation of its current Dirichlet posterior and the posterior
// concentrations in place of the prior ones (pomdp.Past.ExpectedModel):
// what the agent has learned, for any number of factors and modalities.
// Without learning it is the agent's model.
func (a *Agent) LearnedModel() (*pomdp.Model, error) {
	if a.past == nil {
		return nil, apiError(errZero)
	}
	return apiResult(a.past.ExpectedModel())
}
