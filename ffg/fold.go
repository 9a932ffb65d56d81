package ffg

import (
	"encoding/binary"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
)

// RepeatKind says how the slices of a Repeat are joined.
type RepeatKind int

const (
	// Chain: each slice is joined to the next through a variable of the
	// one that a factor of the next reads (the time steps of a chain).
	Chain RepeatKind = iota
	// FanOut: the slices are joined only through variables they share
	// (i.i.d. observations under shared parents).
	FanOut
)

func (k RepeatKind) String() string {
	if k == Chain {
		return "chain"
	}
	return "fan-out"
}

// A Slice is one repetition of a Repeat: its variables and factors, in an
// order that matches node for node the other slices of the Repeat (the
// build order of the first slice).
type Slice struct {
	Variables []*Variable
	Factors   []*FactorNode
}

// A Repeat is a run of structurally identical slices of a graph.
type Repeat struct {
	Kind   RepeatKind
	Slices []Slice
}

// MinRepeat is the fewest slices that FindRepeats reports as a Repeat.
const MinRepeat = 3

// FindRepeats finds the repeated structure of a graph from its wiring
// alone (names and labels play no part): the time steps of a chain and the
// i.i.d. slices fanned out from shared parents. It proceeds in four steps:
//
//  1. a factor's colour is its kind, its interface names and the family,
//     shape and observed flag of each variable bound to it; a variable's colour
//     is its family, shape and observed flag;
//  2. a hub is a variable bound at the same interface to MinRepeat or
//     more factors of one colour (a parameter shared by every time step,
//     the weights and components of a mixture);
//  3. a chain edge binds a factor's input to the output of a factor of
//     the same colour (the transition of step t reads the state of step
//     t−1), when its own output is read in turn; where a state has
//     several such readers, the one whose output is read by a factor of
//     the same colour is the chain's; the first step's edge at the same
//     interface (from a prior's variable) is a chain edge too;
//  4. without the hubs and the chain edges, the graph falls into pieces;
//     pieces whose structure is the same (the same colours and wiring,
//     the same hubs at the same interfaces, compared by colour
//     refinement) form a Chain when each is joined by chain edges to the
//     next, a FanOut when they have no chain edge.
//
// Runs of at least MinRepeat identical pieces are reported, in the order
// of their first node in the graph; a graph with no repetition has none.
// The slices of a Repeat are disjoint, and no node is in two Repeats.
func (g *Graph) FindRepeats() []Repeat {
	nv, nf := len(g.vars), len(g.factors)
	if nf == 0 {
		return nil
	}
	// Node index: variables 0..nv-1, factors nv..nv+nf-1.
	vIdx := make(map[*Variable]int, nv)
	for i, v := range g.vars {
		vIdx[v] = i
	}
	fIdx := make(map[*FactorNode]int, nf)
	for i, f := range g.factors {
		fIdx[f] = nv + i
	}
	// 1. Colours.
	col := make([]uint64, nv+nf)
	for i, v := range g.vars {
		col[i] = hashStrings("v", v.family.String(), shapeKey(v.shape), strconv.FormatBool(v.observed))
	}
	for i, f := range g.factors {
		parts := []string{"f", f.factor.Kind()}
		for k, in := range f.factor.Interfaces() {
			v := f.vars[k]
			parts = append(parts, in.Name, v.family.String(), shapeKey(v.shape), strconv.FormatBool(v.observed))
		}
		col[nv+i] = hashStrings(parts...)
	}
	// 2. Hubs.
	hub := make([]bool, nv)
	for i, v := range g.vars {
		count := map[[2]uint64]int{}
		for _, e := range v.edges {
			key := [2]uint64{col[fIdx[e.f]], uint64(e.k)}
			count[key]++
			if count[key] >= MinRepeat {
				hub[i] = true
			}
		}
	}
	// 3. Chain edges: factor f reads at interface k the output of a
	// factor of f's colour.
	type fk struct {
		f *FactorNode
		k int
	}
	producer := map[*Variable]*FactorNode{}
	for _, f := range g.factors {
		if len(f.vars) > 0 {
			if _, ok := producer[f.vars[0]]; !ok {
				producer[f.vars[0]] = f
			}
		}
	}
	readers := map[*Variable][]fk{} // same-colour readers of a produced variable
	for _, f := range g.factors {
		for k := 1; k < len(f.vars); k++ {
			v := f.vars[k]
			if hub[vIdx[v]] {
				continue
			}
			// A step's output is read in turn (a chain's leaves are not
			// steps).
			if p, ok := producer[v]; ok && p != f && col[fIdx[p]] == col[fIdx[f]] && len(f.vars[0].edges) > 1 {
				readers[v] = append(readers[v], fk{f, k})
			}
		}
	}
	chainEdge := map[fk]bool{}
	for _, v := range g.vars {
		rs := readers[v]
		if len(rs) == 1 {
			chainEdge[rs[0]] = true
			continue
		}
		// Several readers: the chain goes on through the one whose own
		// output is read in turn.
		var cont []fk
		for _, r := range rs {
			if len(readers[r.f.vars[0]]) > 0 {
				cont = append(cont, r)
			}
		}
		if len(cont) == 1 {
			chainEdge[cont[0]] = true
		}
	}
	// The first step of a chain reads a variable of another producer (a
	// prior): its edge at the chain's interface is a chain edge too.
	var firsts []fk
	for e := range chainEdge {
		v := e.f.vars[e.k]
		if p := producer[v]; p != nil && e.k < len(p.vars) && !hub[vIdx[p.vars[e.k]]] {
			if w := p.vars[e.k]; producer[w] == nil || col[fIdx[producer[w]]] != col[fIdx[p]] {
				firsts = append(firsts, fk{p, e.k})
			}
		}
	}
	for _, e := range firsts {
		chainEdge[e] = true
	}
	// 4. Pieces: connected components without hubs and chain edges.
	piece := make([]int, nv+nf)
	for i := range piece {
		piece[i] = -1
	}
	var pieces [][]int
	for start := range nv + nf {
		if piece[start] >= 0 || (start < nv && hub[start]) {
			continue
		}
		id := len(pieces)
		stack := []int{start}
		piece[start] = id
		var members []int
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			members = append(members, n)
			visit := func(m int) {
				if piece[m] < 0 && !(m < nv && hub[m]) {
					piece[m] = id
					stack = append(stack, m)
				}
			}
			if n < nv {
				for _, e := range g.vars[n].edges {
					if !chainEdge[fk(e)] {
						visit(fIdx[e.f])
					}
				}
			} else {
				f := g.factors[n-nv]
				for k, v := range f.vars {
					if !chainEdge[fk{f, k}] {
						visit(vIdx[v])
					}
				}
			}
		}
		slices.Sort(members)
		pieces = append(pieces, members)
	}
	// Chain links between pieces.
	next := make([]map[int]bool, len(pieces))
	prev := make([]map[int]bool, len(pieces))
	for i := range pieces {
		next[i], prev[i] = map[int]bool{}, map[int]bool{}
	}
	// Attachment features of each node: hubs by identity, chain edges by
	// direction and interface.
	attach := make([][]string, nv+nf)
	for e := range chainEdge {
		fi := fIdx[e.f]
		vi := vIdx[e.f.vars[e.k]]
		a, b := piece[vi], piece[fi]
		next[a][b] = true
		prev[b][a] = true
		attach[fi] = append(attach[fi], "in"+strconv.Itoa(e.k))
	}
	for i, f := range g.factors {
		for k, v := range f.vars {
			if hub[vIdx[v]] {
				attach[nv+i] = append(attach[nv+i], "hub"+strconv.Itoa(k)+":"+strconv.Itoa(vIdx[v]))
			}
		}
	}
	// Colour refinement within each piece.
	final := make([]uint64, nv+nf)
	sig := make([]string, len(pieces))
	for p, members := range pieces {
		c := make(map[int]uint64, len(members))
		for _, n := range members {
			a := slices.Clone(attach[n])
			slices.Sort(a)
			c[n] = hashStrings(append([]string{strconv.FormatUint(col[n], 16)}, a...)...)
		}
		rounds := min(len(members), 8)
		for range rounds {
			nc := make(map[int]uint64, len(members))
			for _, n := range members {
				var nb []string
				if n < nv {
					for _, e := range g.vars[n].edges {
						if m := fIdx[e.f]; piece[m] == p && !chainEdge[fk(e)] {
							nb = append(nb, strconv.Itoa(e.k)+":"+strconv.FormatUint(c[m], 16))
						}
					}
				} else {
					f := g.factors[n-nv]
					for k, v := range f.vars {
						if m := vIdx[v]; piece[m] == p && !chainEdge[fk{f, k}] {
							nb = append(nb, strconv.Itoa(k)+":"+strconv.FormatUint(c[m], 16))
						}
					}
				}
				slices.Sort(nb)
				nc[n] = hashStrings(append([]string{strconv.FormatUint(c[n], 16)}, nb...)...)
			}
			c = nc
		}
		cs := make([]string, 0, len(members))
		for _, n := range members {
			final[n] = c[n]
			cs = append(cs, strconv.FormatUint(c[n], 16))
		}
		slices.Sort(cs)
		sig[p] = strings.Join(cs, ",")
	}
	used := make([]bool, len(pieces))
	var reps []Repeat
	// Chains: follow single links between pieces of one signature.
	only := func(m map[int]bool) int {
		if len(m) != 1 {
			return -1
		}
		for k := range m {
			return k
		}
		return -1
	}
	for p := range pieces {
		if used[p] || len(next[p]) == 0 {
			continue
		}
		// Start of a run: no single predecessor of the same signature.
		if q := only(prev[p]); q >= 0 && sig[q] == sig[p] && only(next[q]) == p {
			continue
		}
		run := []int{p}
		inRun := map[int]bool{p: true}
		for {
			q := only(next[run[len(run)-1]])
			if q < 0 || used[q] || sig[q] != sig[p] || only(prev[q]) != run[len(run)-1] || inRun[q] {
				break
			}
			run = append(run, q)
			inRun[q] = true
		}
		if len(run) >= MinRepeat {
			for _, q := range run {
				used[q] = true
			}
			reps = append(reps, g.repeatOf(Chain, run, pieces, final, nv))
		}
	}
	// Fan-outs: pieces without chain edges, grouped by signature.
	groups := map[string][]int{}
	var order []string
	for p := range pieces {
		if used[p] || len(next[p]) > 0 || len(prev[p]) > 0 {
			continue
		}
		if _, ok := groups[sig[p]]; !ok {
			order = append(order, sig[p])
		}
		groups[sig[p]] = append(groups[sig[p]], p)
	}
	for _, s := range order {
		if run := groups[s]; len(run) >= MinRepeat {
			reps = append(reps, g.repeatOf(FanOut, run, pieces, final, nv))
		}
	}
	slices.SortFunc(reps, func(a, b Repeat) int { return firstID(a) - firstID(b) })
	return reps
}

