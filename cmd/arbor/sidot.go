package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"github.com/emicklei/dot"

	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// siDotPageNodes is the most nodes (beliefs and actions) the default
// --dot-depth draws: the deepest depth whose drawing has at most this many
// nodes, at least one step. 64 nodes lay out within about 16 × 10 inches
// (TestSIPlanDot measures it), the bound the other tree figures keep.
const siDotPageNodes = 64

// siCountLimit bounds the counting of a search tree's nodes: beyond it a
// note says "more than".
const siCountLimit = 1_000_000

// siTreeCount counts the nodes (beliefs and actions) of the search tree
// drawn down to steps actions from the root (0: all), stopping past limit.
// A belief reached along several paths is counted on each.
func siTreeCount(tr *si.Tree, steps, limit int) (int, error) {
	n := 0
	var walk func(node si.Node, step int) error
	walk = func(node si.Node, step int) error {
		n++
		if n > limit || node.Remaining() == 0 || steps > 0 && step >= steps {
			return nil
		}
		acts, err := tr.Actions(node)
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
	err := walk(tr.Root(), 0)
	return n, err
}

// siDotDepth returns the depth the default --dot-depth draws: the deepest
// whose drawing has at most siDotPageNodes nodes, at least 1.
func siDotDepth(tr *si.Tree) (int, error) {
	best := 1
	for d := 2; d <= tr.Depth(); d++ {
		n, err := siTreeCount(tr, d, siDotPageNodes)
		if err != nil {
			return 0, err
		}
		if n > siDotPageNodes {
			break
		}
		best = d
	}
	return best, nil
}

// writeSITreeDOT draws the search tree of sophisticated inference top to
// bottom from the present belief q_t, down to steps actions (>= 1):
// beliefs are ellipses (the root filled gray, the others named by the
// outcome that led to them, with its probability Q(o | u)), actions are
// boxes with their expected free energy G and probability Q(u) at their
// node (a pruned action dashed, with its one-step G). The root's action now
// (-1: none) is drawn bold. A note says how many nodes were left out.
func writeSITreeDOT(w io.Writer, tr *si.Tree, m *pomdp.Model, steps, now int) error {
	d := dot.NewGraph(dot.Directed)
	d.Attr("rankdir", "TB")
	d.Attr("nodesep", "0.12")
	d.Attr("ranksep", "0.3")
	count := 0
	newNode := func(shape string, label string) dot.Node {
		count++
		return d.Node(fmt.Sprintf("n%07d", count)).Attr("shape", shape).Attr("margin", "0.03").Attr("fontsize", "10").Attr("label", dot.HTML(label))
	}
	small := func(s string) string { return `<FONT POINT-SIZE="7">` + s + `</FONT>` }
	root := newNode("ellipse", "q<SUB>t</SUB>")
	root.Attr("style", "filled").Attr("fillcolor", "lightgray")
	var walk func(parent dot.Node, node si.Node, step int) error
	walk = func(parent dot.Node, node si.Node, step int) error {
		if node.Remaining() == 0 {
			return nil
		}
		acts, err := tr.Actions(node)
		if err != nil {
			return err
		}
		for _, a := range acts {
			name := html.EscapeString(m.ActionName(a.Action))
			var an dot.Node
			if a.Expanded {
				an = newNode("box", name+"<BR/>"+small(fmt.Sprintf("G=%s Q=%.3g", siNum(a.G), a.Prob)))
			} else {
				an = newNode("box", name+"<BR/>"+small(fmt.Sprintf("pruned, one-step G=%s", siNum(a.Local))))
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
	if err := walk(root, tr.Root(), 0); err != nil {
		return err
	}
	if steps < tr.Depth() {
		total, err := siTreeCount(tr, 0, siCountLimit)
		if err != nil {
			return err
		}
		note := fmt.Sprintf("%d of %d steps drawn (--dot-depth %d): %d more nodes not drawn", steps, tr.Depth(), steps, total-count)
		if total > siCountLimit {
			note = fmt.Sprintf("%d of %d steps drawn (--dot-depth %d): %d nodes of a tree of more than %d", steps, tr.Depth(), steps, count, siCountLimit)
		}
		return writeTreeFigure(w, d, note)
	}
	return writeTreeFigure(w, d, "")
}

// siNum formats an expected free energy for a label: four significant
// digits, "inf" for +Inf.
func siNum(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return fmt.Sprintf("%.4g", x)
}

// siWriteDOT writes the search tree to path (the value of flag --dot),
// down to steps actions (0: the default depth, siDotDepth), the root's
// action now drawn bold; a figure over the limits (checkFigureSize) is
// refused before it is built.
func siWriteDOT(ctx context.Context, tr *si.Tree, m *pomdp.Model, path string, steps, now int) error {
	if steps == 0 {
		var err error
		if steps, err = siDotDepth(tr); err != nil {
			return err
		}
	}
	steps = min(steps, tr.Depth())
	n, err := siTreeCount(tr, steps, maxDOTText+1)
	if err != nil {
		return err
	}
	remedy := "draw fewer steps with --dot-depth D"
	if figureFormat(path) != "" {
		remedy += ", or write the DOT text with --dot FILE.dot"
	}
	if err := checkFigureSize("--dot", path, figureSize{nodes: n, edges: n - 1}, true, remedy); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := writeSITreeDOT(&b, tr, m, steps, now); err != nil {
		return fmt.Errorf("--dot %s: %w", path, err)
	}
	return writeFigure(ctx, "--dot", path, b.Bytes())
}

// writeTreeFigure writes the DOT text of a planning or search tree to w
// without its blank lines, with note (when not "") as the figure's label
// at the bottom: what the view left out.
func writeTreeFigure(w io.Writer, d *dot.Graph, note string) error {
	if note != "" {
		d.Attr("label", note)
		d.Attr("labelloc", "b")
		d.Attr("fontsize", "9")
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
