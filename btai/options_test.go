package btai_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestZeroOptionsAreDefaults: the zero Options, a nil *Options and
// DefaultOptions give the same agent settings (the scale-free preset's);
// a zero field means its default and a set one is kept; zero is a value
// for the pointer fields; Visits' precision defaults to 1.
func TestZeroOptionsAreDefaults(t *testing.T) {
	if d := cmp.Diff(btai.DefaultOptions(), btai.Options{}.Resolved()); d != "" {
		t.Errorf("zero options (-default +zero):\n%s", d)
	}
	if d := cmp.Diff(btai.PresetScaleFree(), btai.DefaultOptions()); d != "" {
		t.Errorf("scale-free preset (-preset +default):\n%s", d)
	}
	r := btai.Options{Iterations: 7, Exploration: ptr(0), ActionPrecision: ptr(0), Window: btai.WindowAll}.Resolved()
	if r.Iterations != 7 || *r.Exploration != 0 || *r.ActionPrecision != 0 || r.Window != btai.WindowAll || r.VMPIterations != btai.DefaultVMPIterations {
		t.Errorf("resolved %+v", r)
	}
	if v := (btai.Options{ActionSelection: btai.Visits}).Resolved(); *v.ActionPrecision != btai.DefaultVisitsPrecision {
		t.Errorf("visits precision %v, want %v", *v.ActionPrecision, btai.DefaultVisitsPrecision)
	}
	if s := (btai.Options{}).Resolved(); *s.ActionPrecision != btai.DefaultSoftmaxPrecision || s.Selection != btai.NormalizedUCT || *s.Exploration != 0.5 || s.Iterations != 1000 || s.Window != 32 {
		t.Errorf("defaults %+v", s)
	}
	var zero btai.Options
	if err := zero.Validate(); err != nil {
		t.Errorf("the zero options: %v", err)
	}
}

