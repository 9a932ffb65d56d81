package btai_test

import (
	"testing"

	"github.com/arbor-ai/arbor/btai"
)

// TestUCT3MFRootVisit: with the root counting one visit of its own, the
// root's ln n is ln 3 instead of ln 2 after two expansions. Root children:
// child 1 (cost 1, expanded once with least child cost 1: average 1, two
// visits), child 2 (cost 1.5, one visit). By hand, at C = 1.8,
// u1 - u2 = -1 + 1.8 sqrt(ln n / 2) - (-1.5 + 1.8 sqrt(ln n))
// = 0.5 - 1.8 (1 - 1/√2) sqrt(ln n), which is
// +0.061 at n = 2 (UCT keeps to child 1) and -0.053 at n = 3 (UCT3MF
// takes child 2).
func TestUCT3MFRootVisit(t *testing.T) {
	var tr btai.Tree
	tr.Reset(2, nil)
	tr.AddChildren(0, []float64{1, 1.5})
	tr.Propagate(0, btai.MinBackward)
	tr.AddChildren(1, []float64{1, 2})
	tr.Propagate(1, btai.MinBackward)
	if k := tr.Select(1.8, btai.UCT); k == 2 {
		t.Errorf("UCT selected node 2, want a child of node 1")
	}
	if k := tr.Select(1.8, btai.UCT3MF); k != 2 {
		t.Errorf("UCT3MF selected node %d, want 2", k)
	}
}

// TestMostVisitedFirst: on a tie of visits, MostVisitedFirst takes the
// first action, MostVisited the lower average cost.
func TestMostVisitedFirst(t *testing.T) {
	var tr btai.Tree
	tr.Reset(2, nil)
	tr.AddChildren(0, []float64{2, 1})
	tr.Propagate(0, btai.MinBackward)
	if a := tr.SelectAction(btai.MostVisitedFirst, 0, nil, nil); a != 0 {
		t.Errorf("MostVisitedFirst: %d, want 0", a)
	}
	if a := tr.SelectAction(btai.MostVisited, 0, nil, nil); a != 1 {
		t.Errorf("MostVisited: %d, want 1", a)
	}
	tr.AddChildren(2, []float64{1, 1})
	tr.Propagate(2, btai.MinBackward)
	if a := tr.SelectAction(btai.MostVisitedFirst, 0, nil, nil); a != 1 {
		t.Errorf("MostVisitedFirst after expanding action 1: %d, want 1", a)
	}
}
