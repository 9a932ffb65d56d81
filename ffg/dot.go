package ffg

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/emicklei/dot"
)

// orthoNodes bounds the graphs drawn with right-angled edges: Graphviz's
// orthogonal router slows down on large graphs and ignores edge labels.
const orthoNodes = 400

// DOTOptions are the options of WriteDOTWith.
type DOTOptions struct {
	// EdgeLabels writes each edge's interface name at the variable's end
	// (out, in, matrix, ...). Off by default: figures read better without.
	EdgeLabels bool
	// Fold says how repeated slices (Graph.FindRepeats) are drawn: all of
	// them (FoldNone, the zero value), once inside a plate (FoldPlates), or
	// the first Unroll, an ellipsis and the last (FoldUnroll).
	Fold FoldMode
	// Unroll is the number of slices drawn before the ellipsis with
	// FoldUnroll (at least 1).
	Unroll int
	// OpenRange labels plates with an open range ("t = 1 … T") rather
	// than their number of slices, for a graph whose length is arbitrary
	// (a POMDP's horizon).
	OpenRange bool
	// Compact draws nodes closer (Graphviz nodesep 0.06 and ranksep 0.3
	// inches rather than 0.25 and 0.5), for a graph with many nodes a step
	// (a POMDP with several factors and modalities).
	Compact bool
	// Plates, when set, names the plates of FoldPlates from what the graph
	// was built from (a model file's declared loops): given a plate's first
	// slice and its number of slices, it returns the plate's label ("t =
	// 1..T-1") and labels for the slice's variables and factors ("x[t]",
	// "N(x[t-1], 0.25)"); an empty label or a node left out keeps the
	// label found from the wiring ("t = 1 … 19", "xₜ").
	Plates func(first Slice, n int) (label string, vars map[*Variable]string, factors map[*FactorNode]string)
}

// FoldMode is how WriteDOTWith draws repeated structure.
type FoldMode int

const (
	// FoldNone draws every node.
	FoldNone FoldMode = iota
	// FoldPlates draws each repeated slice once, inside a cluster
	// labelled with its range ("t = 1 … T" for the steps of a chain,
	// "n = 1 … N" for i.i.d. slices), its variables and factors named
	// with the index (sₜ for s1, s2, ...) where their names differ only
	// by a number. A chain's edge from one step to the next is drawn
	// from the step before the plate.
	FoldPlates
	// FoldUnroll draws the first Unroll slices of each repeat, an
	// ellipsis node (⋯) in place of the slices left out, and the last
	// slice; an edge to a node left out is drawn, dashed, to the
	// ellipsis.
	FoldUnroll
)

// WriteDOT writes the graph in Graphviz DOT with the default options (see
// WriteDOTWith).
func (g *Graph) WriteDOT(w io.Writer) error { return g.WriteDOTWith(w, DOTOptions{}) }

