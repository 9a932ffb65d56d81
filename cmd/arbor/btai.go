package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
)

// Limits of the btai flags. They bound the work a single command can ask
// for; the library's own limits (btai.Options.Validate) are the same or
// wider.
const (
	btaiMaxIterations    = 10_000_000
	btaiMaxSteps         = 1_000_000
	btaiMaxEpisodes      = 100_000
	btaiMaxRollouts      = 10_000
	btaiMaxRolloutLength = 1000
)

// btaiMaxTreeBytes bounds the estimated memory of one planning tree, so
// that a large --iterations on a large model is refused with a message
// instead of exhausting the machine's memory.
const btaiMaxTreeBytes = 4 << 30

// btaiCheckTree refuses an --iterations whose tree would not fit in
// btaiMaxTreeBytes, estimated by btai.TreeBytes (materialized: for btai
// plan, --global and --dot).
func btaiCheckTree(iterations int, m *pomdp.Model, materialized bool) error {
	if b := btai.TreeBytes(iterations, m.NumStates(), m.ObsLen(), m.NumActions(), materialized); b > btaiMaxTreeBytes {
		return badInput("--iterations: %d iterations x %d actions would grow a planning tree of about %.1f GB, more than the %d GB allowed",
			iterations, m.NumActions(), b/1e9, btaiMaxTreeBytes>>30)
	}
	return nil
}

// btaiMaxBytes bounds the estimated peak memory of a btai command: the
// model, the agents that plan at once and their trees (btai.EstimateBytes).
// An open maze of 4,096 states (envs.MaxModelStates) is estimated at 3.5 GB
// with one agent.
const btaiMaxBytes = 8 << 30

// btaiCheckMemory refuses a model whose agent would not fit in
// btaiMaxBytes (btai.EstimateBytes with one agent), naming the flag and
// file that gave it, and returns the estimate for one agent and for each
// further one.
func btaiCheckMemory(flagName, file string, m *pomdp.Model, o btai.Options) (one, more float64, err error) {
	one = btai.EstimateBytes(m, o, 1)
	more = btai.EstimateBytes(m, o, 2) - one
	if one > btaiMaxBytes {
		return one, more, badInput("%s %s: %d states x %d actions: planning would take about %.1f GB of memory (the transition tensor alone is %.2f GB), more than the %d GB allowed",
			flagName, file, m.NumStates(), m.NumActions(), one/1e9, 8*float64(m.NumActions())*float64(m.NumStates())*float64(m.NumStates())/1e9, btaiMaxBytes>>30)
	}
	return one, more, nil
}

const (
	btaiPlanSynopsis = "arbor btai plan --model M --obs O0 [--preset scale-free|paper|hp] [--iterations K] [--cost classic|pcost|feef] " +
		"[--propagation min-backward|backward|forward] [--inference vmp|predictive] [--selection normalized-uct|unexplored-first|uct] " +
		"[--exploration C] [--trial-steps N] [--novelty] [--dot FILE] [--plot FILE.png] [--json]"
	btaiRunSynopsis = "arbor btai run --maze FILE | --model M [--preset scale-free|paper|hp] [--iterations K] [--trial-steps N] [--novelty] [--steps 50] " +
		"[--episodes 1] [--agents 1] [--seed 1] [--jobs N] [--progress] [--action-select softmax|visits|most-visited|min-cost] [--action-precision α] [--process W] [--eta η] [--omega ω] [--dot FILE] [--plot FILE.svg|.pdf|.png [--plot-dpi N] [--plot-episode N|all]] [--json | --csv]"
)

func runBTAI(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return badInput("want a subcommand: plan, run or replay (e.g. arbor btai run --maze examples/mazes/1.maze)")
	}
	switch args[0] {
	case "plan":
		return inSubcommand("plan", runBTAIPlan(args[1:], stdout))
	case "run":
		return inSubcommand("run", runBTAIRun(args[1:], stdout))
	case "replay":
		return inSubcommand("replay", runBTAIReplay(args[1:], stdout))
	case "-h", "--help", "help":
		fmt.Fprintf(stdout, "usage:\n  %s\n  %s\n  %s\n'arbor btai plan -h', 'arbor btai run -h' and 'arbor btai replay -h' list every flag\n", btaiPlanSynopsis, btaiRunSynopsis, btaiReplaySynopsis)
		return nil
	}
	return badInput("unknown subcommand %q (want plan, run or replay)", args[0])
}

// btaiFlags holds the planning options shared by plan and run. Their
// defaults are the default preset's; --preset starts from another preset,
// and every flag given explicitly overrides the preset.
type btaiFlags struct {
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
	dotFactors                      bool
	dotDepth, dotTop                int
}

