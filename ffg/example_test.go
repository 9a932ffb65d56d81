package ffg_test

import (
	"fmt"
	"math"
	"os"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

// Build s -> o with o observed, update s once and read its posterior and
// the free energy. With one hidden variable, VMP is exact: q(s) is Bayes'
// rule and F = -ln P(o).
func ExampleGraph() {
	g := ffg.New()
	s, _ := g.AddVariable("s", expfam.CategoricalFamily, 2)
	o, _ := g.AddVariable("o", expfam.CategoricalFamily, 2)
	prior, _ := nodes.NewCategorical([]float64{0.5, 0.5})
	lik, _ := nodes.NewTransition([]float64{0.9, 0.2, 0.1, 0.8}, []int{2, 2}) // P(o | s)
	if _, err := g.AddFactor("prior", prior, s); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := g.AddFactor("likelihood", lik, o, s); err != nil {
		fmt.Println(err)
		return
	}
	_ = o.Observe(0)
	if err := g.Update(s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("q(s) = [%.4f %.4f]\n", s.Probs()[0], s.Probs()[1]) // (0.45, 0.1) / 0.55
	fmt.Printf("F = %.4f, -ln P(o) = %.4f\n", g.FreeEnergy(), -math.Log(0.55))
	// Output:
	// q(s) = [0.8182 0.1818]
	// F = 0.5978, -ln P(o) = 0.5978
}

// Learning a Dirichlet parameter: the posterior is the prior plus the
// expected counts (paper Appendix C).
func ExampleGraph_dirichlet() {
	g := ffg.New()
	theta, _ := g.AddVariable("theta", expfam.DirichletFamily, 3)
	prior, _ := nodes.NewDirichlet([]float64{1, 1, 1}, []int{3})
	_, _ = g.AddFactor("", prior, theta)
	for _, x := range []int{0, 2, 2} {
		v, _ := g.AddVariable("", expfam.CategoricalFamily, 3)
		c, _ := nodes.NewCategoricalDirichlet(3)
		_, _ = g.AddFactor("", c, v, theta)
		_ = v.Observe(x)
	}
	_ = g.Update(theta)
	fmt.Println("alpha:", theta.Alpha())
	// Output:
	// alpha: [2 1 3]
}

// Graphs grow and shrink: a sub-graph added after inference can be removed
// again in one call.
func ExampleGraph_RemoveVariables() {
	g := ffg.New()
	s, _ := g.AddVariable("s", expfam.CategoricalFamily, 2)
	p, _ := nodes.NewCategorical([]float64{0.3, 0.7})
	_, _ = g.AddFactor("", p, s)
	_ = g.Update(s)
	fmt.Printf("before: %.2f\n", s.Probs())

	child, _ := g.AddVariable("child", expfam.CategoricalFamily, 2)
	tr, _ := nodes.NewTransition([]float64{1, 0, 0, 1}, []int{2, 2})
	_, _ = g.AddFactor("", tr, child, s)
	_ = child.Observe(0)
	_ = g.Update(s)
	fmt.Printf("with child observed: %.2f\n", s.Probs())

	g.RemoveVariables(child)
	_ = g.Update(s)
	fmt.Printf("after removal: %.2f, %d variables, %d factors\n", s.Probs(), len(g.Variables()), len(g.Factors()))
	// Output:
	// before: [0.30 0.70]
	// with child observed: [1.00 0.00]
	// after removal: [0.30 0.70], 1 variables, 1 factors
}

// WriteDOT draws variables as circles (observed ones gray) and factors as
// boxes labelled by what they say (P(o | s)), edges in the generative
// direction, and an observation in the column of its state.
func ExampleGraph_WriteDOT() {
	g := ffg.New()
	s, _ := g.AddVariable("s", expfam.CategoricalFamily, 2)
	o, _ := g.AddVariable("o", expfam.CategoricalFamily, 2)
	prior, _ := nodes.NewCategorical([]float64{0.5, 0.5})
	lik, _ := nodes.NewTransition([]float64{0.9, 0.2, 0.1, 0.8}, []int{2, 2})
	_, _ = g.AddFactor("", prior, s)
	_, _ = g.AddFactor("", lik, o, s)
	_ = o.Observe(1)
	if err := g.WriteDOT(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// digraph  {
	// 	newrank="true";rankdir="LR";splines="ortho";
	// 	n3[id="f000002",label="P(s)",shape="box"];
	// 	n4[id="f000003",label="P(o | s)",shape="box"];
	// 	n1[fixedsize="true",height="0.60",id="v000000",label="s",shape="circle",width="0.60"];
	// 	n2[fillcolor="gray",fixedsize="true",height="0.60",id="v000001",label="o",shape="circle",style="filled",width="0.60"];
	// 	n3->n1;
	// 	n4->n2;
	// 	n1->n4[dir="none"];
	// 	{rank=same; n1; n4; n2;}
	// }
}
