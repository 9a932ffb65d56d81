package si

import (
	"math"

	"github.com/arbor-ai/arbor/pomdp"
)

// Costs behind EstimatePlan, from BenchmarkPlanMaze and BenchmarkPlanTMaze
// (docs/si.md, "Speed"): a node of the maze (21 per search; 54,756
// multiply-adds of the per-node work below) took 36-67 µs, 0.65-1.2 ns a
// unit; a node of the T-maze (7 per search at depth 2; 5,136 units)
// 5.3-6.3 µs, 1.0-1.2 ns a unit. The estimate takes 1.5 ns a unit and adds
// a fixed cost per node (the tables, the memo, the softmaxes) that
// dominates on tiny models.
const (
	nsPerUnit      = 1.5
	nodeOverheadNs = 2000
)

// Estimate is a pre-flight bound on one search (EstimatePlan).
type Estimate struct {
	// TreeNodes is the number of beliefs of the search tree when no
	// belief is reached twice: Σ_(d=0..Depth−1) (|U| k)^d, with k the
	// outcomes kept per action: at most Π_m |O_m|, MaxBranches, and ⌊1/p⌋
	// under PruneOutcomes p > 0 (the kept outcomes each have probability
	// p or more). Action pruning is not counted: the most probable actions
	// are always expanded, and with ties that can be all of them. It is
	// +Inf when it overflows.
	TreeNodes float64
	// Nodes is min(TreeNodes, MaxNodes): a search scores at most this many
	// beliefs, fewer when beliefs recur (the memo).
	Nodes float64
	// Seconds estimates the time of scoring and branching Nodes beliefs:
	// per node, every action's propagation and one-step expected free
	// energy (|U| × Model.StepWork multiply-adds) and, for the expanded
	// actions, the outcomes' enumeration and posteriors (k × Π_f |S_f| ×
	// (Σ_m |O_m| + factors) multiply-adds each), at nsPerUnit, plus a
	// fixed cost per node. It errs on the high side.
	Seconds float64
	// MayTruncate reports TreeNodes > MaxNodes: unless beliefs recur, the
	// search stops short of Depth (Result.Truncated).
	MayTruncate bool
}

// EstimatePlan estimates the work of one search on model m with opts
// (nil: the defaults), which it validates as NewPlanner does.
func EstimatePlan(m *pomdp.Model, opts *Options) (Estimate, error) {
	if err := pomdp.Check(m); err != nil {
		return Estimate{}, apiError(err)
	}
	o := opts.Resolved()
	if err := o.validate(m); err != nil {
		return Estimate{}, apiError(err)
	}
	nu := float64(m.NumActions())
	k := math.Min(float64(m.NumObs()), float64(o.MaxBranches))
	if o.PruneOutcomes > 0 {
		k = math.Min(k, math.Floor(1/o.PruneOutcomes))
	}
	tree, level := 0.0, 1.0
	for range o.Depth {
		tree += level
		level *= nu * k
	}
	est := Estimate{TreeNodes: tree, Nodes: math.Min(tree, float64(o.MaxNodes))}
	est.MayTruncate = tree > float64(o.MaxNodes)
	outs := 0.0
	for i := range m.NumModalities() {
		outs += float64(m.ModalitySize(i))
	}
	branch := k * jointStates(m) * (outs + float64(m.NumFactors()))
	perNode := nu*(m.StepWork()+branch)*nsPerUnit + nodeOverheadNs
	est.Seconds = est.Nodes * perNode * 1e-9
	return est, nil
}
