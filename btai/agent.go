package btai

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/schedule"
)

// Agent is a Branching Time Active Inference agent (paper section 6). Its
// generative model is one ffg.Graph: the past and present as a POMDP over
// S_0..S_t with observed O_0..O_t and actions U_0..U_(t-1) (optionally with
// Dirichlet-distributed A, B, D), and, while planning, a tree of future
// states S_I and observations O_I grown in the same graph and removed after
// acting.
//
// An Agent is not safe for concurrent use: give every goroutine its own.
// Agents may share a *pomdp.Model, which none of them modifies. The zero
// Agent is not usable (it has no model): make one with NewAgent. Its
// methods that return an error return one; the others return zero values.
// Every method that takes a context takes a nil one as
// context.Background().
type Agent struct {
	m    *pomdp.Model
	opts Options
	rng  *rand.Rand
	ns   int
	no   int // entries of Q(O_I): |O|, or Σ_m |O_m| with several modalities
	nu   int
	nobs int // observation indices, pomdp.Model.NumObs

	// fact holds what planning on a model with several factors or
	// modalities needs (nil otherwise; see factorised.go).
	fact *factorised

	// The past and present (shared with aci: pomdp.Past) and its graph,
	// in which the planning tree grows; g is past.Graph() of the current
	// episode.
	past *pomdp.Past
	g    *ffg.Graph

	// Dirichlet parameters of the current episode (nil when fixed).
	aVar, bVar, dVar *ffg.Variable

	// The future (prepareFuture): literal transitions with the expected A
	// and B, and what the planning loop reads of them. Ā and B̄ of a fixed
	// model are the model's own storage (shared, never written).
	futA *nodes.Transition
	futB []*nodes.Transition // made when first needed (futureB)
	abar []float64           // Ā, [o*ns+s]
	bbar []float64           // B̄, [u][next*ns+prev]
	aOwn bool                // abar is the agent's (learned A), not the model's
	bOwn bool                // bbar is the agent's (learned B), not the model's
	hA   []float64           // H[Ā(.|s)]
	afl  []float64           // Ā floored (floorColumns): the future's A factor
	logA []float64           // ln of floored Ā, [o*ns+s] (the future's Å: its A factor is the literal Cat(Ā))
	aT   []float64           // Ā transposed, [s*no+o]
	abT  []float64           // (Ā B̄_u) transposed, [u][prev*no+o]
	lnA  splitMat            // logA split into column backgrounds and deviations (vmp)
	lnB  []splitMat          // ln of floored B̄_u likewise
	wT   []float64           // novelty weights W transposed, [s*no+o] (Options.Novelty)
	nA   []float64           // learned concentrations over A, [o*ns+s] (Options.Novelty without a model a)
	// With sparseStartStates states or more and sparse splits (the large
	// mazes), the start of vmp is Ā (B̄_u Q(S_parent)) over the split
	// probabilities pA and pB[u] instead of the dense abT (see infer).
	sparseStart       bool
	sparseStartStates int
	pA                splitMat
	pB                []splitMat
	// prepared says that the fields above are computed for the parameters
	// in use; concA and concB are the concentrations over A and B they were
	// computed from (nil when fixed).
	prepared     bool
	concA, concB []float64
	logC         []float64 // ln C(o)
	logCS        []float64 // ln C_states(s) (uniform when absent)

	carried bool // EndTrial has learned from the current episode
	planned bool // Plan has started the current tree (Iterate, SelectAction)

	tree   Tree
	future []*ffg.Variable // every variable of the planning tree
	costs  []float64
	sc     scratch   // the calling goroutine's buffers for one new node (a crew's mates have their own)
	kids   []float64 // scratch: Q(S) of the new children, [u*ns+s] (roll-outs, crew)
	cur    []float64 // scratch: Q(S) of the current roll-out node

	// jobs is how many goroutines one Plan may evaluate an iteration's
	// children on (SetJobs); crew is their state during a Plan.
	jobs          int
	crew          *crew
	crewIteration time.Duration // crewIteration (tests lower it)
	crewAlways    bool          // tests: every iteration after the first on the crew, not only while it is faster

	// Compact planning tree (see Iterate): qsAt[k] is the offset in qsBuf
	// of the stored Q(S_K) of node k, -1 if not stored; the nodes before
	// matN are in the graph.
	qsBuf     []float64
	qsAt      []int
	matN      int
	matErr    error
	keepAll   bool      // Q(S) of every node is stored, not only of expanded ones
	ring      []float64 // otherwise Q(S) of the newest nodes, [slot*ns+s]
	ringAt    []int     // node index in each ring slot, -1 when empty
	keepLimit int       // keepAllFloats (tests lower it)
	ringLimit int       // ringFloats (tests lower it)
}

