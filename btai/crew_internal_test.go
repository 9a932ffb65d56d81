package btai

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// crewCase is one agent configuration of TestCrewSameAsOne.
type crewCase struct {
	name  string
	opts  func() Options
	limit func(a *Agent) // lowers a threshold to reach another code path
}

// TestCrewSameAsOne: planning with the children of each iteration spread
// over 2 and 3 goroutines (SetJobs, the crew forced on at any speed) grows
// the same trees as one goroutine, bit for bit: every node's parent,
// action, depth, children, visits, cost and aggregated cost, after each of
// six decisions of an episode, and the same actions. The cases cover the
// presets (paper, hp, 3mf and the default), VMP with the dense and the
// sparse start, predictive inference, every cost, novelty, roll-outs
// (drawn from the agent's stream, on the calling goroutine) and the ring
// of recent posteriors instead of every node's.
func TestCrewSameAsOne(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one P: Plan plans on one goroutine whatever SetJobs says")
	}
	mz, m := mazeInternal(t, "2.maze")
	with := func(base func() Options, set func(*Options)) func() Options {
		return func() Options {
			o := base()
			set(&o)
			return o
		}
	}
	cases := []crewCase{
		{name: "default", opts: DefaultOptions},
		{name: "paper", opts: PresetPaper},
		{name: "hp", opts: PresetHP},
		{name: "3mf", opts: Preset3MF},
		{name: "sparse start", opts: DefaultOptions, limit: func(a *Agent) { a.sparseStartStates = 0 }},
		{name: "predictive", opts: with(DefaultOptions, func(o *Options) { o.Inference = Predictive })},
		{name: "pcost", opts: with(DefaultOptions, func(o *Options) { o.Cost = PCost })},
		{name: "feef", opts: with(DefaultOptions, func(o *Options) { o.Cost = FEEF })},
		{name: "novelty", opts: with(DefaultOptions, func(o *Options) { o.Novelty = true })},
		{name: "roll-outs", opts: with(DefaultOptions, func(o *Options) { o.Rollouts, o.RolloutLength = 2, 3 })},
		{name: "ring", opts: DefaultOptions, limit: func(a *Agent) { a.keepLimit, a.ringLimit = 0, 7*a.ns }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want []crewStep
			for _, jobs := range []int{1, 2, 3} {
				got := crewEpisode(t, m, mz, c, jobs)
				if jobs == 1 {
					want = got
					continue
				}
				compareCrewSteps(t, jobs, got, want)
			}
		})
	}
}

// crewStep is what one decision of crewEpisode planned and did.
type crewStep struct {
	nodes  []Node
	action int
	crew   bool
}

