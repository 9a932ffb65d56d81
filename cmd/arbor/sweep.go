package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/internal/shard"
)

const sweepSynopsis = "arbor sweep GRID.json [--shard k/n|auto --out DIR [--shards n] [--resume]]"

// sweepPoint is one line of arbor sweep: the point's flag values and the
// last line (the summary) of the command's --json output there.
type sweepPoint struct {
	Point   output.Ordered  `json:"point"`
	Summary json.RawMessage `json:"summary"`
}

// readGrid reads and checks a sweep file (shard.ParseGrid), its command
// (a planner's run or fit) and the command's flags: the fixed ones, then
// each flag of the grid with all its values, parsed by the command's own
// flag set (an unknown name or a value the flag refuses is an error naming
// the field) without running it.
func readGrid(path string) (*shard.Grid, *plannerCmd, error) {
	b, err := readFile(path, path)
	if err != nil {
		return nil, nil, err
	}
	g, err := shard.ParseGrid(b)
	if err != nil {
		return nil, nil, badInput("%s: %v", path, err)
	}
	var c *plannerCmd
	var planners []string
	for _, pc := range plannerCmds() {
		planners = append(planners, pc.p.Name)
		if len(g.Command) >= 2 && g.Command[0] == pc.p.Name && (g.Command[1] == "run" || g.Command[1] == "fit") {
			c = pc
		}
	}
	if c == nil {
		return nil, nil, badInput("%s: command %q: want %s, then run or fit, then its flags", path, g.Command, orList(planners))
	}
	saved := onParsed
	onParsed = func(*flag.FlagSet) (bool, error) { return true, nil }
	defer func() { onParsed = saved }()
	parse := func(what string, flags []string) error {
		err := c.run(append(append([]string(nil), g.Command[1:]...), flags...), io.Discard)
		var se *subcommandError
		if errors.As(err, &se) {
			err = se.err
		}
		if err != nil {
			return badInput("%s: %s: %v", path, what, err)
		}
		return nil
	}
	if err := parse("command", nil); err != nil {
		return nil, nil, err
	}
	for i, ax := range g.Axes {
		var flags []string
		for _, v := range ax.Values {
			flags = append(flags, "--"+ax.Flag+"="+v)
		}
		if err := parse(fmt.Sprintf("grid[%d] (%s)", i, ax.Flag), flags); err != nil {
			return nil, nil, err
		}
	}
	return g, c, nil
}

// runSweep is arbor sweep GRID.json: the command of the grid run at every
// point of the grid, one line per point with its summary.
func runSweep(args []string, stdout io.Writer) error {
	rest, sf, err := cutShardFlags(args)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	pos, err := parseFlags(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, sweepSynopsis)+shardHelp)
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return badInput("want one grid file (usage: %s)", sweepSynopsis)
	}
	g, c, err := readGrid(pos[0])
	if err != nil {
		return err
	}
	// The files the command reads are the job's too, those the grid
	// varies among them: a shard of the sweep run on another model is
	// another job.
	files := [][2]string{{"GRID", pos[0]}}
	isFile := func(name string) bool { return slices.Contains([]string{"model", "maze", "process", "data"}, name) }
	for i := 2; i < len(g.Command); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(g.Command[i], "-"), "=")
		if isFile(name) {
			if !hasVal && i+1 < len(g.Command) {
				i++
				val = g.Command[i]
			}
			files = append(files, [2]string{"--" + name, val})
		}
	}
	for _, ax := range g.Axes {
		for _, v := range ax.Values {
			if isFile(ax.Flag) {
				files = append(files, [2]string{"--" + ax.Flag, v})
			}
		}
	}
	prov, err := provenance("sweep", fs, files...)
	if err != nil {
		return err
	}
	n := g.Points()
	switch {
	case shardJob != nil && shardJob.merge != nil:
		return shardJob.mergeTo(stdout, prov, n, false, nil, func() any { return map[string]int{"points": n} })
	case sf.given:
		plan, err := sf.plan(os.Getenv)
		if err != nil {
			return err
		}
		plan.args = append([]string{"sweep"}, rest...)
		named := []output.NamedFile{output.Out("--out", plan.file())}
		for _, f := range files {
			named = append(named, output.In(f[0], f[1]))
		}
		if err := output.CheckDistinct(named...); err != nil {
			return badInput("%v", err)
		}
		out, err := plan.start("sweep", prov, n, "point", nil)
		if out == nil || err != nil {
			return err
		}
		for _, i := range out.units {
			line, err := runPoint(g, c, i)
			if err == nil {
				err = out.line(i, line)
			}
			if err != nil {
				return out.finish(commandContext(), err)
			}
		}
		return out.finish(commandContext(), nil)
	}
	enc := json.NewEncoder(stdout)
	if err := enc.Encode(prov); err != nil {
		return err
	}
	for i := range n {
		line, err := runPoint(g, c, i)
		if err != nil {
			return err
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return enc.Encode(map[string]int{"points": n})
}

// sweepCause is why the command's context is done (a signal).
func sweepCause() error { return context.Cause(commandContext()) }

// runPoint runs point i of the grid g, of planner c's command, and returns
// its line.
func runPoint(g *shard.Grid, c *plannerCmd, i int) (*sweepPoint, error) {
	if err := commandContext().Err(); err != nil {
		return nil, sweepCause()
	}
	flags, o := g.Point(i)
	args := append(append(append([]string(nil), g.Command[1:]...), flags...), "--json")
	var buf bytes.Buffer
	saved := shardJob
	shardJob = nil
	err := c.run(args, &buf)
	shardJob = saved
	if err != nil {
		var se *subcommandError
		if errors.As(err, &se) {
			err = se.err
		}
		if commandContext().Err() != nil {
			return nil, sweepCause()
		}
		return nil, fmt.Errorf("point %d (%s): %w", i+1, strings.Join(flags, " "), err)
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	return &sweepPoint{Point: o, Summary: json.RawMessage(lines[len(lines)-1])}, nil
}