func (b *btaiFlags) register(fs *flag.FlagSet) {
	d := btai.DefaultOptions()
	b.fs = fs
	fs.StringVar(&b.preset, "preset", btai.PresetScaleFreeName, "planning preset: "+strings.Join(btai.PresetNames, ", ")+
		" (sets every planning option; flags given explicitly override it; docs/btai.md, \"Presets\")")
	fs.IntVar(&b.iterations, "iterations", d.Iterations, "planning iterations per action (1..10000000)")
	fs.StringVar(&b.cost, "cost", d.Cost.String(), "node cost: classic, pcost or feef")
	fs.StringVar(&b.propagation, "propagation", d.Propagation.String(), "cost propagation: min-backward, backward or forward")
	fs.StringVar(&b.inference, "inference", d.Inference.String(), "inference on new tree nodes: vmp (local mean-field VMP) or predictive")
	fs.Float64Var(&b.exploration, "exploration", *d.Exploration, "UCT exploration constant (finite, >= 0)")
	fs.StringVar(&b.selection, "selection", d.Selection.String(), "tree selection: normalized-uct (UCT on costs scaled to [0, 1] by the range in the tree), "+
		"unexplored-first (the paper's) or uct (all children by UCT, as the paper author's C++)")
	fs.IntVar(&b.rollouts, "rollouts", d.Rollouts, "roll-outs per expanded node, Algorithm 1 (0..10000)")
	fs.IntVar(&b.rolloutLength, "rollout-length", 5, "length of each roll-out (1..1000; needs --rollouts)")
	fs.IntVar(&b.window, "window", d.Window, "past time steps kept in the graph (0 = all, else >= 2)")
	fs.IntVar(&b.trialSteps, "trial-steps", 0, "actions per trial: at step t planning expands no node deeper than the steps left, N - t (at least 1), "+
		"and stops once the tree is complete to that depth (0..1000000; 0, the default: no limit)")
	fs.StringVar(&b.past, "past", d.Past.String(), "past inference: vmp (the paper's mean field over the past) or filter (exact filtering of the present state); "+
		"not the same setting as --inference, which is for the planning tree")
	fs.BoolVar(&b.global, "global", false, "global instead of local inference after each expansion")
	fs.BoolVar(&b.novelty, "novelty", false, "learn A while acting and add its expected information gain (novelty) to the planning cost")
	fs.Float64Var(&b.noveltyScale, "novelty-scale", *d.NoveltyScale, "weight of the novelty term (0..1e6; needs --novelty)")
	fs.Float64Var(&b.noveltyPrior, "novelty-prior", d.NoveltyPrior, "prior concentration a = κ A over A (1e-6..1e6; needs --novelty and a model without concentrations a)")
	fs.BoolVar(&b.dotFactors, "dot-factors", false, "with --dot: draw the full factor graph of the model and the tree (S_I, O_I and their factors) instead of the tree of states")
	fs.IntVar(&b.dotDepth, "dot-depth", 0, "with --dot: draw the tree down to this depth (>= 1; default: with --dot-top, all; without, the view that fits a 16 x 10 in page, named in the figure's note)")
	fs.IntVar(&b.dotTop, "dot-top", 0, "with --dot: draw the K most visited children of each node (>= 1; default: with --dot-depth, all; without, the view that fits a 16 x 10 in page)")
	fs.Float64Var(&b.maxMinutes, "max-minutes", 10, "refuse when one planning step is estimated to take longer than this many minutes "+
		"(the estimate, from the model's sizes and the planning options, is printed with the refusal)")
	fs.BoolVar(&b.noveltyCarry, "novelty-carry", false, "keep what was learned about A from one episode to the next (needs --novelty and a model without concentrations a, whose own a always carries over)")
}

// set reports whether flag name was given on the command line.
func (b *btaiFlags) set(name string) bool { return btaiFlagSet(b.fs, name) }

// btaiFinite reports whether x is neither NaN nor infinite.
func btaiFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// options checks every flag, naming it in the error, and returns the
// library options: the preset's, with the flags given explicitly.
func (b *btaiFlags) options() (btai.Options, error) {
	o, err := btai.PresetByName(b.preset)
	if err != nil {
		return o, badInput("--preset: %v", err)
	}
	if b.set("cost") {
		if o.Cost, err = btai.ParseCost(b.cost); err != nil {
			return o, badInput("--cost: %v", err)
		}
	}
	if b.set("propagation") {
		if o.Propagation, err = btai.ParsePropagation(b.propagation); err != nil {
			return o, badInput("--propagation: %v", err)
		}
	}
	if b.set("inference") {
		if o.Inference, err = btai.ParseInference(b.inference); err != nil {
			return o, badInput("--inference: %v", err)
		}
	}
	if b.set("selection") {
		if o.Selection, err = btai.ParseSelection(b.selection); err != nil {
			return o, badInput("--selection: %v", err)
		}
	}
	switch {
	case b.iterations < 1 || b.iterations > btaiMaxIterations:
		return o, badInput("--iterations: %d, want 1..%d", b.iterations, btaiMaxIterations)
	case !btaiFinite(b.exploration) || b.exploration < 0:
		return o, badInput("--exploration: %v, want a finite number >= 0", b.exploration)
	case b.rollouts < 0 || b.rollouts > btaiMaxRollouts:
		return o, badInput("--rollouts: %d, want 0..%d", b.rollouts, btaiMaxRollouts)
	case b.rollouts > 0 && (b.rolloutLength < 1 || b.rolloutLength > btaiMaxRolloutLength):
		return o, badInput("--rollout-length: %d, want 1..%d", b.rolloutLength, btaiMaxRolloutLength)
	case b.rollouts == 0 && b.set("rollout-length"):
		return o, badInput("--rollout-length: needs --rollouts N with N >= 1")
	case b.window < 0 || b.window == 1:
		return o, badInput("--window: %d, want 0 (keep the whole past) or >= 2", b.window)
	case b.trialSteps < 0 || b.trialSteps > btai.MaxTrialSteps:
		return o, badInput("--trial-steps: %d, want 0 (no limit) to %d", b.trialSteps, btai.MaxTrialSteps)
	case !(b.noveltyScale >= 0 && b.noveltyScale <= btai.MaxNoveltyScale):
		return o, badInput("--novelty-scale: %v, want a number in [0, %g]", b.noveltyScale, float64(btai.MaxNoveltyScale))
	case !(b.noveltyPrior >= btai.MinNoveltyPrior && b.noveltyPrior <= btai.MaxNoveltyPrior):
		return o, badInput("--novelty-prior: %v, want a number in [%g, %g]", b.noveltyPrior, btai.MinNoveltyPrior, float64(btai.MaxNoveltyPrior))
	}
	if b.global && o.Inference == btai.Predictive {
		return o, badInput("--global: global inference runs VMP on the whole graph and does not combine with --inference predictive")
	}
	for _, f := range []string{"novelty-scale", "novelty-prior", "novelty-carry"} {
		if b.set(f) && !b.novelty {
			return o, badInput("--%s: needs --novelty", f)
		}
	}
	if b.set("iterations") {
		o.Iterations = b.iterations
	}
	if b.set("trial-steps") {
		o.TrialSteps = b.trialSteps
	}
	if b.set("exploration") {
		o.Exploration = &b.exploration
	}
	if b.set("window") {
		o.Window = b.window
		if b.window == 0 {
			o.Window = btai.WindowAll
		}
	}
	if b.set("past") {
		if o.Past, err = pomdp.ParsePastInference(b.past); err != nil {
			return o, badInput("--past: %v", err)
		}
		if o.Past == pomdp.PastFilter && o.GlobalInference || o.Past == pomdp.PastFilter && b.global {
			return o, badInput("--past filter: global inference (--global) would redo the past by mean field; leave one of them out")
		}
	}
	if b.set("global") {
		o.GlobalInference = b.global
		if b.global && !b.set("past") {
			// Global VMP runs over the past and the tree together: the past
			// is inferred by mean field, whatever the preset's default.
			o.Past = pomdp.PastVMP
		}
	}
	if b.set("rollouts") {
		o.Rollouts, o.RolloutLength = b.rollouts, b.rolloutLength
	}
	if b.set("novelty") {
		o.Novelty = b.novelty
	}
	if b.set("novelty-scale") {
		o.NoveltyScale = &b.noveltyScale
	}
	if b.set("novelty-prior") {
		o.NoveltyPrior = b.noveltyPrior
	}
	if b.set("novelty-carry") {
		o.NoveltyCarry = b.noveltyCarry
	}
	if err := o.Validate(); err != nil {
		return o, badInput("%v", err)
	}
	return o, nil
}

