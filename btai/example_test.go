package btai_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
)

// A BTAI agent with the default options (100 planning iterations per
// action, vmp inference, classic cost, min-backward propagation, softmax
// action selection) walks down a corridor to the exit.
func Example() {
	mz, err := envs.ParseMaze(strings.NewReader("3 6\nWWWWWW\nWS..EW\nWWWWWW\n"))
	if err != nil {
		log.Fatal(err)
	}
	// The agent's noisy model of the maze (noise 0.1, preference
	// precision 3), as a *pomdp.Model.
	m, err := mz.POMDP(envs.DefaultNoise, envs.DefaultPrefPrecision)
	if err != nil {
		log.Fatal(err)
	}
	ag, err := btai.NewAgent(m, nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	ep, err := agent.RunEpisode(context.Background(), ag, mz, &agent.EpisodeSettings{MaxSteps: 10, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	for _, a := range ep.Actions() {
		names = append(names, m.ActionName(a))
	}
	fmt.Println(ep.Solved, ep.NumActions(), names)
	// Output: true 3 [RIGHT RIGHT RIGHT]
}

// Min-backward propagation by hand: the root's children cost 2, 1 and 3;
// expanding child 1 with grandchildren of cost 4, 0.5 and 6 adds the
// cheapest, 0.5, to child 1 and to the root.
func ExampleTree_Propagate() {
	var t btai.Tree
	t.Reset(3, nil)
	t.AddChildren(0, []float64{2, 1, 3})
	t.Propagate(0, btai.MinBackward)
	c := t.Child(0, 1)
	t.AddChildren(c, []float64{4, 0.5, 6})
	t.Propagate(c, btai.MinBackward)
	fmt.Printf("root: G=%.1f n=%d; child 1: G=%.1f n=%d average=%.2f\n",
		t.Nodes[0].Aggregated, t.Nodes[0].Visits, t.Nodes[c].Aggregated, t.Nodes[c].Visits, t.Nodes[c].Average())
	// Output: root: G=1.5 n=2; child 1: G=1.5 n=2 average=0.75
}
