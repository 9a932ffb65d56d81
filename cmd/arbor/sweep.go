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

// sweepGrid is a sweep file: a command and the values of its flags to
// cross.
type sweepGrid struct {
	// Command is the command's arguments after "arbor": one of aci, btai
	// or si with run or fit, and its fixed flags.
	Command []string `json:"command"`
	// Grid lists the flags to vary and their values; the points are
	// their cartesian product, the last flag varying fastest.
	Grid []struct {
		Flag   string            `json:"flag"`
		Values []json.RawMessage `json:"values"`
	} `json:"grid"`
}

// sweepPoint is one line of arbor sweep: the point's flag values and the
// last line (the summary) of the command's --json output there.
type sweepPoint struct {
	Point   output.Ordered  `json:"point"`
	Summary json.RawMessage `json:"summary"`
}

// readGrid reads and checks a sweep file.
func readGrid(path string) (*sweepGrid, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, badInput("%v", err)
	}
	var g sweepGrid
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		return nil, badInput("%s: %v (want {\"command\": [\"btai\", \"run\", ...], \"grid\": [{\"flag\": \"seed\", \"values\": [1, 2]}, ...]})", path, err)
	}
	var planners []string
	for _, c := range plannerCmds() {
		planners = append(planners, c.p.Name)
	}
	if len(g.Command) < 2 || !slices.Contains(planners, g.Command[0]) || (g.Command[1] != "run" && g.Command[1] != "fit") {
		return nil, badInput("%s: command %q: want %s, then run or fit, then its flags", path, g.Command, orList(planners))
	}
	for _, a := range g.Command[2:] {
		name := strings.SplitN(strings.TrimLeft(a, "-"), "=", 2)[0]
		if strings.HasPrefix(a, "-") {
			switch name {
			case "shard", "shards", "out", "resume", "csv", "plot", "dot", "compare":
				return nil, badInput("%s: command: --%s does not go in a sweep's command (the sweep is sharded with its own --shard)", path, name)
			}
		}
	}
	if len(g.Grid) == 0 {
		return nil, badInput("%s: grid: no flag to vary", path)
	}
	seen := map[string]bool{}
	for i, ax := range g.Grid {
		switch {
		case ax.Flag == "" || strings.HasPrefix(ax.Flag, "-"):
			return nil, badInput("%s: grid[%d].flag %q: want a flag's name without dashes", path, i, ax.Flag)
		case seen[ax.Flag]:
			return nil, badInput("%s: grid[%d].flag %q comes twice", path, i, ax.Flag)
		case len(ax.Values) == 0:
			return nil, badInput("%s: grid[%d] (%s): no values", path, i, ax.Flag)
		}
		seen[ax.Flag] = true
		for j, v := range ax.Values {
			if _, err := flagValue(v); err != nil {
				return nil, badInput("%s: grid[%d] (%s) value %d: %v", path, i, ax.Flag, j+1, err)
			}
		}
	}
	return &g, nil
}

// flagValue returns a grid value as a flag takes it: a string as it is, a
// number or a boolean as written.
func flagValue(v json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, nil
	}
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return "", err
	}
	switch x.(type) {
	case float64, bool:
		return string(bytes.TrimSpace(v)), nil
	}
	return "", fmt.Errorf("%s: want a string, a number or true/false", v)
}

// points returns the number of points.
func (g *sweepGrid) points() int {
	n := 1
	for _, ax := range g.Grid {
		n *= len(ax.Values)
	}
	return n
}

// point returns point i's flags and its values for the output line.
func (g *sweepGrid) point(i int) ([]string, output.Ordered) {
	idx := make([]int, len(g.Grid))
	for a := len(g.Grid) - 1; a >= 0; a-- {
		idx[a] = i % len(g.Grid[a].Values)
		i /= len(g.Grid[a].Values)
	}
	var args []string
	var o output.Ordered
	for a, ax := range g.Grid {
		v := ax.Values[idx[a]]
		s, _ := flagValue(v)
		args = append(args, "--"+ax.Flag+"="+s)
		o.Add(ax.Flag, json.RawMessage(bytes.TrimSpace(v)))
	}
	return args, o
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
	g, err := readGrid(pos[0])
	if err != nil {
		return err
	}
	// The files the command reads are the job's too: a shard of the
	// sweep run on another model is another job.
	files := [][2]string{{"GRID", pos[0]}}
	for i := 2; i < len(g.Command); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(g.Command[i], "-"), "=")
		switch name {
		case "model", "maze", "process", "data":
			if !hasVal && i+1 < len(g.Command) {
				i++
				val = g.Command[i]
			}
			files = append(files, [2]string{"--" + name, val})
		}
	}
	prov, err := provenance("sweep", fs, files...)
	if err != nil {
		return err
	}
	n := g.points()
	merging := shardJob
	switch {
	case merging != nil && merging.merge != nil:
		if merging.merge.Units != n {
			return badInput("%s: the shards hold %d points, %s %d", merging.dirIn, merging.merge.Units, pos[0], n)
		}
		enc := json.NewEncoder(stdout)
		if err := merging.checkMerge(enc, prov); err != nil {
			return err
		}
		if _, err := shard.Merge(merging.dirIn, func(_ int, line []byte) error {
			if _, err := stdout.Write(line); err != nil {
				return err
			}
			_, err := stdout.Write([]byte{'\n'})
			return err
		}); err != nil {
			return badInput("%v", err)
		}
		return enc.Encode(map[string]int{"points": n})
	case sf.given:
		plan, err := sf.plan(os.Getenv)
		if err != nil {
			return err
		}
		plan.args = append([]string{"sweep"}, rest...)
		out, err := plan.start("sweep", prov, n, "point", nil)
		if out == nil || err != nil {
			return err
		}
		for _, i := range out.units {
			line, err := g.run(i)
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
		line, err := g.run(i)
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

// run runs point i of the grid and returns its line.
func (g *sweepGrid) run(i int) (*sweepPoint, error) {
	if err := commandContext().Err(); err != nil {
		return nil, sweepCause()
	}
	flags, o := g.point(i)
	args := append(append(append([]string(nil), g.Command[1:]...), flags...), "--json")
	var buf bytes.Buffer
	var err error
	saved := shardJob
	shardJob = nil
	for _, c := range commands() {
		if c.name == g.Command[0] {
			err = c.run(args, &buf)
		}
	}
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