// NewAgent returns an agent for the POMDP m. opts nil means DefaultOptions;
// rng drives action sampling and roll-outs (nil: a fixed seed of 1).
func NewAgent(m *pomdp.Model, opts *Options, rng *rand.Rand) (*Agent, error) {
	o := DefaultOptions()
	if opts != nil {
		o = opts.Resolved()
	}
	if err := o.Validate(); err != nil {
		return nil, apiError(err)
	}
	if err := pomdp.Check(m); err != nil {
		return nil, apiError(err)
	}
	if rng == nil {
		rng = rand.New(rand.NewPCG(1, 1))
	}
	if m.NumFactors() > 1 || m.NumModalities() > 1 {
		return apiResult(newFactorisedAgent(m, o, rng))
	}
	a := &Agent{m: m, opts: o, rng: rng, ns: m.NumStates(), no: m.NumObs(), nu: m.NumActions(), nobs: m.NumObs()}
	var err error
	if a.past, err = pomdp.NewPastWith(m, max(o.Window, 0), o.Past); err != nil {
		return nil, apiError(err)
	}
	if err := a.past.SetLearning(pomdp.Learning{Rate: o.LearningRate, Forgetting: o.Forgetting}); err != nil {
		return nil, apiError(err)
	}
	a.logC = make([]float64, a.no)
	for i := range a.logC {
		a.logC[i] = math.Log(m.C(i))
	}
	a.logCS = make([]float64, a.ns)
	cs := m.FactorCStates(0)
	for s := range a.logCS {
		if cs != nil {
			a.logCS[s] = math.Log(cs[s])
		} else {
			a.logCS[s] = -math.Log(float64(a.ns))
		}
	}
	a.costs = make([]float64, a.nu)
	a.sc = newScratch(a.ns, a.no, o.Novelty)
	a.kids = make([]float64, a.nu*a.ns)
	a.cur = make([]float64, a.ns)
	a.keepLimit, a.ringLimit = keepAllFloats, ringFloats
	a.sparseStartStates = sparseStartStates
	a.crewIteration = crewIteration
	if o.Novelty {
		a.wT = make([]float64, a.ns*a.no)
	}
	return a, nil
}

// SetRand makes rng drive the action sampling and roll-outs of Plan and
// SelectAction from now on (nil: a fixed seed of 1). Decide draws from the
// stream it is given instead (agent.StepRand in the episode and replay
// drivers).
func (a *Agent) SetRand(rng *rand.Rand) {
	if rng == nil {
		rng = rand.New(rand.NewPCG(1, 1))
	}
	a.rng = rng
}

// Graph returns the agent's generative model, with the planning tree of
// the last call to Plan (which is added to the graph at this point, see
// Iterate). It must not be modified.
func (a *Agent) Graph() *ffg.Graph {
	a.materialized()
	return a.g
}

// Tree returns the planning tree of the last call to Plan; its nodes' S
// and O are the variables of the graph (added to it at this point, see
// Iterate).
func (a *Agent) Tree() *Tree {
	a.materialized()
	return &a.tree
}

// materialized adds the planning tree to the graph. It cannot fail on a
// tree built by Plan (the same computations succeeded when it was built);
// an error is kept in matErr for tests.
func (a *Agent) materialized() {
	if err := a.materialize(); err != nil && a.matErr == nil {
		a.matErr = err
	}
}

// errZero is the error of the methods of the zero Agent.
var errZero = errors.New("btai: the zero Agent has no model (use NewAgent)")