// btaiSettingsJSON states every planning option of a run: the "settings"
// object of the --json summary and the first line of the human output.
type btaiSettingsJSON struct {
	Preset          string   `json:"preset"`
	Selection       string   `json:"selection"`
	Exploration     float64  `json:"exploration"`
	Iterations      int      `json:"iterations"`
	Inference       string   `json:"inference"`
	Global          bool     `json:"global"`
	Cost            string   `json:"cost"`
	Propagation     string   `json:"propagation"`
	Rollouts        int      `json:"rollouts"`
	RolloutLength   *int     `json:"rollout_length,omitempty"`
	ActionSelect    string   `json:"action_select,omitempty"`
	ActionPrecision *float64 `json:"action_precision,omitempty"`
	TrialSteps      int      `json:"trial_steps"` // 0: no depth limit
	Window          int      `json:"window"`
	Past            string   `json:"past"`
	Novelty         bool     `json:"novelty"`
	NoveltyScale    *float64 `json:"novelty_scale,omitempty"`
	NoveltyPrior    *float64 `json:"novelty_prior,omitempty"`
	NoveltyCarry    *bool    `json:"novelty_carry,omitempty"`
}

// settings returns the settings of options o started from preset; acting
// says whether the action selection applies (run, not plan).
func btaiSettings(preset string, o btai.Options, acting bool) btaiSettingsJSON {
	o = o.Resolved()
	s := btaiSettingsJSON{
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
func (s btaiSettingsJSON) String() string {
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

// dotView checks the --dot-* flags and returns the tree view they ask for.
// figure says whether a figure is asked for; need names the flags that ask
// for one.
func (b *btaiFlags) dotView(figure bool, need string) (btaiDotView, error) {
	v := btaiDotView{factors: b.dotFactors, tree: btai.TreeDOTOptions{Depth: b.dotDepth, Top: b.dotTop, Note: treeNote}}
	for _, f := range []struct {
		name string
		val  int
	}{{"dot-depth", b.dotDepth}, {"dot-top", b.dotTop}} {
		if b.set(f.name) && f.val < 1 {
			return v, badInput("--%s: %d, want >= 1", f.name, f.val)
		}
		if b.set(f.name) && !figure {
			return v, badInput("--%s: needs %s", f.name, need)
		}
	}
	if b.dotFactors && !figure {
		return v, badInput("--dot-factors: needs --dot FILE")
	}
	if b.dotFactors && (b.set("dot-depth") || b.set("dot-top")) {
		return v, badInput("--dot-depth and --dot-top apply to the tree view, not to --dot-factors")
	}
	return v, nil
}

// btaiDotView is what --dot draws.
type btaiDotView struct {
	factors bool
	tree    btai.TreeDOTOptions
}

// checkModel refuses the novelty flags that do not apply to model m: a
// model with its own concentrations a is learned by the graph, from its a
// and carried over between episodes.
func (b *btaiFlags) checkModel(m *pomdp.Model) error {
	if !(b.maxMinutes > 0) || math.IsInf(b.maxMinutes, 0) {
		return badInput("--max-minutes: %v, want a finite number > 0", b.maxMinutes)
	}
	if la, _, _ := m.Learnable(); la {
		for _, f := range []string{"novelty-prior", "novelty-carry"} {
			if b.set(f) {
				return badInput("--%s: the model has concentrations a, which are its prior and always carry over to the next episode", f)
			}
		}
	}
	return nil
}

// checkPlanTime refuses planning whose step is estimated to take more than
// --max-minutes (btai.EstimatePlanSeconds): one line with the sizes, the
// estimate and the flag that overrides it.
func (b *btaiFlags) checkPlanTime(m *pomdp.Model, o btai.Options) error {
	est := btai.EstimatePlanSeconds(m, o)
	if est <= 60*b.maxMinutes {
		return nil
	}
	return badInput("--iterations %d: %d iterations x %d actions would take about %s per planning step (estimated from %d states and %d observations, %s inference), over --max-minutes %g; raise --max-minutes to run it anyway",
		o.Iterations, o.Iterations, m.NumActions(), durationText(est), m.NumStates(), m.ObsLen(), o.Inference, b.maxMinutes)
}

// btaiPlanNode is one node of `arbor btai plan --json`.
type btaiPlanNode struct {
	Path       []int        `json:"path"`
	Visits     int          `json:"visits"`
	Local      output.Float `json:"local_cost"`
	Aggregated output.Float `json:"aggregated_cost"`
	QS         any          `json:"q_s"` // []output.Float, or keyed by factor name for a factorised model
	QO         any          `json:"q_o"` // []output.Float, or keyed by modality name
}

// btaiPlanJSON is the output of `arbor btai plan --json`.
type btaiPlanJSON struct {
	QS    any            `json:"q_s"`
	Nodes []btaiPlanNode `json:"nodes"`
}

func runBTAIPlan(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("btai plan", flag.ContinueOnError)
	var bf btaiFlags
	bf.register(fs)
	model := fs.String("model", "", "POMDP file (JSON with A, B, C, D and optional concentrations a, b, d; required)")
	obsRaw := fs.String("obs", "", "the first observation O0: its index, or one outcome index per modality, comma-separated (required)")
	asJSON := fs.Bool("json", false, "print the posterior and the tree as JSON")
	dotFile := fs.String("dot", "", "write the planning tree (the tree of states; with --dot-factors the factor graph) to this file: SVG, PDF or PNG by its ending, DOT otherwise")
	plotFile := fs.String("plot", "", "draw the tree of states with each node's visits n and average cost into this PNG file (needs Graphviz; --dot-depth and --dot-top apply)")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, btaiPlanSynopsis))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q (the model is given with --model)", pos[0])
	}
	opts, err := bf.options()
	if err != nil {
		return err
	}
	if bf.set("window") {
		return badInput("--window: btai plan plans from one observation, with no past to keep (the flag belongs to btai run and btai replay)")
	}
	if err := checkPlotFile(*plotFile); err != nil {
		return err
	}
	view, err := bf.dotView(*dotFile != "" || *plotFile != "", "--dot FILE or --plot FILE")
	if err != nil {
		return err
	}
	if view.factors && *dotFile == "" {
		return badInput("--dot-factors: needs --dot FILE (--plot draws the tree of states)")
	}
	m, err := loadPOMDP(*model)
	if err != nil {
		return err
	}
	btaiCollect()
	if err := btaiFactorisedFlags(m, *model, opts.GlobalInference, opts.Novelty, view.factors); err != nil {
		return err
	}
	if err := bf.checkModel(m); err != nil {
		return err
	}
	if err := btaiCheckTree(opts.Iterations, m, true); err != nil {
		return err
	}
	if _, _, err := btaiCheckMemory("--model", *model, m, opts); err != nil {
		return err
	}
	if err := bf.checkPlanTime(m, opts); err != nil {
		return err
	}
	if !btaiFlagSet(fs, "obs") {
		return badInput("--obs: missing (want an observation index in [0, %d))", m.NumObs())
	}
	o, err := obsArg(*obsRaw, m, *model)
	if err != nil {
		return err
	}
	obs := &o
	if _, err := pomdp.StatePosterior(nil, m, *obs); err != nil {
		return badInput("--obs %s: observation has probability 0 under D and A of %s", *obsRaw, *model)
	}
	ag, err := btai.NewAgent(m, &opts, nil)
	if err != nil {
		return badInput("%v", err)
	}
	// Fail before planning when a figure cannot be written or would be too
	// large.
	if *dotFile != "" {
		if err := checkOutputFile("--dot", *dotFile, true); err != nil {
			return err
		}
		if err := btaiTreeFigure("--dot", *dotFile, opts.Iterations, m, view); err != nil {
			return err
		}
	}
	if *plotFile != "" {
		if err := checkOutputFile("--plot", *plotFile, true); err != nil {
			return err
		}
		if err := btaiTreeFigure("--plot", *plotFile, opts.Iterations, m, btaiDotView{tree: view.tree}); err != nil {
			return err
		}
	}
	// SIGINT or SIGTERM stops planning, and a figure being written (the
	// renderer is killed, the file left as it was): nothing more is
	// written.
	ctx := commandContext()
	if err := ag.Reset(ctx, *obs); err != nil {
		return err
	}
	qs := append([]float64(nil), ag.Belief()...)
	if err := ag.Plan(ctx); err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return err
	}
	// The action the agent would take now: the one its rule favours most.
	now := ag.Tree().BestAction(opts.ActionSelection)
	if *dotFile != "" {
		if err := btaiWriteDOT(ctx, ag, m, "dot", *dotFile, view, now); err != nil {
			return err
		}
	}
	if *plotFile != "" {
		if err := btaiWriteDOT(ctx, ag, m, "plot", *plotFile, btaiDotView{tree: view.tree}, now); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	tr := ag.Tree()
	out := btaiPlanJSON{QS: output.Belief(m, qs), Nodes: make([]btaiPlanNode, 0, len(tr.Nodes)-1)}
	for i := 1; i < len(tr.Nodes); i++ {
		n := &tr.Nodes[i]
		var qs, qo []float64
		if m.NumFactors() > 1 || m.NumModalities() > 1 {
			// A factorised tree stays compact: its posteriors are recomputed.
			if qs, qo, err = ag.NodePosteriors(i); err != nil {
				return err
			}
		} else if n.S == nil || n.O == nil {
			return fmt.Errorf("the planning tree could not be added to the graph at node %d", i)
		} else {
			qs, qo = n.S.Probs(), n.O.Probs()
		}
		out.Nodes = append(out.Nodes, btaiPlanNode{
			Path: tr.Path(nil, i), Visits: n.Visits, Local: output.Float(n.Local), Aggregated: output.Float(n.Aggregated),
			QS: output.Belief(m, qs), QO: output.Prediction(m, qo),
		})
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(out)
	}
	fmt.Fprintln(stdout, btaiSettings(bf.preset, opts, false))
	fmt.Fprintf(stdout, "q(s_0 | o_0 = %s) = %s\n", m.ObsName(*obs), btaiVec(qs))
	// One node expanded per iteration: fewer than --iterations when
	// --trial-steps completed the tree first.
	done := 0
	for i := range tr.Nodes {
		if !tr.Nodes[i].Leaf() {
			done++
		}
	}
	fmt.Fprintf(stdout, "planned %d iterations (%s cost, %s propagation, %s inference): %d nodes\n",
		done, opts.Cost, opts.Propagation, opts.Inference, len(out.Nodes))
	fmt.Fprintf(stdout, "  %-8s %7s %10s %10s\n", "action", "visits", "local", "average")
	for u := range m.NumActions() {
		n := &tr.Nodes[tr.Child(0, u)]
		fmt.Fprintf(stdout, "  %-8s %7d %10.4f %10.4f\n", m.ActionName(u), n.Visits, n.Local, n.Average())
	}
	return nil
}

