package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestSameAsArborInfer builds the arbor command, runs `arbor infer --json`
// on each continuous model of examples/models and checks that this
// program's builder version gives the same result (posteriors, sweeps,
// the F trace) to 1e-12.
func TestSameAsArborInfer(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "arbor")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/arbor").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for name := range builders {
		stdout, err := exec.Command(bin, "infer", "--json", "../models/"+name+".json").Output()
		if err != nil {
			t.Fatalf("arbor infer %s: %v", name, err)
		}
		var file map[string]any
		if err := json.Unmarshal(stdout, &file); err != nil {
			t.Fatal(err)
		}
		got, err := infer(name)
		if err != nil {
			t.Fatal(err)
		}
		mine := map[string]any{}
		b, _ := json.Marshal(got)
		_ = json.Unmarshal(b, &mine)
		if diff := cmp.Diff(file, mine, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("%s: results differ (-arbor infer +examples/gaussian):\n%s", name, diff)
		}
		if !got.Converged {
			t.Errorf("%s: not converged after %d sweeps", name, got.Iterations)
		}
	}
}
