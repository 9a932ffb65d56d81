package si_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/internal/fastexp"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// The maze of ActiveInference.jl's sophisticated-inference benchmark
// (examples/JB/SI_Maze_Jax/generative_model.py of
// ComputationalPsychiatry/ActiveInference.jl, run by jax_script.py with
// pymdp's si_policy_search): a 9 × 9 grid (1 = wall), state index
// column × 9 + row, two actions (up, right), three modalities: the
// position (identity), a wall signal (open, wall) and a binary preference
// cue whose probability, PREFERENCES, rises toward the goal at row 1,
// column 7; C = [1, -1] on the cue, 0 elsewhere; the agent starts at state
// 17 (row 8, column 1). examples/pomdp/si-maze.json is this model.
var (
	mazeWalls = [9][9]int{
		{1, 1, 1, 1, 1, 1, 1, 1, 1},
		{1, 1, 1, 1, 1, 1, 1, 0, 1},
		{1, 1, 1, 1, 1, 0, 1, 0, 1},
		{1, 1, 1, 0, 1, 0, 1, 0, 1},
		{1, 0, 1, 0, 1, 0, 1, 0, 1},
		{1, 0, 1, 0, 1, 0, 1, 0, 1},
		{1, 0, 1, 0, 1, 0, 1, 0, 1},
		{1, 0, 0, 0, 0, 0, 0, 0, 1},
		{1, 0, 1, 1, 1, 1, 1, 1, 1},
	}
	mazePreferences = [9][9]float64{
		{0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000},
		{0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 1.000, 0.000},
		{0.000, 0.000, 0.000, 0.000, 0.000, 0.700, 0.000, 0.825, 0.000},
		{0.000, 0.000, 0.000, 0.501, 0.000, 0.600, 0.000, 0.700, 0.000},
		{0.000, 0.300, 0.000, 0.400, 0.000, 0.525, 0.000, 0.625, 0.000},
		{0.000, 0.200, 0.000, 0.300, 0.000, 0.425, 0.000, 0.575, 0.000},
		{0.000, 0.150, 0.000, 0.200, 0.000, 0.325, 0.000, 0.501, 0.000},
		{0.000, 0.100, 0.125, 0.150, 0.175, 0.225, 0.300, 0.400, 0.000},
		{0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000},
	}
)

const (
	siMaze     = "../examples/pomdp/si-maze.json"
	mazeStart  = 17      // generative_model.py: D = onehot(17)
	mazeGoal   = 7*9 + 1 // PREFERENCES = 1 at row 1, column 7
	mazeBudget = 10 * time.Millisecond
)

// mazeOptions are jax_script.py's search settings: policy_prune_threshold
// 1/16, observation_prune_threshold 0.5 (the script's 0.5001 keeps no
// outcome of a 0.5/0.5 split; arbor's bound keeps both), gamma 1.
func mazeOptions(depth int) *si.Options {
	return &si.Options{Depth: depth, Gamma: 1, PruneActions: 1.0 / 16, PruneOutcomes: 0.5}
}

