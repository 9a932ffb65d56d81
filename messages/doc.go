// Package messages implements the message arithmetic of variational message
// passing (VMP) on discrete exponential-family factors: the generalized inner
// and outer products of paper Appendix A over named tensor axes, the
// multilinear factor form from which every conjugate message is derived, and
// the error returned when a factor has no rule for an interface.
//
// # Tensors
//
// A [Tensor] is a dense row-major (C order) array with a shape and optional
// axis names. Element (x_1, ..., x_n) is Data[((x_1*n_2)+x_2)*n_3+...]. The
// paper names the sides of a tensor ("the observation dimension", "the state
// dimension"); [Tensor.Axis] looks an axis up by that name.
//
// # Products (paper Appendix A)
//
//   - [Inner] is the generalized inner product W ⊙ [V^1, ..., V^M]: the weighted
//     sum of W over every axis but one, the weights being the vectors of the
//     other axes.
//   - [Outer] and [AddOuter] are the generalized outer product ⊗[V^1, ..., V^N].
//   - [Contract] contracts every axis: <W, V^1 ⊗ ... ⊗ V^N>.
//
// All three take caller buffers and do not allocate. A zero weight skips its
// term entirely, so 0 · (-Inf) counts as 0: the convention 0 ln 0 = 0 that
// makes log-tensors with structural zeros usable.
//
// # Multilinear factors
//
// A conjugate discrete factor has log-density
//
//	ln f(x_1, ..., x_n) = <W, u_1(x_1) ⊗ ... ⊗ u_n(x_n)> + c
//
// (paper eqs. 5-8, Winn & Bishop), where u_i are the sufficient statistics of
// the neighbours and W is either a constant tensor (ln A for a fixed matrix,
// α - 1 for a Dirichlet prior) or the sufficient statistic of a parameter
// neighbour (ln A under a Dirichlet posterior). [Multilinear] holds that form.
// The VMP message to an axis neighbour is the inner product of E[W] with the
// expected statistics of the other neighbours; the message to the parameter
// neighbour is the outer product of all of them; the average energy
// E_q[-ln f] is minus their full contraction. Every conjugate node in package
// nodes is a Multilinear with a different W, so no message is written out by
// hand per neighbour pair.
package messages
