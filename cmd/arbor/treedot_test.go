package main

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
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

// TestTreeFigureFitsPage: at their defaults, btai run --dot on 1.maze and
// btai plan --dot at 1,000 iterations (the tree --plot draws) lay out
// within 16 × 10 inches (dot -Tplain) without a Graphviz warning, with the
// note of the nodes left out; an explicit --dot-depth is kept.
func TestTreeFigureFitsPage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"run-maze", []string{"btai", "run", "--maze", "../../examples/mazes/1.maze", "--dot", dir + "/run.dot"}},
		{"plan-1000", []string{"btai", "plan", "--model", "../../examples/pomdp/tiger.json", "--obs", "0", "--iterations", "1000", "--dot", dir + "/plan.dot"}},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errb.String())
		}
		text, err := os.ReadFile(c.args[len(c.args)-1])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), "more nodes not drawn (--dot-depth ") {
			t.Errorf("%s: no note of the nodes left out", c.name)
		}
		w, h, warn := layoutOf(t, string(text))
		if w > 16 || h > 10 || warn != "" {
			t.Errorf("%s: %.2f × %.2f in, warnings %q; want within 16 × 10 and none", c.name, w, h, warn)
		}
		t.Logf("%s: %.2f × %.2f in", c.name, w, h)
	}
	var out, errb bytes.Buffer
	path := dir + "/deep.dot"
	if code := run([]string{"btai", "plan", "--model", "../../examples/pomdp/tiger.json", "--obs", "0", "--iterations", "200", "--dot", path, "--dot-depth", "5"}, &out, &errb); code != 0 {
		t.Fatalf("--dot-depth 5: exit %d: %s", code, errb.String())
	}
	if text, _ := os.ReadFile(path); !strings.Contains(string(text), "(--dot-depth 5)") {
		t.Errorf("--dot-depth 5 not kept: %s", text)
	}
}
