package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/internal/runplot"
	"github.com/arbor-ai/arbor/pomdp"
)

// runPlotFlags are the --plot flags of aci run, btai run and si run.
type runPlotFlags struct {
	fs      *flag.FlagSet
	file    *string
	dpi     *int
	episode *string
}

// addRunPlotFlags registers --plot, --plot-dpi and --plot-episode; cost
// names the planning cost drawn for each action taken.
func addRunPlotFlags(fs *flag.FlagSet, cost string) *runPlotFlags {
	return &runPlotFlags{
		fs: fs,
		file: fs.String("plot", "", "draw the run into this file, SVG, PDF or PNG by its ending: per episode the belief of each factor, "+
			"the action distribution, the outcome of each modality with preferences and "+cost+"; over episodes the rate of preferred "+
			"outcomes (and steps and solved for a maze), with the spread across agents"),
		dpi:     fs.Int("plot-dpi", runplot.DefaultDPI, "resolution of a .png --plot file, in pixels per inch (30..1200)"),
		episode: fs.String("plot-episode", "1", "the episode --plot draws in detail, from 1 (of the first agent), or all: a grid of every episode (at most "+strconv.Itoa(runplot.MaxGrid)+")"),
	}
}

// plotFormat returns the format of a --plot file by its ending.
func plotFormat(path string) (string, error) {
	if f := runplot.Format(path); f != "" {
		return f, nil
	}
	return "", badInput("--plot %s: unknown ending, want .svg, .pdf or .png", path)
}

// check refuses, before any work, a --plot file of an unknown ending, a
// --plot-dpi or --plot-episode that would be ignored or is out of range,
// and a file that cannot be created. It returns the selected episode
// (from 0; runplot.All for all).
func (pf *runPlotFlags) check(episodes int) (int, error) {
	given := map[string]bool{}
	pf.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if *pf.file == "" {
		for _, name := range []string{"plot-dpi", "plot-episode"} {
			if given[name] {
				return 0, badInput("--%s: needs --plot FILE", name)
			}
		}
		return 0, nil
	}
	format, err := plotFormat(*pf.file)
	if err != nil {
		return 0, err
	}
	switch {
	case given["plot-dpi"] && format != "png":
		return 0, badInput("--plot-dpi: applies to a .png --plot file only (%s is %s, which has no resolution)", *pf.file, strings.ToUpper(format))
	case *pf.dpi < 30 || *pf.dpi > 1200:
		return 0, badInput("--plot-dpi: %d, want 30..1200", *pf.dpi)
	}
	sel := 0
	if *pf.episode == "all" {
		if episodes > runplot.MaxGrid {
			return 0, badInput("--plot-episode all: %d episodes, at most %d in a grid (give --plot-episode N)", episodes, runplot.MaxGrid)
		}
		sel = runplot.All
	} else {
		n, err := strconv.Atoi(*pf.episode)
		if err != nil || n < 1 || n > episodes {
			return 0, badInput("--plot-episode: %q, want an episode 1..%d (--episodes) or all", *pf.episode, episodes)
		}
		sel = n - 1
	}
	if err := checkOutputFile("--plot", *pf.file, false); err != nil {
		return 0, err
	}
	return sel, nil
}

// runPlot is the figure of --plot (internal/runplot) and its file.
type runPlot struct {
	path string
	fig  *runplot.Figure
}

// newRunPlot returns the collector of a run's figure, or nil without
// --plot. sel is what check returned.
func (pf *runPlotFlags) newRunPlot(sel int, costLabel string, mz *envs.Maze, m *pomdp.Model, agents, episodes int) *runPlot {
	if *pf.file == "" {
		return nil
	}
	return &runPlot{path: *pf.file, fig: runplot.New(m, runplot.Config{Format: runplot.Format(*pf.file), DPI: *pf.dpi,
		Episode: sel, CostLabel: costLabel, Maze: mz, Agents: agents, Episodes: episodes})}
}

// write draws the figure into the --plot file (writePlot). Without an
// episode to draw, it writes nothing.
func (rp *runPlot) write() error {
	c, err := rp.fig.Draw()
	if c == nil || err != nil {
		return err
	}
	return writePlot(rp.path, c)
}

// writePlot writes a figure into the --plot file path, complete or
// absent: the file is replaced only once the figure is written.
func writePlot(path string, c io.WriterTo) error {
	f, err := output.CreateFile(path)
	if err != nil {
		return cannotCreate("--plot", path, err)
	}
	defer f.Abort()
	if _, err := c.WriteTo(f); err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	return nil
}

// checkPlotFile refuses a --plot file that is not a PNG, before any work
// (the figures drawn through Graphviz's PNG output and the recovery plot).
func checkPlotFile(path string) error {
	if path != "" && !strings.HasSuffix(strings.ToLower(path), ".png") {
		return badInput("--plot %s: want a .png file", path)
	}
	return nil
}
