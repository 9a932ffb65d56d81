package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/output"
)

// The figures arbor writes (arbor dot -o, --dot and --plot of aci run,
// btai run and btai plan) are bounded before any of them is built, by
// their nodes plus edges, counted on the model, the graph or the planning
// tree:
//
//   - rendered by Graphviz (a name ending in .svg, .pdf or .png), a model's
//     factor graph at most maxRenderGraph, a planning tree (the tree of
//     states or, with --dot-factors, its factor graph) at most
//     maxRenderTree, so that dot finishes within about a minute and 1 GB;
//   - as DOT text (any other name), at most maxDOTText, so that arbor does
//     not build a string of hundreds of megabytes. arbor dot's own DOT text
//     is not bounded by it: it is that of the model file read, which the
//     input limit bounds (ARBOR_MAX_INPUT).
//
// Measured with Graphviz 2.43 on a 2-core machine shared with other jobs
// (time and peak RSS of dot; a PNG is drawn at most output.PNGInches
// across); on the same machine idle, the figures at the limits took 4.1 s
// (SVG) and 4.6 s (PNG, 56 MB) for the 88-step HMM, 5.5 s and 6.3 s (39
// MB) for the 1,000-iteration tree:
//
//   - factor graphs of HMMs with B learned (a shared Dirichlet parameter,
//     the slowest shape arbor draws): 60 steps, 541 nodes and edges, 2.9 s
//     SVG and 4.8 s PNG; 75 steps (676) 5.2 s and 6.9 s, 64 MB; 88 steps
//     (793) 9.3 s SVG, 10.7 s PNG, 8.6 s PDF, 77 MB; 99 steps (892) 17 s;
//     110 steps (991) 36 s and 760 MB as a PNG drawn unbounded; 175 steps
//     (1,576) 44 s SVG; 200 steps (1,801) 65 s; 400 steps over 2 minutes
//     and 530 MB; 800 steps over 2 minutes and 2 GB.
//   - trees of states (btai plan on a 2-action model): 250 iterations
//     (1,001 nodes and edges) 0.3 s; 1,000 iterations (4,001) 5.1 s SVG,
//     5.6 s PDF, 9.7 to 19 s PNG, 190 MB; 1,500 iterations (6,001) 35 s;
//     2,500 iterations (10,001) 40 to 52 s. Their factor graphs
//     (--dot-factors): 300 iterations (4,808) 4.0 s SVG; 250 iterations
//     (4,008) 2.1 s PNG and 65 MB (36 s and 1.3 GB unbounded).
//
// So 800 for a factor graph (about 10 s) and 4,000 for a tree (5 to 20 s)
// leave room for a slower machine before the renderer's time limit
// (output.DefaultRenderSeconds), which stops whatever is left.
const (
	maxRenderGraph = 800
	maxRenderTree  = 4_000
	// maxDOTText bounds the DOT text written to a file: a planning tree
	// takes about 88 bytes per node and edge, a factor graph about 47, so
	// at most 44 MB.
	maxDOTText = 500_000
)

// figureFormat returns the format Graphviz renders path in (svg, pdf or
// png, by its ending), or "" for DOT text.
func figureFormat(path string) string {
	switch f := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), "."); f {
	case "svg", "pdf", "png":
		return f
	}
	return ""
}

// checkOutputFile refuses, before any work, an output file that cannot be
// created (bad input naming the flag: "--dot x/y.svg: cannot create: no
// such file or directory") and a figure to render without Graphviz
// installed. Nothing is created or changed.
func checkOutputFile(flagName, path string, figure bool) error {
	if err := output.CheckCreatable(path); err != nil {
		return cannotCreate(flagName, path, err)
	}
	if format := figureFormat(path); figure && format != "" {
		if _, err := exec.LookPath("dot"); err != nil {
			return noGraphviz(flagName, path, format)
		}
	}
	return nil
}

// cannotCreate is the bad input of an output file that cannot be created.
func cannotCreate(flagName, path string, err error) error {
	why := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		why = pe.Err.Error() // the path is already in the message
	}
	return badInput("%s %s: cannot create: %s", flagName, path, why)
}

func noGraphviz(flagName, path, format string) error {
	return fmt.Errorf("%s %s: rendering %s needs Graphviz's dot, which is not installed (install Graphviz, e.g. apt-get install graphviz, or write a .dot file)",
		flagName, path, strings.ToUpper(format))
}

// figureSize is the size of a figure: its nodes and edges.
type figureSize struct{ nodes, edges int }

// graphSize counts the nodes (variables and factors) and edges of a
// factor graph as WriteDOT draws it.
func graphSize(g *ffg.Graph) figureSize {
	s := figureSize{nodes: len(g.Variables()) + len(g.Factors())}
	for _, f := range g.Factors() {
		s.edges += len(f.Variables())
	}
	return s
}

// checkFigureSize refuses a figure larger than the limits (maxRenderGraph
// or maxRenderTree to render, by tree, maxDOTText as text): bad input
// naming the flag and the file, the size, the limit and remedy, what to do
// instead.
func checkFigureSize(flagName, path string, s figureSize, tree bool, remedy string) error {
	n := s.nodes + s.edges
	if figureFormat(path) == "" {
		if n > maxDOTText {
			return badInput("%s %s: the figure would have %d nodes and %d edges, more than arbor writes as DOT text (%d nodes and edges in all); %s",
				flagName, path, s.nodes, s.edges, maxDOTText, remedy)
		}
		return nil
	}
	limit, what := maxRenderGraph, "a factor graph"
	if tree {
		limit, what = maxRenderTree, "a planning tree"
	}
	if n > limit {
		return badInput("%s %s: the figure would have %d nodes and %d edges, more than Graphviz lays out within about a minute (%d nodes and edges in all for %s); %s",
			flagName, path, s.nodes, s.edges, limit, what, remedy)
	}
	return nil
}

// writeFigure writes DOT text to path, the value of flag flagName:
// rendered by Graphviz's dot when the name ends in .svg, .pdf or .png, as
// DOT text otherwise. The file is complete or absent: it is written to a
// temporary file that replaces path only when complete (output.File), and
// a rendering interrupted by ctx (the renderer is killed) or over its time
// limit leaves path as it was.
func writeFigure(ctx context.Context, flagName, path string, dotText []byte) error {
	format := figureFormat(path)
	var limit time.Duration
	if format != "" {
		l, err := output.RenderTimeLimit()
		if err != nil {
			return badInput("%v", err)
		}
		limit = l
	}
	f, err := output.CreateFile(path)
	if err != nil {
		return cannotCreate(flagName, path, err)
	}
	defer f.Abort()
	if format == "" {
		if _, err := f.Write(dotText); err != nil {
			return fmt.Errorf("%s %s: %w", flagName, path, err)
		}
	} else if err := output.Render(ctx, dotText, format, f, limit); err != nil {
		switch {
		case errors.Is(err, output.ErrNoGraphviz):
			return noGraphviz(flagName, path, format)
		case errors.Is(err, context.Canceled):
			return err
		}
		return fmt.Errorf("%s %s: %w", flagName, path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("%s %s: %w", flagName, path, err)
	}
	return nil
}

// untilDone returns f's result, or ctx's cause as soon as ctx is done (an
// interrupt): f runs on a goroutine, which is left to finish (the process
// exits after an interrupt). It is for work that does not watch a context
// itself.
func untilDone[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, context.Cause(ctx)
	}
}
