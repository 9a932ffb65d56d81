package btai

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"

	"github.com/emicklei/dot"

	"github.com/arbor-ai/arbor/pomdp"
)

// TreeDOTOptions are what Tree.WriteDOT draws of a tree.
type TreeDOTOptions struct {
	// Depth is the deepest level drawn (0: all) and Top the number of
	// children drawn under each node, the most visited (0: all; ties as
	// MostVisited: to the lower average cost, then to the lower action).
	// With neither (or nil options), the view that fits a page: the one
	// that draws the most nodes with at most 13 on a level and 8 levels
	// below the root (about 16 × 10 inches), trying every child and the
	// 3, 2 or 1 most visited of each node, and for each the deepest level
	// that fits; a tree that fits is drawn whole. They must be >= 0.
	Depth, Top int

	// Note, when not nil, returns the figure's note of what the view left
	// out, from the number of nodes left out (> 0) and the view drawn
	// (the page's Depth and Top when neither was given). Nil: "N more
	// nodes not drawn (depth D, top K)", each part when not 0.
	Note func(left, depth, top int) string
}

// The page a default tree figure fits: at most pageLevelNodes nodes on a
// level (a node is about 1.1 inches wide with its spacing, so 13 make
// about 14 inches) and pageLevels levels below the root (about 0.95
// inches each with the spacing), 16 × 10 inches in all.
const (
	pageLevelNodes = 13
	pageLevels     = 8
)

