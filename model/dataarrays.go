package model

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/jsonread"
	"github.com/arbor-ai/arbor/internal/prefault"
)

// Data sets that name an array variable whole (docs/formats.md, "Data
// file"): {"y": [0.3, null, 1.2]} gives the elements' values, null hiding
// an element; and the length of the data's array sets the size its
// extent names, for that data set: the model is built again with it (the
// file's value of the size is its default).

// loopModel is what a model of a file with sizes, arrays or loops keeps
// to take data sets that name arrays whole.
type loopModel struct {
	src    *modelJSON
	scope  *scope
	arrays map[string]*arrayInfo
	base   *modelState // the file's build, while a data set's sizes are in use

	// firstFactor[j] is the position in Model.Factors of the first factor
	// of file factor j (its loop values are found again for errors).
	firstFactor []int
}

// arrayInfo is an array variable of the model.
type arrayInfo struct {
	first   int // its first element in Model.Variables
	dims    []int
	extents []extentSpec
	fam     expfam.Family
	k       int // the outcomes of a categorical element
}

// sizeSet replaces values of the file's sizes in a build; the file's
// observed values of the arrays in skip are left out (a data set gives
// them).
type sizeSet struct {
	vals map[string]int
	skip map[string]bool
}

func (s *sizeSet) get(name string) (int, bool) {
	if s == nil {
		return 0, false
	}
	n, ok := s.vals[name]
	return n, ok
}

// modelState is what a build of the model is made of.
type modelState struct {
	graph        *ffg.Graph
	variables    []*ffg.Variable
	factors      []*ffg.FactorNode
	factorFields []string
	evidence     fileEvidence
	varFile      []int32
	loops        *loopModel
}

func (m *Model) state() *modelState {
	return &modelState{m.Graph, m.Variables, m.Factors, m.factorFields, m.evidence, m.varFile, m.loops}
}

func (m *Model) setState(s *modelState) {
	m.Graph, m.Variables, m.Factors, m.factorFields, m.evidence, m.varFile, m.loops = s.graph, s.variables, s.factors, s.factorFields, s.evidence, s.varFile, s.loops
}

// isArray reports whether name is an array variable of m.
func (m *Model) isArray(name string) bool {
	return m.loops != nil && m.loops.arrays[name] != nil
}

