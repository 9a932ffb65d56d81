package aci_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestRunTrials: a batch of seeds gives, in order, the episodes that one
// agent per seed gives when run one after the other, with 1 or 3 workers
// (sampled actions and a sampled process, so the seed matters); a
// cancelled context and a bad trial are errors naming the trial.
func TestRunTrials(t *testing.T) {
	m, err := pomdp.Load("testdata/tiny-pomdp.json")
	if err != nil {
		t.Fatal(err)
	}
	var trials []aci.Trial
	for seed := range uint64(6) {
		opts := &aci.AgentOptions{Horizon: 2, Select: aci.SelectSample, Seed: seed}
		trials = append(trials, aci.Trial{Model: m, Options: opts, MaxSteps: 8,
			Env: func() pomdp.Environment { return pomdp.NewProcess(m, rand.New(rand.NewPCG(seed, 1))) }})
	}
	want := make([][]int, len(trials))
	distinct := map[string]bool{}
	for i, tr := range trials {
		ag, err := aci.NewAgent(m, tr.Options)
		if err != nil {
			t.Fatal(err)
		}
		ep, err := ag.RunEpisode(context.Background(), tr.Env(), 8, nil)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = append(ep.Actions, ep.Observations...)
		distinct[fmt.Sprint(want[i])] = true
	}
	if len(distinct) < 2 {
		t.Fatal("every seed gave the same episode: the test cannot tell trials apart")
	}
	for _, workers := range []int{1, 3} {
		eps, err := aci.RunTrials(context.Background(), trials, workers)
		if err != nil {
			t.Fatal(err)
		}
		for i, ep := range eps {
			if got := append(ep.Actions, ep.Observations...); !slices.Equal(got, want[i]) {
				t.Errorf("%d workers, trial %d: %v, want %v", workers, i, got, want[i])
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := aci.RunTrials(ctx, trials, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v, want context.Canceled", err)
	}
	bad := slices.Clone(trials)
	bad[2].Env = nil
	if _, err := aci.RunTrials(context.Background(), bad, 2); err == nil || err.Error() != "aci: trial 2: trial without an environment (Env is nil)" {
		t.Errorf("a trial without an environment: %v", err)
	}
}
