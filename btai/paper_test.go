package btai_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/arbor-ai/arbor/btai"
)

// recordedRun is one episode of the paper's algorithm recorded before the
// default options changed: the agent built with seed rand.NewPCG(Seed, 0)
// for the maze, options as listed, at most MaxSteps actions.
type recordedRun struct {
	Maze            string  `json:"maze"`
	Seed            uint64  `json:"seed"`
	Inference       string  `json:"inference"`
	ActionPrecision float64 `json:"action_precision"`
	MaxSteps        int     `json:"max_steps"`
	Actions         []int   `json:"actions"`
}

// recordedPaperFile holds episodes of the paper's settings (unexplored-first
// selection, C_p = 2, 100 iterations, vmp or predictive, classic cost,
// min-backward propagation, softmax action selection) recorded with the
// code of the release that had them as defaults.
var recordedPaperFile = filepath.Join("testdata", "paper_runs.json")

// paperRecordCases lists the recorded episodes: every maze of the test
// set, five seeds, the paper's precision 100 and a low precision of 1 at
// which the softmax sampling (and so the seed) matters.
func paperRecordCases() []recordedRun {
	var cs []recordedRun
	for _, mz := range []string{"1.maze", "2.maze", "5.maze", "6.maze", "13.maze", "15.maze"} {
		for seed := range uint64(5) {
			cs = append(cs, recordedRun{Maze: mz, Seed: seed, Inference: "vmp", ActionPrecision: 100, MaxSteps: 30})
		}
		cs = append(cs, recordedRun{Maze: mz, Seed: 7, Inference: "predictive", ActionPrecision: 100, MaxSteps: 30})
		cs = append(cs, recordedRun{Maze: mz, Seed: 3, Inference: "vmp", ActionPrecision: 1, MaxSteps: 30})
	}
	return cs
}

func runRecorded(t *testing.T, o btai.Options, c recordedRun) []int {
	t.Helper()
	mz, p := mazeModel(t, c.Maze)
	var err error
	if o.Inference, err = btai.ParseInference(c.Inference); err != nil {
		t.Fatal(err)
	}
	o.ActionPrecision = ptr(c.ActionPrecision)
	// One random stream for the whole episode, as the runs were recorded
	// (the episode driver gives every step its own stream instead): the
	// algorithm, its draws included, is the recorded one bit for bit.
	rng := rand.New(rand.NewPCG(c.Seed, 0))
	ag, err := btai.NewAgent(p, &o, rng)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	obs := mz.Reset()
	if err := ag.Reset(ctx, obs); err != nil {
		t.Fatal(err)
	}
	actions := []int{}
	for len(actions) < c.MaxSteps && !mz.Done() {
		d, err := ag.Decide(ctx, rng)
		if err != nil {
			t.Fatal(err)
		}
		if obs, err = mz.Step(d.Action); err != nil {
			t.Fatal(err)
		}
		actions = append(actions, d.Action)
		if err := ag.Advance(ctx, d.Action, obs); err != nil {
			t.Fatal(err)
		}
	}
	return actions
}

// TestRecordPaperRuns writes testdata/paper_runs.json when
// BTAI_RECORD_PAPER is set. The file was written once, by the release whose
// defaults were the paper's settings (DefaultOptions then returned what
// PresetPaper returns now); running it again records the paper preset.
func TestRecordPaperRuns(t *testing.T) {
	if os.Getenv("BTAI_RECORD_PAPER") == "" {
		t.Skip("set BTAI_RECORD_PAPER to record")
	}
	cs := paperRecordCases()
	for i := range cs {
		cs[i].Actions = runRecorded(t, btai.PresetPaper(), cs[i])
	}
	b, err := json.MarshalIndent(cs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(recordedPaperFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPaperPresetReproducesRecordedRuns replays every recorded episode
// with the paper preset: the same actions, bit for bit.
func TestPaperPresetReproducesRecordedRuns(t *testing.T) {
	b, err := os.ReadFile(recordedPaperFile)
	if err != nil {
		t.Fatal(err)
	}
	var cs []recordedRun
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatal(err)
	}
	if len(cs) < 40 {
		t.Fatalf("%d recorded runs, want the full set", len(cs))
	}
	if testing.Short() {
		// The two largest mazes take most of the time.
		cs = slices.DeleteFunc(cs, func(c recordedRun) bool { return c.Maze == "15.maze" || c.Maze == "13.maze" })
	}
	for _, c := range cs {
		got := runRecorded(t, btai.PresetPaper(), c)
		if !slices.Equal(got, c.Actions) {
			t.Errorf("%s seed %d %s precision %g: actions %v, recorded %v", c.Maze, c.Seed, c.Inference, c.ActionPrecision, got, c.Actions)
		}
	}
}