// TestTrialStepsDepthLimit: with Options.TrialSteps = 3 on 1.maze (5
// actions), the plan at t = 0 grows the full tree to depth 3 and stops: 1
// + 5 + 25 = 31 expansions, 1 + 5 + 25 + 125 = 156 nodes, no node deeper
// than 3 and none at depth 3 expanded, whatever the iterations left (1,000
// asked); after one step (t = 1) the limit is 2 (1 + 5 + 25 = 31 nodes),
// and at t >= 3 it is 1 (6 nodes). Without it the same plan goes deeper
// than 3. Every selection rule respects the limit.
func TestTrialStepsDepthLimit(t *testing.T) {
	mz, p := mazeModel(t, "1.maze")
	ctx := context.Background()
	for _, preset := range []string{btai.PresetScaleFreeName, btai.PresetPaperName, btai.PresetHPName} {
		o, err := btai.PresetByName(preset)
		if err != nil {
			t.Fatal(err)
		}
		o.Iterations, o.TrialSteps = 1000, 3
		ag, err := btai.NewAgent(p, &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Reset(ctx, mz.Reset()); err != nil {
			t.Fatal(err)
		}
		for step, want := range []int{156, 31, 6, 6} {
			if err := ag.Plan(ctx); err != nil {
				t.Fatal(err)
			}
			tr := ag.Tree()
			limit := max(3-step, 1)
			if got := len(tr.Nodes); got != want || !tr.Exhausted() || tr.DepthLimit() != limit {
				t.Errorf("%s, t = %d: %d nodes (exhausted %v, limit %d), want %d nodes, exhausted, limit %d", preset, step, got, tr.Exhausted(), tr.DepthLimit(), want, limit)
			}
			for i, n := range tr.Nodes {
				if n.Depth > limit || (n.Depth == limit && !n.Leaf()) {
					t.Fatalf("%s, t = %d: node %d at depth %d (leaf %v) under the limit %d", preset, step, i, n.Depth, n.Leaf(), limit)
				}
			}
			// Iterate on the exhausted tree does nothing.
			if err := ag.Iterate(ctx); err != nil || len(tr.Nodes) != want {
				t.Errorf("%s: Iterate on an exhausted tree: %v, %d nodes", preset, err, len(tr.Nodes))
			}
			if err := ag.Step(ctx, 4, mz.Reset()); err != nil { // stay put: IDLE
				t.Fatal(err)
			}
		}
	}
	// Without the limit the search goes deeper than 3.
	o := btai.DefaultOptions()
	ag, err := btai.NewAgent(p, &o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Reset(ctx, mz.Reset()); err != nil {
		t.Fatal(err)
	}
	if err := ag.Plan(ctx); err != nil {
		t.Fatal(err)
	}
	deep := 0
	for _, n := range ag.Tree().Nodes {
		deep = max(deep, n.Depth)
	}
	if deep <= 3 || ag.Tree().Exhausted() {
		t.Errorf("without TrialSteps: deepest node %d (exhausted %v), want deeper than 3", deep, ag.Tree().Exhausted())
	}
	bad := btai.Options{TrialSteps: -1}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "trial steps") {
		t.Errorf("TrialSteps -1: %v, want an error naming trial steps", err)
	}
}

// TestTrialStepsEffect measures Options.TrialSteps (the planning depth
// tied to the steps left) against the defaults, for the table of
// docs/btai.md, "Planning to the end of the trial". It runs only when
// BTAI_TRIAL_STEPS is set (to the number of fresh trials per task, e.g.
// 200): the short epistemic tasks of TestEpistemicTasks with TrialSteps =
// the task's steps, the T-maze with 4 moves per trial (TrialSteps 4), and
// the mazes 1, 2, 5, 6 and 13 (20 seeds, TrialSteps = the step limit 2 ×
// shortest + 5), with milliseconds per action.
func TestTrialStepsEffect(t *testing.T) {
	s := os.Getenv("BTAI_TRIAL_STEPS")
	if s == "" {
		t.Skip("set BTAI_TRIAL_STEPS to the number of trials")
	}
	trials, err := strconv.Atoi(s)
	if err != nil || trials < 1 {
		t.Fatalf("BTAI_TRIAL_STEPS=%q", s)
	}
	tasks := append([]epistemicTask(nil), epistemicTasks...)
	tm := epistemicTasks[0]
	tm.Name, tm.Steps = "t-maze, 4 moves", 4
	tasks = append(tasks, tm)
	for _, task := range tasks {
		m, err := pomdp.Load(task.File)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{0, task.Steps} {
			o := btai.DefaultOptions()
			o.TrialSteps = limit
			start := time.Now()
			rate := taskRate(t, task, m, trials, func() (agent.Agent, error) { return btai.NewAgent(m, &o, nil) })
			ms := time.Since(start).Seconds() * 1e3 / float64(trials*task.Steps) * float64(runtime.GOMAXPROCS(0))
			t.Logf("%s, trial steps %d: rate %.3f, %.2f ms per action (%d trials)", task.Name, limit, rate, ms, trials)
		}
	}
	for _, name := range []string{"1.maze", "2.maze", "5.maze", "6.maze", "13.maze"} {
		steps := 2*shortest(t, name) + 5
		for _, limit := range []int{0, steps} {
			o := btai.DefaultOptions()
			o.TrialSteps = limit
			start := time.Now()
			r := runMaze(t, name, &o, 20, steps)
			t.Logf("%s, trial steps %d: %d/%d solved, mean steps %.1f, %.1f s", name, limit, r.solved, r.seeds, r.meanSteps, time.Since(start).Seconds())
		}
	}
}

// A trial of 2 actions on 1.maze (5 actions): with TrialSteps the first
// plan grows the full tree of depth 2 (1 + 5 expansions, 5 + 25 nodes
// below the root) and stops there, well before its 1,000 iterations; the
// second, with one step left, expands the root only.
func ExampleOptions_trialSteps() {
	mz, err := envs.LoadMaze("../examples/mazes/1.maze")
	if err != nil {
		panic(err)
	}
	m, err := mz.POMDP(envs.DefaultNoise, envs.DefaultPrefPrecision)
	if err != nil {
		panic(err)
	}
	o := btai.DefaultOptions()
	o.TrialSteps = 2
	ag, err := btai.NewAgent(m, &o, nil)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	obs := mz.Reset()
	if err := ag.Reset(ctx, obs); err != nil {
		panic(err)
	}
	for range 2 {
		if err := ag.Plan(ctx); err != nil {
			panic(err)
		}
		tr := ag.Tree()
		fmt.Printf("t = %d: depth limit %d, %d nodes, complete %v\n", ag.Time(), tr.DepthLimit(), len(tr.Nodes), tr.Exhausted())
		u, err := ag.SelectAction()
		if err != nil {
			panic(err)
		}
		if obs, err = mz.Step(u); err != nil {
			panic(err)
		}
		if err := ag.Step(ctx, u, obs); err != nil {
			panic(err)
		}
	}
	// Output:
	// t = 0: depth limit 2, 31 nodes, complete true
	// t = 1: depth limit 1, 6 nodes, complete true
}

// TestTreeDepthLimitPanics pins the programming errors that the doc
// comments of Tree.SetDepthLimit and Tree.Select name: a limit set on a
// tree without a root or with more than its root, and a selection on an
// exhausted tree; a negative limit means none.
func TestTreeDepthLimitPanics(t *testing.T) {
	panics := func(name, want string, f func()) {
		t.Helper()
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), want) {
				t.Errorf("%s: panic %v, want one containing %q", name, r, want)
			}
		}()
		f()
	}
	var empty btai.Tree
	panics("SetDepthLimit before Reset", "btai: Tree.SetDepthLimit", func() { empty.SetDepthLimit(2) })
	var tr btai.Tree
	tr.Reset(2, nil)
	tr.AddChildren(0, []float64{1, 2})
	panics("SetDepthLimit on a grown tree", "btai: Tree.SetDepthLimit on a tree of 3 nodes", func() { tr.SetDepthLimit(2) })
	tr.Reset(2, nil)
	tr.SetDepthLimit(-3)
	if tr.DepthLimit() != 0 || tr.Exhausted() {
		t.Errorf("limit -3: DepthLimit %d, exhausted %v; want no limit", tr.DepthLimit(), tr.Exhausted())
	}
	tr.Reset(2, nil)
	tr.SetDepthLimit(1)
	k := tr.Select(0.5, btai.NormalizedUCT)
	tr.AddChildren(k, []float64{1, 2})
	tr.Propagate(k, btai.MinBackward)
	if !tr.Exhausted() {
		t.Fatal("a root expanded under limit 1 is not exhausted")
	}
	panics("Select on an exhausted tree", "btai: Tree.Select: the depth-limited tree has nothing left to expand", func() { tr.Select(0.5, btai.NormalizedUCT) })
}
