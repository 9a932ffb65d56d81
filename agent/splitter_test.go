package agent_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// splitAgent is a fakeAgent that records the jobs it is given.
type splitAgent struct {
	fakeAgent
	mu   *sync.Mutex
	jobs *[]int
}

func (a *splitAgent) SetJobs(n int) {
	a.mu.Lock()
	*a.jobs = append(*a.jobs, n)
	a.mu.Unlock()
}

// TestRunAgentsSetsJobs: RunAgents gives every agent the workers that no
// trial uses, Workers divided by the trials run at once: all 4 to the one
// trial, 2 each to 2 trials at once, 1 each to 4 or more; with Jobs 4 and
// Workers 1 (memory keeping one trial at a time) all 4 to each trial, and
// with Jobs 4 and Workers 2, 2 each to 3 trials run two at a time; an
// agent that is not a Splitter is left alone (agent.SetJobs does nothing).
func TestRunAgentsSetsJobs(t *testing.T) {
	m, err := pomdp.Load("../pomdp/testdata/tiny-pomdp.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct{ trials, workers, jobs, want int }{{1, 4, 0, 4}, {2, 4, 0, 2}, {3, 4, 0, 1}, {8, 4, 0, 1}, {3, 1, 4, 4}, {3, 2, 4, 2}} {
		var mu sync.Mutex
		var jobs []int
		newAgent := func() (agent.Agent, error) {
			return &splitAgent{fakeAgent: fakeAgent{probs: [][]float64{{0.5, 0.5}}}, mu: &mu, jobs: &jobs}, nil
		}
		env := func(agent.Unit) (agent.Environment, error) {
			return pomdp.NewProcess(m, rand.New(rand.NewPCG(1, 2))), nil
		}
		emit := func(agent.Unit, *agent.Episode) error { return nil }
		runs := &agent.Runs{Trials: tc.trials, Workers: tc.workers, Jobs: tc.jobs, MaxSteps: 2}
		if err := agent.RunAgents(ctx, runs, newAgent, env, emit); err != nil {
			t.Fatal(err)
		}
		if len(jobs) == 0 {
			t.Fatalf("%d trials: SetJobs never called", tc.trials)
		}
		for _, n := range jobs {
			if n != tc.want {
				t.Errorf("%d trials on %d workers, %d jobs: SetJobs(%d), want %d", tc.trials, tc.workers, tc.jobs, n, tc.want)
			}
		}
	}
	agent.SetJobs(&fakeAgent{}, 3) // not a Splitter: nothing happens
}

// TestSpareJobs: the jobs no unit takes, shared out (by hand: 8 jobs for
// 3 units leave 2 spare each with integer division, 8 / 3 = 2).
func TestSpareJobs(t *testing.T) {
	for _, c := range []struct{ jobs, units, want int }{
		{1, 1, 1}, {2, 1, 2}, {2, 20, 1}, {8, 3, 2}, {8, 8, 1}, {4, 0, 4}, {0, 5, 1},
	} {
		if got := agent.SpareJobs(c.jobs, c.units); got != c.want {
			t.Errorf("SpareJobs(%d, %d) = %d, want %d", c.jobs, c.units, got, c.want)
		}
	}
}
