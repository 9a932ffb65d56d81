package si

import (
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// Branching is how the search branches over the outcomes that follow an
// action (Options.Branch).
type Branching int

const (
	// Joint branches over the joint outcomes of all modalities, with their
	// exact probability P(o_1, ..., o_M) = Σ_s Q(s) Π_m A_m(o_m | s) under
	// the predicted belief: the default.
	Joint Branching = iota
	// Marginal branches over every combination of the modalities' outcomes
	// with the product of their predicted marginals Π_m Q(o_m), as pymdp's
	// si_policy_search does. A combination that cannot occur jointly (zero
	// likelihood under every state the belief allows) is skipped and the
	// kept ones renormalised.
	Marginal
)

var branchNames = []string{"joint", "marginal"}

// String returns "joint" or "marginal".
func (b Branching) String() string {
	if b >= 0 && int(b) < len(branchNames) {
		return branchNames[b]
	}
	return fmt.Sprintf("Branching(%d)", int(b))
}

// ParseBranching parses "joint" or "marginal".
func ParseBranching(s string) (Branching, error) {
	for i, n := range branchNames {
		if s == n {
			return Branching(i), nil
		}
	}
	return 0, fmt.Errorf("si: %q, want joint or marginal", s)
}

// Action selection rules of Options.Select (the Agent's choice).
const (
	SelectArgmax = "argmax" // the most probable action (lowest index on ties)
	SelectSample = "sample" // a draw from the decision's distribution
)

// Defaults of Options (a nil *Options, or a zero field).
const (
	// DefaultDepth is the number of future steps searched.
	DefaultDepth = 3
	// DefaultGamma is the precision γ of Q(u | o) = σ(−γ G) at every node:
	// 1, the unit precision of SPM's spm_forwards (softmax of G) and the
	// default of pymdp's si_policy_search.
	DefaultGamma = 1
	// DefaultMaxNodes bounds the beliefs scored by one search.
	DefaultMaxNodes = 100_000
	// DefaultMaxBranches bounds the outcomes kept after one action.
	DefaultMaxBranches = 4096
)

// MaxDepth is the largest Options.Depth.
const MaxDepth = 256

// Options configures the search (Plan, Planner) and the Agent. A nil
// *Options, or a zero field, means the documented default; the one field
// where zero is a meaningful value other than the default
// (ActionPrecision: 0 is the uniform choice) is a pointer. A zero
// PruneActions or PruneOutcomes is the default: no pruning.
type Options struct {
	// Depth is the number of future steps: actions at the present and
	// Depth − 1 more, each after every outcome the search keeps. Default
	// DefaultDepth; 1..MaxDepth.
	Depth int
	// Gamma is the precision γ of Q(u | o) = σ(−γ G(u | q^o)) at every node
	// of the search, the root included. Default DefaultGamma; finite > 0.
	Gamma float64
	// Branch is Joint (the default, exact) or Marginal (pymdp's).
	Branch Branching
	// PruneActions x in [0, 1): at every node, an action whose probability
	// σ(−γ G_local) under its one-step expected free energy is below x is
	// not expanded and gets probability 0 there (pymdp's rule); with
	// PruneRelative the bound is x × the largest probability at the node
	// (SPM's rule). The most probable action is always expanded. 0 (the
	// default) prunes nothing.
	PruneActions float64
	// PruneRelative makes PruneActions relative to the most probable
	// action at the node.
	PruneRelative bool
	// PruneOutcomes p in [0, 1): an outcome whose probability is below p
	// is skipped and the kept ones renormalised, so that a pruned search
	// approximates the unpruned value. At most ⌊1/p⌋ outcomes follow an
	// action. 0 (the default) keeps every outcome of positive probability.
	PruneOutcomes float64
	// MaxBranches bounds the outcomes kept after one action: the most
	// probable ones, renormalised (Result.Capped counts the actions cut).
	// Default DefaultMaxBranches; >= 1.
	MaxBranches int
	// MaxNodes bounds the beliefs scored by one search (a belief reached
	// again, by another path or at another depth, is not scored again).
	// Past it the search stops deepening and returns the deepest depth it
	// completed, with Result.Truncated set. Default DefaultMaxNodes; at
	// least 1 + the number of joint actions (the root and one child per
	// action: one level).
	MaxNodes int
	// Novelty subtracts the parameter information gain about A from the
	// expected free energy of every step, as aci.EFEOptions.Novelty does
	// (pomdp.StepCost); the model must have concentrations a. The imagined
	// future does not learn: every step uses the same a.
	Novelty bool

	// The Agent's options (Plan ignores them).

	// ActionPrecision is α of the decision's distribution P(u) = σ(α ln
	// Q(u)), Q the root's σ(−γ G), as aci's AgentOptions.ActionPrecision:
	// nil means 1 (P = Q); 0 is uniform over every action.
	ActionPrecision *float64
	// ActionFactors is how a model with several controllable factors
	// chooses, as aci's AgentOptions.ActionFactors: agent.JointActions
	// (the default) or agent.IndependentActions (each factor's control
	// from σ(α ln Q_f), Q_f its marginal, as pymdp samples).
	ActionFactors agent.ActionFactors
	// Select is SelectArgmax (the default: the most probable action under
	// Q, lowest index on ties) or SelectSample (a draw from P with the
	// decision's random stream).
	Select string
	// LearningRate η and Forgetting ω of the Dirichlet learning at the end
	// of every trial, c' = ω c + η Δc (pomdp.Learning); nil means 1.
	LearningRate, Forgetting *float64
}

// Resolved returns the options with every default filled in (the pointers
// of the result are its own). It does not validate them: Validate does.
func (o *Options) Resolved() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Depth == 0 {
		r.Depth = DefaultDepth
	}
	if r.Gamma == 0 {
		r.Gamma = DefaultGamma
	}
	if r.MaxNodes == 0 {
		r.MaxNodes = DefaultMaxNodes
	}
	if r.MaxBranches == 0 {
		r.MaxBranches = DefaultMaxBranches
	}
	if r.Select == "" {
		r.Select = SelectArgmax
	}
	r.ActionPrecision = clonePtr(r.ActionPrecision)
	r.LearningRate, r.Forgetting = clonePtr(r.LearningRate), clonePtr(r.Forgetting)
	return r
}

