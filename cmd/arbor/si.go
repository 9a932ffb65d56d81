package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

const siPlanSynopsis = "arbor si plan --model M --obs O0 --depth D [--gamma 1] [--branch joint|marginal] [--prune-actions x] [--prune-relative] " +
	"[--prune-outcomes p] [--max-branches K] [--max-nodes N] [--max-minutes m] [--json]"

// runSI is the command "arbor si": sophisticated inference (docs/si.md).
func runSI(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return badInput("want a subcommand: plan (e.g. arbor si plan --model M --obs 0 --depth 3)")
	}
	switch args[0] {
	case "plan":
		return inSubcommand("plan", runSIPlan(args[1:], stdout))
	case "-h", "--help", "help":
		fmt.Fprintf(stdout, "usage:\n  %s\n'arbor si plan -h' lists every flag\n", siPlanSynopsis)
		return nil
	}
	return badInput("unknown subcommand %q (want plan)", args[0])
}

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
	model := fs.String("model", "", "POMDP file (docs/formats.md; required)")
	obsRaw := fs.String("obs", "", "the first observation O0: its index, or one outcome index per modality, comma-separated (0,2) (required)")
	depth := fs.Int("depth", 0, fmt.Sprintf("future steps searched (1..%d; required)", si.MaxDepth))
	gamma := fs.Float64("gamma", si.DefaultGamma, "precision of Q(u | o) = σ(−γ G) at every node (finite > 0)")
	branch := fs.String("branch", si.Joint.String(), "outcome branching: joint (the joint outcomes of all modalities, exact) or marginal (the product of the modalities' marginals, as pymdp)")
	pruneActions := fs.Float64("prune-actions", 0, "do not expand an action whose one-step probability at its node is below x (pymdp's rule), in [0, 1)")
	pruneRelative := fs.Bool("prune-relative", false, "with --prune-actions: below x times the most probable action's (SPM's rule)")
	pruneOutcomes := fs.Float64("prune-outcomes", 0, "skip outcomes of probability below p and renormalise the kept ones, p in [0, 1)")
	maxBranches := fs.Int("max-branches", si.DefaultMaxBranches, "keep at most this many outcomes after an action, the most probable (>= 1)")
	maxNodes := fs.Int("max-nodes", si.DefaultMaxNodes, "score at most this many beliefs; past it the search returns the deepest depth it completed and says so")
	maxMin := fs.Float64("max-minutes", 10, "refuse when the search is estimated to take longer than this many minutes (the estimate is printed with the refusal)")
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
	given := aciFlagsGiven(fs)
	if !given["depth"] {
		return badInput("--depth: missing (want the number of future steps, 1..%d)", si.MaxDepth)
	}
	b, err := si.ParseBranching(*branch)
	if err != nil {
		return badInput("--branch: %v", err)
	}
	switch {
	case *depth < 1 || *depth > si.MaxDepth:
		return badInput("--depth: %d, want 1..%d", *depth, si.MaxDepth)
	case math.IsNaN(*gamma) || math.IsInf(*gamma, 0) || *gamma <= 0:
		return badInput("--gamma: %v, want finite > 0", *gamma)
	case !(*pruneActions >= 0 && *pruneActions < 1):
		return badInput("--prune-actions: %v, want a number in [0, 1)", *pruneActions)
	case !(*pruneOutcomes >= 0 && *pruneOutcomes < 1):
		return badInput("--prune-outcomes: %v, want a number in [0, 1)", *pruneOutcomes)
	case *pruneRelative && *pruneActions == 0:
		return badInput("--prune-relative: needs --prune-actions x with x > 0")
	case *maxBranches < 1:
		return badInput("--max-branches: %d, want >= 1", *maxBranches)
	case *maxNodes < 1:
		return badInput("--max-nodes: %d, want >= 1", *maxNodes)
	case !(*maxMin > 0) || math.IsInf(*maxMin, 0):
		return badInput("--max-minutes: %v, want a finite number > 0", *maxMin)
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
	opts := &si.Options{
		Depth: *depth, Gamma: *gamma, Branch: b,
		PruneActions: *pruneActions, PruneRelative: *pruneRelative, PruneOutcomes: *pruneOutcomes,
		MaxBranches: *maxBranches, MaxNodes: *maxNodes,
	}
	est, err := si.EstimatePlan(m, opts)
	if err != nil {
		return badInput("%s", siOptionError(err, *model))
	}
	if est.Seconds > 60**maxMin {
		tree := fmt.Sprintf("%.3g", est.TreeNodes)
		if math.IsInf(est.TreeNodes, 1) {
			tree = "over 1e308"
		}
		return badInput("--depth %d: up to %.3g nodes (the full tree has %s) would take about %s (estimated from %d states, %d observations, %d actions), over --max-minutes %g; prune (--prune-outcomes, --prune-actions), lower --max-nodes or raise --max-minutes",
			*depth, est.Nodes, tree, durationText(est.Seconds), m.NumStates(), m.NumObs(), m.NumActions(), *maxMin)
	}
	qs, err := pomdp.StatePosterior(nil, m, obs)
	if err != nil {
		return badInput("--obs %s: %s (--model %s)", *obsRaw, strings.TrimPrefix(err.Error(), fmt.Sprintf("observation %d: ", obs)), *model)
	}
	// SIGINT or SIGTERM stops the search (exit 130 or 143).
	res, err := si.Plan(commandContext(), m, qs, opts)
	if err != nil {
		return err
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
	fmt.Fprintf(stdout, "sophisticated inference: depth %d, gamma %g, %s outcomes, %s: %d nodes\n", res.Depth, *gamma, b, siPruneText(opts), res.Nodes)
	if res.Truncated {
		fmt.Fprintf(stdout, "  node budget --max-nodes %d spent: searched %d of %d steps deep\n", *maxNodes, res.Depth, *depth)
	}
	best := 0
	for u, p := range res.ActionProbs {
		if p > res.ActionProbs[best] {
			best = u
		}
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

// siOptionError names the flag of an option the library refused, or the
// model when the fault is in it.
func siOptionError(err error, model string) string {
	msg := err.Error()
	for _, f := range []struct{ option, flag string }{
		{"Options.MaxNodes", "--max-nodes"},
		{"Options.Depth", "--depth"},
	} {
		if rest, ok := strings.CutPrefix(msg, f.option); ok {
			return f.flag + rest
		}
	}
	return fmt.Sprintf("--model %s: %s", model, strings.TrimPrefix(msg, "model: "))
}
