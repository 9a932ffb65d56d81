// Package aci implements classic active inference on discrete POMDPs (paper
// section 4; docs/architecture.md and docs/cli.md).
//
// What it offers:
//
//   - The model is a *pomdp.Model (package pomdp, shared with btai):
//     likelihood A[o][s], transitions B[u][next][prev], target
//     distribution C over observations, initial prior D, optional target
//     C_states over states, optional Dirichlet concentrations a, b, d and
//     optional names; pomdp.Parse and pomdp.Load read the JSON file of
//     docs/formats.md, pomdp.New builds one from a flat pomdp.Spec.
//
//   - The expected free energy of a policy (paper eq. 9):
//     G = sum_tau KL[Q(o_tau|pi) || C] + E_{Q(s_tau|pi)} H[A(.|s)], with
//     Q(s_tau|pi) = B_{pi_tau} Q(s_{tau-1}|pi) and Q(o|pi) = A Q(s|pi).
//     pomdp.Risk, pomdp.Ambiguity and pomdp.Novelty are the per-step
//     terms; ExpectedFreeEnergy sums them along one policy. The optional novelty
//     (parameter information gain about A) is described at EFEOptions.
//
//   - EvaluatePolicies scores all |U|^T policies in lexicographic order by a
//     depth-first walk over the policy tree that shares prefixes and never
//     materialises the tree (O(T |S|) working memory besides the output; the
//     exponential complexity class of paper Appendix H is in the output
//     size, not in the working memory). TopPolicies keeps only the k best
//     policies and streams the normalisation of q_pi = softmax(-gamma G) and
//     the action marginal, so memory does not grow with |U|^T. Both compute
//     the steps with pomdp.Stepper (the model's compact tensors) and split
//     the walk into chunks over EFEOptions.Jobs goroutines, with the same
//     results for any number (docs/aci.md, "Both cores in one plan").
//
//   - Eval implements `arbor aci eval`: the exact posterior over s_0 from one
//     observation, every policy's G, risk and ambiguity, q_pi and the action
//     probabilities (Bayesian model average, paper section 4).
//
//   - Agent is the classic agent on an ffg.Graph (paper section 4, eq. 2):
//     the past and present S_0..S_t with observed O_0..O_t and the actions
//     taken, A, B, D literal or with Dirichlet priors a, b, d, and the
//     policy variable pi with prior softmax(-gamma G) and, optionally, the
//     precision gamma with prior Gamma(1, beta). Act infers the states by
//     global VMP (schedule.Run), scores the policies of length Horizon from
//     q(S_t) depth first, infers q(pi) (and q(gamma)) on the graph, and
//     chooses an action from the Bayesian model average (argmax or seeded
//     sampling). Observe grows the past; EndTrial makes the Dirichlet
//     posteriors the next trial's priors (a + sum_tau o_tau ⊗ Q(S_tau), and
//     the analogues for b and d, paper Appendix C). pi holds at most
//     AgentOptions.GraphPolicies policies (the best ones by G); the action
//     distribution is always the exact marginal over all |U|^T policies.
//     FigureGraph builds a separate graph to draw (`arbor aci run --dot`):
//     the past, pi, and the future pi selects, which the agent scores off
//     its graph, folded in a plate tau = t+1 … t+T.
//
// # Zeros in C and in the concentrations
//
// A target C (or C_states) may contain zeros: an outcome with C[o] = 0 is
// forbidden, and KL[Q(o|pi) || C] = +Inf for every policy that gives it a
// positive predicted probability (pomdp.Risk, ExpectedFreeEnergy and the policy
// scores then hold +Inf). The policy posterior is defined as the limit
// M -> +Inf of softmax(-gamma min(G, M)): a policy with G = +Inf gets
// q_pi = 0 whenever some policy has a finite G, and when every policy has
// G = +Inf they all tie and q_pi is uniform (1/|U|^T each, so the action
// marginal is 1/|U| per action). PolicySet.Posterior, TopPolicies, Eval and
// Agent (with a fixed gamma) follow this rule; inferring gamma
// (AgentOptions.InferGamma) needs finite G and NewAgent refuses it when C
// has a zero. The same rule holds for every command of arbor: G, risk and
// BTAI costs of +Inf are written as null in JSON.
//
// Dirichlet concentrations a, b and d, by contrast, must all be > 0:
// pomdp.New and pomdp.Parse reject a 0 naming the element ("a[0][0]: 0,
// want > 0"), since a Dirichlet with a zero concentration is not a
// distribution (expfam refuses it, and so would learning).
//
// # Misuse
//
// Faults of data and of calls in the wrong order (Decide or Advance before
// Reset or after EndTrial, an observation the model gives probability 0,
// a nil random stream) are errors that start with "aci: " or name the
// field; a nil or invalid model is pomdp.Check's error. A few functions
// panic, as the standard library does, on programming errors that their
// doc comments name: DecodePolicy and EncodePolicy on an index or action
// out of range, PolicySet.ActionProbs on a q_pi of the wrong length,
// EstimatePlanSeconds on an invalid model. A nil context is
// context.Background(). An Agent is not safe for concurrent use (one per
// goroutine; agents may share a model), and the zero Agent is not usable.
//
// docs/aci.md maps every equation of paper section 4 to the code, explains
// why the policy-conditioned future is walked rather than held in the graph,
// and describes the agent's options; examples/tmaze runs the T-maze.
//
// Description describes the planner to the drivers of every verb
// (agent.Planner: run, replay, fit, simulate, recover): its flags per
// verb, their checks (CheckPlanTime refuses a horizon whose policy walk
// would take longer than --max-minutes) and its Factory of agents with
// fitted parameters.
package aci
