package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/internal/output"
)

// runView is how `arbor X run` shows one planner's episodes: the parts of
// run's output that differ between planners. A field left empty takes
// defaultView's (withDefaults); a view without dotHelp has no --dot.
type runView struct {
	// cost names the planning cost of the action taken (Decision.Cost)
	// that --plot draws.
	cost string
	// dotHelp is the help of --dot.
	dotHelp string
	// flags registers the view's own flags and returns what checks them
	// once the model is known and makes the --dot figure.
	flags func(fs *flag.FlagSet) viewSetup
	// episode is the first line of an episode's human output, after its
	// label ("reached the exit in 5 steps (...)"); rec holds the
	// episode's record.
	episode func(r *agentRun, status string, ep *agent.Episode, rec *runRecord) string
	// path adds the cells visited, as a line, to the human output of an
	// episode in a maze.
	path bool
	// extra fills the planner's own fields of an episode's record.
	extra func(r *agentRun, rec *runRecord, ep *agent.Episode)
	// summary returns the last line of the run (JSON with --json, else
	// a fmt.Stringer or nil).
	summary func(r *agentRun, s *runSummary) any
	// counts makes the summary count the searches that a budget cut
	// short (Decision.Truncated), in every output.
	counts bool
}

// defaultView shows the episodes of a planner without a view of its own.
var defaultView = &runView{
	cost: "planning cost",
	episode: func(r *agentRun, status string, ep *agent.Episode, _ *runRecord) string {
		return fmt.Sprintf("%s in %d steps (%.3f s planning)", status, ep.NumActions(), ep.PlanningSeconds)
	},
	summary: planningSummary,
}

// withDefaults returns v (nil: none) with every empty field taken from
// defaultView.
func (v *runView) withDefaults() *runView {
	w := *defaultView
	if v == nil {
		return &w
	}
	out := *v
	if out.cost == "" {
		out.cost = w.cost
	}
	if out.episode == nil {
		out.episode = w.episode
	}
	if out.summary == nil {
		out.summary = w.summary
	}
	return &out
}

// viewSetup checks the view's flags against the run (its model and
// --dot file) before any work, and returns the figure of --dot.
type viewSetup func(r *agentRun, opts agent.Options, dotFile string) (dot func(ctx context.Context, ag agent.Agent, d *agent.Decision) error, err error)

