package btai_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/btai"
)

// tree3 builds a root with three children of local costs 2, 1, 3 and
// propagates with p.
func tree3(p btai.Propagation) *btai.Tree {
	t := &btai.Tree{}
	t.Reset(3, nil)
	t.AddChildren(0, []float64{2, 1, 3})
	t.Propagate(0, p)
	return t
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestPropagationMinBackward(t *testing.T) {
	tr := tree3(btai.MinBackward)
	// Root: G = 0 + min(2, 1, 3) = 1, n = 1. Children: G = g, n = 1.
	if r := tr.Nodes[0]; !near(r.Aggregated, 1) || r.Visits != 1 {
		t.Errorf("root after first expansion: %+v", r)
	}
	// Expand child 1 (cost 1) with grandchildren 4, 0.5, 6: its G becomes
	// 1 + 0.5 = 1.5 with n = 2 (average 0.75); the root gets 1 + 0.5 = 1.5
	// with n = 2.
	c := tr.Child(0, 1)
	tr.AddChildren(c, []float64{4, 0.5, 6})
	tr.Propagate(c, btai.MinBackward)
	if n := tr.Nodes[c]; !near(n.Aggregated, 1.5) || n.Visits != 2 || !near(n.Average(), 0.75) {
		t.Errorf("expanded child: %+v", n)
	}
	if r := tr.Nodes[0]; !near(r.Aggregated, 1.5) || r.Visits != 2 {
		t.Errorf("root: %+v", r)
	}
	if n := tr.Nodes[tr.Child(0, 0)]; !near(n.Aggregated, 2) || n.Visits != 1 {
		t.Errorf("sibling changed: %+v", n)
	}
}

func TestPropagationBackward(t *testing.T) {
	tr := tree3(btai.Backward)
	// Root: G = 2 + 1 + 3 = 6, n = 3 (one per new child).
	if r := tr.Nodes[0]; !near(r.Aggregated, 6) || r.Visits != 3 {
		t.Errorf("root: %+v", r)
	}
	c := tr.Child(0, 2)
	tr.AddChildren(c, []float64{1, 1, 1})
	tr.Propagate(c, btai.Backward)
	// Child 2: G = 3 + 3 = 6, n = 1 + 3 = 4 (average 1.5). Root: 6 + 3 = 9, n = 6.
	if n := tr.Nodes[c]; !near(n.Aggregated, 6) || n.Visits != 4 || !near(n.Average(), 1.5) {
		t.Errorf("child: %+v", n)
	}
	if r := tr.Nodes[0]; !near(r.Aggregated, 9) || r.Visits != 6 {
		t.Errorf("root: %+v", r)
	}
}

func TestPropagationForward(t *testing.T) {
	tr := tree3(btai.Forward)
	// Children of the root keep G = g; the root's visits go up by one.
	if n := tr.Nodes[tr.Child(0, 1)]; !near(n.Aggregated, 1) {
		t.Errorf("child: %+v", n)
	}
	c := tr.Child(0, 1)
	tr.AddChildren(c, []float64{4, 0.5, 6})
	tr.Propagate(c, btai.Forward)
	// Grandchildren: G = g + G_parent = 4 + 1, 0.5 + 1, 6 + 1.
	for a, want := range []float64{5, 1.5, 7} {
		if n := tr.Nodes[tr.Child(c, a)]; !near(n.Aggregated, want) {
			t.Errorf("grandchild %d: G = %v, want %v", a, n.Aggregated, want)
		}
	}
	if tr.Nodes[0].Visits != 2 || tr.Nodes[c].Visits != 2 {
		t.Errorf("visits root %d child %d, want 2 and 2", tr.Nodes[0].Visits, tr.Nodes[c].Visits)
	}
}

func TestSelectUnexploredFirst(t *testing.T) {
	tr := tree3(btai.MinBackward)
	// Every child is unexplored: the one with the lowest local cost (1, at
	// action 1) goes first, then 2 (action 0), then 3 (action 2).
	for _, want := range []int{1, 0, 2} {
		got := tr.Select(2, btai.UnexploredFirst)
		if got != tr.Child(0, want) {
			t.Fatalf("selected node %d, want child %d", got, want)
		}
		tr.AddChildren(got, []float64{5, 5, 5})
		tr.Propagate(got, btai.MinBackward)
	}
}

func TestSelectUCT(t *testing.T) {
	// Root with two explored children: after the three expansions below,
	// child 0 has G = 2 + 5 = 7, n = 2 (ḡ = 3.5) and child 1 has
	// G = 1 + 4 + 4 = 9, n = 3 (ḡ = 3); the root has n = 1 + 2 + ... see
	// below. UCT_J = -ḡ_J + c sqrt(ln n / n_J).
	tr := &btai.Tree{}
	tr.Reset(2, nil)
	tr.AddChildren(0, []float64{2, 1})
	tr.Propagate(0, btai.MinBackward) // root n = 1
	c0, c1 := tr.Child(0, 0), tr.Child(0, 1)
	tr.AddChildren(c0, []float64{5, 6})
	tr.Propagate(c0, btai.MinBackward) // c0: G 7, n 2; root n 2
	tr.AddChildren(c1, []float64{4, 9})
	tr.Propagate(c1, btai.MinBackward) // c1: G 5, n 2; root n 3
	g1 := tr.Child(c1, 0)
	tr.AddChildren(g1, []float64{4, 8})
	tr.Propagate(g1, btai.MinBackward) // c1: G 9, n 3; root n 4
	n := float64(tr.Nodes[0].Visits)
	if n != 4 {
		t.Fatalf("root visits %v, want 4", n)
	}
	// c = 0: pure exploitation, lowest ḡ wins: child 1 (3 < 3.5).
	// c = 2: UCT0 = -3.5 + 2 sqrt(ln 4 / 2) = -1.8349, UCT1 = -3 + 2 sqrt(ln 4 / 3) = -1.6405: child 1.
	// c = 10: UCT0 = -3.5 + 10 (0.8326) = 4.826, UCT1 = -3 + 10 (0.6798) = 3.798: child 0.
	for _, tc := range []struct {
		c    float64
		want int
	}{{0, c1}, {2, c1}, {10, c0}} {
		// Select descends to a leaf; check the first step by comparing the
		// leaf's top-level ancestor.
		leaf := tr.Select(tc.c, btai.UnexploredFirst)
		for tr.Nodes[leaf].Parent != 0 {
			leaf = tr.Nodes[leaf].Parent
		}
		if leaf != tc.want {
			t.Errorf("c=%v: went to node %d, want %d", tc.c, leaf, tc.want)
		}
	}
}

func TestActionSelection(t *testing.T) {
	tr := &btai.Tree{}
	tr.Reset(3, nil)
	tr.AddChildren(0, []float64{2, 1, 1})
	tr.Propagate(0, btai.MinBackward)
	rng := rand.New(rand.NewPCG(1, 2))
	// min-cost: ties between actions 1 and 2 (ḡ = 1) go to the lower action.
	if a := tr.SelectAction(btai.MinCost, 0, rng, nil); a != 1 {
		t.Errorf("min-cost: %d, want 1", a)
	}
	// most-visited: all n = 1; ties go to the lower average cost, then to
	// the lower action: 1.
	if a := tr.SelectAction(btai.MostVisited, 0, rng, nil); a != 1 {
		t.Errorf("most-visited: %d, want 1", a)
	}
	// Give action 2 more visits: it becomes the most visited.
	c := tr.Child(0, 2)
	tr.AddChildren(c, []float64{3, 3, 3})
	tr.Propagate(c, btai.MinBackward) // node 2: G = 1 + 3, n = 2, ḡ = 2
	if a := tr.SelectAction(btai.MostVisited, 0, rng, nil); a != 2 {
		t.Errorf("most-visited: %d, want 2", a)
	}
	// softmax(-γ ḡ) with ḡ = (2, 1, 2) and γ = 1:
	// p = (e^-2, e^-1, e^-2) / (2 e^-2 + e^-1).
	probs := make([]float64, 3)
	tr.SelectAction(btai.Softmax, 1, rng, probs)
	z := 2*math.Exp(-2) + math.Exp(-1)
	want := []float64{math.Exp(-2) / z, math.Exp(-1) / z, math.Exp(-2) / z}
	for i := range want {
		if math.Abs(probs[i]-want[i]) > 1e-12 {
			t.Fatalf("softmax probs %v, want %v", probs, want)
		}
	}
	// Sampling frequencies follow p (3-sigma bound over 20000 draws), and
	// the same seed gives the same sequence.
	counts := make([]int, 3)
	r1, r2 := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
	for range 20000 {
		a := tr.SelectAction(btai.Softmax, 1, r1, nil)
		if b := tr.SelectAction(btai.Softmax, 1, r2, nil); a != b {
			t.Fatal("same seed, different actions")
		}
		counts[a]++
	}
	for i, c := range counts {
		f := float64(c) / 20000
		if sd := math.Sqrt(want[i] * (1 - want[i]) / 20000); math.Abs(f-want[i]) > 3*sd+1e-3 {
			t.Errorf("action %d frequency %v, want %v", i, f, want[i])
		}
	}
	// Precision 100 concentrates on the best action.
	if a := tr.SelectAction(btai.Softmax, 100, rng, probs); a != 1 || probs[1] < 1-1e-40 {
		t.Errorf("precision 100: action %d, probs %v", a, probs)
	}
}

// treeExpandedCheap builds a root with children of local costs 0 and 10
// and expands child 0 (returned as c0) with two grandchildren of cost 0,
// with min-backward propagation.
func treeExpandedCheap() (tr *btai.Tree, c0 int) {
	tr = &btai.Tree{}
	tr.Reset(2, nil)
	tr.AddChildren(0, []float64{0, 10})
	tr.Propagate(0, btai.MinBackward)
	c0 = tr.Child(0, 0)
	tr.AddChildren(c0, []float64{0, 0})
	tr.Propagate(c0, btai.MinBackward)
	return tr, c0
}

func TestSelectUnexploredBeforeUCT(t *testing.T) {
	// Root with children of local costs 0 and 10. Child 0 is expanded with
	// grandchildren of cost 0: its average stays (0 + 0) / 2 = 0, while
	// child 1 (cost 10) is still unexplored. UCT would pick child 0 for
	// any c (UCT_0 = 0 + c sqrt(ln 2 / 2) > UCT_1 = -10 + c sqrt(ln 2 / 1)
	// for c < 10 / (sqrt(ln 2) - sqrt(ln 2 / 2)) = 10 / 0.24385 = 41.0), but the
	// unexplored child goes first (paper section 6.3.1).
	tr, _ := treeExpandedCheap()
	if got := tr.Select(2, btai.UnexploredFirst); got != tr.Child(0, 1) {
		t.Errorf("selected node %d, want the unexplored child %d", got, tr.Child(0, 1))
	}
}

func TestSelectUCTRule(t *testing.T) {
	// The tree of TestSelectUnexploredBeforeUCT: root children of local
	// costs 0 and 10; child 0 expanded with grandchildren of cost 0, so
	// G_0 = 0 + 0 = 0, n_0 = 2, and the leaf child 1 has G_1 = 10, n_1 = 1;
	// the root has n = 2. With the uct rule the leaf competes by UCT:
	//   UCT_0 = -0 + c sqrt(ln 2 / 2) = 0.58871 c,
	//   UCT_1 = -10 + c sqrt(ln 2 / 1) = -10 + 0.83255 c,
	// equal at c = 10 / (0.83255 - 0.58871) = 41.01. Below that, child 0
	// wins and the search goes down to its first grandchild (both
	// grandchildren are leaves of cost 0, n = 1: equal UCT, lowest action);
	// above it, the leaf child 1 is selected.
	tr, c0 := treeExpandedCheap()
	for _, tc := range []struct {
		c    float64
		want int
	}{{2, tr.Child(c0, 0)}, {41, tr.Child(c0, 0)}, {41.1, tr.Child(0, 1)}, {100, tr.Child(0, 1)}} {
		if got := tr.Select(tc.c, btai.UCT); got != tc.want {
			t.Errorf("c=%v: selected node %d, want %d", tc.c, got, tc.want)
		}
	}
	// c = 0 against c = 2. Root children: a leaf of cost 1 (n = 1) and a
	// child of cost 0.9 whose subtree is expanded four times with costs
	// 0.9, so G = 0.9 + 4 (0.9) = 4.5, n = 5, ḡ = 0.9; the root has n = 5.
	//   c = 0: UCT = -ḡ: -1 < -0.9, child 1.
	//   c = 2: UCT_0 = -1 + 2 sqrt(ln 5 / 1) = -1 + 2 (1.26864) = 1.5373,
	//          UCT_1 = -0.9 + 2 sqrt(ln 5 / 5) = -0.9 + 2 (0.56735) = 0.2347: the leaf, child 0.
	tr2 := &btai.Tree{}
	tr2.Reset(2, nil)
	tr2.AddChildren(0, []float64{1, 0.9})
	tr2.Propagate(0, btai.MinBackward)
	c1 := tr2.Child(0, 1)
	expand := func(k int) {
		tr2.AddChildren(k, []float64{0.9, 0.9})
		tr2.Propagate(k, btai.MinBackward)
	}
	expand(c1)
	expand(tr2.Child(c1, 0))
	expand(tr2.Child(c1, 1))
	expand(tr2.Child(tr2.Child(c1, 0), 0))
	if n := tr2.Nodes[c1]; n.Visits != 5 || !near(n.Average(), 0.9) || tr2.Nodes[0].Visits != 5 {
		t.Fatalf("child 1: n %d, ḡ %v; root n %d; want 5, 0.9, 5", n.Visits, n.Average(), tr2.Nodes[0].Visits)
	}
	top := func(k int) int {
		for tr2.Nodes[k].Parent != 0 {
			k = tr2.Nodes[k].Parent
		}
		return k
	}
	if got := top(tr2.Select(0, btai.UCT)); got != c1 {
		t.Errorf("c=0: went to node %d, want child 1 (%d)", got, c1)
	}
	if got := tr2.Select(2, btai.UCT); got != tr2.Child(0, 0) {
		t.Errorf("c=2: selected node %d, want the leaf child 0 (%d)", got, tr2.Child(0, 0))
	}
}

func TestParseSelection(t *testing.T) {
	for _, r := range []btai.Selection{btai.UnexploredFirst, btai.UCT, btai.NormalizedUCT} {
		got, err := btai.ParseSelection(r.String())
		if err != nil || got != r {
			t.Errorf("ParseSelection(%q) = %v, %v", r.String(), got, err)
		}
	}
	if _, err := btai.ParseSelection("greedy"); err == nil || !strings.Contains(err.Error(), `"greedy"`) {
		t.Errorf("ParseSelection(greedy): %v", err)
	}
	o := btai.DefaultOptions()
	if o.Selection != btai.NormalizedUCT {
		t.Errorf("default selection %v, want normalized-uct", o.Selection)
	}
	o.Selection = 7
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "selection") {
		t.Errorf("Validate with selection 7: %v", err)
	}
}

