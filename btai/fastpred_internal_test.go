package btai

import (
	"context"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/envs"
)

// TestFastPredMatchesDense: on dSprites at granularity 4 (a model the fast
// path takes), every node of a plan has, along the path from the root, the
// posteriors and classic cost that the dense prediction (pomdp.Propagate,
// pomdp.PredictObs, costFactorised without the fast path) gives, within
// 1e-12.
func TestFastPredMatchesDense(t *testing.T) {
	m, err := envs.DSpritesModel(4)
	if err != nil {
		t.Fatal(err)
	}
	o := Preset3MF()
	o.Iterations = 60
	a, err := NewAgent(m, &o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.fact.fast == nil {
		t.Fatal("the fast path does not apply to dSprites")
	}
	ctx := context.Background()
	obs := ((2*6+3)*40+7)*8*9 + 5*9 + 2 // heart, scale 3, orientation 7, x bin 5, y bin 2
	if err := a.Reset(ctx, obs); err != nil {
		t.Fatal(err)
	}
	if err := a.Plan(ctx); err != nil {
		t.Fatal(err)
	}
	fast := a.fact.fast
	dense := make([][]float64, len(a.tree.Nodes)) // Q(S) of every node, the dense way
	dense[0] = a.fact.root
	for k := 1; k < len(a.tree.Nodes); k++ {
		n := &a.tree.Nodes[k]
		a.fact.fast = nil
		if err := a.inferFactorised(&a.sc, dense[n.Parent], n.Action); err != nil {
			t.Fatal(err)
		}
		g := a.costFactorised(a.sc.qs, a.sc.qo)
		dense[k] = append([]float64(nil), a.sc.qs...)
		a.fact.fast = fast
		if math.Abs(g-n.Local) > 1e-12 {
			t.Fatalf("node %d (depth %d): cost %.15g, dense %.15g", k, n.Depth, n.Local, g)
		}
		qs, _, err := a.NodePosteriors(k)
		if err != nil {
			t.Fatal(err)
		}
		for s := range qs {
			if math.Abs(qs[s]-dense[k][s]) > 1e-12 {
				t.Fatalf("node %d: Q(S)[%d] %.15g, dense %.15g", k, s, qs[s], dense[k][s])
			}
		}
	}
}
