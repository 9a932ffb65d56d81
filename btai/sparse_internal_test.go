package btai

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSparseStart: the start of local VMP over split probabilities, Ā (B̄_u
// Q(S_parent)) (the form of models above sparseStartStates states), gives
// the posteriors and costs of the dense start (Ā B̄_u) Q(S_parent) to
// 1e-12, on 1.maze, 2.maze and 13.maze with the threshold lowered to 0:
// every node of a 300-iteration plan of the dense agent, from its parent's
// posterior, for every action. The sums are associated differently, so
// the numbers agree to rounding, not bit for bit.
func TestSparseStart(t *testing.T) {
	worst := 0.0
	for _, name := range []string{"1.maze", "2.maze", "13.maze"} {
		mz, m := mazeInternal(t, name)
		o := DefaultOptions()
		o.Iterations = 300
		dense, err := NewAgent(m, &o, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		sparse, err := NewAgent(m, &o, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		sparse.sparseStartStates = 0
		ctx := context.Background()
		for _, ag := range []*Agent{dense, sparse} {
			if err := ag.Reset(ctx, mz.Reset()); err != nil {
				t.Fatal(err)
			}
			if err := ag.Plan(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if dense.sparseStart || !sparse.sparseStart || sparse.abT != nil {
			t.Fatalf("%s: sparse start %v (dense agent), %v (sparse agent)", name, dense.sparseStart, sparse.sparseStart)
		}
		tr := dense.Tree()
		for k := range tr.Nodes {
			if tr.Nodes[k].Leaf() {
				continue
			}
			qp := append([]float64(nil), tr.Nodes[k].S.Probs()...)
			for u := range dense.nu {
				if err := dense.infer(&dense.sc, qp, u); err != nil {
					t.Fatal(err)
				}
				if err := sparse.infer(&sparse.sc, qp, u); err != nil {
					t.Fatal(err)
				}
				for i := range dense.sc.qs {
					worst = math.Max(worst, math.Abs(dense.sc.qs[i]-sparse.sc.qs[i]))
				}
				for i := range dense.sc.qo {
					worst = math.Max(worst, math.Abs(dense.sc.qo[i]-sparse.sc.qo[i]))
				}
				worst = math.Max(worst, math.Abs(dense.cost(&dense.sc, dense.sc.qs, dense.sc.qo)-sparse.cost(&sparse.sc, sparse.sc.qs, sparse.sc.qo)))
			}
		}
	}
	t.Logf("largest difference of a posterior or cost: %.3g", worst)
	if worst > 1e-12 {
		t.Errorf("sparse start differs from the dense one by %g, want <= 1e-12", worst)
	}
}

// TestSparseStartAt1024: the open 34 × 34 maze (1,024 states, split
// columns of one entry) plans with the sparse start, which made its
// planning 1.75 times faster with the same actions (docs/benchmarks.md);
// a maze of fewer states keeps the dense products.
func TestSparseStartAt1024(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1,024-state model (42 MB of transitions)")
	}
	for _, c := range []struct {
		n      int
		sparse bool
	}{{34, true}, {33, false}} {
		ag := openMazeAgent(t, c.n, 5)
		if ag.sparseStart != c.sparse {
			t.Errorf("%d states: sparse start %v, want %v", ag.ns, ag.sparseStart, c.sparse)
		}
	}
}

// OpenMazeText is an n×n maze file with a free interior of (n-2)² states,
// S in the bottom left corner and E in the top right one.
func OpenMazeText(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %d\n%s\n", n, n, strings.Repeat("W", n))
	for r := 1; r < n-1; r++ {
		row := []byte("W" + strings.Repeat(".", n-2) + "W")
		if r == n-2 {
			row[1] = 'S'
		}
		if r == 1 {
			row[n-2] = 'E'
		}
		b.Write(row)
		b.WriteByte('\n')
	}
	b.WriteString(strings.Repeat("W", n) + "\n")
	return b.String()
}
