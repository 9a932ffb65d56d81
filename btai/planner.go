package btai

import (
	"flag"
	"fmt"
	"runtime"
	"sync"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// Description describes branching time active inference to the drivers of
// every verb (agent.Planner): its flags per verb (RegisterVerbFlags), their
// checks and its factory. Run picks its action by the preset's rule
// (most-visited by default); the verbs that score or draw choices (replay,
// fit, simulate, recover) use the stochastic rule visits unless
// --action-select softmax is given, and refuse a deterministic rule.
var Description = &agent.Planner{
	Name:     "btai",
	Doc:      "branching time active inference",
	Draws:    true,
	Synopsis: "[--preset scale-free|paper|hp|3mf] [--iterations K] [--cost classic|pcost|feef] [--propagation min-backward|backward|forward] [--inference vmp|predictive] [--selection normalized-uct|unexplored-first|uct|uct-3mf] [--exploration C] [--trial-steps N] [--novelty] [--action-select RULE] [--action-precision α] [--eta η] [--omega ω] [--max-minutes 10]",
	WorkUnit: "planning iterations",
	Flags:    func(fs *flag.FlagSet, v agent.Verb) agent.Options { return RegisterVerbFlags(fs, v) },
}

// VerbFlags are the options of one verb read from its flags: the planning
// options (PlanFlags) and how the agent acts and learns (--action-select,
// --action-precision, --eta, --omega). Description.Flags returns one as
// its agent.Options; it implements agent.Refuser, agent.Settler,
// agent.Limiter and agent.Carrier too.
//
// Check validates the flags; Factory checks them against the model, makes
// the first agent and returns the factory of the verb's agents. Settings,
// MaxWorkers, Carries and Options report the checked options (they run
// Check if it has not run). A VerbFlags is used by one goroutine, the
// driver's; the factory it returns is safe for concurrent use.
type VerbFlags struct {
	plan         *PlanFlags
	act          *actFlags
	verb         agent.Verb
	materialized bool
	opts         *Options // set by a successful Check
}

// RegisterVerbFlags registers on fs the flags of verb v, each with the
// default that v uses when the flag is omitted: --action-select defaults
// to most-visited for run (the default preset's rule; without the flag,
// run takes the preset's) and to visits for the others, whatever the
// preset; --action-precision prints no default, since its default depends
// on the rule (DefaultSoftmaxPrecision, DefaultVisitsPrecision) and it
// applies only when given.
func RegisterVerbFlags(fs *flag.FlagSet, v agent.Verb) *VerbFlags {
	return &VerbFlags{plan: RegisterPlanFlags(fs), act: registerActFlags(fs, v), verb: v}
}

// Plan returns the planning flags, whose Preset names the preset.
func (f *VerbFlags) Plan() *PlanFlags { return f.plan }

// SetMaterialized tells the options that the planning tree of the first
// step is materialized for a figure (arbor btai run --dot): the tree then
// holds graph nodes, as with --global (TreeBytes with materialized), and
// Factory's tree check and MaxWorkers count it so. Only the first step's
// tree is materialized, but it is as big as any. Call it before Factory.
func (f *VerbFlags) SetMaterialized(materialized bool) { f.materialized = materialized }

// Check validates the flags that need no model, in the order the
// commands have always reported them: the planning flags (PlanFlags.Options),
// then the acting flags, then the rule of a verb that scores or draws
// choices (replay and fit score a recorded choice with the rule's
// probability; simulate and recover draw behaviour from it), then the
// options together (Options.Validate). Every error is an *agent.FlagError.
func (f *VerbFlags) Check() error {
	f.opts = nil
	o, err := f.plan.Options()
	if err != nil {
		return apiError(err)
	}
	if f.verb != agent.VerbRun && !flagGiven(f.act.fs, "action-select") {
		// A verb that scores or draws choices defaults to the stochastic
		// rule over visit counts (most-visited, the default preset's rule,
		// picks its mode), whatever the preset's rule.
		o.ActionSelection, o.ActionPrecision = Visits, nil
	}
	if err := f.act.apply(&o); err != nil {
		return apiError(err)
	}
	if o.ActionSelection.Deterministic() {
		switch f.verb {
		case agent.VerbReplay, agent.VerbFit:
			return apiError(flagMsg("--action-select %s: a deterministic rule gives no probability to score a recorded choice with (want softmax or visits)", o.ActionSelection))
		case agent.VerbSimulate, agent.VerbRecover:
			return apiError(flagMsg("--action-select %s: simulated behaviour is drawn from a stochastic rule (want softmax or visits)", o.ActionSelection))
		}
	}
	if err := o.Validate(); err != nil {
		return apiError(flagMsg("%s", reason(err)))
	}
	f.opts = &o
	return nil
}

// checked returns the checked options, running Check if it has not run.
func (f *VerbFlags) checked() (*Options, error) {
	if f.opts == nil {
		if err := f.Check(); err != nil {
			return nil, err
		}
	}
	return f.opts, nil
}

// Options returns the checked options, resolved (Options.Resolved).
func (f *VerbFlags) Options() (Options, error) {
	o, err := f.checked()
	if err != nil {
		return Options{}, apiError(err)
	}
	return o.Resolved(), nil
}

// Refused explains the figure flags of arbor btai run (--dot-factors,
// --dot-depth, --dot-top) that the other verbs leave out.
func (f *VerbFlags) Refused(name string) string {
	switch name {
	case "dot-factors", "dot-depth", "dot-top":
		if f.verb != agent.VerbRun {
			return "btai " + string(f.verb) + " draws no figure (the flag belongs to btai plan and btai run with --dot)"
		}
	}
	return ""
}

// Factory checks the options against model m, which source names
// ("--model FILE" or "--maze FILE"), and returns the factory of the verb's
// agents. The checks, in order: the flags that need one factor and one
// modality (CheckFactorised), the planning and acting flags against the
// model (PlanFlags.CheckModel; --eta and --omega need concentrations), the
// size of the planning tree (CheckTree, materialized with --global or
// SetMaterialized), the memory of one agent (CheckMemory), the time of a
// planning step (PlanFlags.CheckPlanTime) and making an agent. Every error
// is an *agent.FlagError.
//
// Factory runs the garbage collector before the checks and again once the
// agent is made: what reading the model left behind (one more dense
// transition tensor while pomdp.New copies the numbers, 671 MB for a maze
// of 4,096 states), and what making the agent did (the past's transition
// tensor in two more forms), is then free for what comes next to reuse
// instead of the heap growing by it too. It takes a few milliseconds.
//
// For run and replay, the factory's first NewAgent(m, nil) returns the
// agent made for the check (an agent that has not planned is the same as a
// new one): an agent holds its own copy of the past's transition tensor
// (42 MB on a maze of 1,024 states), so the check does not cost one more.
// For fit, simulate and recover, whose agents take parameter values, it is
// Factory{Options} and the check's agent is freed.
func (f *VerbFlags) Factory(m *pomdp.Model, source string) (agent.Factory, error) {
	po, err := f.checked()
	if err != nil {
		return nil, apiError(err)
	}
	o := *po
	if err := pomdp.Check(m); err != nil {
		return nil, apiError(flagMsg("%s: %s", source, reason(err)))
	}
	runtime.GC()
	if err := CheckFactorised(m, source, o.GlobalInference, o.Novelty); err != nil {
		return nil, apiError(err)
	}
	if err := f.plan.CheckModel(m); err != nil {
		return nil, apiError(err)
	}
	if err := f.act.checkModel(m); err != nil {
		return nil, apiError(err)
	}
	if err := CheckTree(o.Iterations, m, o.GlobalInference || f.materialized); err != nil {
		return nil, apiError(err)
	}
	if err := CheckMemory(m, o, source); err != nil {
		return nil, apiError(err)
	}
	if err := f.plan.CheckPlanTime(m, o); err != nil {
		return nil, apiError(err)
	}
	first, err := NewAgent(m, &o, nil)
	if err != nil {
		return nil, apiError(flagMsg("%s", reason(err)))
	}
	runtime.GC()
	switch f.verb {
	case agent.VerbRun, agent.VerbReplay:
		return &firstFactory{Factory: Factory{Options: &o}, m: m, first: first}, nil
	}
	return Factory{Options: &o}, nil
}

// Settings returns the resolved settings of the checked options
// (ResolvedSettings, acting), or nil if the flags are invalid.
func (f *VerbFlags) Settings() fmt.Stringer {
	o, err := f.checked()
	if err != nil {
		return nil
	}
	return ResolvedSettings(f.plan.preset, *o, true)
}

// MaxWorkers returns how many agents on model m may plan at once, at most
// jobs and at least 1: as many planning trees as fit in MaxTreeBytes
// together (materialized with --global or SetMaterialized), and as many
// agents as fit in MaxBytes with the model (EstimateBytes). It returns 1
// if the flags are invalid.
func (f *VerbFlags) MaxWorkers(m *pomdp.Model, jobs int) int {
	o, err := f.checked()
	if err != nil {
		return 1
	}
	memOne := EstimateBytes(m, *o, 1)
	memMore := EstimateBytes(m, *o, 2) - memOne
	tree := TreeBytes(o.Iterations, m.NumStates(), m.ObsLen(), m.NumActions(), o.GlobalInference || f.materialized)
	return max(1, min(jobs, int(MaxTreeBytes/max(tree, 1)), 1+int((MaxBytes-memOne)/max(memMore, 1))))
}

// Carries reports whether an agent carries its novelty counts over A from
// one trial to the next (--novelty-carry): its trials must then run in
// order. (A model's own concentrations a, b, d carry over too; drivers
// see them in the model, pomdp.Model.Learnable.)
func (f *VerbFlags) Carries() bool {
	o, err := f.checked()
	return err == nil && o.NoveltyCarry
}

var (
	_ agent.Options = (*VerbFlags)(nil)
	_ agent.Refuser = (*VerbFlags)(nil)
	_ agent.Settler = (*VerbFlags)(nil)
	_ agent.Limiter = (*VerbFlags)(nil)
	_ agent.Carrier = (*VerbFlags)(nil)
)

// firstFactory is the factory of run and replay: Factory, whose first
// NewAgent(m, nil) returns first, the agent made to check the options
// against m. It is safe for concurrent use.
type firstFactory struct {
	Factory
	m     *pomdp.Model
	mu    sync.Mutex
	first *Agent
}

// NewAgent returns the agent made by the check on the first call without
// values on the checked model, and a new agent otherwise.
func (f *firstFactory) NewAgent(m *pomdp.Model, values map[string]float64) (agent.Agent, error) {
	if len(values) > 0 {
		return apiResult(f.Factory.NewAgent(m, values))
	}
	if m == f.m {
		f.mu.Lock()
		ag := f.first
		f.first = nil
		f.mu.Unlock()
		if ag != nil {
			return ag, nil
		}
	}
	ag, err := NewAgent(m, f.Options, nil)
	if err != nil {
		return nil, apiError(err)
	}
	return ag, nil
}

// actFlags are the flags of how an agent acts and learns.
type actFlags struct {
	fs         *flag.FlagSet
	sel        *string
	prec       *float64
	eta, omega *float64
}

func registerActFlags(fs *flag.FlagSet, v agent.Verb) *actFlags {
	a := &actFlags{fs: fs}
	switch v {
	case agent.VerbRun:
		a.sel = fs.String("action-select", MostVisited.String(), "action selection: most-visited (the default preset's; ties to the lower average cost), most-visited-first (ties to the first action) or min-cost (all deterministic), softmax (σ(-α ḡ) over the root children's average costs) or visits (P(u) ∝ N_u^α over their visit counts); without the flag, the preset's rule")
	case agent.VerbSimulate, agent.VerbRecover:
		a.sel = fs.String("action-select", Visits.String(), "action selection: visits (P(u) ∝ N_u^α over the root children's visit counts, the stochastic rule whose most probable action is the most visited) or softmax (σ(-α ḡ) over their average costs), whatever the preset; "+
			"simulated behaviour is drawn from the rule, so the deterministic rules most-visited, most-visited-first and min-cost are refused")
	default:
		a.sel = fs.String("action-select", Visits.String(), "action selection: visits (P(u) ∝ N_u^α over the root children's visit counts, the stochastic rule whose most probable action is the most visited) or softmax (σ(-α ḡ) over their average costs), whatever the preset; "+
			"a recorded choice is scored with the rule's probability, so the deterministic rules most-visited, most-visited-first and min-cost are refused")
	}
	a.prec = fs.Float64("action-precision", 0, "action precision α (finite, >= 0) of softmax and visits; the deterministic rules take none (default: 100 for softmax, 1 for visits)")
	a.eta = fs.Float64("eta", 1, "learning rate η of the model's Dirichlet counts at the end of every episode: c' = ω c + η Δc (finite, >= 0)")
	a.omega = fs.Float64("omega", 1, "forgetting ω of the model's Dirichlet counts at the end of every episode: c' = ω c + η Δc (0 < ω <= 1)")
	return a
}

// checkModel refuses --eta and --omega, given at a value other than their
// default, for a model without concentrations a, b or d, which has nothing
// for them to act on (novelty's own counts over A are not among them).
func (a *actFlags) checkModel(m *pomdp.Model) error {
	if la, lb, ld := m.Learnable(); !la && !lb && !ld {
		for _, name := range []string{"eta", "omega"} {
			if flagChanged(a.fs, name) {
				return agent.Flagf(name, "the model has no concentrations a, b or d to learn (--eta and --omega apply to a model that learns)")
			}
		}
	}
	return nil
}

// apply sets the acting options of o from the flags given.
func (a *actFlags) apply(o *Options) error {
	var err error
	if flagGiven(a.fs, "action-select") {
		if o.ActionSelection, err = ParseActionSelection(*a.sel); err != nil {
			return agent.Flagf("action-select", "%s", reason(err))
		}
	}
	given := flagGiven(a.fs, "action-precision")
	switch {
	case given && o.ActionSelection.Deterministic():
		return agent.Flagf("action-precision", "applies to --action-select softmax and visits, not %s", o.ActionSelection)
	case !finite(*a.prec) || *a.prec < 0:
		return agent.Flagf("action-precision", "%v, want a finite number >= 0", *a.prec)
	case !finite(*a.eta) || *a.eta < 0:
		return agent.Flagf("eta", "%v, want a finite number >= 0", *a.eta)
	case !(*a.omega > 0 && *a.omega <= 1):
		return agent.Flagf("omega", "%v, want 0 < ω <= 1", *a.omega)
	}
	switch {
	case given:
		o.ActionPrecision = ptr(*a.prec)
	case o.ActionSelection == Visits:
		o.ActionPrecision = nil // the default of visits, 1
	}
	// At their default, 1, η and ω are left nil, which means 1.
	if flagChanged(a.fs, "eta") {
		o.LearningRate = ptr(*a.eta)
	}
	if flagChanged(a.fs, "omega") {
		o.Forgetting = ptr(*a.omega)
	}
	return nil
}