// ReadData reads one data set for m: as ParseData, and a key that names
// an array variable of m takes the nested array of its elements' values,
// each as a scalar variable's value, null for an element to hide in this
// data set: {"y": [0.3, null, 1.2]}. Its length may differ from the
// array's where the array's extent is a size's name: the data set then
// sets that size (Infer builds the model again with it).
func (m *Model) ReadData(where string, line []byte) (Data, error) {
	if m == nil || m.loops == nil || len(m.loops.arrays) == 0 {
		return apiResult(ParseData(where, line))
	}
	if fault, _ := jsonread.Check(line); fault != jsonread.Valid {
		return apiResult(ParseData(where, line))
	}
	r := &jsonread.Reader{Data: line}
	if r.Peek() != '{' {
		return apiResult(ParseData(where, line))
	}
	// The keys of arrays are read here; the rest, copied, by ParseData.
	arrays := map[string]*Observations{}
	rest := []byte{'{'}
	var fault error
	err := r.Object(func(key string, at int) error {
		a := m.loops.arrays[key]
		start := jsonread.Space(line, r.Pos)
		if a == nil {
			r.Skip()
			if len(rest) > 1 {
				rest = append(rest, ',')
			}
			rest = append(rest, line[at:r.Pos]...)
			return nil
		}
		field := fmt.Sprintf("%q", shortName(key))
		if _, dup := arrays[key]; dup {
			return &Error{File: where, Err: fmt.Errorf("duplicate key %q", shortName(key))}
		}
		d := &decoder{file: where, r: r}
		oa := d.observedArray(len(a.dims))
		r.Pos = jsonread.Skip(line, start)
		if err := oa.err(field); err != nil && fault == nil {
			fault = withFile(where, err)
		}
		obs := &Observations{Shape: oa.shape, Elements: prefault.Make[*Evidence](len(oa.kind), len(oa.kind))}
		evs := prefault.Make[Evidence](len(oa.kind), len(oa.kind)) // one array for the elements' evidence
		for k, kind := range oa.kind {
			switch kind {
			case obsNumber:
				x := &oa.num[k]
				e := &evs[k]
				*e = Evidence{Index: -1, Value: x}
				if *x == float64(int(*x)) && *x >= 0 && *x <= 1<<31 {
					e.Index = int(*x)
				}
				obs.Elements[k] = e
			case obsVector:
				if x := oa.flat[k]; x != nil {
					evs[k] = Evidence{Index: -1, Probs: x}
					obs.Elements[k] = &evs[k]
					continue
				}
				t := oa.vec[k]
				if rank(t) != 1 && fault == nil {
					fault = &Error{File: where, Field: field, Err: fmt.Errorf("element %d: want an outcome index, a probability vector, a number or null", k)}
				}
				evs[k] = Evidence{Index: -1, Probs: t.Data}
				obs.Elements[k] = &evs[k]
			}
		}
		arrays[key] = obs
		return nil
	})
	if err != nil {
		return nil, apiError(err)
	}
	d, err := ParseData(where, append(rest, '}'))
	if err != nil {
		return nil, apiError(err)
	}
	if fault != nil {
		return nil, apiError(fault)
	}
	for name, obs := range arrays {
		d[name] = Evidence{Index: -1, Elements: obs}
	}
	return d, nil
}

// checkArrays checks the arrays that d names whole against m, and returns
// the sizes they set.
func (m *Model) checkArrays(where string, d Data) (map[string]int, error) {
	if m.loops == nil {
		return nil, nil
	}
	var sizes map[string]int
	by := map[string]string{} // the array that set each size
	for _, name := range sortedNames(d) {
		field := fmt.Sprintf("%q", shortName(name))
		fail := func(sub, format string, args ...any) error {
			return &Error{File: where, Field: field + sub, Err: fmt.Errorf(format, args...)}
		}
		if base, _, ok := splitRef(name); ok && name != base && m.isArray(base) {
			if _, whole := d[base]; whole {
				return nil, fail("", "also given by %q, the whole array", shortName(base))
			}
		}
		a := m.loops.arrays[name]
		if a == nil {
			continue
		}
		ev := d[name]
		obs := ev.Elements
		if obs == nil && ev.Probs != nil && len(a.dims) == 1 {
			// ParseData read a flat array of numbers as probabilities.
			obs = &Observations{Shape: []int{len(ev.Probs)}, Elements: make([]*Evidence, len(ev.Probs))}
			for k, x := range ev.Probs {
				e := &Evidence{Index: -1, Value: &x}
				if x == float64(int(x)) && x >= 0 {
					e.Index = int(x)
				}
				obs.Elements[k] = e
			}
		}
		if obs == nil {
			return nil, fail("", "want the array of its elements' values (an array of size %v), or name one element, %s[0]", a.dims, shortName(name))
		}
		for j, want := range a.dims {
			got := 0
			if j < len(obs.Shape) {
				got = obs.Shape[j]
			}
			sub := jsonread.Indices(make([]int, j))
			size := strings.TrimSpace(a.extents[j].expr)
			if _, isSize := m.loops.scope.names.sizes[size]; isSize {
				if prev, ok := sizes[size]; ok && prev != got {
					return nil, fail(sub, "%d entries set the size %s to %d, and %q sets it to %d", got, size, got, by[size], prev)
				}
				if sizes == nil {
					sizes = map[string]int{}
				}
				sizes[size], by[size] = got, shortName(name)
			} else if got != want {
				return nil, fail(sub, "%d entries, want %d (%s)", got, want, extentText(varSpec{Size: a.extents}, j))
			}
			if got == 0 {
				break
			}
		}
		n := 1
		for _, s := range obs.Shape {
			n *= s
		}
		if n != len(obs.Elements) {
			return nil, fail("", "%d elements for the extents %v", len(obs.Elements), obs.Shape)
		}
		for k, e := range obs.Elements {
			if e == nil {
				continue
			}
			if err := checkEvidence(a.fam, a.k, *e); err != nil {
				return nil, fail(jsonread.Indices(unflat(k, obs.Shape)), "%v", err)
			}
		}
	}
	return sizes, nil
}

