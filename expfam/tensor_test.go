package expfam_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
)

// column extracts column j of a row-major tensor with k rows and c columns by
// the documented layout, Alpha[k*c+j].
func column(a []float64, k, c, j int) []float64 {
	col := make([]float64, k)
	for i := range col {
		col[i] = a[i*c+j]
	}
	return col
}

// A DirichletTensor equals the sum (product of densities) of independent
// column Dirichlets: every quantity is checked against the column-by-column
// Dirichlet computation. Concentrations are drawn from a seeded PCG over
// 1e-3 .. 1e3 (log-uniform).
func TestDirichletTensorEqualsColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func(n int) []float64 {
		a := make([]float64, n)
		for i := range a {
			a[i] = math.Pow(10, -3+6*rng.Float64())
		}
		return a
	}
	for _, shape := range [][]int{{4}, {3, 5}, {2, 3, 4}, {5, 1, 2, 3}} {
		n := 1
		for _, s := range shape {
			n *= s
		}
		d, err := expfam.NewDirichletTensor(draw(n), shape)
		if err != nil {
			t.Fatal(err)
		}
		q, _ := expfam.NewDirichletTensor(draw(n), shape)
		k, c := d.K(), d.Cols()
		if k != shape[0] || k*c != n {
			t.Fatalf("shape %v: K = %d, Cols = %d", shape, k, c)
		}
		el, mean, nat := d.ExpectedLog(nil), d.Mean(nil), d.Natural(nil)
		var lnB, h, kl float64
		for j := range c {
			col := expfam.Dirichlet{Alpha: column(d.Alpha, k, c, j)}
			qcol := expfam.Dirichlet{Alpha: column(q.Alpha, k, c, j)}
			if diff := sliceDiff(col.Alpha, d.Column(j).Alpha, 0); diff != "" {
				t.Errorf("shape %v: Column(%d): %s", shape, j, diff)
			}
			if diff := sliceDiff(col.ExpectedLog(nil), column(el, k, c, j), 0); diff != "" {
				t.Errorf("shape %v column %d: ExpectedLog: %s", shape, j, diff)
			}
			if diff := sliceDiff(col.Mean(nil), column(mean, k, c, j), 0); diff != "" {
				t.Errorf("shape %v column %d: Mean: %s", shape, j, diff)
			}
			if diff := sliceDiff(col.Natural(nil), column(nat, k, c, j), 0); diff != "" {
				t.Errorf("shape %v column %d: Natural: %s", shape, j, diff)
			}
			lnB += col.LogNormalizer()
			h += col.Entropy()
			kl += col.KL(qcol)
		}
		checkClose(t, "LogNormalizer", d.LogNormalizer(), lnB, 1e-13)
		checkClose(t, "Entropy", d.Entropy(), h, 1e-13)
		checkClose(t, "KL", d.KL(q), kl, 1e-13)
	}
}

// The layout by hand: shape [2, 3], element (k, j) = Alpha[k*3+j]; column 1
// is (2, 20), so its mean is (2/22, 20/22).
func TestDirichletTensorLayout(t *testing.T) {
	d, err := expfam.NewDirichletTensor([]float64{1, 2, 3, 10, 20, 30}, []int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	m := d.Mean(nil)
	want := []float64{1. / 11, 2. / 22, 3. / 33, 10. / 11, 20. / 22, 30. / 33}
	if diff := sliceDiff(want, m, 1e-16); diff != "" {
		t.Errorf("Mean: %s", diff)
	}
	// A vector tensor is a Dirichlet.
	v, _ := expfam.NewDirichletTensor([]float64{0.7, 0.2, 0.1}, []int{3})
	if v.Cols() != 1 {
		t.Errorf("Cols of a vector = %d, want 1", v.Cols())
	}
	// Reference value of the Dirichlet entropy test (mpmath).
	checkClose(t, "vector tensor entropy", v.Entropy(), -8.786543379253377416, 1e-13)
}

func TestNewDirichletTensor(t *testing.T) {
	alpha, shape := []float64{1, 2, 3, 4}, []int{2, 2}
	d, err := expfam.NewDirichletTensor(alpha, shape)
	if err != nil {
		t.Fatal(err)
	}
	alpha[0], shape[0] = 99, 99
	if d.Alpha[0] != 1 || d.Shape[0] != 2 {
		t.Error("NewDirichletTensor does not copy its inputs")
	}
	for _, tc := range []struct {
		name  string
		alpha []float64
		shape []int
		frag  []string
	}{
		{"rank 0", []float64{1}, nil, []string{"no axes"}},
		{"zero axis", nil, []int{2, 0}, []string{"axis 1", "size 0"}},
		{"negative axis", []float64{1}, []int{-1}, []string{"axis 0", "size -1"}},
		{"length", []float64{1, 2, 3}, []int{2, 2}, []string{"[2 2]", "4 entries", "got 3"}},
		{"zero alpha", []float64{1, 2, 0, 4}, []int{2, 2}, []string{"alpha[1 0]", "flat index 2", "is 0"}},
		{"NaN alpha", []float64{1, 2, 3, math.NaN(), 1, 1}, []int{3, 2}, []string{"alpha[1 1]", "NaN"}},
		{"Inf alpha", []float64{math.Inf(1)}, []int{1}, []string{"alpha[0]", "+Inf"}},
		{"overflow", []float64{1}, []int{1 << 40, 1 << 40}, []string{"too many"}},
	} {
		_, err := expfam.NewDirichletTensor(tc.alpha, tc.shape)
		wantErr(t, tc.name, err, tc.frag...)
	}
}

func TestDirichletTensorPanics(t *testing.T) {
	d := expfam.DirichletTensor{Alpha: []float64{1, 2, 3, 4}, Shape: []int{2, 2}}
	q := expfam.DirichletTensor{Alpha: []float64{1, 2, 3, 4}, Shape: []int{4}}
	mustPanic(t, "KL shape mismatch", func() { d.KL(q) })
	bad := expfam.DirichletTensor{Alpha: []float64{1, 2, 3}, Shape: []int{2, 2}}
	mustPanic(t, "ExpectedLog bad shape", func() { bad.ExpectedLog(nil) })
	mustPanic(t, "Entropy bad shape", func() { bad.Entropy() })
	mustPanic(t, "Entropy no axes", func() { expfam.DirichletTensor{Alpha: []float64{1}}.Entropy() })
	mustPanic(t, "Mean short dst", func() { d.Mean(make([]float64, 3)) })
	mustPanic(t, "Column out of range", func() { d.Column(2) })
}
