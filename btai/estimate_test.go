package btai_test

import (
	"context"
	"fmt"
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

// TestEstimateBytesByHand checks btai.EstimateBytes against its formula
// written out for 1.maze (22 states, 10 observations, 5 actions): d = 8 ×
// 5 × 22² = 19,360 bytes for a dense B, a = 8 × 10 × 22 = 1,760 for A; one
// agent holds d + 8 × 5 × 22 × 10 + 6a and its tree (btai.TreeBytes), the
// model 2(d + a), the making of an agent 2d more, the runtime 16 MiB. A
// random dense model of the same sizes adds 2d per agent (its ln B̄_u is
// dense in split form). A nil model panics, naming the function.
func TestEstimateBytesByHand(t *testing.T) {
	_, m := mazeModel(t, "1.maze")
	o := btai.DefaultOptions()
	d, a := 8*5*22*22.0, 8*10*22.0
	agent := d + 8*5*22*10 + 6*a + btai.TreeBytes(o.Iterations, 22, 10, 5, false)
	want := 2*(d+a) + agent + 2*d + 16<<20
	if got := btai.EstimateBytes(m, o, 1); got != want {
		t.Errorf("1.maze, one agent: %v, want %v", got, want)
	}
	if got := btai.EstimateBytes(m, o, 3) - btai.EstimateBytes(m, o, 1); got != 2*agent {
		t.Errorf("1.maze, two more agents: %v more, want %v", got, 2*agent)
	}
	r := randPOMDP(t, rand.New(rand.NewPCG(7, 7)), 22, 10, 5)
	if got := btai.EstimateBytes(r, o, 2) - btai.EstimateBytes(r, o, 1); got != agent+2*d {
		t.Errorf("random dense model: %v per agent, want %v", got, agent+2*d)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "btai: EstimateBytes") {
			t.Errorf("EstimateBytes(nil): panic %v, want one naming btai: EstimateBytes", r)
		}
	}()
	btai.EstimateBytes(nil, o, 1)
}