// background returns ctx, or context.Background() for a nil ctx.
func background(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// Concentrations returns the Dirichlet concentrations of every learned
// parameter, per modality and factor (pomdp.Concentrations; copies): during
// an episode its posteriors, after EndTrial the learned priors the next
// episode starts from (they differ only with a learning rate or forgetting,
// Options.LearningRate and Options.Forgetting), before the first episode
// the model's. Novelty's own counts over A (a model without a) are not
// among them.
func (a *Agent) Concentrations() pomdp.Concentrations {
	if a.past == nil {
		return pomdp.Concentrations{}
	}
	if a.g == nil || a.carried {
		return a.past.Concentrations()
	}
	return a.past.Posteriors()
}

// Options returns the agent's options.
func (a *Agent) Options() Options { return a.opts }

// Belief returns Q(S_t), the posterior over the present state (with
// several factors, every factor's marginal, one after the other); nil
// before the first Reset. The slice must not be modified.
func (a *Agent) Belief() []float64 {
	if a.past == nil || a.g == nil {
		return nil
	}
	if a.fact != nil {
		return a.past.Belief()
	}
	return a.past.Present().Probs()
}

// Time returns t, the index of the present time step in the episode.
func (a *Agent) Time() int {
	if a.past == nil {
		return 0
	}
	return a.past.Time()
}

// Reset starts an episode with the first observation obs: a new graph for
// the past holding S_0 and O_0, followed by inference of S_0. With Dirichlet
// learning, the posteriors of the previous episode become the priors
// (empirical priors, paper section 4.1). An observation out of range, or
// one that the model gives probability 0 (an error wrapping
// pomdp.ErrImpossibleObservation), is an error and starts no episode.
func (a *Agent) Reset(ctx context.Context, obs int) error {
	if a.past == nil {
		return apiError(errZero)
	}
	ctx = background(ctx)
	if obs < 0 || obs >= a.nobs {
		return fmt.Errorf("btai: observation %d out of range [0, %d)", obs, a.nobs)
	}
	if a.g != nil {
		if !a.carried {
			a.past.CarryOver()
		}
		a.clearFuture()
	}
	a.carried = false
	if la, _, _ := a.m.Learnable(); a.opts.Novelty && !la && (a.nA == nil || !a.opts.NoveltyCarry) {
		a.nA = append(a.nA[:0], a.m.SharedA(0)...)
		for i := range a.nA {
			a.nA[i] *= a.opts.NoveltyPrior
		}
	}
	if err := a.past.Reset(obs); err != nil {
		return apiError(err)
	}
	a.g = a.past.Graph()
	a.aVar, a.bVar, a.dVar = a.past.Params()
	clear(a.future)
	a.future = a.future[:0]
	if err := a.inferPast(ctx); err != nil {
		return apiError(err)
	}
	a.learnA(obs)
	return nil
}

// learnA adds Q(S_t) to the row of the observation o_t in the novelty
// concentrations over A (Options.Novelty, when the model has no a: with a,
// the graph learns A).
func (a *Agent) learnA(obs int) {
	if a.nA == nil {
		return
	}
	row := a.nA[obs*a.ns : (obs+1)*a.ns]
	for s, q := range a.Belief() {
		row[s] += q
	}
}

// inferPast runs global inference on the past and present (the planning
// tree is not in the graph at that point).
func (a *Agent) inferPast(ctx context.Context) error {
	_, err := a.past.Infer(ctx, &schedule.Settings{Iterations: 200, Tolerance: 1e-10})
	if err != nil {
		return fmt.Errorf("btai: inference on the past: %w", err)
	}
	return nil
}

var _ agent.Agent = (*Agent)(nil)

// Decide plans from the present (Plan) with rng driving the roll-outs and
// the choice, and picks an action with the configured rule
// (agent.Agent). The decision's Probs is the distribution the action is
// drawn from (Softmax: σ(-α ḡ) over the root children's average costs;
// Visits: N_u^α normalised), one-hot for the deterministic rules
// (Decision.Deterministic); its Values are the root children's average
// costs and visit counts, its Cost the average cost of the action taken,
// its Work the planning iterations, and its Detail the *Tree.
func (a *Agent) Decide(ctx context.Context, rng *rand.Rand) (*agent.Decision, error) {
	d := new(agent.Decision)
	if err := a.decide(ctx, rng, d); err != nil {
		return nil, apiError(err)
	}
	return d, nil
}

// DecideInto is Decide written into d, whose slices it reuses (the same
// decision, bit for bit; agent.Reuser). Its Detail is the agent's tree, as
// Decide's is. Planning allocates nothing once its buffers have their
// sizes, so neither does a decision; growing the past (Advance) does.
func (a *Agent) DecideInto(ctx context.Context, rng *rand.Rand, d *agent.Decision) error {
	if d == nil {
		return errors.New("btai: DecideInto: nil decision")
	}
	return apiError(a.decide(ctx, rng, d))
}

var _ agent.Reuser = (*Agent)(nil)

// decide plans and writes the decision into d, reusing its slices.
func (a *Agent) decide(ctx context.Context, rng *rand.Rand, d *agent.Decision) error {
	if a.past == nil {
		return errZero
	}
	if rng == nil {
		return errors.New("btai: Decide with a nil random stream")
	}
	saved := a.rng
	a.rng = rng
	defer func() { a.rng = saved }()
	if err := a.Plan(ctx); err != nil {
		return err
	}
	vals := d.Values
	if len(vals) != 2 {
		vals = make([]agent.NamedValues, 2)
	}
	probs, costs, visits := zeroed(d.Probs, a.nu), zeroed(vals[0].Values, a.nu), zeroed(vals[1].Values, a.nu)
	*d = agent.Decision{Probs: probs, Deterministic: a.opts.ActionSelection.Deterministic(), Detail: &a.tree}
	d.Action = a.tree.SelectAction(a.opts.ActionSelection, *a.opts.ActionPrecision, rng, d.Probs)
	for u := range a.nu {
		n := &a.tree.Nodes[a.tree.Child(0, u)]
		costs[u], visits[u] = n.Average(), float64(n.Visits)
	}
	vals[0], vals[1] = agent.NamedValues{Name: "average_cost", Values: costs}, agent.NamedValues{Name: "visits", Values: visits}
	d.Values = vals
	d.Cost, d.Work = costs[d.Action], a.opts.Iterations
	return nil
}

// zeroed returns n zeros in x when its capacity suffices, else new ones.
func zeroed(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	x = x[:n]
	clear(x)
	return x
}

// AdvanceMixed is Step after an action that is not known (a missed
// response), taken with the distribution probs over joint actions: the
// past grows with the action hidden, distributed as probs
// (pomdp.Past.GrowMixed; agent.MixedAdvancer).
func (a *Agent) AdvanceMixed(ctx context.Context, probs []float64, obs int) error {
	if a.past == nil {
		return apiError(errZero)
	}
	ctx = background(ctx)
	if a.g == nil {
		return errors.New("btai: AdvanceMixed before Reset")
	}
	if a.carried {
		return errors.New("btai: AdvanceMixed after EndTrial (call Reset)")
	}
	if obs < 0 || obs >= a.nobs {
		return fmt.Errorf("btai: observation %d out of range [0, %d)", obs, a.nobs)
	}
	a.clearFuture()
	if err := a.past.GrowMixed(probs, obs); err != nil {
		return apiError(err)
	}
	if err := a.inferPast(ctx); err != nil {
		return apiError(err)
	}
	a.learnA(obs)
	return nil
}

var _ agent.MixedAdvancer = (*Agent)(nil)

// Advance is Step (agent.Agent).
func (a *Agent) Advance(ctx context.Context, action, obs int) error {
	return apiError(a.Step(ctx, action, obs))
}

// EndTrial closes the episode (agent.Agent): the Dirichlet posteriors of
// the episode become the priors of the next one (Reset does it otherwise).
// The episode's graph stays available until the next Reset. EndTrial
// before Reset, or a second time, is an error.
func (a *Agent) EndTrial(ctx context.Context) error {
	switch {
	case a.past == nil:
		return apiError(errZero)
	case a.g == nil:
		return errors.New("btai: EndTrial before Reset")
	case a.carried:
		return errors.New("btai: EndTrial after EndTrial (call Reset)")
	}
	if err := background(ctx).Err(); err != nil {
		return apiError(err)
	}
	a.clearFuture()
	a.past.CarryOver()
	a.carried = true
	return nil
}

// Step performs the action-perception bookkeeping after acting: the
// planning tree is removed from the graph, the past grows by one step
// (U_t = action observed, S_(t+1) linked to S_t and U_t through B, O_(t+1)
// observed) and the present state is inferred by global inference on the
// past. When the past exceeds Options.Window steps, the oldest step is
// folded into a prior over the next state (pomdp.Past.Grow): the VMP
// message it sends becomes a categorical prior, and its expected counts
// are added to the Dirichlet priors, so nothing it taught is lost while
// memory and time per step stay bounded.
//
// An action or observation out of range is an error, and so is an
// observation that the model cannot explain (one wrapping
// pomdp.ErrImpossibleObservation; the past stays as it was). With exact
// filtering of the past (Options.Past = pomdp.PastFilter, the default
// without GlobalInference) that is exactly an observation of probability
// 0 given the past, as for the aci agent; the paper's mean field over the
// past (pomdp.PastVMP: PresetPaper, PresetHP, GlobalInference) refuses one
// that some factor's A rules out in every state, and takes one that only B
// excludes at the cost ln pomdp.LogFloor (see
// pomdp.ErrImpossibleObservation).
func (a *Agent) Step(ctx context.Context, action, obs int) error {
	if a.past == nil {
		return apiError(errZero)
	}
	ctx = background(ctx)
	if a.g == nil {
		return errors.New("btai: Step before Reset")
	}
	if action < 0 || action >= a.nu {
		return fmt.Errorf("btai: action %d out of range [0, %d)", action, a.nu)
	}
	if obs < 0 || obs >= a.nobs {
		return fmt.Errorf("btai: observation %d out of range [0, %d)", obs, a.nobs)
	}
	if a.carried {
		return errors.New("btai: Step after EndTrial (call Reset)")
	}
	a.clearFuture()
	if err := a.past.Grow(action, obs); err != nil {
		return apiError(err)
	}
	if err := a.inferPast(ctx); err != nil {
		return apiError(err)
	}
	a.learnA(obs)
	return nil
}

// clearFuture removes the planning tree from the graph.
func (a *Agent) clearFuture() {
	if len(a.future) > 0 {
		a.g.RemoveVariables(a.future...)
		clear(a.future)
		a.future = a.future[:0]
	}
	a.tree.Reset(a.nu, nil)
	a.planned = false
	a.qsBuf = a.qsBuf[:0]
	a.qsAt = append(a.qsAt[:0], -1)
	a.matN = 0
}
