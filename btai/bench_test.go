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
	o := btai.DefaultOptions()
	o.Iterations, o.Inference = iterations, inf
	benchPlanOpts(b, iterations, &o)
}

func benchPlanOpts(b *testing.B, iterations int, o *btai.Options) {
	mz, p := mazeModel(b, "1.maze")
	ag, err := btai.NewAgent(p, o, rand.New(rand.NewPCG(1, 1)))
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

// BenchmarkPlanPaper100 is the paper preset (unexplored-first selection,
// 100 iterations): the selection rule's share of an iteration.
func BenchmarkPlanPaper100(b *testing.B) {
	o := btai.PresetPaper()
	benchPlanOpts(b, o.Iterations, &o)
}

// BenchmarkPlanNovelty1000 is the default preset with novelty: the cost of
// the novelty term per iteration (two more |O|×|S| products per new node).
func BenchmarkPlanNovelty1000(b *testing.B) {
	o := btai.DefaultOptions()
	o.Novelty = true
	benchPlanOpts(b, o.Iterations, &o)
}

// BenchmarkPlanMaterialize: a 100-iteration plan on 1.maze followed by
// Tree(), which adds the planning tree's 500 S_I and O_I to the graph
// (what `arbor btai plan` and --dot pay on top of planning); compare with
// BenchmarkPlanVMP100.
func BenchmarkPlanMaterialize(b *testing.B) {
	mz, p := mazeModel(b, "1.maze")
	o := btai.PresetPaper()
	ag, err := btai.NewAgent(p, &o, rand.New(rand.NewPCG(1, 1)))
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