// btaiFlagSet reports whether the flag name was given on the command line.
func btaiFlagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

func btaiVec(x []float64) string {
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = strconv.FormatFloat(v, 'f', 4, 64)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// btaiTreeFigure checks, before planning, the size of the figure of a
// planning tree of the given iterations drawn with view v into path (the
// value of flag flagName): the tree of states has 1 + iterations·|U| nodes
// (every iteration expands all the actions of a leaf), its factor graph
// (--dot-factors) about four times as many nodes and edges. A depth limit
// of at least the iterations (no node is deeper) draws the whole tree, and
// is checked here; the default view draws what fits a page
// (btai.TreeDOTOptions) and a smaller depth limit or a top-K draws fewer,
// counted when drawing (btaiWriteDOT).
func btaiTreeFigure(flagName, path string, iterations int, m *pomdp.Model, v btaiDotView) error {
	nodes := 1 + iterations*m.NumActions()
	switch {
	case v.factors:
		return checkFigureSize(flagName, path, figureSize{nodes: 2 * nodes, edges: 2 * nodes}, true, btaiFactorsRemedy(path))
	case v.tree.Top == 0 && v.tree.Depth >= iterations:
		return checkFigureSize(flagName, path, figureSize{nodes: nodes, edges: nodes - 1}, true, btaiTreeRemedy(path))
	}
	return nil
}

// treeNote is the note of a planning-tree figure (btai.TreeDOTOptions.Note):
// the number of nodes left out and the flags of the view drawn.
func treeNote(left, depth, top int) string {
	view := fmt.Sprintf("--dot-depth %d", depth)
	if top > 0 {
		view += fmt.Sprintf(", --dot-top %d", top)
	}
	return fmt.Sprintf("%d more nodes not drawn (%s)", left, view)
}

// btaiTreeRemedy says how to draw less of a tree too large for path.
func btaiTreeRemedy(path string) string {
	r := "draw less of it with --dot-depth D or --dot-top K"
	if figureFormat(path) != "" {
		r += ", or write the DOT text with --dot FILE.dot"
	}
	return r
}

// btaiFactorsRemedy says what to draw instead of a factor graph of the
// tree too large for path.
func btaiFactorsRemedy(path string) string {
	r := "draw the tree of states instead (without --dot-factors), or lower --iterations"
	if figureFormat(path) != "" {
		r += ", or write the DOT text with --dot FILE.dot"
	}
	return r
}

// btaiWriteDOT writes the planning figure to path: the tree of states
// (btai.Tree.WriteDOT) or, with --dot-factors, the agent's graph with the
// planning tree labelled (visits n and average cost g per node); SVG, PDF
// or PNG by the file's ending (writeFigure), DOT otherwise. The root's
// child of action now is drawn bold (-1: none). A figure over the limits
// (checkFigureSize) is refused before it is built.
func btaiWriteDOT(ctx context.Context, ag *btai.Agent, m *pomdp.Model, flagName, path string, v btaiDotView, now int) error {
	flagName = "--" + flagName
	var b bytes.Buffer
	if v.factors {
		ag.LabelTree(m.ActionName)
		g := ag.Graph()
		if err := checkFigureSize(flagName, path, graphSize(g), true, btaiFactorsRemedy(path)); err != nil {
			return err
		}
		if err := g.WriteDOT(&b); err != nil {
			return fmt.Errorf("%s %s: %w", flagName, path, err)
		}
	} else {
		tr := ag.Tree()
		n := tr.DOTNodes(&v.tree)
		if err := checkFigureSize(flagName, path, figureSize{nodes: n, edges: n - 1}, true, btaiTreeRemedy(path)); err != nil {
			return err
		}
		if err := tr.WriteDOT(&b, m, now, &v.tree); err != nil {
			return fmt.Errorf("%s %s: %w", flagName, path, err)
		}
	}
	return writeFigure(ctx, flagName, path, b.Bytes())
}

// btaiActFlags are the flags of how a BTAI agent acts and learns, shared
// by btai run and btai replay.
type btaiActFlags struct {
	fs         *flag.FlagSet
	sel        *string
	prec       *float64
	eta, omega *float64
}

func (a *btaiActFlags) register(fs *flag.FlagSet) {
	a.fs = fs
	a.sel = fs.String("action-select", "most-visited", "action selection: most-visited (the default preset's) or min-cost (both deterministic), softmax (σ(-α ḡ) over the root children's average costs) or visits (P(u) ∝ N_u^α over their visit counts); replay's default is visits, the stochastic rule whose most probable action is the most visited")
	a.prec = fs.Float64("action-precision", 100, "action precision α (finite, >= 0) of softmax (default 100) and visits (default 1); the deterministic rules take none")
	a.eta = fs.Float64("eta", 1, "learning rate η of the model's Dirichlet counts at the end of every episode: c' = ω c + η Δc (finite, >= 0)")
	a.omega = fs.Float64("omega", 1, "forgetting ω of the model's Dirichlet counts at the end of every episode: c' = ω c + η Δc (0 < ω <= 1)")
}

// checkModel refuses --eta and --omega for a model without concentrations
// a, b or d, which has nothing for them to act on (novelty's own counts
// over A are not among them).
func (a *btaiActFlags) checkModel(m *pomdp.Model) error {
	if la, lb, ld := m.Learnable(); !la && !lb && !ld {
		for _, name := range []string{"eta", "omega"} {
			if btaiFlagSet(a.fs, name) {
				return badInput("--%s: the model has no concentrations a, b or d to learn (--eta and --omega apply to a model that learns)", name)
			}
		}
	}
	return nil
}

// apply sets the acting options of o from the flags given.
func (a *btaiActFlags) apply(o *btai.Options) error {
	var err error
	if btaiFlagSet(a.fs, "action-select") {
		if o.ActionSelection, err = btai.ParseActionSelection(*a.sel); err != nil {
			return badInput("--action-select: %v", err)
		}
	}
	switch {
	case btaiFlagSet(a.fs, "action-precision") && o.ActionSelection.Deterministic():
		return badInput("--action-precision: applies to --action-select softmax and visits, not %s", o.ActionSelection)
	case !btaiFinite(*a.prec) || *a.prec < 0:
		return badInput("--action-precision: %v, want a finite number >= 0", *a.prec)
	case !btaiFinite(*a.eta) || *a.eta < 0:
		return badInput("--eta: %v, want a finite number >= 0", *a.eta)
	case !(*a.omega > 0 && *a.omega <= 1):
		return badInput("--omega: %v, want 0 < ω <= 1", *a.omega)
	}
	switch {
	case btaiFlagSet(a.fs, "action-precision"):
		o.ActionPrecision = a.prec
	case o.ActionSelection == btai.Visits:
		o.ActionPrecision = nil // the default of visits, 1
	}
	if btaiFlagSet(a.fs, "eta") {
		o.LearningRate = a.eta
	}
	if btaiFlagSet(a.fs, "omega") {
		o.Forgetting = a.omega
	}
	return nil
}

// btaiSummaryJSON is the last line of `arbor btai run --json`. For a maze,
// Solved counts the episodes that reached the exit and MeanSteps is the
// mean number of steps of those, null if none did; a --model run has no
// goal and reports neither.
type btaiSummaryJSON struct {
	Agents             int              `json:"agents,omitempty"` // with --agents
	Episodes           int              `json:"episodes"`
	Solved             *int             `json:"solved,omitempty"`
	MeanSteps          json.RawMessage  `json:"mean_steps,omitempty"` // a number or null (maze), absent (model)
	PlanningIterations int              `json:"planning_iterations"`  // over every episode
	PlanningSeconds    float64          `json:"planning_seconds"`     // over every episode
	Settings           btaiSettingsJSON `json:"settings"`
}

func runBTAIRun(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("btai run", flag.ContinueOnError)
	var bf btaiFlags
	bf.register(fs)
	var act btaiActFlags
	act.register(fs)
	mazeFile := fs.String("maze", "", "maze file (examples/mazes; docs/btai.md); exactly one of --maze and --model")
	model := fs.String("model", "", "POMDP file (JSON with A, B, C, D and optional a, b, d): the agent's beliefs, and the true process unless --process gives another")
	process := fs.String("process", "", "POMDP file used as the true process (the world), with the actions and observations of --model; the agent plans with --model")
	steps := fs.Int("steps", 50, "maximum actions per episode (1..1000000)")
	episodes := fs.Int("episodes", 1, "episodes (1..100000; per agent with --agents)")
	agents := fs.Int("agents", 1, "independent agents, each running --episodes episodes from the model's priors (1..1024); agents that learn run in parallel under --jobs")
	seed := fs.Uint64("seed", 1, "random seed: agent a's episode e draws its decisions from the streams of seed + e-1 (agent.StepRand; --seed k --episodes 1 repeats seed k of the test tables) and a --model process from seed + (a-1)*episodes + e-1")
	noise := fs.Float64("noise", envs.DefaultNoise, "maze model noise on A, B and D, in [0, 1) (--maze only)")
	pref := fs.Float64("pref-precision", envs.DefaultPrefPrecision, "maze preference precision, finite (--maze only)")
	plotFlags := addRunPlotFlags(fs, "the average cost of each action taken")
	plotFile := plotFlags.file
	dotFile := fs.String("dot", "", "write the planning tree of the first step (the tree of states; with --dot-factors the factor graph) to this file: SVG, PDF or PNG by its ending, DOT otherwise")
	asJSON := fs.Bool("json", false, "a provenance line, one JSON object per episode and a summary line")
	asCSV := fs.Bool("csv", false, "one CSV row per time step in the recorded-behaviour format (docs/behaviour.md), with the action probabilities")
	progressFlag := fs.Bool("progress", false, "report progress on standard error once a second (always on a terminal)")
	jobsFlag := fs.Int("jobs", runtime.GOMAXPROCS(0), "episodes run in parallel (1..1024; the output is the same as with 1); "+
		"an agent that learns (concentrations a, b, d in the model, or --novelty-carry) runs its episodes in order")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, btaiRunSynopsis))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q (the maze is given with --maze, a model with --model)", pos[0])
	}
	opts, err := bf.options()
	if err != nil {
		return err
	}
	view, err := bf.dotView(*dotFile != "", "--dot FILE")
	if err != nil {
		return err
	}
	if err := act.apply(&opts); err != nil {
		return err
	}
	switch {
	case *steps < 1 || *steps > btaiMaxSteps:
		return badInput("--steps: %d, want 1..%d", *steps, btaiMaxSteps)
	case *episodes < 1 || *episodes > btaiMaxEpisodes:
		return badInput("--episodes: %d, want 1..%d", *episodes, btaiMaxEpisodes)
	case *jobsFlag < 1 || *jobsFlag > 1024:
		return badInput("--jobs: %d, want 1..1024", *jobsFlag)
	case *agents < 1 || *agents > 1024:
		return badInput("--agents: %d, want 1..1024", *agents)
	case *agents**episodes > btaiMaxEpisodes:
		return badInput("--agents %d × --episodes %d: %d episodes in all, want at most %d", *agents, *episodes, *agents**episodes, btaiMaxEpisodes)
	case (*mazeFile == "") == (*model == ""):
		return badInput("want exactly one of --maze FILE and --model FILE")
	case *process != "" && *mazeFile != "":
		return badInput("--process: the maze is the world of a --maze run (give --model and --process)")
	case !(*noise >= 0 && *noise < 1): // also NaN
		return badInput("--noise: %v, want a number in [0, 1)", *noise)
	case !btaiFinite(*pref):
		return badInput("--pref-precision: %v, want a finite number", *pref)
	case *model != "" && (btaiFlagSet(fs, "noise") || btaiFlagSet(fs, "pref-precision")):
		return badInput("--noise and --pref-precision apply to --maze only, not to --model")
	case *asJSON && *asCSV:
		return badInput("--json and --csv: give one")
	}
	if err := opts.Validate(); err != nil {
		return badInput("%v", err)
	}
	r := &agentRun{command: "btai run", asJSON: *asJSON, asCSV: *asCSV}
	if *mazeFile != "" {
		if r.mz, r.m, err = loadMazeModel(*mazeFile, *noise, *pref); err != nil {
			return err
		}
	} else {
		if r.m, err = loadPOMDP(*model); err != nil {
			return err
		}
		if err := btaiFactorisedFlags(r.m, *model, opts.GlobalInference, opts.Novelty, view.factors); err != nil {
			return err
		}
		r.world = r.m
		if *process != "" {
			if r.world, err = loadWorld(*process, r.m); err != nil {
				return err
			}
		}
	}
	m := r.m
	btaiCollect()
	if err := bf.checkModel(m); err != nil {
		return err
	}
	if err := act.checkModel(m); err != nil {
		return err
	}
	// Only the first planning step's tree is materialized for --dot, but
	// it is as big as any.
	if err := btaiCheckTree(opts.Iterations, m, opts.GlobalInference || *dotFile != ""); err != nil {
		return err
	}
	flagName, file := "--model", *model
	if *mazeFile != "" {
		flagName, file = "--maze", *mazeFile
	}
	memOne, memMore, err := btaiCheckMemory(flagName, file, m, opts)
	if err != nil {
		return err
	}
	if err := bf.checkPlanTime(m, opts); err != nil {
		return err
	}
	firstAg, err := btai.NewAgent(m, &opts, nil)
	if err != nil {
		return badInput("%v", err)
	}
	btaiCollect()
	plotSel, err := plotFlags.check(*episodes)
	if err != nil {
		return err
	}
	// Fail before any output when a file cannot be written, or the figure
	// of the first step would be too large.
	if *dotFile != "" {
		if err := checkOutputFile("--dot", *dotFile, true); err != nil {
			return err
		}
		if err := btaiTreeFigure("--dot", *dotFile, opts.Iterations, m, view); err != nil {
			return err
		}
	}
	if r.prov, err = provenance("btai run", fs, [2]string{"--model", *model}, [2]string{"--process", *process}, [2]string{"--maze", *mazeFile}); err != nil {
		return err
	}
	r.prov.Resolved = btaiSettings(bf.preset, opts, true)
	// Episodes are independent unless the agent learns (concentrations in
	// the model, or novelty counts carried over): then each agent runs its
	// episodes in order, and the agents (--agents) run in parallel. Every
	// episode draws from its own streams of the seed, so the output is the
	// same as with one worker, written in episode order. Each worker holds
	// a planning tree: as many as fit in the memory bound together.
	la, lb, ld := m.Learnable()
	learn := la || lb || ld || opts.NoveltyCarry
	tree := btai.TreeBytes(opts.Iterations, m.NumStates(), m.NumObs(), m.NumActions(), opts.GlobalInference || *dotFile != "")
	jobs := max(1, min(*jobsFlag, int(btaiMaxTreeBytes/max(tree, 1)), 1+int((btaiMaxBytes-memOne)/max(memMore, 1))))
	r.runs = agent.Runs{Agents: *agents, Trials: *episodes, Workers: jobs, MaxSteps: *steps, Seed: *seed, Carry: learn}
	r.newAg = btaiAgents(firstAg, m, &opts)
	settings := btaiSettings(bf.preset, opts, true)
	if !*asJSON && !*asCSV {
		fmt.Fprintln(stdout, settings)
	}
	r.prog = startProgress(*progressFlag, *agents**episodes, int64(opts.Iterations), "planning iterations")
	defer r.prog.end()
	if *plotFile != "" {
		r.plot = plotFlags.newRunPlot(plotSel, "average cost of the action taken", r.mz, m, *agents, *episodes)
		r.cost = func(d *agent.Decision) float64 { return d.Value("average_cost")[d.Action] }
	}
	if *dotFile != "" {
		r.dot = func(ctx context.Context, ag agent.Agent, d *agent.Decision) error {
			return btaiWriteDOT(ctx, ag.(*btai.Agent), m, "dot", *dotFile, view, d.Action)
		}
	}
	r.extra = func(rec *runRecord, ep *agent.Episode) { rec.PlanIterations = ep.NumActions() * opts.Iterations }
	r.human = func(w io.Writer, label string, ep *agent.Episode, positions [][2]int) {
		btaiPrintEpisode(w, label, ep, m, r.mz, positions, opts.Iterations)
	}
	r.summary = func(s *runSummary) any {
		sum := btaiSummaryJSON{Episodes: s.Episodes, Settings: settings}
		if *agents > 1 {
			sum.Agents = *agents
		}
		var mean *float64
		if r.mz != nil {
			sum.Solved = &s.Solved
			sum.MeanSteps = json.RawMessage("null")
			if s.Solved > 0 {
				m := float64(s.StepsSolved) / float64(s.Solved)
				mean = &m
				sum.MeanSteps, _ = json.Marshal(m)
			}
		}
		sum.PlanningIterations, sum.PlanningSeconds = s.Actions*opts.Iterations, s.PlanningSeconds
		rate := 0.0
		if s.PlanningSeconds > 0 {
			rate = float64(sum.PlanningIterations) / s.PlanningSeconds
		}
		if r.asJSON {
			return sum
		}
		var text string
		if r.mz != nil {
			text = fmt.Sprintf("%d/%d episodes solved", s.Solved, s.Episodes)
			if mean != nil {
				text += fmt.Sprintf(", mean steps %.1f", *mean)
			}
		} else {
			text = fmt.Sprintf("%d episodes", s.Episodes)
		}
		// The only line that varies between runs with the same seed.
		return stringer(text + fmt.Sprintf("; %.0f planning iterations per second", rate))
	}
	return r.run(stdout)
}

