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

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
)

func runACI(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return badInput("want a subcommand: eval, run or replay (e.g. arbor aci eval --model M --obs 0 --horizon 2)")
	}
	switch args[0] {
	case "eval":
		return inSubcommand("eval", runACIEval(args[1:], stdout))
	case "run":
		return inSubcommand("run", runACIRun(args[1:], stdout))
	case "replay":
		return inSubcommand("replay", runACIReplay(args[1:], stdout))
	case "simulate":
		return inSubcommand("simulate", runACISimulate(args[1:], stdout))
	case "recover":
		return inSubcommand("recover", runACIRecover(args[1:], stdout))
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, "usage: arbor aci eval|run|replay|fit|simulate|recover [flags]; 'arbor aci SUBCOMMAND -h' lists a subcommand's flags")
		return nil
	}
	return badInput("unknown subcommand %q (want eval, run or replay)", args[0])
}

// aciFlagsGiven returns the names of the flags set on the command line, so
// that a flag left out ("missing") is told apart from one given a value
// equal to its default (--horizon 0 is "0, want >= 1").
func aciFlagsGiven(fset *flag.FlagSet) map[string]bool {
	given := make(map[string]bool)
	fset.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}

// aciEvalFlags are the flags of arbor aci eval.
type aciEvalFlags struct {
	model   string
	obsRaw  string
	obs     int
	horizon int
	gamma   float64
	top     int
	asJSON  bool
	maxMin  float64
}

// aciMaxMinutesUsage is the help of --max-minutes, on aci eval and run.
const aciMaxMinutesUsage = "refuse when one scoring of every policy is estimated to take longer than this many minutes " +
	"(the estimate, from the model's sizes, is printed with the refusal)"

// aciCheckPlanTime refuses a horizon whose policy walk is estimated to take
// more than maxMin minutes per planning step: one line with the count, the
// estimate and the flag that overrides it.
func aciCheckPlanTime(m *pomdp.Model, horizon int, maxMin float64) error {
	if !(maxMin > 0) || math.IsInf(maxMin, 0) {
		return badInput("--max-minutes: %v, want a finite number > 0", maxMin)
	}
	est := aci.EstimatePlanSeconds(m, horizon)
	if est <= 60*maxMin {
		return nil
	}
	count := math.Pow(float64(m.NumActions()), float64(horizon))
	return badInput("--horizon %d: %d^%d = %.3g policies would take about %s per planning step (estimated from %d states, %d observations, %d actions), over --max-minutes %g; raise --max-minutes to run it anyway",
		horizon, m.NumActions(), horizon, count, durationText(est), m.NumStates(), m.NumObs(), m.NumActions(), maxMin)
}

// durationText writes s seconds as "42 s", "13 minutes", "1.9 hours" or
// "3.1e+05 days".
func durationText(s float64) string {
	switch {
	case s < 120:
		return fmt.Sprintf("%.2g s", s)
	case s < 2*3600:
		return fmt.Sprintf("%.0f minutes", s/60)
	case s < 3*86400:
		return fmt.Sprintf("%.2g hours", s/3600)
	}
	return fmt.Sprintf("%.2g days", s/86400)
}

const aciEvalSynopsis = "arbor aci eval --model M --obs O0 --horizon T [--gamma 16] [--top 10] [--json]"

