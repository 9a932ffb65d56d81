package btai_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestLearningCarriedOver compares BTAI at its defaults with classic
// active inference (horizon 2) when one agent runs 10 trials in a row and
// learns between them: the T-maze learning its context prior D, the cue
// bandit its reward counts (learnFiles). 20 agents per planner (200
// trials per task; BTAI_CARRY_AGENTS to change it), the first 20 agents
// of the short-task table of docs/btai.md, on the same worlds.
//
// The thresholds come from that table (100 agents, 1,000 trials per
// task): on the cue bandit BTAI is ahead (0.527 against 0.452), and the
// test asks for at least aci's rate minus 5 points, as on fresh trials;
// on the T-maze BTAI trails aci by 14 points (0.608 against 0.748: the
// mean-field future goes to the arm the learned prior favours,
// TestTMazeSkewedContextPrior), and the test asks that the gap stay below
// 25 points and that BTAI stay above chance (0.5: the world's context is a
// fair coin, so going straight to an arm wins half the time). Measured
// with 20 agents: T-maze 0.620 against 0.770, cue bandit 0.553 against
// 0.431 (about 35 s of CPU).
func TestLearningCarriedOver(t *testing.T) {
	if testing.Short() {
		t.Skip("BTAI plans 1,000 iterations per action over 400 trials")
	}
	agents := envInt(t, "BTAI_CARRY_AGENTS", 20)
	ctx := context.Background()
	workers := runtime.GOMAXPROCS(0)
	for _, task := range epistemicTasks {
		if learnFiles[task.Name] == "" {
			continue
		}
		t.Run(task.Name, func(t *testing.T) {
			m := loadTask(t, task, true)
			ref, err := runTask(ctx, task, m, aciColumn(2), agents, carryTrials, workers, true)
			if err != nil {
				t.Fatal(err)
			}
			got, err := runTask(ctx, task, m, shortColumns[0], agents, carryTrials, workers, true)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s, %d agents × %d trials: aci (horizon 2) %.3f, btai (defaults) %.3f", task.Name, agents, carryTrials, ref.rate, got.rate)
			switch task.Name {
			case "cue bandit":
				if got.rate < ref.rate-0.05 {
					t.Errorf("btai %.3f, want at least aci's %.3f - 0.05", got.rate, ref.rate)
				}
			case "t-maze":
				if got.rate < ref.rate-0.25 || got.rate <= 0.5 {
					t.Errorf("btai %.3f, want above 0.5 and at least aci's %.3f - 0.25", got.rate, ref.rate)
				}
			}
		})
	}
}

// tmazeWithPrior is examples/pomdp/tmaze-uniform.json with the context
// prior D = (pl, 1 - pl).
func tmazeWithPrior(t *testing.T, pl float64) *pomdp.Model {
	t.Helper()
	b, err := os.ReadFile("../examples/pomdp/tmaze-uniform.json")
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Factors    []map[string]any `json:"factors"`
		Modalities []map[string]any `json:"modalities"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	if len(spec.Factors) != 2 || spec.Factors[1]["name"] != "context" {
		t.Fatalf("tmaze-uniform.json: want the factors location and context")
	}
	spec.Factors[1]["D"] = []float64{pl, 1 - pl}
	out, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tmaze.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := pomdp.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// firstDecision is the decision of a new agent of col at the T-maze's
// start (observation start, no cue, no reward).
func firstDecision(t *testing.T, m *pomdp.Model, col shortColumn) *agent.Decision {
	t.Helper()
	ag, err := col.newAgent(m)
	if err != nil {
		t.Fatal(err)
	}
	o0, err := m.EncodeObs([]int{0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Reset(context.Background(), o0); err != nil {
		t.Fatal(err)
	}
	d, err := ag.Decide(context.Background(), agent.StepRand(0, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestTMazeSkewedContextPrior pins why BTAI trails classic active
// inference on the T-maze once the context prior is learned: with any
// prior off one half, the default preset goes straight to the arm the
// prior favours, where aci (horizon 2) and BTAI with predictive inference
// on the tree still take the cue up to a prior of about 0.64 (measured:
// both take the cue at 0.64 and the arm at 0.65: with predictive
// inference a node's classic cost is the expected free energy of its
// step, as aci scores it). Under VMP the
// future's mean field is mode-seeking: Q(context) at a future arm node
// collapses onto the prior's mode, so the arm's average cost is the same
// at a prior of 0.55 as at 0.9 (2.5336 nats, against 5.05 for the cue at
// a prior of one half). After one trial of learning, d = (2, 1) or (1, 2)
// already, and the default goes to an arm, which in a world with a fair
// coin for the context wins half the time.
func TestTMazeSkewedContextPrior(t *testing.T) {
	def := shortColumns[0]
	pred := extraColumns["predictive"]()
	cases := []struct {
		pl               float64
		def, pred, refH2 string
	}{
		{0.5, "go-cue", "go-cue", "go-cue"},
		{0.55, "go-left", "go-cue", "go-cue"},
		{0.6, "go-left", "go-cue", "go-cue"},
		{0.9, "go-left", "go-left", "go-left"},
	}
	armCost := map[float64]float64{}
	for _, c := range cases {
		m := tmazeWithPrior(t, c.pl)
		for _, x := range []struct {
			col  shortColumn
			want string
		}{{def, c.def}, {pred, c.pred}, {aciColumn(2), c.refH2}} {
			d := firstDecision(t, m, x.col)
			if got := m.ActionName(d.Action); got != x.want {
				t.Errorf("prior %.2f, %s: first action %s, want %s", c.pl, x.col.name, got, x.want)
			}
			if x.col.name == def.name {
				armCost[c.pl] = d.Values[0].Values[2] // average cost of go-left
				t.Logf("prior %.2f, %s: root average costs %.4f, visits %v", c.pl, def.name, d.Values[0].Values, d.Values[1].Values)
			}
		}
	}
	if a, b := armCost[0.55], armCost[0.9]; math.Abs(a-b) > 1e-9 {
		t.Errorf("default preset: go-left's average cost %.10g at a prior of 0.55, %.10g at 0.9; want equal (the mean field takes the mode)", a, b)
	}
}
