package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
)

const (
	btaiPlanSynopsis = "arbor btai plan --model M --obs O0 [--preset scale-free|paper|hp|3mf] [--iterations K] [--cost classic|pcost|feef] " +
		"[--propagation min-backward|backward|forward] [--inference vmp|predictive] [--selection normalized-uct|unexplored-first|uct] " +
		"[--exploration C] [--trial-steps N] [--novelty] [--dot FILE] [--plot FILE.png] [--json]"
)

// btaiPlanNode is one node of `arbor btai plan --json`.
type btaiPlanNode struct {
	Path       []int        `json:"path"`
	Visits     int          `json:"visits"`
	Local      output.Float `json:"local_cost"`
	Aggregated output.Float `json:"aggregated_cost"`
	QS         any          `json:"q_s"` // []output.Float, or keyed by factor name for a factorised model
	QO         any          `json:"q_o"` // []output.Float, or keyed by modality name
}

// btaiPlanJSON is the output of `arbor btai plan --json`.
type btaiPlanJSON struct {
	QS    any            `json:"q_s"`
	Nodes []btaiPlanNode `json:"nodes"`
}

func runBTAIPlan(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("btai plan", flag.ContinueOnError)
	pf := btai.RegisterPlanFlags(fs)
	df := registerBTAIDotFlags(fs)
	model := fs.String("model", "", "POMDP file (JSON with A, B, C, D and optional concentrations a, b, d; required)")
	obsRaw := fs.String("obs", "", "the first observation O0: its index, or one outcome index per modality, comma-separated (required)")
	asJSON := fs.Bool("json", false, "print the posterior and the tree as JSON")
	dotFile := fs.String("dot", "", "write the planning tree (the tree of states; with --dot-factors the factor graph) to this file: SVG, PDF or PNG by its ending, DOT otherwise")
	plotFile := fs.String("plot", "", "draw the tree of states with each node's visits n and average cost into this PNG file (needs Graphviz; --dot-depth and --dot-top apply)")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, btaiPlanSynopsis))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q (the model is given with --model)", pos[0])
	}
	opts, err := pf.Options()
	if err != nil {
		return asInput(err)
	}
	if agent.Given(fs)["window"] {
		return badInput("--window: btai plan plans from one observation, with no past to keep (the flag belongs to btai run and btai replay)")
	}
	if err := checkPlotFile(*plotFile); err != nil {
		return err
	}
	view, err := df.view(*dotFile != "" || *plotFile != "", "--dot FILE or --plot FILE")
	if err != nil {
		return err
	}
	if view.factors && *dotFile == "" {
		return badInput("--dot-factors: needs --dot FILE (--plot draws the tree of states)")
	}
	if err := checkFiles(output.In("--model", *model), output.Out("--dot", *dotFile), output.Out("--plot", *plotFile)); err != nil {
		return err
	}
	m, err := loadPOMDP(*model)
	if err != nil {
		return err
	}
	runtime.GC() // what reading the model left behind, before the tree grows
	if err := asInput(btai.CheckFactorised(m, "--model "+*model, opts.GlobalInference, opts.Novelty)); err != nil {
		return err
	}
	if err := btaiDotFactors(m, *model, view.factors); err != nil {
		return err
	}
	if err := asInput(pf.CheckModel(m)); err != nil {
		return err
	}
	if err := asInput(btai.CheckTree(opts.Iterations, m, true)); err != nil {
		return err
	}
	if err := asInput(btai.CheckMemory(m, opts, "--model "+*model)); err != nil {
		return err
	}
	if err := asInput(pf.CheckPlanTime(m, opts)); err != nil {
		return err
	}
	if !agent.Given(fs)["obs"] {
		return badInput("--obs: missing (want an observation index in [0, %d))", m.NumObs())
	}
	o, err := obsArg(*obsRaw, m, *model)
	if err != nil {
		return err
	}
	obs := &o
	if _, err := pomdp.StatePosterior(nil, m, *obs); err != nil {
		return badInput("--obs %s: observation has probability 0 under D and A of %s", *obsRaw, *model)
	}
	ag, err := btai.NewAgent(m, &opts, nil)
	if err != nil {
		return badInput("%v", err)
	}
	// Fail before planning when a figure cannot be written or would be too
	// large.
	if *dotFile != "" {
		if err := checkOutputFile("--dot", *dotFile, true); err != nil {
			return err
		}
		if err := btaiTreeFigure("--dot", *dotFile, opts.Iterations, m, view); err != nil {
			return err
		}
	}
	if *plotFile != "" {
		if err := checkOutputFile("--plot", *plotFile, true); err != nil {
			return err
		}
		if err := btaiTreeFigure("--plot", *plotFile, opts.Iterations, m, btaiDotView{tree: view.tree}); err != nil {
			return err
		}
	}
	// SIGINT or SIGTERM stops planning, and a figure being written (the
	// renderer is killed, the file left as it was): nothing more is
	// written.
	ctx := commandContext()
	if err := ag.Reset(ctx, *obs); err != nil {
		return err
	}
	qs := append([]float64(nil), ag.Belief()...)
	if err := ag.Plan(ctx); err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return err
	}
	// The action the agent would take now: the one its rule favours most.
	now := ag.Tree().BestAction(opts.ActionSelection)
	if *dotFile != "" {
		if err := btaiWriteDOT(ctx, ag, m, "dot", *dotFile, view, now); err != nil {
			return err
		}
	}
	if *plotFile != "" {
		if err := btaiWriteDOT(ctx, ag, m, "plot", *plotFile, btaiDotView{tree: view.tree}, now); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	tr := ag.Tree()
	out := btaiPlanJSON{QS: output.Belief(m, qs), Nodes: make([]btaiPlanNode, 0, len(tr.Nodes)-1)}
	for i := 1; i < len(tr.Nodes); i++ {
		n := &tr.Nodes[i]
		var qs, qo []float64
		if m.NumFactors() > 1 || m.NumModalities() > 1 {
			// A factorised tree stays compact: its posteriors are recomputed.
			if qs, qo, err = ag.NodePosteriors(i); err != nil {
				return err
			}
		} else if n.S == nil || n.O == nil {
			return fmt.Errorf("the planning tree could not be added to the graph at node %d", i)
		} else {
			qs, qo = n.S.Probs(), n.O.Probs()
		}
		out.Nodes = append(out.Nodes, btaiPlanNode{
			Path: tr.Path(nil, i), Visits: n.Visits, Local: output.Float(n.Local), Aggregated: output.Float(n.Aggregated),
			QS: output.Belief(m, qs), QO: output.Prediction(m, qo),
		})
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(out)
	}
	fmt.Fprintln(stdout, btai.ResolvedSettings(pf.Preset(), opts, false))
	fmt.Fprintf(stdout, "q(s_0 | o_0 = %s) = %s\n", m.ObsName(*obs), btaiVec(qs))
	// One node expanded per iteration: fewer than --iterations when
	// --trial-steps completed the tree first.
	done := 0
	for i := range tr.Nodes {
		if !tr.Nodes[i].Leaf() {
			done++
		}
	}
	fmt.Fprintf(stdout, "planned %d iterations (%s cost, %s propagation, %s inference): %d nodes\n",
		done, opts.Cost, opts.Propagation, opts.Inference, len(out.Nodes))
	fmt.Fprintf(stdout, "  %-8s %7s %10s %10s\n", "action", "visits", "local", "average")
	for u := range m.NumActions() {
		n := &tr.Nodes[tr.Child(0, u)]
		fmt.Fprintf(stdout, "  %-8s %7d %10.4f %10.4f\n", m.ActionName(u), n.Visits, n.Local, n.Average())
	}
	return nil
}

