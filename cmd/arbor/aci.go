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
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

func runACI(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return badInput("want a subcommand: eval or run (e.g. arbor aci eval --model M --obs 0 --horizon 2)")
	}
	switch args[0] {
	case "eval":
		return inSubcommand("eval", runACIEval(args[1:], stdout))
	case "run":
		return inSubcommand("run", runACIRun(args[1:], stdout))
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, "usage: arbor aci eval|run [flags]; 'arbor aci eval -h' and 'arbor aci run -h' list the flags")
		return nil
	}
	return badInput("unknown subcommand %q (want eval or run)", args[0])
}

// aciFlagsGiven returns the names of the flags set on the command line, so
// that a flag left out ("missing") is told apart from one given a value
// equal to its default (--horizon 0 is "0, want >= 1").
func aciFlagsGiven(fset *flag.FlagSet) map[string]bool {
	given := make(map[string]bool)
	fset.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}

// aciJSONPath returns the path (e.g. "A[0][1]" or "B[1]") of the JSON
// value being read at byte offset end of data, which holds valid JSON up to
// there, or "" at the top level.
func aciJSONPath(data []byte, end int64) string {
	type frame struct {
		obj     bool
		key     string
		n       int // array: values completed so far
		wantKey bool
	}
	var stack []frame
	done := func() { // a value completed in the innermost container
		if len(stack) == 0 {
			return
		}
		f := &stack[len(stack)-1]
		if f.obj {
			f.wantKey = true
		} else {
			f.n++
		}
	}
	if end < 0 || end > int64(len(data)) {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(data[:end]))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{obj: true, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				done()
			}
		case string:
			if f := len(stack) - 1; f >= 0 && stack[f].obj && stack[f].wantKey {
				stack[f].key, stack[f].wantKey = t, false
				continue
			}
			done()
		default:
			done()
		}
	}
	var b strings.Builder
	for depth, f := range stack {
		if depth == aciMaxPathDepth {
			// JSON nests up to 10,000 levels: name the first few and
			// count the rest, so that the error stays one short line.
			fmt.Fprintf(&b, "...(%d levels deep)", len(stack))
			break
		}
		switch {
		case f.obj && f.wantKey:
			return b.String()
		case f.obj:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(aciShorten(f.key))
		default:
			fmt.Fprintf(&b, "[%d]", f.n)
		}
	}
	return b.String()
}

// aciMaxPathDepth is the number of levels aciJSONPath spells out.
const aciMaxPathDepth = 8

