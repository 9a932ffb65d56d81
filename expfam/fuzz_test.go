package expfam_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
)

// FuzzValidateColumns feeds arbitrary values, shapes (including negative,
// zero and overflowing axes) and tolerances: ValidateColumns must not panic,
// and when it accepts, every column must really be a distribution.
func FuzzValidateColumns(f *testing.F) {
	enc := func(xs ...float64) []byte {
		b := make([]byte, 8*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
		return b
	}
	f.Add(enc(0.1, 0.5, 1, 0.9, 0.5, 0), 2, 3, 0, uint8(2), 1e-9)
	f.Add(enc(0.5, 0.5), 2, 0, 0, uint8(1), 1e-6)
	f.Add(enc(0.5, math.NaN()), 2, 1, 0, uint8(2), 1e-6)
	f.Add(enc(1), -1, 3, 0, uint8(3), 0.0)
	f.Add([]byte{1, 2, 3}, math.MaxInt, math.MaxInt, 2, uint8(3), math.Inf(1))
	f.Add(enc(1, 1, 1, 1), 1, 2, 2, uint8(3), math.NaN())
	f.Add([]byte{}, 0, 0, 0, uint8(0), 1e-6)
	f.Fuzz(func(t *testing.T, raw []byte, d0, d1, d2 int, rank uint8, tol float64) {
		vals := make([]float64, len(raw)/8)
		for i := range vals {
			vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		shape := []int{d0, d1, d2}[:min(int(rank), 3)]
		err := expfam.ValidateColumns(vals, shape, tol)
		if err != nil {
			return
		}
		// Accepted: check the claim independently.
		k := shape[0]
		cols := len(vals) / k
		if k*cols != len(vals) || len(vals) == 0 {
			t.Fatalf("accepted %d values for shape %v", len(vals), shape)
		}
		for j := range cols {
			var s float64
			for i := range k {
				x := vals[i*cols+j]
				if !(x >= 0) || math.IsInf(x, 1) {
					t.Fatalf("accepted entry %v in column %d", x, j)
				}
				s += x
			}
			if !(math.Abs(s-1) <= tol) {
				t.Fatalf("accepted column %d with sum %v (tol %v)", j, s, tol)
			}
		}
	})
}
