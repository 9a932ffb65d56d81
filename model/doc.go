// Package model is where a model description becomes an ffg.Graph: the
// generic model files of `arbor infer` and `arbor dot` (docs/formats.md),
// their Go value Spec, and a Builder that writes the same models in Go.
//
//   - Load and Parse read a file; ParseSpec decodes it into a Spec without
//     building it, and FromSpec builds a Spec. Every fault is an error that
//     names the file, the field (the variable or factor, by name) and what
//     is wrong.
//   - A file declares models of any size once: named sizes, arrays of
//     variables (elements named "x[0]", "x[1,2]"), constant data and
//     factors with loops ("for": {"t": "1..T-1"}, "out": "x[t]"), and
//     terms of a linear predictor with loops ("for": {"k": "0..K-1"},
//     "of": "w[k]", "scale": "X[n,k]"; termloops.go). A Spec
//     keeps them; they are expanded when the model is built, each
//     factor's index expressions compiled once and evaluated per loop
//     value, the count of variables and factors checked against MaxItems
//     first (loops.go, docs/formats.md "Sizes, arrays and loops").
//   - New returns a Builder: typed handles for the variables, one call per
//     factor, and a sticky error reported by Build, so that a model with
//     repeated structure is a loop with one error check. Build validates
//     through the file's path, so a fault gets the same message from Go
//     and from JSON.
//   - Model.Infer runs a built model on one data set (Data, read by
//     ParseData, or by Model.ReadData, which also takes an array variable
//     whole) without rebuilding it: the evidence is clamped and every
//     posterior starts again from where a fresh build starts it. A data
//     set whose array sets a size builds the model again for it.
//   - Model.Output is the result by variable name: categorical
//     probabilities, Dirichlet concentrations in the variable's shape,
//     Gamma shape and rate, the sweeps and the F trace, as `arbor infer
//     --json` prints it.
//
// docs/models.md walks through them; examples/hmm is an HMM written with the
// Builder.
package model