// WriteDOTWith writes the graph in Graphviz DOT, laid out as the model
// flows, left to right, in the convention of the paper's figures (docs/figures.md):
//
//   - hidden variables are white circles, observed ones gray; factors are
//     white boxes;
//   - every edge follows the generative direction: from each input of a
//     factor (its parents and parameters) to the factor, drawn as a line,
//     and from the factor to its output, drawn as an arrow;
//   - a factor whose output is observed is drawn in the same column as its
//     first hidden input, with its output below it, so that observations
//     sit on one side of their states and a chain's height does not grow
//     with its length (when the state has one such observation; several
//     are drawn in the columns to its right);
//   - nodes placed with PlaceVariable and PlaceFactor are drawn in their
//     columns and rows (and their observations where placed);
//   - variables are circles of one size, that of the longest label, which
//     is drawn smaller when long (variableFont);
//   - edges from a parameter shared by several factors (a Dirichlet or
//     Gamma input) do not pull the columns, and edges are right-angled
//     (up to orthoNodes nodes, without edge labels), so that a shared
//     parameter reaches its factors from above;
//   - a factor is labelled by its Label, or its name, or a label derived
//     from its kind and neighbours that never repeats a variable's label
//     (Cat(B) for a distribution whose parameter is the variable B,
//     P(o₃ | s₃) for a literal table, p(B) for a prior);
//   - a trailing number or an underscore suffix is a subscript (s0 → s₀,
//     S_0 → S₀) and Greek names are letters (gamma → γ).
//
// Node ids follow the build order, and the output is deterministic. A nil
// w is an error.
func (g *Graph) WriteDOTWith(w io.Writer, o DOTOptions) error {
	if w == nil {
		return errors.New("ffg: WriteDOT: nil writer")
	}
	if o.Fold == FoldUnroll && o.Unroll < 1 {
		return fmt.Errorf("ffg: WriteDOT: Unroll %d with FoldUnroll: want at least 1 slice before the ellipsis", o.Unroll)
	}
	if o.Fold < FoldNone || o.Fold > FoldUnroll {
		return fmt.Errorf("ffg: WriteDOT: unknown Fold %d", o.Fold)
	}
	fd := g.foldFor(o)
	d := dot.NewGraph(dot.Directed)
	d.Attr("rankdir", "LR")
	d.Attr("newrank", "true")
	if o.Compact {
		d.Attr("nodesep", "0.06")
		d.Attr("ranksep", "0.3")
	}
	if len(g.places) > 0 {
		d.Attr("ranksep", "0.15")
		// Graphviz's second pass of crossing reduction reorders the nodes
		// of a column inside a cluster freely (placeNodes).
		d.Attr("remincross", "false")
	}
	if !o.EdgeLabels && len(g.vars)+len(g.factors) <= orthoNodes {
		// Right-angled edges: a parameter shared along a chain reaches
		// each of its factors from above, as in printed figures.
		d.Attr("splines", "ortho")
	}
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
			if len(g.places) > 0 {
				c.Attr("margin", "4") // points, rather than 8
			}
			clusters[name] = c
			order = append(order, name)
		}
		return c
	}
	nodes := make(map[int]dot.Node, len(g.vars)+len(g.factors))
	clustered := map[int]bool{} // placed graphs: the nodes drawn in a cluster
	labels := make(map[*Variable]string, len(g.vars))
	for _, v := range g.vars {
		label := PrettyName(v.Label)
		if label == "" {
			label = PrettyName(v.name)
		}
		if l, ok := fd.vlabel[v]; ok && v.Label == "" {
			label = l
		}
		if label == "" {
			label = fmt.Sprintf("#%d", v.id)
		}
		labels[v] = label
	}
	// Every variable is drawn at one size, the circle that holds the
	// longest label at its font size (variableFont).
	width := 0.0
	for _, v := range g.vars {
		if !fd.hiddenV(v) {
			width = max(width, labelWidth(labels[v]))
		}
	}
	size := fmt.Sprintf("%.2f", width)
	for _, v := range g.vars {
		if fd.hiddenV(v) {
			continue
		}
		label := labels[v]
		cl := v.Cluster
		if p, ok := fd.vplate[v]; ok {
			cl = p
		}
		if cl != "" && len(g.places) > 0 {
			clustered[v.id] = true
		}
		n := sub(cl).Node(fmt.Sprintf("v%06d", v.id)).Label(label).Attr("shape", "circle").Attr("id", fmt.Sprintf("v%06d", v.id))
		n.Attr("fixedsize", "true").Attr("width", size).Attr("height", size)
		if f := variableFont(label); f != defaultFont {
			n.Attr("fontsize", strconv.Itoa(f))
		}
		if v.observed {
			n.Attr("style", "filled").Attr("fillcolor", "gray")
		}
		nodes[v.id] = n
	}
	var sameRank [][]string // ids of nodes drawn in one column, top to bottom
	// An observed output: the factor and the observation in the column of
	// the first hidden categorical input, when that is the only
	// observation drawn there (several go to its right).
	anchors := map[*FactorNode]*Variable{}
	observedChildren := map[*Variable]int{}
	for _, f := range g.factors {
		out := f.vars[0]
		if !out.observed || fd.hiddenF(f) || g.placed(f.id) || g.placed(out.id) {
			continue // not observed, not drawn, or placed by the graph's builder
		}
		for _, v := range f.vars[1:] {
			if v.family == out.family && !v.observed {
				anchors[f] = v
				observedChildren[v]++
				break
			}
		}
	}
	for _, e := range fd.ellipses {
		fd.ellNode[e] = d.Node(e).Label("⋯").Attr("shape", "plaintext").Attr("id", e)
	}
	drawn := map[[2]string]bool{}
	edge := func(from, to dot.Node, fromID, toID string) (dot.Edge, bool) {
		if o.Fold != FoldNone {
			key := [2]string{fromID, toID}
			if drawn[key] {
				return dot.Edge{}, false
			}
			drawn[key] = true
		}
		return d.Edge(from, to), true
	}
	for _, f := range g.factors {
		if fd.hiddenF(f) {
			continue
		}
		label := f.Label
		if label == "" {
			label = PrettyName(f.name)
			if l, ok := fd.flabel[f]; ok {
				label = l
			}
		}
		if label == "" {
			label = factorLabel(f, labels)
		}
		cl := f.Cluster
		if cl == "" {
			cl = f.vars[0].Cluster
		}
		if p, ok := fd.fplate[f]; ok {
			cl = p
		}
		if cl != "" && len(g.places) > 0 {
			clustered[f.id] = true
		}
		n := sub(cl).Node(fmt.Sprintf("f%06d", f.id)).Label(label).Box().Attr("id", fmt.Sprintf("f%06d", f.id))
		if len(g.places) > 0 {
			n.Attr("height", "0.3").Attr("margin", "0.04,0.03").Attr("fontsize", "12")
		}
		nodes[f.id] = n
		ifs := f.factor.Interfaces()
		out := f.vars[0]
		anchor := anchors[f]
		fid := fmt.Sprintf("f%06d", f.id)
		for k, v := range f.vars {
			var e dot.Edge
			vn, vid, dashed, ok := fd.target(f, v, nodes)
			if !ok {
				continue
			}
			if k == 0 {
				if e, ok = edge(n, vn, fid, vid); !ok {
					continue
				}
			} else {
				if e, ok = edge(vn, n, vid, fid); !ok {
					continue
				}
				e.Attr("dir", "none")
			}
			if dashed {
				e.Attr("style", "dashed")
			}
			if len(g.places) > 0 {
				g.levelEdge(e, f, fd.drawnVar(v))
			}
			if k > 0 {
				if v.family != out.family && (len(v.edges) > 2 || v.family == expfam.DirichletFamily) {
					// A shared parameter, or any Dirichlet one: do not let
					// it pull the columns.
					e.Attr("constraint", "false")
				}
			}
			if o.EdgeLabels {
				e.Attr("headlabel", ifs[k].Name).Attr("fontsize", "9")
				if k == 0 {
					e.Attr("headlabel", "").Attr("taillabel", ifs[k].Name)
				}
			}
		}
		if anchor != nil && observedChildren[anchor] == 1 && anchor.Cluster == out.Cluster && fd.vplate[anchor] == fd.vplate[out] && !fd.hiddenV(anchor) && !fd.hiddenV(out) {
			// Same column, top to bottom: the state, the factor, the
			// observation (flat edges keep tail before head).
			sameRank = append(sameRank, []string{fmt.Sprintf("v%06d", anchor.id), fmt.Sprintf("f%06d", f.id), fmt.Sprintf("v%06d", out.id)})
		}
	}
	for _, f := range g.factors {
		if fd.hiddenF(f) {
			fd.foldedEdges(f, nodes, edge)
		}
	}
	if len(g.places) > 0 {
		sameRank = append(sameRank, g.placeNodes(d, nodes, clustered)...)
	}
	var buf bytes.Buffer
	d.Write(&buf)
	if len(sameRank) > 0 {
		buf = withSameRank(buf.Bytes(), sameRank)
	}
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

