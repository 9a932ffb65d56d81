package aci

import (
	"context"
	"fmt"
	"testing"

	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/internal/fastexp"
	"github.com/arbor-ai/arbor/pomdp"
)

// mazeStart returns the agent's model of examples/mazes/1.maze (22 states,
// 10 observations, 5 actions; noise 0.1 and preference precision 3, the
// defaults of arbor aci run --maze) and q(s_0) after the first observation,
// as arbor aci run plans its first action.
func mazeStart(tb testing.TB) (*pomdp.Model, []float64) {
	tb.Helper()
	mz, err := envs.LoadMaze("../examples/mazes/1.maze")
	if err != nil {
		tb.Fatal(err)
	}
	m, err := mz.POMDP(envs.DefaultNoise, envs.DefaultPrefPrecision)
	if err != nil {
		tb.Fatal(err)
	}
	qs, err := pomdp.StatePosterior(nil, m, mz.Reset())
	if err != nil {
		tb.Fatal(err)
	}
	return m, qs
}

// BenchmarkMazePlan scores every policy of length T from the start of
// 1.maze (5^T policies) and gives the action marginal at gamma 16, as the
// first decision of arbor aci run --maze examples/mazes/1.maze --horizon T:
// TopPolicies' walk keeping the 1,024 best, on jobs goroutines, with its
// buffers reused from one plan to the next (ranker), as a decision's hot
// path: no allocation at jobs 1, the goroutine's at jobs 2.
func BenchmarkMazePlan(b *testing.B) {
	m, qs := mazeStart(b)
	ctx := context.Background()
	fastexp.Init() // the exponential's tables, made once a process: not a plan's allocations
	for _, T := range []int{7, 8} {
		for _, jobs := range []int{1, 2} {
			b.Run(fmt.Sprintf("T=%d/jobs=%d", T, jobs), func(b *testing.B) {
				b.ReportAllocs()
				var rk ranker
				for b.Loop() {
					if _, err := rk.rank(ctx, m, qs, T, 1024, DefaultGamma, nil, jobs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
