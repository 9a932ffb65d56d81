package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

const (
	siPlanSynopsis = "arbor si plan --model M --obs O0 --depth D [--gamma 1] [--branch joint|marginal] [--prune-actions x] [--prune-relative] " +
		"[--prune-outcomes p] [--max-branches K] [--max-nodes N] [--max-minutes m] [--novelty] [--dot FILE [--dot-depth K]] [--json]"
	siRunSynopsis = "arbor si run --maze FILE | --model M [--process W] --depth D [search flags] [--steps 50] [--episodes 1] [--agents 1] [--seed 1] [--jobs N] " +
		"[--select argmax|sample] [--action-precision α] [--eta η] [--omega ω] [--progress] [--dot FILE] [--plot FILE.svg|.pdf|.png [--plot-dpi N] [--plot-episode N|all]] [--json | --csv]"
	siReplaySynopsis = "arbor si replay --model M --data D.csv --depth D [search flags] [--action-precision α] [--eta η] [--omega ω] [--beliefs] [--subjects FILE] [--seed 1] [--jobs 1] [--json | --csv]"
)

// runSI is the command "arbor si": sophisticated inference (docs/si.md).
func runSI(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return badInput("want a subcommand: plan, run, replay or fit (e.g. arbor si plan --model M --obs 0 --depth 3)")
	}
	switch args[0] {
	case "plan":
		return inSubcommand("plan", runSIPlan(args[1:], stdout))
	case "run":
		return inSubcommand("run", runSIRun(args[1:], stdout))
	case "replay":
		return inSubcommand("replay", runSIReplay(args[1:], stdout))
	case "-h", "--help", "help":
		fmt.Fprintf(stdout, "usage:\n  %s\n  %s\n  %s\n  %s\n'arbor si plan -h', 'arbor si run -h', 'arbor si replay -h' and 'arbor si fit -h' list every flag\n",
			siPlanSynopsis, siRunSynopsis, siReplaySynopsis, siFitSynopsis)
		return nil
	}
	return badInput("unknown subcommand %q (want plan, run, replay or fit)", args[0])
}

// siPlanJSON is the output of arbor si plan --json.
type siPlanJSON struct {
	QS          any            `json:"q_s"`
	G           []output.Float `json:"G"`
	ActionProbs []output.Float `json:"action_probs"`
	Depth       int            `json:"depth"`
	Nodes       int            `json:"nodes"`
	Truncated   bool           `json:"truncated"`
}

