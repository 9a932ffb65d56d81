package si

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// Description describes sophisticated inference to the drivers of every verb
// (agent.Planner). Where a verb scores recorded choices (replay, fit, and
// the fits of recover through Factory.Scoring), a search that the node
// budget cuts short is an error, so that a choice is always scored at the
// depth asked for.
var Description = &agent.Planner{
	Name:     "si",
	Doc:      "sophisticated inference",
	Synopsis: "--depth D [--gamma 1] [--branch joint|marginal] [--prune-actions x [--prune-relative]] [--prune-outcomes p] [--max-branches K] [--max-nodes N] [--novelty] [--action-precision α] [--action-factors joint|independent] [--eta η] [--omega ω] [--max-minutes 10]",
	WorkUnit: "beliefs scored",
	Flags:    registerFlags,
}

// SearchFlags are the flags of the search, shared by `si plan` and every
// verb: depth, precision, branching, pruning, budgets and novelty.
type SearchFlags struct {
	fs            *flag.FlagSet
	depth         *int
	gamma         *float64
	branch        *string
	pruneActions  *float64
	pruneRelative *bool
	pruneOutcomes *float64
	maxBranches   *int
	maxNodes      *int
	maxMin        *float64
	novelty       *bool
}

// RegisterSearchFlags registers the search's flags on fs.
func RegisterSearchFlags(fs *flag.FlagSet) *SearchFlags {
	f := &SearchFlags{fs: fs}
	f.depth = fs.Int("depth", 0, fmt.Sprintf("future steps searched (1..%d; required)", MaxDepth))
	f.gamma = fs.Float64("gamma", DefaultGamma, "precision of Q(u | o) = σ(−γ G) at every node (finite > 0)")
	f.branch = fs.String("branch", Joint.String(), "outcome branching: joint (the joint outcomes of all modalities, exact) or marginal (the product of the modalities' marginals, as pymdp)")
	f.pruneActions = fs.Float64("prune-actions", 0, "do not expand an action whose one-step probability at its node is below x (pymdp's rule), in [0, 1)")
	f.pruneRelative = fs.Bool("prune-relative", false, "with --prune-actions: below x times the most probable action's (SPM's rule)")
	f.pruneOutcomes = fs.Float64("prune-outcomes", 0, "skip outcomes of probability below p and renormalise the kept ones, p in [0, 1)")
	f.maxBranches = fs.Int("max-branches", DefaultMaxBranches, "keep at most this many outcomes after an action, the most probable (>= 1)")
	f.maxNodes = fs.Int("max-nodes", DefaultMaxNodes, "score at most this many beliefs per search; past it the search returns the deepest depth it completed and says so")
	f.maxMin = fs.Float64("max-minutes", 10, "refuse when one search is estimated to take longer than this many minutes (the estimate is printed with the refusal)")
	f.novelty = fs.Bool("novelty", false, "subtract the novelty of A (the information gain about it) at every step (needs concentrations a)")
	return f
}

