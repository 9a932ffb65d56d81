// Command hmm builds, with the ffg and nodes API, the same hidden Markov
// model as examples/models/hmm.json — three hidden states, eight
// observations, a fixed likelihood matrix A and a transition matrix B that
// is learned (Dirichlet prior) — runs the same schedule as `arbor infer`
// and prints the posteriors.
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

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// The model, as in examples/models/hmm.json.
var (
	observations = []int{0, 0, 1, 1, 1, 2, 2, 0}
	initial      = []float64{0.6, 0.3, 0.1} // D
	likelihood   = []float64{               // A[o][s], row-major
		0.8, 0.1, 0.1,
		0.1, 0.8, 0.1,
		0.1, 0.1, 0.8,
	}
	transitionPrior = []float64{ // Dirichlet concentrations of B[next][prev]
		4, 1, 1,
		1, 4, 1,
		1, 1, 4,
	}
	settings = schedule.Settings{Iterations: 1000, Tolerance: 1e-12}
)

const states, outcomes = 3, 3

// hmm is the built graph with its variables in the file's order.
type hmm struct {
	graph     *ffg.Graph
	variables []*ffg.Variable // B, s0, o0, s1, o1, ...
}

// build declares the model: one variable and one factor per line of the
// model file, in the same order.
func build() (*hmm, error) {
	g := ffg.New()
	h := &hmm{graph: g}
	b, err := g.AddVariable("B", expfam.DirichletFamily, states, states)
	if err != nil {
		return nil, err
	}
	h.variables = append(h.variables, b)
	var latents, observed []*ffg.Variable
	for t, o := range observations {
		s, err := g.AddVariable(fmt.Sprintf("s%d", t), expfam.CategoricalFamily, states)
		if err != nil {
			return nil, err
		}
		ov, err := g.AddVariable(fmt.Sprintf("o%d", t), expfam.CategoricalFamily, outcomes)
		if err != nil {
			return nil, err
		}
		if err := ov.Observe(o); err != nil {
			return nil, err
		}
		latents, observed = append(latents, s), append(observed, ov)
		h.variables = append(h.variables, s, ov)
	}

	bPrior, err := nodes.NewDirichlet(transitionPrior, []int{states, states})
	if err != nil {
		return nil, err
	}
	d, err := nodes.NewCategorical(initial)
	if err != nil {
		return nil, err
	}
	a, err := nodes.NewTransition(likelihood, []int{outcomes, states})
	if err != nil {
		return nil, err
	}
	add := func(f ffg.Factor, vars ...*ffg.Variable) {
		if err == nil {
			_, err = g.AddFactor("", f, vars...)
		}
	}
	add(bPrior, b)
	add(d, latents[0])
	for t := range latents {
		if t > 0 {
			tr, terr := nodes.NewTransitionDirichlet([]int{states, states})
			if terr != nil {
				return nil, terr
			}
			add(tr, latents[t], latents[t-1], b)
		}
		add(a, observed[t], latents[t])
	}
	return h, err
}

// posterior is one entry of the "posteriors" object of `arbor infer --json`
// for the two families this model has.
type posterior struct {
	Family string      `json:"family"`
	P      []float64   `json:"p,omitempty"`
	Alpha  [][]float64 `json:"alpha,omitempty"`
}

// infer runs the schedule and returns the posteriors of the hidden
// variables by name, with the sweeps performed and the final F.
func infer() (map[string]posterior, *schedule.Result, error) {
	h, err := build()
	if err != nil {
		return nil, nil, err
	}
	s := settings
	res, err := schedule.Run(context.Background(), h.graph, &s)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]posterior{}
	for _, v := range h.variables {
		switch {
		case v.Observed():
		case v.Family() == expfam.DirichletFamily:
			alpha := v.Alpha()
			rows := make([][]float64, states)
			for r := range rows {
				rows[r] = append([]float64(nil), alpha[r*states:(r+1)*states]...)
			}
			out[v.Name()] = posterior{Family: "dirichlet", Alpha: rows}
		default:
			out[v.Name()] = posterior{Family: "categorical", P: append([]float64(nil), v.Probs()...)}
		}
	}
	return out, res, nil
}

func main() {
	asJSON := flag.Bool("json", false, `print {"posteriors": ...} as arbor infer --json does`)
	flag.Parse()
	post, res, err := infer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hmm:", err)
		os.Exit(1)
	}
	if *asJSON {
		_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"posteriors": post})
		return
	}
	fmt.Printf("converged: %v after %d sweeps, F = %.10g\n", res.Converged, res.Iterations, res.Final())
	fmt.Printf("  B  alpha = %.4f\n", post["B"].Alpha)
	for t := range observations {
		name := fmt.Sprintf("s%d", t)
		fmt.Printf("  %-3s p = %.4f   (observed o%d = %d)\n", name, post[name].P, t, observations[t])
	}
}