// aciShorten cuts a key quoted in an error to 40 bytes (at a rune
// boundary), noting the full length.
func aciShorten(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s...(%d bytes)", s[:cut], len(s))
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
	if f.asJSON {
		if _, err := aci.NumPolicies(m.NumActions(), f.horizon, aci.MaxPolicies); err != nil {
			return badInput("--%v (--json lists every policy; the human output streams any number)", err)
		}
		if err := aciCheckPlanTime(m, f.horizon, f.maxMin); err != nil {
			return err
		}
		res, err := aci.Eval(m, f.obs, f.horizon, f.gamma)
		if err != nil {
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
	rk, err := aci.TopPolicies(m, qs, f.horizon, f.top, f.gamma, nil)
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
	if m.Factorised() {
		b = keyedBelief(b, m, res.QS, aciAppendFloats)
	} else {
		b = aciAppendFloats(b, res.QS)
	}
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
		b = aciAppendFloats(b, kv.x)
	}
	b = append(b, "}\n"...)
	_, err := w.Write(b)
	return err
}

func aciAppendFloats(b []byte, x []float64) []byte {
	b = append(b, '[')
	for i, v := range x {
		if i > 0 {
			b = append(b, ',')
		}
		b = aciAppendFloat(b, v)
	}
	return append(b, ']')
}

// aciAppendFloat appends v formatted as encoding/json formats a float64
// (shortest representation; exponent form below 1e-6 and from 1e21 on,
// with a two-digit minimum exponent: 1e-07 becomes 1e-7), or null when v
// is NaN or infinite.
func aciAppendFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(v)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const aciRunSynopsis = "arbor aci run --maze FILE | --model M --horizon T [--steps 50] [--episodes 1] [--agents 1] [--seed 1] [--jobs N] [--progress] [flags] [--json]"

// aciEpisode is one episode of arbor aci run --json.
type aciEpisode struct {
	Agent           int       `json:"agent,omitempty"` // with --agents: the agent, from 1 (Episode is then the agent's)
	Episode         int       `json:"episode"`
	Solved          bool      `json:"solved"`
	Steps           int       `json:"steps"`
	Actions         []int     `json:"actions"`
	Observations    []int     `json:"observations"`
	Positions       [][2]int  `json:"positions,omitempty"`
	PlanningSeconds float64   `json:"planning_seconds"`
	Policies        int       `json:"policies_per_step"`
	GammaMean       []float64 `json:"gamma,omitempty"` // E[gamma] per step, with --infer-gamma
	// QS is Q(S_t) after each observation (vectors, or keyed by factor).
	QS []json.RawMessage `json:"q_s"`

	outcomes [][]int // for a factorised model: one outcome per modality per step, written as "observations"
}

// MarshalJSON writes the episode; for a factorised model "observations"
// lists one outcome index per modality per step.
func (e aciEpisode) MarshalJSON() ([]byte, error) {
	type plain aciEpisode
	if e.outcomes == nil {
		return json.Marshal(plain(e))
	}
	return json.Marshal(struct {
		plain
		Observations [][]int `json:"observations"`
	}{plain(e), e.outcomes})
}

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

// aciWorker runs episodes of aci run with its own agent and environment.
type aciWorker struct {
	ag   *aci.Agent
	env  pomdp.Environment
	mz   *envs.Maze // the worker's maze (env), nil for a --model run
	prog *progress
	dot  string // --dot: where the first step's graph goes ("" none)
	plot bool   // --plot: record the G of each action taken
}

// aciResult is one finished episode of aci run.
type aciResult struct {
	ep     aciEpisode
	states []int
	plot   plotEpisode
	err    error
}

// episode runs episode e (from 1); its action sampling draws from the
// stream (seed+e-1, (seed+e-1) ^ 0x9e3779b97f4a7c15) and a --model process
// from (seed+e-1, 0xe1): episode 1 draws as an agent seeded with seed.
func (w *aciWorker) episode(ctx context.Context, e int, seed uint64, steps int) aciResult {
	s := seed + uint64(e-1)
	w.ag.SetRand(rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15)))
	if p, ok := w.env.(*pomdp.Process); ok {
		p.SetRand(rand.New(rand.NewPCG(s, 0xe1)))
	}
	r := aciResult{ep: aciEpisode{Episode: e}}
	if w.mz != nil {
		r.states = append(r.states, w.mz.Start())
		row, col := w.mz.CellOf(w.mz.Start())
		r.ep.Positions = append(r.ep.Positions, [2]int{row, col})
	}
	var dotErr error
	rec, err := w.ag.RunEpisode(ctx, w.env, steps, func(step, action, obs int) {
		w.prog.step()
		r.ep.Policies = w.ag.LastPlan().NumPolicies
		if w.plot {
			// The lowest G among the policies that start with the
			// action taken.
			best := math.Inf(1)
			for _, p := range w.ag.LastPlan().Policies {
				if len(p.Policy) > 0 && p.Policy[0] == action {
					best = math.Min(best, p.G)
				}
			}
			r.plot.costs = append(r.plot.costs, best)
		}
		if step == 1 && e == 1 && w.dot != "" {
			var b bytes.Buffer
			if dotErr = w.ag.Graph().WriteDOT(&b); dotErr == nil {
				dotErr = writeFigure(w.dot, b.Bytes())
			}
		}
		if w.mz != nil {
			r.states = append(r.states, w.mz.State())
			row, col := w.mz.Position()
			r.ep.Positions = append(r.ep.Positions, [2]int{row, col})
		}
	})
	if err == nil {
		err = dotErr
	}
	if err != nil {
		r.err = err
		return r
	}
	r.ep.Solved, r.ep.Steps, r.ep.Actions, r.ep.Observations = w.mz != nil && rec.Solved, rec.Steps, rec.Actions, rec.Observations
	if o, ok := obsJSON(w.ag.Model(), rec.Observations).([][]int); ok {
		r.ep.outcomes = o
	}
	r.plot.beliefs, r.plot.states, r.plot.steps, r.plot.solved = rec.Beliefs, r.states, rec.Steps, r.ep.Solved
	r.plot.obs = rec.Observations
	r.ep.QS = beliefsJSON(w.ag.Model(), rec.Beliefs)
	r.ep.PlanningSeconds, r.ep.GammaMean = rec.PlanningSeconds, rec.GammaMean
	return r
}

