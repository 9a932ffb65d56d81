package ffg_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

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

// TestObserveValue: a normal variable is observed at a finite value (its
// statistics become [x, x²]); a categorical one, or a value that is not
// finite, is refused with the variable named, and Observe refuses a normal
// variable.
func TestObserveValue(t *testing.T) {
	g := ffg.New()
	y, _ := g.AddVariable("y", expfam.NormalFamily)
	s, _ := g.AddVariable("s", expfam.CategoricalFamily, 2)
	if err := y.ObserveValue(-1.5); err != nil || y.Stats()[0] != -1.5 || y.Stats()[1] != 2.25 || !y.Observed() {
		t.Errorf("ObserveValue(-1.5): %v, stats %v", err, y.Stats())
	}
	for _, c := range []struct {
		v    *ffg.Variable
		x    float64
		want string
	}{
		{y, math.NaN(), `variable "y": expfam: normal: value NaN`},
		{y, math.Inf(-1), `value -Inf`},
		{s, 1, `variable "s": a categorical variable cannot be observed at a value`},
	} {
		if err := c.v.ObserveValue(c.x); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ObserveValue(%v): %v, want %q", c.x, err, c.want)
		}
	}
	if err := y.Observe(0); err == nil || !strings.Contains(err.Error(), "ObserveValue") {
		t.Errorf("Observe on a normal variable: %v", err)
	}
}
