// Package ffg is arbor's Forney factor graph: variables (hidden, or
// observed with a hard index or soft evidence) and factor nodes bound to
// them by named interfaces, with variational message passing updates under
// the mean-field approximation, the variational free energy, growth and
// removal of variables, factors and whole sub-graphs at any time, and
// Graphviz DOT export.
//
// # Model
//
// A variable has an exponential family (expfam.Family) and a shape. Its
// posterior q is kept as expected sufficient statistics, which is all a
// factor reads: probabilities for a categorical, E[ln p] for a Dirichlet
// (paper Appendix D), [E ln g, E g] for a gamma, [E x, E x²] for a normal.
// The engine knows a family only through what it declares
// (expfam.Declaration: the layout, the default posterior, the posterior
// from natural parameters, the entropy), so a family declared outside the
// module (expfam.Declare) works as the built-in ones do. A normal variable
// can be observed at a value (Variable.ObserveValue).
//
// A factor implements Factor; the engine asks by type assertion whether it
// also offers messages (Messenger), the names of its rules (RuleLister) or a
// DOT label (Labeler), in the manner of gonum's graph/encoding/dot.
//
// # Figures
//
// WriteDOT draws a graph in the convention of the paper's figures.
// Graph.FindRepeats finds repeated structure from the wiring alone (the
// time steps of a chain, i.i.d. slices under shared parents), which
// WriteDOTWith can draw once inside a plate labelled with its range
// (DOTOptions.Fold FoldPlates) or as the first slices, an ellipsis and the
// last (FoldUnroll).
//
// # Inference
//
// Graph.Update sets a variable's posterior to the sum, in natural
// parameters, of the messages of every factor bound to it (paper eqs. 5-8);
// package schedule sweeps updates until the free energy converges.
// Graph.FreeEnergy returns
//
//	F = sum over factors E_q[-ln f] - sum over hidden variables H[q]
//
// and Graph.LocalFreeEnergy the part of it that depends on a set of
// variables, which is what local inference tracks. Graph.SumProduct is
// exact belief propagation over the hidden categorical variables and over
// the hidden normal variables of linear-Gaussian trees (Kalman filtering
// and RTS smoothing on a chain), univariate (gaussbp.go) and multivariate
// (gaussmv.go: mvnormal variables, ln Z read at the posterior mean from
// residuals), with the other variables in mean field. Variable.ObserveVector
// observes an mvnormal variable; MvNormal, Wishart and Beta read the
// multivariate and Beta posteriors.
//
// # Growth
//
// AddVariable and AddFactor may be called at any time, also after inference
// has run; RemoveFactor and RemoveVariables take nodes (or a whole planning
// sub-tree) out again. Variables may be anonymous (name ""), which keeps
// large, short-lived sub-graphs cheap.
package ffg
