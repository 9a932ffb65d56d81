package nodes_test

import (
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/nodes"
)

// A Transition's messages, derived from its multilinear form
// <ln B, q(next) ⊗ q(prev)>: to the child, ln B contracted with q(prev); to
// the parent, ln B contracted with q(next).
func ExampleTransition() {
	// B[next][prev]: columns are the previous state.
	tr, err := nodes.NewTransition([]float64{0.9, 0.2, 0.1, 0.8}, []int{2, 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	stats := [][]float64{{0.5, 0.5}, {1, 0}} // q(next), q(prev)
	msg := make([]float64, 2)
	_ = tr.Message(msg, nodes.TransitionOut, stats)
	fmt.Printf("to next: [%.4f %.4f] (ln 0.9, ln 0.1)\n", msg[0], msg[1])
	_ = tr.Message(msg, nodes.TransitionOut+1, stats)
	fmt.Printf("to prev: [%.4f %.4f]\n", msg[0], msg[1])
	fmt.Printf("E[-ln B] = %.4f\n", tr.AverageEnergy(stats))
	// Output:
	// to next: [-0.1054 -2.3026] (ln 0.9, ln 0.1)
	// to prev: [-1.2040 -0.9163]
	// E[-ln B] = 1.2040
}

// With a Dirichlet-distributed matrix, the message to the matrix is the
// outer product q(out) ⊗ q(in): the expected counts that the posterior adds
// to the prior concentrations (paper Appendix C).
func ExampleNewTransitionDirichlet() {
	tr, _ := nodes.NewTransitionDirichlet([]int{2, 3}) // A[o][s], 2 outcomes, 3 states
	eLogA := expfam.DirichletTensor{Alpha: []float64{1, 1, 1, 1, 1, 1}, Shape: []int{2, 3}}.ExpectedLog(nil)
	stats := [][]float64{{0, 1}, {0.2, 0.3, 0.5}, eLogA} // o observed = 1, q(s), E[ln A]
	counts := make([]float64, 6)
	_ = tr.Message(counts, tr.MatrixInterface(), stats)
	fmt.Println("interfaces:", len(tr.Interfaces()), "matrix at", tr.MatrixInterface())
	fmt.Println("counts:", counts)
	// Output:
	// interfaces: 3 matrix at 2
	// counts: [0 0 0 0.2 0.3 0.5]
}

// A Categorical node with a Dirichlet parameter sends E[ln p] to its
// variable and q(x) to p.
func ExampleNewCategoricalDirichlet() {
	c, _ := nodes.NewCategoricalDirichlet(2)
	eLogP := expfam.Dirichlet{Alpha: []float64{1, 1}}.ExpectedLog(nil) // ψ(1) - ψ(2) = -1 each
	stats := [][]float64{{0.25, 0.75}, eLogP}
	msg := make([]float64, 2)
	_ = c.Message(msg, nodes.CategoricalOut, stats)
	fmt.Printf("to x: [%.4f %.4f]\n", msg[0], msg[1])
	_ = c.Message(msg, nodes.CategoricalP, stats)
	fmt.Println("to p:", msg)
	// Output:
	// to x: [-1.0000 -1.0000]
	// to p: [0.25 0.75]
}

// A Dirichlet prior sends alpha - 1, its natural parameters.
func ExampleNewDirichlet() {
	d, _ := nodes.NewDirichlet([]float64{2, 1, 0.5}, []int{3})
	msg := make([]float64, 3)
	_ = d.Message(msg, nodes.DirichletOut, [][]float64{{-1, -1, -1}})
	fmt.Println(msg)
	// Output:
	// [1 0 -0.5]
}

// The Softmax policy prior P(pi | gamma) = softmax(-gamma G): to pi it sends
// -E[gamma] G; to gamma, the rate correction (q(pi) - softmax(-E[gamma] G))·G
// of its first-order approximation.
func ExampleSoftmax() {
	s, _ := nodes.NewSoftmax([]float64{1, 2})
	gamma := expfam.Gamma{Shape: 2, Rate: 1}.ExpectedStats(nil) // E[gamma] = 2
	stats := [][]float64{{0.5, 0.5}, gamma}
	msg := make([]float64, 2)
	_ = s.Message(msg, nodes.SoftmaxOut, stats)
	fmt.Println("to pi:", msg)
	_ = s.Message(msg, nodes.SoftmaxPrecision, stats)
	fmt.Printf("to gamma: [%g %.4f]\n", msg[0], msg[1])
	// Output:
	// to pi: [-2 -4]
	// to gamma: [0 -0.3808]
}

// The likelihood of one observation of a linear regression,
// y ~ N(w_0 x_0 + w_1 x_1 + b, 1/τ) with the covariates x = (2, -1) as the
// terms' scales: its message to the weight w_0 is
// [x_0 E τ (y - E μ + x_0 E w_0), -x_0² E τ/2], the residual of the other
// terms, derived from the node's form like every other message.
func ExampleNewNormalLinear() {
	n, err := nodes.NewNormalLinear([]float64{2, -1}, nodes.VariableMean(), nodes.VariablePrecision())
	if err != nil {
		fmt.Println(err)
		return
	}
	y := 1.5
	w0 := expfam.Normal{Mean: 0.5, Var: 0.1}.ExpectedStats(nil)
	w1 := expfam.Normal{Mean: -0.25, Var: 0.2}.ExpectedStats(nil)
	b := expfam.Normal{Mean: 0.1, Var: 0.05}.ExpectedStats(nil)
	tau := expfam.Gamma{Shape: 4, Rate: 2}.ExpectedStats(nil) // E τ = 2
	stats := [][]float64{{y, y * y}, w0, w1, b, tau}
	fmt.Println("interfaces:", n.Rules())
	msg := make([]float64, 2)
	_ = n.Message(msg, n.TermInterface(0), stats)
	// E μ = 2·0.5 + 0.25 + 0.1 = 1.35: [2·2·(1.5 - 1.35 + 1), -4·2/2].
	fmt.Printf("to w0: [%.2f %.2f]\n", msg[0], msg[1])
	// E(y - μ)² = (y - E μ)² + Var μ = 0.15² + 4·0.1 + 0.2 + 0.05 = 0.6725.
	_ = n.Message(msg, n.PrecisionInterface(), stats)
	fmt.Printf("to τ: [%.2f %.5f]\n", msg[0], msg[1])
	// Output:
	// interfaces: [out sum[0] sum[1] offset precision]
	// to w0: [4.60 -4.00]
	// to τ: [0.50 -0.33625]
}
