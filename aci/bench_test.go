package aci

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// mazePOMDP is a maze-sized random POMDP: 30 states, 30 observations, 5
// actions (up, down, left, right, stay).
func mazePOMDP(b *testing.B) (*pomdp.Model, []float64) {
	rng := rand.New(rand.NewPCG(42, 43))
	return randPOMDP(b, rng, 30, 30, 5), randColumns(rng, 1, 30, 1)
}

func BenchmarkEvaluatePolicies(b *testing.B) {
	m, qs := mazePOMDP(b)
	for h := 2; h <= 8; h++ {
		b.Run(fmt.Sprintf("T=%d", h), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := EvaluatePolicies(m, qs, h, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkTopPolicies(b *testing.B) {
	m, qs := mazePOMDP(b)
	for h := 2; h <= 8; h++ {
		b.Run(fmt.Sprintf("T=%d", h), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := TopPolicies(m, qs, h, 10, 16, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchAct measures Agent.Act (state inference over a past of 5 steps,
// policy scoring, q(pi) on the graph, action choice) on a random POMDP.
func benchAct(b *testing.B, m *pomdp.Model, opts *AgentOptions) {
	ag, err := NewAgent(m, opts)
	if err != nil {
		b.Fatal(err)
	}
	if err := ag.Reset(context.Background(), 0); err != nil {
		b.Fatal(err)
	}
	for i := range 5 {
		if err := ag.Observe(i%m.NumActions(), (i+1)%m.NumObs()); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ag.Act(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAgentActSmall: a T-maze-sized model (8 states, 5 observations,
// 4 actions), horizon 2 (16 policies, all held by pi).
func BenchmarkAgentActSmall(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := randPOMDP(b, rng, 8, 5, 4)
	b.Run("fixed-gamma", func(b *testing.B) { benchAct(b, m, &AgentOptions{Horizon: 2}) })
	b.Run("infer-gamma", func(b *testing.B) {
		benchAct(b, m, &AgentOptions{Horizon: 2, InferGamma: true, Habits: []float64{0.4, 0.3, 0.2, 0.1}})
	})
}

// BenchmarkAgentActMaze: a maze-sized model (30 states, 30 observations,
// 5 actions); T=3 holds all 125 policies in pi, T=5 and T=7 hold the best
// 1024 of 3,125 and 78,125 (TopPolicies, streamed marginal).
func BenchmarkAgentActMaze(b *testing.B) {
	m, _ := mazePOMDP(b)
	for _, h := range []int{3, 5, 7} {
		b.Run(fmt.Sprintf("T=%d", h), func(b *testing.B) { benchAct(b, m, &AgentOptions{Horizon: h}) })
	}
}

// BenchmarkAgentDecideInto is BenchmarkAgentActSmall's fixed precision and
// BenchmarkAgentActMaze as DecideInto makes them, one decision reused
// (the agent.Reuser path of replay and fitting): the same work, 0
// allocations a decision, where Act makes a new plan every time.
func BenchmarkAgentDecideInto(b *testing.B) {
	small := randPOMDP(b, rand.New(rand.NewPCG(1, 2)), 8, 5, 4)
	maze, _ := mazePOMDP(b)
	for _, c := range []struct {
		name string
		m    *pomdp.Model
		h    int
	}{{"small/T=2", small, 2}, {"maze/T=3", maze, 3}, {"maze/T=5", maze, 5}, {"maze/T=7", maze, 7}} {
		b.Run(c.name, func(b *testing.B) {
			ag, err := NewAgent(c.m, &AgentOptions{Horizon: c.h})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if err := ag.Reset(ctx, 0); err != nil {
				b.Fatal(err)
			}
			for i := range 5 {
				if err := ag.Observe(i%c.m.NumActions(), (i+1)%c.m.NumObs()); err != nil {
					b.Fatal(err)
				}
			}
			var d agent.Decision
			rng := rand.New(rand.NewPCG(3, 3))
			if err := ag.DecideInto(ctx, rng, &d); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := ag.DecideInto(ctx, rng, &d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