func firstID(r Repeat) int {
	s := r.Slices[0]
	id := 1 << 62
	for _, v := range s.Variables {
		id = min(id, v.id)
	}
	for _, f := range s.Factors {
		id = min(id, f.id)
	}
	return id
}

// repeatOf builds a Repeat from pieces of one signature, matching their
// nodes by final colour and then build order, each slice listed in the
// build order of the first.
func (g *Graph) repeatOf(kind RepeatKind, run []int, pieces [][]int, final []uint64, nv int) Repeat {
	r := Repeat{Kind: kind}
	for _, p := range run {
		members := slices.Clone(pieces[p])
		slices.SortStableFunc(members, func(a, b int) int {
			switch {
			case final[a] < final[b]:
				return -1
			case final[a] > final[b]:
				return 1
			}
			return a - b
		})
		var s Slice
		for _, n := range members {
			if n < nv {
				s.Variables = append(s.Variables, g.vars[n])
			} else {
				s.Factors = append(s.Factors, g.factors[n-nv])
			}
		}
		r.Slices = append(r.Slices, s)
	}
	// The first slice in build order, the others node for node with it.
	vp := make([]int, len(r.Slices[0].Variables))
	for i := range vp {
		vp[i] = i
	}
	slices.SortFunc(vp, func(a, b int) int { return r.Slices[0].Variables[a].id - r.Slices[0].Variables[b].id })
	fp := make([]int, len(r.Slices[0].Factors))
	for i := range fp {
		fp[i] = i
	}
	slices.SortFunc(fp, func(a, b int) int { return r.Slices[0].Factors[a].id - r.Slices[0].Factors[b].id })
	for i, s := range r.Slices {
		var t Slice
		for _, k := range vp {
			t.Variables = append(t.Variables, s.Variables[k])
		}
		for _, k := range fp {
			t.Factors = append(t.Factors, s.Factors[k])
		}
		r.Slices[i] = t
	}
	return r
}

func shapeKey(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}

func hashStrings(parts ...string) uint64 {
	h := fnv.New64a()
	var n [8]byte
	for _, p := range parts {
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return h.Sum64()
}