// siSearchFlags are the flags of the search, shared by si plan, run and
// replay.
type siSearchFlags struct {
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

func (f *siSearchFlags) register(fs *flag.FlagSet) {
	f.fs = fs
	f.depth = fs.Int("depth", 0, fmt.Sprintf("future steps searched (1..%d; required)", si.MaxDepth))
	f.gamma = fs.Float64("gamma", si.DefaultGamma, "precision of Q(u | o) = σ(−γ G) at every node (finite > 0)")
	f.branch = fs.String("branch", si.Joint.String(), "outcome branching: joint (the joint outcomes of all modalities, exact) or marginal (the product of the modalities' marginals, as pymdp)")
	f.pruneActions = fs.Float64("prune-actions", 0, "do not expand an action whose one-step probability at its node is below x (pymdp's rule), in [0, 1)")
	f.pruneRelative = fs.Bool("prune-relative", false, "with --prune-actions: below x times the most probable action's (SPM's rule)")
	f.pruneOutcomes = fs.Float64("prune-outcomes", 0, "skip outcomes of probability below p and renormalise the kept ones, p in [0, 1)")
	f.maxBranches = fs.Int("max-branches", si.DefaultMaxBranches, "keep at most this many outcomes after an action, the most probable (>= 1)")
	f.maxNodes = fs.Int("max-nodes", si.DefaultMaxNodes, "score at most this many beliefs per search; past it the search returns the deepest depth it completed and says so")
	f.maxMin = fs.Float64("max-minutes", 10, "refuse when one search is estimated to take longer than this many minutes (the estimate is printed with the refusal)")
	f.novelty = fs.Bool("novelty", false, "subtract the novelty of A (the information gain about it) at every step (needs concentrations a)")
}

// options checks the flags that need no model and returns the search's
// options.
func (f *siSearchFlags) options() (*si.Options, error) {
	given := aciFlagsGiven(f.fs)
	if !given["depth"] {
		return nil, badInput("--depth: missing (want the number of future steps, 1..%d)", si.MaxDepth)
	}
	b, err := si.ParseBranching(*f.branch)
	if err != nil {
		return nil, badInput("--branch: %v", err)
	}
	switch {
	case *f.depth < 1 || *f.depth > si.MaxDepth:
		return nil, badInput("--depth: %d, want 1..%d", *f.depth, si.MaxDepth)
	case math.IsNaN(*f.gamma) || math.IsInf(*f.gamma, 0) || *f.gamma <= 0:
		return nil, badInput("--gamma: %v, want finite > 0", *f.gamma)
	case !(*f.pruneActions >= 0 && *f.pruneActions < 1):
		return nil, badInput("--prune-actions: %v, want a number in [0, 1)", *f.pruneActions)
	case !(*f.pruneOutcomes >= 0 && *f.pruneOutcomes < 1):
		return nil, badInput("--prune-outcomes: %v, want a number in [0, 1)", *f.pruneOutcomes)
	case *f.pruneRelative && *f.pruneActions == 0:
		return nil, badInput("--prune-relative: needs --prune-actions x with x > 0")
	case *f.maxBranches < 1:
		return nil, badInput("--max-branches: %d, want >= 1", *f.maxBranches)
	case *f.maxNodes < 1:
		return nil, badInput("--max-nodes: %d, want >= 1", *f.maxNodes)
	case !(*f.maxMin > 0) || math.IsInf(*f.maxMin, 0):
		return nil, badInput("--max-minutes: %v, want a finite number > 0", *f.maxMin)
	}
	return &si.Options{
		Depth: *f.depth, Gamma: *f.gamma, Branch: b,
		PruneActions: *f.pruneActions, PruneRelative: *f.pruneRelative, PruneOutcomes: *f.pruneOutcomes,
		MaxBranches: *f.maxBranches, MaxNodes: *f.maxNodes, Novelty: *f.novelty,
	}, nil
}

// check validates opts for model m (read from source, "--model FILE")
// and refuses a search estimated above --max-minutes, with the estimate.
func (f *siSearchFlags) check(m *pomdp.Model, opts *si.Options, source string) error {
	est, err := si.EstimatePlan(m, opts)
	if err != nil {
		return badInput("%s", siOptionError(err, source))
	}
	if est.Seconds <= 60**f.maxMin {
		return nil
	}
	tree := fmt.Sprintf("%.3g", est.TreeNodes)
	if math.IsInf(est.TreeNodes, 1) {
		tree = "over 1e308"
	}
	return badInput("--depth %d: up to %.3g nodes (the full tree has %s) would take about %s per search (estimated from %d states, %d observations, %d actions), over --max-minutes %g; prune (--prune-outcomes, --prune-actions), lower --max-nodes or raise --max-minutes",
		opts.Depth, est.Nodes, tree, durationText(est.Seconds), m.NumStates(), m.NumObs(), m.NumActions(), *f.maxMin)
}

func runSIPlan(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("si plan", flag.ContinueOnError)
	var sf siSearchFlags
	sf.register(fs)
	model := fs.String("model", "", "POMDP file (docs/formats.md; required)")
	obsRaw := fs.String("obs", "", "the first observation O0: its index, or one outcome index per modality, comma-separated (0,2) (required)")
	dotFile := fs.String("dot", "", "draw the search tree (beliefs as ellipses, actions as boxes with G and Q(u)) into this file: SVG, PDF or PNG by its ending, DOT otherwise")
	dotDepth := fs.Int("dot-depth", 0, fmt.Sprintf("with --dot: draw this many steps (>= 1; default the most that keep the figure within %d nodes)", si.DOTPageNodes))
	asJSON := fs.Bool("json", false, "print G, the action distribution and the node count as JSON")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, siPlanSynopsis))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q (the model is given with --model)", pos[0])
	}
	given := aciFlagsGiven(fs)
	opts, err := sf.options()
	if err != nil {
		return err
	}
	switch {
	case given["dot-depth"] && *dotFile == "":
		return badInput("--dot-depth: needs --dot FILE")
	case given["dot-depth"] && *dotDepth < 1:
		return badInput("--dot-depth: %d, want >= 1", *dotDepth)
	}
	m, err := loadPOMDP(*model)
	if err != nil {
		return err
	}
	if !given["obs"] {
		return badInput("--obs: missing (want an observation index in [0, %d), from --model %s)", m.NumObs(), *model)
	}
	obs, err := obsArg(*obsRaw, m, *model)
	if err != nil {
		return err
	}
	// The agent's view: with concentrations a, b, d the planner uses their
	// expectations (as aci eval).
	if m, err = m.AgentView(); err != nil {
		return badInput("--model %s: %v", *model, err)
	}
	if err := sf.check(m, opts, "--model "+*model); err != nil {
		return err
	}
	qs, err := pomdp.StatePosterior(nil, m, obs)
	if err != nil {
		return badInput("--obs %s: %s (--model %s)", *obsRaw, strings.TrimPrefix(err.Error(), fmt.Sprintf("observation %d: ", obs)), *model)
	}
	if *dotFile != "" {
		// Fail before the search when the figure cannot be written.
		if err := checkOutputFile("--dot", *dotFile, true); err != nil {
			return err
		}
	}
	// SIGINT or SIGTERM stops the search (exit 130 or 143), and a figure
	// being rendered (the renderer is killed, the file left as it was).
	ctx := commandContext()
	planner, err := si.NewPlanner(m, opts)
	if err != nil {
		return badInput("%s", siOptionError(err, "--model "+*model))
	}
	res, err := planner.Plan(ctx, qs)
	if err != nil {
		return err
	}
	best := 0
	for u, p := range res.ActionProbs {
		if p > res.ActionProbs[best] {
			best = u
		}
	}
	if *dotFile != "" {
		tr, err := planner.Tree()
		if err != nil {
			return err
		}
		if err := siWriteDOT(ctx, tr, *dotFile, *dotDepth, best); err != nil {
			return err
		}
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(siPlanJSON{
			QS: output.Belief(m, qs), G: output.Floats(res.G), ActionProbs: output.Floats(res.ActionProbs),
			Depth: res.Depth, Nodes: res.Nodes, Truncated: res.Truncated,
		})
	}
	fmt.Fprintf(stdout, "observation O0 = %s: posterior over the current state\n", m.ObsName(obs))
	for s, p := range qs {
		if p >= 0.0005 {
			fmt.Fprintf(stdout, "  %-12s %.4f\n", m.StateName(s), p)
		}
	}
	fmt.Fprintf(stdout, "sophisticated inference: depth %d, gamma %g, %s outcomes, %s: %d nodes\n", res.Depth, opts.Gamma, opts.Branch, siPruneText(opts), res.Nodes)
	if res.Truncated {
		fmt.Fprintf(stdout, "  node budget --max-nodes %d spent: searched %d of %d steps deep\n", opts.MaxNodes, res.Depth, opts.Depth)
	}
	fmt.Fprintf(stdout, "  %-12s %-10s %-10s %s\n", "action", "G", "Q(u)", "one-step G")
	for u := range res.G {
		g := fmt.Sprintf("%.5g", res.G[u])
		if !res.Expanded[u] {
			g = "pruned"
		}
		mark := ""
		if u == best {
			mark = "  <- most probable"
		}
		fmt.Fprintf(stdout, "  %-12s %-10s %-10.4f %.5g%s\n", m.ActionName(u), g, res.ActionProbs[u], res.Local[u], mark)
	}
	return nil
}

