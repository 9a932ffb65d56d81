package expfam

import (
	"fmt"
	"math"
	"slices"
)

// DirichletTensor is a tensor of independent Dirichlet columns. Shape[0] is
// the outcome axis K; the remaining axes index the columns. Alpha is stored
// row-major (C order) over Shape, so element (k, j), where j is the flattened
// column index, is Alpha[k*Cols()+j]. It represents the concentrations of a
// likelihood A (shape [|O|, |S|]) or a transition tensor B (shape
// [|S|, |S|, |U|], or any [K, M1, M2, …]). A shape [K] is a single Dirichlet.
//
// Natural parameters and expected statistics have the layout of Alpha. The
// methods panic (with an "expfam: " message) when Shape has no axes, an axis
// < 1, or a product different from len(Alpha); they do not check the values
// (see NewDirichletTensor).
type DirichletTensor struct {
	Alpha []float64
	Shape []int
}

// NewDirichletTensor returns a DirichletTensor holding copies of alpha and
// shape. It returns an error unless shape has at least one axis, every axis is
// >= 1, len(alpha) equals the product of the axes and every concentration is
// finite and > 0; the error names the offending entry by its multi-index.
func NewDirichletTensor(alpha []float64, shape []int) (DirichletTensor, error) {
	n, err := shapeSize(shape)
	if err != nil {
		return DirichletTensor{}, err
	}
	if len(alpha) != n {
		return DirichletTensor{}, fmt.Errorf("expfam: dirichlet tensor: shape %v has %d entries, got %d concentrations", shape, n, len(alpha))
	}
	for i, a := range alpha {
		if !(a > 0) || math.IsInf(a, 1) {
			return DirichletTensor{}, fmt.Errorf("expfam: dirichlet tensor: alpha%v (flat index %d) is %g, want a finite number > 0", multiIndex(shape, i), i, a)
		}
	}
	return DirichletTensor{Alpha: slices.Clone(alpha), Shape: slices.Clone(shape)}, nil
}

// Cols returns the number of columns, the product of Shape[1:] (1 for a
// vector). It panics if Shape has no axes.
func (d DirichletTensor) Cols() int {
	if len(d.Shape) == 0 {
		panic("expfam: DirichletTensor.Cols: shape has no axes")
	}
	c := 1
	for _, m := range d.Shape[1:] {
		c *= m
	}
	return c
}

// K returns the size of the outcome axis, Shape[0]. It panics if Shape has no
// axes.
func (d DirichletTensor) K() int {
	if len(d.Shape) == 0 {
		panic("expfam: DirichletTensor.K: shape has no axes")
	}
	return d.Shape[0]
}

// Column returns column j (a flattened index over Shape[1:]) as a new
// Dirichlet vector of length K. It panics (with an "expfam: " message) if
// j is out of range [0, Cols()) or the shape is invalid (see the type): a
// programming error, as an index out of range of a slice is.
func (d DirichletTensor) Column(j int) Dirichlet {
	d.check("DirichletTensor.Column")
	c := d.Cols()
	if j < 0 || j >= c {
		panic(fmt.Sprintf("expfam: DirichletTensor.Column: column %d out of range [0, %d)", j, c))
	}
	a := make([]float64, d.K())
	for k := range a {
		a[k] = d.Alpha[k*c+j]
	}
	return Dirichlet{Alpha: a}
}

func (d DirichletTensor) check(where string) {
	checkShape(d.Shape, len(d.Alpha), where)
}

// Natural writes the natural parameters α - 1 into dst and returns dst; it
// allocates when dst is nil and panics if len(dst) != len(d.Alpha).
func (d DirichletTensor) Natural(dst []float64) []float64 {
	d.check("DirichletTensor.Natural")
	return Dirichlet{Alpha: d.Alpha}.Natural(dst)
}

// ExpectedLog writes the expected sufficient statistics E[ln p] into dst,
// column by column: element (k, j) is ψ(α_kj) - ψ(Σ_i α_ij). It returns dst;
// it allocates when dst is nil and panics if len(dst) != len(d.Alpha).
func (d DirichletTensor) ExpectedLog(dst []float64) []float64 {
	d.check("DirichletTensor.ExpectedLog")
	dst = makeDst(dst, len(d.Alpha), "DirichletTensor.ExpectedLog")
	k, c := d.K(), d.Cols()
	for j := range c {
		colExpectedLog(dst, d.Alpha, j, c, k)
	}
	return dst
}

// Mean writes the column-normalised concentrations α_kj / Σ_i α_ij into dst
// and returns dst; it allocates when dst is nil and panics if
// len(dst) != len(d.Alpha).
func (d DirichletTensor) Mean(dst []float64) []float64 {
	d.check("DirichletTensor.Mean")
	dst = makeDst(dst, len(d.Alpha), "DirichletTensor.Mean")
	k, c := d.K(), d.Cols()
	for j := range c {
		colMean(dst, d.Alpha, j, c, k)
	}
	return dst
}

// LogNormalizer returns the sum over columns of ln B(column).
func (d DirichletTensor) LogNormalizer() float64 {
	d.check("DirichletTensor.LogNormalizer")
	k, c := d.K(), d.Cols()
	var s float64
	for j := range c {
		s += colLogB(d.Alpha, j, c, k)
	}
	return s
}

// Entropy returns the sum over columns of the column entropies.
func (d DirichletTensor) Entropy() float64 {
	d.check("DirichletTensor.Entropy")
	k, c := d.K(), d.Cols()
	var s float64
	for j := range c {
		s += colEntropy(d.Alpha, j, c, k)
	}
	return s
}

// KL returns KL(d || q), the sum over columns of the column divergences. It
// panics if the shapes differ.
func (d DirichletTensor) KL(q DirichletTensor) float64 {
	d.check("DirichletTensor.KL")
	q.check("DirichletTensor.KL")
	if !slices.Equal(d.Shape, q.Shape) {
		panic(fmt.Sprintf("expfam: DirichletTensor.KL: shape mismatch %v != %v", d.Shape, q.Shape))
	}
	k, c := d.K(), d.Cols()
	var s float64
	for j := range c {
		s += colKL(d.Alpha, q.Alpha, j, c, k)
	}
	return s
}
