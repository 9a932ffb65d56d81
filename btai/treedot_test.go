package btai_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

// tiger is the model that names the actions of the trees of three
// actions: listen, open-left, open-right.
func tiger(t testing.TB) *pomdp.Model {
	t.Helper()
	m, err := pomdp.Load("../examples/pomdp/tiger.json")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// writeDOT returns the figure of tr with opts.
func writeDOT(t *testing.T, tr *btai.Tree, now int, opts *btai.TreeDOTOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := tr.WriteDOT(&b, tiger(t), now, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// boldChild returns the action of the root's child drawn bold in a tree
// figure (-1: none).
func boldChild(t *testing.T, tr *btai.Tree, now int) int {
	t.Helper()
	text := writeDOT(t, tr, now, nil)
	// A root child is labelled S_(u+1); the bold one has a pen width.
	for u := range tr.NumActions {
		if regexp.MustCompile(fmt.Sprintf(`S<SUB>\(%d\)</SUB>[^\n]*penwidth`, u+1)).MatchString(text) {
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
	tr := tree3(btai.MinBackward)
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
		if got := boldChild(t, tr, now); got != now {
			t.Errorf("%v: bold child %d, the agent takes %d", rule, got, now)
		}
	}
	if got := boldChild(t, tr, -1); got != -1 {
		t.Errorf("no action: bold child %d", got)
	}
}

// nodeLabels returns the multi-indices of the nodes of a figure, in the
// order of the DOT text (the order of the tree's nodes).
func nodeLabels(text string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`label=<S<SUB>([^<]*)</SUB>`).FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestWriteDOTTop: the K most visited children of each node are drawn,
// ties broken as MostVisited breaks them (the lower average cost, then the
// lower action): of the root's children, (2) has 2 visits, (1) and (3)
// one each at average costs 2 and 3, and of (2)'s, the costs 4, 0.5, 6
// rank (2,2) first. The note says how many nodes were left out and with
// what view, through Note when given.
func TestWriteDOTTop(t *testing.T) {
	tr := tree3(btai.MinBackward) // children: 1 visit each, costs 2, 1, 3
	c := tr.Child(0, 1)
	tr.AddChildren(c, []float64{4, 0.5, 6})
	tr.Propagate(c, btai.MinBackward) // child 1: 2 visits
	for _, tc := range []struct {
		top   int
		nodes []string
		note  string
	}{
		{1, []string{"t", "(2)", "(2,2)"}, "4 more nodes not drawn (top 1)"},
		{2, []string{"t", "(1)", "(2)", "(2,1)", "(2,2)"}, "2 more nodes not drawn (top 2)"},
		{3, []string{"t", "(1)", "(2)", "(3)", "(2,1)", "(2,2)", "(2,3)"}, ""},
	} {
		opts := &btai.TreeDOTOptions{Top: tc.top}
		text := writeDOT(t, tr, 1, opts)
		if got := nodeLabels(text); strings.Join(got, " ") != strings.Join(tc.nodes, " ") {
			t.Errorf("top %d: nodes %v, want %v", tc.top, got, tc.nodes)
		}
		if n := tr.DOTNodes(opts); n != len(tc.nodes) {
			t.Errorf("top %d: DOTNodes %d, want %d", tc.top, n, len(tc.nodes))
		}
		if tc.note == "" && strings.Contains(text, "not drawn") || tc.note != "" && !strings.Contains(text, `label="`+tc.note+`"`) {
			t.Errorf("top %d: want note %q:\n%s", tc.top, tc.note, text)
		}
	}
	var got []int
	opts := &btai.TreeDOTOptions{Depth: 1, Top: 2, Note: func(left, depth, top int) string {
		got = []int{left, depth, top}
		return "left out: " + fmt.Sprint(left)
	}}
	if text := writeDOT(t, tr, -1, opts); !strings.Contains(text, `label="left out: 4"`) || fmt.Sprint(got) != "[4 1 2]" || strings.Contains(text, "penwidth") {
		t.Errorf("Note called with %v:\n%s", got, text)
	}
}

// TestWriteDOTFitsPage: without a view, a tree that fits the page is drawn
// whole; a wider one (20 children of the root, 20 of its first) is drawn
// as the view that fits, with at most 13 nodes on a level, named to Note.
func TestWriteDOTFitsPage(t *testing.T) {
	tr := tree3(btai.MinBackward)
	if text := writeDOT(t, tr, -1, nil); strings.Contains(text, "not drawn") || tr.DOTNodes(nil) != 4 {
		t.Errorf("a small tree not drawn whole:\n%s", text)
	}
	var wide btai.Tree
	wide.Reset(20, nil)
	costs := make([]float64, 20)
	for i := range costs {
		costs[i] = float64(i)
	}
	wide.AddChildren(0, costs)
	wide.Propagate(0, btai.MinBackward)
	wide.AddChildren(wide.Child(0, 0), costs)
	wide.Propagate(wide.Child(0, 0), btai.MinBackward)
	var view []int
	var b bytes.Buffer
	// A model of 20 actions (one state, one outcome) names them.
	controls, b20 := make([]string, 20), make([]float64, 20)
	for i := range controls {
		controls[i], b20[i] = fmt.Sprint("u", i), 1
	}
	m, err := pomdp.NewFactorised(pomdp.FactorisedSpec{
		Factors:    []pomdp.Factor{{Name: "s", NumStates: 1, Controls: controls, NumControls: 20, B: b20, D: []float64{1}}},
		Modalities: []pomdp.Modality{{Name: "o", NumOutcomes: 1, DependsOn: []string{"s"}, A: []float64{1}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	err = wide.WriteDOT(&b, m, -1, &btai.TreeDOTOptions{Note: func(left, depth, top int) string {
		view = []int{left, depth, top}
		return "note"
	}})
	if err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.Contains(text, `label="u2"`) {
		t.Errorf("no action named u2:\n%s", text)
	}
	// Levels by the number of commas in the multi-index.
	level := map[int]int{}
	for _, l := range nodeLabels(text) {
		level[strings.Count(l, ",")]++
	}
	if len(view) != 3 || view[2] == 0 || level[0] > 13 || level[1] > 13 {
		t.Errorf("view %v, nodes per level %v: want a top-K view within 13 a level", view, level)
	}
	if n := len(nodeLabels(text)); n != wide.DOTNodes(nil) || n+view[0] != 41 {
		t.Errorf("%d nodes drawn, DOTNodes %d, %d left out; want 41 in all", n, wide.DOTNodes(nil), view[0])
	}
}

// TestWriteDOTMisuse: programming errors panic naming the method.
func TestWriteDOTMisuse(t *testing.T) {
	m := tiger(t)
	tr := tree3(btai.MinBackward)
	for _, c := range []struct {
		name string
		f    func()
		want string
	}{
		{"no root", func() { new(btai.Tree).WriteDOT(&bytes.Buffer{}, m, -1, nil) }, "btai: Tree.WriteDOT: node 0 of a tree without a root (call Reset)"},
		{"nil model", func() { tr.WriteDOT(&bytes.Buffer{}, nil, -1, nil) }, "btai: Tree.WriteDOT: nil model"},
		{"action", func() { tr.WriteDOT(&bytes.Buffer{}, m, 3, nil) }, "btai: Tree.WriteDOT: action 3 out of range [-1, 3)"},
		{"depth", func() { tr.DOTNodes(&btai.TreeDOTOptions{Depth: -1}) }, "btai: Tree.DOTNodes: Depth -1, Top 0, want >= 0"},
	} {
		func() {
			defer func() {
				if r := recover(); fmt.Sprint(r) != c.want {
					t.Errorf("%s: panic %v, want %q", c.name, r, c.want)
				}
			}()
			c.f()
		}()
	}
}
