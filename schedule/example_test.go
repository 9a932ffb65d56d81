package schedule_test

import (
	"context"
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// Global inference on a three-step hidden Markov model whose transition
// matrix B is learned: sweep every hidden variable until |ΔF| < tolerance.
func ExampleRun() {
	g := ffg.New()
	b, _ := g.AddVariable("B", expfam.DirichletFamily, 2, 2)
	bPrior, _ := nodes.NewDirichlet([]float64{3, 1, 1, 3}, []int{2, 2})
	_, _ = g.AddFactor("", bPrior, b)
	d, _ := nodes.NewCategorical([]float64{0.5, 0.5})
	a, _ := nodes.NewTransition([]float64{0.9, 0.1, 0.1, 0.9}, []int{2, 2})
	var prev *ffg.Variable
	for t, obs := range []int{0, 0, 1} {
		s, _ := g.AddVariable(fmt.Sprintf("s%d", t), expfam.CategoricalFamily, 2)
		if prev == nil {
			_, _ = g.AddFactor("", d, s)
		} else {
			tr, _ := nodes.NewTransitionDirichlet([]int{2, 2})
			_, _ = g.AddFactor("", tr, s, prev, b)
		}
		o, _ := g.AddVariable("", expfam.CategoricalFamily, 2)
		_, _ = g.AddFactor("", a, o, s)
		_ = o.Observe(obs)
		prev = s
	}
	res, err := schedule.Run(context.Background(), g, &schedule.Settings{Iterations: 500, Tolerance: 1e-12})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("converged:", res.Converged, "F never increased:", len(res.Increases) == 0)
	for _, name := range []string{"s0", "s1", "s2"} {
		v, _ := g.Variable(name)
		fmt.Printf("q(%s) = [%.3f %.3f]\n", name, v.Probs()[0], v.Probs()[1])
	}
	fmt.Printf("F = %.4f\n", res.Final())
	// The figures below are the engine's; that such posteriors are the
	// mean-field fixed point and that F is right is checked by enumeration
	// on random models of this kind in ffg's TestFreeEnergyMatchesEnumeration.

	// Output:
	// converged: true F never increased: true
	// q(s0) = [0.968 0.032]
	// q(s1) = [0.927 0.073]
	// q(s2) = [0.199 0.801]
	// F = 2.5583
}

// Local inference updates only the given variables, as BTAI does for newly
// expanded nodes; the rest of the graph keeps its posteriors.
func ExampleLocal() {
	g := ffg.New()
	root, _ := g.AddVariable("root", expfam.CategoricalFamily, 2)
	p, _ := nodes.NewCategorical([]float64{0.8, 0.2})
	_, _ = g.AddFactor("", p, root)
	_, _ = schedule.Run(context.Background(), g, nil)

	leaf, _ := g.AddVariable("leaf", expfam.CategoricalFamily, 2)
	b, _ := nodes.NewTransition([]float64{0.7, 0.4, 0.3, 0.6}, []int{2, 2})
	_, _ = g.AddFactor("", b, leaf, root)
	res, err := schedule.Local(context.Background(), g, []*ffg.Variable{leaf}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	// With nothing observed below it, q(leaf) = B q(root) = (0.7*0.8 + 0.4*0.2, ...).
	fmt.Printf("q(leaf) = [%.2f %.2f], q(root) = [%.1f %.1f], converged: %v\n",
		leaf.Probs()[0], leaf.Probs()[1], root.Probs()[0], root.Probs()[1], res.Converged)
	// Output:
	// q(leaf) = [0.64 0.36], q(root) = [0.8 0.2], converged: true
}