// siActFlags are the flags of how the agent acts and learns, shared by si
// run and si replay (replay has no --select: it scores recorded choices).
type siActFlags struct {
	fs            *flag.FlagSet
	sel           *string
	alpha         *float64
	actionFactors *string
	eta           *float64
	omega         *float64
}

func (f *siActFlags) register(fs *flag.FlagSet, selectFlag bool) {
	f.fs = fs
	if selectFlag {
		f.sel = fs.String("select", si.SelectArgmax, "action selection: argmax (the most probable action of Q(u) = σ(−γ G)) or sample (a draw from P(u) = σ(α ln Q(u)))")
	}
	f.alpha = fs.Float64("action-precision", 1, "action precision α of P(u) = σ(α ln Q(u)): what --select sample draws from and what a recorded choice is scored with (1: Q itself)")
	f.actionFactors = fs.String("action-factors", "joint", "with several controllable factors: joint (P(u) over the joint actions) or independent (each factor's control from σ(α ln Q_f) of its marginal, as pymdp samples)")
	f.eta = fs.Float64("eta", 1, "learning rate η of the Dirichlet counts at the end of every trial: c' = ω c + η Δc (finite, >= 0)")
	f.omega = fs.Float64("omega", 1, "forgetting ω of the Dirichlet counts at the end of every trial: c' = ω c + η Δc (0 < ω <= 1)")
}

