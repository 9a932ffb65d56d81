// Command hmmcore builds a hidden Markov model directly on the factor-graph
// core (packages ffg, nodes, schedule), without the model package: three
// hidden states, eight observations, a fixed observation matrix A and a
// transition matrix B that is either known or learned (Dirichlet prior).
// It runs variational message passing (VMP) and sum-product on it, checks
// sum-product against the forward algorithm, and can write the graph as
// DOT. The tutorial docs/tutorial-factor-graph-core.md explains it; the
// model is examples/models/hmm.json.
//
//	go run ./examples/hmmcore              # the comparison
//	go run ./examples/hmmcore -dot hmm.dot # also write the learned-B graph
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// The model, as in examples/models/hmm.json. Matrices are flat and
// row-major, M[next][prev] (a column per conditioning state).
var (
	observations = []int{0, 0, 1, 1, 1, 2, 2, 0}
	initial      = []float64{0.6, 0.3, 0.1} // D
	likelihood   = []float64{               // A[o][s]
		0.8, 0.1, 0.1,
		0.1, 0.8, 0.1,
		0.1, 0.1, 0.8,
	}
	transitionPrior = []float64{ // Dirichlet concentrations of B[next][prev]
		4, 1, 1,
		1, 4, 1,
		1, 1, 4,
	}
)

// knownB is the prior mean of B: each column of the concentrations
// divided by its sum (4/6 on the diagonal, 1/6 elsewhere).
func knownB() []float64 {
	b := make([]float64, 9)
	for prev := range 3 {
		sum := 0.0
		for next := range 3 {
			sum += transitionPrior[next*3+prev]
		}
		for next := range 3 {
			b[next*3+prev] = transitionPrior[next*3+prev] / sum
		}
	}
	return b
}

// build adds the HMM to a new graph: B is a Dirichlet variable shared by
// every transition when learn is true, the fixed matrix knownB otherwise.
func build(learn bool) (*ffg.Graph, error) {
	g := ffg.New()
	d, err := nodes.NewCategorical(initial)
	if err != nil {
		return nil, err
	}
	a, err := nodes.NewTransition(likelihood, []int{3, 3})
	if err != nil {
		return nil, err
	}
	var B *ffg.Variable
	if learn {
		if B, err = g.AddVariable("B", expfam.DirichletFamily, 3, 3); err != nil {
			return nil, err
		}
		prior, err := nodes.NewDirichlet(transitionPrior, []int{3, 3})
		if err != nil {
			return nil, err
		}
		if _, err := g.AddFactor("p(B)", prior, B); err != nil {
			return nil, err
		}
	}
	var prev *ffg.Variable
	for t, o := range observations {
		s, err := g.AddVariable(fmt.Sprint("s", t), expfam.CategoricalFamily, 3)
		if err != nil {
			return nil, err
		}
		switch {
		case t == 0:
			_, err = g.AddFactor("D", d, s) // S_0 ~ Cat(D)
		case learn:
			tr, _ := nodes.NewTransitionDirichlet([]int{3, 3})
			_, err = g.AddFactor("B", tr, s, prev, B) // S_t ~ Cat(B[:, S_t-1]), B learned
		default:
			tr, _ := nodes.NewTransition(knownB(), []int{3, 3})
			_, err = g.AddFactor("B", tr, s, prev) // S_t ~ Cat(B[:, S_t-1]), B known
		}
		if err != nil {
			return nil, err
		}
		obs, err := g.AddVariable(fmt.Sprint("o", t), expfam.CategoricalFamily, 3)
		if err != nil {
			return nil, err
		}
		if _, err := g.AddFactor("A", a, obs, s); err != nil { // O_t ~ Cat(A[:, S_t])
			return nil, err
		}
		if err := obs.Observe(o); err != nil {
			return nil, err
		}
		prev = s
	}
	return g, nil
}

