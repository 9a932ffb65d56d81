package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/si"
)

// How `run` shows each planner's episodes (runView). Everything else of
// run is the same for every planner (run.go).

// aciView shows classic active inference: the policies scored per step,
// E[γ] when the precision is inferred, the lowest G of the action taken.
var aciView = &runView{
	cost:    "lowest G",
	dotHelp: "write the agent's graph after its first step (the past, the policy pi and the precision, and the future states and observations over the horizon whose transitions pi selects) to this file: SVG, PDF or PNG by its ending, DOT otherwise",
	flags: func(*flag.FlagSet) viewSetup {
		return func(r *agentRun, _ agent.Options, dotFile string) (func(context.Context, agent.Agent, *agent.Decision) error, error) {
			if dotFile == "" {
				return nil, nil
			}
			return func(ctx context.Context, ag agent.Agent, _ *agent.Decision) error {
				g, err := ag.(*aci.Agent).FigureGraph()
				if err != nil {
					return err
				}
				if err := checkFigureSize("--dot", dotFile, graphSize(g), false, "write the DOT text with --dot FILE.dot"); err != nil {
					return err
				}
				var b bytes.Buffer
				if err := g.WriteDOTWith(&b, ffg.DOTOptions{Compact: true}); err != nil {
					return err
				}
				return writeFigure(ctx, "--dot", dotFile, b.Bytes())
			}, nil
		}
	},
	episode: func(r *agentRun, status string, ep *agent.Episode, rec *runRecord) string {
		return fmt.Sprintf("%s in %d steps (%d policies of length %d per step, %.3f s planning)",
			status, ep.NumActions(), rec.Policies, flagInt(r.fs, "horizon"), ep.PlanningSeconds)
	},
	extra: func(r *agentRun, rec *runRecord, ep *agent.Episode) {
		for _, st := range ep.Steps {
			if d := st.Decision; d != nil {
				rec.Policies = d.Work
				if d.Precision > 0 {
					rec.GammaMean = append(rec.GammaMean, d.Precision)
				}
			}
		}
		if rec.Policies == 0 {
			rec.Policies, _ = aci.NumPolicies(r.m.NumActions(), flagInt(r.fs, "horizon"), math.MaxInt)
		}
	},
	summary: planningSummary,
}

// siView shows sophisticated inference: the beliefs each search scored
// and the searches the node budget cut short.
var siView = &runView{
	cost:    "G",
	dotHelp: "draw the search tree of the first step into this file (as si plan --dot, to the default depth): SVG, PDF or PNG by its ending, DOT otherwise",
	flags: func(fs *flag.FlagSet) viewSetup {
		depth := fs.Int("dot-depth", 0, fmt.Sprintf("with --dot: draw this many steps of the first search (>= 1; default the most that keep the figure within %d nodes)", si.DOTPageNodes))
		return func(r *agentRun, _ agent.Options, dotFile string) (func(context.Context, agent.Agent, *agent.Decision) error, error) {
			given := agent.Given(r.fs)["dot-depth"]
			switch {
			case given && dotFile == "":
				return nil, badInput("--dot-depth: needs --dot FILE")
			case given && *depth < 1:
				return nil, badInput("--dot-depth: %d, want >= 1", *depth)
			case dotFile == "":
				return nil, nil
			}
			return func(ctx context.Context, ag agent.Agent, d *agent.Decision) error {
				tr, err := ag.(*si.Agent).Tree()
				if err != nil {
					return err
				}
				return siWriteDOT(ctx, tr, dotFile, *depth, d.Action)
			}, nil
		}
	},
	episode: func(r *agentRun, status string, ep *agent.Episode, rec *runRecord) string {
		nodes := 0
		for _, n := range rec.SearchNodes {
			nodes += n
		}
		line := fmt.Sprintf("%s in %d steps (searches of depth %d, %d nodes in all, %.3f s planning)",
			status, ep.NumActions(), flagInt(r.fs, "depth"), nodes, ep.PlanningSeconds)
		if len(rec.TruncatedSteps) > 0 {
			line += fmt.Sprintf("\nnode budget --max-nodes %d spent at steps %s: those searches are shallower than --depth %d",
				flagInt(r.fs, "max-nodes"), strings.Trim(fmt.Sprint(rec.TruncatedSteps), "[]"), flagInt(r.fs, "depth"))
		}
		return line
	},
	extra: func(r *agentRun, rec *runRecord, ep *agent.Episode) {
		rec.SearchNodes = []int{}
		for _, st := range ep.Steps {
			if d := st.Decision; d != nil {
				rec.SearchNodes = append(rec.SearchNodes, d.Work)
				if d.Truncated {
					rec.TruncatedSteps = append(rec.TruncatedSteps, st.T)
				}
			}
		}
	},
	summary: planningSummary,
	counts:  true,
}

// planningSummary is the last line of a run of aci and si (and the
// default): the episodes, for a maze the episodes solved and their mean
// steps, the planning time, and the searches cut short where there were
// any to count.
func planningSummary(r *agentRun, s *runSummary) any {
	var meanSteps any // null when no episode was solved
	if s.Solved > 0 {
		meanSteps = float64(s.StepsSolved) / float64(s.Solved)
	}
	// A --model run has no goal: its summary has neither solved nor
	// mean_steps, as its records have no solved.
	sum := map[string]any{"episodes": s.Episodes, "planning_seconds": s.PlanningSeconds}
	if r.view.counts {
		sum["truncated_searches"] = s.Truncated
	}
	if r.mz != nil {
		sum["solved"], sum["mean_steps"] = s.Solved, meanSteps
	}
	if r.runs.Agents > 1 {
		sum["agents"] = r.runs.Agents
	}
	rate, perTrial := r.worldScore(s)
	if rate != nil {
		sum["rate"], sum["seconds_per_trial"] = *rate, *perTrial
	}
	if r.asJSON {
		return sum
	}
	text := fmt.Sprintf("%d episodes", s.Episodes)
	if r.mz != nil {
		text = fmt.Sprintf("%d/%d episodes solved", s.Solved, s.Episodes)
		if s.Solved > 0 {
			text += fmt.Sprintf(", mean steps %.1f", meanSteps)
		}
	} else if rate != nil {
		text += fmt.Sprintf(", rate %.4f, %.4f s per trial", *rate, *perTrial)
	} else if !r.view.counts {
		return nil
	}
	if s.Truncated > 0 {
		text += fmt.Sprintf("; the node budget --max-nodes %d cut %d searches short", flagInt(r.fs, "max-nodes"), s.Truncated)
	}
	return stringer(text + fmt.Sprintf("; %.3f s planning in all", s.PlanningSeconds))
}