func runACIRun(args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("aci run", flag.ContinueOnError)
	mazeFile := fset.String("maze", "", "maze file (docs/formats.md)")
	model := fset.String("model", "", "POMDP file (docs/formats.md); the model is also the true process, sampled with --seed")
	horizon := fset.Int("horizon", 0, "policy length T (required): |U|^T policies are scored at every step")
	steps := fset.Int("steps", 50, "maximum actions per episode")
	episodes := fset.Int("episodes", 1, "episodes (trials; per agent with --agents); with concentrations a, b, d in --model the agent learns between them")
	agents := fset.Int("agents", 1, "independent agents, each running --episodes episodes from the model's priors (1..1024; "+
		"agent a's episode e draws from seed + (a-1)*episodes + e-1); agents that learn run in parallel under --jobs")
	seed := fset.Uint64("seed", 1, "random seed of --select sample and of a --model process")
	gamma := fset.Float64("gamma", aci.DefaultGamma, "fixed policy precision: q(pi) = softmax(-gamma G)")
	inferGamma := fset.Bool("infer-gamma", false, "infer the precision with prior Gamma(1, beta) instead of fixing it; "+
		"gamma moves only when something besides G shapes the policy prior, so give --habits (without them it stays at its prior mean 1/beta)")
	maxMin := fset.Float64("max-minutes", 10, aciMaxMinutesUsage)
	progressFlag := fset.Bool("progress", false, "report progress on standard error once a second (always on a terminal)")
	jobsFlag := fset.Int("jobs", runtime.GOMAXPROCS(0), "episodes run in parallel (1..1024; the output is the same as with 1); "+
		"an agent that learns (concentrations a, b, d) runs its episodes in order")
	habits := fset.String("habits", "", "habits E: a prior over the first action, comma-separated probabilities, one per action (e.g. 0.7,0.1,0.1,0.1,0)")
	beta := fset.Float64("beta", aci.DefaultBeta, "rate of the Gamma(1, beta) prior of the precision (with --infer-gamma)")
	novelty := fset.Bool("novelty", false, "add the novelty of A to the expected free energy (needs concentrations a)")
	dotFile := fset.String("dot", "", "write the agent's graph after its first step (the past, the policy pi and the precision) to this file: SVG, PDF or PNG by its ending, DOT otherwise")
	plotFile := fset.String("plot", "", "draw the first episode's beliefs, the G of each action taken, the maze with the path and, over several episodes, a learning curve into this PNG file")
	pastFlag := fset.String("past", "filter", "past inference: filter (exact filtering of the present state, as SPM and pymdp; smoothing for learning) or vmp (the paper's mean field over the past)")
	sel := fset.String("select", aci.SelectArgmax, "action selection from the action distribution: argmax or sample")
	noise := fset.Float64("noise", envs.DefaultNoise, "maze model noise on A, B and D")
	pref := fset.Float64("pref-precision", envs.DefaultPrefPrecision, "maze preference precision")
	asJSON := fset.Bool("json", false, "one JSON object per episode and a summary line")
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
	switch {
	case !aciFlagsGiven(fset)["horizon"]:
		return badInput("--horizon: missing (want the policy length T >= 1)")
	case *horizon < 1:
		return badInput("--horizon: %d, want >= 1", *horizon)
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
	case math.IsNaN(*gamma) || math.IsInf(*gamma, 0) || *gamma <= 0:
		return badInput("--gamma: %v, want finite > 0", *gamma)
	case math.IsNaN(*beta) || math.IsInf(*beta, 0) || *beta <= 0:
		return badInput("--beta: %v, want finite > 0", *beta)
	case *sel != aci.SelectArgmax && *sel != aci.SelectSample:
		return badInput("--select: %q, want %s or %s", *sel, aci.SelectArgmax, aci.SelectSample)
	case (*mazeFile == "") == (*model == ""):
		return badInput("want exactly one of --maze FILE and --model FILE")
	}
	var m *pomdp.Model
	var env pomdp.Environment
	var mz *envs.Maze
	source := ""
	if *mazeFile != "" {
		if mz, err = loadMaze(*mazeFile); err != nil {
			return err
		}
		mm, err := mz.Model(*noise, *pref)
		if err != nil {
			return badInput("--noise %v, --pref-precision %v: %v", *noise, *pref, err)
		}
		if m, err = mm.POMDP(); err != nil {
			return badInput("--maze %s: model: %v", *mazeFile, err)
		}
		env, source = mz, "--maze "+*mazeFile
	} else {
		if m, err = loadPOMDP(*model); err != nil {
			return err
		}
		env = pomdp.NewProcess(m, rand.New(rand.NewPCG(*seed, 0xe1)))
		source = "--model " + *model
	}
	if _, err := aci.NumPolicies(m.NumActions(), *horizon, math.MaxInt); err != nil {
		return badInput("--%v", err)
	}
	if err := aciCheckPlanTime(m, *horizon, *maxMin); err != nil {
		return err
	}
	var habitsE []float64
	if *habits != "" {
		if habitsE, err = aciParseHabits(*habits, m.NumActions()); err != nil {
			return err
		}
	}
	past, err := pomdp.ParsePastInference(*pastFlag)
	if err != nil {
		return badInput("--past: %v", err)
	}
	agentOpts := &aci.AgentOptions{
		Horizon: *horizon, Gamma: *gamma, InferGamma: *inferGamma, Beta: *beta,
		Novelty: *novelty, Select: *sel, Seed: *seed, Habits: habitsE, Past: past,
	}
	// Episodes are independent unless the agent learns (concentrations a,
	// b, d): then each agent runs its episodes in order, and the agents
	// (--agents) run in parallel. Otherwise every episode can run on any
	// of the --jobs workers, each with its own agent and copy of the
	// environment. Every episode has its own random streams, and the
	// output is written in episode order, the same as with one worker.
	la, lb, ld := m.Learnable()
	learn := la || lb || ld
	total, per := *agents**episodes, 1
	if learn {
		per = *episodes
	}
	jobs := min(*jobsFlag, total/per)
	workers := make([]*aciWorker, jobs)
	for i := range workers {
		w := &aciWorker{mz: mz, env: env, dot: *dotFile, plot: *plotFile != ""}
		if w.ag, err = aci.NewAgent(m, agentOpts); err != nil {
			return badInput("%s: %v", source, err)
		}
		if i > 0 {
			switch {
			case mz == nil:
				w.env = pomdp.NewProcess(m, nil)
			default:
				if w.mz, err = envs.ParseMaze(strings.NewReader(mz.String())); err != nil {
					return err
				}
				w.env = w.mz
			}
		}
		workers[i] = w
	}
	// Ctrl-C stops the run within a second (the policy walk looks at ctx
	// regularly): the finished episodes and their summary are written, and
	// the exit status is 130.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	context.AfterFunc(ctx, stop) // a second Ctrl-C ends the process at once
	enc := json.NewEncoder(stdout)
	done := 0
	var interrupted error
	solved, stepsSolved := 0, 0
	planning := 0.0
	nPol, _ := aci.NumPolicies(m.NumActions(), *horizon, math.MaxInt)
	prog := startProgress(*progressFlag, total, int64(nPol), "policies scored")
	defer prog.end()
	for _, w := range workers {
		w.prog = prog // before the workers start
	}
	if err := checkPlotFile(*plotFile); err != nil {
		return err
	}
	rp := &runPlot{path: *plotFile, costLabel: "lowest G of the action taken", mz: mz, m: m}
	pool := startEpisodes(ctx, total, per, len(workers), func(ctx context.Context, w, e int) aciResult {
		if learn && e > 1 && (e-1)%per == 0 {
			// A new agent: it starts from the model's priors.
			ag, err := aci.NewAgent(m, agentOpts)
			if err != nil {
				return aciResult{err: err}
			}
			workers[w].ag = ag
		}
		r := workers[w].episode(ctx, e, *seed, *steps)
		if *agents > 1 {
			r.ep.Agent, r.ep.Episode = agentEpisode(e, *episodes)
		}
		return r
	})
	defer pool.stop()
	for e := 1; e <= total; e++ {
		r, ok := pool.result(ctx, e)
		if !ok || errors.Is(r.err, context.Canceled) {
			interrupted = context.Canceled
			break
		}
		if r.err != nil {
			return fmt.Errorf("episode %d: %w", e, r.err)
		}
		ep, states := r.ep, r.states
		done++
		prog.episode()
		rp.episodes = append(rp.episodes, r.plot)
		if ep.Solved {
			solved++
			stepsSolved += ep.Steps
		}
		planning += ep.PlanningSeconds
		if *asJSON {
			if err := enc.Encode(&ep); err != nil {
				return err
			}
			continue
		}
		aciPrintEpisode(stdout, &ep, m, mz, states, *horizon)
	}
	if *plotFile != "" {
		if err := rp.write(); err != nil {
			return err
		}
	}
	var meanSteps any // null when no episode was solved
	if solved > 0 {
		meanSteps = float64(stepsSolved) / float64(solved)
	}
	// After an interrupt the summary covers the finished episodes.
	if *asJSON {
		sum := map[string]any{"episodes": done, "solved": solved, "mean_steps": meanSteps, "planning_seconds": planning}
		if *agents > 1 {
			sum["agents"] = *agents
		}
		if err := enc.Encode(sum); err != nil {
			return err
		}
		return interrupted
	}
	if mz != nil {
		fmt.Fprintf(stdout, "%d/%d episodes solved", solved, done)
		if solved > 0 {
			fmt.Fprintf(stdout, ", mean steps %.1f", meanSteps)
		}
		fmt.Fprintf(stdout, "; %.3f s planning in all\n", planning)
	}
	return interrupted
}