// Validate returns an error naming the first invalid option for model m
// (nil: the checks that need no model), after the defaults are filled in.
func (o *Options) Validate(m *pomdp.Model) error {
	r := o.Resolved()
	return apiError(r.validate(m))
}

func (o *Options) validate(m *pomdp.Model) error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case o.Depth < 1 || o.Depth > MaxDepth:
		return fmt.Errorf("Options.Depth: %d, want 1..%d", o.Depth, MaxDepth)
	case !finite(o.Gamma) || o.Gamma <= 0:
		return fmt.Errorf("Options.Gamma: %v, want finite > 0", o.Gamma)
	case o.Branch != Joint && o.Branch != Marginal:
		return fmt.Errorf("Options.Branch: %d, want Joint or Marginal", int(o.Branch))
	case !(o.PruneActions >= 0 && o.PruneActions < 1):
		return fmt.Errorf("Options.PruneActions: %v, want a number in [0, 1)", o.PruneActions)
	case !(o.PruneOutcomes >= 0 && o.PruneOutcomes < 1):
		return fmt.Errorf("Options.PruneOutcomes: %v, want a number in [0, 1)", o.PruneOutcomes)
	case o.PruneRelative && o.PruneActions == 0:
		return fmt.Errorf("Options.PruneRelative: needs PruneActions > 0")
	case o.MaxBranches < 1:
		return fmt.Errorf("Options.MaxBranches: %d, want >= 1", o.MaxBranches)
	case o.MaxNodes < 1:
		return fmt.Errorf("Options.MaxNodes: %d, want >= 1", o.MaxNodes)
	case o.ActionPrecision != nil && (!finite(*o.ActionPrecision) || *o.ActionPrecision < 0):
		return fmt.Errorf("Options.ActionPrecision: %v, want finite >= 0", *o.ActionPrecision)
	case o.Select != SelectArgmax && o.Select != SelectSample:
		return fmt.Errorf("Options.Select: %q, want %q or %q", o.Select, SelectArgmax, SelectSample)
	case !o.ActionFactors.Valid():
		return fmt.Errorf("Options.ActionFactors: %v, want agent.JointActions or agent.IndependentActions", o.ActionFactors)
	}
	if o.LearningRate != nil && (!finite(*o.LearningRate) || *o.LearningRate < 0) {
		return fmt.Errorf("Options.LearningRate: %v, want a finite η >= 0", *o.LearningRate)
	}
	if o.Forgetting != nil && !(*o.Forgetting > 0 && *o.Forgetting <= 1) {
		return fmt.Errorf("Options.Forgetting: %v, want 0 < ω <= 1", *o.Forgetting)
	}
	if m == nil {
		return nil
	}
	if need := 1 + m.NumActions(); o.MaxNodes < need {
		return fmt.Errorf("Options.MaxNodes: %d, want >= %d (the root and one child per action: one level of the search)", o.MaxNodes, need)
	}
	if o.Novelty && m.NoveltyWeights() == nil {
		return fmt.Errorf("Options.Novelty: the model has no concentrations a")
	}
	if j := jointStates(m); j > pomdp.MaxFilterStates {
		return fmt.Errorf("model: %g joint states, more than %d (the search updates beliefs exactly over the joint state)", j, pomdp.MaxFilterStates)
	}
	return nil
}

// jointStates returns Π_f |S_f|.
func jointStates(m *pomdp.Model) float64 {
	j := 1.0
	for f := range m.NumFactors() {
		j *= float64(m.FactorSize(f))
	}
	return j
}

func clonePtr(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