// defaultFont is Graphviz's font size in points.
const defaultFont = 14

// variableFont is the font size of a variable's label: 14 points up to 7
// characters, smaller for longer labels, down to 10 points, so that the
// labels of a figure fit circles of one size.
func variableFont(label string) int {
	n := utf8.RuneCountInString(label)
	if n <= 7 {
		return defaultFont
	}
	return max(10, defaultFont*7/n)
}

// labelWidth is the diameter in inches of a circle that holds label at
// variableFont: half an em a character (Times), with a margin; at least
// 0.6 inches (a one- or two-character name).
func labelWidth(label string) float64 {
	n := utf8.RuneCountInString(label)
	return max(0.6, float64(n*variableFont(label))*0.5/72+0.2)
}

// factorLabel derives a factor's label from its kind and neighbours:
// Cat(B) when a parameter variable B gives its distribution, P(o | s) for
// a literal conditional table, P(s) for a literal distribution, p(B) for a
// prior over a parameter, σ(−γG) for the softmax policy prior; a factor
// that is a NeighbourLabeler (the Normal nodes: N(μ, τ⁻¹)) labels itself
// from its neighbours' labels.
func factorLabel(f *FactorNode, labels map[*Variable]string) string {
	out := labels[f.vars[0]]
	if nl, ok := f.factor.(NeighbourLabeler); ok {
		names := make([]string, len(f.vars))
		for k, v := range f.vars {
			names[k] = labels[v]
		}
		return nl.LabelWith(names)
	}
	switch f.factor.Kind() {
	case "dirichlet", "gamma":
		return "p(" + out + ")"
	case "softmax":
		if len(f.vars) > 1 {
			return "σ(−" + labels[f.vars[1]] + " G)"
		}
	}
	// A parameter (a non-categorical input) names the distribution.
	for _, v := range f.vars[1:] {
		if v.family != f.vars[0].family {
			return "Cat(" + labels[v] + ")"
		}
	}
	if len(f.vars) == 1 {
		return "P(" + out + ")"
	}
	parts := make([]string, 0, len(f.vars)-1)
	for _, v := range f.vars[1:] {
		parts = append(parts, labels[v])
	}
	return "P(" + out + " | " + strings.Join(parts, ", ") + ")"
}