func runACIEval(args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("aci eval", flag.ContinueOnError)
	var f aciEvalFlags
	fset.Float64Var(&f.maxMin, "max-minutes", 10, aciMaxMinutesUsage)
	fset.StringVar(&f.model, "model", "", "POMDP file (docs/formats.md)")
	fset.StringVar(&f.obsRaw, "obs", "", "the first observation O0: its index, or one outcome index per modality, comma-separated (0,2) (required)")
	fset.IntVar(&f.horizon, "horizon", 0, "policy length T (required); |U|^T policies are scored")
	fset.Float64Var(&f.gamma, "gamma", 16, "policy precision: q_pi = softmax(-gamma G)")
	fset.IntVar(&f.top, "top", 10, "human output: list this many lowest-G policies")
	fset.BoolVar(&f.asJSON, "json", false, "print every policy as JSON (docs/cli.md)")
	pos, err := parseFlags(fset, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fset, aciEvalSynopsis))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q (usage: %s)", pos[0], aciEvalSynopsis)
	}
	// Flags that need no model first, so that their errors do not depend
	// on the file. A flag left out is "missing"; a flag given with an
	// invalid value (even one equal to the default) is reported with it.
	given := aciFlagsGiven(fset)
	if !given["horizon"] {
		return badInput("--horizon: missing (want the policy length T >= 1)")
	}
	if f.horizon < 1 {
		return badInput("--horizon: %d, want >= 1", f.horizon)
	}
	if math.IsNaN(f.gamma) || math.IsInf(f.gamma, 0) || f.gamma <= 0 {
		return badInput("--gamma: %v, want finite > 0", f.gamma)
	}
	if f.top < 1 {
		return badInput("--top: %d, want >= 1", f.top)
	}
	if f.asJSON && given["top"] {
		return badInput("--top: applies to the human output, not to --json (which lists every policy)")
	}
	m, err := loadPOMDP(f.model)
	if err != nil {
		return err
	}
	if !given["obs"] {
		return badInput("--obs: missing (want an observation index in [0, %d), from --model %s)", m.NumObs(), f.model)
	}
	if f.obs, err = obsArg(f.obsRaw, m, f.model); err != nil {
		return err
	}
	// The agent's view: with concentrations a, b, d the planner uses their
	// expectations (a file may also give A, the world's likelihood).
	if m, err = m.AgentView(); err != nil {
		return badInput("--model %s: %v", f.model, err)
	}
	if f.asJSON {
		if _, err := aci.NumPolicies(m.NumActions(), f.horizon, aci.MaxPolicies); err != nil {
			return badInput("--%v (--json lists every policy; the human output streams any number)", err)
		}
		if err := aciCheckPlanTime(m, f.horizon, f.maxMin); err != nil {
			return err
		}
		res, err := untilDone(commandContext(), func() (*aci.EvalResult, error) { return aci.Eval(m, f.obs, f.horizon, f.gamma) })
		if errors.Is(err, context.Canceled) {
			return err
		}
		if err != nil {
			// The library names its parameters: gamma, horizon and obs are
			// the flags of the same names.
			for _, p := range []string{"gamma", "horizon", "obs"} {
				if strings.HasPrefix(err.Error(), p) {
					return badInput("--%v", err)
				}
			}
			return badInput("--model %s: %v", f.model, err)
		}
		return aciWriteEvalJSON(stdout, m, res)
	}
	return aciPrintEval(stdout, m, &f)
}

// aciPrintEval is the human output of arbor aci eval. It streams the policy
// tree with aci.TopPolicies, so any horizon whose |U|^T fits in an int works
// in O(T |S| + top T) memory.
func aciPrintEval(w io.Writer, m *pomdp.Model, f *aciEvalFlags) error {
	if _, err := aci.NumPolicies(m.NumActions(), f.horizon, math.MaxInt); err != nil {
		return badInput("--%v", err)
	}
	if err := aciCheckPlanTime(m, f.horizon, f.maxMin); err != nil {
		return err
	}
	qs, err := pomdp.StatePosterior(nil, m, f.obs)
	if err != nil {
		return badInput("--obs %s: %s (--model %s)", f.obsRaw, strings.TrimPrefix(err.Error(), fmt.Sprintf("observation %d: ", f.obs)), f.model)
	}
	ctx := commandContext()
	rk, err := aci.TopPoliciesContext(ctx, m, qs, f.horizon, f.top, f.gamma, nil)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err != nil {
		return badInput("--model %s: %v", f.model, err)
	}
	fmt.Fprintf(w, "observation O0 = %s: posterior over the current state\n", m.ObsName(f.obs))
	for s, p := range qs {
		if p >= 0.0005 {
			fmt.Fprintf(w, "  %-12s %.4f\n", m.StateName(s), p)
		}
	}
	fmt.Fprintf(w, "%d policies of length %d, gamma %g; action marginal\n", rk.NumPolicies, f.horizon, f.gamma)
	best := 0
	for u, p := range rk.ActionProbs {
		if p > rk.ActionProbs[best] {
			best = u
		}
	}
	for u, p := range rk.ActionProbs {
		mark := ""
		if u == best {
			mark = "  <- most probable"
		}
		fmt.Fprintf(w, "  %-12s %.4f%s\n", m.ActionName(u), p, mark)
	}
	fmt.Fprintf(w, "lowest expected free energy (G = risk + ambiguity)\n")
	fmt.Fprintf(w, "  %-10s %-10s %-10s %-10s policy\n", "G", "risk", "ambiguity", "q_pi")
	for _, p := range rk.Best {
		names := make([]string, len(p.Policy))
		for i, u := range p.Policy {
			names[i] = m.ActionName(u)
		}
		fmt.Fprintf(w, "  %-10.5g %-10.5g %-10.5g %-10.4g %s\n", p.G, p.Risk, p.Ambiguity, p.QPi, strings.Join(names, " "))
	}
	return nil
}

