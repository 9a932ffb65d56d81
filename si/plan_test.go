package si_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// TestDepthOneIsACI: at depth 1 the search scores one step, which is
// classic active inference at horizon 1: the same G (and risk, ambiguity,
// novelty) as aci.EvaluatePolicies to 1e-12, and Q = σ(−γ G) = aci's
// q_pi, on random models and on the T-maze, with and without novelty.
func TestDepthOneIsACI(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type tc struct {
		m       *pomdp.Model
		qs      []float64
		novelty bool
	}
	var cases []tc
	for trial := range 12 {
		m := randomModel(t, rng, 1+trial%2, 1+(trial/2)%2)
		cases = append(cases, tc{m, randomBelief(rng, m), false})
		// The same model learning A: concentrations a = 4 A + 1/2, so that
		// the novelty term is not zero.
		fs := m.FactorisedSpec()
		for i := range fs.Modalities {
			md := &fs.Modalities[i]
			md.ConcA = make([]float64, len(md.A))
			for k, x := range md.A {
				md.ConcA[k] = 4*x + 0.5
			}
			md.A = nil
		}
		ml, err := pomdp.NewFactorised(fs)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{ml, randomBelief(rng, ml), true})
	}
	m, qs := tmazeRoot(t)
	cases = append(cases, tc{m, qs, false})
	const gamma = 2.5 // any γ: the equality holds for all
	for i, c := range cases {
		res, err := si.Plan(context.Background(), c.m, c.qs, &si.Options{Depth: 1, Gamma: gamma, Novelty: c.novelty})
		if err != nil {
			t.Fatal(err)
		}
		ps, err := aci.EvaluatePolicies(c.m, c.qs, 1, &aci.EFEOptions{Novelty: c.novelty})
		if err != nil {
			t.Fatal(err)
		}
		qpi, err := ps.Posterior(nil, gamma)
		if err != nil {
			t.Fatal(err)
		}
		for u := range ps.G {
			d := math.Abs(res.G[u] - ps.G[u])
			d = math.Max(d, math.Abs(res.Risk[u]-ps.Risk[u]))
			d = math.Max(d, math.Abs(res.Ambiguity[u]-ps.Ambiguity[u]))
			d = math.Max(d, math.Abs(res.ActionProbs[u]-qpi[u]))
			if c.novelty {
				d = math.Max(d, math.Abs(res.Novelty[u]-ps.Novelty[u]))
			}
			if d > 1e-12 {
				t.Errorf("case %d, action %d: si G %.15g Q %.15g, aci G %.15g q_pi %.15g", i, u, res.G[u], res.ActionProbs[u], ps.G[u], qpi[u])
			}
		}
		if c.novelty {
			some := false
			for _, n := range res.Novelty {
				some = some || n != 0
			}
			if !some {
				t.Errorf("case %d: novelty is 0 for every action", i)
			}
		}
	}
}

// TestPruneActionsRules: at the T-maze's root (gamma 3) the one-step
// probabilities are 0.1835, 0.0036, 0.0036 and 0.8092 (centre, left,
// right, cue: aci at horizon 1). An absolute bound 0.2 (pymdp's rule)
// prunes all but the cue; the same x relative to the best (SPM's rule,
// 0.2 × 0.8092 = 0.162) keeps the centre too. A pruned action is not
// searched: G = +Inf, probability 0.
func TestPruneActionsRules(t *testing.T) {
	m, qs := tmazeRoot(t)
	for _, tc := range []struct {
		relative bool
		expanded []bool
	}{
		{false, []bool{false, false, false, true}},
		{true, []bool{true, false, false, true}},
	} {
		res, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 3, Gamma: 3, PruneActions: 0.2, PruneRelative: tc.relative})
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for u, want := range tc.expanded {
			if res.Expanded[u] != want {
				t.Errorf("relative %v: action %s expanded %v, want %v", tc.relative, m.ActionName(u), res.Expanded[u], want)
			}
			if !want && (!math.IsInf(res.G[u], 1) || res.ActionProbs[u] != 0) {
				t.Errorf("relative %v: pruned %s has G %v, Q %v; want +Inf and 0", tc.relative, m.ActionName(u), res.G[u], res.ActionProbs[u])
			}
			sum += res.ActionProbs[u]
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("relative %v: Q sums to %.15g", tc.relative, sum)
		}
	}
	// Every action below an absolute bound: the most probable is still
	// expanded (x = 0.9 is above every one-step probability).
	res, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 2, Gamma: 3, PruneActions: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Expanded[goCue] || res.ActionProbs[goCue] != 1 {
		t.Errorf("bound above every action: expanded %v, Q %v; want the cue alone", res.Expanded, res.ActionProbs)
	}
}

