package messages

import "fmt"

// Multilinear is the log-density of a conjugate factor in multilinear
// exponential-family form,
//
//	ln f = <W, u_{a_1} ⊗ ... ⊗ u_{a_m}> + Const,
//
// where u_i is the sufficient statistic of the neighbour on interface i
// (one-hot x for a categorical variable, ln p flattened for a Dirichlet, [ln g, g]
// for a gamma) and W is either the constant tensor Weights or, when
// Param >= 0, the sufficient statistic of the neighbour on interface Param.
// Axes[j] is the interface bound to axis j of W; every interface other than
// Param appears exactly once in Axes.
//
// Messages and average energies are computed from the expected sufficient
// statistics of the neighbours, indexed by interface. A Multilinear keeps a
// small scratch slice, so one value must not be used from two goroutines at
// once.
type Multilinear struct {
	Weights Tensor  // constant W, used when Param < 0
	Shape   []int   // shape of W (axis j has extent Shape[j])
	Param   int     // interface whose statistic is W, or -1
	Axes    []int   // Axes[j] is the interface bound to axis j
	Const   float64 // the term of ln f that depends on no neighbour

	vecs [][]float64
}

// NewMultilinear checks and returns a multilinear form. weights is ignored
// (and may be the zero Tensor) when param >= 0. shape gives the extents of
// W's axes; for a constant W it must equal weights.Shape.
func NewMultilinear(weights Tensor, shape []int, param int, axes []int, c float64) (*Multilinear, error) {
	if _, err := ShapeLen(shape); err != nil {
		return nil, err
	}
	if len(axes) != len(shape) {
		return nil, fmt.Errorf("messages: %d axes bound for a rank-%d weight tensor", len(axes), len(shape))
	}
	if len(shape) > maxRank {
		return nil, fmt.Errorf("messages: rank %d above the maximum of %d", len(shape), maxRank)
	}
	seen := map[int]bool{}
	for _, a := range axes {
		if a < 0 || a == param || seen[a] {
			return nil, fmt.Errorf("messages: axes %v: each axis needs its own non-parameter interface", axes)
		}
		seen[a] = true
	}
	if param < 0 {
		if len(weights.Shape) != len(shape) {
			return nil, fmt.Errorf("messages: weights of shape %v, want %v", weights.Shape, shape)
		}
		for i := range shape {
			if weights.Shape[i] != shape[i] {
				return nil, fmt.Errorf("messages: weights of shape %v, want %v", weights.Shape, shape)
			}
		}
	}
	return &Multilinear{
		Weights: weights,
		Shape:   append([]int(nil), shape...),
		Param:   param,
		Axes:    append([]int(nil), axes...),
		Const:   c,
		vecs:    make([][]float64, len(axes)),
	}, nil
}

// NumInterfaces returns the number of interfaces the form binds.
func (m *Multilinear) NumInterfaces() int {
	if m.Param >= 0 {
		return len(m.Axes) + 1
	}
	return len(m.Axes)
}

// weights returns E[W] given the neighbours' expected statistics.
func (m *Multilinear) weights(stats [][]float64) Tensor {
	if m.Param < 0 {
		return m.Weights
	}
	return Tensor{Data: stats[m.Param], Shape: m.Shape}
}

// gather points the scratch slice at the axis statistics.
func (m *Multilinear) gather(stats [][]float64) [][]float64 {
	for j, a := range m.Axes {
		m.vecs[j] = stats[a]
	}
	return m.vecs
}

// Message writes into dst the VMP message, in natural parameters, from the
// factor to the neighbour on interface k:
//
//   - for an axis neighbour, E[W] ⊙ [the other axes' expected statistics]
//     (the generalized inner product, paper Appendix A and eq. 6);
//   - for the parameter neighbour, ⊗[every axis' expected statistics]
//     (the generalized outer product, paper section 6.2).
//
// Both are the gradient of E_q[ln f] with respect to the expected statistics
// of neighbour k, which is what makes them the conjugate VMP messages.
// stats[k] itself is not read. Message panics on a bad k or mismatched
// lengths and does not allocate.
func (m *Multilinear) Message(dst []float64, k int, stats [][]float64) []float64 {
	if k == m.Param {
		vecs := m.gather(stats)
		return Outer(dst, vecs...)
	}
	for j, a := range m.Axes {
		if a == k {
			vecs := m.gather(stats)
			return Inner(dst, m.weights(stats), vecs, j)
		}
	}
	panic(fmt.Sprintf("messages: interface %d is not bound by this form", k))
}

// ExpectedLog returns E_q[ln f] = <E[W], ⊗ expected statistics> + Const under
// mean field; the average energy of the factor is its negative.
func (m *Multilinear) ExpectedLog(stats [][]float64) float64 {
	return Contract(m.weights(stats), m.gather(stats)) + m.Const
}

// LogPotential returns the factor's log-density as a tensor over the axes
// keep (positions in Axes; the result's axes follow keep's order; their
// neighbours are the variables summed over exactly) with every other axis
// averaged under its neighbour's expected statistics, and the weight
// tensor at its expected value E[W] (for a Dirichlet-distributed W,
// E[ln θ]):
//
//	ln ψ(x_keep) = Const + Σ_(x_rest) E[W](x) Π_(j ∉ keep) stats_j(x_j).
//
// This is what sum-product uses as the factor's potential exp(ln ψ): the
// same contraction as the VMP messages (Message), applied to a one-hot
// statistic on the kept axes. Entries of W that are -Inf (a zero
// probability) stay -Inf where kept, and a zero statistic contributes
// nothing. The result has shape [Shape[keep[0]], ...].
func (m *Multilinear) LogPotential(stats [][]float64, keep []int) (data []float64, shape []int) {
	shape = make([]int, 0, len(keep))
	n := 1
	for _, j := range keep {
		shape = append(shape, m.Shape[j])
		n *= m.Shape[j]
	}
	data = m.LogPotentialInto(make([]float64, n), stats, keep, make([]int, 2*len(m.Shape)))
	return data, shape
}

// LogPotentialInto is LogPotential writing into dst (the product of the
// kept extents long) with scratch (2 × rank ints): no allocation.
func (m *Multilinear) LogPotentialInto(dst []float64, stats [][]float64, keep []int, scratch []int) []float64 {
	w := m.weights(stats)
	vecs := m.gather(stats)
	rank := len(m.Shape)
	stride, idx := scratch[:rank], scratch[rank:2*rank]
	clear(stride)
	clear(idx)
	acc := 1
	for i := len(keep) - 1; i >= 0; i-- {
		stride[keep[i]] = acc
		acc *= m.Shape[keep[i]]
	}
	clear(dst)
	for _, v := range w.Data {
		weight, out := 1.0, 0
		for j := range rank {
			if stride[j] != 0 {
				out += idx[j] * stride[j]
			} else {
				weight *= vecs[j][idx[j]]
			}
		}
		if weight != 0 {
			dst[out] += weight * v
		}
		// Next index, last axis fastest.
		for j := rank - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < m.Shape[j] {
				break
			}
			idx[j] = 0
		}
	}
	if m.Const != 0 {
		for i := range dst {
			dst[i] += m.Const
		}
	}
	return dst
}