// btaiPrintEpisode prints one episode for humans: the outcome, the actions
// and, for a maze, the positions visited and the maze with the visited
// cells marked '*' (S and E keep their letters).
func btaiPrintEpisode(w io.Writer, label string, ep *agent.Episode, m *pomdp.Model, mz *envs.Maze, positions [][2]int, iterations int) {
	status := "ran"
	if mz != nil {
		status = "did not reach the exit in"
		if ep.Solved {
			status = "reached the exit in"
		}
	}
	fmt.Fprintf(w, "%s: %s %d steps (%d planning iterations)\n", label, status, ep.NumActions(), ep.NumActions()*iterations)
	printActions(w, m, ep, mz == nil)
	if mz == nil {
		return
	}
	var b strings.Builder
	for i, p := range positions {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "(%d,%d)", p[0], p[1])
	}
	fmt.Fprintf(w, "path: %s\n", b.String())
	fmt.Fprint(w, mz.Render(mazeStates(mz, positions)))
}

// btaiFactorisedFlags refuses the flags that need the planning tree in the
// graph, or the novelty over one A, on a model with several factors or
// modalities: one line naming the flag and the file.
func btaiFactorisedFlags(m *pomdp.Model, file string, global, novelty bool, dotFactors bool) error {
	if m.NumFactors() == 1 && m.NumModalities() == 1 {
		return nil
	}
	what := fmt.Sprintf("--model %s has %d hidden-state factors and %d modalities", file, m.NumFactors(), m.NumModalities())
	switch {
	case global:
		return badInput("--global: %s; global inference puts the planning tree in the graph, which is done for one factor and one modality only (leave --global out)", what)
	case novelty:
		return badInput("--novelty: %s; the novelty bonus is over one modality's A (leave --novelty out, or give the modalities concentrations a to learn them)", what)
	case dotFactors:
		return badInput("--dot-factors: %s; the factor graph of the planning tree is drawn for one factor and one modality only (the tree view of --dot works)", what)
	}
	return nil
}

