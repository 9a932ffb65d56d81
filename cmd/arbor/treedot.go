package main

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/emicklei/dot"

	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

// treeView are the options of the planning-tree drawing.
type treeView struct {
	depth int // deepest level drawn (0: all)
	top   int // children drawn per node, the most visited (0: all)
}

// writeTreeDOT draws the planning tree as the paper draws it: states only,
// top to bottom from the present state S_t, each node named by its action
// multi-index, S_(1,2) (actions numbered from 1; the edges carry the action
// names), with its visits n and average cost ḡ in small type, and the
// root's child of action now (the action taken, or -1 for none) drawn bold.
// With a depth limit or a top-K, a note says how many nodes were left out.
//
// A view without a depth limit or a top-K (the default) draws what fits a
// page (fitView).
func writeTreeDOT(w io.Writer, tr *btai.Tree, m *pomdp.Model, now int, v treeView) error {
	v = fitView(tr, v)
	d := dot.NewGraph(dot.Directed)
	d.Attr("rankdir", "TB")
	d.Attr("nodesep", "0.15")
	d.Attr("ranksep", "0.35")
	nodes := map[int]dot.Node{}
	label := func(k int) dot.HTML {
		n := &tr.Nodes[k]
		name := "S<SUB>t</SUB>"
		if k > 0 {
			path := tr.Path(nil, k)
			idx := make([]string, len(path))
			for i, u := range path {
				idx[i] = fmt.Sprint(u + 1)
			}
			name = "S<SUB>(" + strings.Join(idx, ",") + ")</SUB>"
		}
		return dot.HTML(fmt.Sprintf(`%s<BR/><FONT POINT-SIZE="8">n=%d ḡ=%.3g</FONT>`, name, n.Visits, n.Average()))
	}
	add := func(k int) dot.Node {
		n := d.Node(fmt.Sprintf("t%07d", k)).Attr("label", label(k)).Attr("shape", "ellipse").Attr("margin", "0.02")
		nodes[k] = n
		return n
	}
	root := add(0)
	root.Attr("style", "filled").Attr("fillcolor", "lightgray")
	if c := tr.Nodes[0].FirstChild; c >= 0 && now >= 0 {
		now = tr.Child(0, now)
	} else {
		now = -1
	}
	left := walkTree(tr, v, func(parent, c int) {
		cn := add(c)
		e := d.Edge(nodes[parent], cn).Attr("label", html.EscapeString(m.ActionName(tr.Nodes[c].Action))).Attr("fontsize", "8")
		if c == now {
			cn.Attr("penwidth", "2.5")
			e.Attr("penwidth", "2.5")
		}
	})
	note := ""
	if left > 0 {
		view := fmt.Sprintf("--dot-depth %d", v.depth)
		if v.top > 0 {
			view += fmt.Sprintf(", --dot-top %d", v.top)
		}
		note = fmt.Sprintf("%d more nodes not drawn (%s)", left, view)
	}
	return writeTreeFigure(w, d, note)
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

// walkTree visits the nodes of the tree drawn with view v, from the root,
// each child after its parent and the children of a node in action order,
// calling edge(parent, child) for each, and returns the number of nodes
// left out by v's depth limit and top-K.
func walkTree(tr *btai.Tree, v treeView, edge func(parent, child int)) (left int) {
	var walk func(k int)
	walk = func(k int) {
		n := &tr.Nodes[k]
		if n.FirstChild < 0 {
			return
		}
		if v.depth > 0 && n.Depth >= v.depth {
			left += countBelow(tr, k)
			return
		}
		kids := childrenByVisits(tr, k)
		if v.top > 0 && len(kids) > v.top {
			for _, c := range kids[v.top:] {
				left += 1 + countBelow(tr, c)
			}
			kids = kids[:v.top]
		}
		// Children in action order, so that the drawing reads left to right.
		sortInts(kids)
		for _, c := range kids {
			edge(k, c)
			walk(c)
		}
	}
	walk(0)
	return left
}

// treeDrawnNodes returns the number of nodes of the tree drawn with view
// v (its edges are one fewer).
func treeDrawnNodes(tr *btai.Tree, v treeView) int {
	v = fitView(tr, v)
	n := 1
	walkTree(tr, v, func(int, int) { n++ })
	return n
}

// childrenByVisits lists the children of node k, most visited first (ties
// in action order).
func childrenByVisits(tr *btai.Tree, k int) []int {
	n := &tr.Nodes[k]
	if n.FirstChild < 0 {
		return nil
	}
	var kids []int
	for c := n.FirstChild; c < len(tr.Nodes) && tr.Nodes[c].Parent == k; c++ {
		kids = append(kids, c)
	}
	// Insertion sort: a handful of children.
	for i := 1; i < len(kids); i++ {
		for j := i; j > 0 && tr.Nodes[kids[j]].Visits > tr.Nodes[kids[j-1]].Visits; j-- {
			kids[j], kids[j-1] = kids[j-1], kids[j]
		}
	}
	return kids
}

func countBelow(tr *btai.Tree, k int) int {
	n := 0
	for _, c := range childrenByVisits(tr, k) {
		n += 1 + countBelow(tr, c)
	}
	return n
}

func sortInts(x []int) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

// The page a default tree figure fits: at most pageLevelNodes nodes on a
// level (a node is about 1.1 inches wide with its spacing, so 13 make
// about 14 inches) and pageLevels levels below the root (about 0.95
// inches each with the spacing), 16 × 10 inches in all.
const (
	pageLevelNodes = 13
	pageLevels     = 8
)

// fitView returns v, or for a view without a depth limit or a top-K the
// one that draws the most nodes of the tree within the page (at most
// pageLevelNodes on a level, pageLevels deep), trying every child and
// the 3, 2 or 1 most visited children of each node, and the deepest
// level that fits for each; a tree that fits is drawn whole.
func fitView(tr *btai.Tree, v treeView) treeView {
	if v.depth != 0 || v.top != 0 {
		return v
	}
	if widest, levels := treeShape(tr, treeView{}); widest <= pageLevelNodes && levels <= pageLevels {
		return v
	}
	best, bestNodes := treeView{depth: 1, top: 1}, 0
	for _, top := range []int{0, 3, 2, 1} {
		for depth := pageLevels; depth >= 1; depth-- {
			view := treeView{depth: depth, top: top}
			if widest, _ := treeShape(tr, view); widest > pageLevelNodes {
				continue
			}
			n := 1
			walkTree(tr, view, func(int, int) { n++ })
			if n > bestNodes {
				best, bestNodes = view, n
			}
			break
		}
	}
	return best
}

// treeShape returns the most nodes on one level of the tree drawn with
// view v, and its number of levels below the root.
func treeShape(tr *btai.Tree, v treeView) (widest, levels int) {
	count := map[int]int{}
	walkTree(tr, v, func(_, c int) {
		d := tr.Nodes[c].Depth
		count[d]++
		widest = max(widest, count[d])
		levels = max(levels, d)
	})
	return widest, levels
}