func TestSelectTies(t *testing.T) {
	// Unexplored children of equal local cost go in action order.
	tr := &btai.Tree{}
	tr.Reset(3, nil)
	tr.AddChildren(0, []float64{3, 3, 3})
	tr.Propagate(0, btai.MinBackward)
	for _, want := range []int{0, 1, 2} {
		got := tr.Select(2, btai.UnexploredFirst)
		if got != tr.Child(0, want) {
			t.Fatalf("selected node %d, want child %d", got, want)
		}
		tr.AddChildren(got, []float64{1, 1, 1})
		tr.Propagate(got, btai.MinBackward)
	}
	// Now every child has G = 3 + 1 = 4, n = 2: equal UCT values, so the
	// lowest action wins, and Select descends into its first (unexplored)
	// grandchild.
	got := tr.Select(2, btai.UnexploredFirst)
	if want := tr.Child(tr.Child(0, 0), 0); got != want {
		t.Errorf("selected node %d, want %d (child 0, then its grandchild 0)", got, want)
	}
}

func TestActionSelectionSoftmaxTies(t *testing.T) {
	// Equal average costs: softmax gives 1/3 each whatever the precision,
	// and min-cost / most-visited take action 0.
	tr := &btai.Tree{}
	tr.Reset(3, nil)
	tr.AddChildren(0, []float64{0.5, 0.5, 0.5})
	tr.Propagate(0, btai.MinBackward)
	probs := make([]float64, 3)
	for _, gamma := range []float64{0, 1, 100} {
		tr.SelectAction(btai.Softmax, gamma, rand.New(rand.NewPCG(1, 1)), probs)
		for a, p := range probs {
			if !near(p, 1.0/3) {
				t.Errorf("gamma %v: p[%d] = %v, want 1/3", gamma, a, p)
			}
		}
	}
	if a := tr.SelectAction(btai.MinCost, 0, nil, nil); a != 0 {
		t.Errorf("min-cost tie: %d, want 0", a)
	}
	if a := tr.SelectAction(btai.MostVisited, 0, nil, nil); a != 0 {
		t.Errorf("most-visited tie: %d, want 0", a)
	}
}