// infer builds the model and runs method on it ("vmp" or "sum-product").
func infer(learn bool, method string) (*ffg.Graph, *schedule.Result, error) {
	g, err := build(learn)
	if err != nil {
		return nil, nil, err
	}
	res, err := schedule.Run(context.Background(), g, &schedule.Settings{
		Iterations: 1000, Tolerance: 1e-12, Method: method,
	})
	return g, res, err
}

// forward returns -ln p(o_0..o_7) with B known, by the forward algorithm:
// alpha_0 = A[o_0, :] * D, alpha_t = A[o_t, :] * (B alpha_(t-1)).
func forward() float64 {
	b := knownB()
	alpha := make([]float64, 3)
	for s := range 3 {
		alpha[s] = likelihood[observations[0]*3+s] * initial[s]
	}
	for _, o := range observations[1:] {
		next := make([]float64, 3)
		for s := range 3 {
			for p := range 3 {
				next[s] += b[s*3+p] * alpha[p]
			}
			next[s] *= likelihood[o*3+s]
		}
		alpha = next
	}
	return -math.Log(alpha[0] + alpha[1] + alpha[2])
}

func main() {
	dotFile := flag.String("dot", "", "write the graph with B learned, after sum-product, to this DOT file")
	flag.Parse()
	if err := run(*dotFile); err != nil {
		fmt.Fprintln(os.Stderr, "hmmcore:", err)
		os.Exit(1)
	}
}

func run(dotFile string) error {
	fmt.Println("B known:")
	fmt.Printf("  forward algorithm  -ln p(o) = %.6f\n", forward())
	for _, method := range []string{schedule.MethodSumProduct, schedule.MethodVMP} {
		_, res, err := infer(false, method)
		if err != nil {
			return err
		}
		fmt.Printf("  %-17s  F        = %.6f  (%s)\n", method, res.Final(), sweeps(res.Iterations))
	}

	fmt.Println("B learned:")
	graphs := map[string]*ffg.Graph{}
	for _, method := range []string{schedule.MethodSumProduct, schedule.MethodVMP} {
		g, res, err := infer(true, method)
		if err != nil {
			return err
		}
		graphs[method] = g
		fmt.Printf("  %-17s  F        = %.6f  (%s)\n", method, res.Final(), sweeps(res.Iterations))
	}
	fmt.Println("q(s_t = state with the highest belief), sum-product | vmp:")
	for t := range observations {
		name := fmt.Sprint("s", t)
		sp, _ := graphs[schedule.MethodSumProduct].Variable(name)
		vm, _ := graphs[schedule.MethodVMP].Variable(name)
		fmt.Printf("  %s  o=%d  %s | %s\n", name, observations[t], top(sp.Probs()), top(vm.Probs()))
	}
	for _, method := range []string{schedule.MethodSumProduct, schedule.MethodVMP} {
		B, _ := graphs[method].Variable("B")
		fmt.Printf("E[B] diagonal, %-11s = %.4f\n", method, diagonalMean(B.Alpha()))
	}

	if dotFile != "" {
		f, err := os.Create(dotFile)
		if err != nil {
			return err
		}
		if err := graphs[schedule.MethodSumProduct].WriteDOT(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}

// top formats the most probable state and its probability.
func top(p []float64) string {
	best := 0
	for i := range p {
		if p[i] > p[best] {
			best = i
		}
	}
	return fmt.Sprintf("%d (%.4f)", best, p[best])
}

// diagonalMean returns the expected B[s][s] for each s under Dir(alpha):
// alpha[s][s] over the sum of column s.
func diagonalMean(alpha []float64) []float64 {
	out := make([]float64, 3)
	for s := range 3 {
		sum := 0.0
		for next := range 3 {
			sum += alpha[next*3+s]
		}
		out[s] = alpha[s*3+s] / sum
	}
	return out
}

func sweeps(n int) string {
	if n == 1 {
		return "1 sweep"
	}
	return fmt.Sprint(n, " sweeps")
}
