package btai_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

// ptr returns a pointer to a copy of x, for the options whose zero is a
// value (nil: the default).
func ptr(x float64) *float64 { return &x }

// runSeedEpisodes runs seeds 0..seeds-1 of the agent for model p with
// options o, one episode each in a fresh environment, on workers
// goroutines: seed k is trial k of a batch with seed 0, whose decisions
// draw from agent.StepRand(0, 0, k, t) = the streams of a run with seed k
// (what arbor btai run --seed k draws).
func runSeedEpisodes(ctx context.Context, p *pomdp.Model, o *btai.Options, env func() agent.Environment, seeds, maxSteps, workers int) ([]*agent.Episode, error) {
	eps := make([]*agent.Episode, 0, seeds)
	err := agent.RunAgents(ctx, &agent.Runs{Trials: seeds, Workers: workers, MaxSteps: maxSteps},
		func() (agent.Agent, error) { return btai.NewAgent(p, o, nil) },
		func(agent.Unit) (agent.Environment, error) { return env(), nil },
		func(_ agent.Unit, ep *agent.Episode) error { eps = append(eps, ep); return nil })
	return eps, err
}

// TestRunSeeds: a batch of seeds gives, in order, the episodes that one
// agent per seed gives run one after the other with agent.RunEpisode and
// seed k, with 1 or 3 workers; a cancelled context is an error.
func TestRunSeeds(t *testing.T) {
	mz, p := mazeModel(t, "1.maze")
	o := btai.PresetPaper()
	o.Iterations, o.ActionPrecision = 30, ptr(1) // the seed matters at precision 1
	const seeds = 6
	want := make([][]int, seeds)
	for k := range seeds {
		ag, err := btai.NewAgent(p, &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		ep, err := agent.RunEpisode(context.Background(), ag, mz.Clone(), &agent.EpisodeSettings{MaxSteps: 12, Seed: uint64(k)})
		if err != nil {
			t.Fatal(err)
		}
		want[k] = ep.Actions()
	}
	for _, workers := range []int{1, 3} {
		eps, err := runSeedEpisodes(context.Background(), p, &o, func() agent.Environment { return mz.Clone() }, seeds, 12, workers)
		if err != nil {
			t.Fatal(err)
		}
		for i, ep := range eps {
			if !slices.Equal(ep.Actions(), want[i]) {
				t.Errorf("%d workers, seed %d: actions %v, want %v", workers, i, ep.Actions(), want[i])
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := runSeedEpisodes(ctx, p, &o, func() agent.Environment { return mz.Clone() }, seeds, 12, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v, want context.Canceled", err)
	}
}

// TestDecisionCosts: a decision's average costs are those of the root's
// children in the tree the step planned, as the tree shows them when
// OnStep is called, and its probabilities σ(-α ḡ) over them.
func TestDecisionCosts(t *testing.T) {
	mz, p := mazeModel(t, "1.maze")
	o := btai.PresetPaper()
	o.Iterations, o.ActionPrecision = 30, ptr(2)
	ag, err := btai.NewAgent(p, &o, nil)
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	_, err = agent.RunEpisode(context.Background(), ag, mz.Clone(), &agent.EpisodeSettings{MaxSteps: 6, Seed: 1,
		OnStep: func(st *agent.Step) error {
			if st.Decision == nil {
				return nil
			}
			steps++
			tr := ag.Tree()
			costs := st.Decision.Value("average_cost")
			z := 0.0
			for u := range costs {
				if c := tr.Nodes[tr.Child(0, u)].Average(); c != costs[u] {
					t.Errorf("step %d action %d: cost %v, the tree shows %v", st.T, u, costs[u], c)
				}
				z += math.Exp(-*o.ActionPrecision * (costs[u] - costs[0]))
			}
			for u := range costs {
				want := math.Exp(-*o.ActionPrecision*(costs[u]-costs[0])) / z
				if d := st.Decision.Probs[u] - want; d > 1e-12 || d < -1e-12 {
					t.Errorf("step %d action %d: P %v, want σ(-α ḡ) = %v", st.T, u, st.Decision.Probs[u], want)
				}
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if steps == 0 {
		t.Fatal("no decision seen")
	}
}

// TestVisitsRule: under the visits rule the decision's distribution is
// P(u) = N_u^α / Σ_v N_v^α over the root children's visit counts, read
// from the tree the step planned (α = 2 here), and the rule is not
// deterministic; most-visited and min-cost are, with a one-hot
// distribution on their choice.
func TestVisitsRule(t *testing.T) {
	_, p := mazeModel(t, "1.maze")
	for _, rule := range []btai.ActionSelection{btai.Visits, btai.MostVisited, btai.MinCost} {
		o := btai.DefaultOptions()
		o.Iterations, o.ActionSelection, o.ActionPrecision = 60, rule, ptr(2)
		ag, err := btai.NewAgent(p, &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := ag.Reset(ctx, 9); err != nil {
			t.Fatal(err)
		}
		d, err := ag.Decide(ctx, agent.StepRand(1, 0, 0, 0))
		if err != nil {
			t.Fatal(err)
		}
		if d.Deterministic != (rule != btai.Visits) {
			t.Errorf("%v: deterministic %v", rule, d.Deterministic)
		}
		tr := ag.Tree()
		if rule != btai.Visits {
			if d.Action != tr.BestAction(rule) || d.Probs[d.Action] != 1 {
				t.Errorf("%v: action %d, probabilities %v; the tree's choice is %d", rule, d.Action, d.Probs, tr.BestAction(rule))
			}
			continue
		}
		z := 0.0
		n := make([]float64, len(d.Probs))
		for u := range n {
			n[u] = float64(tr.Nodes[tr.Child(0, u)].Visits)
			z += n[u] * n[u]
		}
		for u := range n {
			if math.Abs(d.Probs[u]-n[u]*n[u]/z) > 1e-15 {
				t.Errorf("visits %v: P = %v, want N²/ΣN²", n, d.Probs)
				break
			}
		}
	}
}
