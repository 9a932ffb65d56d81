package model

import (
	"fmt"
	"strings"
)

// A factor makes its output (interface 0) from the variables at its other
// interfaces, so a model's factors are the arrows parent → output of a
// directed graph, and the model is a joint density, the product of its
// factors, only when that graph has no cycle: x ~ N(y, 1) with
// y ~ N(x, 1) makes each the other's parent, and the product of the two
// factors does not integrate to one (it is not a distribution at all, and
// inference on it would report numbers that mean nothing).

// maxCycleNames is how many variables of a directed cycle an error names.
const maxCycleNames = 8

// checkAcyclic returns an error naming a directed cycle of m's factors
// (the file's variables, in order, and the field of each factor), nil
// when there is none. It is linear in the size of the model.
func checkAcyclic(m *Model) error {
	// Variables by ID.
	maxID := 0
	for _, v := range m.Variables {
		maxID = max(maxID, v.ID())
	}
	index := make([]int32, maxID+1)
	for i := range index {
		index[i] = -1
	}
	for i, v := range m.Variables {
		index[v.ID()] = int32(i)
	}
	// Each factor's output and parents, by position in m.Variables.
	nv := len(m.Variables)
	outs := make([]int32, len(m.Factors))
	parStart := make([]int32, 1, len(m.Factors)+1)
	edges := 0
	for _, fn := range m.Factors {
		edges += len(fn.Variables()) - 1
	}
	parents := make([]int32, 0, edges)
	for fi, fn := range m.Factors {
		vars := fn.Variables()
		outs[fi] = index[vars[0].ID()]
		for _, w := range vars[1:] {
			parents = append(parents, index[w.ID()])
		}
		parStart = append(parStart, int32(len(parents)))
	}
	path, via, c, fi, found := directedCycle(nv, outs, parents, parStart)
	if found {
		return m.cycleError(path, via, c, fi)
	}
	return nil
}

// directedCycle looks for a directed cycle among nv variables made by
// factors: factor fi makes outs[fi] from parents[parStart[fi]:parStart[fi+1]].
// When it finds one, the search's path ends on the variable from which
// factor fi makes c, a variable of the path, and via[i] is the factor by
// which the search reached i.
func directedCycle(nv int, outs, parents, parStart []int32) (path, via []int32, c, fi int32, found bool) {
	// For each variable its factors as a parent: children[start[i]:start[i+1]].
	start := make([]int32, nv+1)
	for _, p := range parents {
		start[p+1]++
	}
	for i := range nv {
		start[i+1] += start[i]
	}
	children := make([]int32, len(parents))
	fill := append([]int32(nil), start[:nv]...)
	for f := range outs {
		for _, p := range parents[parStart[f]:parStart[f+1]] {
			children[fill[p]] = int32(f)
			fill[p]++
		}
	}
	// Depth-first search, iterative: state 0 unvisited, 1 on the path, 2
	// done.
	state := make([]uint8, nv)
	via = make([]int32, nv)
	next := make([]int32, nv) // the next child of i to follow
	for root := range nv {
		if state[root] != 0 {
			continue
		}
		path = append(path[:0], int32(root))
		state[root], via[root], next[root] = 1, -1, start[root]
		for len(path) > 0 {
			i := path[len(path)-1]
			if next[i] == start[i+1] {
				state[i] = 2
				path = path[:len(path)-1]
				continue
			}
			fi = children[next[i]]
			next[i]++
			c = outs[fi]
			switch state[c] {
			case 1:
				return path, via, c, fi, true
			case 0:
				state[c], via[c], next[c] = 1, fi, start[c]
				path = append(path, c)
			}
		}
	}
	return nil, nil, 0, 0, false
}

// cycleError names the cycle that closes when factor fi makes variable c
// (on the path) from the path's last variable.
func (m *Model) cycleError(path, via []int32, c, fi int32) error {
	k := len(path) - 1
	for path[k] != c {
		k--
	}
	cyc := path[k:]
	names := make([]string, 0, min(len(cyc), maxCycleNames)+2)
	for j, i := range cyc {
		if j == maxCycleNames {
			names = append(names, fmt.Sprintf("… (%d more)", len(cyc)-j))
			break
		}
		names = append(names, shortName(m.Variables[i].Name()))
	}
	names = append(names, shortName(m.Variables[c].Name()))
	// The factors along the cycle: the one into each variable after the
	// first, then fi back into the first.
	makes := make([]string, 0, min(len(cyc), maxCycleNames))
	for j := 1; j <= len(cyc) && len(makes) < maxCycleNames; j++ {
		from, to, f := cyc[j-1], c, fi
		if j < len(cyc) {
			to, f = cyc[j], via[cyc[j]]
		}
		makes = append(makes, fmt.Sprintf("%s makes %s from %s", m.factorFields[f],
			shortName(m.Variables[to].Name()), shortName(m.Variables[from].Name())))
	}
	return &Error{File: m.Name, Field: "factors", Err: fmt.Errorf(
		"a directed cycle %s (%s): a variable that is its own ancestor leaves the factors' product without a joint density; remove one of these arrows",
		strings.Join(names, " → "), strings.Join(makes, "; "))}
}
