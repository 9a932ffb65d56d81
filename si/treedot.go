package si

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/emicklei/dot"
)

// DOTPageNodes is the most nodes (beliefs and actions) that the default
// depth of Tree.WriteDOT draws: the deepest whose figure has at most this
// many nodes and at most DOTPageLevelNodes on a level, at least one step.
// Within both, the figure lays out within about 16 × 10 inches with every
// label at 10 points.
const DOTPageNodes = 64

// DOTPageLevelNodes is the most nodes on one level (the actions of a step,
// or their outcomes) of the default depth's figure: a node with its label
// at 10 points is about 1.3 inches wide with its spacing, so 12 make about
// 16 inches.
const DOTPageLevelNodes = 12

// DOTCountLimit bounds the counting of a search tree's nodes for the note
// of Tree.WriteDOT: past it, the note says "more than".
const DOTCountLimit = 1_000_000

// TreeDOTOptions are what Tree.WriteDOT draws of a search tree.
type TreeDOTOptions struct {
	// Steps is the number of actions drawn below the root (>= 0): 0 for
	// the default, the most steps whose figure has at most DOTPageNodes
	// nodes (at least 1); beyond the tree's depth, the whole tree.
	Steps int

	// Note, when not nil, returns the figure's note of what was left out
	// when fewer steps are drawn than the tree's depth, from the steps
	// drawn, the depth, the nodes drawn and the nodes of the whole tree
	// (total > DOTCountLimit: more than DOTCountLimit, where counting
	// stopped). Nil: "S of D steps drawn: N more nodes not drawn", or
	// "S of D steps drawn: N nodes of a tree of more than DOTCountLimit".
	Note func(steps, depth, drawn, total int) string
}