// aciWriteEvalJSON writes res as one JSON object (docs/cli.md) followed by
// a newline. Numbers are written as encoding/json writes a float64; a
// non-finite value (G = +Inf when C gives probability 0 to an outcome a
// policy predicts) is written as null, which encoding/json cannot do.
//
// For a factorised model q_s is an object keyed by factor name.
func aciWriteEvalJSON(w io.Writer, m *pomdp.Model, res *aci.EvalResult) error {
	b := make([]byte, 0, 64+len(res.G)*(80+8*len(res.Policies[0])))
	b = append(b, `{"q_s":`...)
	qs, err := json.Marshal(output.Belief(m, res.QS))
	if err != nil {
		return err
	}
	b = append(b, qs...)
	b = append(b, `,"policies":[`...)
	for i, p := range res.Policies {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, u := range p {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(u), 10)
		}
		b = append(b, ']')
	}
	b = append(b, ']')
	for _, kv := range []struct {
		key string
		x   []float64
	}{
		{"G", res.G}, {"risk", res.Risk}, {"ambiguity", res.Ambiguity},
		{"q_pi", res.QPi}, {"action_probs", res.ActionProbs},
	} {
		b = append(b, `,"`...)
		b = append(b, kv.key...)
		b = append(b, `":`...)
		b = output.AppendFloats(b, kv.x)
	}
	b = append(b, "}\n"...)
	_, err = w.Write(b)
	return err
}

const aciRunSynopsis = "arbor aci run --maze FILE | --model M [--process W] --horizon T [--steps 50] [--episodes 1] [--agents 1] [--seed 1] [--jobs N] [--progress] [flags] [--json | --csv]"

// aciParseHabits parses --habits: nu comma-separated probabilities summing
// to 1 (tolerance 1e-6). Errors name the flag and the entry.
func aciParseHabits(s string, nu int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != nu {
		return nil, badInput("--habits: %d entries, want %d (one per action)", len(parts), nu)
	}
	e := make([]float64, nu)
	sum := 0.0
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return nil, badInput("--habits[%d]: %q, want a finite probability >= 0", i, p)
		}
		e[i] = x
		sum += x
	}
	if math.Abs(sum-1) > pomdp.Tolerance {
		return nil, badInput("--habits: sums to %.10g, want 1 (tolerance 1e-06)", sum)
	}
	return e, nil
}

// aciAgentFlags are the flags of the classic agent, shared by aci run and
// aci replay.
type aciAgentFlags struct {
	fs            *flag.FlagSet
	horizon       *int
	gamma         *float64
	inferGamma    *bool
	beta          *float64
	habits        *string
	novelty       *bool
	past          *string
	sel           *string
	alpha         *float64
	actionFactors *string
	eta           *float64
	omega         *float64
}

