package expfam_test

import (
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
)

func ExampleDirichlet_ExpectedLog() {
	// E[ln p_i] = ψ(α_i) - ψ(Σα): with α = (1, 1) this is ψ(1) - ψ(2) = -1.
	d := expfam.Dirichlet{Alpha: []float64{1, 1}}
	fmt.Printf("%.6f\n", d.ExpectedLog(nil))
	// Output:
	// [-1.000000 -1.000000]
}

func ExampleDirichlet_Entropy() {
	// The uniform Dirichlet on the 2-simplex has density 2, entropy -ln 2.
	fmt.Printf("%.6f\n", expfam.Dirichlet{Alpha: []float64{1, 1, 1}}.Entropy())
	// Output:
	// -0.693147
}

func ExampleDirichletTensor() {
	// A likelihood A of shape [|O|=2, |S|=3]: element (o, s) is Alpha[o*3+s].
	a, err := expfam.NewDirichletTensor([]float64{
		1, 2, 3, // o = 0
		3, 2, 1, // o = 1
	}, []int{2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.K(), a.Cols())
	fmt.Printf("%.4f\n", a.Mean(nil))
	// Output:
	// 2 3
	// [0.2500 0.5000 0.7500 0.7500 0.5000 0.2500]
}

func ExampleSoftmax() {
	eta := []float64{0, 1000, 1000, -1000}
	p := make([]float64, len(eta))
	logZ := expfam.Softmax(p, eta)
	fmt.Printf("%.4f %.4f\n", p, logZ)
	// Output:
	// [0.0000 0.5000 0.5000 0.0000] 1000.6931
}

func ExampleCategorical_KL() {
	p := expfam.Categorical{P: []float64{0.5, 0.5, 0}}
	q := expfam.Categorical{P: []float64{0.25, 0.25, 0.5}}
	fmt.Printf("%.6f %v\n", p.KL(q), q.KL(p))
	// Output:
	// 0.693147 +Inf
}

func ExampleGamma_KL() {
	// Two exponential distributions: KL = ln(b/d) + d/b - 1.
	p := expfam.Gamma{Shape: 1, Rate: 2}
	q := expfam.Gamma{Shape: 1, Rate: 1}
	fmt.Printf("%.6f\n", p.KL(q))
	// Output:
	// 0.193147
}

func ExampleGammaFromNatural() {
	g, err := expfam.GammaFromNatural([]float64{1, -2})
	fmt.Println(g, err)
	_, err = expfam.GammaFromNatural([]float64{1, 0.5})
	fmt.Println(err)
	// Output:
	// {2 2} <nil>
	// expfam: gamma: rate is -0.5, want > 0 (natural parameters [1 0.5])
}

func ExampleValidateColumns() {
	// B[next][prev] for 2 states: column [1] (prev = 1) sums to 0.9.
	err := expfam.ValidateColumns([]float64{
		0.9, 0.5,
		0.1, 0.4,
	}, []int{2, 2}, 1e-6)
	fmt.Println(err)
	// Output:
	// expfam: column [1] sums to 0.9, want 1 (tolerance 1e-06)
}

func ExampleParseFamily() {
	f, err := expfam.ParseFamily("dirichlet")
	fmt.Println(f, err)
	_, err = expfam.ParseFamily("gaussian")
	fmt.Println(err)
	// Output:
	// dirichlet <nil>
	// expfam: unknown family "gaussian" (valid: categorical, dirichlet, gamma, normal, mvnormal, wishart, beta)
}