// WriteDOT writes the tree to w as Graphviz DOT text, as the paper draws
// it: states only, top to bottom from the present state S_t, each node
// named by its action multi-index, S_(1,2) (actions numbered from 1; the
// edges carry the action names of m), with its visits n and average cost
// ḡ in small type, and the root's child of action now (the action taken,
// or -1 for none) drawn bold. The children of a node are drawn in action
// order, left to right, whichever of them the view keeps. With a view
// that leaves nodes out (opts), the figure's label at the bottom says how
// many (TreeDOTOptions.Note).
//
// It panics if the tree has no root (before Reset), m is nil, now is
// outside [-1, NumActions), or opts has a negative Depth or Top:
// programming errors. The error is w's.
func (t *Tree) WriteDOT(w io.Writer, m *pomdp.Model, now int, opts *TreeDOTOptions) error {
	v := t.dotView("WriteDOT", opts)
	switch {
	case m == nil:
		panic("btai: Tree.WriteDOT: nil model")
	case now < -1 || now >= t.NumActions:
		panic(fmt.Sprintf("btai: Tree.WriteDOT: action %d out of range [-1, %d)", now, t.NumActions))
	}
	d := dot.NewGraph(dot.Directed)
	d.Attr("rankdir", "TB")
	d.Attr("nodesep", "0.15")
	d.Attr("ranksep", "0.35")
	nodes := map[int]dot.Node{}
	label := func(k int) dot.HTML {
		n := &t.Nodes[k]
		name := "S<SUB>t</SUB>"
		if k > 0 {
			path := t.Path(nil, k)
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
	if t.Nodes[0].FirstChild >= 0 && now >= 0 {
		now = t.Child(0, now)
	} else {
		now = -1
	}
	left := t.walkDOT(v, func(parent, c int) {
		cn := add(c)
		e := d.Edge(nodes[parent], cn).Attr("label", html.EscapeString(m.ActionName(t.Nodes[c].Action))).Attr("fontsize", "8")
		if c == now {
			cn.Attr("penwidth", "2.5")
			e.Attr("penwidth", "2.5")
		}
	})
	note := ""
	if left > 0 {
		if opts != nil && opts.Note != nil {
			note = opts.Note(left, v.depth, v.top)
		} else {
			var view []string
			if v.depth > 0 {
				view = append(view, fmt.Sprintf("depth %d", v.depth))
			}
			if v.top > 0 {
				view = append(view, fmt.Sprintf("top %d", v.top))
			}
			note = fmt.Sprintf("%d more nodes not drawn (%s)", left, strings.Join(view, ", "))
		}
	}
	return apiError(writeDOT(w, d, note))
}

// DOTNodes returns the number of nodes WriteDOT draws of the tree with
// opts (its edges are one fewer), to check the size of a figure before
// drawing it. It panics as WriteDOT does.
func (t *Tree) DOTNodes(opts *TreeDOTOptions) int {
	v := t.dotView("DOTNodes", opts)
	n := 1
	t.walkDOT(v, func(int, int) { n++ })
	return n
}

// writeDOT writes the DOT text of d to w without its blank lines, with
// note (when not "") as the figure's label at the bottom: what the view
// left out.
func writeDOT(w io.Writer, d *dot.Graph, note string) error {
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

// treeView is the view of a tree figure: its deepest level drawn (0: all)
// and the children drawn per node, the most visited (0: all).
type treeView struct{ depth, top int }

// dotView checks opts for method fn and returns the view they draw
// (fitView).
func (t *Tree) dotView(fn string, opts *TreeDOTOptions) treeView {
	t.node(fn, 0)
	var v treeView
	if opts != nil {
		v = treeView{depth: opts.Depth, top: opts.Top}
	}
	if v.depth < 0 || v.top < 0 {
		panic(fmt.Sprintf("btai: Tree.%s: Depth %d, Top %d, want >= 0", fn, v.depth, v.top))
	}
	return t.fitView(v)
}

// walkDOT visits the nodes of the tree drawn with view v, from the root,
// each child after its parent and the children of a node in action order,
// calling edge(parent, child) for each, and returns the number of nodes
// left out by v's depth limit and top-K.
func (t *Tree) walkDOT(v treeView, edge func(parent, child int)) (left int) {
	var walk func(k int)
	walk = func(k int) {
		n := &t.Nodes[k]
		if n.FirstChild < 0 {
			return
		}
		if v.depth > 0 && n.Depth >= v.depth {
			left += t.countBelow(k)
			return
		}
		kids := t.childrenByVisits(k)
		if v.top > 0 && len(kids) > v.top {
			for _, c := range kids[v.top:] {
				left += 1 + t.countBelow(c)
			}
			kids = kids[:v.top]
		}
		// Children in action order, so that the drawing reads left to right.
		slices.Sort(kids)
		for _, c := range kids {
			edge(k, c)
			walk(c)
		}
	}
	walk(0)
	return left
}

// childrenByVisits lists the children of node k, most visited first, ties
// as MostVisited breaks them (cmpVisits, then the lower action).
func (t *Tree) childrenByVisits(k int) []int {
	first := t.Nodes[k].FirstChild
	if first < 0 {
		return nil
	}
	kids := make([]int, t.NumActions)
	for a := range kids {
		kids[a] = first + a
	}
	slices.SortFunc(kids, func(i, j int) int {
		return cmp.Or(cmpVisits(&t.Nodes[i], &t.Nodes[j]), cmp.Compare(i, j))
	})
	return kids
}

// countBelow returns the number of nodes below node k.
func (t *Tree) countBelow(k int) int {
	first := t.Nodes[k].FirstChild
	if first < 0 {
		return 0
	}
	n := 0
	for c := first; c < first+t.NumActions; c++ {
		n += 1 + t.countBelow(c)
	}
	return n
}

// fitView returns v, or for a view without a depth limit or a top-K the
// one that draws the most nodes of the tree within the page (at most
// pageLevelNodes on a level, pageLevels deep), trying every child and
// the 3, 2 or 1 most visited children of each node, and the deepest
// level that fits for each; a tree that fits is drawn whole.
func (t *Tree) fitView(v treeView) treeView {
	if v.depth != 0 || v.top != 0 {
		return v
	}
	if widest, levels := t.treeShape(treeView{}); widest <= pageLevelNodes && levels <= pageLevels {
		return v
	}
	best, bestNodes := treeView{depth: 1, top: 1}, 0
	for _, top := range []int{0, 3, 2, 1} {
		for depth := pageLevels; depth >= 1; depth-- {
			view := treeView{depth: depth, top: top}
			if widest, _ := t.treeShape(view); widest > pageLevelNodes {
				continue
			}
			n := 1
			t.walkDOT(view, func(int, int) { n++ })
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
func (t *Tree) treeShape(v treeView) (widest, levels int) {
	count := map[int]int{}
	t.walkDOT(v, func(_, c int) {
		d := t.Nodes[c].Depth
		count[d]++
		widest = max(widest, count[d])
		levels = max(levels, d)
	})
	return widest, levels
}
