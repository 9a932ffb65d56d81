package aci_test

import (
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestInferGammaFactorised: inferring the precision on a factorised model
// checks every modality's C (it used to read C of a single-factor model
// and panic); a zero in one modality's C is an error naming it.
func TestInferGammaFactorised(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: 2, InferGamma: true}); err != nil {
		t.Errorf("T-maze, every C > 0: %v", err)
	}
	fs := m.FactorisedSpec()
	fs.Modalities[2].LogC = nil
	fs.Modalities[2].C = []float64{0.5, 0.5, 0}
	z, err := pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	_, err = aci.NewAgent(z, &aci.AgentOptions{Horizon: 2, InferGamma: true})
	if err == nil || !strings.Contains(err.Error(), `modality "`+z.ModalityName(2)+`": C[2] is 0`) {
		t.Errorf("a zero in C: %v, want an error naming the modality and C[2]", err)
	}
}
