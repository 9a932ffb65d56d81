package expfam

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

// digamma against mpmath (mp.dps = 30, psi(0, x)); the float64 value of 1e-3
// differs from the decimal far below the tolerance. The recurrence sum costs
// a few ulp of ψ(32) ≈ 3.5, hence 2e-15. mathext.Digamma alone is off by up
// to ~5e-11 here.
func TestDigamma(t *testing.T) {
	for _, tc := range []struct{ x, want float64 }{
		{1e-3, -1000.575571931810300471473},
		{0.5, -1.963510026021423479440976},
		{1, -0.5772156649015328606065121},
		{7, 1.872784335098467139393488},
		{8, 2.015641477955609996536345},
		{31.5, 3.434030554207562723779206},
		{100, 4.600161852738087400198606},
		{1e6, 13.81551005796419077077462},
	} {
		got := digamma(tc.x)
		if math.Abs(got-tc.want) > 2e-15*math.Max(1, math.Abs(tc.want)) {
			t.Errorf("digamma(%v) = %.17g, want %.17g (mathext.Digamma: %.17g)", tc.x, got, tc.want, mathext.Digamma(tc.x))
		}
	}
	for _, x := range []float64{0, -1, -2.5, math.NaN(), math.Inf(1)} {
		if got, want := digamma(x), mathext.Digamma(x); !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("digamma(%v) = %v, want mathext.Digamma = %v", x, got, want)
		}
	}
}

// lgammaBregman agrees with the direct difference where the direct
// difference is accurate (moderate x), on both branches.
func TestLgammaBregman(t *testing.T) {
	for _, tc := range [][2]float64{{1, 1.2}, {3, 2.5}, {10, 12}, {0.5, 7}, {20, 19.9}, {1e-3, 1.1e-3}, {5, 5}} {
		x, y := tc[0], tc[1]
		want := lgamma(y) - lgamma(x) - (y-x)*digamma(x)
		got := lgammaBregman(x, y, digamma(x))
		if math.Abs(got-want) > 1e-14*math.Max(1, math.Abs(lgamma(y))) {
			t.Errorf("lgammaBregman(%v, %v) = %.17g, want %.17g", x, y, got, want)
		}
		if got < 0 {
			t.Errorf("lgammaBregman(%v, %v) = %v < 0 (ln Γ is convex)", x, y, got)
		}
	}
}
