// Package si implements sophisticated inference (Friston, Da Costa, Hafner,
// Hesp and Parr 2021, "Sophisticated inference", Neural Computation 33):
// planning by a recursive expected free energy over actions and the
// outcomes that follow them, with the beliefs updated exactly at every
// imagined outcome. It is a third planner beside aci and btai, a sibling on
// pomdp (docs/si.md).
//
// From the present belief q_τ, the expected free energy of action u is
//
//	G(u | q_τ) = G_local(u, q_τ) + Σ_o Q(o | u, q_τ) Σ_u' Q(u' | o) G(u' | q^o),
//	Q(u' | o)  = σ(−γ G(· | q^o))(u'),
//
// where G_local is the one-step risk + ambiguity (− novelty) of
// pomdp.StepCost, the same numbers as aci at horizon 1, and q^o is the
// exact posterior after outcome o (over the joint state, kept as every
// factor's marginal). The search ends Options.Depth steps ahead.
//
//   - Plan (or a Planner, which reuses its memory) runs one search from a
//     belief and returns a Result: G, the root's distribution σ(−γ G), the
//     one-step terms, the node count and whether the node budget cut the
//     search short (Truncated).
//   - Options: the depth, γ, joint or marginal outcome branching (pymdp's),
//     pruning of actions (pymdp's absolute or SPM's relative rule) and of
//     outcomes, a cap on branches, a node budget and novelty.
//   - EstimatePlan bounds the nodes and seconds of a search before it runs.
//   - Planner.Tree (and Agent.Tree) shows the last search as a tree: every
//     belief with its actions' G and probability, and after each action the
//     outcomes kept and the beliefs they lead to; Tree.WriteDOT draws it
//     as Graphviz DOT text.
//   - Agent implements agent.Agent (and agent.MixedAdvancer, agent.Learner)
//     with exact filtering of the past and Dirichlet learning (pomdp.Past).
//
// Identical beliefs reached by different paths, or at different depths, are
// scored once, and the value of a belief a given number of steps from the
// horizon is computed once (memoised on the belief's bits).
//
// Description describes the planner to the drivers of every verb
// (agent.Planner): the search's flags (SearchFlags, shared with `si plan`)
// and the acting ones, their checks (FlagError names the flag of an option
// refused), and its Factory, strict where choices are scored (a search
// the node budget cuts short is an error there).
package si
