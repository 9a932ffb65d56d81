package si_test

import (
	"context"
	"fmt"

	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// Plan on pymdp's SI T-maze: from the centre, with the context unknown,
// sophisticated inference two steps deep goes to the cue.
func ExamplePlan() {
	m, err := pomdp.Load("../examples/pomdp/si-tmaze.json")
	if err != nil {
		panic(err)
	}
	o, _ := m.EncodeObs([]int{0, 0}) // at the centre, no outcome
	qs, err := pomdp.StatePosterior(nil, m, o)
	if err != nil {
		panic(err)
	}
	res, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 2, Gamma: 3})
	if err != nil {
		panic(err)
	}
	for u, p := range res.ActionProbs {
		fmt.Printf("%-9s G %.4f  Q %.3f\n", m.ActionName(u), res.G[u], p)
	}
	fmt.Println(res.Nodes, "beliefs scored")
	// Output:
	// go-centre G 7.0826  Q 0.003
	// go-left   G 6.7900  Q 0.008
	// go-right  G 6.7900  Q 0.008
	// go-cue    G 5.1989  Q 0.980
	// 7 beliefs scored
}