func (f *aciAgentFlags) register(fs *flag.FlagSet) {
	f.fs = fs
	f.horizon = fs.Int("horizon", 0, "policy length T (required): |U|^T policies are scored at every step")
	f.gamma = fs.Float64("gamma", aci.DefaultGamma, "fixed policy precision: q(pi) = softmax(-gamma G)")
	f.inferGamma = fs.Bool("infer-gamma", false, "infer the precision with prior Gamma(1, beta) instead of fixing it; "+
		"gamma moves only when something besides G shapes the policy prior, so give --habits (without them it stays at its prior mean 1/beta)")
	f.habits = fs.String("habits", "", "habits E: a prior over the first action, comma-separated probabilities, one per action (e.g. 0.7,0.1,0.1,0.1,0)")
	f.beta = fs.Float64("beta", aci.DefaultBeta, "rate of the Gamma(1, beta) prior of the precision (with --infer-gamma)")
	f.novelty = fs.Bool("novelty", false, "add the novelty of A to the expected free energy (needs concentrations a)")
	f.past = fs.String("past", "filter", "past inference: filter (exact filtering of the present state, as SPM and pymdp; smoothing for learning) or vmp (the paper's mean field over the past)")
	f.sel = fs.String("select", aci.SelectArgmax, "action selection: argmax (the most probable action of the model average) or sample (a draw from P(u) = σ(α ln P_marginal(u)))")
	f.alpha = fs.Float64("action-precision", 1, "action precision α of P(u) = σ(α ln P_marginal(u)): what --select sample draws from and what a recorded choice is scored with (1: the model average itself; pymdp's default is 16, SPM's 512)")
	f.actionFactors = fs.String("action-factors", "joint", "with several controllable factors: joint (P(u) over the joint actions, the model average) or independent (each factor's control from σ(α ln P_f) of its marginal, as pymdp samples)")
	f.eta = fs.Float64("eta", 1, "learning rate η of the Dirichlet counts at the end of every trial: c' = ω c + η Δc (finite, >= 0)")
	f.omega = fs.Float64("omega", 1, "forgetting ω of the Dirichlet counts at the end of every trial: c' = ω c + η Δc (0 < ω <= 1)")
}

