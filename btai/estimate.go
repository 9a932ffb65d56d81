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
//
// With one factor and one modality whose ln B̄_u is sparse in split form
// (splitMat: the maze models), vmp does no |S|² work per node: the start
// Q(O_I) = (Ā B̄_u) Q(S_parent) is |O||S| multiply-adds and each sweep is
// linear in |S| + |O| (sparse products, two softmaxes). The estimate takes
// 2 ns per multiply-add of the start and 200 ns per state and observation
// for the sweeps (1.maze: 7.4 µs per node, measured 1.7; an open maze of
// 4,096 states: 0.85 ms, measured 0.45; docs/benchmarks.md, "BTAI at
// scale").
//
// The first plan of an agent also does the per-model set-up
// (Agent.prepareFuture): |U||S|²|O| multiply-adds for Ā B̄_u and |U||S|²
// entries for ln B̄_u and the splits, taken at 1 and 50 ns (4,096 states:
// 4.2 s for the entries, measured 4.0). From sparseStartStates
// states the start is Ā (B̄_u Q(S_parent)) over sparse splits: no |O||S|
// term per node and no products in the set-up.
const (
	vmpNsPerUnit           = 4.0
	vmpFactorisedNsPerUnit = 8.0
	predictiveNsPerUnit    = 1.5
	nodeOverheadNs         = 600
	sparseStartNsPerUnit   = 2.0
	sparseSweepNsPerEntry  = 200.0
	setupNsPerProduct      = 1.0
	setupNsPerLog          = 50.0
)

// EstimatePlanSeconds estimates the time of one planning step (one call
// of Agent.Plan with o.Iterations iterations, the first one of an agent,
// which does the per-model set-up as well) on model m: every iteration
// evaluates |U| new nodes and, with roll-outs, Rollouts × RolloutLength
// more per new node, each at m.StepWork() multiply-adds times a measured
// cost per unit (vmp sweeps included), plus a fixed cost per node. With
// global inference every iteration runs VMP over the whole tree, so the
// work grows with the square of the iterations. It errs on the high side;
// PlanFlags.CheckPlanTime refuses work whose estimate is above --max-minutes.
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
	single := m.NumFactors() == 1 && m.NumModalities() == 1
	ns, no, nu := float64(m.NumStates()), float64(m.NumObs()), float64(m.NumActions())
	if o.Inference == VMP {
		switch {
		case !single:
			perNode = vmpFactorisedNsPerUnit*factorisedSweepWork(m) + nodeOverheadNs
		case !denseLogB(m) && m.NumStates() >= sparseStartStates:
			perNode = sparseSweepNsPerEntry*(ns+no) + nodeOverheadNs
		case !denseLogB(m):
			perNode = sparseStartNsPerUnit*ns*no + sparseSweepNsPerEntry*(ns+no) + nodeOverheadNs
		default:
			perNode = vmpNsPerUnit*m.StepWork() + nodeOverheadNs
		}
	}
	setup := 0.0
	if single {
		setup = setupNsPerLog * nu * ns * ns
		if o.Inference != VMP || m.NumStates() < sparseStartStates || denseLogB(m) {
			setup += setupNsPerProduct * nu * ns * ns * no
		}
	}
	evals := float64(m.NumActions())
	if o.Rollouts > 0 {
		evals *= 1 + float64(o.Rollouts)*float64(o.RolloutLength)
	}
	it := float64(o.Iterations)
	total := it*evals*perNode + setup
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

// EstimateBytes estimates the peak memory of a process that holds model m
// and runs agents agents on it at once with options o, their planning
// trees included (TreeBytes, in compact form unless o.GlobalInference):
// what CheckMemory checks before a command runs. With d = 8·|U|·Σ_f |S_f|² bytes,
// the size of a dense transition tensor, it counts
//
//   - the model: its B (d) and A, and one more copy of each while it is
//     read or built (pomdp.New copies the caller's numbers);
//   - per agent: the literal ln B of the past's graph (d; pomdp.Past), the
//     products Ā B̄_u (8·|U||S||O|; none from sparseStartStates states
//     with sparse splits), and ln B̄_u in split form, which is
//     sparse for the maze models and two dense copies (2d) otherwise
//     (splitMat: more than one entry in four of a column off its mode); a
//     learned B adds its expectation and the Dirichlet posterior and prior
//     of the graph (3d);
//   - while an agent is made, two more transient copies (the past's
//     tensor in the graph's layout and its logarithm, nodes.NewTransition;
//     2d).
//
// The model's B is shared by every agent of the model (SharedB): planning
// reads it, and holds no copy of its own. docs/benchmarks.md ("BTAI at
// scale") compares the estimate with the peak RSS of arbor btai run on
// open mazes of 100 to 4,096 states. It panics as EstimatePlanSeconds
// does on a nil or invalid model.
func EstimateBytes(m *pomdp.Model, o Options, agents int) float64 {
	if err := pomdp.Check(m); err != nil {
		panic("btai: EstimateBytes: " + err.Error())
	}
	o = o.Resolved()
	agents = max(agents, 1)
	nu := float64(m.NumActions())
	d, a := 0.0, 0.0
	for f := range m.NumFactors() {
		ns := float64(m.FactorSize(f))
		d += 8 * float64(m.FactorControls(f)) * ns * ns
	}
	for i := range m.NumModalities() {
		a += 8 * float64(len(m.SharedA(i)))
	}
	ns, no := float64(m.NumStates()), float64(m.ObsLen())
	perAgent := d + 6*a
	if m.NumStates() < sparseStartStates || m.NumFactors() > 1 || m.NumModalities() > 1 || denseLogB(m) {
		perAgent += 8 * nu * ns * no // the products Ā B̄_u
	}
	if _, lb, _ := m.Learnable(); lb {
		perAgent += 3 * d
	}
	if m.NumFactors() == 1 && m.NumModalities() == 1 && denseLogB(m) {
		perAgent += 2 * d
	}
	perAgent += TreeBytes(o.Iterations, m.NumStates(), m.ObsLen(), m.NumActions(), o.GlobalInference)
	const runtimeBytes = 16 << 20 // the Go runtime, the program and small buffers
	return 2*(d+a) + float64(agents)*perAgent + 2*d + runtimeBytes
}

// denseLogB reports whether ln B of a single-factor model is kept dense by
// splitMat: more than one entry in four of its columns differs from its
// column's most frequent value (exact equality, as splitMat.set; flooring
// at pomdp.LogFloor and the logarithm keep equal entries equal and
// different ones different, except entries below the floor, which this
// counts as different: it errs on the dense side). It looks at 64 columns
// per action at most, evenly spaced, so that it stays cheap on a large
// model (a pre-flight estimate, not the planner's decision).
func denseLogB(m *pomdp.Model) bool {
	b := m.SharedB(0)
	ns, nu := m.NumStates(), m.NumActions()
	col := make([]float64, ns)
	step := max(ns/64, 1)
	nnz, total := 0, 0
	for u := range nu {
		blk := b[u*ns*ns : (u+1)*ns*ns]
		for p := 0; p < ns; p += step {
			for n := range ns {
				col[n] = blk[n*ns+p]
			}
			bg := columnMode(col, ns, 1, 0)
			for _, x := range col {
				if x != bg {
					nnz++
				}
			}
			total += ns
		}
	}
	return 4*nnz > total
}
