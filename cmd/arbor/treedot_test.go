package main

import (
	"bytes"
	"fmt"
	"regexp"
	"testing"

	"github.com/arbor-ai/arbor/btai"
)

// boldChild returns the action of the root's child drawn bold in a tree
// figure (-1: none).
func boldChild(t *testing.T, tr *btai.Tree, now int) int {
	t.Helper()
	_, m, err := loadMazeModel(btaiData("1.maze"), 0.1, 3)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := writeTreeDOT(&b, tr, m, now, treeView{}); err != nil {
		t.Fatal(err)
	}
	// A root child is labelled S_(u+1); the bold one has a pen width.
	for u := range tr.NumActions {
		if regexp.MustCompile(fmt.Sprintf(`S<SUB>\(%d\)</SUB>[^\n]*penwidth`, u+1)).Match(b.Bytes()) {
			return u
		}
	}
	return -1
}

// TestTreeBoldIsTheActionTaken: the child drawn bold is the action the
// agent takes, also on a tie. The root's three children have one visit
// each (a tie in visits) and average costs 2, 1, 3: most-visited breaks
// the tie by the lower average cost, so it takes action 1, and so does
// the drawing (ties broken by action order would give action 0).
func TestTreeBoldIsTheActionTaken(t *testing.T) {
	var tr btai.Tree
	tr.Reset(3, nil)
	tr.AddChildren(0, []float64{2, 1, 3})
	tr.Propagate(0, btai.MinBackward)
	for _, rule := range []btai.ActionSelection{btai.MostVisited, btai.MinCost, btai.Softmax, btai.Visits} {
		now := tr.BestAction(rule)
		if rule.Deterministic() {
			if got := tr.SelectAction(rule, 0, nil, nil); got != now {
				t.Errorf("%v: BestAction %d, SelectAction %d", rule, now, got)
			}
		}
		if now != 1 {
			t.Errorf("%v: action %d, want 1 (the lower average cost on the tie)", rule, now)
		}
		if got := boldChild(t, &tr, now); got != now {
			t.Errorf("%v: bold child %d, the agent takes %d", rule, got, now)
		}
	}
	if got := boldChild(t, &tr, -1); got != -1 {
		t.Errorf("no action: bold child %d", got)
	}
}
