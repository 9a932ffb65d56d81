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
// on examples/models/hmm.json and checks that this program's builder
// version of the same model gives the same result (posteriors, sweeps, the
// F trace) to 1e-12.
func TestSameAsArborInfer(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "arbor")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/arbor").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	stdout, err := exec.Command(bin, "infer", "--json", "../models/hmm.json").Output()
	if err != nil {
		t.Fatalf("arbor infer: %v", err)
	}
	var file map[string]any
	if err := json.Unmarshal(stdout, &file); err != nil {
		t.Fatal(err)
	}
	got, err := infer()
	if err != nil {
		t.Fatal(err)
	}
	mine := map[string]any{}
	b, _ := json.Marshal(got)
	_ = json.Unmarshal(b, &mine)
	if len(file["posteriors"].(map[string]any)) != 9 {
		t.Fatalf("arbor infer gave %d posteriors, want 9 (B, s0..s7)", len(file["posteriors"].(map[string]any)))
	}
	if diff := cmp.Diff(file, mine, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("results differ (-arbor infer +examples/hmm):\n%s", diff)
	}
}
