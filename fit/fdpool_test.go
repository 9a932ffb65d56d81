package fit

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// TestFDSameAsGonum: the gradient and the Hessian of the fit, their points
// evaluated in one batch, are gonum's fd.Gradient (forward, step 1e-6,
// the value at x given) and fd.Hessian (central) bit for bit, on smooth
// functions of 1 to 4 variables at random points.
func TestFDSameAsGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		n := 1 + trial%4
		a, b := make([]float64, n), make([]float64, n)
		for i := range n {
			a[i], b[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		f := func(x []float64) float64 {
			s, q := 0.0, 0.0
			for i, xi := range x {
				s += a[i] * xi
				q += b[i] * xi * xi
			}
			return math.Exp(s/4) + q + math.Log1p(q*q)
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = 3 * rng.NormFloat64()
		}
		batch := func(pts [][]float64, out []float64) {
			for k, p := range pts {
				out[k] = f(p)
			}
		}
		f0 := f(x)
		want := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Forward, Step: gradStep, OriginKnown: true, OriginValue: f0})
		got := make([]float64, n)
		fdGradient(got, x, f0, batch)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("trial %d: gradient[%d] = %v, fd.Gradient %v", trial, i, got[i], want[i])
			}
		}
		var wh mat.SymDense
		fd.Hessian(&wh, f, x, &fd.Settings{Formula: fd.Central, OriginKnown: true, OriginValue: f0})
		gh := mat.NewSymDense(n, nil)
		fdHessian(gh, x, batch)
		for i := range n {
			for j := range n {
				if g, w := gh.At(i, j), wh.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
					t.Fatalf("trial %d: Hessian[%d][%d] = %v, fd.Hessian %v", trial, i, j, g, w)
				}
			}
		}
	}
}
