package aci

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// TestFixedPolicyEqualsGraph: q(pi) at a fixed precision computed without
// a graph equals, bit for bit, the posterior of pi updated on the graph,
// with and without habits, for random G (some +Inf, and all +Inf); the
// agent's Graph then holds pi with that posterior.
func TestFixedPolicyEqualsGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	m := randPOMDP(t, rng, 3, 2, 3)
	for _, habits := range [][]float64{nil, {0.2, 0.5, 0.3}} {
		a, err := NewAgent(m, &AgentOptions{Horizon: 2, Gamma: 3, Habits: habits})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Reset(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		for trial := range 50 {
			plan := &Plan{NumPolicies: 9}
			for i := range 9 {
				plan.Policies = append(plan.Policies, RankedPolicy{Index: i, Policy: []int{i / 3, i % 3}})
			}
			G := make([]float64, 9)
			for i := range G {
				G[i] = rng.NormFloat64() * 10
				if trial%5 == 0 || (trial%3 == 0 && i%4 == 0) {
					G[i] = math.Inf(1)
				}
			}
			direct := *plan
			done, err := a.fixedPolicy(&direct, G)
			if !done || err != nil {
				t.Fatalf("fixedPolicy: %v, %v", done, err)
			}
			graph := *plan
			if err := a.inferPolicyGraph(context.Background(), &graph, G); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(direct.QPi, graph.QPi) || direct.GammaMean != graph.GammaMean {
				t.Fatalf("habits %v, G %v: q(pi) %v, the graph's %v", habits, G, direct.QPi, graph.QPi)
			}
			a.clearPolicy()
		}
		if _, err := a.Act(context.Background()); err != nil {
			t.Fatal(err)
		}
		if a.pi != nil || !a.piOut {
			t.Fatalf("after Act: pi in a graph %v, held outside %v", a.pi != nil, a.piOut)
		}
		pi, ok := a.Graph().Variable("pi")
		if !ok || !slices.Equal(pi.Probs(), a.LastPlan().QPi) {
			t.Errorf("habits %v: Graph's pi %v, want q(pi) %v", habits, ok, a.LastPlan().QPi)
		}
		// A new trial holds no pi until it acts, whether or not Graph
		// moved the last one.
		for _, ask := range []bool{false, true} {
			if _, err := a.Act(context.Background()); err != nil {
				t.Fatal(err)
			}
			if ask {
				a.Graph()
			}
			if err := a.Reset(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			if _, ok := a.Graph().Variable("pi"); ok || a.piOut {
				t.Errorf("habits %v, Graph before Reset %v: pi in the new trial's graph", habits, ask)
			}
		}
	}
}

// TestWalkReusesSiblings: the depth-first walk takes a sibling's step
// cost when its predicted belief is the same bit for bit (the T-maze's
// arms are absorbing), and every policy's G, risk and ambiguity are those
// of ExpectedFreeEnergy, which computes every step, bit for bit.
func TestWalkReusesSiblings(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	qs := make([]float64, m.NumStates())
	qs[0], qs[len(qs)-1], qs[len(qs)-2] = 1, 0.5, 0.5
	if err := pomdp.CheckBelief(m, "qs", qs); err != nil {
		t.Fatal(err)
	}
	const T = 3
	d := newDFS(m, qs, T, nil)
	if err := d.run(context.Background(), func(int, float64, float64, float64) {}); err != nil {
		t.Fatal(err)
	}
	if d.reused == 0 {
		t.Error("no step cost was reused on the T-maze")
	}
	ps, err := EvaluatePolicies(m, qs, T, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ps.G {
		g, r, a, err := ExpectedFreeEnergy(m, qs, ps.Policy(nil, i), nil)
		if err != nil {
			t.Fatal(err)
		}
		if g != ps.G[i] || r != ps.Risk[i] || a != ps.Ambiguity[i] {
			t.Errorf("policy %v: G %v risk %v ambiguity %v, computed step by step %v %v %v", ps.Policy(nil, i), ps.G[i], ps.Risk[i], ps.Ambiguity[i], g, r, a)
		}
	}
}
