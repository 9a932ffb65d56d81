package btai

import (
	"math"

	"github.com/arbor-ai/arbor/pomdp"
)

// Per-node costs behind EstimatePlanSeconds, from the benchmarks
// (docs/benchmarks.md, "Branching Time Active Inference"): on 1.maze (one
// node's step work Σ_f |S_f|² + Σ_m |O_m| Π |S_f| = 704 multiply-adds)
// a planning iteration expands 5 nodes in 8.7 µs with vmp and 2.5 µs with
// predictive inference, 2.5 and 0.7 ns per unit of work and node. The
// estimate rounds up, and adds a fixed cost per node (tree bookkeeping,
// softmaxes) that dominates on tiny models.
//
// The mean-field updates of a factorised model (several factors or
// modalities) average Å over the other factors for every factor and sweep
// (factorisedSweepWork): on 3 factors of 6 states with 3 modalities a node
// took 5.5 µs, about 3 ns per unit of that work; the estimate takes 8.
const (
	vmpNsPerUnit           = 4.0
	vmpFactorisedNsPerUnit = 8.0
	predictiveNsPerUnit    = 1.5
	nodeOverheadNs         = 600
)

// EstimatePlanSeconds estimates the time of one planning step (one call
// of Agent.Plan with o.Iterations iterations) on model m: every iteration
// evaluates |U| new nodes and, with roll-outs, Rollouts × RolloutLength
// more per new node, each at m.StepWork() multiply-adds times a measured
// cost per unit (vmp sweeps included), plus a fixed cost per node. With
// global inference every iteration runs VMP over the whole tree, so the
// work grows with the square of the iterations. It errs on the high side;
// cmd/arbor refuses work whose estimate is above --max-minutes.
//
// Zero fields of o take their defaults (Resolved). Options that Validate
// refuses give +Inf: no such plan can run, and a caller comparing the
// estimate with a bound refuses it. It panics if m is nil or not a valid
// model (pomdp.Check): a programming error, since pomdp.New, Parse and Load
// return an error instead of an invalid model.
func EstimatePlanSeconds(m *pomdp.Model, o Options) float64 {
	if err := pomdp.Check(m); err != nil {
		panic("btai: EstimatePlanSeconds: " + err.Error())
	}
	o = o.Resolved()
	if o.validate() != nil {
		return math.Inf(1)
	}
	perNode := predictiveNsPerUnit*m.StepWork() + nodeOverheadNs
	if o.Inference == VMP {
		perNode = vmpNsPerUnit*m.StepWork() + nodeOverheadNs
		if m.NumFactors() > 1 || m.NumModalities() > 1 {
			perNode = vmpFactorisedNsPerUnit*factorisedSweepWork(m) + nodeOverheadNs
		}
	}
	evals := float64(m.NumActions())
	if o.Rollouts > 0 {
		evals *= 1 + float64(o.Rollouts)*float64(o.RolloutLength)
	}
	it := float64(o.Iterations)
	total := it * evals * perNode
	if o.GlobalInference {
		// Iteration i sweeps the i|U| nodes of the tree, VMPIterations
		// times at most.
		total += it * it / 2 * float64(m.NumActions()) * float64(o.VMPIterations) * perNode
	}
	return total * 1e-9
}

// factorisedSweepWork is the work of the mean-field updates of one new node
// of a factorised model, for the sweeps they take: per modality m with
// k_m factors, |O_m| size_m for y, k_m² size_m for the factors' messages
// and |O_m| size_m for Q(O_m), plus the B messages Σ_f |S_f|², times 8
// sweeps (they stop when F settles; Options.VMPIterations caps them).
func factorisedSweepWork(m *pomdp.Model) float64 {
	w := 0.0
	for i := range m.NumModalities() {
		deps := m.DependsOn(i)
		size := 1.0
		for _, f := range deps {
			size *= float64(m.FactorSize(f))
		}
		k := float64(len(deps))
		w += size * (2*float64(m.ModalitySize(i)) + k*k)
	}
	b := 0.0
	for f := range m.NumFactors() {
		b += float64(m.FactorSize(f)) * float64(m.FactorSize(f))
	}
	return 8*w + b
}
