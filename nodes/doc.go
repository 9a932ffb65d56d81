// Package nodes holds the factor types of arbor's Forney factor graphs:
// Categorical, Transition (one or more parents, literal or
// Dirichlet-distributed tensor), the Dirichlet and Gamma priors, the
// non-conjugate Softmax policy prior of active inference, and the
// continuous nodes: Normal (N(x | a·m + b, 1/(s·τ)) with the mean a literal
// or an affine function of a normal variable and the precision a literal or
// a gamma variable), NormalLinear (the mean a linear predictor
// Σ_k s_k m_k + b of normal variables m_k with numeric scales, the offset b
// a literal or a normal variable: the likelihood of a linear regression)
// and NormalMixture (the switching Normal y ~ N(m_z, 1/τ_z) selected by a
// categorical z); the multivariate nodes MvNormal (N(x | A·m + b, Λ⁻¹) with
// the mean a literal vector or an affine map of an mvnormal variable and
// Λ a literal matrix or a Wishart variable), the Wishart prior, NormalDot
// (a univariate Normal whose mean is cᵀw + b for an mvnormal weight
// vector w), and Beta and Bernoulli. The multivariate forms are expanded
// from their equations by one helper (quadform.go).
//
// Each conjugate node is nothing but its interfaces and its multilinear
// exponential-family form (messages.Multilinear for the discrete nodes,
// messages.Polynomial for the continuous ones): the VMP message to every
// interface and the node's average energy E_q[-ln f] are derived from that
// form, never written out per neighbour pair. Softmax supplies hand-written
// rules for its first-order approximation (see its documentation).
//
// Nodes satisfy ffg.Factor and ffg.Messenger structurally; this package does
// not import ffg. Interface 0 of every node is its output. Sub-package
// nodetest checks any node's messages against finite differences of its
// average energy.
//
// A node value keeps scratch space: use one node from one goroutine at a
// time (a graph is single-goroutine anyway).
package nodes
