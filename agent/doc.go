// Package agent is the runtime of arbor's agents: the contract every
// planner implements, the drivers that run an agent in a world or along
// recorded behaviour, the batch runner, the random streams, the choice
// rules' shared arithmetic and the parameters that can be fitted to
// behaviour. The planners (packages aci, btai and si) implement the
// contract on top of the generative model of package pomdp; the drivers are
// written once for all of them, from Go and from the command line.
//
//   - Agent: Reset, Decide, Advance, EndTrial and Belief, the
//     action-perception cycle of one trial. A Decision holds the
//     distribution over joint actions that the choice rule draws from
//     (Probs, what a recorded choice is scored with), the choice, and the
//     planner's values by name (NamedValues), what a driver shows of the
//     plan without knowing the planner (Cost of the action chosen, Work
//     done, a Truncated plan, the Precision E[γ]) and its own record
//     (Detail).
//     Learner (the learned Dirichlet concentrations, recorded after every
//     trial) and MixedAdvancer (advance after an action that is not known,
//     under a distribution over actions) are optional.
//   - Environment: the world an agent acts in (pomdp.Process, envs.Maze,
//     envs.TMaze).
//   - RunEpisode: one trial in an environment, recorded as an Episode of
//     Steps; Replay: one recorded trial, every recorded choice scored by
//     the probability the agent gives it (ReplayTrial, its log-likelihood;
//     StepError names the step of a fault; ErrDeterministic refuses a
//     choice rule without a distribution). EpisodeSettings selects the
//     random streams and observes every step.
//   - RunAgents: many agents of many trials (Runs) on a few goroutines,
//     each trial's episode emitted in order as it finishes; an agent that
//     learns keeps its trials, in order, on one worker. RunOrdered is the
//     ordered worker pool under it (UnitError names the unit of a fault),
//     RunBatch the same with every result returned at once.
//   - StepRand and WorldRand: the random streams of a decision (seed,
//     agent, trial, step) and of the world (seed, unit), so that outputs do
//     not depend on the number of workers and a run's record replays into
//     the same probabilities.
//   - PowerProbs (P ∝ x^α, the choice rules' sharpening) and Sample (a
//     draw by inversion); ActionFactors and ChoiceProbs: a choice over the
//     joint actions or over each controllable factor on its own.
//   - Param, Domain and Factory: the parameters of an agent that can be
//     fitted to behaviour (the Param* names, their domains and transforms)
//     and how a fitting package builds an agent with given values
//     (FindParam, CheckParams, ModelParams, LearningParams, ApplyParams,
//     Override, ClosedLearning).
//   - Planner: a planner described as a value, so that one driver per
//     verb (Verb: VerbRun, VerbReplay, VerbFit, VerbSimulate, VerbRecover)
//     serves every planner. Planner.Flags registers the planner's options
//     for a verb on a flag.FlagSet, with the defaults that verb uses, and
//     returns them as Options: Check (what needs no model), Factory (the
//     checks against a model and the Factory of the verb's agents).
//     Optional interfaces say more where a planner has it: Refuser (why a
//     verb leaves a flag out), Settler (resolved settings), Limiter (how
//     many agents fit in memory at once), Carrier (learning carried
//     between trials beyond the model's concentrations); Workers bounds
//     the agents run at once by Limiter, Scoring returns a factory's
//     scoring agents (ScoringFactory). FlagError (Flagf) is an option
//     given wrongly; ChoiceFlags (RegisterChoiceFlags, Choice: the action
//     precision, the choice over factors, the learning rate and
//     forgetting), Given, CheckLearningFlags and Duration are what the
//     planners' flag code shares; FindPlanner looks one up by name.
//     aci.Description,
//     btai.Description and si.Description are the three planners.
//
// # Misuse
//
// What can come from data or settings is checked and reported as an error
// that starts with "agent: " (or, for the errors of one step or unit, with
// the step or unit it names). Sample panics on a nil generator or a p
// without a positive entry, a programming error that its doc comment
// names. Every function that takes a context takes a nil one as
// context.Background(). The drivers are safe for concurrent use on
// distinct agents and environments; an Agent or Environment itself is
// not.
package agent