// options checks the flags and returns the agent's options for model m.
func (f *aciAgentFlags) options(m *pomdp.Model) (*aci.AgentOptions, error) {
	given := aciFlagsGiven(f.fs)
	switch {
	case !given["horizon"]:
		return nil, badInput("--horizon: missing (want the policy length T >= 1)")
	case *f.horizon < 1:
		return nil, badInput("--horizon: %d, want >= 1", *f.horizon)
	case math.IsNaN(*f.gamma) || math.IsInf(*f.gamma, 0) || *f.gamma <= 0:
		return nil, badInput("--gamma: %v, want finite > 0", *f.gamma)
	case math.IsNaN(*f.beta) || math.IsInf(*f.beta, 0) || *f.beta <= 0:
		return nil, badInput("--beta: %v, want finite > 0", *f.beta)
	case *f.sel != aci.SelectArgmax && *f.sel != aci.SelectSample:
		return nil, badInput("--select: %q, want %s or %s", *f.sel, aci.SelectArgmax, aci.SelectSample)
	case math.IsNaN(*f.alpha) || math.IsInf(*f.alpha, 0) || *f.alpha < 0:
		return nil, badInput("--action-precision: %v, want finite >= 0", *f.alpha)
	case math.IsNaN(*f.eta) || math.IsInf(*f.eta, 0) || *f.eta < 0:
		return nil, badInput("--eta: %v, want finite >= 0", *f.eta)
	case !(*f.omega > 0 && *f.omega <= 1):
		return nil, badInput("--omega: %v, want 0 < ω <= 1", *f.omega)
	}
	// Flags the agent would ignore are refused.
	switch {
	case *f.inferGamma && given["gamma"]:
		return nil, badInput("--gamma: the fixed precision, unused with --infer-gamma (whose prior is Gamma(1, --beta))")
	case !*f.inferGamma && given["beta"]:
		return nil, badInput("--beta: the rate of the precision's prior, which needs --infer-gamma")
	}
	if la, lb, ld := m.Learnable(); !la && !lb && !ld {
		for _, name := range []string{"eta", "omega"} {
			if given[name] {
				return nil, badInput("--%s: the model has no concentrations a, b or d to learn (--eta and --omega apply to a model that learns)", name)
			}
		}
	}
	if _, err := aci.NumPolicies(m.NumActions(), *f.horizon, math.MaxInt); err != nil {
		return nil, badInput("--%v", err)
	}
	var habitsE []float64
	if *f.habits != "" {
		var err error
		if habitsE, err = aciParseHabits(*f.habits, m.NumActions()); err != nil {
			return nil, err
		}
	}
	past, err := pomdp.ParsePastInference(*f.past)
	if err != nil {
		return nil, badInput("--past: %v", err)
	}
	af, err := agent.ParseActionFactors(*f.actionFactors)
	if err != nil {
		return nil, badInput("--action-factors: %v", err)
	}
	o := &aci.AgentOptions{
		Horizon: *f.horizon, Gamma: *f.gamma, InferGamma: *f.inferGamma, Beta: *f.beta,
		Novelty: *f.novelty, Select: *f.sel, Habits: habitsE, Past: past, ActionFactors: af,
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
	return o, nil
}

func runACIRun(args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("aci run", flag.ContinueOnError)
	var af aciAgentFlags
	af.register(fset)
	mazeFile := fset.String("maze", "", "maze file (docs/formats.md)")
	model := fset.String("model", "", "POMDP file (docs/formats.md): the agent's beliefs, and the true process unless --process gives another, sampled with --seed")
	process := fset.String("process", "", "POMDP file used as the true process (the world), with the actions and observations of --model; the agent plans with --model")
	steps := fset.Int("steps", 50, "maximum actions per episode")
	episodes := fset.Int("episodes", 1, "episodes (trials; per agent with --agents); with concentrations a, b, d in --model the agent learns between them")
	agents := fset.Int("agents", 1, "independent agents, each running --episodes episodes from the model's priors (1..1024); agents that learn run in parallel under --jobs")
	seed := fset.Uint64("seed", 1, "random seed: agent a's episode e draws its decisions from the streams of seed + e-1 (agent.StepRand) and a --model process from seed + (a-1)*episodes + e-1")
	maxMin := fset.Float64("max-minutes", 10, aciMaxMinutesUsage)
	progressFlag := fset.Bool("progress", false, "report progress on standard error once a second (always on a terminal)")
	jobsFlag := fset.Int("jobs", runtime.GOMAXPROCS(0), "episodes run in parallel (1..1024; the output is the same as with 1); "+
		"an agent that learns (concentrations a, b, d) runs its episodes in order")
	dotFile := fset.String("dot", "", "write the agent's graph after its first step (the past, the policy pi and the precision, and the future states and observations over the horizon whose transitions pi selects) to this file: SVG, PDF or PNG by its ending, DOT otherwise")
	plotFlags := addRunPlotFlags(fset, "the lowest G of each action taken")
	plotFile := plotFlags.file
	noise := fset.Float64("noise", envs.DefaultNoise, "maze model noise on A, B and D")
	pref := fset.Float64("pref-precision", envs.DefaultPrefPrecision, "maze preference precision")
	asJSON := fset.Bool("json", false, "a provenance line, one JSON object per episode and a summary line")
	asCSV := fset.Bool("csv", false, "one CSV row per time step in the recorded-behaviour format (docs/behaviour.md), with the action probabilities")
	pos, err := parseFlags(fset, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fset, aciRunSynopsis))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q (usage: %s)", pos[0], aciRunSynopsis)
	}
	given := aciFlagsGiven(fset)
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
	case *asJSON && *asCSV:
		return badInput("--json and --csv: give one")
	case *model != "" && (given["noise"] || given["pref-precision"]):
		return badInput("--noise and --pref-precision apply to --maze only, not to --model")
	case *mazeFile != "" && given["seed"] && *af.sel != aci.SelectSample:
		// A maze is deterministic, and so is the argmax rule.
		return badInput("--seed: a --maze run with --select %s draws nothing (the maze is deterministic; --select sample draws the actions)", *af.sel)
	}
	r := &agentRun{command: "aci run", asJSON: *asJSON, asCSV: *asCSV}
	if *mazeFile != "" {
		if r.mz, err = loadMaze(*mazeFile); err != nil {
			return err
		}
		mm, err := r.mz.Model(*noise, *pref)
		if err != nil {
			return badInput("--noise %v, --pref-precision %v: %v", *noise, *pref, err)
		}
		if r.m, err = mm.POMDP(); err != nil {
			return badInput("--maze %s: model: %v", *mazeFile, err)
		}
	} else {
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
	opts, err := af.options(m)
	if err != nil {
		return err
	}
	if err := aciCheckPlanTime(m, *af.horizon, *maxMin); err != nil {
		return err
	}
	if _, err := aci.NewAgent(m, opts); err != nil {
		source := "--maze " + *mazeFile
		if *model != "" {
			source = "--model " + *model
		}
		return badInput("%s: %v", source, err)
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
	if r.prov, err = provenance("aci run", fset, [2]string{"--model", *model}, [2]string{"--process", *process}, [2]string{"--maze", *mazeFile}); err != nil {
		return err
	}
	// Trials are independent unless the agent learns (concentrations a,
	// b, d): then each agent runs its trials in order, and the agents
	// (--agents) run in parallel. Every trial draws from its own streams,
	// and the output is written in trial order, the same as with one
	// worker.
	la, lb, ld := m.Learnable()
	r.runs = agent.Runs{Agents: *agents, Trials: *episodes, Workers: *jobsFlag, MaxSteps: *steps, Seed: *seed, Carry: la || lb || ld}
	r.newAg = func() (agent.Agent, error) { return aci.NewAgent(m, opts) }
	nPol, _ := aci.NumPolicies(m.NumActions(), *af.horizon, math.MaxInt)
	r.prog = startProgress(*progressFlag, *agents**episodes, int64(nPol), "policies scored")
	defer r.prog.end()
	if *plotFile != "" {
		r.plot = plotFlags.newRunPlot(plotSel, "lowest G of the action taken", r.mz, m, *agents, *episodes)
		// The lowest G among the policies that start with the action
		// taken.
		r.cost = func(d *agent.Decision) float64 {
			best := math.Inf(1)
			for _, p := range d.Detail.(*aci.Plan).Policies {
				if len(p.Policy) > 0 && p.Policy[0] == d.Action {
					best = math.Min(best, p.G)
				}
			}
			return best
		}
	}
	if *dotFile != "" {
		r.dot = func(ctx context.Context, ag agent.Agent, _ *agent.Decision) error {
			g, err := ag.(*aci.Agent).FigureGraph()
			if err != nil {
				return err
			}
			if err := checkFigureSize("--dot", *dotFile, graphSize(g), false, "write the DOT text with --dot FILE.dot"); err != nil {
				return err
			}
			var b bytes.Buffer
			if err := g.WriteDOTWith(&b, ffg.DOTOptions{Compact: true}); err != nil {
				return err
			}
			return writeFigure(ctx, "--dot", *dotFile, b.Bytes())
		}
	}
	r.extra = func(rec *runRecord, ep *agent.Episode) {
		for _, st := range ep.Steps {
			if st.Decision == nil {
				continue
			}
			p := st.Decision.Detail.(*aci.Plan)
			rec.Policies = p.NumPolicies
			if opts.InferGamma {
				rec.GammaMean = append(rec.GammaMean, p.GammaMean)
			}
		}
		if rec.Policies == 0 {
			rec.Policies = nPol
		}
	}
	r.human = func(w io.Writer, label string, ep *agent.Episode, positions [][2]int) {
		aciPrintEpisode(w, label, ep, m, r.mz, positions, nPol, *af.horizon)
	}
	r.summary = func(s *runSummary) any {
		var meanSteps any // null when no episode was solved
		if s.Solved > 0 {
			meanSteps = float64(s.StepsSolved) / float64(s.Solved)
		}
		// A --model run has no goal: its summary has neither solved nor
		// mean_steps, as its records have no solved.
		sum := map[string]any{"episodes": s.Episodes, "planning_seconds": s.PlanningSeconds}
		if r.mz != nil {
			sum["solved"], sum["mean_steps"] = s.Solved, meanSteps
		}
		if *agents > 1 {
			sum["agents"] = *agents
		}
		if !r.asJSON {
			if r.mz == nil {
				return nil
			}
			text := fmt.Sprintf("%d/%d episodes solved", s.Solved, s.Episodes)
			if s.Solved > 0 {
				text += fmt.Sprintf(", mean steps %.1f", meanSteps)
			}
			return stringer(text + fmt.Sprintf("; %.3f s planning in all", s.PlanningSeconds))
		}
		return sum
	}
	return r.run(stdout)
}

// stringer is a line of human output.
type stringer string

func (s stringer) String() string { return string(s) }

// aciPrintEpisode is the human output of one episode: a summary line, the
// actions, and for a maze the maze with the path drawn (envs.Maze.Render,
// as arbor btai run).
func aciPrintEpisode(w io.Writer, label string, ep *agent.Episode, m *pomdp.Model, mz *envs.Maze, positions [][2]int, policies, horizon int) {
	status := "ran"
	if mz != nil {
		status = "did not reach the exit"
		if ep.Solved {
			status = "reached the exit"
		}
	}
	fmt.Fprintf(w, "%s: %s in %d steps (%d policies of length %d per step, %.3f s planning)\n",
		label, status, ep.NumActions(), policies, horizon, ep.PlanningSeconds)
	printActions(w, m, ep, mz == nil)
	if mz == nil {
		return
	}
	fmt.Fprint(w, mz.Render(mazeStates(mz, positions)))
}

const aciReplaySynopsis = "arbor aci replay --model M --data D.csv --horizon T [--gamma 16] [--action-precision 1] [agent flags] [--beliefs] [--subjects FILE] [--json | --csv]"

// runACIReplay drives the classic agent along recorded behaviour: each
// subject's trials in order, every recorded action scored by P(u) =
// σ(α ln P_marginal(u)) and taken.
func runACIReplay(args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("aci replay", flag.ContinueOnError)
	var af aciAgentFlags
	af.register(fset)
	model, data, subjects, seed, jobs, asJSON, asCSV, beliefs := registerReplay(fset)
	maxMin := fset.Float64("max-minutes", 10, aciMaxMinutesUsage)
	pos, err := parseFlags(fset, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fset, aciReplaySynopsis))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q (usage: %s)", pos[0], aciReplaySynopsis)
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
	}
	// Replay takes the recorded choices and scores each with P(u) =
	// σ(α ln P_marginal(u)): the classic agent draws nothing, whatever
	// its rule.
	given := aciFlagsGiven(fset)
	switch {
	case given["select"]:
		return badInput("--select: aci replay scores every recorded choice with P(u) = σ(α ln P_marginal(u)), whatever the rule (--select belongs to aci run; --action-precision sets α)")
	case given["seed"]:
		return badInput("--seed: aci replay draws nothing (it takes the recorded choices, and carries a missed one forward under the agent's action distribution)")
	}
	m, err := loadPOMDP(*model)
	if err != nil {
		return err
	}
	opts, err := af.options(m)
	if err != nil {
		return err
	}
	if err := aciCheckPlanTime(m, *af.horizon, *maxMin); err != nil {
		return err
	}
	if _, err := aci.NewAgent(m, opts); err != nil {
		return badInput("--model %s: %v", *model, err)
	}
	r := &replayRun{m: m, data: *data, subjects: *subjects, seed: *seed, jobs: *jobs, asJSON: *asJSON, asCSV: *asCSV, beliefs: *beliefs,
		newAg: func() (agent.Agent, error) { return aci.NewAgent(m, opts) }}
	if r.prov, err = provenance("aci replay", fset, [2]string{"--model", *model}); err != nil {
		return err
	}
	return r.run(stdout)
}