// apply checks the flags and sets the acting options of o for model m.
func (f *siActFlags) apply(o *si.Options, m *pomdp.Model) error {
	given := aciFlagsGiven(f.fs)
	switch {
	case f.sel != nil && *f.sel != si.SelectArgmax && *f.sel != si.SelectSample:
		return badInput("--select: %q, want %s or %s", *f.sel, si.SelectArgmax, si.SelectSample)
	case math.IsNaN(*f.alpha) || math.IsInf(*f.alpha, 0) || *f.alpha < 0:
		return badInput("--action-precision: %v, want finite >= 0", *f.alpha)
	case math.IsNaN(*f.eta) || math.IsInf(*f.eta, 0) || *f.eta < 0:
		return badInput("--eta: %v, want finite >= 0", *f.eta)
	case !(*f.omega > 0 && *f.omega <= 1):
		return badInput("--omega: %v, want 0 < ω <= 1", *f.omega)
	}
	if la, lb, ld := m.Learnable(); !la && !lb && !ld {
		for _, name := range []string{"eta", "omega"} {
			if given[name] {
				return badInput("--%s: the model has no concentrations a, b or d to learn (--eta and --omega apply to a model that learns)", name)
			}
		}
	}
	af, err := agent.ParseActionFactors(*f.actionFactors)
	if err != nil {
		return badInput("--action-factors: %v", err)
	}
	o.ActionFactors = af
	if f.sel != nil {
		o.Select = *f.sel
	}
	if given["action-precision"] {
		o.ActionPrecision = f.alpha
	}
	if given["eta"] {
		o.LearningRate = f.eta
	}
	if given["omega"] {
		o.Forgetting = f.omega
	}
	return nil
}