// WriteDOT writes the search tree to w as Graphviz DOT text, top to
// bottom from the present belief q_t, down to opts.Steps actions (nil
// opts: the default): beliefs are ellipses (the root filled gray, the
// others named by the outcome that led to them, with its probability
// Q(o | u)), actions are boxes with their expected free energy G and
// probability Q(u) at their node (a pruned action dashed, with its
// one-step G). The root's action now (-1: none) is drawn bold. The names
// are the planner's model's. When fewer steps are drawn than the tree's
// depth, the figure's label at the bottom says how many nodes were left
// out (TreeDOTOptions.Note). A belief reached along several paths is
// drawn on each.
//
// The errors are the Tree's (a planner that has searched again), a
// negative Steps, and w's.
func (t *Tree) WriteDOT(w io.Writer, now int, opts *TreeDOTOptions) error {
	steps, err := t.dotSteps("WriteDOT", opts)
	if err != nil {
		return apiError(err)
	}
	m := t.p.m
	d := dot.NewGraph(dot.Directed)
	d.Attr("rankdir", "TB")
	d.Attr("nodesep", "0.12")
	d.Attr("ranksep", "0.3")
	count := 0
	newNode := func(shape string, label string) dot.Node {
		count++
		return d.Node(fmt.Sprintf("n%07d", count)).Attr("shape", shape).Attr("margin", "0.03").Attr("fontsize", "10").Attr("label", dot.HTML(label))
	}
	small := func(s string) string { return s } // every label at 10 points, the figure's smallest
	root := newNode("ellipse", "q<SUB>t</SUB>")
	root.Attr("style", "filled").Attr("fillcolor", "lightgray")
	var walk func(parent dot.Node, node Node, step int) error
	walk = func(parent dot.Node, node Node, step int) error {
		if node.Remaining() == 0 {
			return nil
		}
		acts, err := t.Actions(node)
		if err != nil {
			return err
		}
		for _, a := range acts {
			name := html.EscapeString(m.ActionName(a.Action))
			var an dot.Node
			if a.Expanded {
				an = newNode("box", name+"<BR/>"+small(fmt.Sprintf("G=%s Q=%.3g", dotNum(a.G), a.Prob)))
			} else {
				an = newNode("box", name+"<BR/>"+small(fmt.Sprintf("pruned, one-step G=%s", dotNum(a.Local))))
				an.Attr("style", "dashed")
			}
			e := d.Edge(parent, an)
			if step == 0 && a.Action == now {
				an.Attr("penwidth", "2.5")
				e.Attr("penwidth", "2.5")
			}
			for _, o := range a.Outcomes {
				on := newNode("ellipse", html.EscapeString(m.ObsName(o.Obs))+"<BR/>"+small(fmt.Sprintf("p=%.3g", o.Prob)))
				d.Edge(an, on)
				if step+1 < steps {
					if err := walk(on, o.Next, step+1); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	if err := walk(root, t.Root(), 0); err != nil {
		return apiError(err)
	}
	note := ""
	if depth := t.Depth(); steps < depth {
		total, err := t.countDOT(0, DOTCountLimit)
		if err != nil {
			return apiError(err)
		}
		switch {
		case opts != nil && opts.Note != nil:
			note = opts.Note(steps, depth, count, total)
		case total > DOTCountLimit:
			note = fmt.Sprintf("%d of %d steps drawn: %d nodes of a tree of more than %d", steps, depth, count, DOTCountLimit)
		default:
			note = fmt.Sprintf("%d of %d steps drawn: %d more nodes not drawn", steps, depth, total-count)
		}
	}
	return apiError(writeDOT(w, d, note))
}

// DOTNodes returns the number of nodes (beliefs and actions) WriteDOT
// draws with opts, to check the size of a figure before drawing it,
// counting no further than limit: past it, a number > limit. Its errors
// are WriteDOT's but w's.
func (t *Tree) DOTNodes(opts *TreeDOTOptions, limit int) (int, error) {
	steps, err := t.dotSteps("DOTNodes", opts)
	if err != nil {
		return 0, apiError(err)
	}
	return apiResult(t.countDOT(steps, limit))
}

// dotSteps returns the steps drawn with opts by method fn: the default
// (DOTPageNodes) for 0, at most the tree's depth.
func (t *Tree) dotSteps(fn string, opts *TreeDOTOptions) (int, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	var steps int
	if opts != nil {
		steps = opts.Steps
	}
	switch {
	case steps < 0:
		return 0, fmt.Errorf("si: Tree.%s: Steps %d, want >= 0", fn, steps)
	case steps == 0:
		steps = 1
		for d := 2; d <= t.Depth(); d++ {
			n, err := t.countDOT(d, DOTPageNodes)
			if err != nil {
				return 0, err
			}
			if n > DOTPageNodes || t.widestDOT(d) > DOTPageLevelNodes {
				break
			}
			steps = d
		}
	}
	return min(steps, t.Depth()), nil
}

// countDOT counts the nodes (beliefs and actions) of the tree drawn down
// to steps actions from the root (0: all), stopping past limit. A belief
// reached along several paths is counted on each.
func (t *Tree) countDOT(steps, limit int) (int, error) {
	n := 0
	var walk func(node Node, step int) error
	walk = func(node Node, step int) error {
		n++
		if n > limit || node.Remaining() == 0 || steps > 0 && step >= steps {
			return nil
		}
		acts, err := t.Actions(node)
		if err != nil {
			return err
		}
		for _, a := range acts {
			n++
			for _, o := range a.Outcomes {
				if n > limit {
					return nil
				}
				if steps > 0 && step+1 >= steps {
					n++ // the outcome's belief is drawn, not its actions
					continue
				}
				if err := walk(o.Next, step+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := walk(t.Root(), 0)
	return n, err
}

// widestDOT returns the most nodes on one level of the figure drawn down to
// steps actions (the actions of a step are one level, their outcomes the
// next), counting no level past DOTPageNodes. It is called with a tree
// whose figure has at most DOTPageNodes nodes.
func (t *Tree) widestDOT(steps int) int {
	width := make([]int, 2*steps+1)
	var walk func(node Node, step int)
	walk = func(node Node, step int) {
		if node.Remaining() == 0 || step >= steps {
			return
		}
		acts, err := t.Actions(node)
		if err != nil {
			return
		}
		for _, a := range acts {
			width[2*step+1]++
			for _, o := range a.Outcomes {
				width[2*step+2]++
				walk(o.Next, step+1)
			}
		}
	}
	walk(t.Root(), 0)
	return slices.Max(width)
}

// dotNum formats an expected free energy for a label: four significant
// digits, "inf" for +Inf.
func dotNum(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return fmt.Sprintf("%.4g", x)
}

// writeDOT writes the DOT text of d to w without its blank lines, with
// note (when not "") as the figure's label at the bottom: what the view
// left out. (btai's tree figure is written the same way.)
func writeDOT(w io.Writer, d *dot.Graph, note string) error {
	if note != "" {
		d.Attr("label", note)
		d.Attr("labelloc", "b")
		d.Attr("fontsize", "10")
	}
	var buf bytes.Buffer
	d.Write(&buf)
	bw := bufio.NewWriter(w)
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if _, err := bw.WriteString(line + "\n"); err != nil {
			return err
		}
	}
	return bw.Flush()
}
