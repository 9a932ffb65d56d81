package aci_test

import (
	"context"
	"fmt"
	"log"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/pomdp"
)

// A two-room world: state 0 always shows "calm" (o0), state 1 shows "calm"
// or "noise" evenly. Action 0 stays, action 1 switches rooms. The agent
// prefers calm (C = [0.9, 0.1]) and heard noise, so it knows it is in room 1.
func ExampleEval() {
	m, err := pomdp.Parse([]byte(`{
		"A": [[1, 0.5], [0, 0.5]],
		"B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]],
		"C": [0.9, 0.1],
		"D": [0.5, 0.5],
		"actions": ["stay", "switch"]
	}`))
	if err != nil {
		log.Fatal(err)
	}
	res, err := aci.Eval(m, 1, 2, 4)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("q_s = %.3f\n", res.QS)
	for i, pi := range res.Policies {
		fmt.Printf("%v G=%.4f risk=%.4f ambiguity=%.4f q_pi=%.4f\n",
			pi, res.G[i], res.Risk[i], res.Ambiguity[i], res.QPi[i])
	}
	for u, p := range res.ActionProbs {
		fmt.Printf("P(%s) = %.4f\n", m.ActionName(u), p)
	}
	// By hand: q_s = [0, 1]; [1 0] moves to room 0 and stays there, risk
	// 2 ln(1/0.9) = 0.2107 and no ambiguity; [0 0] stays in room 1, risk
	// 2 ln(5/3) = 1.0217 and ambiguity 2 ln 2 = 1.3863.

	// Output:
	// q_s = [0.000 1.000]
	// [0 0] G=2.4079 risk=1.0217 ambiguity=1.3863 q_pi=0.0001
	// [0 1] G=1.3093 risk=0.6162 ambiguity=0.6931 q_pi=0.0120
	// [1 0] G=0.2107 risk=0.2107 ambiguity=0.0000 q_pi=0.9758
	// [1 1] G=1.3093 risk=0.6162 ambiguity=0.6931 q_pi=0.0120
	// P(stay) = 0.0122
	// P(switch) = 0.9878
}

// The two-room world of ExampleEval with a learned prior over the initial
// room (d). The agent hears noise, so it is in room 1, and moves to the calm
// room 0, then stays. At the end of the trial d has gained one count on
// room 1, where the trial started.
func ExampleAgent() {
	m, err := pomdp.Parse([]byte(`{
		"A": [[1, 0.5], [0, 0.5]],
		"B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]],
		"C": [0.9, 0.1],
		"d": [1, 1],
		"actions": ["stay", "switch"]
	}`))
	if err != nil {
		log.Fatal(err)
	}
	agent, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: 2, Gamma: 4})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	obs := 1 // noise
	if err := agent.Reset(ctx, obs); err != nil {
		log.Fatal(err)
	}
	for range 2 {
		u, err := agent.Act(ctx)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("q(s) = %.3f  P(stay, switch) = %.4f  -> %s\n",
			agent.Belief(), agent.ActionProbs(), m.ActionName(u))
		obs = 0 // both rooms can be calm; room 0 always is
		if err := agent.Observe(u, obs); err != nil {
			log.Fatal(err)
		}
	}
	if err := agent.EndTrial(ctx); err != nil {
		log.Fatal(err)
	}
	d := agent.Concentrations().D[0]
	fmt.Printf("learned d = %.3f\n", d)
	// By hand: the first step is ExampleEval (q_s = [0, 1], P(switch) =
	// 0.9878). In room 0 the four policies have the same G values as from
	// room 1 with the actions' roles swapped ([0 0] now costs 2 ln(1/0.9)),
	// so P(stay) = 0.9878. d gains Q(S_0) = [0, 1].

	// Output:
	// q(s) = [0.000 1.000]  P(stay, switch) = [0.0122 0.9878]  -> switch
	// q(s) = [1.000 0.000]  P(stay, switch) = [0.9878 0.0122]  -> stay
	// learned d = [1.000 2.000]
}
