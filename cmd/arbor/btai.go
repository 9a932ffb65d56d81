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
	"os"
	"strings"
	"time"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
)

func runBTAI(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return badInput("want a subcommand: plan or run (e.g. arbor btai run --maze examples/mazes/1.maze)")
	}
	switch args[0] {
	case "plan":
		return runBTAIPlan(args[1:], stdout)
	case "run":
		return runBTAIRun(args[1:], stdout)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, "usage: arbor btai plan|run [flags]; 'arbor btai run -h' lists the flags")
		return nil
	}
	return badInput("unknown subcommand %q (want plan or run)", args[0])
}

// btaiFlags registers the planning options shared by plan and run.
type btaiFlags struct {
	iterations                      int
	cost, propagation, inference    string
	exploration                     float64
	rollouts, rolloutLength, window int
	global                          bool
}

func (b *btaiFlags) register(fs *flag.FlagSet, iterations int) {
	fs.IntVar(&b.iterations, "iterations", iterations, "planning iterations per action")
	fs.StringVar(&b.cost, "cost", "classic", "node cost: classic, pcost or feef")
	fs.StringVar(&b.propagation, "propagation", "min-backward", "cost propagation: min-backward, backward or forward")
	fs.StringVar(&b.inference, "inference", "vmp", "future inference: vmp or predictive")
	fs.Float64Var(&b.exploration, "exploration", 2, "UCT exploration constant")
	fs.IntVar(&b.rollouts, "rollouts", 0, "roll-outs per expanded node (Algorithm 1)")
	fs.IntVar(&b.rolloutLength, "rollout-length", 5, "length of each roll-out")
	fs.IntVar(&b.window, "window", 32, "past time steps kept in the graph (0 = all)")
	fs.BoolVar(&b.global, "global", false, "global instead of local inference after each expansion")
}

func (b *btaiFlags) options() (btai.Options, error) {
	o := btai.DefaultOptions()
	var err error
	if o.Cost, err = btai.ParseCost(b.cost); err != nil {
		return o, badInput("--cost: %v", err)
	}
	if o.Propagation, err = btai.ParsePropagation(b.propagation); err != nil {
		return o, badInput("--propagation: %v", err)
	}
	if o.Inference, err = btai.ParseInference(b.inference); err != nil {
		return o, badInput("--inference: %v", err)
	}
	o.Iterations, o.Exploration, o.GlobalInference, o.Window = b.iterations, b.exploration, b.global, b.window
	o.Rollouts, o.RolloutLength = b.rollouts, b.rolloutLength
	if err := o.Validate(); err != nil {
		return o, badInput("%v", err)
	}
	return o, nil
}

// modelError marks a bad --model or --maze file: exit status 2.
type modelError struct{ err error }

func (e *modelError) Error() string { return e.err.Error() }
func (e *modelError) Unwrap() error { return e.err }

func loadPOMDP(path string) (*aci.POMDP, error) {
	if path == "" {
		return nil, badInput("--model: missing")
	}
	m, err := aci.LoadPOMDP(path)
	if err != nil {
		return nil, &modelError{fmt.Errorf("%s: %w", path, err)}
	}
	return m, nil
}

// mazeSpec flattens a maze model into an aci.Spec.
func mazeSpec(mm *envs.MazeModel) aci.Spec {
	sp := aci.Spec{NumStates: len(mm.D), NumObs: len(mm.C), NumActions: len(mm.B), C: mm.C, D: mm.D,
		Actions: mm.Actions, Observations: mm.Observations, States: mm.States}
	for _, row := range mm.A {
		sp.A = append(sp.A, row...)
	}
	for _, m := range mm.B {
		for _, row := range m {
			sp.B = append(sp.B, row...)
		}
	}
	return sp
}

type planNode struct {
	Path       []int     `json:"path"`
	Visits     int       `json:"visits"`
	Local      float64   `json:"local_cost"`
	Aggregated float64   `json:"aggregated_cost"`
	QS         []float64 `json:"q_s"`
	QO         []float64 `json:"q_o"`
}