func mazeRoot(t testing.TB) (*pomdp.Model, []float64) {
	t.Helper()
	m, err := pomdp.Load(siMaze)
	if err != nil {
		t.Fatal(err)
	}
	// At the start: its position, an open cell, the cue "not preferred"
	// (PREFERENCES is 0 there).
	o, err := m.EncodeObs([]int{mazeStart, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	qs, err := pomdp.StatePosterior(nil, m, o)
	if err != nil {
		t.Fatal(err)
	}
	return m, qs
}

// TestMazeFile: examples/pomdp/si-maze.json is the model of
// generative_model.py, built here from its arrays (B as
// construct_B_matrices_jax: a wall cell stays; up and right move to an
// open neighbour, else stay).
func TestMazeFile(t *testing.T) {
	m, err := pomdp.Load(siMaze)
	if err != nil {
		t.Fatal(err)
	}
	const n, ns = 9, 81
	if m.NumFactors() != 1 || m.FactorSize(0) != ns || m.NumActions() != 2 || m.NumModalities() != 3 {
		t.Fatalf("%d factors of %d states, %d actions, %d modalities", m.NumFactors(), m.FactorSize(0), m.NumActions(), m.NumModalities())
	}
	b := m.FactorB(0)
	wantB := func(u, next, prev int) float64 {
		r, c := prev%n, prev/n
		to := prev
		switch {
		case mazeWalls[r][c] == 1:
		case u == 0 && r > 0 && mazeWalls[r-1][c] == 0:
			to = c*n + r - 1
		case u == 1 && c < n-1 && mazeWalls[r][c+1] == 0:
			to = (c+1)*n + r
		}
		if next == to {
			return 1
		}
		return 0
	}
	for u := range 2 {
		for next := range ns {
			for prev := range ns {
				if got, want := b[(u*ns+next)*ns+prev], wantB(u, next, prev); got != want {
					t.Fatalf("B[%d][%d][%d] = %v, want %v", u, next, prev, got, want)
				}
			}
		}
	}
	pos, wall, pref := m.ModalityA(0), m.ModalityA(1), m.ModalityA(2)
	for s := range ns {
		r, c := s%n, s/n
		for o := range ns {
			if want := float64(pick(o == s, 1, 0)); pos[o*ns+s] != want {
				t.Fatalf("position A[%d][%d] = %v", o, s, pos[o*ns+s])
			}
		}
		w := float64(mazeWalls[r][c])
		p := mazePreferences[r][c]
		if wall[s] != 1-w || wall[ns+s] != w {
			t.Errorf("wall A[·][%d] = %v, %v; maze %v", s, wall[s], wall[ns+s], w)
		}
		if math.Abs(pref[s]-p) > 1e-12 || math.Abs(pref[ns+s]-(1-p)) > 1e-12 {
			t.Errorf("preference A[·][%d] = %v, %v; PREFERENCES %v", s, pref[s], pref[ns+s], p)
		}
	}
	c := m.ModalityC(2)
	if want := 1 / (1 + math.Exp(-2)); math.Abs(c[0]-want) > 1e-12 {
		t.Errorf("preference C = %v, want σ([1, -1]) = [%v, %v]", c, want, 1-want)
	}
	d := m.FactorisedSpec().Factors[0].D
	if d[mazeStart] != 1 {
		t.Errorf("D[%d] = %v, want 1", mazeStart, d[mazeStart])
	}
}

// TestMazeSpeed: depth 10 with the benchmark's pruning plans in under 10
// ms a step (the best of five plans, each from a new Planner). Skipped
// under -short and with the race detector's slowdown in mind it measures
// the best run, not the mean.
func TestMazeSpeed(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	m, qs := mazeRoot(t)
	best := time.Hour
	for range 5 {
		start := time.Now()
		if _, err := si.Plan(context.Background(), m, qs, mazeOptions(10)); err != nil {
			t.Fatal(err)
		}
		best = min(best, time.Since(start))
	}
	if best > mazeBudget && !raceEnabled {
		t.Errorf("depth 10 on the maze took %v, want under %v", best, mazeBudget)
	}
	t.Logf("depth 10 on the maze: %v", best)
}

// TestMazeAgent: the agent, planning 10 steps deep with the benchmark's
// settings, walks from the start to the goal along the only open path
// (up, six steps right, six up: 13 actions) and stays there.
func TestMazeAgent(t *testing.T) {
	m, _ := mazeRoot(t)
	ag, err := si.NewAgent(m, mazeOptions(10))
	if err != nil {
		t.Fatal(err)
	}
	ep, err := agent.RunEpisode(context.Background(), ag, pomdp.NewProcess(m, agent.WorldRand(0, 0)), &agent.EpisodeSettings{MaxSteps: 15})
	if err != nil {
		t.Fatal(err)
	}
	last := ep.Steps[len(ep.Steps)-1]
	outs := m.DecodeObs(nil, last.Obs)
	if outs[0] != mazeGoal {
		t.Errorf("after 15 steps at %s, want %s; actions %v", m.OutcomeName(0, outs[0]), m.OutcomeName(0, mazeGoal), ep.Actions())
	}
	steps := 0
	for _, st := range ep.Steps {
		if m.DecodeObs(nil, st.Obs)[0] == mazeGoal {
			break
		}
		steps++
	}
	if steps != 13 {
		t.Errorf("reached the goal after %d actions, want 13; actions %v", steps, ep.Actions())
	}
}

// BenchmarkPlanMaze is one planning step of the maze benchmark (depth 10,
// pruning 1/16 on actions and 0.5 on outcomes, gamma 1), from a new
// Planner, as an agent that plans with a new model each step.
func BenchmarkPlanMaze(b *testing.B) {
	m, qs := mazeRoot(b)
	b.ReportAllocs()
	var res *si.Result
	for b.Loop() {
		var err error
		if res, err = si.Plan(context.Background(), m, qs, mazeOptions(10)); err != nil {
			b.Fatal(err)
		}
	}
	// The arithmetic, counted on a planner of its own after the timing.
	p, err := si.NewPlanner(m, mazeOptions(10))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.Plan(context.Background(), qs); err != nil {
		b.Fatal(err)
	}
	reportNodes(b, res, p)
}

// The machine's arithmetic limit: 2.096 GHz (/proc/cpuinfo, "cpu MHz:
// 2096.015"; the clock the benchmarks of docs/benchmarks.md ran at) and,
// with AVX2 and two FMA units, 16 double-precision flops per cycle per
// core: 8 multiply-adds per cycle.
const (
	clockGHz     = 2.096
	macsPerCycle = 8
)

// reportNodes adds to a benchmark's line the beliefs scored per search,
// the time per belief, the multiply-adds per belief (Planner.Work, by the
// convention of count_test.go, counted on p after the same search as res)
// and the ratio of the time per belief to that arithmetic at the FMA
// limit (x-fma) and at one multiply-add per cycle (x-scalar).
func reportNodes(b *testing.B, res *si.Result, p *si.Planner) {
	b.Helper()
	w := p.Work()
	if w.Nodes != res.Nodes {
		b.Fatalf("the count walked %d nodes, the search scored %d", w.Nodes, res.Nodes)
	}
	perNode := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(res.Nodes)
	macs := float64(w.MACs) / float64(w.Nodes)
	b.ReportMetric(float64(res.Nodes), "nodes/op")
	b.ReportMetric(perNode, "ns/node")
	b.ReportMetric(macs, "MAC/node")
	b.ReportMetric(perNode/(macs/(macsPerCycle*clockGHz)), "x-fma")
	b.ReportMetric(perNode/(macs/clockGHz), "x-scalar")
}

// BenchmarkPlanMazeReuse is the same search with one Planner and one
// Result reused (PlanInto: the tables' memory and the result's vectors
// kept from one step to the next, as Agent.DecideInto keeps them).
func BenchmarkPlanMazeReuse(b *testing.B) {
	m, qs := mazeRoot(b)
	p, err := si.NewPlanner(m, mazeOptions(10))
	if err != nil {
		b.Fatal(err)
	}
	fastexp.Init() // the exponential's tables, made once a process: not a search's allocations
	b.ReportAllocs()
	res := new(si.Result)
	for b.Loop() {
		if err := p.PlanInto(context.Background(), qs, res); err != nil {
			b.Fatal(err)
		}
	}
	reportNodes(b, res, p)
}

// BenchmarkPlanTMaze is the unpruned T-maze at depths 2 to 4 (gamma 3),
// one Planner and one Result reused.
func BenchmarkPlanTMaze(b *testing.B) {
	for _, depth := range []int{2, 3, 4} {
		b.Run(fmt.Sprintf("depth%d", depth), func(b *testing.B) {
			m, err := pomdp.Load(siTMaze)
			if err != nil {
				b.Fatal(err)
			}
			qs := []float64{1, 0, 0, 0, 0.5, 0.5}
			p, err := si.NewPlanner(m, &si.Options{Depth: depth, Gamma: 3})
			if err != nil {
				b.Fatal(err)
			}
			fastexp.Init() // as in BenchmarkPlanMazeReuse
			b.ReportAllocs()
			res := new(si.Result)
			for b.Loop() {
				if err := p.PlanInto(context.Background(), qs, res); err != nil {
					b.Fatal(err)
				}
			}
			reportNodes(b, res, p)
		})
	}
}