const btaiReplaySynopsis = "arbor btai replay --model M --data D.csv [--preset ...] [planning flags] [--action-select softmax|visits] [--action-precision α] [--seed 1] [--beliefs] [--subjects FILE] [--json | --csv]"

// runBTAIReplay drives the BTAI agent along recorded behaviour: each
// subject's trials in order, the recorded actions scored by the agent's
// choice distribution (a stochastic rule: softmax or visits) and taken.
func runBTAIReplay(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("btai replay", flag.ContinueOnError)
	var bf btaiFlags
	bf.register(fs)
	var act btaiActFlags
	act.register(fs)
	model, data, subjects, seed, jobs, asJSON, asCSV, beliefs := registerReplay(fs)
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, btaiReplaySynopsis))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q (usage: %s)", pos[0], btaiReplaySynopsis)
	}
	opts, err := bf.options()
	if err != nil {
		return err
	}
	if !btaiFlagSet(fs, "action-select") {
		// Replay scores choices: its default is the stochastic rule over
		// visit counts (most-visited, the preset's default, picks its mode).
		opts.ActionSelection, opts.ActionPrecision = btai.Visits, nil
	}
	if err := act.apply(&opts); err != nil {
		return err
	}
	switch {
	case *model == "":
		return badInput("--model: missing (the agent's POMDP file)")
	case *data == "":
		return badInput("--data: missing (the recorded behaviour)")
	case *jobs < 1 || *jobs > 1024:
		return badInput("--jobs: %d, want 1..1024", *jobs)
	case *asJSON && *asCSV:
		return badInput("--json and --csv: give one")
	case *beliefs && !*asJSON && !*asCSV:
		return badInput("--beliefs: applies to --json and --csv (the human output has one line per subject)")
	case opts.ActionSelection.Deterministic():
		return badInput("--action-select %s: a deterministic rule gives no probability to score a recorded choice with (want softmax or visits)", opts.ActionSelection)
	}
	for _, name := range []string{"dot-factors", "dot-depth", "dot-top"} {
		if bf.set(name) {
			return badInput("--%s: btai replay draws no figure (the flag belongs to btai plan and btai run with --dot)", name)
		}
	}
	if err := opts.Validate(); err != nil {
		return badInput("%v", err)
	}
	m, err := loadPOMDP(*model)
	if err != nil {
		return err
	}
	btaiCollect()
	if err := btaiFactorisedFlags(m, *model, opts.GlobalInference, opts.Novelty, false); err != nil {
		return err
	}
	if err := bf.checkModel(m); err != nil {
		return err
	}
	if err := act.checkModel(m); err != nil {
		return err
	}
	if err := btaiCheckTree(opts.Iterations, m, opts.GlobalInference); err != nil {
		return err
	}
	if _, _, err := btaiCheckMemory("--model", *model, m, opts); err != nil {
		return err
	}
	if err := bf.checkPlanTime(m, opts); err != nil {
		return err
	}
	firstAg, err := btai.NewAgent(m, &opts, nil)
	if err != nil {
		return badInput("%v", err)
	}
	btaiCollect()
	r := &replayRun{m: m, data: *data, subjects: *subjects, seed: *seed, jobs: *jobs, asJSON: *asJSON, asCSV: *asCSV, beliefs: *beliefs,
		newAg: btaiAgents(firstAg, m, &opts)}
	if r.prov, err = provenance("btai replay", fs, [2]string{"--model", *model}); err != nil {
		return err
	}
	r.prov.Resolved = btaiSettings(bf.preset, opts, true)
	return r.run(stdout)
}

// btaiAgents returns the agent constructor of a run or replay: its first
// call returns first, the agent already made to check the options against
// the model (an agent that has not planned is the same as a new one), and
// the others new agents. An agent holds its own copy of the past's
// transition tensor (42 MB on a maze of 1,024 states), so the check does
// not cost one more.
func btaiAgents(first *btai.Agent, m *pomdp.Model, opts *btai.Options) func() (agent.Agent, error) {
	var mu sync.Mutex
	return func() (agent.Agent, error) {
		mu.Lock()
		ag := first
		first = nil
		mu.Unlock()
		if ag != nil {
			return ag, nil
		}
		return btai.NewAgent(m, opts, nil)
	}
}

// btaiCollect runs the garbage collector once the model is read, before
// any agent is made, and again once the first agent is made: what reading
// the model left behind (a maze's or a file's numbers before pomdp.New
// copied them: one more dense transition tensor, 671 MB for a maze of
// 4,096 states), and what making the agent did (the past's transition
// tensor in two more forms while nodes.NewTransition builds it), is then
// free for what comes next to reuse, instead of the heap growing by it
// too. It takes a few milliseconds.
func btaiCollect() { runtime.GC() }
