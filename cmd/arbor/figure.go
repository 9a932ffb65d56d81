package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/model"
	"github.com/arbor-ai/arbor/pomdp"
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
// DOT text otherwise. Graphviz's warnings are written to standard error,
// a line each, naming the flag and the file. The file is complete or absent: it is written to a
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
	} else if warnings, err := output.RenderWarnings(ctx, dotText, format, f, limit); err != nil {
		switch {
		case errors.Is(err, output.ErrNoGraphviz):
			return noGraphviz(flagName, path, format)
		case errors.Is(err, context.Canceled):
			return err
		}
		return fmt.Errorf("%s %s: %w", flagName, path, err)
	} else if warnings != "" {
		// Graphviz's warnings ("graph is too large for cairo-renderer
		// bitmaps. Scaling by 0.5 to fit"), one line each, naming the file.
		for _, w := range strings.Split(warnings, "\n") {
			if w = strings.TrimSpace(w); w != "" {
				fmt.Fprintf(stderrOut, "arbor: %s %s: Graphviz: %s\n", flagName, path, output.Shorten(w, 200))
			}
		}
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

// dotSynopsis is arbor dot's usage line.
const dotSynopsis = "arbor dot MODEL.json [--unroll plates|K|all] [--data FILE.jsonl [--line N]] [--edge-labels] [--plot FILE.svg|.pdf|.png [--plot-dpi 200] | -o FILE.dot] [--json]"

// runDot draws a model file's factor graph, or a POMDP file's generative
// model (pomdp.Model.FigureGraph).
func runDot(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("dot", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, `print {"dot": "..."} instead of the bare DOT text`)
	edgeLabels := fs.Bool("edge-labels", false, "write each edge's interface name (out, in, matrix, ...) at the factor's end")
	outFile := fs.String("o", "", "write to this file instead of standard output: SVG, PDF or PNG (rendered by Graphviz) when the name ends in .svg, .pdf or .png, DOT otherwise")
	plotFile := fs.String("plot", "", "render the figure with Graphviz to this file: SVG, PDF or PNG by its ending (as the run commands' --plot)")
	dpi := fs.Int("plot-dpi", 200, "resolution of a .png figure (--plot or -o), in pixels per inch (30..1200)")
	unroll := fs.String("unroll", "plates", "how repeated slices (the steps of a chain, i.i.d. observations), found from the graph's structure, are drawn: plates (once, inside a box with its range), K (the first K, an ellipsis and the last; for a POMDP file, K time steps) or all (every node)")
	dataFile := fs.String("data", "", "draw the model as if the values of one data set of this file (one JSON object per line, as arbor infer --data) were observed")
	line := fs.Int("line", 0, "the data set of --data to draw, counted from 1 (blank lines are not counted; default 1)")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, dotSynopsis))
		return err
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return badInput("want one MODEL file, got %d arguments (usage: %s)", len(pos), dotSynopsis)
	}
	opts := ffg.DOTOptions{EdgeLabels: *edgeLabels, Fold: ffg.FoldPlates}
	switch *unroll {
	case "plates":
	case "all":
		opts.Fold = ffg.FoldNone
	default:
		k, err := strconv.Atoi(*unroll)
		if err != nil || k < 1 {
			return badInput("--unroll %s: want plates, all or a number of slices >= 1", shortArg(*unroll))
		}
		opts.Fold, opts.Unroll = ffg.FoldUnroll, k
	}
	if *line != 0 && *dataFile == "" {
		return badInput("--line %d: applies with --data (the data set to draw)", *line)
	}
	if *line < 0 || (*line == 0 && agent.Given(fs)["line"]) {
		return badInput("--line %d: want a line number >= 1", *line)
	}
	outFlag := "-o"
	if *plotFile != "" {
		if *outFile != "" || figureFormat(*plotFile) == "" {
			return badInput("--plot %s: want one figure file ending in .svg, .pdf or .png, and no -o (-o writes the DOT text)", shortArg(*plotFile))
		}
		outFlag, *outFile = "--plot", *plotFile
	}
	switch {
	case *outFile != "" && *asJSON:
		return badInput("--json and %s: give one (--json prints the DOT text as JSON on standard output)", outFlag)
	case agent.Given(fs)["plot-dpi"] && figureFormat(*outFile) != "png":
		return badInput("--plot-dpi: applies to a .png figure only")
	case *dpi < 30 || *dpi > 1200:
		return badInput("--plot-dpi: %d, want 30..1200", *dpi)
	}
	if *outFile != "" {
		if err := checkOutputFile(outFlag, *outFile, true); err != nil {
			return err
		}
	}
	file := pos[0]
	data, err := readFile(file, file)
	if err != nil {
		return err
	}
	g, err := dotGraph(file, data, *dataFile, max(*line, 1), &opts)
	if err != nil {
		return err
	}
	if *outFile != "" {
		var b bytes.Buffer
		if err := g.WriteDOTWith(&b, opts); err != nil {
			return err
		}
		text := b.Bytes()
		if figureFormat(*outFile) != "" {
			if err := checkFigureSize(outFlag, *outFile, dotTextSize(text), false,
				"draw it folded (--unroll plates or a small --unroll K), or write the DOT text instead (-o FILE.dot, or no -o) and draw a part of it"); err != nil {
				return err
			}
		}
		if figureFormat(*outFile) == "png" { // Graphviz draws 96 pixels per inch unless told
			text = bytes.Replace(text, []byte("{\n"), fmt.Appendf(nil, "{\n\tdpi=\"%d\";\n", *dpi), 1)
		}
		return writeFigure(commandContext(), outFlag, *outFile, text)
	}
	if *asJSON {
		var b jsonBuffer
		if err := g.WriteDOTWith(&b, opts); err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(map[string]string{"dot": b.String()})
	}
	return g.WriteDOTWith(stdout, opts)
}

