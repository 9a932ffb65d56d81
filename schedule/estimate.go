package schedule

import "github.com/arbor-ai/arbor/ffg"

// nsPerUnit is the cost of one unit of sweep work (see EstimateSeconds),
// rounded up from measurements: a VMP sweep plus F on the 10^5-step,
// 10-state HMM of the ffg benchmarks (literal B) takes 1.5 ns per unit; an
// HMM with B learned, from a model file, 1.8 ns at 2,000 steps and 5 ns at
// 20,000 (a graph that no longer fits in the caches; TestInferEstimate).
const nsPerUnit = 6.0

// SweepWork returns the units of work of one sweep over g: for each
// factor, the size of its tensor (the product of its categorical
// neighbours' sizes) times one more than its number of hidden neighbours
// (one contraction per message and one for the free energy). A nil graph,
// as an empty one, has no work.
func SweepWork(g *ffg.Graph) float64 {
	w := 0.0
	if g == nil {
		return 0
	}
	for _, f := range g.Factors() {
		size, hidden := 1.0, 0.0
		for _, v := range f.Variables() {
			if v.Categorical() {
				size *= float64(len(v.Stats()))
			}
			if !v.Observed() {
				hidden++
			}
		}
		w += size * (hidden + 1)
	}
	return w
}

// EstimateSeconds estimates the time of a run of g with settings s that
// goes through every sweep (Settings.Iterations, or the default): the
// sweeps times SweepWork at nsPerUnit. A run that converges earlier takes
// less; cmd/arbor refuses a model whose estimate is above --max-minutes.
// A nil graph takes 0 seconds (SweepWork), and nil settings are the
// defaults.
func EstimateSeconds(g *ffg.Graph, s *Settings) float64 {
	return float64(s.MaxSweeps()) * SweepWork(g) * nsPerUnit * 1e-9
}

// MaxSweeps returns the sweeps a run with these settings performs at most
// (Iterations, or DefaultIterations when it is 0 or s is nil).
func (s *Settings) MaxSweeps() int {
	if s != nil && s.Iterations > 0 {
		return s.Iterations
	}
	return DefaultIterations
}
