package aci_test

import (
	"context"
	"fmt"
	"log"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/pomdp"
)

// The figure of the agent on the tiger after its first decision: the past
// S_0, O_0, the policy π, and the future step the policy selects, in the
// plate τ = 1 … 2 (horizon 2).
func ExampleAgent_FigureGraph() {
	m, err := pomdp.Load("../examples/pomdp/tiger.json")
	if err != nil {
		log.Fatal(err)
	}
	a, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: 2})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if err := a.Reset(ctx, 0); err != nil {
		log.Fatal(err)
	}
	if _, err := a.Act(ctx); err != nil {
		log.Fatal(err)
	}
	g, err := a.FigureGraph()
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range g.Factors() {
		if f.Cluster == "τ = 1 … 2" {
			var names []string
			for _, v := range f.Variables() {
				l := v.Label
				if l == "" {
					l = v.Name()
				}
				names = append(names, l)
			}
			fmt.Println(f.Label, names)
		}
	}
	// Output:
	// B [Sτ S_0 pi]
	// A [Oτ Sτ]
}
