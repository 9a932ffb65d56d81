package aci

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/schedule"
)

// Action selection rules of AgentOptions.Select.
const (
	SelectArgmax = "argmax" // the most probable action (lowest index on ties)
	SelectSample = "sample" // a draw from the action distribution, seeded
)

// Defaults of AgentOptions (a nil *AgentOptions, or a zero field).
const (
	DefaultHorizon       = 2
	DefaultGamma         = 16
	DefaultBeta          = 1
	DefaultGraphPolicies = 1024
	DefaultIterations    = 200
	DefaultTolerance     = 1e-10
)

// AgentOptions configures an Agent. A nil *AgentOptions means the defaults;
// in a non-nil one, a zero numeric field (or "" for Select) means its
// default.
type AgentOptions struct {
	// Horizon is the length T of the policies scored at every step
	// (receding horizon: policies always start at the present). Default 2.
	Horizon int
	// Gamma is the fixed policy precision of P(pi) = softmax(-Gamma G)
	// when InferGamma is false. Default 16 (as `arbor aci eval`).
	Gamma float64
	// InferGamma makes the precision a latent variable with prior
	// Gamma(1, Beta) (paper eq. 2), inferred jointly with pi by VMP through
	// the graph's Softmax and Gamma nodes. Gamma is then unused.
	InferGamma bool
	// Beta is the rate of the Gamma(1, Beta) prior of the precision
	// (prior mean 1/Beta). Default 1, as SPM.
	Beta float64
	// Novelty subtracts the parameter information gain about A from G
	// (EFEOptions.Novelty); the model must have concentrations a.
	Novelty bool
	// Habits, when non-nil, is a prior over the first action (length |U|,
	// a distribution): P(pi | gamma) is proportional to
	// Habits[pi_1] exp(-gamma G_pi), a prior E over policies as SPM's, split
	// evenly over the policies sharing a first action. Unlike SPM, where E
	// cancels in the update of gamma, here E is a factor of its own, so
	// with habits the inferred precision moves. Without habits pi has no
	// evidence besides its Softmax prior, so the inferred precision stays
	// at its prior (see docs/aci.md, "precision").
	Habits []float64
	// Select is SelectArgmax (default) or SelectSample.
	Select string
	// Seed seeds the sampler of SelectSample (PCG). Equal seeds and equal
	// inputs give equal actions.
	Seed uint64
	// GraphPolicies bounds the size of the policy variable pi: when
	// |U|^Horizon <= GraphPolicies, pi ranges over every policy; otherwise
	// over the GraphPolicies policies with the lowest G (TopPolicies), and
	// the action distribution is still the exact marginal over all
	// |U|^Horizon policies, streamed. Default 1024.
	GraphPolicies int
	// Iterations and Tolerance control the VMP sweeps (schedule.Settings);
	// defaults 200 and 1e-10.
	Iterations int
	Tolerance  float64
	// ActionPrecision is α of the choice distribution P(u) = σ(α ln
	// P_marginal(u)), P_marginal being the Bayesian model average
	// (Plan.ActionProbs), as pymdp's stochastic action selection: what
	// SelectSample draws from and what a recorded choice is scored with.
	// nil means 1 (P(u) is the model average itself); 0 is uniform over
	// every action. SPM's α (default 512) sharpens the same average.
	ActionPrecision *float64
	// LearningRate η and Forgetting ω of the Dirichlet learning at the end
	// of every trial, c' = ω c + η Δc (pomdp.Learning); nil means 1.
	LearningRate, Forgetting *float64
	// Past is how the past is inferred: pomdp.PastFilter (the default:
	// exact filtering, as SPM and pymdp infer the current state, with
	// smoothing for learning) or pomdp.PastVMP (the paper's mean field over
	// the past; docs/pomdp.md, "Past inference").
	Past pomdp.PastInference
	// ActionFactors is how a model with several controllable factors
	// chooses: agent.JointActions (the default: P(u) ∝ P_marginal(u)^α
	// over the joint actions) or agent.IndependentActions (each factor's
	// control from σ(α ln P_f), P_f its marginal, as pymdp samples; the
	// product is what a recorded choice is scored with).
	ActionFactors agent.ActionFactors
	// Jobs is how many goroutines one decision scores the policies on
	// (EFEOptions.Jobs); 0 means 1. The decisions are the same for any
	// Jobs. SetJobs changes it on an agent (agent.Splitter).
	Jobs int
}