func runBTAIPlan(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("btai plan", flag.ContinueOnError)
	var bf btaiFlags
	bf.register(fs, 100)
	model := fs.String("model", "", "POMDP file (DESIGN.md 5.2)")
	obs := fs.Int("obs", -1, "the first observation O0 (index)")
	asJSON := fs.Bool("json", false, "print the tree as JSON")
	dotFile := fs.String("dot", "", "write the graph with the planning tree to this DOT file")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, "arbor btai plan --model M --obs O0 --iterations K [flags] [--json]"))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q", pos[0])
	}
	opts, err := bf.options()
	if err != nil {
		return err
	}
	m, err := loadPOMDP(*model)
	if err != nil {
		return err
	}
	if *obs < 0 || *obs >= m.NumObs() {
		return badInput("--obs: %d out of range [0, %d)", *obs, m.NumObs())
	}
	ag, err := btai.NewAgent(m, &opts, nil)
	if err != nil {
		return badInput("%v", err)
	}
	ctx := context.Background()
	if err := ag.Reset(ctx, *obs); err != nil {
		return badInput("--obs: %v", err)
	}
	qs := append([]float64(nil), ag.Belief()...)
	if err := ag.Plan(ctx); err != nil {
		return err
	}
	if *dotFile != "" {
		if err := writeDOT(ag, m, *dotFile); err != nil {
			return err
		}
	}
	tr := ag.Tree()
	nodes := make([]planNode, 0, len(tr.Nodes)-1)
	for i := 1; i < len(tr.Nodes); i++ {
		n := &tr.Nodes[i]
		nodes = append(nodes, planNode{
			Path: tr.Path(nil, i), Visits: n.Visits, Local: n.Local, Aggregated: n.Aggregated,
			QS: append([]float64(nil), n.S.Probs()...), QO: append([]float64(nil), n.O.Probs()...),
		})
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"q_s": qs, "nodes": nodes})
	}
	fmt.Fprintf(stdout, "planned %d iterations from O0 = %d: %d nodes\n", opts.Iterations, *obs, len(nodes))
	for u := range m.NumActions() {
		n := &tr.Nodes[tr.Child(0, u)]
		fmt.Fprintf(stdout, "  %-8s visits %4d  local %.4f  average %.4f\n", m.ActionName(u), n.Visits, n.Local, n.Average())
	}
	return nil
}

