package agent

// Environment is the true generative process an agent acts in: the world
// that RunEpisode and RunAgents drive through the action-perception cycle,
// Reset once per episode, then Step with one action per time step until
// Done reports that the goal is reached or the agent's step budget runs
// out. pomdp.Process (a model file as the world), envs.Maze, envs.TMaze and
// envs.DSprites satisfy it.
//
// Actions are indices 0..NumActions()-1 and observations are indices
// 0..NumObservations()-1, matching the columns and rows of the agent's
// generative model. Implementations are not safe for concurrent use.
type Environment interface {
	// Reset puts the environment back at its start and returns the first
	// observation index.
	Reset() int
	// Step performs action and returns the resulting observation index.
	// An action outside 0..NumActions()-1 is an error and leaves the
	// environment unchanged.
	Step(action int) (obs int, err error)
	// NumActions is the number of actions Step accepts.
	NumActions() int
	// NumObservations is the number of distinct observation indices.
	NumObservations() int
	// Done reports whether the goal is reached (in an envs.Maze: the agent
	// stands on E; in an envs.TMaze: the agent is in the rewarded arm).
	Done() bool
}

// StateReporter is an Environment that reports its true hidden state: the
// state index of each factor of its model, in model order, in dst (grown
// when short). pomdp.Process satisfies it. RunEpisode records the state
// that Reset drew in Episode.TrueState, so that what an agent inferred can
// be checked against the truth.
type StateReporter interface {
	FactorStates(dst []int) []int
}