// Options checks the flags that need no model and returns the search's
// options.
func (f *SearchFlags) Options() (*Options, error) {
	given := agent.Given(f.fs)
	if !given["depth"] {
		return nil, apiError(agent.Flagf("depth", "missing (want the number of future steps, 1..%d)", MaxDepth))
	}
	b, err := ParseBranching(*f.branch)
	if err != nil {
		return nil, apiError(agent.Flagf("branch", "%s", reason(err)))
	}
	switch {
	case *f.depth < 1 || *f.depth > MaxDepth:
		return nil, apiError(agent.Flagf("depth", "%d, want 1..%d", *f.depth, MaxDepth))
	case math.IsNaN(*f.gamma) || math.IsInf(*f.gamma, 0) || *f.gamma <= 0:
		return nil, apiError(agent.Flagf("gamma", "%v, want finite > 0", *f.gamma))
	case !(*f.pruneActions >= 0 && *f.pruneActions < 1):
		return nil, apiError(agent.Flagf("prune-actions", "%v, want a number in [0, 1)", *f.pruneActions))
	case !(*f.pruneOutcomes >= 0 && *f.pruneOutcomes < 1):
		return nil, apiError(agent.Flagf("prune-outcomes", "%v, want a number in [0, 1)", *f.pruneOutcomes))
	case *f.pruneRelative && *f.pruneActions == 0:
		return nil, apiError(agent.Flagf("prune-relative", "needs --prune-actions x with x > 0"))
	case *f.maxBranches < 1:
		return nil, apiError(agent.Flagf("max-branches", "%d, want >= 1", *f.maxBranches))
	case *f.maxNodes < 1:
		return nil, apiError(agent.Flagf("max-nodes", "%d, want >= 1", *f.maxNodes))
	case !(*f.maxMin > 0) || math.IsInf(*f.maxMin, 0):
		return nil, apiError(agent.Flagf("max-minutes", "%v, want a finite number > 0", *f.maxMin))
	}
	return &Options{
		Depth: *f.depth, Gamma: *f.gamma, Branch: b,
		PruneActions: *f.pruneActions, PruneRelative: *f.pruneRelative, PruneOutcomes: *f.pruneOutcomes,
		MaxBranches: *f.maxBranches, MaxNodes: *f.maxNodes, Novelty: *f.novelty,
	}, nil
}

// Check validates o for model m (read from source, "--model FILE") and
// refuses a search estimated above --max-minutes, with the estimate.
func (f *SearchFlags) Check(m *pomdp.Model, o *Options, source string) error {
	est, err := EstimatePlan(m, o)
	if err != nil {
		return apiError(FlagError(err, source))
	}
	if est.Seconds <= 60**f.maxMin {
		return nil
	}
	tree := fmt.Sprintf("%.3g", est.TreeNodes)
	if math.IsInf(est.TreeNodes, 1) {
		tree = "over 1e308"
	}
	return apiError(&agent.FlagError{Msg: fmt.Sprintf("--depth %d: up to %.3g nodes (the full tree has %s) would take about %s per search (estimated from %d states, %d observations, %d actions), over --max-minutes %g; prune (--prune-outcomes, --prune-actions), lower --max-nodes or raise --max-minutes",
		o.Depth, est.Nodes, tree, agent.Duration(est.Seconds), m.NumStates(), m.NumObs(), m.NumActions(), *f.maxMin)})
}

// FlagError returns err, an error of this package about an Options field,
// as a *agent.FlagError naming the flag that sets the field, or naming
// source (the model's file) when the fault is in the model.
func FlagError(err error, source string) error {
	msg := reason(err)
	for _, f := range []struct{ option, flag string }{
		{"Options.MaxNodes", "--max-nodes"},
		{"Options.Depth", "--depth"},
		{"Options.Novelty", "--novelty"},
		{"Options.ActionPrecision", "--action-precision"},
		{"Options.LearningRate", "--eta"},
		{"Options.Forgetting", "--omega"},
	} {
		if rest, ok := strings.CutPrefix(msg, f.option); ok {
			return apiError(&agent.FlagError{Msg: f.flag + rest})
		}
	}
	return apiError(&agent.FlagError{Msg: fmt.Sprintf("%s: %s", source, strings.TrimPrefix(msg, "model: "))})
}

// flags are the options of one verb: the search's and how the agent acts
// and learns.
type flags struct {
	search *SearchFlags
	verb   agent.Verb
	opts   *Options
	sel    *string // nil where the verb scores choices
	choice *agent.ChoiceFlags
}

