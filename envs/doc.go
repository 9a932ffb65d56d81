// Package envs holds the environments the arbor agents act in: the true
// generative processes of the experiments, and the generative models an
// agent starts from, as plain slices.
//
// The package imports only pomdp and agent of arbor (docs/architecture.md): models
// come back as plain slices (MazeModel) or as a validated *pomdp.Model
// (Maze.POMDP, MazeModel.POMDP).
//
// # Environments
//
// Every environment implements agent.Environment: Reset starts an episode and
// returns the first observation, Step performs one action and returns the
// next observation, Done reports that the goal is reached.
//
//   - Maze is the grid world of the BTAI paper (docs/formats.md),
//     read from a file by ParseMaze or LoadMaze. The hidden state is the
//     agent's free cell, the observation its Manhattan distance to the exit
//     E and the actions Up, Down, Left, Right and Idle; the process is
//     deterministic. Maze.Model returns the agent's noisy model of it.
//   - TMaze is the classic T-maze: a hidden context puts a reward in the
//     left or the right arm and a cue reveals the context with probability
//     CueValidity. TMazeModel returns its exact model.
//   - DSprites is the dSprites task of the BTAI_3MF paper: a sprite of some
//     shape, scale and orientation moved 8 pixels per action until it
//     crosses the bottom of a 32 × 32 image, squares belonging at the left
//     and the other shapes at the right (DSpritesReward, DSpritesRate).
//     DSpritesModel returns the author's agent model at a granularity, a
//     factorised pomdp.Model with a joint preference over x, y and shape.
//   - World and WorldFlags: a built-in environment as the command line
//     names it (--env dsprites --granularity g), with its model, a fresh
//     environment per trial and the record of a trial (initial state and
//     reward).
//
// # Generative models
//
// MazeModel holds A[o][s], B[u][next][prev], C[o] (a distribution over
// observations) and D[s] with the conventions of the POMDP file of
// docs/formats.md, plus the names of the actions, observations and
// states. Every column is a probability distribution.
//
// # Errors
//
// User input never panics: maze files, model parameters and actions passed
// to Step return errors that name the line and column, the parameter or the
// action. Methods taking a state index (Maze.Next, Maze.Observation,
// Maze.CellOf) panic on an index out of range, a programmer error, and so
// do Reset and Position of the zero Maze, which has no cells (its other
// methods return an error or 0). The zero TMaze is the default T-maze. A
// Maze or TMaze is not safe for concurrent use: give every goroutine its
// own (Maze.Clone).
package envs
