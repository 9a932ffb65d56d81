package btai_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestEstimatePlanSeconds measures one planning step at four sizes (a
// 30-state random model with 5 actions, a factorised model with 3
// factors of 6 states and 2 controllable factors, 9 joint actions,
// 1.maze and an open maze of 400 states), with
// vmp and predictive inference, and checks the estimate against it with
// the wide margin that timing on a shared machine needs: the measured time
// is between 1/50 of the estimate and 5 times it (the estimate is meant to
// err high; docs/reliability.md records the measured ratios).
func TestEstimatePlanSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("times planning")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	models := []*pomdp.Model{randPOMDP(t, rng, 30, 10, 5), randFactorised(t, rng, 3, 3, 2)}
	// The sparse path of the maze models: 1.maze and an open maze of 400
	// states (the first plan, set-up included).
	_, m1 := mazeModel(t, "1.maze")
	open, err := envs.ParseMaze(strings.NewReader(openMazeText(22)))
	if err != nil {
		t.Fatal(err)
	}
	models = append(models, m1, mazePOMDP(t, open, envs.DefaultPrefPrecision))
	for i, m := range models {
		for _, inf := range []btai.Inference{btai.VMP, btai.Predictive} {
			o := btai.DefaultOptions()
			o.Inference, o.Iterations = inf, 2000
			ag, err := btai.NewAgent(m, &o, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			obs := 0
			for ; obs < m.NumObs(); obs++ {
				if _, err := pomdp.StatePosterior(nil, m, obs); err == nil {
					break
				}
			}
			if err := ag.Reset(ctx, obs); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if err := ag.Plan(ctx); err != nil {
				t.Fatal(err)
			}
			got := time.Since(start).Seconds()
			est := btai.EstimatePlanSeconds(m, o)
			t.Logf("model %d, %v: measured %.4f s, estimate %.4f s, ratio %.2f", i, inf, got, est, got/est)
			if got > 5*est || got < est/50 {
				t.Errorf("model %d, %v: measured %.4f s against an estimate of %.4f s", i, inf, got, est)
			}
		}
	}
}
