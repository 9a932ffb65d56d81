// Package schedule runs variational message passing on an ffg.Graph:
// global sweeps over every hidden variable, local sweeps over a given set
// (as Branching Time Active Inference does for newly expanded nodes),
// convergence on |ΔF| < tolerance, an iteration cap and cancellation
// through a context.Context. Each run returns a Result with the trace of the
// free energy after every sweep; an increase of F, impossible under exact
// coordinate-ascent VMP, is recorded, and an update that produces a NaN is
// an error naming the variable.
//
// The entry points follow gonum's optimize.Minimize: nil settings mean the
// documented defaults.
package schedule
