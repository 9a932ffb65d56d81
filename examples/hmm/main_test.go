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
// on examples/models/hmm.json and checks that this program's declarative
// build of the same model gives the same posteriors to 1e-12.
func TestSameAsArborInfer(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "arbor")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/arbor").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	stdout, err := exec.Command(bin, "infer", "--json", "../models/hmm.json").Output()
	if err != nil {
		t.Fatalf("arbor infer: %v", err)
	}
	var file struct {
		Iterations int                  `json:"iterations"`
		FreeEnergy []float64            `json:"free_energy"`
		Posteriors map[string]posterior `json:"posteriors"`
	}
	if err := json.Unmarshal(stdout, &file); err != nil {
		t.Fatal(err)
	}
	got, res, err := infer()
	if err != nil {
		t.Fatal(err)
	}
	if len(file.Posteriors) != 9 {
		t.Fatalf("arbor infer gave %d posteriors, want 9 (B, s0..s7)", len(file.Posteriors))
	}
	if diff := cmp.Diff(file.Posteriors, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("posteriors mismatch (-arbor infer +examples/hmm):\n%s", diff)
	}
	if res.Iterations != file.Iterations || !cmp.Equal(res.Final(), file.FreeEnergy[len(file.FreeEnergy)-1], cmpopts.EquateApprox(0, 1e-12)) {
		t.Errorf("sweeps %d, F %v; arbor infer: %d, %v", res.Iterations, res.Final(), file.Iterations, file.FreeEnergy)
	}
}
