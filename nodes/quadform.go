package nodes

import (
	"cmp"
	"slices"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
)

// quadForm builds the messages.Polynomial of a Gaussian log-density
// -½ Σ_ij P_ij r_i r_j + ..., where each r_i is an affine function of the
// components of normal and mvnormal neighbours and P a literal matrix or a
// precision neighbour's statistic. It expands every product into single
// sufficient statistics (x_k, or the entry (k, l) of x xᵀ when both
// factors are components of one neighbour), adds equal monomials up, and
// emits them in a fixed order, so that a node's form follows from its
// equation and nothing else.
type quadForm struct {
	ifs []messages.Interface
	acc map[monoKey]float64
	c   float64
}

// lin is a component k of the neighbour on interface ifc (ifc < 0: the
// constant 1).
type lin struct{ ifc, k int }

// aterm is c·lin; an affine function is a slice of them.
type aterm struct {
	c float64
	m lin
}

// monoKey is a product of up to three (interface, statistic) pairs, sorted
// by interface; unused slots are -1.
type monoKey [6]int32

func newQuadForm(ifs []messages.Interface) *quadForm {
	return &quadForm{ifs: ifs, acc: map[monoKey]float64{}}
}

// linStat and quadStat are the statistics of a normal or mvnormal
// neighbour: x_k, and x_k x_l.
func (q *quadForm) linStat(ifc, k int) int {
	if q.ifs[ifc].Family == expfam.NormalFamily {
		return 0
	}
	return k
}

func (q *quadForm) quadStat(ifc, k, l int) int {
	if q.ifs[ifc].Family == expfam.NormalFamily {
		return 1
	}
	d := q.ifs[ifc].Shape[0]
	return d + k*d + l
}

// add adds c times the product of the (interface, statistic) pairs.
func (q *quadForm) add(c float64, pairs ...int) {
	if c == 0 {
		return
	}
	if len(pairs) == 0 {
		q.c += c
		return
	}
	var key monoKey
	for i := range key {
		key[i] = -1
	}
	n := 0
	for j := 0; j < len(pairs); j += 2 {
		// Insertion in interface order.
		at := n
		for at > 0 && key[2*at-2] > int32(pairs[j]) {
			key[2*at], key[2*at+1] = key[2*at-2], key[2*at-1]
			at--
		}
		key[2*at], key[2*at+1] = int32(pairs[j]), int32(pairs[j+1])
		n++
	}
	q.acc[key] += c
}

// product adds c·a·b·extra for two monomials a and b; extra is an
// (interface, statistic) pair or nil.
func (q *quadForm) product(c float64, a, b lin, extra []int) {
	var pairs [6]int
	n := copy(pairs[:], extra)
	switch {
	case a.ifc < 0 && b.ifc < 0:
	case a.ifc < 0:
		pairs[n], pairs[n+1] = b.ifc, q.linStat(b.ifc, b.k)
		n += 2
	case b.ifc < 0:
		pairs[n], pairs[n+1] = a.ifc, q.linStat(a.ifc, a.k)
		n += 2
	case a.ifc == b.ifc:
		pairs[n], pairs[n+1] = a.ifc, q.quadStat(a.ifc, a.k, b.k)
		n += 2
	default:
		pairs[n], pairs[n+1], pairs[n+2], pairs[n+3] = a.ifc, q.linStat(a.ifc, a.k), b.ifc, q.linStat(b.ifc, b.k)
		n += 4
	}
	q.add(c, pairs[:n]...)
}

// quad adds c · r · s · extra for affine functions r and s.
func (q *quadForm) quad(c float64, r, s []aterm, extra []int) {
	for _, a := range r {
		for _, b := range s {
			q.product(c*a.c*b.c, a.m, b.m, extra)
		}
	}
}

// polynomial returns the form: the monomials in key order, then Const.
func (q *quadForm) polynomial() *messages.Polynomial {
	keys := make([]monoKey, 0, len(q.acc))
	for k, c := range q.acc {
		if c != 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b monoKey) int {
		for i := range a {
			if c := cmp.Compare(a[i], b[i]); c != 0 {
				return c
			}
		}
		return 0
	})
	p := messages.NewPolynomial(len(q.ifs))
	var pairs []int
	for _, k := range keys {
		pairs = pairs[:0]
		for i := 0; i < len(k); i += 2 {
			if k[i] >= 0 {
				pairs = append(pairs, int(k[i]), int(k[i+1]))
			}
		}
		p.Term(q.acc[k], pairs...)
	}
	p.Const = q.c
	return p
}
