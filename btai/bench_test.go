package btai_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/btai"
)

// benchPlan measures planning on 1.maze from the start state: ns/op is the
// time of one planning iteration (selection, expansion of the 5 actions,
// inference, cost, propagation), amortised over a tree of `iterations`
// iterations that is then discarded.
func benchPlan(b *testing.B, iterations int, inf btai.Inference) {
	mz, p := mazeModel(b, "1.maze")
	o := btai.DefaultOptions()
	o.Iterations, o.Inference = iterations, inf
	ag, err := btai.NewAgent(p, &o, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := ag.Reset(ctx, mz.Reset()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		if err := ag.Plan(ctx); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(n*iterations), "µs/iteration")
}

func BenchmarkPlanVMP100(b *testing.B)          { benchPlan(b, 100, btai.VMP) }
func BenchmarkPlanVMP10000(b *testing.B)        { benchPlan(b, 10000, btai.VMP) }
func BenchmarkPlanPredictive100(b *testing.B)   { benchPlan(b, 100, btai.Predictive) }
func BenchmarkPlanPredictive1000(b *testing.B)  { benchPlan(b, 1000, btai.Predictive) }
func BenchmarkPlanPredictive10000(b *testing.B) { benchPlan(b, 10000, btai.Predictive) }
func BenchmarkPlanVMP1000(b *testing.B)         { benchPlan(b, 1000, btai.VMP) }

// BenchmarkPlanMaterialize: a 100-iteration plan on 1.maze followed by
// Tree(), which adds the planning tree's 500 S_I and O_I to the graph
// (what `arbor btai plan` and --dot pay on top of planning); compare with
// BenchmarkPlanVMP100.
func BenchmarkPlanMaterialize(b *testing.B) {
	mz, p := mazeModel(b, "1.maze")
	ag, err := btai.NewAgent(p, nil, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := ag.Reset(ctx, mz.Reset()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := ag.Plan(ctx); err != nil {
			b.Fatal(err)
		}
		if n := len(ag.Tree().Nodes); n != 501 {
			b.Fatalf("%d nodes", n)
		}
	}
}