// resolve returns the options with defaults filled in, or an error naming
// the invalid field.
func (o *AgentOptions) resolve(m *pomdp.Model) (AgentOptions, error) {
	var r AgentOptions
	if o != nil {
		r = *o
		r.Habits = clone(o.Habits)
	} else {
		o = &r
	}
	if r.Horizon == 0 {
		r.Horizon = DefaultHorizon
	}
	if r.Horizon < 0 {
		return r, fmt.Errorf("AgentOptions.Horizon: %d, want >= 1", r.Horizon)
	}
	if r.Jobs < 0 {
		return r, fmt.Errorf("AgentOptions.Jobs: %d, want >= 0", r.Jobs)
	}
	if r.Gamma == 0 {
		r.Gamma = DefaultGamma
	}
	if err := checkGamma("AgentOptions.Gamma", r.Gamma); err != nil {
		return r, err
	}
	if r.Beta == 0 {
		r.Beta = DefaultBeta
	}
	if err := checkGamma("AgentOptions.Beta", r.Beta); err != nil {
		return r, err
	}
	if la, _, _ := m.Learnable(); r.Novelty && !la {
		return r, errors.New("AgentOptions.Novelty: the model has no concentrations a")
	}
	r.ActionPrecision = clonePtr(o.ActionPrecision)
	if p := r.ActionPrecision; p != nil && (math.IsNaN(*p) || math.IsInf(*p, 0) || *p < 0) {
		return r, fmt.Errorf("AgentOptions.ActionPrecision: %v, want finite >= 0", *p)
	}
	r.LearningRate, r.Forgetting = clonePtr(o.LearningRate), clonePtr(o.Forgetting)
	if !r.ActionFactors.Valid() {
		return r, fmt.Errorf("AgentOptions.ActionFactors: %v, want agent.JointActions or agent.IndependentActions", r.ActionFactors)
	}
	if r.Habits != nil {
		if len(r.Habits) != m.NumActions() {
			return r, fmt.Errorf("AgentOptions.Habits: %d entries, want %d (number of actions)", len(r.Habits), m.NumActions())
		}
		if err := expfam.ValidateDistribution(r.Habits, pomdp.Tolerance); err != nil {
			return r, fmt.Errorf("AgentOptions.Habits: %w", err)
		}
	}
	switch r.Select {
	case "":
		r.Select = SelectArgmax
	case SelectArgmax, SelectSample:
	default:
		return r, fmt.Errorf("AgentOptions.Select: %q, want %q or %q", r.Select, SelectArgmax, SelectSample)
	}
	if r.GraphPolicies == 0 {
		r.GraphPolicies = DefaultGraphPolicies
	}
	if r.GraphPolicies < 1 {
		return r, fmt.Errorf("AgentOptions.GraphPolicies: %d, want >= 1", r.GraphPolicies)
	}
	if r.Iterations == 0 {
		r.Iterations = DefaultIterations
	}
	switch r.Past {
	case pomdp.PastDefault:
		r.Past = pomdp.PastFilter
	case pomdp.PastVMP, pomdp.PastFilter, pomdp.PastFactorised:
	default:
		return r, fmt.Errorf("AgentOptions.Past: %d, want pomdp.PastFilter, pomdp.PastVMP or pomdp.PastFactorised", int(r.Past))
	}
	if r.Iterations < 0 {
		return r, fmt.Errorf("AgentOptions.Iterations: %d, want >= 1", r.Iterations)
	}
	if r.Tolerance == 0 {
		r.Tolerance = DefaultTolerance
	}
	if math.IsNaN(r.Tolerance) || math.IsInf(r.Tolerance, 0) || r.Tolerance < 0 {
		return r, fmt.Errorf("AgentOptions.Tolerance: %v, want finite >= 0", r.Tolerance)
	}
	if _, err := NumPolicies(m.NumActions(), r.Horizon, math.MaxInt); err != nil {
		return r, fmt.Errorf("AgentOptions.Horizon: %w", err)
	}
	if r.InferGamma {
		// The Softmax node of P(pi | gamma) needs finite G, and a zero in
		// C can make G infinite (package documentation, "Zeros in C").
		for i := range m.NumModalities() {
			for o, c := range m.ModalityC(i) {
				if c != 0 {
					continue
				}
				where := fmt.Sprintf("C[%d]", o)
				if m.Factorised() {
					where = fmt.Sprintf("modality %q: C[%d]", m.ModalityName(i), o)
				}
				return r, fmt.Errorf("AgentOptions.InferGamma: %s is 0; inferring gamma needs every C > 0 (a zero in C makes G = +Inf for the policies that can reach that outcome)", where)
			}
		}
	}
	return r, nil
}

