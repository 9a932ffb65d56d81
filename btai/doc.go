// Package btai implements Branching Time Active Inference (paper sections
// 5-7): planning as structure learning. The agent's generative model is one
// ffg.Graph. The past and present are a POMDP over S_0..S_t with observed
// O_0..O_t and actions U_0..U_(t-1), with fixed or Dirichlet-distributed A,
// B, D (section 6.1). To plan, the agent grows the future as a tree of
// states S_I and observations O_I inside that same graph (section 6.3):
//
//  1. Selection (Tree.Select): from the root, down the children that
//     maximise UCT. By default (NormalizedUCT) every child competes on
//     its average cost mapped to [0, 1] by the range seen in the tree,
//     (hi - ḡ_J)/(hi - lo) + C sqrt(ln n / n_J), so that the exploration
//     does not depend on the scale of the costs; the paper's rule
//     (UnexploredFirst) takes an unexplored child first and otherwise
//     maximises -ḡ_J + C_p sqrt(ln n / n_J), and UCT lets every child
//     compete on that, as the paper author's C++ implementation does.
//  2. Expansion (Agent.Iterate): one child per action, P(S_I | S_parent) =
//     Cat(B̄_I), P(O_I | S_I) = Cat(Ā).
//  3. Inference on the new nodes: VMP (the mean-field updates of section
//     6.2, local or global) or exact prediction (Q(S_I) = B̄_I Q(S_parent),
//     Q(O_I) = Ā Q(S_I)).
//  4. Cost: g_classic (risk + ambiguity), g_pcost or g_feef, optionally
//     averaged over roll-outs (Algorithm 1), and with Options.Novelty
//     minus the expected information gain about a likelihood A that the
//     agent learns while it acts.
//  5. Propagation (Tree.Propagate): forward, backward or min-backward, with
//     visit counts.
//
// After planning, an action is chosen from the root's children (softmax of
// -α ḡ, visit counts N^α, most visited, or lowest average cost), the
// planning sub-tree is removed from the graph, and the past grows by one
// step (Algorithm 2). Agent implements agent.Agent (Reset, Decide, Advance,
// EndTrial), so agent.RunEpisode, agent.RunAgents and agent.Replay drive
// it like any other planner.
//
// Presets set every planning option at once: PresetScaleFree (the default,
// DefaultOptions), PresetPaper (the paper's literal algorithm), PresetHP
// (the paper author's C++ implementation) and Preset3MF (the author's
// BTAI_3MF agent, as it runs the dSprites task); PresetByName finds them by
// name. On a large factorised model with predictive inference and the
// classic cost, new nodes are evaluated with the matrices in split form
// and the factors no action moves computed once per depth (fastPred).
// Every decision draws from its own random stream, agent.StepRand(seed,
// agent, trial, step), so that runs of the library and of arbor btai run
// --seed k agree and a replay of a run repeats its decisions.
//
// Options.TrialSteps ties the planning depth to the steps left in a trial:
// no node deeper than the end of the trial is expanded, and planning stops
// once the tree is complete to that depth (Tree.SetDepthLimit,
// Tree.Exhausted).
//
// With local inference, planning holds the tree in compact form (posteriors
// in flat arrays, no graph objects per node) and adds S_I, O_I and their
// factors to the graph when Agent.Graph, Agent.Tree or Agent.LabelTree is
// called, with the same numbers. Agents read the model's A and B where it
// keeps them (pomdp.Model.SharedA, SharedB) and compute what planning
// derives from them (the products Ā B̄_u, the logarithms in split form)
// once per model change, not at every planning step; EstimateBytes and
// EstimatePlanSeconds estimate the memory and time of a plan before it
// runs. Models with hard zeros in B (or Ā) are
// handled by flooring the probabilities whose logarithms mean-field VMP
// takes at e^-32 (pomdp.LogFloor), as the aci agent does.
//
// With predictive inference, the classic cost and forward propagation, a
// node's aggregated cost is the classic expected free energy of the policy
// that leads to it (Theorem 1); TestTheorem1 checks this against a brute
// force computation.
//
// Tree.WriteDOT draws the planning tree as the paper does (states only,
// each node with its visits and average cost, the action taken bold), all
// of it or the view of TreeDOTOptions: a depth, the K most visited
// children of each node, or by default what fits a page.
//
// Description describes the planner to the drivers of every verb
// (agent.Planner: run, replay, fit, simulate, recover), as aci.Description
// and si.Description do: RegisterVerbFlags registers a verb's flags with
// the defaults that verb uses, and its VerbFlags checks them (Check,
// Factory, with the bounds MaxTreeBytes and MaxBytes) and makes the verb's
// agents. PlanFlags are the planning flags alone, which arbor btai plan
// shares; ResolvedSettings states the options a command ran with.
//
// # Misuse
//
// Faults of data and of calls in the wrong order (Plan, Iterate, Decide or
// SelectAction before Reset or Plan, or after EndTrial; an observation the
// model cannot explain, pomdp.ErrImpossibleObservation; a nil random
// stream) are errors that start with "btai: ". Tree, the planning tree as a
// data structure, panics on programming errors that its doc comment names
// (an unexpanded root, a node index out of range), as do
// EstimatePlanSeconds and EstimateBytes on an invalid model. A nil context is
// context.Background(). An Agent is not safe for concurrent use (one per
// goroutine; agents may share a model), and the zero Agent is not usable.
//
// See docs/btai.md for every option with its equation and measured
// results.
package btai
