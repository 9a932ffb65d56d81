// Command hmm writes, with the model builder, the same hidden Markov model
// as examples/models/hmm.json — three hidden states, eight observations, a
// fixed likelihood matrix A and a transition matrix B that is learned
// (Dirichlet prior) — runs it as `arbor infer` does and prints the
// posteriors.
//
//	go run ./examples/hmm          # human output
//	go run ./examples/hmm --json   # the "posteriors" object of `arbor infer --json`
//
// Its test checks that the posteriors equal those of
// `arbor infer examples/models/hmm.json` to 1e-12.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/arbor-ai/arbor/model"
)

// The model, as in examples/models/hmm.json.
var (
	observations = []int{0, 0, 1, 1, 1, 2, 2, 0}
	initial      = []float64{0.6, 0.3, 0.1}                          // D
	likelihood   = model.Tensor{Shape: []int{3, 3}, Data: []float64{ // A[o][s]
		0.8, 0.1, 0.1,
		0.1, 0.8, 0.1,
		0.1, 0.1, 0.8,
	}}
	transitionPrior = model.Tensor{Shape: []int{3, 3}, Data: []float64{ // Dirichlet concentrations of B[next][prev]
		4, 1, 1,
		1, 4, 1,
		1, 1, 4,
	}}
)

// build declares the model: a variable and its factor per line, in the
// order of the model file; the builder keeps the first fault for Build.
func build() (*model.Model, error) {
	b := model.New()
	B := b.Dirichlet("B", transitionPrior)     // a learned 3×3 transition matrix
	s := b.Categorical("s0", 3).Prior(initial) // S_0 ~ Cat(D)
	for t, o := range observations {
		if t > 0 {
			s = b.Categorical(fmt.Sprint("s", t), 3).From(B, s) // S_t ~ Cat(B[:, S_t-1])
		}
		b.Categorical(fmt.Sprint("o", t), 3).Observe(o).Given(likelihood, s) // O_t ~ Cat(A[:, S_t])
	}
	b.Settings(model.SettingsSpec{Iterations: 1000, Tolerance: 1e-12})
	return b.Build("hmm")
}

// infer builds and runs the model and returns its result: the posteriors
// by name, the sweeps and the F trace.
func infer() (model.InferOutput, error) {
	m, err := build()
	if err != nil {
		return model.InferOutput{}, err
	}
	res, err := m.Infer(context.Background(), "hmm", nil)
	if err != nil {
		return model.InferOutput{}, err
	}
	return m.Output(res), nil
}

func main() {
	asJSON := flag.Bool("json", false, `print {"posteriors": ...} as arbor infer --json does`)
	flag.Parse()
	out, err := infer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hmm:", err)
		os.Exit(1)
	}
	if *asJSON {
		_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"posteriors": out.Posteriors})
		return
	}
	fmt.Printf("converged: %v after %d sweeps, F = %.10g\n", out.Converged, out.Iterations, out.FreeEnergy[len(out.FreeEnergy)-1])
	fmt.Printf("  B  alpha = %.4f\n", out.Posteriors["B"].Alpha)
	for t := range observations {
		name := fmt.Sprintf("s%d", t)
		fmt.Printf("  %-3s p = %.4f   (observed o%d = %d)\n", name, out.Posteriors[name].P, t, observations[t])
	}
}
