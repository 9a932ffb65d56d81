package fit_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/pomdp"
)

// trialAllocs returns the allocations of replaying one trial of recs[0]
// (agent.Scorer, as the likelihood does) after a warm-up over the first
// trials: the agent and the Scorer have then made every buffer.
func trialAllocs(t *testing.T, m *pomdp.Model, recs []behaviour.SubjectRecord) float64 {
	t.Helper()
	ag, err := tmazeFactory().NewAgent(m, map[string]float64{"alpha": 2, "gamma": 4})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var sc agent.Scorer
	set := agent.EpisodeSettings{Seed: 1}
	i := 0
	replay := func() {
		tr := &recs[0].Trials[i%len(recs[0].Trials)]
		set.Trial = i
		if _, _, err := sc.Trial(ctx, ag, tr.Obs, tr.Actions, &set); err != nil {
			t.Fatal(err)
		}
		i++
	}
	for range 5 {
		replay()
	}
	return testing.AllocsPerRun(20, replay)
}

// TestReplayAllocsPerDecision checks that a recorded decision costs no
// allocation on the likelihood's path (agent.Scorer with aci's DecideInto
// and exact filtering): a trial of 6 decisions allocates no more than one
// of 2 of the same agent, and that a trial allocates nothing either, on
// the maze without learning (tmaze-uniform.json) and with it (tmaze.json,
// which learns D: the trial's expected model is written over the one of
// the trial before last, pomdp.Past.RecycleExpected).
func TestReplayAllocsPerDecision(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, file := range []string{"../examples/pomdp/tmaze-uniform.json", "../examples/pomdp/tmaze.json"} {
		m, err := pomdp.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		fac := tmazeFactory()
		short := simulate(t, m, fac, []map[string]float64{{"alpha": 2, "gamma": 4}}, 10, 2, 1)
		long := simulate(t, m, fac, []map[string]float64{{"alpha": 2, "gamma": 4}}, 10, 6, 1)
		if n := len(long[0].Trials[0].Actions); n != 6 {
			t.Fatalf("%s: a long trial has %d decisions, want 6", file, n)
		}
		a2, a6 := trialAllocs(t, m, short), trialAllocs(t, m, long)
		t.Logf("%s: %v allocations per trial of 2 decisions, %v of 6", file, a2, a6)
		if perDecision := (a6 - a2) / 4; perDecision > 0 {
			t.Errorf("%s: %v allocations per decision (a trial of 2 decisions %v, of 6 %v), want 0", file, perDecision, a2, a6)
		}
		if a2 > 0 {
			t.Errorf("%s: %v allocations per trial, want 0", file, a2)
		}
	}
}

// BenchmarkReplayDecisions is the replay of the likelihood, 100 trials
// of the T-maze at horizon 2 (200 decisions) through one warm agent and
// Scorer per operation, on the maze without learning (fixed) and with it
// (learning, tmaze.json). It reports the allocations of a replay after a
// first per decision and per trial.
func BenchmarkReplayDecisions(b *testing.B) {
	for _, c := range []struct{ name, file string }{{"fixed", "../examples/pomdp/tmaze-uniform.json"}, {"learning", "../examples/pomdp/tmaze.json"}} {
		b.Run(c.name, func(b *testing.B) {
			m, err := pomdp.Load(c.file)
			if err != nil {
				b.Fatal(err)
			}
			fac := tmazeFactory()
			recs := simulate(b, m, fac, []map[string]float64{{"alpha": 2, "gamma": 4}}, 100, 2, 1)
			ag, err := fac.NewAgent(m, map[string]float64{"alpha": 2, "gamma": 4})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			var sc agent.Scorer
			set := agent.EpisodeSettings{Seed: 1}
			decisions := 0
			replay := func() {
				for i := range recs[0].Trials {
					tr := &recs[0].Trials[i]
					set.Trial = i
					if _, _, err := sc.Trial(ctx, ag, tr.Obs, tr.Actions, &set); err != nil {
						b.Fatal(err)
					}
					decisions += len(tr.Actions)
				}
			}
			replay()
			allocs := testing.AllocsPerRun(1, replay) // the run after a first
			b.ReportAllocs()
			decisions = 0
			for b.Loop() {
				replay()
			}
			b.ReportMetric(allocs/float64(decisions/b.N), "allocs/decision")
			b.ReportMetric(allocs/float64(len(recs[0].Trials)), "allocs/trial")
		})
	}
}

// TestScorerMatchesReplay checks that agent.Scorer, which reuses the
// decision (aci's DecideInto), replays as agent.Replay does: the same
// decisions, values and log-likelihood at every step, a missed response
// (carried under the decision's Probs) included.
func TestScorerMatchesReplay(t *testing.T) {
	m := loadTMaze(t)
	fac := tmazeFactory()
	recs := simulate(t, m, fac, []map[string]float64{{"alpha": 2, "gamma": 4}}, 12, 2, 1)
	recs[0].Trials[3].Actions[0] = -1
	recs[0].Trials[7].Actions[1] = -1
	v := map[string]float64{"alpha": 2, "gamma": 4}
	a1, err := fac.NewAgent(m, v)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := fac.NewAgent(m, v)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var sc agent.Scorer
	for i, tr := range recs[0].Trials {
		var want, got []agent.Decision
		keep := func(dst *[]agent.Decision) func(*agent.Step) error {
			return func(st *agent.Step) error {
				if d := st.Decision; d != nil {
					c := *d
					c.Probs, c.Base, c.Detail = slices.Clone(d.Probs), slices.Clone(d.Base), nil
					c.Values = nil
					for _, nv := range d.Values {
						c.Values = append(c.Values, agent.NamedValues{Name: nv.Name, Values: slices.Clone(nv.Values)})
					}
					*dst = append(*dst, c)
				}
				return nil
			}
		}
		rt, err := agent.Replay(ctx, a1, tr.Obs, tr.Actions, &agent.EpisodeSettings{Seed: 1, Trial: i, OnStep: keep(&want)})
		if err != nil {
			t.Fatal(err)
		}
		ll, n, err := sc.Trial(ctx, a2, tr.Obs, tr.Actions, &agent.EpisodeSettings{Seed: 1, Trial: i, OnStep: keep(&got)})
		if err != nil {
			t.Fatal(err)
		}
		if ll != rt.LogLikelihood || n != rt.Choices {
			t.Fatalf("trial %d: Scorer %v over %d choices, Replay %v over %d", i, ll, n, rt.LogLikelihood, rt.Choices)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: Scorer's decisions %+v, Replay's %+v", i, got, want)
		}
	}
}