// crewEpisode runs six decisions on maze mz with the agent of case c on
// jobs goroutines, the crew started after the first iteration whatever
// its time (one crew, its goroutines started and stopped by each Plan).
func crewEpisode(t *testing.T, m *pomdp.Model, mz *envs.Maze, c crewCase, jobs int) []crewStep {
	t.Helper()
	o := c.opts()
	o.Iterations = 60
	a, err := NewAgent(m, &o, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if c.limit != nil {
		c.limit(a)
	}
	a.crewIteration, a.crewAlways = 0, true
	a.SetJobs(jobs)
	ctx := context.Background()
	obs := mz.Reset()
	if err := a.Reset(ctx, obs); err != nil {
		t.Fatal(err)
	}
	var steps []crewStep
	for range 6 {
		plans := 0
		if a.crew != nil {
			plans = a.crew.plans
		}
		if err := a.Plan(ctx); err != nil {
			t.Fatal(err)
		}
		u, err := a.SelectAction()
		if err != nil {
			t.Fatal(err)
		}
		nodes := make([]Node, len(a.tree.Nodes))
		for i, n := range a.tree.Nodes {
			n.S, n.O = nil, nil // graph variables: compared through the numbers
			nodes[i] = n
		}
		steps = append(steps, crewStep{nodes: nodes, action: u, crew: a.crew != nil && a.crew.plans == plans+1})
		if obs, err = mz.Step(u); err != nil {
			t.Fatal(err)
		}
		if err := a.Step(ctx, u, obs); err != nil {
			t.Fatal(err)
		}
	}
	return steps
}

func compareCrewSteps(t *testing.T, jobs int, got, want []crewStep) {
	t.Helper()
	for i := range want {
		g, w := got[i], want[i]
		if !g.crew {
			t.Fatalf("jobs %d, step %d: the crew did not plan", jobs, i)
		}
		if w.crew {
			t.Fatalf("jobs 1, step %d: a crew planned", i)
		}
		if g.action != w.action {
			t.Errorf("jobs %d, step %d: action %d, want %d", jobs, i, g.action, w.action)
		}
		if len(g.nodes) != len(w.nodes) {
			t.Fatalf("jobs %d, step %d: %d nodes, want %d", jobs, i, len(g.nodes), len(w.nodes))
		}
		for k := range w.nodes {
			gn, wn := g.nodes[k], w.nodes[k]
			if gn.Parent != wn.Parent || gn.Action != wn.Action || gn.Depth != wn.Depth || gn.FirstChild != wn.FirstChild || gn.Visits != wn.Visits ||
				math.Float64bits(gn.Local) != math.Float64bits(wn.Local) || math.Float64bits(gn.Aggregated) != math.Float64bits(wn.Aggregated) {
				t.Fatalf("jobs %d, step %d, node %d: %+v, want %+v", jobs, i, k, gn, wn)
			}
		}
	}
}

// TestCrewFirstError: when local inference fails for some children, the
// crew returns the error of the first failing action, as the loop on one
// goroutine does. A parent posterior with a NaN makes every child fail;
// the error names action 0.
func TestCrewFirstError(t *testing.T) {
	a := openMazeAgent(t, 6, 0)
	qk := make([]float64, a.ns)
	qk[0] = math.NaN()
	one := a.infer(&a.sc, qk, 0)
	if one == nil {
		t.Fatal("one goroutine: no error from a NaN parent")
	}
	a.SetJobs(3)
	a.startCrew(a.crewJobs())
	defer a.stopCrew()
	if err := a.crew.children(qk); err == nil || err.Error() != one.Error() {
		t.Fatalf("crew: error %v, want %v", err, one)
	}
	// The crew goes on after an error: the same children as one goroutine
	// from a valid parent.
	qk = a.tree.Nodes[0].S.Probs()
	if err := a.crew.children(qk); err != nil {
		t.Fatal(err)
	}
	for u := range a.nu {
		if err := a.infer(&a.sc, qk, u); err != nil {
			t.Fatal(err)
		}
		if c := a.cost(&a.sc, a.sc.qs, a.sc.qo); math.Float64bits(c) != math.Float64bits(a.costs[u]) {
			t.Errorf("action %d: crew cost %v, one goroutine %v", u, a.costs[u], c)
		}
		for s, q := range a.sc.qs {
			if math.Float64bits(q) != math.Float64bits(a.kids[u*a.ns+s]) {
				t.Fatalf("action %d, state %d: crew Q(S) %v, one goroutine %v", u, s, a.kids[u*a.ns+s], q)
			}
		}
	}
}

// TestCrewManyPlans: one agent's crew, started and stopped by each of 300
// short Plans with more goroutines than cores (GOMAXPROCS 4, SetJobs 4,
// so that the goroutines of one Plan are often not running when the next
// starts), plans what one goroutine plans every time.
func TestCrewManyPlans(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	mz, m := mazeInternal(t, "2.maze")
	o := DefaultOptions()
	o.Iterations = 8
	ctx := context.Background()
	var ags [2]*Agent
	for i := range ags {
		var err error
		if ags[i], err = NewAgent(m, &o, nil); err != nil {
			t.Fatal(err)
		}
		if err := ags[i].Reset(ctx, mz.Reset()); err != nil {
			t.Fatal(err)
		}
	}
	crew := ags[1]
	crew.crewIteration, crew.crewAlways = 0, true
	crew.SetJobs(4)
	for p := range 300 {
		for _, a := range ags {
			if err := a.Plan(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if crew.crew == nil || crew.crew.plans != p+1 {
			t.Fatalf("plan %d: the crew did not plan", p)
		}
		for k, w := range ags[0].tree.Nodes {
			g := crew.tree.Nodes[k]
			if math.Float64bits(g.Aggregated) != math.Float64bits(w.Aggregated) || g.Visits != w.Visits {
				t.Fatalf("plan %d, node %d: %v over %d visits, want %v over %d", p, k, g.Aggregated, g.Visits, w.Aggregated, w.Visits)
			}
		}
	}
}

// TestCrewPanic: a panic while a child is evaluated, on the calling
// goroutine or a mate, comes out of the caller (a mate's is raised again
// there, with its stack, unwrapping to the runtime error) instead of
// ending the process; the crew then stops, and the next start plans as
// before. A parent posterior shorter than the model's states makes every
// child index out of range; mates with buffers too short fail alone.
func TestCrewPanic(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one P: no mate")
	}
	a := openMazeAgent(t, 12, 10)
	a.SetJobs(2)
	for range 20 {
		func() {
			a.startCrew(a.crewJobs())
			defer a.stopCrew()
			defer func() {
				if r := recover(); r == nil {
					t.Fatal("children of a short parent: no panic")
				}
			}()
			_ = a.crew.children(make([]float64, 3))
		}()
	}
	// A mate's panic: only the mates' buffers are too short, and the
	// caller plans children until a mate has claimed one.
	qk := a.tree.Nodes[0].S.Probs()
	var fault any
	for try := 0; fault == nil && try < 20; try++ {
		func() {
			a.startCrew(a.crewJobs())
			defer a.stopCrew()
			defer func() { fault = recover() }()
			for _, m := range a.crew.mates {
				m.sc.base = m.sc.base[:1]
			}
			for range 200 {
				if err := a.crew.children(qk); err != nil {
					t.Fatal(err)
				}
			}
		}()
		for _, m := range a.crew.mates {
			m.sc = newScratch(a.ns, a.no, a.opts.Novelty)
		}
	}
	f, ok := fault.(*mateFault)
	if !ok {
		t.Fatalf("no mate's panic in 20 × 200 iterations (%v)", fault)
	}
	var re runtime.Error
	if !errors.As(f, &re) || !strings.Contains(f.Error(), "planning goroutine panicked") {
		t.Fatalf("mate's panic %v: want a runtime error, said as a planning goroutine's", f)
	}
	a.startCrew(a.crewJobs())
	defer a.stopCrew()
	if err := a.crew.children(a.tree.Nodes[0].S.Probs()); err != nil {
		t.Fatal(err)
	}
}

// TestCrewTune: before each iteration, tune says whether the crew takes
// it. Synthetic iteration times, set by that choice: 16 iterations with
// the crew, 16 without, then 32 blocks of 16 in the faster way, then both
// again. With the crew faster (1 ms against 2 ms an iteration) those 512
// use it; slower (3 ms against 2 ms) they do not. A block lasts at least
// crewBlockTime (0.1 ms iterations: 20 of them), runs on across Plans, and
// the time between two Plans counts for nothing.
func TestCrewTune(t *testing.T) {
	run := func(c *crew, now time.Time, calls int, with, alone time.Duration) ([]bool, time.Time) {
		var used []bool
		for range calls {
			c.tune(now)
			used = append(used, c.use)
			if c.rest.Load() == c.use {
				t.Fatalf("rest %v while use %v", c.rest.Load(), c.use)
			}
			if c.use {
				now = now.Add(with)
			} else {
				now = now.Add(alone)
			}
		}
		return used, now
	}
	// same reports whether used[lo:hi] are all want.
	same := func(used []bool, lo, hi int, want bool) bool {
		for _, u := range used[lo:hi] {
			if u != want {
				return false
			}
		}
		return true
	}
	newCrew := func() *crew {
		c := &crew{a: &Agent{}}
		c.choose()
		return c
	}
	for _, tc := range []struct {
		with, alone time.Duration
		keep        bool
	}{{time.Millisecond, 2 * time.Millisecond, true}, {3 * time.Millisecond, 2 * time.Millisecond, false}} {
		c := newCrew()
		// Call k decides iteration k; call 17 ends the first block (16
		// iterations counted from call 1), call 33 the second.
		used, _ := run(c, time.Unix(0, 0), 16+16+32*16+32, tc.with, tc.alone)
		if !same(used, 0, 16, true) || !same(used, 16, 32, false) || !same(used, 32, 544, tc.keep) ||
			!same(used, 544, 560, true) || !same(used, 560, 576, false) {
			t.Fatalf("crew %v, alone %v: used %v", tc.with, tc.alone, used)
		}
		if c.withCrew != tc.with || c.alone != tc.alone {
			t.Errorf("timed %v with the crew and %v alone, want %v and %v", c.withCrew, c.alone, tc.with, tc.alone)
		}
	}
	// Short iterations: 20 of 0.1 ms make the first block.
	c := newCrew()
	used, _ := run(c, time.Unix(0, 0), 40, 100*time.Microsecond, 100*time.Microsecond)
	if !same(used, 0, 20, true) || !same(used, 20, 40, false) {
		t.Fatalf("0.1 ms iterations: used %v", used)
	}
	// Plans shorter than a block: 4 calls of 1 ms each (3 iterations
	// counted), an hour apart (startCrew clears last); the block ends in
	// the sixth, after 16 iterations, and times 1 ms an iteration.
	c = newCrew()
	now := time.Unix(0, 0)
	for range 6 {
		c.last = time.Time{}
		_, now = run(c, now, 4, time.Millisecond, time.Millisecond)
		now = now.Add(time.Hour)
	}
	if c.phase != probeAlone || c.withCrew != time.Millisecond {
		t.Fatalf("after 6 short Plans: phase %d, %v an iteration with the crew; want phase %d, 1ms", c.phase, c.withCrew, probeAlone)
	}
}

// openMazeAgent returns an agent of the default options (iterations of
// them, 0: the default) on the open n × n maze, reset at its start and
// having planned once.
func openMazeAgent(t *testing.T, n, iterations int) *Agent {
	t.Helper()
	mz, err := envs.ParseMaze(strings.NewReader(OpenMazeText(n)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := mz.POMDP(envs.DefaultNoise, envs.DefaultPrefPrecision)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	if iterations > 0 {
		o.Iterations = iterations
	}
	a, err := NewAgent(m, &o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Reset(context.Background(), mz.Reset()); err != nil {
		t.Fatal(err)
	}
	if err := a.Plan(context.Background()); err != nil {
		t.Fatal(err)
	}
	return a
}
