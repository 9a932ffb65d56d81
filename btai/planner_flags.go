package btai

import (
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// Limits of the planning flags. They bound the work a single command can
// ask for; Options.Validate's own limits are the same or wider.
const (
	MaxIterations    = 10_000_000 // --iterations
	MaxRollouts      = 10_000     // --rollouts
	MaxRolloutLength = 1000       // --rollout-length
)

// MaxTreeBytes bounds the estimated memory of one planning tree
// (TreeBytes), so that a large --iterations on a large model is refused
// with a message (CheckTree) instead of exhausting the machine's memory.
const MaxTreeBytes = 4 << 30

// MaxBytes bounds the estimated peak memory of a command: the model, the
// agents that plan at once and their trees (EstimateBytes; CheckMemory,
// VerbFlags.MaxWorkers). An open maze of 4,096 states
// (envs.MaxModelStates) is estimated at 3.5 GB with one agent.
const MaxBytes = 8 << 30

// PlanFlags are the planning options of every btai command read from the
// command line: those of `arbor btai plan`, which plans once and does not
// act, and of every verb (VerbFlags adds how the agent acts and learns).
// Their defaults are the default preset's; --preset starts from another
// preset, and every flag given explicitly overrides the preset. The flags
// of figures (--dot and its views) are not among them: they belong to the
// command that draws.
type PlanFlags struct {
	fs                              *flag.FlagSet
	preset                          string
	iterations                      int
	cost, propagation, inference    string
	selection                       string
	exploration                     float64
	rollouts, rolloutLength, window int
	trialSteps                      int
	past                            string
	global                          bool
	novelty, noveltyCarry           bool
	noveltyScale, noveltyPrior      float64
	maxMinutes                      float64
}

// RegisterPlanFlags registers the planning flags on fs, each with the
// default preset's value as its default.
func RegisterPlanFlags(fs *flag.FlagSet) *PlanFlags {
	d := DefaultOptions()
	f := &PlanFlags{fs: fs}
	fs.StringVar(&f.preset, "preset", PresetScaleFreeName, "planning preset: "+strings.Join(PresetNames, ", ")+
		" (sets every planning option; flags given explicitly override it; docs/btai.md, \"Presets\")")
	fs.IntVar(&f.iterations, "iterations", d.Iterations, "planning iterations per action (1..10000000)")
	fs.StringVar(&f.cost, "cost", d.Cost.String(), "node cost: classic, pcost or feef")
	fs.StringVar(&f.propagation, "propagation", d.Propagation.String(), "cost propagation: min-backward, backward or forward")
	fs.StringVar(&f.inference, "inference", d.Inference.String(), "inference on new tree nodes: vmp (local mean-field VMP) or predictive")
	fs.Float64Var(&f.exploration, "exploration", *d.Exploration, "UCT exploration constant (finite, >= 0)")
	fs.StringVar(&f.selection, "selection", d.Selection.String(), "tree selection: normalized-uct (UCT on costs scaled to [0, 1] by the range in the tree), "+
		"unexplored-first (the paper's), uct (all children by UCT, as the paper author's C++) or uct-3mf (uct with the root counting one visit of its own, as BTAI_3MF)")
	fs.IntVar(&f.rollouts, "rollouts", d.Rollouts, "roll-outs per expanded node, Algorithm 1 (0..10000)")
	fs.IntVar(&f.rolloutLength, "rollout-length", DefaultRolloutLength, "length of each roll-out (1..1000; needs --rollouts)")
	fs.IntVar(&f.window, "window", d.Window, "past time steps kept in the graph (0 = all, else >= 2)")
	fs.IntVar(&f.trialSteps, "trial-steps", 0, "actions per trial: at step t planning expands no node deeper than the steps left, N - t (at least 1), "+
		"and stops once the tree is complete to that depth (0..1000000; 0, the default: no limit)")
	fs.StringVar(&f.past, "past", d.Past.String(), "past inference: vmp (the paper's mean field over the past), filter (exact filtering of the present state) "+
		"or factorised (filtering under a belief that factorises over the factors, as BTAI_3MF); "+
		"not the same setting as --inference, which is for the planning tree")
	fs.BoolVar(&f.global, "global", false, "global instead of local inference after each expansion")
	fs.BoolVar(&f.novelty, "novelty", false, "learn A while acting and add its expected information gain (novelty) to the planning cost")
	fs.Float64Var(&f.noveltyScale, "novelty-scale", *d.NoveltyScale, "weight of the novelty term (0..1e6; needs --novelty)")
	fs.Float64Var(&f.noveltyPrior, "novelty-prior", d.NoveltyPrior, "prior concentration a = κ A over A (1e-6..1e6; needs --novelty and a model without concentrations a)")
	fs.Float64Var(&f.maxMinutes, "max-minutes", 10, "refuse when one planning step is estimated to take longer than this many minutes "+
		"(the estimate, from the model's sizes and the planning options, is printed with the refusal)")
	fs.BoolVar(&f.noveltyCarry, "novelty-carry", false, "keep what was learned about A from one episode to the next (needs --novelty and a model without concentrations a, whose own a always carries over)")
	return f
}

// Preset returns the name of the preset the options start from (--preset).
func (f *PlanFlags) Preset() string { return f.preset }

// set reports whether flag name was given on the command line: a flag
// given overrides the preset, even at its default's value.
func (f *PlanFlags) set(name string) bool { return flagGiven(f.fs, name) }

// flagGiven reports whether flag name was given on fs's command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == name {
			given = true
		}
	})
	return given
}