// aciPrintEpisode is the human output of one episode: a summary line, the
// actions, and for a maze the maze with the path drawn (envs.Maze.Render,
// as arbor btai run).
func aciPrintEpisode(w io.Writer, ep *aciEpisode, m *pomdp.Model, mz *envs.Maze, states []int, horizon int) {
	status := "ran"
	if mz != nil {
		status = "did not reach the exit"
		if ep.Solved {
			status = "reached the exit"
		}
	}
	label := fmt.Sprintf("episode %d", ep.Episode)
	if ep.Agent > 0 {
		label = fmt.Sprintf("agent %d %s", ep.Agent, label)
	}
	fmt.Fprintf(w, "%s: %s in %d steps (%d policies of length %d per step, %.3f s planning)\n",
		label, status, ep.Steps, ep.Policies, horizon, ep.PlanningSeconds)
	names := make([]string, len(ep.Actions))
	for i, u := range ep.Actions {
		names[i] = m.ActionName(u)
	}
	fmt.Fprintf(w, "actions: %s\n", strings.Join(names, " "))
	if mz == nil {
		obs := make([]string, len(ep.Observations))
		for i, o := range ep.Observations {
			obs[i] = m.ObsName(o)
		}
		fmt.Fprintf(w, "observations: %s\n", strings.Join(obs, " "))
		return
	}
	fmt.Fprint(w, mz.Render(states))
}