func btaiVec(x []float64) string {
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = strconv.FormatFloat(v, 'f', 4, 64)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// btaiDotFlags are the figure flags of btai plan and btai run: what --dot
// (and --plot of btai plan) draws of the planning tree.
type btaiDotFlags struct {
	fs         *flag.FlagSet
	factors    *bool
	depth, top *int
}

func registerBTAIDotFlags(fs *flag.FlagSet) *btaiDotFlags {
	return &btaiDotFlags{
		fs:      fs,
		factors: fs.Bool("dot-factors", false, "with --dot: draw the full factor graph of the model and the tree (S_I, O_I and their factors) instead of the tree of states"),
		depth:   fs.Int("dot-depth", 0, "with --dot: draw the tree down to this depth (>= 1; default: with --dot-top, all; without, the view that fits a 16 x 10 in page, named in the figure's note)"),
		top:     fs.Int("dot-top", 0, "with --dot: draw the K most visited children of each node (>= 1; default: with --dot-depth, all; without, the view that fits a 16 x 10 in page)"),
	}
}

// view checks the --dot-* flags and returns the tree view they ask for.
// figure says whether a figure is asked for; need names the flags that ask
// for one.
func (b *btaiDotFlags) view(figure bool, need string) (btaiDotView, error) {
	v := btaiDotView{factors: *b.factors, tree: btai.TreeDOTOptions{Depth: *b.depth, Top: *b.top, Note: treeNote}}
	given := agent.Given(b.fs)
	for _, f := range []struct {
		name string
		val  int
	}{{"dot-depth", *b.depth}, {"dot-top", *b.top}} {
		if given[f.name] && f.val < 1 {
			return v, badInput("--%s: %d, want >= 1", f.name, f.val)
		}
		if given[f.name] && !figure {
			return v, badInput("--%s: needs %s", f.name, need)
		}
	}
	if *b.factors && !figure {
		return v, badInput("--dot-factors: needs --dot FILE")
	}
	if *b.factors && (given["dot-depth"] || given["dot-top"]) {
		return v, badInput("--dot-depth and --dot-top apply to the tree view, not to --dot-factors")
	}
	return v, nil
}

// btaiDotView is what --dot draws.
type btaiDotView struct {
	factors bool
	tree    btai.TreeDOTOptions
}

// btaiTreeFigure checks, before planning, the size of the figure of a
// planning tree of the given iterations drawn with view v into path (the
// value of flag flagName): the tree of states has 1 + iterations·|U| nodes
// (every iteration expands all the actions of a leaf), its factor graph
// (--dot-factors) about four times as many nodes and edges. A depth limit
// of at least the iterations (no node is deeper) draws the whole tree, and
// is checked here; the default view draws what fits a page
// (btai.TreeDOTOptions) and a smaller depth limit or a top-K draws fewer,
// counted when drawing (btaiWriteDOT).
func btaiTreeFigure(flagName, path string, iterations int, m *pomdp.Model, v btaiDotView) error {
	nodes := 1 + iterations*m.NumActions()
	switch {
	case v.factors:
		return checkFigureSize(flagName, path, figureSize{nodes: 2 * nodes, edges: 2 * nodes}, true, btaiFactorsRemedy(path))
	case v.tree.Top == 0 && v.tree.Depth >= iterations:
		return checkFigureSize(flagName, path, figureSize{nodes: nodes, edges: nodes - 1}, true, btaiTreeRemedy(path))
	}
	return nil
}

// treeNote is the note of a planning-tree figure (btai.TreeDOTOptions.Note):
// the number of nodes left out and the flags of the view drawn.
func treeNote(left, depth, top int) string {
	view := fmt.Sprintf("--dot-depth %d", depth)
	if top > 0 {
		view += fmt.Sprintf(", --dot-top %d", top)
	}
	return fmt.Sprintf("%d more nodes not drawn (%s)", left, view)
}

// btaiTreeRemedy says how to draw less of a tree too large for path.
func btaiTreeRemedy(path string) string {
	r := "draw less of it with --dot-depth D or --dot-top K"
	if figureFormat(path) != "" {
		r += ", or write the DOT text with --dot FILE.dot"
	}
	return r
}

// btaiFactorsRemedy says what to draw instead of a factor graph of the
// tree too large for path.
func btaiFactorsRemedy(path string) string {
	r := "draw the tree of states instead (without --dot-factors), or lower --iterations"
	if figureFormat(path) != "" {
		r += ", or write the DOT text with --dot FILE.dot"
	}
	return r
}

// btaiWriteDOT writes the planning figure to path: the tree of states
// (btai.Tree.WriteDOT) or, with --dot-factors, the agent's graph with the
// planning tree labelled (visits n and average cost g per node); SVG, PDF
// or PNG by the file's ending (writeFigure), DOT otherwise. The root's
// child of action now is drawn bold (-1: none). A figure over the limits
// (checkFigureSize) is refused before it is built.
func btaiWriteDOT(ctx context.Context, ag *btai.Agent, m *pomdp.Model, flagName, path string, v btaiDotView, now int) error {
	flagName = "--" + flagName
	var b bytes.Buffer
	if v.factors {
		ag.LabelTree(m.ActionName)
		g := ag.Graph()
		if err := checkFigureSize(flagName, path, graphSize(g), true, btaiFactorsRemedy(path)); err != nil {
			return err
		}
		if err := g.WriteDOT(&b); err != nil {
			return fmt.Errorf("%s %s: %w", flagName, path, err)
		}
	} else {
		tr := ag.Tree()
		n := tr.DOTNodes(&v.tree)
		if err := checkFigureSize(flagName, path, figureSize{nodes: n, edges: n - 1}, true, btaiTreeRemedy(path)); err != nil {
			return err
		}
		if err := tr.WriteDOT(&b, m, now, &v.tree); err != nil {
			return fmt.Errorf("%s %s: %w", flagName, path, err)
		}
	}
	return writeFigure(ctx, flagName, path, b.Bytes())
}

// btaiDotFactors refuses --dot-factors on a model with several factors or
// modalities (read from file): the factor graph of the planning tree is
// drawn for one factor and one modality only.
func btaiDotFactors(m *pomdp.Model, file string, dotFactors bool) error {
	if !dotFactors || m.NumFactors() == 1 && m.NumModalities() == 1 {
		return nil
	}
	return badInput("--dot-factors: --model %s has %d hidden-state factors and %d modalities; the factor graph of the planning tree is drawn for one factor and one modality only (the tree view of --dot works)",
		file, m.NumFactors(), m.NumModalities())
}

// btaiView shows Branching Time Active Inference: the settings line, the
// planning iterations, the path through a maze, the planning tree of the
// first step (--dot).
var btaiView = &runView{
	cost:    "average cost",
	dotHelp: "write the planning tree of the first step (the tree of states; with --dot-factors the factor graph) to this file: SVG, PDF or PNG by its ending, DOT otherwise",
	path:    true,
	flags: func(fs *flag.FlagSet) viewSetup {
		df := registerBTAIDotFlags(fs)
		return func(r *agentRun, opts agent.Options, dotFile string) (func(context.Context, agent.Agent, *agent.Decision) error, error) {
			view, err := df.view(dotFile != "", "--dot FILE")
			if err != nil {
				return nil, err
			}
			if r.mz == nil {
				if err := btaiDotFactors(r.m, flagText(r.fs, "model"), view.factors); err != nil {
					return nil, err
				}
			}
			if dotFile == "" {
				return nil, nil
			}
			// Only the first planning step's tree is materialized for
			// --dot, but it is as big as any.
			vf := opts.(*btai.VerbFlags)
			vf.SetMaterialized(true)
			o, err := vf.Options()
			if err != nil {
				return nil, asInput(err)
			}
			if err := btaiTreeFigure("--dot", dotFile, o.Iterations, r.m, view); err != nil {
				return nil, err
			}
			return func(ctx context.Context, ag agent.Agent, d *agent.Decision) error {
				return btaiWriteDOT(ctx, ag.(*btai.Agent), r.m, "dot", dotFile, view, d.Action)
			}, nil
		}
	},
	episode: func(r *agentRun, status string, ep *agent.Episode, rec *runRecord) string {
		if status != "ran" {
			status += " in"
		}
		return fmt.Sprintf("%s %d steps (%d planning iterations)", status, ep.NumActions(), rec.PlanIterations)
	},
	extra: func(r *agentRun, rec *runRecord, ep *agent.Episode) {
		for _, st := range ep.Steps {
			if st.Decision != nil {
				rec.PlanIterations += st.Decision.Work
			}
		}
	},
	summary: func(r *agentRun, s *runSummary) any {
		sum := btaiSummaryJSON{Episodes: s.Episodes, Settings: r.settings}
		if r.runs.Agents > 1 {
			sum.Agents = r.runs.Agents
		}
		var mean *float64
		if r.mz != nil {
			sum.Solved = &s.Solved
			sum.MeanSteps = json.RawMessage("null")
			if s.Solved > 0 {
				m := float64(s.StepsSolved) / float64(s.Solved)
				mean = &m
				sum.MeanSteps, _ = json.Marshal(m)
			}
		}
		sum.PlanningIterations, sum.PlanningSeconds = s.Work, s.PlanningSeconds
		sum.Rate, sum.SecondsPerTrial = r.worldScore(s)
		rate := 0.0
		if s.PlanningSeconds > 0 {
			rate = float64(sum.PlanningIterations) / s.PlanningSeconds
		}
		if r.asJSON {
			return sum
		}
		var text string
		if r.mz != nil {
			text = fmt.Sprintf("%d/%d episodes solved", s.Solved, s.Episodes)
			if mean != nil {
				text += fmt.Sprintf(", mean steps %.1f", *mean)
			}
		} else {
			text = fmt.Sprintf("%d episodes", s.Episodes)
		}
		if sum.Rate != nil {
			text += fmt.Sprintf(", rate %.4f, %.4f s per trial", *sum.Rate, *sum.SecondsPerTrial)
		}
		// The only line that varies between runs with the same seed.
		return stringer(text + fmt.Sprintf("; %.0f planning iterations per second", rate))
	},
}

// btaiSummaryJSON is the last line of `arbor btai run --json`. For a maze,
// Solved counts the episodes that reached the exit and MeanSteps is the
// mean number of steps of those, null if none did; a --model run has no
// goal and reports neither.
type btaiSummaryJSON struct {
	Agents             int             `json:"agents,omitempty"` // with --agents
	Episodes           int             `json:"episodes"`
	Solved             *int            `json:"solved,omitempty"`
	MeanSteps          json.RawMessage `json:"mean_steps,omitempty"` // a number or null (maze), absent (model)
	PlanningIterations int             `json:"planning_iterations"`  // over every episode
	PlanningSeconds    float64         `json:"planning_seconds"`     // over every episode
	Rate               *float64        `json:"rate,omitempty"`       // --env: the rate of the task solved
	SecondsPerTrial    *float64        `json:"seconds_per_trial,omitempty"`
	Settings           any             `json:"settings"`
}
