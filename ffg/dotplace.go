package ffg

import (
	"slices"
	"strconv"

	"github.com/emicklei/dot"
)

// DOTPlace is where WriteDOTWith draws a node of a figure laid out in
// columns (Graph.PlaceVariable, Graph.PlaceFactor).
type DOTPlace struct {
	// Column is the node's column, 0 the leftmost; columns are drawn left
	// to right in order.
	Column int
	// Row orders a column's nodes top to bottom (nodes of one row in the
	// order they were added to the graph).
	Row int
	// Level draws the node level with the other Level nodes of its row
	// (in other columns) where their edges allow: a chain along a row.
	Level bool
}

// PlaceVariable draws v at p in the figures WriteDOTWith writes (see
// PlaceFactor). A variable of another graph is ignored.
func (g *Graph) PlaceVariable(v *Variable, p DOTPlace) {
	if v != nil && v.g == g {
		g.place(v.id, p)
	}
}

// PlaceFactor draws f at p in the figures WriteDOTWith writes. A graph
// with placed nodes is laid out in their columns, left to right, each
// column's nodes top to bottom by row, and drawn closer (Graphviz ranksep
// 0.15 inches, boxes 0.3 inches high with labels at 12 points, clusters
// with a margin of 4 points). Nodes without a
// place are placed by Graphviz, and a placed factor's observed output is
// not moved under its state. A factor of another graph is ignored. The
// places are kept apart from the nodes, in a map of the graph made on
// first use, so that graphs never drawn pay nothing.
func (g *Graph) PlaceFactor(f *FactorNode, p DOTPlace) {
	if f != nil && f.g == g {
		g.place(f.id, p)
	}
}

func (g *Graph) place(id int, p DOTPlace) {
	if g.places == nil {
		g.places = map[int]DOTPlace{}
	}
	g.places[id] = p
}

// placed reports whether the node of id has a place.
func (g *Graph) placed(id int) bool {
	_, ok := g.places[id]
	return ok
}

// placeNodes writes the places of the drawn nodes (nodes, by id) to d:
// the row of a Level node as its Graphviz group, each column's nodes as a
// group of one rank (returned, top to bottom) held in order by invisible
// edges, and an invisible edge from each column's first node to the next
// column's. Graphviz (2.43, rankdir LR) keeps the order of such an edge
// between two nodes of a cluster (clustered) the other way round, top to
// bottom from its head, so it is written from the lower node then; its
// second pass of crossing reduction, which may reorder a cluster's
// column, is turned off (remincross, WriteDOTWith).
func (g *Graph) placeNodes(d *dot.Graph, nodes map[int]dot.Node, clustered map[int]bool) [][]string {
	type entry struct {
		id int
		p  DOTPlace
	}
	var drawn []entry
	for id, p := range g.places {
		if _, ok := nodes[id]; ok {
			drawn = append(drawn, entry{id, p})
		}
	}
	slices.SortFunc(drawn, func(a, b entry) int {
		if a.p.Column != b.p.Column {
			return a.p.Column - b.p.Column
		}
		if a.p.Row != b.p.Row {
			return a.p.Row - b.p.Row
		}
		return a.id - b.id
	})
	var cols [][]string
	var prevFirst dot.Node
	for i, e := range drawn {
		n := nodes[e.id]
		if e.p.Level {
			n.Attr("group", "r"+strconv.Itoa(e.p.Row))
		}
		if i == 0 || drawn[i-1].p.Column != e.p.Column {
			if i > 0 {
				// Left to right, without pulling the rows.
				d.Edge(prevFirst, n).Attr("style", "invis").Attr("weight", "0")
			}
			prevFirst = n
			cols = append(cols, nil)
		} else if prev := drawn[i-1].id; clustered[prev] && clustered[e.id] {
			d.Edge(n, nodes[prev]).Attr("style", "invis")
		} else {
			d.Edge(nodes[prev], n).Attr("style", "invis")
		}
		cols[len(cols)-1] = append(cols[len(cols)-1], n.GetAttr("id").(string))
	}
	return cols
}

// levelEdge weighs the edge e between factor f and variable v when both
// are Level in one row, so that Graphviz draws the row straight across a
// plate's border too (where the row's group alone does not hold it).
func (g *Graph) levelEdge(e dot.Edge, f *FactorNode, v *Variable) {
	pf, okf := g.places[f.id]
	pv, okv := g.places[v.id]
	if okf && okv && pf.Level && pv.Level && pf.Row == pv.Row {
		e.Attr("weight", "10")
	}
}
