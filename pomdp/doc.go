// Package pomdp is the discrete POMDP generative model that the agents of
// arbor share: classic active inference (package aci), Branching Time
// Active Inference (package btai) and sophisticated inference (package
// si), which are siblings on top of it. It holds the model and what is
// computed from the model alone; the agent contract, the drivers that run
// agents and the parameters fitted to behaviour are in package agent, and
// recorded behaviour is in package behaviour.
//
//   - Model: likelihood A, transitions B (one matrix per action), target
//     distribution C over observations, prior D over the first state, an
//     optional target C_states over states and optional Dirichlet
//     concentrations a, b, d; one or more hidden-state factors and
//     observation modalities (NewFactorised, FactorisedSpec). Validated by
//     New (from a Spec), NewFactorised, Parse and Load (the JSON file of
//     docs/formats.md), with errors that name the field and the fault;
//     Check refuses a model not built so. Joint actions and observations
//     are single indices (DecodeAction, EncodeControls, EncodeObs,
//     DecodeObs), with names (ActionName, ObsName, StateName, and per
//     factor and modality).
//   - Preference: a target over the joint outcomes of several modalities
//     (FactorisedSpec.Preferences, the file's "preferences"), whose risk
//     is the KL of the product of the modalities' predicted marginals
//     from it (StepCost, ObsRisk, ObsCrossEntropy, JointCrossEntropy);
//     Factor.ControlsOf: a factor that takes the controls of another, so
//     that one action moves both (ControlOwner).
//   - Model.AgentView: the model as an agent believes it before any
//     evidence (E[a] for a file with both A and a); ScaleModel: the model
//     with its preferences sharpened and its concentrations scaled (the
//     fitted parameters pref and conc).
//   - StatePosterior: the exact posterior over the first state after one
//     observation.
//   - Past: the past and present as a factor graph (package ffg), grown
//     one action and observation at a time (Grow, or GrowMixed after an
//     action that is not known) and inferred by mean-field VMP, exact
//     filtering or factorised filtering (PastInference, Infer, Belief,
//     Smoothed); Dirichlet
//     learning between trials, c' = ω c + η Δc (Learning, SetLearning,
//     CarryOver, Concentrations); ErrImpossibleObservation for an
//     observation the model gives probability 0.
//   - Risk, Ambiguity, Novelty and StepCost: the terms of the expected free
//     energy of one future step; Propagate: one step of the predicted state
//     belief; PredictObs: the predicted observations. Stepper: Propagate
//     and StepCost with the model's compact tensors (every column of A and
//     B as a background value plus the entries above it, stored so when
//     the model is built where that is less work), and ChildCost, a
//     child's step cost from its parent's belief in one pass: what aci's
//     policy walk uses (docs/pomdp.md, "Compact tensors").
//   - LogFloor and FloorColumns: the floor under the probabilities whose
//     logarithms mean-field inference takes.
//   - Process: the model used as the true generative process, which the
//     drivers of package agent act in (it satisfies agent.Environment).
//   - Model.FigureGraph: the generative model as a factor graph to draw
//     (arbor dot on a POMDP file).
//
// # Misuse
//
// What can come from data (a model file, an observation, an action, a
// setting) is checked and reported as an error that starts with "pomdp: "
// or names the field. A few functions panic instead, as the standard
// library does, on programming errors that their doc comments name: the
// kernels of the expected free energy (Risk, Ambiguity, Novelty, StepCost,
// Propagate, PredictObs, FloorColumns, ToNPU and the like), which run in
// the agents' inner loops, on a nil or invalid model, a slice of the wrong
// length ("pomdp: Risk: len(qs) = 1, want 2") or an action out of range;
// Model's accessors on an index out of range; NewProcess on an invalid
// model. Every function that takes a context takes a nil one as
// context.Background(), as package schedule does. Each type's doc comment
// says whether its zero value is usable and whether it is safe for
// concurrent use: a Model is, a Past or Process is not.
package pomdp