func registerFlags(fs *flag.FlagSet, v agent.Verb) agent.Options {
	f := &flags{search: RegisterSearchFlags(fs), verb: v}
	if v == agent.VerbReplay || v == agent.VerbFit || v == agent.VerbRecover {
		fs.Lookup("max-nodes").Usage = "score at most this many beliefs per search; a search it cuts short of --depth is an error here, so that every choice is scored at the depth asked for"
	}
	switch v {
	case agent.VerbRun:
		f.sel = fs.String("select", SelectArgmax, "action selection: argmax (the most probable action of Q(u) = σ(−γ G)) or sample (a draw from P(u) = σ(α ln Q(u)))")
	case agent.VerbSimulate, agent.VerbRecover:
		f.sel = fs.String("select", SelectSample, "action selection: sample (a draw from P(u) = σ(α ln Q(u)): simulated behaviour is drawn) or argmax (the most probable action of Q(u) = σ(−γ G))")
	}
	f.choice = agent.RegisterChoiceFlags(fs, "Q(u)", "Q itself", "Q_f", f.sel != nil)
	return f
}

// Check validates the flags that need no model.
func (f *flags) Check() error {
	o, err := f.search.Options()
	f.opts = o
	return apiError(err)
}

// Refused explains why a verb scoring recorded choices has no --select.
func (f *flags) Refused(name string) string {
	if name == "select" && f.sel == nil {
		return "si " + string(f.verb) + " scores every recorded choice with P(u) = σ(α ln Q(u)), whatever the rule (--select belongs to si run; --action-precision sets α)"
	}
	return ""
}

// Factory checks the flags against model m and returns the factory of the
// verb's agents: strict where the verb scores choices.
func (f *flags) Factory(m *pomdp.Model, source string) (agent.Factory, error) {
	if f.opts == nil {
		if err := f.Check(); err != nil {
			return nil, apiError(err)
		}
	}
	o := *f.opts
	if f.sel != nil && *f.sel != SelectArgmax && *f.sel != SelectSample {
		return nil, apiError(agent.Flagf("select", "%q, want %s or %s", *f.sel, SelectArgmax, SelectSample))
	}
	choice, err := f.choice.Choice(m)
	if err != nil {
		return nil, apiError(err)
	}
	o.ActionFactors, o.ActionPrecision, o.LearningRate, o.Forgetting = choice.ActionFactors, choice.ActionPrecision, choice.LearningRate, choice.Forgetting
	if f.sel != nil {
		o.Select = *f.sel
	}
	if err := f.search.Check(m, &o, source); err != nil {
		return nil, apiError(err)
	}
	if _, err := NewAgent(m, &o); err != nil {
		return nil, apiError(FlagError(err, source))
	}
	return Factory{Options: o, Strict: f.verb == agent.VerbReplay || f.verb == agent.VerbFit}, nil
}

// strictAgent is an agent whose search must reach the depth asked for
// (Factory.Strict).
type strictAgent struct {
	*Agent
}

// Decide is the agent's Decide, with a search cut short by the node
// budget an error naming --max-nodes (the flag that sets
// Options.MaxNodes) and the depth reached.
func (a strictAgent) Decide(ctx context.Context, rng *rand.Rand) (*agent.Decision, error) {
	d, err := a.Agent.Decide(ctx, rng)
	if err != nil {
		return nil, apiError(err)
	}
	if err := a.cutShort(); err != nil {
		return nil, apiError(err)
	}
	return d, nil
}

// DecideInto is the agent's DecideInto (agent.Reuser), with the same error
// as Decide for a search cut short.
func (a strictAgent) DecideInto(ctx context.Context, rng *rand.Rand, d *agent.Decision) error {
	if err := a.Agent.DecideInto(ctx, rng, d); err != nil {
		return apiError(err)
	}
	return apiError(a.cutShort())
}

// cutShort is the error of a last search that the node budget cut short.
func (a strictAgent) cutShort() error {
	if res := a.last; res.Truncated {
		return &agent.FlagError{Msg: fmt.Sprintf("--max-nodes %d: the search stopped at depth %d of %d (%d nodes); raise --max-nodes or prune (--prune-outcomes, --prune-actions), so that every choice is scored at the depth asked for",
			a.o.MaxNodes, res.Depth, a.o.Depth, res.Nodes)}
	}
	return nil
}