// handTree is the tree of ExampleTree_Propagate: the root's children cost
// 2, 1 and 3; child 1 is expanded with grandchildren of cost 4, 0.5 and 6,
// min-backward. Then child 1 and the root have G = 1.5 and n = 2 (ḡ =
// 0.75), the other children n = 1, and the averages seen (the root's do
// not count) are 2, 1, 3, then 4, 0.5, 6 and child 1's 0.75: lo = 0.5, hi
// = 6.
func handTree() *btai.Tree {
	var t btai.Tree
	t.Reset(3, nil)
	t.AddChildren(0, []float64{2, 1, 3})
	t.Propagate(0, btai.MinBackward)
	c := t.Child(0, 1)
	t.AddChildren(c, []float64{4, 0.5, 6})
	t.Propagate(c, btai.MinBackward)
	return &t
}

// TestSelectNormalizedUCTByHand checks the normalised rule on handTree
// against values computed by hand. At the root n = 2, ln 2 = 0.693147:
//
//	c = 1:   child 0: (6-2)/5.5 + sqrt(ln 2 / 1) = 0.727273 + 0.832555 = 1.559828
//	         child 1: (6-0.75)/5.5 + sqrt(ln 2 / 2) = 0.954545 + 0.588705 = 1.543250
//	         child 2: (6-3)/5.5 + 0.832555 = 1.377965        -> child 0 (a leaf)
//	c = 0.5: child 0: 0.727273 + 0.416277 = 1.143550
//	         child 1: 0.954545 + 0.294353 = 1.248898          -> child 1, then
//	         at child 1 (n = 2): grandchildren (6-4)/5.5 + 0.416277 = 0.779913,
//	         (6-0.5)/5.5 + 0.416277 = 1.416277, 0 + 0.416277 -> grandchild 1.
func TestSelectNormalizedUCTByHand(t *testing.T) {
	tr := handTree()
	if lo, hi := tr.CostRange(); lo != 0.5 || hi != 6 {
		t.Fatalf("CostRange = %v, %v, want 0.5, 6", lo, hi)
	}
	c1 := tr.Child(0, 1)
	if got, want := tr.Select(1, btai.NormalizedUCT), tr.Child(0, 0); got != want {
		t.Errorf("c = 1: selected %d, want child 0 (%d)", got, want)
	}
	if got, want := tr.Select(0.5, btai.NormalizedUCT), tr.Child(c1, 1); got != want {
		t.Errorf("c = 0.5: selected %d, want grandchild 1 (%d)", got, want)
	}
}

