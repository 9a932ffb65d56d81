package ffg

import (
	"fmt"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/emicklei/dot"
)

// foldDraw is what WriteDOTWith needs to draw repeated slices folded: the
// nodes it does not draw (redirected to the first slice's in a plate, or
// left out for an ellipsis), plate clusters and indexed labels. Its zero
// value draws everything.
type foldDraw struct {
	redirV   map[*Variable]*Variable
	redirF   map[*FactorNode]*FactorNode
	omitV    map[*Variable]string
	omitF    map[*FactorNode]string
	repV     map[*Variable]int // repeat index + 1 of a node in a slice
	repF     map[*FactorNode]int
	vplate   map[*Variable]string
	fplate   map[*FactorNode]string
	vlabel   map[*Variable]string
	flabel   map[*FactorNode]string
	ellipses []string
	ellNode  map[string]dot.Node
}

var (
	chainLetters  = []string{"t", "k"}
	fanOutLetters = []string{"n", "m"}
	letterSub     = map[string]string{"t": "ₜ", "k": "ₖ", "n": "ₙ", "m": "ₘ"}
)

func (g *Graph) foldFor(o DOTOptions) *foldDraw {
	fd := &foldDraw{ellNode: map[string]dot.Node{}}
	if o.Fold == FoldNone {
		return fd
	}
	fd.redirV, fd.redirF = map[*Variable]*Variable{}, map[*FactorNode]*FactorNode{}
	fd.omitV, fd.omitF = map[*Variable]string{}, map[*FactorNode]string{}
	fd.repV, fd.repF = map[*Variable]int{}, map[*FactorNode]int{}
	fd.vplate, fd.fplate = map[*Variable]string{}, map[*FactorNode]string{}
	fd.vlabel, fd.flabel = map[*Variable]string{}, map[*FactorNode]string{}
	used := map[RepeatKind]int{}
	for ri, r := range g.FindRepeats() {
		for _, s := range r.Slices {
			for _, v := range s.Variables {
				fd.repV[v] = ri + 1
			}
			for _, f := range s.Factors {
				fd.repF[f] = ri + 1
			}
		}
		n := len(r.Slices)
		first := r.Slices[0]
		if o.Fold == FoldPlates {
			letters := fanOutLetters
			if r.Kind == Chain {
				letters = chainLetters
			}
			i := used[r.Kind]
			used[r.Kind]++
			letter := letters[i%len(letters)]
			sub := letterSub[letter]
			if i >= len(letters) {
				letter += strings.Repeat("′", i/len(letters))
				sub = "[" + letter + "]"
			}
			plate := fmt.Sprintf("%s = 1 … %d", letter, n)
			if o.OpenRange {
				plate = fmt.Sprintf("%s = 1 … %s", letter, strings.ToUpper(letter))
			}
			var declV map[*Variable]string
			var declF map[*FactorNode]string
			if o.Plates != nil {
				var label string
				if label, declV, declF = o.Plates(first, n); label != "" {
					plate = label
				}
			}
			for _, s := range r.Slices[1:] {
				for k, v := range s.Variables {
					fd.redirV[v] = first.Variables[k]
				}
				for k, f := range s.Factors {
					fd.redirF[f] = first.Factors[k]
				}
			}
			for k, v := range first.Variables {
				fd.vplate[v] = plate
				names := make([]string, n)
				for j, s := range r.Slices {
					names[j] = s.Variables[k].name
				}
				if base, ok := indexedBase(names); ok {
					fd.vlabel[v] = PrettyName(base) + sub
				}
				if l, ok := declV[v]; ok {
					fd.vlabel[v] = l
				}
			}
			for k, f := range first.Factors {
				fd.fplate[f] = plate
				names := make([]string, n)
				for j, s := range r.Slices {
					names[j] = s.Factors[k].name
				}
				if base, ok := indexedBase(names); ok {
					fd.flabel[f] = PrettyName(base) + sub
				}
				if l, ok := declF[f]; ok && f.name == "" {
					fd.flabel[f] = l
				}
			}
			continue
		}
		if o.Unroll+1 >= n {
			continue // every slice is drawn
		}
		ell := fmt.Sprintf("e%06d", ri)
		fd.ellipses = append(fd.ellipses, ell)
		for _, s := range r.Slices[o.Unroll : n-1] {
			for _, v := range s.Variables {
				fd.omitV[v] = ell
			}
			for _, f := range s.Factors {
				fd.omitF[f] = ell
			}
		}
	}
	return fd
}

