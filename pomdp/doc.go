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
package pomdp