// flagChanged reports whether flag name was given on fs's command line
// with a value other than its default. The refusals of a flag that needs
// another one (--novelty-scale without --novelty) or that a model has no
// use for (--eta without concentrations) use it: a flag given at the
// default that the help prints behaves as the flag left out.
func flagChanged(fs *flag.FlagSet, name string) bool {
	fl := fs.Lookup(name)
	return fl != nil && flagGiven(fs, name) && fl.Value.String() != fl.DefValue
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// flagMsg returns an *agent.FlagError whose message names the flag
// itself ("--past filter: ...").
func flagMsg(format string, args ...any) error {
	return &agent.FlagError{Msg: fmt.Sprintf(format, args...)}
}

// Options checks every planning flag, naming it in the error (an
// *agent.FlagError), and returns the options: the preset's, with the flags
// given explicitly.
func (f *PlanFlags) Options() (Options, error) {
	o, err := PresetByName(f.preset)
	if err != nil {
		return o, apiError(agent.Flagf("preset", "%s", reason(err)))
	}
	if f.set("cost") {
		if o.Cost, err = ParseCost(f.cost); err != nil {
			return o, apiError(agent.Flagf("cost", "%s", reason(err)))
		}
	}
	if f.set("propagation") {
		if o.Propagation, err = ParsePropagation(f.propagation); err != nil {
			return o, apiError(agent.Flagf("propagation", "%s", reason(err)))
		}
	}
	if f.set("inference") {
		if o.Inference, err = ParseInference(f.inference); err != nil {
			return o, apiError(agent.Flagf("inference", "%s", reason(err)))
		}
	}
	if f.set("selection") {
		if o.Selection, err = ParseSelection(f.selection); err != nil {
			return o, apiError(agent.Flagf("selection", "%s", reason(err)))
		}
	}
	switch {
	case f.iterations < 1 || f.iterations > MaxIterations:
		return o, apiError(agent.Flagf("iterations", "%d, want 1..%d", f.iterations, MaxIterations))
	case !finite(f.exploration) || f.exploration < 0:
		return o, apiError(agent.Flagf("exploration", "%v, want a finite number >= 0", f.exploration))
	case f.rollouts < 0 || f.rollouts > MaxRollouts:
		return o, apiError(agent.Flagf("rollouts", "%d, want 0..%d", f.rollouts, MaxRollouts))
	case f.rollouts > 0 && (f.rolloutLength < 1 || f.rolloutLength > MaxRolloutLength):
		return o, apiError(agent.Flagf("rollout-length", "%d, want 1..%d", f.rolloutLength, MaxRolloutLength))
	case f.rollouts == 0 && flagChanged(f.fs, "rollout-length"):
		return o, apiError(agent.Flagf("rollout-length", "needs --rollouts N with N >= 1"))
	case f.window < 0 || f.window == 1:
		return o, apiError(agent.Flagf("window", "%d, want 0 (keep the whole past) or >= 2", f.window))
	case f.trialSteps < 0 || f.trialSteps > MaxTrialSteps:
		return o, apiError(agent.Flagf("trial-steps", "%d, want 0 (no limit) to %d", f.trialSteps, MaxTrialSteps))
	case !(f.noveltyScale >= 0 && f.noveltyScale <= MaxNoveltyScale):
		return o, apiError(agent.Flagf("novelty-scale", "%v, want a number in [0, %g]", f.noveltyScale, float64(MaxNoveltyScale)))
	case !(f.noveltyPrior >= MinNoveltyPrior && f.noveltyPrior <= MaxNoveltyPrior):
		return o, apiError(agent.Flagf("novelty-prior", "%v, want a number in [%g, %g]", f.noveltyPrior, MinNoveltyPrior, float64(MaxNoveltyPrior)))
	}
	if f.global && o.Inference == Predictive {
		return o, apiError(agent.Flagf("global", "global inference runs VMP on the whole graph and does not combine with --inference predictive"))
	}
	for _, name := range []string{"novelty-scale", "novelty-prior", "novelty-carry"} {
		if flagChanged(f.fs, name) && !f.novelty {
			return o, apiError(agent.Flagf(name, "needs --novelty"))
		}
	}
	if f.set("iterations") {
		o.Iterations = f.iterations
	}
	if f.set("trial-steps") {
		o.TrialSteps = f.trialSteps
	}
	if f.set("exploration") {
		o.Exploration = ptr(f.exploration)
	}
	if f.set("window") {
		o.Window = f.window
		if f.window == 0 {
			o.Window = WindowAll
		}
	}
	if f.set("past") {
		if o.Past, err = pomdp.ParsePastInference(f.past); err != nil {
			return o, apiError(agent.Flagf("past", "%s", reason(err)))
		}
		if (o.Past == pomdp.PastFilter || o.Past == pomdp.PastFactorised) && (o.GlobalInference || f.global) {
			return o, apiError(flagMsg("--past %s: global inference (--global) would redo the past by mean field; leave one of them out", o.Past))
		}
	}
	if f.set("global") {
		o.GlobalInference = f.global
		if f.global && !f.set("past") {
			// Global VMP runs over the past and the tree together: the past
			// is inferred by mean field, whatever the preset's default.
			o.Past = pomdp.PastVMP
		}
	}
	if f.set("rollouts") {
		o.Rollouts, o.RolloutLength = f.rollouts, f.rolloutLength
	}
	if f.set("novelty") {
		o.Novelty = f.novelty
	}
	if f.set("novelty-scale") {
		o.NoveltyScale = ptr(f.noveltyScale)
	}
	if f.set("novelty-prior") {
		o.NoveltyPrior = f.noveltyPrior
	}
	if f.set("novelty-carry") {
		o.NoveltyCarry = f.noveltyCarry
	}
	if err := o.Validate(); err != nil {
		return o, apiError(flagMsg("%s", reason(err)))
	}
	return o, nil
}

// CheckModel refuses the flags that do not apply to model m: an invalid
// --max-minutes (checked here, once the model is read, as it always has
// been), and the novelty flags that a model with its own concentrations a
// has no use for (the graph learns them, from its a, and carries them over
// between episodes).
func (f *PlanFlags) CheckModel(m *pomdp.Model) error {
	if !(f.maxMinutes > 0) || math.IsInf(f.maxMinutes, 0) {
		return apiError(agent.Flagf("max-minutes", "%v, want a finite number > 0", f.maxMinutes))
	}
	if la, _, _ := m.Learnable(); la {
		for _, name := range []string{"novelty-prior", "novelty-carry"} {
			if flagChanged(f.fs, name) {
				return apiError(agent.Flagf(name, "the model has concentrations a, which are its prior and always carry over to the next episode"))
			}
		}
	}
	return nil
}

// CheckPlanTime refuses planning with options o on model m whose step is
// estimated (EstimatePlanSeconds) to take more than --max-minutes: one
// line with the sizes, the estimate and the flag that overrides it.
func (f *PlanFlags) CheckPlanTime(m *pomdp.Model, o Options) error {
	est := EstimatePlanSeconds(m, o)
	if est <= 60*f.maxMinutes {
		return nil
	}
	return apiError(flagMsg("--iterations %d: %d iterations x %d actions would take about %s per planning step (estimated from %d states and %d observations, %s inference), over --max-minutes %g; raise --max-minutes to run it anyway",
		o.Iterations, o.Iterations, m.NumActions(), agent.Duration(est), m.NumStates(), m.ObsLen(), o.Inference, f.maxMinutes))
}

// CheckTree refuses an --iterations whose planning tree on model m would
// not fit in MaxTreeBytes, estimated by TreeBytes; materialized is
// TreeBytes's (for `arbor btai plan`, GlobalInference, and a figure of the
// tree). A nil or invalid model is pomdp.Check's error.
func CheckTree(iterations int, m *pomdp.Model, materialized bool) error {
	if err := pomdp.Check(m); err != nil {
		return apiError(err)
	}
	if b := TreeBytes(iterations, m.NumStates(), m.ObsLen(), m.NumActions(), materialized); b > MaxTreeBytes {
		return apiError(agent.Flagf("iterations", "%d iterations x %d actions would grow a planning tree of about %.1f GB, more than the %d GB allowed",
			iterations, m.NumActions(), b/1e9, MaxTreeBytes>>30))
	}
	return nil
}

// CheckMemory refuses model m, read from source ("--model FILE" or
// "--maze FILE"), whose agent with options o would not fit in MaxBytes
// (EstimateBytes with one agent).
func CheckMemory(m *pomdp.Model, o Options, source string) error {
	if one := EstimateBytes(m, o, 1); one > MaxBytes {
		return apiError(flagMsg("%s: %d states x %d actions: planning would take about %.1f GB of memory (the transition tensor alone is %.2f GB), more than the %d GB allowed",
			source, m.NumStates(), m.NumActions(), one/1e9, 8*float64(m.NumActions())*float64(m.NumStates())*float64(m.NumStates())/1e9, MaxBytes>>30))
	}
	return nil
}

// CheckFactorised refuses --global and --novelty (global and novelty say
// whether they are on) on a model m, read from source ("--model FILE"),
// with several factors or modalities: global inference puts the planning
// tree in the graph and novelty is over one A, both done for one factor
// and one modality only. A command that draws the factor graph of the
// tree refuses that flag after these.
func CheckFactorised(m *pomdp.Model, source string, global, novelty bool) error {
	if m.NumFactors() == 1 && m.NumModalities() == 1 {
		return nil
	}
	what := fmt.Sprintf("%s has %d hidden-state factors and %d modalities", source, m.NumFactors(), m.NumModalities())
	switch {
	case global:
		return apiError(agent.Flagf("global", "%s; global inference puts the planning tree in the graph, which is done for one factor and one modality only (leave --global out)", what))
	case novelty:
		return apiError(agent.Flagf("novelty", "%s; the novelty bonus is over one modality's A (leave --novelty out, or give the modalities concentrations a to learn them)", what))
	}
	return nil
}

// Settings states every planning option of a command: the "settings"
// object of arbor's --json summaries and provenance, and (String) the
// first line of its human output. ResolvedSettings makes it.
type Settings struct {
	Preset          string   `json:"preset"`
	Selection       string   `json:"selection"`
	Exploration     float64  `json:"exploration"`
	Iterations      int      `json:"iterations"`
	Inference       string   `json:"inference"`
	Global          bool     `json:"global"`
	Cost            string   `json:"cost"`
	Propagation     string   `json:"propagation"`
	Rollouts        int      `json:"rollouts"`
	RolloutLength   *int     `json:"rollout_length,omitempty"`   // with Rollouts > 0
	ActionSelect    string   `json:"action_select,omitempty"`    // when acting
	ActionPrecision *float64 `json:"action_precision,omitempty"` // when acting by a stochastic rule
	TrialSteps      int      `json:"trial_steps"`                // 0: no depth limit
	Window          int      `json:"window"`                     // 0: the whole past
	Past            string   `json:"past"`
	Novelty         bool     `json:"novelty"`
	NoveltyScale    *float64 `json:"novelty_scale,omitempty"` // the novelty options with Novelty
	NoveltyPrior    *float64 `json:"novelty_prior,omitempty"`
	NoveltyCarry    *bool    `json:"novelty_carry,omitempty"`
}

// ResolvedSettings returns the settings of options o (resolved: Resolved)
// started from preset; acting says whether the action selection applies
// (every verb; not `arbor btai plan`, which plans once and does not act).
func ResolvedSettings(preset string, o Options, acting bool) Settings {
	o = o.Resolved()
	s := Settings{
		Preset: preset, Selection: o.Selection.String(), Exploration: *o.Exploration, Iterations: o.Iterations,
		Inference: o.Inference.String(), Global: o.GlobalInference, Cost: o.Cost.String(), Propagation: o.Propagation.String(),
		Rollouts: o.Rollouts, TrialSteps: o.TrialSteps, Window: max(o.Window, 0), Past: o.Past.String(), Novelty: o.Novelty,
	}
	if o.Rollouts > 0 {
		s.RolloutLength = &o.RolloutLength
	}
	if acting {
		s.ActionSelect = o.ActionSelection.String()
		if !o.ActionSelection.Deterministic() {
			s.ActionPrecision = o.ActionPrecision
		}
	}
	if o.Novelty {
		s.NoveltyScale, s.NoveltyPrior, s.NoveltyCarry = o.NoveltyScale, &o.NoveltyPrior, &o.NoveltyCarry
	}
	return s
}

// String is the human form: "settings: preset P, selection S, ...".
func (s Settings) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "settings: preset %s, selection %s, exploration %.4g, iterations %d, inference %s", s.Preset, s.Selection, s.Exploration, s.Iterations, s.Inference)
	if s.Global {
		b.WriteString(" (global)")
	}
	fmt.Fprintf(&b, ", cost %s, propagation %s", s.Cost, s.Propagation)
	if s.Past == pomdp.PastFilter.String() {
		b.WriteString(", past filter")
	}
	if s.Rollouts > 0 {
		fmt.Fprintf(&b, ", rollouts %d of length %d", s.Rollouts, *s.RolloutLength)
	}
	if s.TrialSteps > 0 {
		fmt.Fprintf(&b, ", trial steps %d (depth at most the steps left)", s.TrialSteps)
	}
	if s.ActionSelect != "" {
		fmt.Fprintf(&b, ", action-select %s", s.ActionSelect)
		if s.ActionPrecision != nil {
			fmt.Fprintf(&b, " (precision %g)", *s.ActionPrecision)
		}
	}
	if s.Novelty {
		fmt.Fprintf(&b, ", novelty on (scale %g, prior %g", *s.NoveltyScale, *s.NoveltyPrior)
		if *s.NoveltyCarry {
			b.WriteString(", carried over")
		}
		b.WriteString(")")
	} else {
		b.WriteString(", novelty off")
	}
	return b.String()
}
