package si_test

import (
	"context"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// splitNodes returns the beliefs one search from qs scores (nodes) and
// the sum of the beliefs scored by searches of one step less from each
// distinct posterior at its root's first level (split): what goroutines
// that took the first-level branches with a memo each would score, root
// aside; largest is the most one of those searches scores.
func splitNodes(t *testing.T, m *pomdp.Model, qs []float64, o si.Options) (nodes, split, largest int) {
	t.Helper()
	p, err := si.NewPlanner(m, &o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Plan(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := p.Tree()
	if err != nil {
		t.Fatal(err)
	}
	acts, err := tr.Actions(tr.Root())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	sub := o
	sub.Depth--
	for _, a := range acts {
		for _, oc := range a.Outcomes {
			if seen[oc.Next.ID()] {
				continue
			}
			seen[oc.Next.ID()] = true
			b, err := tr.Belief(oc.Next)
			if err != nil {
				t.Fatal(err)
			}
			r, err := si.Plan(context.Background(), m, b, &sub)
			if err != nil {
				t.Fatal(err)
			}
			split += r.Nodes
			largest = max(largest, r.Nodes)
		}
	}
	return res.Nodes, split, largest
}

// TestFirstLevelSplitDuplicates measures why one search is not split among
// goroutines by its first-level branches: the branches share most of their
// beliefs through the memo, so searched apart (a memo each) they score
// 1.9 to 3 times the beliefs of the whole search (maze at depth 10: 39
// against 21; T-maze at depths 4, 6, 8: 66 against 22, 116 against 46, 226
// against 98), and the largest branch alone scores 0.7 to 0.95 times as
// many as the whole search (20, 17, 34 and 72): two goroutines would each
// score about as much as one goroutine does alone. The counts are the
// searches' own (Result.Nodes), each search from a new planner.
func TestFirstLevelSplitDuplicates(t *testing.T) {
	m, qs := mazeRoot(t)
	tm, err := pomdp.Load(siTMaze)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name                  string
		m                     *pomdp.Model
		qs                    []float64
		o                     si.Options
		nodes, split, largest int
	}{
		{"maze, depth 10", m, qs, *mazeOptions(10), 21, 39, 20},
		{"T-maze, depth 4", tm, []float64{1, 0, 0, 0, 0.5, 0.5}, si.Options{Depth: 4, Gamma: 3}, 22, 66, 17},
		{"T-maze, depth 6", tm, []float64{1, 0, 0, 0, 0.5, 0.5}, si.Options{Depth: 6, Gamma: 3}, 46, 116, 34},
		{"T-maze, depth 8", tm, []float64{1, 0, 0, 0, 0.5, 0.5}, si.Options{Depth: 8, Gamma: 3}, 98, 226, 72},
	} {
		nodes, split, largest := splitNodes(t, c.m, c.qs, c.o)
		t.Logf("%s: %d beliefs in one search, %d in its first-level branches searched apart (%.2f times; the largest branch %d)", c.name, nodes, split, float64(split)/float64(nodes), largest)
		if nodes != c.nodes || split != c.split || largest != c.largest {
			t.Errorf("%s: %d, %d and %d beliefs, want %d, %d and %d", c.name, nodes, split, largest, c.nodes, c.split, c.largest)
		}
	}
}
