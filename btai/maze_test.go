package btai_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

func mazeModel(t testing.TB, name string) (*envs.Maze, *pomdp.Model) {
	t.Helper()
	// The reference mazes are in envs/testdata; the detour mazes in
	// examples/mazes only.
	path := filepath.Join("..", "envs", "testdata", "mazes", name)
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join("..", "examples", "mazes", name)
	}
	mz, err := envs.LoadMaze(path)
	if err != nil {
		t.Fatal(err)
	}
	return mz, mazePOMDP(t, mz, envs.DefaultPrefPrecision)
}

// mazeResult is the outcome of seeds episodes on one maze.
type mazeResult struct {
	solved, seeds int
	meanSteps     float64 // over the solved episodes
}

// runMaze runs one episode per seed 0..seeds-1 with at most maxSteps
// actions and counts the episodes that reach the exit.
func runMaze(t testing.TB, name string, opts *btai.Options, seeds, maxSteps int) mazeResult {
	t.Helper()
	mz, p := mazeModel(t, name)
	return runSeeds(t, mz, p, opts, seeds, maxSteps)
}

// runSeeds runs one episode of the agent for model p in maze mz per seed
// 0..seeds-1, with at most maxSteps actions, and counts the episodes that
// reach the exit.
func runSeeds(t testing.TB, mz *envs.Maze, p *pomdp.Model, opts *btai.Options, seeds, maxSteps int) mazeResult {
	t.Helper()
	r := mazeResult{seeds: seeds}
	steps := 0
	// On every core (the same episodes as one after the other).
	eps, err := runSeedEpisodes(context.Background(), p, opts, func() agent.Environment { return mz.Clone() }, seeds, maxSteps, runtime.GOMAXPROCS(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range eps {
		if ep.Solved {
			r.solved++
			steps += ep.NumActions()
		}
	}
	if r.solved > 0 {
		r.meanSteps = float64(steps) / float64(r.solved)
	}
	return r
}

func shortest(t testing.TB, name string) int {
	mz, _ := mazeModel(t, name)
	n, err := mz.ShortestPath()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMazeExperiment prints the success tables of docs/btai.md that vary
// the paper preset (PresetPaper) one option at a time. It runs only
// when BTAI_EXPERIMENT is set, to "maze,maze,...:iterations,...:mode,..."
// (mode vmp or predictive), e.g. "7.maze,8.maze:100,1000:vmp,predictive";
// BTAI_SEEDS overrides the 20 seeds, BTAI_EXPLORATION the UCT constant C_p,
// BTAI_SELECTION the selection rule (unexplored-first or uct).
// The step limit is 2 × shortest + 5.
func TestMazeExperiment(t *testing.T) {
	spec := os.Getenv("BTAI_EXPERIMENT")
	if spec == "" {
		t.Skip("set BTAI_EXPERIMENT")
	}
	parts := strings.Split(spec, ":")
	if len(parts) != 3 {
		t.Fatalf("BTAI_EXPERIMENT %q: want mazes:iterations:modes", spec)
	}
	seeds := 20
	if s := os.Getenv("BTAI_SEEDS"); s != "" {
		var err error
		if seeds, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range strings.Split(parts[0], ",") {
		sp := shortest(t, name)
		for _, its := range strings.Split(parts[1], ",") {
			n, err := strconv.Atoi(its)
			if err != nil {
				t.Fatal(err)
			}
			for _, mode := range strings.Split(parts[2], ",") {
				inf, err := btai.ParseInference(mode)
				if err != nil {
					t.Fatal(err)
				}
				o := btai.PresetPaper()
				o.Iterations, o.Inference = n, inf
				if e := os.Getenv("BTAI_EXPLORATION"); e != "" {
					var c float64
					if c, err = strconv.ParseFloat(e, 64); err != nil {
						t.Fatalf("BTAI_EXPLORATION: %v", err)
					}
					o.Exploration = ptr(c)
				}
				if e := os.Getenv("BTAI_SELECTION"); e != "" {
					if o.Selection, err = btai.ParseSelection(e); err != nil {
						t.Fatalf("BTAI_SELECTION: %v", err)
					}
				}
				variant := os.Getenv("BTAI_VARIANT")
				var r mazeResult
				switch variant {
				case "", "defaults":
					r = runMaze(t, name, &o, seeds, 2*sp+5)
				case "rollouts":
					// Algorithm 1: 4 roll-outs of 10 random actions per new node.
					o.Rollouts, o.RolloutLength = 4, 10
					r = runMaze(t, name, &o, seeds, 2*sp+5)
				case "cstates":
					// pcost with a target over states V(S) = softmax(-6 d(s)),
					// d the number of actions from s to the exit.
					o.Cost = btai.PCost
					r = runMazeCStates(t, name, &o, seeds, 2*sp+5)
				default:
					t.Fatalf("BTAI_VARIANT %q", variant)
				}
				fmt.Printf("| %s | %d | %s | %s | %d/%d | %.1f |\n", name, n, mode, variant, r.solved, r.seeds, r.meanSteps)
			}
		}
	}
}

// TestMazeDefaults runs the default agent (the scale-free preset:
// normalized-uct selection, C = 1/√2, 1,000 iterations per action) for 20
// seeds on the reference mazes 1, 2, 5, 6 and 13, at the maze model's
// preference precision 3 and at 1 and 5 (the costs scale with it, the
// behaviour must not). Required: at least 19 of 20 seeds reach the exit
// within 2 × shortest + 5 actions, on the shortest path (checkMazes).
// Measured: 20/20 on each maze at each precision, every episode on the
// shortest path at precisions 3 and 5, and on average within 0.3 steps of
// it at precision 1 (the costs are not an affine function of the
// precision: the ambiguity term does not scale). Skipped with -short;
// .ci/run runs it.
func TestMazeDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("about 15 s of CPU: skipped with -short")
	}
	for _, pref := range []float64{3, 1, 5} {
		t.Run(fmt.Sprintf("pref-precision %g", pref), func(t *testing.T) {
			checkMazesAt(t, nil, pref, referenceMazes...)
		})
	}
}

// TestMazeDefaultsUnseen runs the default agent on ten mazes it was never
// tuned on: drawn by randomMaze from a generator seed used nowhere else,
// and kept when they are of the same kind as the reference mazes: the
// distance to the exit rises at most once along some shortest path, H <=
// 6 (horizonH) and the shortest path takes at least 6 actions. Each is
// solved when at least 19 of 20 seeds reach the exit within 2 × shortest +
// 5 actions.
//
// Measured: 8 of the 10. Maze 0 (H 6) is solved in 17 of 20 seeds (20 at
// C = 1/√2 or with 3,000 iterations); maze 8 (H 3) in none, at any C or
// budget tried (0.3 to 1, up to 3,000 iterations, vmp or predictive): from
// the start two equally short routes begin, and one passes a pocket at
// distance 2 below the exit's wall that a planner must look 8 moves ahead
// to refuse (greedyH 8; horizonH follows the better route and says 3).
// docs/btai.md reports both. The test requires the 8 of 10 measured, so
// that a regression on any other maze fails it.
func TestMazeDefaultsUnseen(t *testing.T) {
	if testing.Short() {
		t.Skip("about 25 s of CPU: skipped with -short")
	}
	solved := 0
	for i, mz := range drawMazes(t, 314, 10, true) {
		sp, _ := mz.ShortestPath()
		p := mazePOMDP(t, mz, envs.DefaultPrefPrecision)
		r := runSeeds(t, mz, p, nil, 20, 2*sp+5)
		t.Logf("unseen maze %d (H %d, greedyH %d, shortest %d): %d/20, mean steps %.1f", i, horizonH(mz, 40), greedyH(mz, 40), sp, r.solved, r.meanSteps)
		if r.solved >= 19 {
			solved++
		}
	}
	if solved < 8 {
		t.Errorf("%d of 10 unseen mazes solved in >= 19 of 20 seeds, want >= 8 (measured 8)", solved)
	}
}

// TestMazeNoveltyDetours: with novelty, the default agent solves the
// detour mazes of examples/mazes (the distance to the exit rises 2 to 4
// times along every shortest path, H from 7 to 23), which no setting of
// the tree search alone solves: at least 15 of 20 seeds within 4 ×
// shortest + 10 actions (measured: 20/20 each, docs/btai.md).
func TestMazeNoveltyDetours(t *testing.T) {
	if testing.Short() {
		t.Skip("about 30 s of CPU: skipped with -short")
	}
	o := btai.DefaultOptions()
	o.Novelty = true
	for i := 1; i <= 6; i++ {
		name := fmt.Sprintf("detour-%d.maze", i)
		sp := shortest(t, name)
		r := runMaze(t, name, &o, 20, 4*sp+10)
		t.Logf("%s: %d/20 solved within %d actions, mean steps %.1f (shortest %d)", name, r.solved, 4*sp+10, r.meanSteps, sp)
		if r.solved < 15 {
			t.Errorf("%s: %d/20 solved, want >= 15", name, r.solved)
		}
	}
}

// runMazeCStates is runMaze with C_states = softmax(-6 d(s)), where d(s)
// is the number of actions from s to the exit (breadth-first search over
// the true moves, backwards from the exit).
func runMazeCStates(t testing.TB, name string, opts *btai.Options, seeds, maxSteps int) mazeResult {
	t.Helper()
	mz, _ := mazeModel(t, name)
	mm, err := mz.Model(envs.DefaultNoise, envs.DefaultPrefPrecision)
	if err != nil {
		t.Fatal(err)
	}
	sp := mm.Spec()
	ns := mz.NumStates()
	d := geodesic(mz)
	cs := make([]float64, ns)
	z := 0.0
	for s := range cs {
		if d[s] < 0 {
			d[s] = 4 * ns // unreachable: least preferred
		}
		cs[s] = math.Exp(-6 * float64(d[s]))
		z += cs[s]
	}
	for s := range cs {
		cs[s] /= z
	}
	sp.CStates = cs
	p, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	return runSeeds(t, mz, p, opts, seeds, maxSteps)
}

// TestRunDeterministic checks that a seed makes a whole episode
// reproducible: with a low action precision (1) the softmax sampling
// matters, the same seed gives the same actions, and the four seeds do
// not all give the same actions.
func TestRunDeterministic(t *testing.T) {
	mz, p := mazeModel(t, "1.maze")
	o := btai.DefaultOptions()
	o.Iterations, o.ActionSelection, o.ActionPrecision = 20, btai.Softmax, ptr(1)
	run := func(seed uint64) string {
		ag, err := btai.NewAgent(p, &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		ep, err := agent.RunEpisode(context.Background(), ag, mz, &agent.EpisodeSettings{MaxSteps: 8, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(ep.Actions())
	}
	distinct := map[string]bool{}
	for seed := range uint64(4) {
		a, b := run(seed), run(seed)
		if a != b {
			t.Fatalf("seed %d: %s then %s", seed, a, b)
		}
		distinct[a] = true
	}
	if len(distinct) < 2 {
		t.Errorf("4 seeds, one action sequence %v: the seed is not used", distinct)
	}
}

// TestMaze2PaperCommit records why every seed fails 2.maze with the paper
// preset (C_p = 2, 100 iterations), with either selection rule (the paper's
// unexplored-first, and uct as in the hp preset) and either future
// inference. It checks the first planning step from the
// start (docs/btai.md, "Why 2.maze fails at the defaults"). From the start
// (5,1), UP and RIGHT both lower the distance for five steps; RIGHT then
// ends in a dead end at distance 4, UP goes on to the exit.
//
//  1. The model itself prefers RIGHT by a hair: its local cost is lower
//     (measured: 6.7e-8 nats with vmp, 1.4e-3 with predictive).
//  2. After 100 iterations, UP's average cost is 7.2 to 10.8 nats above
//     RIGHT's (measured, by rule and inference). UP's exploration term
//     C_p sqrt(ln n / n_UP) is at most 2 sqrt(ln 101) = 4.3 and RIGHT's
//     is >= 0, so UP's UCT value at the root is below RIGHT's. With uct
//     this follows from 1 (the cheaper child is deepened first); with
//     unexplored-first it is measured, not derived.
//  3. Action selection samples softmax(-100 ḡ): UP's probability is below
//     e^-700, so every seed goes RIGHT at the first step. The later steps
//     are not checked here (TestMazePaperPresets logs the 0/20).
func TestMaze2PaperCommit(t *testing.T) {
	mz, p := mazeModel(t, "2.maze")
	const up, right = 0, 3
	for _, sel := range []btai.Selection{btai.UnexploredFirst, btai.UCT} {
		for _, inf := range []btai.Inference{btai.VMP, btai.Predictive} {
			o := btai.PresetPaper()
			o.Selection, o.Inference = sel, inf
			ag, err := btai.NewAgent(p, &o, rand.New(rand.NewPCG(1, 0)))
			if err != nil {
				t.Fatal(err)
			}
			if err := ag.Reset(context.Background(), mz.Reset()); err != nil {
				t.Fatal(err)
			}
			if err := ag.Plan(context.Background()); err != nil {
				t.Fatal(err)
			}
			tr := ag.Tree()
			u, r := tr.Nodes[tr.Child(0, up)], tr.Nodes[tr.Child(0, right)]
			n := float64(tr.Nodes[0].Visits)
			gap := u.Average() - r.Average()
			bound := *o.Exploration * math.Sqrt(math.Log(n)/float64(u.Visits))
			t.Logf("%v, %v: local UP - RIGHT = %.3g; after planning ḡ UP %.4f (n %d), RIGHT %.4f (n %d), gap %.2f > %.2f",
				sel, inf, u.Local-r.Local, u.Average(), u.Visits, r.Average(), r.Visits, gap, bound)
			if !(u.Local > r.Local) {
				t.Errorf("%v, %v: local cost UP %.15g <= RIGHT %.15g: the premise of docs/btai.md changed", sel, inf, u.Local, r.Local)
			}
			if !(gap > bound) {
				t.Errorf("%v, %v: ḡ gap UP - RIGHT %.3f <= %.3f: UP could still be selected", sel, inf, gap, bound)
			}
			probs := make([]float64, tr.NumActions)
			tr.SelectAction(btai.Softmax, *o.ActionPrecision, rand.New(rand.NewPCG(1, 0)), probs)
			if probs[up] > math.Exp(-700) {
				t.Errorf("%v, %v: P(UP) = %g, want < e^-700", sel, inf, probs[up])
			}
		}
	}
}

// TestMazePaperPresets runs the paper and hp presets for 20 seeds on the
// reference mazes and checks them where they reach 19 of 20 within 2 ×
// shortest + 5 actions: the paper's algorithm on 5 and 13, the C++
// reference's (uct) on 1, 5 and 13, all measured at 20/20 on the shortest
// path. The others are logged: 0/20 on 1, 2 and 6 (paper), 0/20 on 2 and
// 12/20 on 6 (hp); docs/btai.md explains why. About 3 s of CPU: skipped
// with -short; .ci/run runs it.
func TestMazePaperPresets(t *testing.T) {
	if testing.Short() {
		t.Skip("about 3 s of CPU: skipped with -short")
	}
	paper, hp := btai.PresetPaper(), btai.PresetHP()
	t.Run("paper", func(t *testing.T) { checkMazes(t, &paper, "5.maze", "13.maze") })
	t.Run("hp", func(t *testing.T) { checkMazes(t, &hp, "1.maze", "5.maze", "13.maze") })
}

// referenceMazes are the non-deceptive reference mazes (H <= 6), each to
// be reached in at least 19 of 20 seeds within 2 × shortest + 5 actions.
var referenceMazes = []string{"1.maze", "2.maze", "5.maze", "6.maze", "13.maze"}

// checkMazes is checkMazesAt at the default preference precision.
func checkMazes(t *testing.T, opts *btai.Options, required ...string) {
	t.Helper()
	checkMazesAt(t, opts, envs.DefaultPrefPrecision, required...)
}

// checkMazesAt runs the agent with opts (nil: the defaults) for 20 seeds
// on every reference maze with the maze model at preference precision
// pref, logs each result, and for the mazes in required checks that at
// least 19 of 20 reach the exit within 2 × shortest + 5 actions and that
// the solved episodes take the shortest path (one detour step on average
// is allowed). The other mazes are logged only.
func checkMazesAt(t *testing.T, opts *btai.Options, pref float64, required ...string) {
	t.Helper()
	for _, name := range referenceMazes {
		sp := shortest(t, name)
		mz, _ := mazeModel(t, name)
		r := runSeeds(t, mz, mazePOMDP(t, mz, pref), opts, 20, 2*sp+5)
		t.Logf("%s: %d/20 solved within %d actions, mean steps %.1f (shortest %d)", name, r.solved, 2*sp+5, r.meanSteps, sp)
		if slices.Contains(required, name) && (r.solved < 19 || r.meanSteps > float64(sp)+1) {
			t.Errorf("%s: %d/20 solved, mean steps %.1f (shortest %d), want >= 19 near the shortest", name, r.solved, r.meanSteps, sp)
		}
	}
}
