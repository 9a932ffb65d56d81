package si_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// tmazePlanner searches the SI T-maze from the centre, the context
// unknown, with opts.
func tmazePlanner(t *testing.T, opts *si.Options) (*si.Planner, *si.Result, []float64) {
	t.Helper()
	m, err := pomdp.Load("../examples/pomdp/si-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	o, err := m.EncodeObs([]int{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	qs, err := pomdp.StatePosterior(nil, m, o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := si.NewPlanner(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Plan(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	return p, res, qs
}

// TestWriteDOT: the T-maze at depth 3 (γ 3) from the centre. The default
// figure draws one step, the most within DOTPageNodes: the root, 4
// actions (their G and Q(u) the Result's, the most probable bold) and the
// 7 outcomes after them (centre: 1; each arm: reward or punishment; the
// cue: left or right), 12 nodes, as DOTNodes says, with a note of the
// nodes left out; the whole tree (Steps 3, or more) has no note and as
// many nodes as the note implied; Note is given the steps, depth, nodes
// drawn and in all.
func TestWriteDOT(t *testing.T) {
	p, res, _ := tmazePlanner(t, &si.Options{Depth: 3, Gamma: 3})
	tr, err := p.Tree()
	if err != nil {
		t.Fatal(err)
	}
	m, err := pomdp.Load("../examples/pomdp/si-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	best := 3 // go-cue
	draw := func(opts *si.TreeDOTOptions) string {
		t.Helper()
		var b bytes.Buffer
		if err := tr.WriteDOT(&b, best, opts); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	text := draw(nil)
	if n := strings.Count(text, `shape="box"`); n != 4 {
		t.Errorf("%d action boxes, want 4:\n%s", n, text)
	}
	if n := strings.Count(text, `shape="ellipse"`); n != 8 {
		t.Errorf("%d beliefs, want the root and 7 outcomes:\n%s", n, text)
	}
	if n, err := tr.DOTNodes(nil, 1000); err != nil || n != 12 {
		t.Errorf("DOTNodes: %d, %v; want 12", n, err)
	}
	for u := range m.NumActions() {
		label := fmt.Sprintf("%s<BR/>G=%.4g Q=%.3g>", m.ActionName(u), res.G[u], res.ActionProbs[u])
		if !strings.Contains(text, label) {
			t.Errorf("no label %q:\n%s", label, text)
		}
	}
	for _, want := range []string{`cue-left+none<BR/>p=0.5>`, `fillcolor="lightgray"`, `penwidth="2.5",shape="box"`, `label="1 of 3 steps drawn: `} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "penwidth") != 2 {
		t.Errorf("want one bold action and its edge:\n%s", text)
	}
	var left int
	if _, err := fmt.Sscanf(text[strings.Index(text, "drawn: ")+7:], "%d more nodes", &left); err != nil {
		t.Fatal(err)
	}
	for _, steps := range []int{3, 5} {
		full := draw(&si.TreeDOTOptions{Steps: steps})
		if strings.Contains(full, "not drawn") {
			t.Errorf("Steps %d of 3: a note of nodes left out", steps)
		}
		if n := strings.Count(full, "shape="); n != 12+left {
			t.Errorf("Steps %d: the whole tree has %d nodes, the note of the default figure says 12 + %d", steps, n, left)
		}
		if n, err := tr.DOTNodes(&si.TreeDOTOptions{Steps: steps}, 1<<20); err != nil || n != 12+left {
			t.Errorf("Steps %d: DOTNodes %d, %v; want %d", steps, n, err, 12+left)
		}
	}
	if n, err := tr.DOTNodes(&si.TreeDOTOptions{Steps: 3}, 20); err != nil || n <= 20 {
		t.Errorf("DOTNodes past a limit of 20: %d, %v; want more than 20", n, err)
	}
	var got []int
	text = draw(&si.TreeDOTOptions{Steps: 2, Note: func(steps, depth, drawn, total int) string {
		got = []int{steps, depth, drawn, total}
		return "note"
	}})
	if len(got) != 4 || got[0] != 2 || got[1] != 3 || got[2] != strings.Count(text, "shape=") || got[3] != 12+left {
		t.Errorf("Note given %v, want [2 3 %d %d]", got, strings.Count(text, "shape="), 12+left)
	}
	if !strings.Contains(text, `label="note"`) {
		t.Errorf("no note:\n%s", text)
	}
}

// TestWriteDOTPruned: an action pruned at a node is a dashed box with its
// one-step G.
func TestWriteDOTPruned(t *testing.T) {
	p, _, _ := tmazePlanner(t, &si.Options{Depth: 3, Gamma: 3, PruneActions: 0.1})
	tr, err := p.Tree()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tr.WriteDOT(&b, -1, &si.TreeDOTOptions{Steps: 2}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `pruned, one-step G=5.044>,margin="0.03",shape="box",style="dashed"`) || strings.Contains(b.String(), "penwidth") {
		t.Errorf("no dashed pruned arm, or a bold action for now -1:\n%s", b.String())
	}
}

// TestWriteDOTErrors: a negative Steps, and a tree whose planner has
// searched again, are errors.
func TestWriteDOTErrors(t *testing.T) {
	p, _, qs := tmazePlanner(t, &si.Options{Depth: 2})
	tr, err := p.Tree()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tr.WriteDOT(&b, 0, &si.TreeDOTOptions{Steps: -1}); err == nil || err.Error() != "si: Tree.WriteDOT: Steps -1, want >= 0" {
		t.Errorf("Steps -1: %v", err)
	}
	if _, err := tr.DOTNodes(&si.TreeDOTOptions{Steps: -1}, 10); err == nil || err.Error() != "si: Tree.DOTNodes: Steps -1, want >= 0" {
		t.Errorf("DOTNodes, Steps -1: %v", err)
	}
	if _, err := p.Plan(context.Background(), qs); err != nil {
		t.Fatal(err)
	}
	if err := tr.WriteDOT(&b, 0, nil); err == nil || !strings.Contains(err.Error(), "searched again") {
		t.Errorf("a stale tree: %v", err)
	}
	if b.Len() != 0 {
		t.Errorf("written on error: %q", b.String())
	}
}
