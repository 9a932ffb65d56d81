package expfam_test

import (
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
)

// A bivariate Normal's natural parameters and back, and its entropy.
func ExampleMvNormal() {
	n := expfam.MvNormal{Mean: []float64{1, -2}, Cov: []float64{2, 0.5, 0.5, 1}}
	eta := n.Natural(nil) // [Λm, -Λ/2]
	back, err := expfam.MvNormalFromNatural(eta, 2)
	fmt.Printf("%.4f %.4f %v\n", back.Mean, back.Cov, err)
	// H = ln(2πe) + ½ ln|Σ| = 2.837877 + ½ ln 1.75.
	fmt.Printf("H = %.6f\n", n.Entropy())
	// Output:
	// [1.0000 -2.0000] [2.0000 0.5000 0.5000 1.0000] <nil>
	// H = 3.117685
}

// The Wishart's expected statistics: E[Λ] = νV and E ln|Λ|.
func ExampleWishart() {
	w := expfam.Wishart{DF: 5, Scale: []float64{0.5, 0, 0, 0.25}}
	// E ln|Λ| = ψ(2.5) + ψ(2) + 2 ln 2 + ln(0.125)
	//         = 0.703157 + 0.422784 + 1.386294 - 2.079442.
	fmt.Printf("%.4f\n", w.ExpectedStats(nil))
	fmt.Println(expfam.CheckSPD([]float64{1, 2, 2, 1}, 2))
	// Output:
	// [2.5000 0.0000 0.0000 1.2500 0.4328]
	// not positive definite (a Cholesky pivot is <= 0)
}

// A Beta posterior after 7 successes and 3 failures under Beta(1, 1).
func ExampleBeta() {
	b := expfam.Beta{A: 1 + 7, B: 1 + 3}
	// H = ln B(8, 4) - 7 ψ(8) - 3 ψ(4) + 10 ψ(12) = -7.185388 + 6.548779.
	fmt.Printf("mean %.4f, H = %.4f\n", b.Mean(), b.Entropy())
	// Output:
	// mean 0.6667, H = -0.6366
}
