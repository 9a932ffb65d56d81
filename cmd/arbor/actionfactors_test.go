package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twoControls is a model with two controllable factors (two controls each)
// and one modality over both.
const twoControls = `{"factors": [
  {"name": "x", "controls": ["stay", "switch"], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "D": [0.8, 0.2]},
  {"name": "y", "controls": ["stay", "switch"], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "D": [0.3, 0.7]}],
  "modalities": [{"name": "o", "depends_on": ["x", "y"],
    "A": [[[0.9, 0.2], [0.2, 0.9]], [[0.1, 0.8], [0.8, 0.1]]], "log_C": [1, 0]}]}`

// TestActionFactorsFlag: --action-factors independent runs and replays on a
// model with two controllable factors (aci and si); the replay of a run
// scores its choices under the same rule, so the log-likelihoods under
// joint and independent differ; a bad value exits 2 with one line.
func TestActionFactorsFlag(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "two.json")
	if err := os.WriteFile(model, []byte(twoControls), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []struct{ name, depth string }{{"aci", "--horizon"}, {"si", "--depth"}} {
		code, csv, stderr := aciRun(t, agent.name, "run", "--model", model, agent.depth, "2", "--episodes", "3", "--steps", "3",
			"--select", "sample", "--action-factors", "independent", "--csv")
		if code != 0 {
			t.Fatalf("%s run: exit %d: %s", agent.name, code, stderr)
		}
		data := filepath.Join(dir, agent.name+".csv")
		if err := os.WriteFile(data, []byte(csv), 0o600); err != nil {
			t.Fatal(err)
		}
		ll := map[string]string{}
		for _, af := range []string{"joint", "independent"} {
			code, out, stderr := aciRun(t, agent.name, "replay", "--model", model, agent.depth, "2", "--data", data, "--action-factors", af)
			if code != 0 {
				t.Fatalf("%s replay --action-factors %s: exit %d: %s", agent.name, af, code, stderr)
			}
			ll[af] = out
		}
		if ll["joint"] == ll["independent"] {
			t.Errorf("%s: replay under joint and independent print the same:\n%s", agent.name, ll["joint"])
		}
		code, out, stderr := aciRun(t, agent.name, "run", "--model", model, agent.depth, "1", "--action-factors", "both")
		if code != 2 || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, `--action-factors: "both", want joint or independent`) {
			t.Errorf("%s --action-factors both: exit %d, stdout %q, stderr %q", agent.name, code, out, stderr)
		}
	}
}
