package ffg_test

import (
	"math"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

// TestDeferPriors: a graph built with DeferPriors and then reset by
// ResetPosteriors starts where one built without it starts (the reference:
// the same graph built the usual way, each prior bound resetting its
// output), and its sum-product pass gives the same marginals and ln Z.
func TestDeferPriors(t *testing.T) {
	build := func(deferred bool) (*ffg.Graph, []*ffg.Variable) {
		g := ffg.New()
		g.Reserve(20, 20)
		if deferred {
			g.DeferPriors()
		}
		var xs []*ffg.Variable
		for i := range 10 {
			x, err := g.AddVariable("", expfam.NormalFamily)
			if err != nil {
				t.Fatal(err)
			}
			var n *nodes.Normal
			vars := []*ffg.Variable{x}
			if i == 0 {
				n, err = nodes.NewNormal(nodes.LiteralMean(1), nodes.LiteralPrecision(0.5))
			} else {
				n, err = nodes.NewNormal(nodes.VariableMean(), nodes.LiteralPrecision(4))
				vars = append(vars, xs[i-1])
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.AddFactor("", n, vars...); err != nil {
				t.Fatal(err)
			}
			y, err := g.AddVariable("", expfam.NormalFamily)
			if err != nil {
				t.Fatal(err)
			}
			if err := y.ObserveValue(float64(i) / 3); err != nil {
				t.Fatal(err)
			}
			obs, err := nodes.NewNormal(nodes.VariableMean(), nodes.LiteralPrecision(1))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.AddFactor("", obs, y, x); err != nil {
				t.Fatal(err)
			}
			xs = append(xs, x)
		}
		return g, xs
	}
	g0, x0 := build(false)
	g1, x1 := build(true)
	if a, b := x0[0].Normal(), x1[0].Normal(); a == b {
		t.Errorf("x[0] at its prior %+v before ResetPosteriors: the prior was not deferred", b)
	}
	if err := g1.ResetPosteriors(); err != nil {
		t.Fatal(err)
	}
	for i := range x0 {
		if a, b := x0[i].Normal(), x1[i].Normal(); a != b {
			t.Errorf("x[%d] starts at %+v deferred, %+v bound one by one", i, b, a)
		}
	}
	z0, err := g0.SumProduct()
	if err != nil {
		t.Fatal(err)
	}
	z1, err := g1.SumProduct()
	if err != nil {
		t.Fatal(err)
	}
	if z0 != z1 {
		t.Errorf("ln Z %v deferred, %v bound one by one", z1, z0)
	}
	for i := range x0 {
		if a, b := x0[i].Normal(), x1[i].Normal(); math.Abs(a.Mean-b.Mean) > 0 || math.Abs(a.Var-b.Var) > 0 {
			t.Errorf("x[%d]: %+v deferred, %+v bound one by one", i, b, a)
		}
	}
}
