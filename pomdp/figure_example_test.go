package pomdp_test

import (
	"fmt"
	"log"

	"github.com/arbor-ai/arbor/pomdp"
)

// The figure of the tiger's generative model over one transition: the
// prior D over the first state, the likelihood A and the preferences C at
// each step, and the transition B from the first state to the next,
// joined to the policy π (three actions) with its prior σ(−G). Each factor
// is printed with its variables; g.WriteDOTWith draws it (arbor dot uses
// ffg.DOTOptions{Compact: true}, and folds pomdp.FigureSteps steps into a
// plate).
func ExampleModel_FigureGraph() {
	m, err := pomdp.Load("../examples/pomdp/tiger.json")
	if err != nil {
		log.Fatal(err)
	}
	g, err := m.FigureGraph(1)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range g.Factors() {
		var names []string
		for _, v := range f.Variables() {
			names = append(names, v.Name())
		}
		fmt.Println(f.Label, names)
	}
	// Output:
	// σ(−G) [pi]
	// D[state] [state_0]
	// A[observation] [observation_0 state_0]
	// C[observation] [observation_0]
	// B[state] [state_1 state_0 pi]
	// A[observation] [observation_1 state_1]
	// C[observation] [observation_1]
}