// TestPruneOutcomesApproximates: skipping improbable outcomes and
// renormalising the kept ones approximates the unpruned G. On the T-maze
// at depth 3, p = 0.1 removes what follows a first cue with probability
// below 0.1: the punishment in the arm the cue named (0.05, the cue's
// invalidity) and a second cue that contradicts the first (0.95 × 0.05 +
// 0.05 × 0.95 = 0.095). G moves by less than 5%, and the choice stays.
func TestPruneOutcomesApproximates(t *testing.T) {
	m, qs := tmazeRoot(t)
	full, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 3, Gamma: 3})
	if err != nil {
		t.Fatal(err)
	}
	pruned, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 3, Gamma: 3, PruneOutcomes: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if pruned.Branches >= full.Branches {
		t.Errorf("p = 0.1 kept %d branches, the full search %d", pruned.Branches, full.Branches)
	}
	for u := range full.G {
		if rel := math.Abs(pruned.G[u]-full.G[u]) / full.G[u]; rel > 0.05 {
			t.Errorf("action %s: G %.6f pruned, %.6f full (%.1f%%)", m.ActionName(u), pruned.G[u], full.G[u], 100*rel)
		}
	}
	if argmax(pruned.ActionProbs) != argmax(full.ActionProbs) {
		t.Errorf("pruning changed the choice: %v, full %v", pruned.ActionProbs, full.ActionProbs)
	}
}

// TestNodeBudget: past MaxNodes the search stops deepening and says so.
// The T-maze at depth 3 scores 16 beliefs (1 root, 6 after the first
// step, 9 more after the second); a budget of 5 (the least for 4 actions)
// completes depth 1 only, whose G is the depth-1 search's.
func TestNodeBudget(t *testing.T) {
	m, qs := tmazeRoot(t)
	full, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 3, Gamma: 3})
	if err != nil {
		t.Fatal(err)
	}
	if full.Truncated || full.Depth != 3 {
		t.Fatalf("default budget: truncated %v at depth %d", full.Truncated, full.Depth)
	}
	cut, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 3, Gamma: 3, MaxNodes: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !cut.Truncated || cut.Depth != 1 || cut.Nodes > 5 {
		t.Fatalf("MaxNodes 5: truncated %v, depth %d, %d nodes; want truncated at depth 1 within 5 nodes", cut.Truncated, cut.Depth, cut.Nodes)
	}
	one, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 1, Gamma: 3})
	if err != nil {
		t.Fatal(err)
	}
	for u := range one.G {
		if cut.G[u] != one.G[u] {
			t.Errorf("truncated G[%d] = %v, depth-1 G %v", u, cut.G[u], one.G[u])
		}
	}
	// A budget that completes depth 2 (7 beliefs) but not 3.
	mid, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 3, Gamma: 3, MaxNodes: full.Nodes - 1})
	if err != nil {
		t.Fatal(err)
	}
	if !mid.Truncated || mid.Depth != 2 {
		t.Errorf("MaxNodes %d: truncated %v at depth %d, want depth 2", full.Nodes-1, mid.Truncated, mid.Depth)
	}
}

