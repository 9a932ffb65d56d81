package ffg_test

import (
	"context"
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// A Normal mean with a Normal prior and known precision: the posterior is
// conjugate, N(m_N, 1/λ_N) with λ_N = λ_0 + N τ and
// m_N = (λ_0 m_0 + τ Σ x)/λ_N; here λ_0 = 1, m_0 = 0, τ = 4 and the data
// 1, 2, 3 give λ_N = 13 and m_N = 24/13.
func ExampleGraph_normal() {
	g := ffg.New()
	m, _ := g.AddVariable("m", expfam.NormalFamily)
	prior, _ := nodes.NewNormal(nodes.LiteralMean(0), nodes.LiteralPrecision(1))
	_, _ = g.AddFactor("prior", prior, m)
	lik, _ := nodes.NewNormal(nodes.VariableMean(), nodes.LiteralPrecision(4))
	for _, x := range []float64{1, 2, 3} {
		y, _ := g.AddVariable("", expfam.NormalFamily)
		_ = y.ObserveValue(x)
		_, _ = g.AddFactor("", lik, y, m)
	}
	if _, err := schedule.Run(context.Background(), g, nil); err != nil {
		fmt.Println(err)
		return
	}
	q := m.Normal()
	fmt.Printf("mean %.6f (24/13 = %.6f), precision %.6f\n", q.Mean, 24.0/13, 1/q.Var)
	// Output:
	// mean 1.846154 (24/13 = 1.846154), precision 13.000000
}