// indexedBase returns the common base of names that differ only by a
// trailing number (s1, s2, ... → s), false if they do not.
func indexedBase(names []string) (string, bool) {
	base := ""
	distinct := map[string]bool{}
	for i, n := range names {
		j := len(n)
		for j > 0 && n[j-1] >= '0' && n[j-1] <= '9' {
			j--
		}
		if j == len(n) || j == 0 {
			return "", false
		}
		b := strings.TrimSuffix(n[:j], "_")
		if i == 0 {
			base = b
		} else if b != base {
			return "", false
		}
		distinct[n[j:]] = true
	}
	return base, len(distinct) == len(names) && base != ""
}

func (fd *foldDraw) hiddenV(v *Variable) bool {
	if _, ok := fd.redirV[v]; ok {
		return true
	}
	_, ok := fd.omitV[v]
	return ok
}

func (fd *foldDraw) hiddenF(f *FactorNode) bool {
	if _, ok := fd.redirF[f]; ok {
		return true
	}
	_, ok := fd.omitF[f]
	return ok
}

// drawnVar is the variable drawn for v: its counterpart in a plate, or v.
func (fd *foldDraw) drawnVar(v *Variable) *Variable {
	if rv, ok := fd.redirV[v]; ok {
		return rv
	}
	return v
}

// target is the node that an edge from drawn factor f to v goes to: v,
// its counterpart in a plate, or an ellipsis (dashed); ok is false for an
// edge not drawn (from one step of a chain to the next, inside a plate).
func (fd *foldDraw) target(f *FactorNode, v *Variable, nodes map[int]dot.Node) (n dot.Node, id string, dashed, ok bool) {
	if rv, red := fd.redirV[v]; red {
		if fd.repF[f] != 0 && fd.repF[f] == fd.repV[v] {
			return n, "", false, false
		}
		return nodes[rv.id], fmt.Sprintf("v%06d", rv.id), false, true
	}
	if e, om := fd.omitV[v]; om {
		return fd.ellNode[e], e, true, true
	}
	return nodes[v.id], fmt.Sprintf("v%06d", v.id), false, true
}

// foldedEdges draws the edges of a factor that is not drawn to the nodes
// that are outside its slice: from its plate counterpart, or (dashed) from
// the ellipsis that stands for it. Edges already drawn are not repeated.
func (fd *foldDraw) foldedEdges(f *FactorNode, nodes map[int]dot.Node, edge func(from, to dot.Node, fromID, toID string) (dot.Edge, bool)) {
	var fn dot.Node
	var fid string
	dashed := false
	if rf, ok := fd.redirF[f]; ok {
		fn, fid = nodes[rf.id], fmt.Sprintf("f%06d", rf.id)
	} else {
		fid = fd.omitF[f]
		fn, dashed = fd.ellNode[fid], true
	}
	for k, v := range f.vars {
		if fd.repV[v] != 0 && fd.repV[v] == fd.repF[f] && (fd.hiddenV(v) || fd.redirF[f] != nil) {
			continue // inside the repeat: its own slice, or the step before
		}
		vn, vid, d, ok := fd.target(f, v, nodes)
		if !ok {
			continue
		}
		var e dot.Edge
		if k == 0 {
			if e, ok = edge(fn, vn, fid, vid); !ok {
				continue
			}
		} else {
			if e, ok = edge(vn, fn, vid, fid); !ok {
				continue
			}
			e.Attr("dir", "none")
			if v.family != f.vars[0].family && (len(v.edges) > 2 || v.family == expfam.DirichletFamily) {
				e.Attr("constraint", "false")
			}
		}
		if dashed || d {
			e.Attr("style", "dashed")
		}
	}
}