// Plan is what the agent computed at its last Act.
type Plan struct {
	// NumPolicies is |U|^Horizon, the number of policies scored.
	NumPolicies int
	// Policies are the policies held by the variable pi: all of them in
	// lexicographic order when NumPolicies <= GraphPolicies, otherwise the
	// GraphPolicies lowest-G ones in ascending G. Their QPi field is
	// softmax(-gamma G) over all NumPolicies policies at the precision used
	// (the fixed Gamma, or E[gamma] when inferred), without habits.
	Policies []RankedPolicy
	// QPi is the posterior q(pi) of the graph's policy variable, aligned
	// with Policies.
	QPi []float64
	// ActionProbs[u] is the Bayesian model average: the posterior mass of
	// the policies whose first action is u (paper section 4, "Action
	// selection"), over all NumPolicies policies.
	ActionProbs []float64
	// Gamma is the posterior of the precision (shape, rate) when inferred;
	// with a fixed precision its Shape is 0 and GammaMean is the fixed value.
	Gamma     expfam.Gamma
	GammaMean float64
	// FreeEnergy is the trace of the (local) free energy of pi and gamma:
	// entry 0 after the first update of pi with gamma at its prior, then
	// one entry per VMP sweep over pi and gamma (only with InferGamma).
	FreeEnergy []float64
	// PastFreeEnergy is the trace of F of the state inference over the past.
	PastFreeEnergy []float64
	// Action is the action chosen.
	Action int
}

// Agent is a classic active inference agent (paper section 4). Its
// generative model is one ffg.Graph holding the past and present, S_0..S_t
// with observed O_0..O_t and the actions taken U_0..U_(t-1), optionally
// with Dirichlet-distributed A, B and D (priors a, b, d), and, after Act, the
// policy variable pi with its prior softmax(-gamma G) and, when inferred, the
// precision gamma with prior Gamma(1, beta). The future states S_(t+1..t+T)
// conditioned on each policy, Q(S_tau|pi) = B_{pi_tau} Q(S_(tau-1)|pi), are
// not graph variables: they are walked depth first by EvaluatePolicies and
// TopPolicies with O(T |S|) memory (see docs/aci.md for why).
//
// An Agent is not safe for concurrent use: give every goroutine its own.
// Agents may share a *pomdp.Model, which none of them modifies. The zero
// Agent is not usable (it has no model): make one with NewAgent. Its
// methods that return an error return one; the others return zero values.
type Agent struct {
	m    *pomdp.Model
	opts AgentOptions
	rng  *rand.Rand
	ns   int
	no   int
	nu   int

	// The past and present of the trial (shared with btai: pomdp.Past, the
	// whole trial is kept) and the graph pi and gamma are in: the past's
	// graph when it has one, otherwise pg, of the policy alone (Graph
	// moves them).
	past      *pomdp.Past
	g, pg     *ffg.Graph
	held      policyHeld    // what pi was inferred from, for Graph
	piOut     bool          // q(pi) of the last Act was computed without a graph (fixedPolicy)
	polBuf    []float64     // scratch of fixedPolicy
	begun     bool          // a Reset has succeeded
	obs       []int         // o_0..o_t
	acts      []int         // u_0..u_(t-1)
	pi, gamma *ffg.Variable // nil when not in the graph
	inTrial   bool

	model  *pomdp.Model // the model (expected parameters) of the last Act
	qs     []float64
	plan   *Plan
	fresh  bool      // the past has been inferred since it last grew
	pastFE []float64 // F of the last inference over the past
	probs  []float64 // the choice distribution of the last Act
	wk     walker    // the policy walk's buffers, kept from one decision to the next

	pastRes schedule.Result // the last inference over the past (pastFE is its FreeEnergy)
	re      reuse           // what DecideInto keeps from one decision to the next
}