func writeDOT(ag *btai.Agent, m *aci.POMDP, path string) error {
	ag.LabelTree(m.ActionName)
	f, err := os.Create(path)
	if err != nil {
		return badInput("--dot: %v", err)
	}
	if err := ag.Graph().WriteDOT(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// modelEnv is the environment of a --model run: the model itself as the
// true generative process, sampled with the run's seed.
type modelEnv struct {
	m   *aci.POMDP
	rng *rand.Rand
	s   int
}

func (e *modelEnv) sample(p func(i int) float64, n int) int {
	u := e.rng.Float64()
	acc := 0.0
	for i := range n {
		acc += p(i)
		if u < acc {
			return i
		}
	}
	return n - 1
}

func (e *modelEnv) obs() int {
	return e.sample(func(o int) float64 { return e.m.A(o, e.s) }, e.m.NumObs())
}

func (e *modelEnv) Reset() int {
	e.s = e.sample(e.m.D, e.m.NumStates())
	return e.obs()
}

func (e *modelEnv) Step(u int) (int, error) {
	prev := e.s
	e.s = e.sample(func(n int) float64 { return e.m.B(u, n, prev) }, e.m.NumStates())
	return e.obs(), nil
}

func (e *modelEnv) Done() bool { return false }

type episodeJSON struct {
	Number int `json:"episode"`
	*btai.Episode
	Positions [][2]int `json:"positions,omitempty"`
}

func runBTAIRun(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("btai run", flag.ContinueOnError)
	var bf btaiFlags
	bf.register(fs, 100)
	mazeFile := fs.String("maze", "", "maze file (DESIGN.md 5.5)")
	model := fs.String("model", "", "POMDP file (DESIGN.md 5.2); the model is also the true process")
	steps := fs.Int("steps", 50, "maximum actions per episode")
	episodes := fs.Int("episodes", 1, "episodes")
	seed := fs.Uint64("seed", 1, "random seed (every run with the same seed is identical)")
	sel := fs.String("action-select", "softmax", "action selection: softmax, most-visited or min-cost")
	prec := fs.Float64("action-precision", 100, "softmax precision over -g/N")
	noise := fs.Float64("noise", envs.DefaultNoise, "maze model noise on A, B and D")
	pref := fs.Float64("pref-precision", envs.DefaultPrefPrecision, "maze preference precision")
	dotFile := fs.String("dot", "", "write the graph with the planning tree after the first planning step")
	asJSON := fs.Bool("json", false, "one JSON object per episode and a summary line")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, "arbor btai run --maze FILE | --model M [flags] [--json]"))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q", pos[0])
	}
	opts, err := bf.options()
	if err != nil {
		return err
	}
	if opts.ActionSelection, err = btai.ParseActionSelection(*sel); err != nil {
		return badInput("--action-select: %v", err)
	}
	opts.ActionPrecision = *prec
	if err := opts.Validate(); err != nil {
		return badInput("%v", err)
	}
	if *steps < 1 || *steps > 1_000_000 {
		return badInput("--steps: %d, want 1..1000000", *steps)
	}
	if *episodes < 1 || *episodes > 100_000 {
		return badInput("--episodes: %d, want 1..100000", *episodes)
	}
	if (*mazeFile == "") == (*model == "") {
		return badInput("want exactly one of --maze FILE and --model FILE")
	}
	rng := rand.New(rand.NewPCG(*seed, 0x5eed))
	var m *aci.POMDP
	var env btai.Environment
	var mz *envs.Maze
	if *mazeFile != "" {
		if mz, err = envs.LoadMaze(*mazeFile); err != nil {
			return &modelError{err}
		}
		mm, err := mz.Model(*noise, *pref)
		if err != nil {
			return badInput("%v", err)
		}
		if m, err = aci.NewPOMDP(mazeSpec(mm)); err != nil {
			return &modelError{fmt.Errorf("%s: %w", *mazeFile, err)}
		}
		env = mz
	} else {
		if m, err = loadPOMDP(*model); err != nil {
			return err
		}
		env = &modelEnv{m: m, rng: rand.New(rand.NewPCG(*seed, 0xe1)), s: 0}
	}
	ag, err := btai.NewAgent(m, &opts, rng)
	if err != nil {
		return badInput("%v", err)
	}
	ctx := context.Background()
	enc := json.NewEncoder(stdout)
	solved, stepsSolved, iters := 0, 0, 0
	planning := 0.0
	start := time.Now()
	for e := 1; e <= *episodes; e++ {
		var positions [][2]int
		var states []int
		if mz != nil {
			r, c := mz.CellOf(mz.Start())
			positions = append(positions, [2]int{r, c})
			states = append(states, mz.Start())
		}
		var dotErr error
		ep, err := ag.RunEpisode(ctx, env, *steps, func(step, action, obs int) {
			if mz != nil {
				r, c := mz.Position()
				positions = append(positions, [2]int{r, c})
				states = append(states, mz.State())
			}
			if step == 1 && e == 1 && *dotFile != "" {
				dotErr = writeDOT(ag, m, *dotFile)
			}
		})
		if err != nil {
			return err
		}
		if dotErr != nil {
			return dotErr
		}
		iters += ep.PlanningIterations
		planning += ep.PlanningSeconds
		if ep.Solved {
			solved++
			stepsSolved += ep.Steps
		}
		if *asJSON {
			if err := enc.Encode(episodeJSON{Number: e, Episode: ep, Positions: positions}); err != nil {
				return err
			}
			continue
		}
		printEpisode(stdout, e, ep, m, mz, states)
	}
	meanSteps := math.NaN()
	if solved > 0 {
		meanSteps = float64(stepsSolved) / float64(solved)
	}
	ips := 0.0
	if planning > 0 {
		ips = float64(iters) / planning
	}
	if *asJSON {
		summary := map[string]any{"episodes": *episodes, "solved": solved, "iterations_per_second": ips}
		if solved > 0 {
			summary["mean_steps"] = meanSteps
		} else {
			summary["mean_steps"] = nil
		}
		return enc.Encode(summary)
	}
	fmt.Fprintf(stdout, "%d/%d episodes solved", solved, *episodes)
	if solved > 0 {
		fmt.Fprintf(stdout, ", mean steps %.1f", meanSteps)
	}
	fmt.Fprintf(stdout, "; %.0f planning iterations per second (%.1f s in all)\n", ips, time.Since(start).Seconds())
	return nil
}

func printEpisode(w io.Writer, e int, ep *btai.Episode, m *aci.POMDP, mz *envs.Maze, states []int) {
	status := "did not reach the exit"
	if ep.Solved {
		status = "reached the exit"
	}
	if mz == nil {
		status = "ran"
	}
	fmt.Fprintf(w, "episode %d: %s in %d steps (%d planning iterations, %.3f s planning)\n", e, status, ep.Steps, ep.PlanningIterations, ep.PlanningSeconds)
	names := make([]string, len(ep.Actions))
	for i, a := range ep.Actions {
		names[i] = m.ActionName(a)
	}
	fmt.Fprintf(w, "actions: %s\n", strings.Join(names, " "))
	if mz != nil {
		fmt.Fprint(w, mz.Render(states))
	}
}
