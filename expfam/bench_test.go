package expfam_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
)

func randVec(n int, lo, hi float64) []float64 {
	rng := rand.New(rand.NewPCG(7, 11))
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*rng.Float64()
	}
	return v
}

func BenchmarkSoftmax(b *testing.B) {
	for _, n := range []int{8, 128} {
		eta, dst := randVec(n, -10, 10), make([]float64, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				expfam.Softmax(dst, eta)
			}
		})
	}
}

func BenchmarkDirichletExpectedLog(b *testing.B) {
	for _, n := range []int{10, 100} {
		d, dst := expfam.Dirichlet{Alpha: randVec(n, 0.1, 50)}, make([]float64, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d.ExpectedLog(dst)
			}
		})
	}
}

// A transition tensor B of shape [|S|=10, |S|=10, |U|=5].
func BenchmarkDirichletTensorExpectedLog(b *testing.B) {
	d := expfam.DirichletTensor{Alpha: randVec(500, 0.1, 50), Shape: []int{10, 10, 5}}
	dst := make([]float64, 500)
	b.ReportAllocs()
	for b.Loop() {
		d.ExpectedLog(dst)
	}
}

func BenchmarkDirichletTensorKL(b *testing.B) {
	p := expfam.DirichletTensor{Alpha: randVec(500, 0.1, 50), Shape: []int{10, 10, 5}}
	q := expfam.DirichletTensor{Alpha: randVec(500, 0.1, 50), Shape: []int{10, 10, 5}}
	b.ReportAllocs()
	var s float64
	for b.Loop() {
		s += p.KL(q)
	}
	if math.IsNaN(s) {
		b.Fatal("NaN")
	}
}

// Hot kernels must not allocate when dst is given.
func TestNoAllocs(t *testing.T) {
	p := []float64{0.7, 0.2, 0.1}
	eta := []float64{0.3, -1, 2}
	dst3, dst2 := make([]float64, 3), make([]float64, 2)
	c := expfam.Categorical{P: p}
	d, q := expfam.Dirichlet{Alpha: []float64{0.7, 0.2, 40}}, expfam.Dirichlet{Alpha: []float64{1, 2, 41}}
	tn := expfam.DirichletTensor{Alpha: randVec(500, 0.1, 50), Shape: []int{10, 10, 5}}
	tq := expfam.DirichletTensor{Alpha: randVec(500, 0.2, 60), Shape: []int{10, 10, 5}}
	dst500 := make([]float64, 500)
	g, h := expfam.Gamma{Shape: 2, Rate: 3}, expfam.Gamma{Shape: 2.5, Rate: 3.5}
	var sink float64
	for name, f := range map[string]func(){
		"Softmax":                   func() { sink += expfam.Softmax(dst3, eta) },
		"Softmax nil":               func() { sink += expfam.Softmax(nil, eta) },
		"LogSumExp":                 func() { sink += expfam.LogSumExp(eta) },
		"Categorical":               func() { c.Natural(dst3); c.Mean(dst3); sink += c.Entropy() + c.KL(c) },
		"Dirichlet ExpectedLog":     func() { d.ExpectedLog(dst3) },
		"Dirichlet Natural/Mean":    func() { d.Natural(dst3); d.Mean(dst3) },
		"Dirichlet scalars":         func() { sink += d.LogNormalizer() + d.Entropy() + d.KL(q) },
		"Tensor ExpectedLog":        func() { tn.ExpectedLog(dst500) },
		"Tensor Natural/Mean":       func() { tn.Natural(dst500); tn.Mean(dst500) },
		"Tensor scalars":            func() { sink += tn.LogNormalizer() + tn.Entropy() + tn.KL(tq) },
		"Gamma":                     func() { g.Natural(dst2); g.ExpectedStats(dst2); sink += g.Entropy() + g.KL(h) + g.LogNormalizer() },
		"GammaFromNatural":          func() { r, _ := expfam.GammaFromNatural(dst2); sink += r.Shape },
		"DirichletAlphaFromNatural": func() { _ = expfam.DirichletAlphaFromNatural(dst3, eta) },
		"ValidateDistribution":      func() { _ = expfam.ValidateDistribution(p, 1e-9) },
		"ValidateColumns":           func() { _ = expfam.ValidateColumns(tn.Mean(dst500), tn.Shape, 1e-9) },
	} {
		g.Natural(dst2) // valid natural parameters for GammaFromNatural
		eta[0], eta[1], eta[2] = 0.3, -0.5, 2
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, n)
		}
	}
	_ = sink
}