// TestPresetSelectionsByHand runs the selection step of the paper and hp
// presets on handTree, computed by hand with their C_p = 2 (ln 2 =
// 0.693147):
//
//	paper (unexplored-first): children 0 and 2 are unexpanded; the one of
//	  lower local cost, child 0 (2 < 3), is taken.
//	hp (uct): child 0: -2 + 2 sqrt(ln 2) = -0.334890; child 1: -0.75 +
//	  2 sqrt(ln 2 / 2) = 0.427410; child 2: -3 + 1.665109 = -1.334890 ->
//	  child 1; there (n = 2): -4 + 1.665109, -0.5 + 1.665109 = 1.165109,
//	  -6 + 1.665109 -> grandchild 1.
func TestPresetSelectionsByHand(t *testing.T) {
	tr := handTree()
	paper, hp := btai.PresetPaper(), btai.PresetHP()
	if got, want := tr.Select(*paper.Exploration, paper.Selection), tr.Child(0, 0); got != want {
		t.Errorf("paper: selected %d, want child 0 (%d)", got, want)
	}
	if got, want := tr.Select(*hp.Exploration, hp.Selection), tr.Child(tr.Child(0, 1), 1); got != want {
		t.Errorf("hp: selected %d, want grandchild 1 (%d)", got, want)
	}
}

