// Command maze runs a Branching Time Active Inference agent in a maze file
// through the library API, without the arbor command line:
//
//  1. envs.LoadMaze parses the maze (docs/formats.md, "Maze file");
//  2. Maze.POMDP builds the agent's noisy generative model of it (A, B, C,
//     D) as a validated *pomdp.Model, the form both agents take;
//  3. btai.NewAgent creates the agent with the planning options, and
//     agent.RunEpisode runs the action-perception cycle of paper
//     Algorithm 2 (observe, infer the present state, plan by growing the
//     tree, act) in the maze, which is an agent.Environment.
//
// It prints the actions, the positions visited and the maze with the path
// drawn. The output depends only on the flags: the same -seed gives the
// same run.
//
//	go run ./examples/maze -maze examples/mazes/1.maze
//	go run ./examples/maze -maze examples/mazes/5.maze -inference predictive -seed 3
//	go run ./examples/maze -maze examples/mazes/1.maze -preset paper
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the program; it returns the exit status: 0 on success, 2 on bad
// input (with one line on stderr), 1 if the agent fails.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("maze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	// The flags are a subset of those of arbor btai run, with the same
	// names, defaults and meaning.
	d := btai.DefaultOptions()
	mazeFile := fs.String("maze", "examples/mazes/1.maze", "maze file")
	preset := fs.String("preset", btai.PresetScaleFreeName, "planning preset: "+strings.Join(btai.PresetNames, ", ")+" (flags given explicitly override it)")
	iterations := fs.Int("iterations", d.Iterations, "planning iterations per action")
	exploration := fs.Float64("exploration", *d.Exploration, "UCT exploration constant")
	selection := fs.String("selection", d.Selection.String(), "tree selection: normalized-uct, unexplored-first or uct")
	inference := fs.String("inference", d.Inference.String(), "inference on new tree nodes: vmp or predictive")
	novelty := fs.Bool("novelty", false, "learn A while acting and add its novelty to the planning cost")
	steps := fs.Int("steps", 50, "maximum number of actions")
	seed := fs.Uint64("seed", 1, "random seed (the same as seed k of arbor btai run --seed k)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "maze: unexpected argument %q (the maze is given with -maze)\n", fs.Arg(0))
		return 2
	}
	if *iterations < 1 {
		fmt.Fprintf(stderr, "maze: -iterations %d, want >= 1\n", *iterations)
		return 2
	}
	if *steps < 1 {
		fmt.Fprintf(stderr, "maze: -steps %d, want >= 1\n", *steps)
		return 2
	}
	// 0. The planning options: the preset, then the flags given.
	opts, err := btai.PresetByName(*preset)
	if err != nil {
		fmt.Fprintf(stderr, "maze: -preset: %v\n", err)
		return 2
	}
	var flagErr error
	fs.Visit(func(f *flag.Flag) {
		if flagErr != nil {
			return
		}
		var err error
		switch f.Name {
		case "iterations":
			opts.Iterations = *iterations
		case "exploration":
			opts.Exploration = exploration
		case "selection":
			opts.Selection, err = btai.ParseSelection(*selection)
		case "inference":
			opts.Inference, err = btai.ParseInference(*inference)
		case "novelty":
			opts.Novelty = *novelty
		}
		if err != nil {
			flagErr = fmt.Errorf("-%s: %w", f.Name, err)
		}
	})
	if flagErr == nil {
		if err := opts.Validate(); err != nil {
			flagErr = err
		}
	}
	if flagErr != nil {
		fmt.Fprintf(stderr, "maze: %v\n", flagErr)
		return 2
	}

	// 1. The maze and the agent's model of it.
	mz, err := envs.LoadMaze(*mazeFile)
	if err != nil {
		fmt.Fprintf(stderr, "maze: %v\n", err)
		return 2
	}
	// 2. The agent's noisy model of the maze as a *pomdp.Model (Maze.Model
	// gives it as nested slices).
	model, err := mz.POMDP(envs.DefaultNoise, envs.DefaultPrefPrecision)
	if err != nil {
		fmt.Fprintf(stderr, "maze: %s: %v\n", *mazeFile, err)
		return 2
	}
	// 3. The agent, with the options above; the episode driver gives each
	// decision its own random stream, derived from the seed.
	ag, err := btai.NewAgent(model, &opts, nil)
	if err != nil {
		fmt.Fprintf(stderr, "maze: %v\n", err)
		return 2
	}
	states := []int{mz.Start()}
	ep, err := agent.RunEpisode(context.Background(), ag, mz, &agent.EpisodeSettings{
		MaxSteps: *steps, Seed: *seed,
		OnStep: func(st *agent.Step) error {
			if st.Decision != nil {
				states = append(states, mz.State())
			}
			return nil
		}})
	if err != nil {
		fmt.Fprintf(stderr, "maze: %v\n", err)
		return 1
	}

	outcome := "did not reach the exit in"
	if ep.Solved {
		outcome = "reached the exit in"
	}
	fmt.Fprintf(stdout, "%s: %s %d steps\n", *mazeFile, outcome, ep.NumActions())
	names := make([]string, len(ep.Actions()))
	for i, u := range ep.Actions() {
		names[i] = model.ActionName(u)
	}
	fmt.Fprintf(stdout, "actions: %s\n", strings.Join(names, " "))
	cells := make([]string, len(states))
	for i, s := range states {
		r, c := mz.CellOf(s)
		cells[i] = fmt.Sprintf("(%d,%d)", r, c)
	}
	fmt.Fprintf(stdout, "path: %s\n", strings.Join(cells, " "))
	fmt.Fprint(stdout, mz.Render(states))
	return 0
}
