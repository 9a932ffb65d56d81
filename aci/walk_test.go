package aci

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// denseG is the expected free energy of policy from qs computed with the
// dense kernels pomdp.Propagate and pomdp.StepCost (every entry of A and
// B, math.Log): the reference that the compact tensors are checked against.
func denseG(m *pomdp.Model, qs []float64, policy []int) float64 {
	prev := append([]float64(nil), qs...)
	next := make([]float64, len(qs))
	g := 0.0
	for _, u := range policy {
		pomdp.Propagate(m, next, prev, u)
		r, a, _ := pomdp.StepCost(m, next, nil)
		g += r + a
		prev, next = next, prev
	}
	return g
}

// TestWalkJobsIdentical scores every policy of length 6 from the start of
// 1.maze (a walk cut into 125 chunks) on 1, 2 and 3 goroutines: G, the
// ranking and the action marginal are the same bit for bit, G is
// ExpectedFreeEnergy's, and both are the dense kernels' G within 1e-12.
func TestWalkJobsIdentical(t *testing.T) {
	m, qs := mazeStart(t)
	const T = 6
	if L := chunkDepth(m, T); L != 3 {
		t.Fatalf("chunkDepth = %d, want 3 (125 chunks)", L)
	}
	var ps0 *PolicySet
	var rk0 *Ranking
	for _, jobs := range []int{1, 2, 3} {
		opts := &EFEOptions{Jobs: jobs}
		ps, err := EvaluatePolicies(m, qs, T, opts)
		if err != nil {
			t.Fatal(err)
		}
		rk, err := TopPolicies(m, qs, T, 50, DefaultGamma, opts)
		if err != nil {
			t.Fatal(err)
		}
		if jobs == 1 {
			ps0, rk0 = ps, rk
			continue
		}
		for i := range ps.G {
			if math.Float64bits(ps.G[i]) != math.Float64bits(ps0.G[i]) {
				t.Fatalf("jobs %d: G[%d] = %v, jobs 1 %v", jobs, i, ps.G[i], ps0.G[i])
			}
		}
		for u := range rk.ActionProbs {
			if math.Float64bits(rk.ActionProbs[u]) != math.Float64bits(rk0.ActionProbs[u]) {
				t.Errorf("jobs %d: P(u=%d) = %v, jobs 1 %v", jobs, u, rk.ActionProbs[u], rk0.ActionProbs[u])
			}
		}
		for j := range rk.Best {
			a, b := rk.Best[j], rk0.Best[j]
			if a.Index != b.Index || a.G != b.G || a.QPi != b.QPi {
				t.Errorf("jobs %d: best %d = %d (G %v, q %v), jobs 1 %d (G %v, q %v)", jobs, j, a.Index, a.G, a.QPi, b.Index, b.G, b.QPi)
			}
		}
	}
	pol := make([]int, T)
	for i := 0; i < ps0.Len(); i += 97 {
		ps0.Policy(pol, i)
		g, _, _, err := ExpectedFreeEnergy(m, qs, pol, nil)
		if err != nil {
			t.Fatal(err)
		}
		if g != ps0.G[i] {
			t.Errorf("policy %d: G %v, ExpectedFreeEnergy %v", i, ps0.G[i], g)
		}
		if want := denseG(m, qs, pol); math.Abs(g-want) > 1e-12*math.Abs(want) {
			t.Errorf("policy %d: G %v, dense kernels %v", i, g, want)
		}
	}
}

// TestWalkAgreesWithDense checks the action marginal of TopPolicies at
// horizon 5 on 1.maze against the one from the dense kernels' G of every
// policy (denseG) and PolicySet's softmax: equal within 1e-12.
func TestWalkAgreesWithDense(t *testing.T) {
	m, qs := mazeStart(t)
	const T = 5
	ps := &PolicySet{NumActions: m.NumActions(), Horizon: T, G: make([]float64, 3125)}
	pol := make([]int, T)
	for i := range ps.G {
		ps.G[i] = denseG(m, qs, ps.Policy(pol, i))
	}
	qpi, err := ps.Posterior(nil, DefaultGamma)
	if err != nil {
		t.Fatal(err)
	}
	want := ps.ActionProbs(nil, qpi)
	rk, err := TopPolicies(m, qs, T, 1, DefaultGamma, &EFEOptions{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	for u, p := range rk.ActionProbs {
		if math.Abs(p-want[u]) > 1e-12*want[u]+1e-300 {
			t.Errorf("P(u=%d) = %v, dense %v", u, p, want[u])
		}
	}
}

// TestWalkCancelled stops a chunked walk with a done context on two
// goroutines: ctx's error (behind the package's prefix), and no result.
func TestWalkCancelled(t *testing.T) {
	m, qs := mazeStart(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := TopPoliciesContext(ctx, m, qs, 6, 5, DefaultGamma, &EFEOptions{Jobs: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestRankerAllocs: a ranker used again allocates nothing on one, two or
// three goroutines (a walk of 1.maze at horizon 6, in 125 chunks): its
// helpers start through spawn.Go, without a closure per plan.
func TestRankerAllocs(t *testing.T) {
	m, qs := mazeStart(t)
	ctx := context.Background()
	for jobs, want := range map[int]float64{1: 0, 2: 0, 3: 0} {
		var rk ranker
		got := testing.AllocsPerRun(3, func() {
			if _, err := rk.rank(ctx, m, qs, 6, 1024, DefaultGamma, nil, jobs); err != nil {
				t.Fatal(err)
			}
		})
		if got > want {
			t.Errorf("jobs %d: %v allocations per plan, want %v", jobs, got, want)
		}
	}
}

// TestAgentJobsIdentical: an agent's decision at horizon 6 on 1.maze (a
// chunked walk of 15,625 policies, 1,024 held by pi) is the same bit for
// bit with 1, 2 and 3 jobs, set by AgentOptions.Jobs or SetJobs.
func TestAgentJobsIdentical(t *testing.T) {
	m, _ := mazeStart(t)
	ctx := context.Background()
	var first []float64
	for _, jobs := range []int{1, 2, 3} {
		ag, err := NewAgent(m, &AgentOptions{Horizon: 6, Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		if jobs == 3 {
			ag.SetJobs(3)
		}
		if err := ag.Reset(ctx, 9); err != nil {
			t.Fatal(err)
		}
		if _, err := ag.Act(ctx); err != nil {
			t.Fatal(err)
		}
		p := ag.ActionProbs()
		if first == nil {
			first = p
			continue
		}
		for u := range p {
			if math.Float64bits(p[u]) != math.Float64bits(first[u]) {
				t.Errorf("jobs %d: P(u=%d) = %v, jobs 1 %v", jobs, u, p[u], first[u])
			}
		}
	}
	if _, err := NewAgent(m, &AgentOptions{Jobs: -1}); err == nil {
		t.Error("AgentOptions.Jobs -1 accepted")
	}
}
