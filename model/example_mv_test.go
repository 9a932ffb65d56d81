package model_test

import (
	"context"
	"fmt"

	"github.com/arbor-ai/arbor/model"
	"github.com/arbor-ai/arbor/schedule"
)

// A coin toss in Go: p ~ Beta(2, 2) and three tosses, two of them heads.
// The posterior is exact, Beta(2 + 2, 2 + 1), and F = -ln p(tosses) =
// ln B(2, 2) - ln B(4, 3) = ln(60/6) = ln 10.
func ExampleVar_Bernoulli() {
	b := model.New()
	p := b.Beta("p", 2, 2)
	for n, x := range []int{1, 0, 1} {
		b.Categorical(fmt.Sprint("toss", n), 2).Observe(x).Bernoulli(model.Of(p))
	}
	m, err := b.Build("coin")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := schedule.Run(context.Background(), m.Graph, &m.Settings)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := m.Graph.Variable("p")
	fmt.Printf("Beta(%g, %g), F = %.6f\n", v.Beta().A, v.Beta().B, res.Final())
	// Output:
	// Beta(4, 3), F = 2.302585
}

// A two-dimensional Normal observed once: with the prior N(0, I) and the
// observation y ~ N(x, I) at y = (2, -2), the posterior is N(y/2, I/2).
func ExampleVar_MvNormalFrom() {
	b := model.New()
	x := b.MvNormal("x", 2).MvNormalFrom(model.Vec(0, 0), model.CovarianceMatrix([][]float64{{1, 0}, {0, 1}}))
	b.MvNormal("y", 2).ObserveVector([]float64{2, -2}).MvNormalFrom(model.MvOf(x), model.PrecisionMatrix([][]float64{{1, 0}, {0, 1}}))
	b.Settings(model.SettingsSpec{Method: "sum-product"})
	m, err := b.Build("two-d")
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := schedule.Run(context.Background(), m.Graph, &m.Settings); err != nil {
		fmt.Println(err)
		return
	}
	v, _ := m.Graph.Variable("x")
	q := v.MvNormal()
	fmt.Printf("mean %.3f, covariance %.3f\n", q.Mean, q.Cov)
	// Output:
	// mean [1.000 -1.000], covariance [0.500 0.000 0.000 0.500]
}