// TestNormalizedUCTScaleFree: the normalised rule selects the same nodes
// when every cost is replaced by a g + b with a > 0, on trees grown by
// random costs (the property that makes its exploration constant
// independent of the scale of the costs); plain UCT does not.
func TestNormalizedUCTScaleFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	uctDiffers := false
	for trial := range 20 {
		a, b := math.Exp(4*rng.Float64()-2), 20*rng.Float64()-10
		var t1, t2 btai.Tree
		t1.Reset(3, nil)
		t2.Reset(3, nil)
		var u1, u2 btai.Tree
		u1.Reset(3, nil)
		u2.Reset(3, nil)
		for it := range 200 {
			k1, k2 := t1.Select(0.7, btai.NormalizedUCT), t2.Select(0.7, btai.NormalizedUCT)
			if k1 != k2 {
				t.Fatalf("trial %d (a %.3g, b %.3g), iteration %d: selected %d and %d", trial, a, b, it, k1, k2)
			}
			costs := []float64{10 * rng.Float64(), 10 * rng.Float64(), 10 * rng.Float64()}
			scaled := []float64{a*costs[0] + b, a*costs[1] + b, a*costs[2] + b}
			t1.AddChildren(k1, costs)
			t1.Propagate(k1, btai.MinBackward)
			t2.AddChildren(k2, scaled)
			t2.Propagate(k2, btai.MinBackward)
			j1, j2 := u1.Select(0.7, btai.UCT), u2.Select(0.7, btai.UCT)
			uctDiffers = uctDiffers || j1 != j2
			u1.AddChildren(j1, costs)
			u1.Propagate(j1, btai.MinBackward)
			u2.AddChildren(j2, scaled)
			u2.Propagate(j2, btai.MinBackward)
		}
	}
	if !uctDiffers {
		t.Errorf("plain UCT never depended on the scale: the test does not exercise it")
	}
}