func runSIRun(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("si run", flag.ContinueOnError)
	var sf siSearchFlags
	sf.register(fs)
	var af siActFlags
	af.register(fs, true)
	mazeFile := fs.String("maze", "", "maze file (docs/formats.md); exactly one of --maze and --model")
	model := fs.String("model", "", "POMDP file (docs/formats.md): the agent's beliefs, and the true process unless --process gives another, sampled with --seed")
	process := fs.String("process", "", "POMDP file used as the true process (the world), with the actions and observations of --model; the agent plans with --model")
	steps := fs.Int("steps", 50, "maximum actions per episode (1..1000000)")
	episodes := fs.Int("episodes", 1, "episodes (trials; per agent with --agents); with concentrations a, b, d in --model the agent learns between them")
	agents := fs.Int("agents", 1, "independent agents, each running --episodes episodes from the model's priors (1..1024); agents that learn run in parallel under --jobs")
	seed := fs.Uint64("seed", 1, "random seed: agent a's episode e draws its decisions from the streams of seed + e-1 (agent.StepRand) and a --model process from seed + (a-1)*episodes + e-1")
	progressFlag := fs.Bool("progress", false, "report progress on standard error once a second (always on a terminal)")
	jobsFlag := fs.Int("jobs", runtime.GOMAXPROCS(0), "episodes run in parallel (1..1024; the output is the same as with 1); "+
		"an agent that learns (concentrations a, b, d) runs its episodes in order")
	dotFile := fs.String("dot", "", "draw the search tree of the first step into this file (as si plan --dot, to the default depth): SVG, PDF or PNG by its ending, DOT otherwise")
	plotFlags := addRunPlotFlags(fs, "the G of each action taken")
	plotFile := plotFlags.file
	noise := fs.Float64("noise", envs.DefaultNoise, "maze model noise on A, B and D, in [0, 1) (--maze only)")
	pref := fs.Float64("pref-precision", envs.DefaultPrefPrecision, "maze preference precision, finite (--maze only)")
	asJSON := fs.Bool("json", false, "a provenance line, one JSON object per episode and a summary line")
	asCSV := fs.Bool("csv", false, "one CSV row per time step in the recorded-behaviour format (docs/behaviour.md), with the action probabilities")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, siRunSynopsis))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q (usage: %s)", pos[0], siRunSynopsis)
	}
	given := aciFlagsGiven(fs)
	opts, err := sf.options()
	if err != nil {
		return err
	}
	switch {
	case *steps < 1 || *steps > 1_000_000:
		return badInput("--steps: %d, want 1..1000000", *steps)
	case *episodes < 1 || *episodes > 100_000:
		return badInput("--episodes: %d, want 1..100000", *episodes)
	case *jobsFlag < 1 || *jobsFlag > 1024:
		return badInput("--jobs: %d, want 1..1024", *jobsFlag)
	case *agents < 1 || *agents > 1024:
		return badInput("--agents: %d, want 1..1024", *agents)
	case *agents**episodes > 100_000:
		return badInput("--agents %d × --episodes %d: %d episodes in all, want at most 100000", *agents, *episodes, *agents**episodes)
	case (*mazeFile == "") == (*model == ""):
		return badInput("want exactly one of --maze FILE and --model FILE")
	case *process != "" && *mazeFile != "":
		return badInput("--process: the maze is the world of a --maze run (give --model and --process)")
	case !(*noise >= 0 && *noise < 1): // also NaN
		return badInput("--noise: %v, want a number in [0, 1)", *noise)
	case math.IsNaN(*pref) || math.IsInf(*pref, 0):
		return badInput("--pref-precision: %v, want a finite number", *pref)
	case *model != "" && (given["noise"] || given["pref-precision"]):
		return badInput("--noise and --pref-precision apply to --maze only, not to --model")
	case *asJSON && *asCSV:
		return badInput("--json and --csv: give one")
	case *mazeFile != "" && given["seed"] && *af.sel != si.SelectSample:
		return badInput("--seed: a --maze run with --select %s draws nothing (the maze is deterministic; --select sample draws the actions)", *af.sel)
	}
	r := &agentRun{command: "si run", asJSON: *asJSON, asCSV: *asCSV}
	source := "--maze " + *mazeFile
	if *mazeFile != "" {
		if r.mz, r.m, err = loadMazeModel(*mazeFile, *noise, *pref); err != nil {
			return err
		}
	} else {
		source = "--model " + *model
		if r.m, err = loadPOMDP(*model); err != nil {
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
	if err := af.apply(opts, m); err != nil {
		return err
	}
	if err := sf.check(m, opts, source); err != nil {
		return err
	}
	if _, err := si.NewAgent(m, opts); err != nil {
		return badInput("%s", siOptionError(err, source))
	}
	plotSel, err := plotFlags.check(*episodes)
	if err != nil {
		return err
	}
	// Fail before any output when a file cannot be written.
	for _, f := range [][2]string{{"--dot", *dotFile}} {
		if f[1] != "" {
			if err := checkOutputFile(f[0], f[1], f[0] == "--dot"); err != nil {
				return err
			}
		}
	}
	if r.prov, err = provenance("si run", fs, [2]string{"--model", *model}, [2]string{"--process", *process}, [2]string{"--maze", *mazeFile}); err != nil {
		return err
	}
	// Trials are independent unless the agent learns (concentrations a,
	// b, d): then each agent runs its trials in order, and the agents run
	// in parallel. Every trial draws from its own streams, and the output
	// is written in trial order, the same as with one worker.
	la, lb, ld := m.Learnable()
	r.runs = agent.Runs{Agents: *agents, Trials: *episodes, Workers: *jobsFlag, MaxSteps: *steps, Seed: *seed, Carry: la || lb || ld}
	r.newAg = func() (agent.Agent, error) { return si.NewAgent(m, opts) }
	r.prog = startProgress(*progressFlag, *agents**episodes, 1, "searches")
	defer r.prog.end()
	if *plotFile != "" {
		r.plot = plotFlags.newRunPlot(plotSel, "G of the action taken", r.mz, m, *agents, *episodes)
		r.cost = func(d *agent.Decision) float64 { return d.Value("G")[d.Action] }
	}
	if *dotFile != "" {
		r.dot = func(ctx context.Context, ag agent.Agent, d *agent.Decision) error {
			tr, err := ag.(*si.Agent).Tree()
			if err != nil {
				return err
			}
			return siWriteDOT(ctx, tr, *dotFile, 0, d.Action)
		}
	}
	truncated := 0 // searches the node budget cut short, in the episodes written
	r.extra = func(rec *runRecord, ep *agent.Episode) {
		rec.SearchNodes = []int{}
		for _, st := range ep.Steps {
			if st.Decision == nil {
				continue
			}
			res := st.Decision.Detail.(*si.Result)
			rec.SearchNodes = append(rec.SearchNodes, res.Nodes)
			if res.Truncated {
				rec.TruncatedSteps = append(rec.TruncatedSteps, st.T)
			}
		}
		truncated += len(rec.TruncatedSteps)
	}
	r.human = func(w io.Writer, label string, ep *agent.Episode, positions [][2]int) {
		var rec runRecord
		r.extra(&rec, ep)
		siPrintEpisode(w, label, ep, m, r.mz, positions, opts, &rec)
	}
	r.summary = func(s *runSummary) any {
		var meanSteps any // null when no episode was solved
		if s.Solved > 0 {
			meanSteps = float64(s.StepsSolved) / float64(s.Solved)
		}
		sum := map[string]any{"episodes": s.Episodes, "planning_seconds": s.PlanningSeconds, "truncated_searches": truncated}
		if r.mz != nil {
			sum["solved"], sum["mean_steps"] = s.Solved, meanSteps
		}
		if *agents > 1 {
			sum["agents"] = *agents
		}
		if r.asJSON {
			return sum
		}
		text := fmt.Sprintf("%d episodes", s.Episodes)
		if r.mz != nil {
			text = fmt.Sprintf("%d/%d episodes solved", s.Solved, s.Episodes)
			if s.Solved > 0 {
				text += fmt.Sprintf(", mean steps %.1f", meanSteps)
			}
		}
		if truncated > 0 {
			text += fmt.Sprintf("; the node budget --max-nodes %d cut %d searches short", opts.MaxNodes, truncated)
		}
		return stringer(text + fmt.Sprintf("; %.3f s planning in all", s.PlanningSeconds))
	}
	return r.run(stdout)
}

// siPrintEpisode is the human output of one episode of si run: a summary
// line, the searches the node budget cut short, the actions (and the
// observations of a model), and for a maze the maze with the path.
func siPrintEpisode(w io.Writer, label string, ep *agent.Episode, m *pomdp.Model, mz *envs.Maze, positions [][2]int, o *si.Options, rec *runRecord) {
	status := "ran"
	if mz != nil {
		status = "did not reach the exit"
		if ep.Solved {
			status = "reached the exit"
		}
	}
	nodes := 0
	for _, n := range rec.SearchNodes {
		nodes += n
	}
	fmt.Fprintf(w, "%s: %s in %d steps (searches of depth %d, %d nodes in all, %.3f s planning)\n",
		label, status, ep.NumActions(), o.Depth, nodes, ep.PlanningSeconds)
	if len(rec.TruncatedSteps) > 0 {
		fmt.Fprintf(w, "node budget --max-nodes %d spent at steps %s: those searches are shallower than --depth %d\n",
			o.MaxNodes, strings.Trim(fmt.Sprint(rec.TruncatedSteps), "[]"), o.Depth)
	}
	printActions(w, m, ep, mz == nil)
	if mz == nil {
		return
	}
	fmt.Fprint(w, mz.Render(mazeStates(mz, positions)))
}

// siReplayAgent is the agent of si replay: a search that the node budget
// cuts short is an error, so that a log-likelihood is always that of the
// depth asked for.
type siReplayAgent struct {
	*si.Agent
	maxNodes int
}

func (a siReplayAgent) Decide(ctx context.Context, rng *rand.Rand) (*agent.Decision, error) {
	d, err := a.Agent.Decide(ctx, rng)
	if err != nil {
		return nil, err
	}
	if res := d.Detail.(*si.Result); res.Truncated {
		return nil, badInput("--max-nodes %d: the search stopped at depth %d of %d (%d nodes); raise --max-nodes or prune (--prune-outcomes, --prune-actions), so that every choice is scored at the depth asked for",
			a.maxNodes, res.Depth, a.Options().Depth, res.Nodes)
	}
	return d, nil
}

// runSIReplay drives the sophisticated-inference agent along recorded
// behaviour: each subject's trials in order, every recorded action scored
// by P(u) = σ(α ln Q(u)) and taken.
func runSIReplay(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("si replay", flag.ContinueOnError)
	var sf siSearchFlags
	sf.register(fs)
	var af siActFlags
	af.register(fs, false)
	model, data, subjects, seed, jobs, asJSON, asCSV, beliefs := registerReplay(fs)
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, siReplaySynopsis))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q (usage: %s)", pos[0], siReplaySynopsis)
	}
	opts, err := sf.options()
	if err != nil {
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
	case aciFlagsGiven(fs)["seed"]:
		return badInput("--seed: si replay draws nothing (it takes the recorded choices, and carries a missed one forward under the agent's action distribution)")
	}
	m, err := loadPOMDP(*model)
	if err != nil {
		return err
	}
	if err := af.apply(opts, m); err != nil {
		return err
	}
	if err := sf.check(m, opts, "--model "+*model); err != nil {
		return err
	}
	if _, err := si.NewAgent(m, opts); err != nil {
		return badInput("%s", siOptionError(err, "--model "+*model))
	}
	r := &replayRun{m: m, data: *data, subjects: *subjects, seed: *seed, jobs: *jobs, asJSON: *asJSON, asCSV: *asCSV, beliefs: *beliefs,
		newAg: func() (agent.Agent, error) {
			ag, err := si.NewAgent(m, opts)
			if err != nil {
				return nil, err
			}
			return siReplayAgent{Agent: ag, maxNodes: opts.MaxNodes}, nil
		}}
	if r.prov, err = provenance("si replay", fs, [2]string{"--model", *model}); err != nil {
		return err
	}
	return r.run(stdout)
}

