package fit_test

import (
	"context"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/pomdp"
)

// simulate runs one agent per entry of values (built by f with those
// parameter values; its choice rule must sample) for trials trials of at
// most steps actions each in the model's own process, and returns their
// records: subject k draws its decisions from agent.StepRand(seed, k,
// trial, step), as a fit with Settings.Seed = seed replays them, and its
// world from agent.WorldRand(seed, k·trials + trial).
func simulate(t testing.TB, m *pomdp.Model, f agent.Factory, values []map[string]float64, trials, steps int, seed uint64) []behaviour.SubjectRecord {
	t.Helper()
	ctx := context.Background()
	recs := make([]behaviour.SubjectRecord, len(values))
	for k, v := range values {
		ag, err := f.NewAgent(m, v)
		if err != nil {
			t.Fatal(err)
		}
		recs[k].Subject = subjectName(k)
		for i := range trials {
			env := pomdp.NewProcess(m, agent.WorldRand(seed, k*trials+i))
			ep, err := agent.RunEpisode(ctx, ag, env, &agent.EpisodeSettings{MaxSteps: steps, Seed: seed, Agent: k, Trial: i})
			if err != nil {
				t.Fatal(err)
			}
			obs := ep.Observations()
			recs[k].Trials = append(recs[k].Trials, behaviour.TrialRecord{Trial: i + 1, Obs: obs, Actions: ep.Actions(), Lines: make([]int, len(obs))})
		}
	}
	return recs
}

func subjectName(k int) string {
	const digits = "0123456789"
	return "s" + string(digits[k/100%10]) + string(digits[k/10%10]) + string(digits[k%10])
}
