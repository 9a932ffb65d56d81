package aci_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestRunAgents: a batch of agents gives, in order, the episodes that each
// agent gives when run one after the other with agent.RunEpisode and the
// same streams, with 1 or 3 workers (sampled actions and a sampled process,
// so the seed matters); a cancelled context and a failing environment are
// errors, the latter naming the agent and trial.
func TestRunAgents(t *testing.T) {
	m, err := pomdp.Load("testdata/tiny-pomdp.json")
	if err != nil {
		t.Fatal(err)
	}
	opts := &aci.AgentOptions{Horizon: 2, Select: aci.SelectSample}
	newAgent := func() (agent.Agent, error) { return aci.NewAgent(m, opts) }
	newEnv := func(u agent.Unit) (agent.Environment, error) {
		return pomdp.NewProcess(m, rand.New(rand.NewPCG(uint64(u.Agent), 1))), nil
	}
	const agents, seed = 6, 5
	want := make([]string, agents)
	distinct := map[string]bool{}
	for a := range agents {
		ag, _ := newAgent()
		env, _ := newEnv(agent.Unit{Agent: a})
		ep, err := agent.RunEpisode(context.Background(), ag, env, &agent.EpisodeSettings{MaxSteps: 8, Seed: seed, Agent: a})
		if err != nil {
			t.Fatal(err)
		}
		want[a] = fmt.Sprint(ep.Actions(), ep.Observations())
		distinct[want[a]] = true
	}
	if len(distinct) < 2 {
		t.Fatal("every agent gave the same episode: the test cannot tell them apart")
	}
	for _, workers := range []int{1, 3} {
		var got []string
		err := agent.RunAgents(context.Background(), &agent.Runs{Agents: agents, Workers: workers, MaxSteps: 8, Seed: seed},
			newAgent, newEnv, func(u agent.Unit, ep *agent.Episode) error {
				if u.Agent != len(got) || u.Trial != 0 {
					t.Errorf("unit %+v out of order", u)
				}
				got = append(got, fmt.Sprint(ep.Actions(), ep.Observations()))
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d workers: %v, want %v", workers, got, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = agent.RunAgents(ctx, &agent.Runs{Agents: agents, Workers: 2}, newAgent, newEnv, func(agent.Unit, *agent.Episode) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v, want context.Canceled", err)
	}
	badEnv := func(u agent.Unit) (agent.Environment, error) {
		if u.Agent == 2 {
			return nil, errors.New("no environment")
		}
		return newEnv(u)
	}
	err = agent.RunAgents(context.Background(), &agent.Runs{Agents: agents, Workers: 2, MaxSteps: 3}, newAgent, badEnv, func(agent.Unit, *agent.Episode) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "agent 3 trial 1: no environment") {
		t.Errorf("a unit without an environment: %v", err)
	}
}