// rank returns the number of the tensor's levels of arrays (len(t.Shape()),
// without making the shape).
func rank(t *jsonread.Tensor) int {
	n := 0
	for _, a := range t.First {
		if a == nil {
			break
		}
		n++
	}
	return n
}

// unflat returns the indices of flat index k in shape.
func unflat(k int, shape []int) []int {
	idx := make([]int, len(shape))
	for j := len(shape) - 1; j >= 0; j-- {
		if shape[j] > 0 {
			idx[j] = k % shape[j]
			k /= shape[j]
		}
	}
	return idx
}

// useArrays makes m the build for the sizes that d's arrays set (sizes,
// from checkData; the file's own build when they set none other than the
// file's), and returns the evidence of the arrays' elements by position in
// m.Variables (nil when d names no array whole).
func (m *Model) useArrays(where string, d Data, sizes map[string]int) ([]*Evidence, error) {
	if m.loops == nil {
		return nil, nil
	}
	lm := m.loops
	switch {
	case m.newSizes(sizes):
		if lm.base == nil {
			lm.base = m.state()
		}
		nm, err := build(m.Name, lm.src, m.dataSizes(sizes, d))
		if err != nil {
			names := make([]string, 0, len(sizes))
			for _, k := range sortedKeys(sizes) {
				names = append(names, fmt.Sprintf("%s = %d", k, sizes[k]))
			}
			return nil, &Error{File: where, Err: fmt.Errorf("the model with %s (set by the data set's arrays) cannot be built: %v", strings.Join(names, ", "), err)}
		}
		nm.loops.base = lm.base
		m.setState(nm.state())
	case lm.base != nil:
		m.setState(lm.base)
	}
	var over []*Evidence
	hidden := &Evidence{Index: -1}
	for name, ev := range d {
		a := m.loops.arrays[name]
		if a == nil {
			continue
		}
		if over == nil {
			over = make([]*Evidence, len(m.Variables))
		}
		elems := ev.Elements
		if elems == nil { // a flat array read by ParseData
			for k := range ev.Probs {
				x := ev.Probs[k]
				e := &Evidence{Index: -1, Value: &x}
				if x == float64(int(x)) && x >= 0 {
					e.Index = int(x)
				}
				over[a.first+k] = e
			}
			continue
		}
		for k, e := range elems.Elements {
			if e == nil {
				e = hidden
			}
			over[a.first+k] = e
		}
	}
	return over, nil
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range maps.Keys(m) {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// newSizes reports whether sizes (checkData's) set a size of the file to
// another value than the file's: the model is then built again.
func (m *Model) newSizes(sizes map[string]int) bool {
	file := m.loops.scope
	if m.loops.base != nil {
		file = m.loops.base.loops.scope
	}
	for name, n := range sizes {
		if int64(n) != file.names.sizes[name] {
			return true
		}
	}
	return false
}

// dataSizes is the sizeSet of a build for data set d, whose arrays set
// sizes: the file's observed values of the arrays d gives are left out.
func (m *Model) dataSizes(sizes map[string]int, d Data) *sizeSet {
	set := &sizeSet{vals: sizes, skip: map[string]bool{}}
	for name := range d {
		if m.isArray(name) {
			set.skip[name] = true
		}
	}
	return set
}
