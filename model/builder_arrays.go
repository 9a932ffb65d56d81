package model

import "strconv"

// Array is a handle on an array variable of a Builder (NormalArray,
// CategoricalArray): size.. independent variables of one family, written
// to the Spec as one variable with a Size (docs/formats.md, "Sizes,
// arrays and loops"). At returns an element, a Var like any other, named
// "x[3]" or "x[1,2]":
//
//	x := b.NormalArray("x", T)
//	x.At(0).NormalFrom(model.Num(0), model.Num(0.1))
//	for t := 1; t < T; t++ {
//		x.At(t).NormalFrom(model.Of(x.At(t-1)), model.Num(4))
//	}
//
// The factors are written out, one per call, as the Builder always does;
// the model is the same as a file's with loops.
type Array struct {
	b    *Builder
	name string
	dims []int
}

// NormalArray adds an array of normal variables of the given size (one
// extent per dimension).
func (b *Builder) NormalArray(name string, size ...int) Array {
	return b.array(name, "normal", nil, size)
}

// CategoricalArray adds an array of categorical variables with k outcomes
// each, of the given size.
func (b *Builder) CategoricalArray(name string, k int, size ...int) Array {
	return b.array(name, "categorical", []int{k}, size)
}

func (b *Builder) array(name, family string, shape, size []int) Array {
	a := Array{b: b, name: name, dims: append([]int(nil), size...)}
	if b.err != nil {
		return a
	}
	if len(size) == 0 {
		b.fail("array %q: no size (want one extent per dimension)", name)
		return a
	}
	sz := make(Size, len(size))
	for j, n := range size {
		if n < 0 {
			b.fail("array %q: size %v, want extents >= 0", name, size)
			return a
		}
		sz[j] = Extent{N: n}
	}
	b.variable(name, family, shape)
	if b.err == nil {
		b.spec.Variables[len(b.spec.Variables)-1].Size = sz
	}
	return a
}

// Len returns the number of elements.
func (a Array) Len() int {
	n := 1
	for _, d := range a.dims {
		n *= d
	}
	return n
}

// At returns the element at the indices (one per dimension, from 0). An
// index out of range is a fault that Build returns.
func (a Array) At(idx ...int) Var {
	b := a.b
	if b == nil {
		panic("model: At of the zero Array, which belongs to no Builder (arrays come from Builder.NormalArray and CategoricalArray)")
	}
	buf := append([]byte(a.name), '[')
	flat := 0
	ok := len(idx) == len(a.dims)
	for j, i := range idx {
		if j > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(i), 10)
		if ok && (i < 0 || i >= a.dims[j]) {
			ok = false
		}
		if ok {
			flat = flat*a.dims[j] + i
		}
	}
	v := Var{b: b, name: string(append(buf, ']')), elem: flat + 1}
	if b.err != nil {
		return v
	}
	if !ok {
		b.fail("array %q: element %v out of its size %v", a.name, idx, a.dims)
		return v
	}
	pos, known := b.index[a.name]
	if other, taken := b.index[v.name]; taken && (!known || other != pos) {
		b.fail("variable %q added twice (an element of the array %q, and a variable of its own)", v.name, a.name)
		return v
	}
	// The element is found as its array, for its family and shape.
	b.index[v.name] = pos
	return v
}

// observeElement sets element k of the array variable i to e.
func (b *Builder) observeElement(i, k int, e *Evidence) {
	vs := &b.spec.Variables[i]
	if vs.ObservedArray == nil {
		shape := make([]int, len(vs.Size))
		n := 1
		for j, x := range vs.Size {
			shape[j] = x.N
			n *= x.N
		}
		vs.ObservedArray = &Observations{Shape: shape, Elements: make([]*Evidence, n)}
	}
	if k >= len(vs.ObservedArray.Elements) {
		b.fail("variable %q: element %d out of the array's %d", vs.Name, k, len(vs.ObservedArray.Elements))
		return
	}
	vs.ObservedArray.Elements[k] = e
}
