package ffg

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/emicklei/dot"
)

// WriteDOT writes the graph in Graphviz DOT. Variables are circles
// (observed ones filled gray), factors are boxes labelled with their Label,
// or their name, or their kind, and every edge carries its interface name; the edge from
// a factor to its output variable (interface 0) is an arrow, the others are
// plain lines, as in the paper's Forney factor graphs. Variables and factors
// with a Cluster are drawn inside a cluster of that name. The output is
// deterministic: it depends on the order in which things were added, never
// on map order. Whitespace-only lines are removed.
func (g *Graph) WriteDOT(w io.Writer) error {
	d := dot.NewGraph(dot.Directed)
	d.Attr("rankdir", "LR")
	clusters := map[string]*dot.Graph{}
	var order []string
	sub := func(name string) *dot.Graph {
		if name == "" {
			return d
		}
		c, ok := clusters[name]
		if !ok {
			// Cluster ids are zero-padded by first use, so that emicklei/dot's
			// sorted subgraph keys keep our order.
			c = d.Subgraph(fmt.Sprintf("cluster_%06d", len(order)), dot.ClusterOption{})
			c.Attr("label", name)
			clusters[name] = c
			order = append(order, name)
		}
		return c
	}
	nodes := make(map[int]dot.Node, len(g.vars)+len(g.factors))
	for _, v := range g.vars {
		label := v.Label
		if label == "" {
			label = v.name
		}
		if label == "" {
			label = fmt.Sprintf("#%d", v.id)
		}
		n := sub(v.Cluster).Node(fmt.Sprintf("v%d", v.id)).Label(label).Attr("shape", "circle")
		if v.observed {
			n.Attr("style", "filled").Attr("fillcolor", "gray")
		}
		nodes[v.id] = n
	}
	for _, f := range g.factors {
		label := f.Label
		if label == "" {
			label = f.name
		}
		if label == "" {
			if l, ok := f.factor.(Labeler); ok {
				label = l.Label()
			} else {
				label = f.factor.Kind()
			}
		}
		cl := f.Cluster
		if cl == "" {
			cl = f.vars[0].Cluster
		}
		n := sub(cl).Node(fmt.Sprintf("f%d", f.id)).Label(label).Box()
		nodes[f.id] = n
		ifs := f.factor.Interfaces()
		for k, v := range f.vars {
			e := d.Edge(n, nodes[v.id]).Attr("taillabel", ifs[k].Name).Attr("fontsize", "9")
			if k != 0 {
				e.Attr("dir", "none")
			}
		}
	}
	var buf bytes.Buffer
	d.Write(&buf)
	bw := bufio.NewWriter(w)
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 64*1024), 1<<30)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		if _, err := bw.WriteString(line + "\n"); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return bw.Flush()
}