// TestMaxBranches: a cap of one outcome per action keeps the most
// probable (the first on ties), renormalised, and counts the actions cut.
func TestMaxBranches(t *testing.T) {
	m, qs := tmazeRoot(t)
	res, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 2, Gamma: 3, MaxBranches: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Capped == 0 {
		t.Error("no action capped; the arms and the cue have two outcomes each")
	}
	// One branch per expanded action at the root: 4 branches.
	if res.Branches != 4 {
		t.Errorf("%d branches, want 4 (one per action)", res.Branches)
	}
}

// TestMemo: identical beliefs are scored once. In the maze every belief
// is certain of the position (the position is observed, B deterministic),
// so a search of any depth scores at most the 81 positions, far fewer than
// its tree.
func TestMemo(t *testing.T) {
	m, qs := mazeRoot(t)
	o := mazeOptions(10)
	res, err := si.Plan(context.Background(), m, qs, o)
	if err != nil {
		t.Fatal(err)
	}
	est, err := si.EstimatePlan(m, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Nodes > 81 || res.Reused == 0 || res.Truncated {
		t.Errorf("%d nodes, %d reused, truncated %v; want at most 81 nodes (the positions) and some reuse", res.Nodes, res.Reused, res.Truncated)
	}
	t.Logf("depth 10: %d nodes scored, %d values reused; the tree without sharing has %.0f", res.Nodes, res.Reused, est.TreeNodes)
}

// TestEstimate: the tree bound Σ_(d<D) (|U| k)^d with k = min(Π|O_m|,
// ⌊1/p⌋), and the actual node count never above it, nor above MaxNodes.
func TestEstimate(t *testing.T) {
	m, qs := tmazeRoot(t)
	// 4 actions; 5 × 3 = 15 joint outcomes, or ⌊1/0.3⌋ = 3 with p = 0.3.
	for _, tc := range []struct {
		o    si.Options
		tree float64
	}{
		{si.Options{Depth: 1}, 1},
		{si.Options{Depth: 2}, 1 + 4*15},
		{si.Options{Depth: 3}, 1 + 60 + 60*60},
		{si.Options{Depth: 3, PruneOutcomes: 0.3}, 1 + 12 + 12*12},
		{si.Options{Depth: 3, MaxBranches: 2}, 1 + 8 + 8*8},
	} {
		est, err := si.EstimatePlan(m, &tc.o)
		if err != nil {
			t.Fatal(err)
		}
		if est.TreeNodes != tc.tree || est.Nodes != tc.tree || est.MayTruncate || !(est.Seconds > 0) {
			t.Errorf("%+v: %+v, want %g tree nodes", tc.o, est, tc.tree)
		}
		res, err := si.Plan(context.Background(), m, qs, &tc.o)
		if err != nil {
			t.Fatal(err)
		}
		if float64(res.Nodes) > est.Nodes {
			t.Errorf("%+v: %d nodes scored, estimate %g", tc.o, res.Nodes, est.Nodes)
		}
	}
	// A budget of 100 below the tree's 1 + 60 + ... nodes.
	est, err := si.EstimatePlan(m, &si.Options{Depth: 5, MaxNodes: 100})
	if err != nil {
		t.Fatal(err)
	}
	if est.Nodes != 100 || !est.MayTruncate {
		t.Errorf("MaxNodes 100: %+v", est)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20 {
		m := randomModel(t, rng, 2, 2)
		o := &si.Options{Depth: 3, PruneOutcomes: 0.4 * rng.Float64(), Branch: si.Branching(rng.IntN(2))} // p in [0, 0.4)
		est, err := si.EstimatePlan(m, o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := si.Plan(context.Background(), m, randomBelief(rng, m), o)
		if err != nil {
			t.Fatal(err)
		}
		if float64(res.Nodes) > est.Nodes {
			t.Errorf("%+v: %d nodes scored, estimate %g", o, res.Nodes, est.Nodes)
		}
	}
}

// TestOptionErrors: bad options are errors that name the option.
func TestOptionErrors(t *testing.T) {
	m, qs := tmazeRoot(t)
	neg, zero, two := -1.0, 0.0, 2.0
	for _, tc := range []struct {
		o    si.Options
		want string
	}{
		{si.Options{Depth: -1}, "Options.Depth: -1, want 1..256"},
		{si.Options{Depth: si.MaxDepth + 1}, "Options.Depth"},
		{si.Options{Gamma: -1}, "Options.Gamma"},
		{si.Options{Gamma: math.NaN()}, "Options.Gamma"},
		{si.Options{Gamma: math.Inf(1)}, "Options.Gamma"},
		{si.Options{Branch: 7}, "Options.Branch"},
		{si.Options{PruneActions: 1}, "Options.PruneActions: 1, want a number in [0, 1)"},
		{si.Options{PruneActions: -0.1}, "Options.PruneActions"},
		{si.Options{PruneActions: math.NaN()}, "Options.PruneActions"},
		{si.Options{PruneOutcomes: 1.5}, "Options.PruneOutcomes: 1.5, want a number in [0, 1)"},
		{si.Options{PruneOutcomes: -1}, "Options.PruneOutcomes"},
		{si.Options{PruneRelative: true}, "Options.PruneRelative"},
		{si.Options{MaxBranches: -1}, "Options.MaxBranches"},
		{si.Options{MaxNodes: -1}, "Options.MaxNodes"},
		// 4 actions: one level needs the root and 4 children.
		{si.Options{MaxNodes: 4}, "Options.MaxNodes: 4, want >= 5"},
		{si.Options{Novelty: true}, "Options.Novelty"},
		{si.Options{ActionPrecision: &neg}, "Options.ActionPrecision"},
		{si.Options{Select: "best"}, "Options.Select"},
		{si.Options{LearningRate: &neg}, "Options.LearningRate"},
		{si.Options{Forgetting: &zero}, "Options.Forgetting"},
		{si.Options{Forgetting: &two}, "Options.Forgetting"},
	} {
		_, err := si.Plan(context.Background(), m, qs, &tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.o, err, tc.want)
		}
		if _, err := si.NewAgent(m, &tc.o); err == nil {
			t.Errorf("%+v: NewAgent accepted it", tc.o)
		}
		if _, err := si.EstimatePlan(m, &tc.o); err == nil {
			t.Errorf("%+v: EstimatePlan accepted it", tc.o)
		}
	}
	if _, err := si.Plan(context.Background(), m, qs[:3], nil); err == nil || !strings.Contains(err.Error(), "qs") {
		t.Errorf("short belief: %v", err)
	}
	if _, err := si.Plan(context.Background(), nil, qs, nil); err == nil {
		t.Error("nil model accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := si.Plan(ctx, m, qs, nil); err == nil {
		t.Error("done context: no error")
	}
}

// TestDefaults: a nil *Options and the zero Options are the documented
// defaults.
func TestDefaults(t *testing.T) {
	m, qs := tmazeRoot(t)
	a, err := si.Plan(context.Background(), m, qs, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: si.DefaultDepth, Gamma: si.DefaultGamma, MaxNodes: si.DefaultMaxNodes, MaxBranches: si.DefaultMaxBranches})
	if err != nil {
		t.Fatal(err)
	}
	if a.Depth != si.DefaultDepth {
		t.Errorf("depth %d, want %d", a.Depth, si.DefaultDepth)
	}
	for u := range a.G {
		if a.G[u] != b.G[u] {
			t.Errorf("G[%d]: nil options %v, explicit defaults %v", u, a.G[u], b.G[u])
		}
	}
	r := (*si.Options)(nil).Resolved()
	if r.Gamma != 1 || r.MaxNodes != 100_000 || r.MaxBranches != 4096 || r.Select != si.SelectArgmax || r.Branch != si.Joint {
		t.Errorf("resolved defaults %+v", r)
	}
	if br, err := si.ParseBranching("marginal"); err != nil || br != si.Marginal || br.String() != "marginal" {
		t.Errorf("ParseBranching(marginal) = %v, %v", br, err)
	}
	if _, err := si.ParseBranching("both"); err == nil {
		t.Error("ParseBranching(both) accepted")
	}
}

// TestPlannerReuse: a Planner gives the same result on every call, its
// tables reused.
func TestPlannerReuse(t *testing.T) {
	m, qs := tmazeRoot(t)
	p, err := si.NewPlanner(m, &si.Options{Depth: 3, Gamma: 3})
	if err != nil {
		t.Fatal(err)
	}
	first, err := p.Plan(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	other := []float64{0, 0, 0, 1, 0.95, 0.05} // at the cue after a cue-left (validity 0.95)
	if _, err := p.Plan(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	again, err := p.Plan(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	for u := range first.G {
		if first.G[u] != again.G[u] {
			t.Errorf("G[%d]: %v, then %v", u, first.G[u], again.G[u])
		}
	}
	if first.Nodes != again.Nodes {
		t.Errorf("nodes %d, then %d", first.Nodes, again.Nodes)
	}
}

// TestZeroPreference: a C with a zero makes G = +Inf for the actions that
// can reach that outcome; they get probability 0, and when every action
// can, they tie (aci's rule, docs/aci.md "Zeros in C").
func TestZeroPreference(t *testing.T) {
	fs := pomdp.FactorisedSpec{
		Factors:    []pomdp.Factor{{Name: "s", NumStates: 2, Controls: []string{"a", "b"}, B: []float64{1, 1, 0, 0, 0, 0, 1, 1}, D: []float64{0.5, 0.5}}},
		Modalities: []pomdp.Modality{{Name: "o", NumOutcomes: 2, DependsOn: []string{"s"}, A: []float64{1, 0, 0, 1}, C: []float64{1, 0}}},
	}
	m, err := pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := si.Plan(context.Background(), m, []float64{0.5, 0.5}, &si.Options{Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(res.G[1], 1) || res.ActionProbs[1] != 0 || res.ActionProbs[0] != 1 {
		t.Errorf("G %v, Q %v; want action b at +Inf with probability 0", res.G, res.ActionProbs)
	}
	fs.Modalities[0].C = []float64{0, 1}
	fs.Modalities[0].A = []float64{0.5, 0.5, 0.5, 0.5}
	m, err = pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	res, err = si.Plan(context.Background(), m, []float64{0.5, 0.5}, &si.Options{Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(res.G[0], 1) || !math.IsInf(res.G[1], 1) || res.ActionProbs[0] != 0.5 {
		t.Errorf("every action infinite: G %v, Q %v; want a tie", res.G, res.ActionProbs)
	}
}

// TestBranchBounds: after every expanded action the kept outcomes number
// at most ⌊1/p⌋ (each has probability p or more before renormalising) and
// at most MaxBranches, and their probabilities sum to 1.
func TestBranchBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	seen := 0
	for trial := range 30 {
		m := randomModel(t, rng, 1+trial%2, 2)
		// p in [0, 0.45) (⌊1/p⌋ from 2 up) and caps of 1 to 4 outcomes.
		o := &si.Options{Depth: 3, PruneOutcomes: 0.45 * rng.Float64(), MaxBranches: 1 + rng.IntN(4), Branch: si.Branching(trial % 2)}
		p, err := si.NewPlanner(m, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Plan(context.Background(), randomBelief(rng, m)); err != nil {
			t.Fatal(err)
		}
		most := o.MaxBranches
		if o.PruneOutcomes > 0 {
			most = min(most, int(math.Floor(1/o.PruneOutcomes)))
		}
		for _, probs := range p.Branches() {
			seen++
			sum := 0.0
			for _, x := range probs {
				sum += x
			}
			if len(probs) > most || len(probs) == 0 || math.Abs(sum-1) > 1e-12 {
				t.Errorf("%+v: branches %v, want 1 to %d summing to 1", o, probs, most)
			}
		}
	}
	if seen == 0 {
		t.Error("no branch checked")
	}
}