// siPruneText describes the pruning of opts.
func siPruneText(o *si.Options) string {
	var parts []string
	if o.PruneActions > 0 {
		rule := "absolute"
		if o.PruneRelative {
			rule = "relative"
		}
		parts = append(parts, fmt.Sprintf("actions below %g (%s)", o.PruneActions, rule))
	}
	if o.PruneOutcomes > 0 {
		parts = append(parts, fmt.Sprintf("outcomes below %g", o.PruneOutcomes))
	}
	if len(parts) == 0 {
		return "no pruning"
	}
	return "pruning " + strings.Join(parts, ", ")
}

// siOptionError names the flag of an option the library refused, or the
// model when the fault is in it.
func siOptionError(err error, source string) string {
	msg := err.Error()
	for _, f := range []struct{ option, flag string }{
		{"Options.MaxNodes", "--max-nodes"},
		{"Options.Depth", "--depth"},
		{"Options.Novelty", "--novelty"},
		{"Options.ActionPrecision", "--action-precision"},
		{"Options.LearningRate", "--eta"},
		{"Options.Forgetting", "--omega"},
	} {
		if rest, ok := strings.CutPrefix(msg, f.option); ok {
			return f.flag + rest
		}
	}
	return fmt.Sprintf("%s: %s", source, strings.TrimPrefix(msg, "model: "))
}