// dotTextSize counts the nodes and edges of DOT text written by
// ffg.WriteDOTWith (one statement a line).
func dotTextSize(text []byte) figureSize {
	var s figureSize
	for _, l := range strings.Split(string(text), "\n") {
		switch t := strings.TrimSpace(l); {
		case strings.Contains(t, "->"):
			s.edges++
		case strings.HasPrefix(t, "n") && strings.Contains(t, "[") && strings.Contains(t, "label="):
			s.nodes++
		}
	}
	return s
}

// dotGraph builds the graph arbor dot draws from a file's text: a model
// file's factor graph (with the values of data set line of dataFile
// observed, when given), or a POMDP file's generative model
// (pomdp.Model.FigureGraph). A file of neither kind is bad input saying
// which kinds arbor dot takes.
func dotGraph(file string, data []byte, dataFile string, line int, opts *ffg.DOTOptions) (*ffg.Graph, error) {
	kind := fileKind(data)
	if kind == "pomdp" {
		if dataFile != "" {
			return nil, badInput("--data %s: applies to a model file (variables and factors); %s is a POMDP file", dataFile, file)
		}
		m, err := pomdp.Parse(data)
		if err != nil {
			return nil, badInput("%s: a POMDP file: %v", file, err)
		}
		// Drawn compact; with --unroll K, K transitions in full, otherwise
		// pomdp.FigureSteps, folded into a plate "t = 1 … T" (or drawn in
		// full with --unroll all).
		steps := pomdp.FigureSteps
		opts.Compact = true
		switch opts.Fold {
		case ffg.FoldUnroll:
			steps, opts.Fold = opts.Unroll, ffg.FoldNone
			if steps > 50 {
				return nil, badInput("--unroll %d: a POMDP file is drawn over at most 50 time steps", steps)
			}
		case ffg.FoldPlates:
			opts.OpenRange = true
		}
		return m.FigureGraph(steps)
	}
	m, err := model.Parse(file, data)
	if err != nil {
		if kind == "" {
			return nil, badInput("%v (arbor dot draws a model file, with variables and factors, or a POMDP file, with A, B, C, D or factors and modalities: docs/formats.md)", err)
		}
		return nil, err
	}
	if dataFile != "" {
		if err := observeLine(m, dataFile, line); err != nil {
			return nil, err
		}
	}
	opts.Plates = m.DOTPlates()
	return m.Graph, nil
}

// fileKind tells a model file ("model": it has variables) from a POMDP
// file ("pomdp": it has modalities, or A, B or D or their
// concentrations, and no variables); "" for neither.
func fileKind(data []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return ""
	}
	if _, ok := top["variables"]; ok {
		return "model"
	}
	for _, k := range []string{"modalities", "A", "B", "D", "a", "b", "d"} {
		if _, ok := top[k]; ok {
			return "pomdp"
		}
	}
	return ""
}

// observeLine observes in m's graph the values of the line-th data set
// (blank lines not counted) of file, checked as arbor infer --data checks
// them. No inference runs.
func observeLine(m *model.Model, file string, line int) error {
	limit, err := maxInput()
	if err != nil {
		return err
	}
	f, err := openInput(file)
	if err != nil {
		return badInput("--data %s: cannot read: %v", file, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, limit+1))
	sc.Buffer(make([]byte, 0, 64<<10), int(min(limit, 1<<30))+1)
	lineNo, sets := 0, 0
	for sc.Scan() {
		lineNo++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if sets++; sets < line {
			continue
		}
		where := fmt.Sprintf("%s:%d", file, lineNo)
		d, err := model.ParseData(where, sc.Bytes())
		if err != nil {
			return err
		}
		if err := m.CheckData(where, d); err != nil {
			return err
		}
		for name, ev := range d {
			v, ok := m.Graph.Variable(name)
			if !ok {
				// CheckData passed it: an array variable named whole.
				return badInput("--data %s: %q: an array variable; arbor dot takes its elements one by one (\"%s[0]\": ...)", where, name, name)
			}
			switch {
			case v.Family() == expfam.NormalFamily:
				err = v.ObserveValue(*ev.Value)
			case ev.Probs != nil:
				err = v.ObserveSoft(ev.Probs)
			default:
				err = v.Observe(ev.Index)
			}
			if err != nil {
				return badInput("--data %s: %q: %v", where, name, err)
			}
		}
		return nil
	}
	if err := sc.Err(); err != nil {
		return badInput("--data %s: cannot read: %v", file, err)
	}
	return badInput("--line %d: --data %s has %d data sets", line, file, sets)
}
