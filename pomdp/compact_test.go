package pomdp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFastLog compares fastLog with the standard library's math.Log (the
// reference) over the range of probabilities, near 1, and at the values
// where it falls back to math.Log.
func TestFastLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 400000 {
		x := math.Exp(-745 * rng.Float64())
		switch i % 4 {
		case 1:
			x = 1 - rng.Float64()*1e-3
		case 2:
			x = 1 + rng.Float64()*1e3
		}
		got, want := fastLog(x), math.Log(x)
		if math.Abs(got-want) > 4e-16*math.Abs(want)+1e-18 {
			t.Fatalf("fastLog(%v) = %v, math.Log %v", x, got, want)
		}
	}
	for _, x := range []float64{0, -1, 5e-324, 2e-310, math.Inf(1), math.NaN(), 1, 2, 0.5} {
		got, want := fastLog(x), math.Log(x)
		if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("fastLog(%v) = %v, want math.Log's %v", x, got, want)
		}
	}
}

// denseMul is the dense product dst = M x of a row-major rows × cols M.
func denseMul(dst, m, x []float64, cols int) {
	for i := range dst {
		v := 0.0
		for j, p := range m[i*cols : (i+1)*cols] {
			v += p * x[j]
		}
		dst[i] = v
	}
}

// noisyColumns returns a rows × cols column-stochastic matrix whose columns
// are noise/(rows-1) everywhere but 1-noise on a random row (a maze's A and
// B), or with uneven noise per column when uneven is set; with noise 0 a
// deterministic one (a sparse matrix).
func noisyColumns(rng *rand.Rand, rows, cols int, noise float64, uneven bool) []float64 {
	m := make([]float64, rows*cols)
	for j := range cols {
		nz := noise
		if uneven {
			nz = noise * (0.5 + rng.Float64())
		}
		for i := range rows {
			m[i*cols+j] = nz / float64(rows-1)
		}
		m[rng.IntN(rows)*cols+j] = 1 - nz
	}
	return m
}

func TestCompactMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name       string
		rows, cols int
		noise      float64
		uneven     bool
		dense      bool // newCompact must refuse it
	}{
		{"maze B", 22, 22, 0.1, false, false},
		{"maze A", 10, 22, 0.1, false, false},
		{"uneven noise", 12, 9, 0.2, true, false},
		{"deterministic", 15, 15, 0, false, false},
		{"random dense", 8, 8, -1, false, true},
	} {
		var m []float64
		if tc.noise < 0 {
			m = make([]float64, tc.rows*tc.cols)
			for i := range m {
				m[i] = rng.Float64()
			}
		} else {
			m = noisyColumns(rng, tc.rows, tc.cols, tc.noise, tc.uneven)
		}
		c := newCompact(m, tc.rows, tc.cols)
		if tc.dense {
			if c != nil {
				t.Errorf("%s: stored compact, want dense", tc.name)
			}
			continue
		}
		if c == nil {
			t.Fatalf("%s: stored dense, want compact", tc.name)
		}
		if c.exact != (tc.noise == 0) {
			t.Errorf("%s: exact %v", tc.name, c.exact)
		}
		x := make([]float64, tc.cols)
		for i := range x {
			x[i] = rng.Float64()
		}
		got, want := make([]float64, tc.rows), make([]float64, tc.rows)
		c.mul(got, x)
		denseMul(want, m, x, tc.cols)
		for i := range got {
			if c.exact && math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Errorf("%s: row %d: %v, dense %v, want the same bits", tc.name, i, got[i], want[i])
			}
			if math.Abs(got[i]-want[i]) > 1e-15*math.Abs(want[i]) {
				t.Errorf("%s: row %d: %v, dense %v", tc.name, i, got[i], want[i])
			}
		}
	}
}