var greek = map[string]string{
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "eta": "η",
	"theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "pi": "π", "rho": "ρ",
	"sigma": "σ", "tau": "τ", "phi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
}

var subscripts = []rune("₀₁₂₃₄₅₆₇₈₉")

// PrettyName writes a variable or factor name as a figure shows it: a
// Greek name as its letter (gamma → γ), and the digits after a name of
// letters, with or without an underscore, as a subscript (s0 → s₀,
// S_12 → S₁₂, theta1 → θ₁). Other names are unchanged.
func PrettyName(name string) string {
	base, digits := name, ""
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i > 0 && i < len(name) {
		base, digits = name[:i], name[i:]
		base = strings.TrimSuffix(base, "_")
	} else if i == 0 {
		return name // all digits
	}
	for _, r := range base {
		if !unicode.IsLetter(r) {
			return name
		}
	}
	if g, ok := greek[strings.ToLower(base)]; ok && base == strings.ToLower(base) {
		base = g
	} else if g, ok := greek[strings.ToLower(base)]; ok && unicode.IsUpper(rune(base[0])) {
		base = strings.ToUpper(g)
	}
	var b strings.Builder
	b.WriteString(base)
	for _, r := range digits {
		b.WriteRune(subscripts[r-'0'])
	}
	return b.String()
}

// withSameRank adds {rank=same; ...} statements for the groups of node ids
// (our "id" attributes) to the DOT text of emicklei/dot, whose own rank
// groups are written in map order; ours keep the build order.
func withSameRank(text []byte, groups [][]string) bytes.Buffer {
	seqOf := map[string]string{}
	for _, line := range strings.Split(string(text), "\n") {
		t := strings.TrimSpace(line)
		i := strings.Index(t, "[")
		j := strings.Index(t, `id="`)
		if i <= 0 || j < 0 || strings.Contains(t[:i], "->") {
			continue
		}
		rest := t[j+4:]
		k := strings.Index(rest, `"`)
		if k < 0 {
			continue
		}
		seqOf[rest[:k]] = t[:i]
	}
	s := strings.TrimRight(string(text), "\n")
	s = strings.TrimSuffix(s, "}")
	var b bytes.Buffer
	b.WriteString(s)
	for _, g := range groups {
		b.WriteString("\t{rank=same;")
		for _, id := range g {
			if n, ok := seqOf[id]; ok {
				b.WriteString(" " + n + ";")
			}
		}
		b.WriteString("}\n")
	}
	b.WriteString("}\n")
	return b
}

// NeighbourLabeler is the optional interface of a factor whose DOT label is
// written from the labels of the variables bound to it, in interface order
// (the Normal node: N(μ, τ⁻¹) with its mean's and precision's labels).
type NeighbourLabeler interface {
	LabelWith(neighbours []string) string
}
