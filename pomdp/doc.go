// Package pomdp is the discrete POMDP generative model that both agents of
// arbor use, classic active inference (package aci) and Branching Time
// Active Inference (package btai), which are siblings on top of it:
//
//   - Model: likelihood A, transitions B (one matrix per action), target
//     distribution C over observations, prior D over the first state, an
//     optional target C_states over states and optional Dirichlet
//     concentrations a, b, d; validated by New (from a Spec), Parse and
//     Load (the JSON file of docs/formats.md), with errors that name the
//     field and the fault.
//   - StatePosterior: the exact posterior over the first state after one
//     observation.
//   - Risk, Ambiguity, Novelty and StepCost: the terms of the expected free
//     energy of one future step, Propagate: one step of the predicted state
//     belief.
//   - LogFloor and FloorColumns: the floor under the probabilities whose
//     logarithms mean-field inference takes.
//   - Process: the model used as the true generative process, and
//     Environment, what the agents' action-perception cycles act on.
//   - Model.FigureGraph: the generative model as a factor graph to draw
//     (arbor dot on a POMDP file).
//
// # Misuse
//
// What can come from data (a model file, recorded behaviour, an
// observation, an action, a setting) is checked and reported as an error
// that starts with "pomdp: " or names the field. A few functions panic
// instead, as the standard library does, on programming errors that their
// doc comments name: the kernels of the expected free energy (Risk,
// Ambiguity, Novelty, StepCost, Propagate, PredictObs, FloorColumns, ToNPU
// and the like), which run in the agents' inner loops, on a nil or invalid
// model, a slice of the wrong length ("pomdp: Risk: len(qs) = 1, want 2")
// or an action out of range; Model's accessors on an index out of range;
// NewProcess on an invalid model; Sample on a nil generator or a p without
// a positive entry. Every function that takes a context takes a nil one as
// context.Background(), as package schedule does. Each type's doc comment
// says whether its zero value is usable and whether it is safe for
// concurrent use: a Model is, an Agent, Past or Process is not.
package pomdp
