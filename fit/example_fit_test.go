package fit_test

import (
	"context"
	"fmt"
	"os"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/pomdp"
)

// Fit the action precision α of the classic agent (policy length 1,
// γ = 1) to the choices of three subjects that pymdp's agent made in its
// T-maze: the MAP estimate of α with its Laplace SD, and the log evidence
// of each subject.
func ExampleSubjects() {
	m, err := pomdp.Load("testdata/pymdp-tmaze/tmaze.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := os.Open("testdata/pymdp-tmaze/subjects.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	subjects, err := behaviour.Read(f, "subjects.csv", m)
	if err != nil {
		fmt.Println(err)
		return
	}
	agents := aci.Factory{Options: aci.AgentOptions{Horizon: 1, Gamma: 1}}
	settings := &fit.Settings{
		Free:   []string{"alpha"},
		Priors: map[string]fit.Prior{"alpha": {Mean: 0, SD: 2}}, // ln α ~ N(0, 2²)
	}
	err = fit.Subjects(context.Background(), agents, m, subjects, settings, func(r *fit.Result) error {
		a := r.Params[0]
		fmt.Printf("%s: α = %.2f (SD %.2f; ln α = %.2f ± %.2f), log-likelihood %.2f over %d choices, log evidence %.2f\n",
			r.Subject, a.Value, a.SD, a.Theta, a.SDTheta, r.LogLikelihood, r.NChoices, r.LogEvidence)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// s01: α = 9.30 (SD 7.37; ln α = 2.23 ± 0.79), log-likelihood -7.46 over 16 choices, log evidence -9.01
	// s02: α = 1.47 (SD 0.68; ln α = 0.38 ± 0.46), log-likelihood -12.99 over 16 choices, log evidence -14.48
	// s03: α = 4.07 (SD 3.29; ln α = 1.40 ± 0.81), log-likelihood -9.00 over 16 choices, log evidence -10.15
}