// runRun is `arbor X run` for any planner: agents acting in a maze or in
// a POMDP used as the process, each episode written as it ends.
func runRun(c *plannerCmd, args []string, stdout io.Writer) error {
	command := c.p.Name + " run"
	synopsis := verbSynopsis(c.p, agent.VerbRun)
	view := c.view.withDefaults()
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	opts := c.p.Flags(fs, agent.VerbRun)
	mazeFile := fs.String("maze", "", "maze file (docs/formats.md); exactly one of --maze and --model")
	model := fs.String("model", "", "POMDP file (docs/formats.md): the agent's beliefs, and the true process unless --process gives another, sampled with --seed")
	process := fs.String("process", "", "POMDP file used as the true process (the world), with the actions and observations of --model; the agent plans with --model")
	steps := fs.Int("steps", 50, "maximum actions per episode (1..1000000)")
	episodes := fs.Int("episodes", 1, "episodes (trials; per agent with --agents, at most 100000 in all); with concentrations a, b, d in --model the agent learns between them")
	agents := fs.Int("agents", 1, "independent agents, each running --episodes episodes from the model's priors (1..1024); agents that learn run in parallel under --jobs")
	seed := fs.Uint64("seed", 1, "random seed: agent a's episode e draws its decisions from the streams of seed + e-1 (agent.StepRand; --seed k --episodes 1 repeats seed k of the test tables) and a --model process from seed + (a-1)*episodes + e-1")
	progressFlag := fs.Bool("progress", false, "report progress on standard error once a second (always on a terminal)")
	jobsFlag := fs.Int("jobs", runtime.GOMAXPROCS(0), "episodes run in parallel, and aci and btai plan each decision on the goroutines the episodes leave (1..1024; the output is the same as with 1); an agent that learns runs its episodes in order")
	dotFile := new(string)
	if view.dotHelp != "" {
		dotFile = fs.String("dot", "", view.dotHelp)
	}
	plotFlags := addRunPlotFlags(fs, "the "+view.cost+" of each action taken")
	noise := fs.Float64("noise", envs.DefaultNoise, "maze model noise on A, B and D, in [0, 1) (--maze only)")
	pref := fs.Float64("pref-precision", envs.DefaultPrefPrecision, "maze preference precision, finite (--maze only)")
	asJSON := fs.Bool("json", false, "a provenance line, one JSON object per episode and a summary line")
	asCSV := fs.Bool("csv", false, "one CSV row per time step in the recorded-behaviour format (docs/behaviour.md), with the action probabilities")
	worldFlags := envs.RegisterWorldFlags(fs)
	var setup viewSetup
	if view.flags != nil {
		setup = view.flags(fs)
	}
	if done, err := parseVerb(fs, args, synopsis, refusals(c.p, agent.VerbRun, opts), stdout); done || err != nil {
		return err
	}
	if err := opts.Check(); err != nil {
		return asInput(err)
	}
	given := agent.Given(fs)
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
	case worldFlags.Given() && (*mazeFile != "" || *model != "" || *process != ""):
		return badInput("--env: give one of --maze, --model and --env (--process goes with --model)")
	case !worldFlags.Given() && (*mazeFile == "") == (*model == ""):
		return badInput("want exactly one of --maze FILE and --model FILE")
	case *process != "" && *mazeFile != "":
		return badInput("--process: the maze is the world of a --maze run (give --model and --process)")
	case !(*noise >= 0 && *noise < 1): // also NaN
		return badInput("--noise: %v, want a number in [0, 1)", *noise)
	case !finite(*pref):
		return badInput("--pref-precision: %v, want a finite number", *pref)
	case *model != "" && (given["noise"] || given["pref-precision"]):
		return badInput("--noise and --pref-precision apply to --maze only, not to --model")
	case *asJSON && *asCSV:
		return badInput("--json and --csv: give one")
	case *mazeFile != "" && given["seed"] && !c.p.Draws && flagText(fs, "select") == "argmax":
		// A maze is deterministic, and so is the argmax rule.
		return badInput("--seed: a --maze run with --select argmax draws nothing (the maze is deterministic; --select sample draws the actions)")
	}
	if err := checkFiles(output.In("--maze", *mazeFile), output.In("--model", *model), output.In("--process", *process),
		output.Out("--dot", *dotFile), output.Out("--plot", *plotFlags.file)); err != nil {
		return err
	}
	r := &agentRun{command: command, view: view, fs: fs, asJSON: *asJSON, asCSV: *asCSV}
	source := "--maze " + *mazeFile
	var err error
	if r.bw, err = worldFlags.World(); err != nil {
		return asInput(err)
	} else if printed, err := worldFlags.PrintModel(r.bw, stdout); printed {
		return err
	} else if r.bw != nil {
		r.m, source = r.bw.Model, "--env "+r.bw.Name
	} else if *mazeFile != "" {
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
	if setup != nil {
		if r.dot, err = setup(r, opts, *dotFile); err != nil {
			return err
		}
	}
	fac, err := opts.Factory(m, source)
	if err != nil {
		return asInput(err)
	}
	plotSel, err := plotFlags.check(*episodes)
	if err != nil {
		return err
	}
	// Fail before any output when a file cannot be written.
	if *dotFile != "" {
		if err := checkOutputFile("--dot", *dotFile, true); err != nil {
			return err
		}
	}
	if r.prov, err = provenance(command, fs, [2]string{"--model", *model}, [2]string{"--process", *process}, [2]string{"--maze", *mazeFile}); err != nil {
		return err
	}
	if s, ok := opts.(agent.Settler); ok {
		r.settings = s.Settings()
		r.prov.Resolved = r.settings
	}
	// Trials are independent unless the agent learns (concentrations a,
	// b, d, or what the planner carries): then each agent runs its trials
	// in order, and the agents (--agents) run in parallel. Every trial
	// draws from its own streams, and the output is written in trial
	// order, the same as with one worker.
	la, lb, ld := m.Learnable()
	carry := la || lb || ld
	if cr, ok := opts.(agent.Carrier); ok && cr.Carries() {
		carry = true
	}
	jobs := agent.Workers(opts, m, *jobsFlag)
	r.runs = agent.Runs{Agents: *agents, Trials: *episodes, Workers: jobs, Jobs: *jobsFlag, MaxSteps: *steps, Seed: *seed, Carry: carry}
	r.newAg = func() (agent.Agent, error) { return fac.NewAgent(m, nil) }
	if r.settings != nil && !*asJSON && !*asCSV {
		fmt.Fprintln(stdout, r.settings)
	}
	r.prog = startProgress(*progressFlag, *agents**episodes, c.p.WorkUnit)
	defer r.prog.End()
	if *plotFlags.file != "" {
		r.plot = plotFlags.newRunPlot(plotSel, view.cost+" of the action taken", r.mz, m, *agents, *episodes)
		r.cost = func(d *agent.Decision) float64 { return d.Cost }
	}
	return r.run(stdout)
}

// asInput makes err, an error of a planner's options (which names the
// flag or file at fault), bad input.
func asInput(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{msg: err.Error()}
}

// flagText returns the value of flag name of fs as text ("" when fs has
// no such flag).
func flagText(fs *flag.FlagSet, name string) string {
	if f := fs.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// flagInt returns the value of the integer flag name of fs (0 when fs has
// none).
func flagInt(fs *flag.FlagSet, name string) int {
	n, _ := strconv.Atoi(flagText(fs, name))
	return n
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
