package model

import (
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/ffg"
)

// maxIndexOffset is the largest distance between an element's index and a
// loop's value that a figure writes as an offset of the loop's index
// ("x[t-1]" for element 4 at t = 5); farther indices keep their number.
const maxIndexOffset = 9

// DOTPlates returns, for a model file with loops, what ffg.DOTOptions.Plates
// wants: the plates that arbor dot finds from the graph's wiring labelled
// with the file's declared loops. A plate whose first slice holds a factor
// of a loop with as many values as the plate has slices is labelled with
// that loop's index and range as the file writes them ("t = 1..T-1"), and
// the slice's elements and factors with the loop's index in place of its
// value ("x[t]", "x[t-1]", "N(x[t-1], 0.25)"). It returns nil for a model
// without loops (the wiring's labels stand).
func (m *Model) DOTPlates() func(first ffg.Slice, n int) (string, map[*ffg.Variable]string, map[*ffg.FactorNode]string) {
	if m == nil || m.loops == nil || len(m.loops.firstFactor) == 0 {
		return nil
	}
	var pos map[*ffg.FactorNode]int
	return func(first ffg.Slice, n int) (string, map[*ffg.Variable]string, map[*ffg.FactorNode]string) {
		if pos == nil {
			pos = make(map[*ffg.FactorNode]int, len(m.Factors))
			for i, f := range m.Factors {
				pos[f] = i
			}
		}
		for _, f := range first.Factors {
			i, ok := pos[f]
			if !ok {
				continue
			}
			levels, vals, count := m.loopOf(i)
			if len(levels) == 0 || count != n {
				continue
			}
			var label strings.Builder
			for d, l := range levels {
				if d > 0 {
					label.WriteString(", ")
				}
				label.WriteString(l.index + " = " + l.text)
			}
			// An element is written with the loop's index when its array
			// has an element in the slice (x[t-1] beside x[t]); the
			// elements of other arrays (a regression's weights w[0],
			// w[1], shared by every slice) keep their numbers.
			inSlice := map[string]bool{}
			for _, v := range first.Variables {
				if base, _, ok := splitRef(v.Name()); ok {
					inSlice[base] = true
				}
			}
			rename := func(v *ffg.Variable) string {
				if base, _, ok := splitRef(v.Name()); !ok || !inSlice[base] {
					return v.Name()
				}
				return indexedLabel(v.Name(), levels, vals)
			}
			vars := make(map[*ffg.Variable]string, len(first.Variables))
			for _, v := range first.Variables {
				vars[v] = rename(v)
			}
			factors := make(map[*ffg.FactorNode]string, len(first.Factors))
			for _, g := range first.Factors {
				nl, ok := g.Factor().(ffg.NeighbourLabeler)
				if !ok {
					continue
				}
				names := make([]string, len(g.Variables()))
				for k, v := range g.Variables() {
					names[k] = rename(v)
				}
				factors[g] = nl.LabelWith(names)
			}
			return label.String(), vars, factors
		}
		return "", nil, nil
	}
}

// loopOf returns the loops of the file factor of m.Factors[i], their
// values at that factor, and the number of factors the loops make.
func (m *Model) loopOf(i int) ([]loopLevel, []int64, int) {
	first := m.loops.firstFactor
	j := len(first) - 1
	for j >= 0 && first[j] > i {
		j--
	}
	if j < 0 || j >= len(m.loops.scope.loops) {
		return nil, nil, 0
	}
	levels := m.loops.scope.loops[j]
	end := len(m.Factors)
	if j+1 < len(first) {
		end = first[j+1]
	}
	vals := make([]int64, len(levels))
	at := make([]int64, len(levels))
	k := i - first[j]
	_ = walk(levels, vals, "", func() error {
		if k == 0 {
			copy(at, vals)
			return errStop
		}
		k--
		return nil
	})
	return levels, at, end - first[j]
}

// indexedLabel writes name ("x[4]", "X[2,3]") with each index that lies
// within maxIndexOffset of a loop's value as that loop's index and the
// offset ("x[t-1]"); a name without indices is returned as it is.
func indexedLabel(name string, levels []loopLevel, vals []int64) string {
	base, idx, ok := splitRef(name)
	if !ok {
		return name
	}
	used := make([]bool, len(levels))
	out := make([]string, len(idx))
	for p, s := range idx {
		out[p] = s
		e, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			continue
		}
		// The nearest loop value not taken by an earlier index.
		best, dist := -1, int64(maxIndexOffset+1)
		for d := range levels {
			if off := e - vals[d]; !used[d] && off >= -maxIndexOffset && off <= maxIndexOffset && abs64(off) < dist {
				best, dist = d, abs64(off)
			}
		}
		if best < 0 {
			continue
		}
		used[best] = true
		switch off := e - vals[best]; {
		case off == 0:
			out[p] = levels[best].index
		case off > 0:
			out[p] = levels[best].index + "+" + strconv.FormatInt(off, 10)
		default:
			out[p] = levels[best].index + strconv.FormatInt(off, 10)
		}
	}
	return base + "[" + strings.Join(out, ",") + "]"
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