var _ agent.Agent = (*Agent)(nil)

// NewAgent returns an agent for the POMDP m. A nil opts means the
// documented defaults (see AgentOptions). When m has concentrations a, b
// or d, the agent learns them: they are Dirichlet variables of the graph and
// EndTrial makes their posterior the next trial's prior. (pomdp.New has
// already checked that every concentration is > 0.)
func NewAgent(m *pomdp.Model, opts *AgentOptions) (*Agent, error) {
	if err := pomdp.Check(m); err != nil {
		return nil, apiError(err)
	}
	o, err := opts.resolve(m)
	if err != nil {
		return nil, apiError(err)
	}
	a := &Agent{
		m: m, opts: o,
		rng: seeded(o.Seed),
		ns:  m.NumStates(), no: m.NumObs(), nu: m.NumActions(),
	}
	if a.past, err = pomdp.NewPastWith(m, 0, o.Past); err != nil {
		return nil, apiError(err)
	}
	if o.LearningRate != nil || o.Forgetting != nil {
		if err := a.past.SetLearning(pomdp.Learning{Rate: o.LearningRate, Forgetting: o.Forgetting}); err != nil {
			return nil, fmt.Errorf("aci: AgentOptions: %w", err)
		}
	}
	return a, nil
}

// clonePtr returns a copy of *p (nil for nil).
func clonePtr(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// clone returns a copy of x (nil for nil).
func clone(x []float64) []float64 {
	if x == nil {
		return nil
	}
	return append([]float64(nil), x...)
}

// SetRand makes rng drive the action sampling of Act (AgentOptions.Select =
// SelectSample) from now on; Decide draws from the stream it is given. A
// nil rng restores the stream NewAgent made from AgentOptions.Seed, from
// its start.
func (a *Agent) SetRand(rng *rand.Rand) {
	if rng == nil {
		rng = seeded(a.opts.Seed)
	}
	a.rng = rng
}

// seeded is the action sampler of AgentOptions.Seed.
func seeded(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// errZero is the error of the methods of the zero Agent.
var errZero = errors.New("aci: the zero Agent has no model (use NewAgent)")

// background returns ctx, or context.Background() for a nil ctx.
func background(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// SetJobs lets the agent score the policies of one decision on up to n
// goroutines (AgentOptions.Jobs; n < 1 means 1): agent.Splitter. Its
// decisions do not change.
func (a *Agent) SetJobs(n int) { a.opts.Jobs = max(1, n) }

// Options returns the resolved options.
func (a *Agent) Options() AgentOptions {
	o := a.opts
	o.Habits = clone(a.opts.Habits)
	return o
}

// Graph returns the agent's generative model (nil before the first Reset).
// It must not be modified. Under PastFilter the past's graph is built when
// Graph is first called in a trial, and pi (and gamma) are put in it then:
// planning and replay need neither (pomdp.Past.HasGraph).
func (a *Agent) Graph() *ffg.Graph { return a.graph() }

// Time returns t, the index of the present time step of the trial.
func (a *Agent) Time() int { return max(len(a.obs)-1, 0) }

// Reset starts a new trial with the first observation obs: a new graph
// holding the Dirichlet parameters (with the current priors), S_0 with its
// prior D and the observed O_0, and infers S_0 (Belief). The evidence of a
// trial that was not closed by EndTrial is discarded. An observation out of
// range, or one that the model gives probability 0 (an error wrapping
// pomdp.ErrImpossibleObservation), is an error and starts no trial. A nil
// ctx is context.Background(), here and in every method of Agent.
func (a *Agent) Reset(ctx context.Context, obs int) error {
	if a.past == nil {
		return apiError(errZero)
	}
	if obs < 0 || obs >= a.no {
		return fmt.Errorf("aci: observation %d out of range [0, %d)", obs, a.no)
	}
	ctx = background(ctx)
	a.obs, a.acts = a.obs[:0], a.acts[:0]
	if a.g == a.pg {
		a.clearPolicy()
	}
	a.pi, a.gamma, a.piOut, a.plan, a.qs = nil, nil, false, nil, nil
	if err := a.past.Reset(obs); err != nil {
		return apiError(err)
	}
	a.g, a.begun = nil, true
	a.obs = append(a.obs, obs)
	a.inTrial = true
	a.fresh = false
	_, err := a.inferPast(ctx)
	return apiError(err)
}

// AdvanceMixed is Advance after an action that is not known (a missed
// response), taken with the distribution probs over joint actions: the
// belief is carried forward under that mixture of transitions
// (pomdp.Past.GrowMixed; agent.MixedAdvancer). History lists the action as
// -1.
func (a *Agent) AdvanceMixed(ctx context.Context, probs []float64, obs int) error {
	if a.past == nil {
		return apiError(errZero)
	}
	if !a.inTrial {
		return errors.New("aci: AdvanceMixed: no trial in progress (call Reset)")
	}
	ctx = background(ctx)
	a.clearPolicy()
	if err := a.past.GrowMixed(probs, obs); err != nil {
		return apiError(err)
	}
	a.fresh = false
	a.obs = append(a.obs, obs)
	a.acts = append(a.acts, -1)
	_, err := a.inferPast(ctx)
	return apiError(err)
}

var _ agent.MixedAdvancer = (*Agent)(nil)

// Advance records the action taken at the present step and the
// observation that followed (Observe), and infers the new present state
// (Belief). An observation that the model gives probability 0 after the
// past is an error wrapping pomdp.ErrImpossibleObservation, and the past
// stays as it was.
func (a *Agent) Advance(ctx context.Context, action, obs int) error {
	if err := a.Observe(action, obs); err != nil {
		return apiError(err)
	}
	_, err := a.inferPast(background(ctx))
	return apiError(err)
}

// Observe records the action taken at the present step and the observation
// that followed: the graph grows by the observed U_t, the state S_(t+1)
// linked to S_t and U_t through B, and the observed O_(t+1).
func (a *Agent) Observe(action, obs int) error {
	if a.past == nil {
		return apiError(errZero)
	}
	if !a.inTrial {
		return errors.New("aci: Observe: no trial in progress (call Reset)")
	}
	if action < 0 || action >= a.nu {
		return fmt.Errorf("aci: action %d out of range [0, %d)", action, a.nu)
	}
	if obs < 0 || obs >= a.no {
		return fmt.Errorf("aci: observation %d out of range [0, %d)", obs, a.no)
	}
	a.clearPolicy()
	if err := a.past.Grow(action, obs); err != nil {
		return apiError(err)
	}
	a.fresh = false
	a.obs = append(a.obs, obs)
	a.acts = append(a.acts, action)
	return nil
}

// clearPolicy removes pi and gamma (and their factors) from the graph.
func (a *Agent) clearPolicy() {
	var vs []*ffg.Variable
	if a.pi != nil {
		vs = append(vs, a.pi)
	}
	if a.gamma != nil {
		vs = append(vs, a.gamma)
	}
	if len(vs) > 0 && a.g != nil {
		a.g.RemoveVariables(vs...)
	}
	a.pi, a.gamma, a.piOut = nil, nil, false
}

func (a *Agent) settings() *schedule.Settings {
	return &schedule.Settings{Iterations: a.opts.Iterations, Tolerance: a.opts.Tolerance}
}

// inferPast runs global VMP over the past and present (pi and gamma are not
// in the graph then).
func (a *Agent) inferPast(ctx context.Context) (*schedule.Result, error) {
	a.clearPolicy()
	if err := a.past.InferInto(ctx, a.settings(), &a.pastRes); err != nil {
		return nil, fmt.Errorf("state inference over the past: %w", err)
	}
	a.fresh, a.pastFE = true, a.pastRes.FreeEnergy
	return &a.pastRes, nil
}

// expectedModel returns the POMDP with A, B, D the expectations of the
// current Dirichlet posteriors (and a the posterior concentrations, for the
// novelty term), or the agent's model when nothing is learned.
func (a *Agent) expectedModel() (*pomdp.Model, error) {
	return a.past.ExpectedModel()
}

// Act performs one step of the action-perception cycle: state inference
// over the past (global VMP on the graph), the expected free energy of every
// policy of length Horizon from q(S_t) (EvaluatePolicies, or TopPolicies
// when |U|^Horizon exceeds GraphPolicies), the policy posterior q(pi) on the
// graph (with gamma fixed or inferred), the action distribution (Bayesian
// model average over policies) and the choice of an action (argmax or a
// seeded sample). The action is not applied: report it with Observe.
func (a *Agent) Act(ctx context.Context) (int, error) {
	if err := a.act(ctx, a.rng, nil); err != nil {
		return 0, apiError(err)
	}
	return a.plan.Action, nil
}

// Decide is Act with the choice drawn from rng (agent.Agent): the
// decision's Probs is the choice distribution σ(α ln P_marginal(u))
// (AgentOptions.ActionPrecision), its Values the G, risk, ambiguity and
// q(pi) of the policies held by pi (Plan.Policies) and the model average
// P_marginal, its Cost the lowest G among the held policies that start
// with the action taken, its Work the policies scored, its Precision E[γ]
// when the precision is inferred, and its Detail the *Plan. A nil rng is an error, whatever the
// choice rule.
func (a *Agent) Decide(ctx context.Context, rng *rand.Rand) (*agent.Decision, error) {
	if rng == nil && a.past != nil {
		return nil, errors.New("aci: Decide with a nil random stream")
	}
	if err := a.act(ctx, rng, nil); err != nil {
		return nil, apiError(err)
	}
	d := &agent.Decision{}
	a.record(d)
	return d, nil
}

// act is one step of Act, drawing a sampled choice from rng; with re the
// plan is written into re's buffers (DecideInto), otherwise into new ones.
func (a *Agent) act(ctx context.Context, rng *rand.Rand, re *reuse) error {
	if a.past == nil {
		return errZero
	}
	if !a.inTrial {
		return errors.New("aci: Act: no trial in progress (call Reset)")
	}
	ctx = background(ctx)
	if err := ctx.Err(); err != nil {
		return err
	}
	a.clearPolicy()
	if !a.fresh {
		if _, err := a.inferPast(ctx); err != nil {
			return err
		}
	}
	model, err := a.expectedModel()
	if err != nil {
		return err
	}
	var qs []float64
	if re != nil {
		re.qs = a.past.BeliefInto(re.qs)
		qs = re.qs
	} else {
		qs = a.past.Belief()
	}
	plan, err := a.plan1(ctx, model, qs, re)
	if err != nil {
		return err
	}
	plan.PastFreeEnergy = append(plan.PastFreeEnergy[:0], a.pastFE...)
	var dst []float64
	if re != nil {
		dst = re.probs
	}
	probs, err := a.Choose(dst, plan.ActionProbs)
	if err != nil {
		return err
	}
	if re != nil && len(probs) > 0 && &probs[0] != &plan.ActionProbs[0] {
		re.probs = probs
	}
	plan.Action = a.choose(rng, plan.ActionProbs, probs)
	a.model, a.qs, a.plan, a.probs = model, qs, plan, probs
	return nil
}

// Choose returns the choice probabilities of a decision whose model
// average over actions is base: σ(α ln base) over the joint actions, or the
// product of the controllable factors' σ(α ln P_f) with independent action
// factors (agent.ChooseProbs). It is what Decide computes; fitting calls it
// for α alone (agent.Chooser).
func (a *Agent) Choose(dst, base []float64) ([]float64, error) {
	return apiResult(choiceRule{a.m, a.opts.ActionPrecision, a.opts.ActionFactors}.Choose(dst, base))
}

// plan1 scores the policies and infers q(pi) (and gamma) on the graph,
// into re's buffers when re is not nil (DecideInto).
func (a *Agent) plan1(ctx context.Context, m *pomdp.Model, qs []float64, re *reuse) (*Plan, error) {
	H := a.opts.Horizon
	efeOpts := &EFEOptions{Novelty: a.opts.Novelty, Jobs: a.opts.Jobs}
	n, err := NumPolicies(m.NumActions(), H, math.MaxInt)
	if err != nil {
		return nil, fmt.Errorf("AgentOptions.Horizon: %w", err)
	}
	gamma0 := a.opts.Gamma
	if a.opts.InferGamma {
		gamma0 = 1 / a.opts.Beta // prior mean of Gamma(1, beta)
	}
	var plan *Plan
	var psDst *PolicySet
	var G, qpi []float64
	var rk, rk2 *ranker // new ones (topPolicies), unless the decision reuses
	if re != nil {
		rk, rk2 = &re.rank, &re.rank2
		old := re.plan
		plan = &re.plan
		*plan = Plan{NumPolicies: n, Policies: old.Policies[:0], QPi: old.QPi[:0], ActionProbs: old.ActionProbs[:0], PastFreeEnergy: old.PastFreeEnergy[:0]}
		psDst, G, qpi = &re.ps, re.G, re.qpi
	} else {
		plan = &Plan{NumPolicies: n}
	}
	var all *PolicySet
	var rank *Ranking
	if n <= a.opts.GraphPolicies {
		if all, err = evaluatePolicies(ctx, &a.wk, m, qs, H, efeOpts, psDst); err != nil {
			return nil, err
		}
		var pol [][]int
		if re != nil {
			if len(re.pols) != n || len(re.pols[0]) != H {
				re.pols = all.Policies()
			}
			pol = re.pols
			if cap(plan.Policies) >= n {
				plan.Policies = plan.Policies[:n]
			}
		} else {
			pol = all.Policies()
		}
		if len(plan.Policies) != n {
			plan.Policies = make([]RankedPolicy, n)
		}
		for i := range plan.Policies {
			p := &plan.Policies[i]
			*p = RankedPolicy{Index: i, Policy: pol[i], G: all.G[i], Risk: all.Risk[i], Ambiguity: all.Ambiguity[i]}
			if all.Novelty != nil {
				p.Novelty = all.Novelty[i]
			}
		}
	} else {
		if rank, err = topPolicies(ctx, rk, m, qs, H, a.opts.GraphPolicies, gamma0, efeOpts); err != nil {
			return nil, err
		}
		plan.Policies = rank.Best
	}
	G = sized(G, len(plan.Policies))
	if re != nil {
		re.G = G
	}
	for i := range G {
		G[i] = plan.Policies[i].G
	}
	if err := a.inferPolicy(ctx, plan, G); err != nil {
		return nil, err
	}
	gbar := plan.GammaMean
	// Bayesian model average over first actions.
	switch {
	case all != nil:
		plan.ActionProbs = all.ActionProbs(plan.ActionProbs, plan.QPi)
		qpi, err := all.Posterior(qpi, gbar)
		if err != nil {
			return nil, err
		}
		if re != nil {
			re.qpi = qpi
		}
		for i := range plan.Policies {
			plan.Policies[i].QPi = qpi[i]
		}
	case a.opts.Habits == nil && gbar == gamma0:
		plan.ActionProbs = rank.ActionProbs
	default:
		// The graph holds only the best policies: stream the exact marginal
		// over all of them at the posterior precision, with the habits.
		r2, err := topPolicies(ctx, rk2, m, qs, H, len(plan.Policies), gbar, efeOpts)
		if err != nil {
			return nil, err
		}
		plan.Policies = r2.Best
		plan.ActionProbs = r2.ActionProbs
		if h := a.opts.Habits; h != nil {
			z := 0.0
			for u := range plan.ActionProbs {
				plan.ActionProbs[u] *= h[u]
				z += plan.ActionProbs[u]
			}
			if !(z > 0) {
				return nil, errors.New("AgentOptions.Habits: every action with posterior mass has habit 0")
			}
			for u := range plan.ActionProbs {
				plan.ActionProbs[u] /= z
			}
		}
	}
	return plan, nil
}

// choose picks an action: a draw from the choice distribution probs
// (SelectSample), or the most probable action under the model average p.
func (a *Agent) choose(rng *rand.Rand, p, probs []float64) int {
	if a.opts.Select == SelectSample {
		return agent.Sample(rng, probs)
	}
	best := 0
	for u, q := range p {
		if q > p[best] {
			best = u
		}
	}
	return best
}

// EndTrial closes the trial: a last round of state inference over the
// whole trial (so that the final observation counts), then Dirichlet
// learning (paper Appendix C): the trial's expected counts
//
//	Δa = sum_tau o_tau ⊗ Q(S_tau)
//	Δb_u = sum_tau [u_tau = u] Q(S_(tau+1), S_tau)
//	Δd = Q(S_0)
//
// where, under PastFilter (the default), Q(S_tau) and the pairwise
// Q(S_(tau+1), S_tau) are the exact smoothed posteriors, and under PastVMP
// the mean-field marginals with the pairwise term their outer product
// Q(S_(tau+1)) ⊗ Q(S_tau) (the VMP fixed point). The next trial's priors
// (empirical priors, paper section 4) are c' = ω c + η Δc with the
// learning rate η and forgetting ω of AgentOptions (1 and 1 by default:
// c' = c + Δc).
// The graph of the trial stays available (Graph, StateBeliefs) until Reset.
func (a *Agent) EndTrial(ctx context.Context) error {
	if a.past == nil {
		return apiError(errZero)
	}
	if !a.inTrial {
		return errors.New("aci: EndTrial: no trial in progress (call Reset)")
	}
	if _, err := a.inferPast(background(ctx)); err != nil {
		return apiError(err)
	}
	a.past.CarryOver()
	a.inTrial = false
	return nil
}

// Belief returns q(S_t), the posterior over the present state after the
// last inference over the past (Reset, Advance, Act or EndTrial; nil before
// the first Reset); every factor's marginal, one after the other.
func (a *Agent) Belief() []float64 {
	if !a.begun {
		return nil
	}
	return a.past.Belief()
}

// StateBeliefs returns the posteriors q(S_0), ..., q(S_t) of the trial;
// with several factors each holds every factor's marginal, one after the
// other. Under PastFilter (the default) they are the exact smoothed
// marginals given every observation of the trial so far, whatever steps
// Act was called at; under PastVMP the graph's mean-field posteriors after
// the last inference (Reset, Advance, Act or EndTrial).
func (a *Agent) StateBeliefs() [][]float64 {
	if !a.begun {
		return [][]float64{}
	}
	return a.past.Smoothed()
}

// History returns the observations o_0..o_t and the actions u_0..u_(t-1)
// of the current (or last) trial.
func (a *Agent) History() (obs, actions []int) {
	return append([]int(nil), a.obs...), append([]int(nil), a.acts...)
}

// LastPlan returns what the last Act computed (nil before it). It must not
// be modified.
func (a *Agent) LastPlan() *Plan { return a.plan }

// PolicyPosterior returns the policies held by pi and their posterior q(pi)
// from the last Act (see Plan.Policies; nil before the first Act).
func (a *Agent) PolicyPosterior() ([]RankedPolicy, []float64) {
	if a.plan == nil {
		return nil, nil
	}
	return a.plan.Policies, clone(a.plan.QPi)
}

// ActionProbs returns the action distribution of the last Act.
func (a *Agent) ActionProbs() []float64 {
	if a.plan == nil {
		return nil
	}
	return clone(a.plan.ActionProbs)
}

// Model returns the POMDP used by the last Act: the agent's model, or with
// learning its A, B and D replaced by the expectations of the current
// Dirichlet posteriors.
func (a *Agent) Model() *pomdp.Model {
	if a.model == nil {
		return a.m
	}
	return a.model
}

// Concentrations returns the prior concentrations of every learned
// parameter, per modality and factor (pomdp.Concentrations): those of the
// current trial, and after EndTrial the learned ones the next trial starts
// from.
func (a *Agent) Concentrations() pomdp.Concentrations {
	if a.past == nil {
		return pomdp.Concentrations{}
	}
	return a.past.Concentrations()
}
