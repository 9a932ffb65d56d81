package si

import (
	"context"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// TestIndex: the open-addressed table finds what was put, through growth
// and colliding slots, and is empty after reset, also when the
// generations wrap around.
func TestIndex(t *testing.T) {
	var x index
	x.reset()
	const n = 1000
	for i := range n {
		// Keys that share their top bits (the slot) in pairs.
		x.put(uint64(i)<<1, int32(i))
		x.put(uint64(i)<<1|1, int32(-i))
	}
	for i := range n {
		if v, ok := x.get(uint64(i) << 1); !ok || v != int32(i) {
			t.Fatalf("key %d: %d, %v", i<<1, v, ok)
		}
		if v, ok := x.get(uint64(i)<<1 | 1); !ok || v != int32(-i) {
			t.Fatalf("key %d: %d, %v", i<<1|1, v, ok)
		}
	}
	if _, ok := x.get(2 * n); ok {
		t.Fatal("a key never put was found")
	}
	x.put(4, 7)
	if v, _ := x.get(4); v != 7 {
		t.Fatalf("key 4 set again: %d", v)
	}
	x.reset()
	if _, ok := x.get(4); ok || x.n != 0 {
		t.Fatal("found after reset")
	}
	x.cur = ^uint32(0) // the next reset wraps around
	x.put(9, 1)
	x.reset()
	if _, ok := x.get(9); ok {
		t.Fatal("found after the generations wrapped")
	}
	x.put(9, 2)
	if v, ok := x.get(9); !ok || v != 2 {
		t.Fatalf("after the wrap: %d, %v", v, ok)
	}
}

// TestNegativeZeroRoot: a root belief with entries −0 (which no posterior
// has, so that without one nodes are compared over their non-zero entries
// only) is a belief of its own bits: the posterior that returns to it
// with +0 is another node (22 nodes become 23, 96 branches 103, as when
// every node was compared entry by entry), and G is the same.
func TestNegativeZeroRoot(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/si-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	plus := []float64{1, 0, 0, 0, 0.5, 0.5}
	minus := []float64{1, math.Copysign(0, -1), math.Copysign(0, -1), 0, 0.5, 0.5}
	p, err := NewPlanner(m, &Options{Depth: 4, Gamma: 3})
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Plan(context.Background(), plus)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Plan(context.Background(), minus)
	if err != nil {
		t.Fatal(err)
	}
	if !p.negZero || a.Nodes != 22 || b.Nodes != 23 || a.Branches != 96 || b.Branches != 103 {
		t.Fatalf("−0 seen %v; nodes %d and %d, branches %d and %d", p.negZero, a.Nodes, b.Nodes, a.Branches, b.Branches)
	}
	for u := range a.G {
		if math.Float64bits(a.G[u]) != math.Float64bits(b.G[u]) || math.Float64bits(a.ActionProbs[u]) != math.Float64bits(b.ActionProbs[u]) {
			t.Errorf("action %d: G %v and %v, Q %v and %v", u, a.G[u], b.G[u], a.ActionProbs[u], b.ActionProbs[u])
		}
	}
}

// TestStepCacheFull: with the step cache kept empty (as when it is full,
// every prediction scored and, to branch, propagated again) the searches
// find the same results, bit for bit, on the maze, the T-maze and random
// models, joint and marginal, pruned and not.
func TestStepCacheFull(t *testing.T) {
	type search struct {
		m    *pomdp.Model
		q    []float64
		opts *Options
	}
	maze, err := pomdp.Load("../examples/pomdp/si-maze.json")
	if err != nil {
		t.Fatal(err)
	}
	tmaze, err := pomdp.Load("../examples/pomdp/si-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	start := make([]float64, maze.NumStates())
	start[17] = 1
	searches := []search{
		{maze, start, &Options{Depth: 10, Gamma: 1, PruneActions: 1.0 / 16, PruneOutcomes: 0.5}},
		{tmaze, []float64{1, 0, 0, 0, 0.5, 0.5}, &Options{Depth: 4, Gamma: 3}},
		{tmaze, []float64{0.25, 0.25, 0.25, 0.25, 0.3, 0.7}, &Options{Depth: 3, Gamma: 2, Branch: Marginal}},
		{tmaze, []float64{0.25, 0.25, 0.25, 0.25, 0.3, 0.7}, &Options{Depth: 3, Gamma: 2, PruneActions: 0.1, PruneRelative: true, PruneOutcomes: 0.1, MaxBranches: 2}},
	}
	for i, s := range searches {
		full, err := NewPlanner(s.m, s.opts)
		if err != nil {
			t.Fatal(err)
		}
		full.steps.factor = 0
		a, err := full.Plan(context.Background(), s.q)
		if err != nil {
			t.Fatal(err)
		}
		if len(full.steps.cost) != 0 {
			t.Fatalf("search %d: %d predictions kept, want none", i, len(full.steps.cost))
		}
		b, err := Plan(context.Background(), s.m, s.q, s.opts)
		if err != nil {
			t.Fatal(err)
		}
		if a.Nodes != b.Nodes || a.Branches != b.Branches || a.Reused != b.Reused || math.Float64bits(a.Value) != math.Float64bits(b.Value) {
			t.Errorf("search %d: %d nodes, %d branches, %d reused, value %v; with the cache %d, %d, %d, %v", i, a.Nodes, a.Branches, a.Reused, a.Value, b.Nodes, b.Branches, b.Reused, b.Value)
		}
		for u := range a.G {
			if math.Float64bits(a.G[u]) != math.Float64bits(b.G[u]) || math.Float64bits(a.Local[u]) != math.Float64bits(b.Local[u]) {
				t.Errorf("search %d, action %d: G %v, local %v; with the cache %v, %v", i, u, a.G[u], a.Local[u], b.G[u], b.Local[u])
			}
		}
	}
}
