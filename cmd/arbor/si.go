package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

const (
	siPlanSynopsis = "arbor si plan --model M --obs O0 --depth D [--gamma 1] [--branch joint|marginal] [--prune-actions x] [--prune-relative] " +
		"[--prune-outcomes p] [--max-branches K] [--max-nodes N] [--max-minutes m] [--novelty] [--dot FILE [--dot-depth K]] [--json]"
	siRunSynopsis = "arbor si run --maze FILE | --model M [--process W] --depth D [search flags] [--steps 50] [--episodes 1] [--agents 1] [--seed 1] [--jobs N] " +
		"[--select argmax|sample] [--action-precision α] [--eta η] [--omega ω] [--progress] [--dot FILE] [--plot FILE.svg|.pdf|.png [--plot-dpi N] [--plot-episode N|all]] [--json | --csv]"
	siReplaySynopsis = "arbor si replay --model M --data D.csv --depth D [search flags] [--action-precision α] [--eta η] [--omega ω] [--beliefs] [--subjects FILE] [--seed 1] [--jobs 1] [--json | --csv]"
)

// siPlanJSON is the output of arbor si plan --json.
type siPlanJSON struct {
	QS          any            `json:"q_s"`
	G           []output.Float `json:"G"`
	ActionProbs []output.Float `json:"action_probs"`
	Depth       int            `json:"depth"`
	Nodes       int            `json:"nodes"`
	Truncated   bool           `json:"truncated"`
}

func runSIPlan(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("si plan", flag.ContinueOnError)
	sf := si.RegisterSearchFlags(fs)
	model := fs.String("model", "", "POMDP file (docs/formats.md; required)")
	obsRaw := fs.String("obs", "", "the first observation O0: its index, or one outcome index per modality, comma-separated (0,2) (required)")
	dotFile := fs.String("dot", "", "draw the search tree (beliefs as ellipses, actions as boxes with G and Q(u)) into this file: SVG, PDF or PNG by its ending, DOT otherwise")
	dotDepth := fs.Int("dot-depth", 0, fmt.Sprintf("with --dot: draw this many steps (>= 1; default the most that keep the figure within %d nodes)", si.DOTPageNodes))
	asJSON := fs.Bool("json", false, "print G, the action distribution and the node count as JSON")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, siPlanSynopsis))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q (the model is given with --model)", pos[0])
	}
	given := agent.Given(fs)
	opts, err := sf.Options()
	if err != nil {
		return asInput(err)
	}
	switch {
	case given["dot-depth"] && *dotFile == "":
		return badInput("--dot-depth: needs --dot FILE")
	case given["dot-depth"] && *dotDepth < 1:
		return badInput("--dot-depth: %d, want >= 1", *dotDepth)
	}
	if err := checkFiles(output.In("--model", *model), output.Out("--dot", *dotFile)); err != nil {
		return err
	}
	m, err := loadPOMDP(*model)
	if err != nil {
		return err
	}
	if !given["obs"] {
		return badInput("--obs: missing (want an observation index in [0, %d), from --model %s)", m.NumObs(), *model)
	}
	obs, err := obsArg(*obsRaw, m, *model)
	if err != nil {
		return err
	}
	// The agent's view: with concentrations a, b, d the planner uses their
	// expectations (as aci eval).
	if m, err = m.AgentView(); err != nil {
		return badInput("--model %s: %v", *model, err)
	}
	if err := sf.Check(m, opts, "--model "+*model); err != nil {
		return asInput(err)
	}
	qs, err := pomdp.StatePosterior(nil, m, obs)
	if err != nil {
		return badInput("--obs %s: %s (--model %s)", *obsRaw, strings.TrimPrefix(output.Reason(err), fmt.Sprintf("observation %d: ", obs)), *model)
	}
	if *dotFile != "" {
		// Fail before the search when the figure cannot be written.
		if err := checkOutputFile("--dot", *dotFile, true); err != nil {
			return err
		}
	}
	// SIGINT or SIGTERM stops the search (exit 130 or 143), and a figure
	// being rendered (the renderer is killed, the file left as it was).
	ctx := commandContext()
	planner, err := si.NewPlanner(m, opts)
	if err != nil {
		return asInput(si.FlagError(err, "--model "+*model))
	}
	res, err := planner.Plan(ctx, qs)
	if err != nil {
		return err
	}
	best := 0
	for u, p := range res.ActionProbs {
		if p > res.ActionProbs[best] {
			best = u
		}
	}
	if *dotFile != "" {
		tr, err := planner.Tree()
		if err != nil {
			return err
		}
		if err := siWriteDOT(ctx, tr, *dotFile, *dotDepth, best); err != nil {
			return err
		}
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(siPlanJSON{
			QS: output.Belief(m, qs), G: output.Floats(res.G), ActionProbs: output.Floats(res.ActionProbs),
			Depth: res.Depth, Nodes: res.Nodes, Truncated: res.Truncated,
		})
	}
	fmt.Fprintf(stdout, "observation O0 = %s: posterior over the current state\n", m.ObsName(obs))
	for s, p := range qs {
		if p >= 0.0005 {
			fmt.Fprintf(stdout, "  %-12s %.4f\n", m.StateName(s), p)
		}
	}
	fmt.Fprintf(stdout, "sophisticated inference: depth %d, gamma %g, %s outcomes, %s: %d nodes\n", res.Depth, opts.Gamma, opts.Branch, siPruneText(opts), res.Nodes)
	if res.Truncated {
		fmt.Fprintf(stdout, "  node budget --max-nodes %d spent: searched %d of %d steps deep\n", opts.MaxNodes, res.Depth, opts.Depth)
	}
	fmt.Fprintf(stdout, "  %-12s %-10s %-10s %s\n", "action", "G", "Q(u)", "one-step G")
	for u := range res.G {
		g := fmt.Sprintf("%.5g", res.G[u])
		if !res.Expanded[u] {
			g = "pruned"
		}
		mark := ""
		if u == best {
			mark = "  <- most probable"
		}
		fmt.Fprintf(stdout, "  %-12s %-10s %-10.4f %.5g%s\n", m.ActionName(u), g, res.ActionProbs[u], res.Local[u], mark)
	}
	return nil
}

// siPruneText describes the pruning of opts.
func siPruneText(o *si.Options) string {
	var parts []string
	if o.PruneActions > 0 {
		rule := "absolute"
		if o.PruneRelative {
			rule = "relative"
		}
		parts = append(parts, fmt.Sprintf("actions below %g (%s)", o.PruneActions, rule))
	}
	if o.PruneOutcomes > 0 {
		parts = append(parts, fmt.Sprintf("outcomes below %g", o.PruneOutcomes))
	}
	if len(parts) == 0 {
		return "no pruning"
	}
	return "pruning " + strings.Join(parts, ", ")
}
