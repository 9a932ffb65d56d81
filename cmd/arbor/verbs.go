package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/si"
)

// plannerCmd is the command of one planner ("arbor aci"): the verbs every
// planner has (agent.Verbs), driven by one function each over any planner,
// and the planner's own subcommands (aci eval, btai plan, si plan).
type plannerCmd struct {
	p       *agent.Planner
	own     []subcommand // before the shared verbs
	example string       // an example of a subcommand, for the error of a missing one
	view    *runView     // how run shows the planner's episodes
}

// subcommand is one subcommand of a planner's command.
type subcommand struct {
	name, synopsis string
	run            func(args []string, stdout io.Writer) error
}

// plannerCmds are the planners of the command line, in the order usage
// lists them. Adding a planner is one entry here (its agent.Planner, its
// own subcommands and, optionally, a runView).
func plannerCmds() []*plannerCmd {
	return []*plannerCmd{
		{p: aci.Description, own: []subcommand{{"eval", aciEvalSynopsis, runACIEval}}, example: "arbor aci eval --model M --obs 0 --horizon 2", view: aciView},
		{p: btai.Description, own: []subcommand{{"plan", btaiPlanSynopsis, runBTAIPlan}}, example: "arbor btai run --maze examples/mazes/1.maze", view: btaiView},
		{p: si.Description, own: []subcommand{{"plan", siPlanSynopsis, runSIPlan}}, example: "arbor si plan --model M --obs 0 --depth 3", view: siView},
	}
}

// verbRunners are the drivers of the shared verbs.
var verbRunners = map[agent.Verb]func(c *plannerCmd, args []string, stdout io.Writer) error{
	agent.VerbRun:      runRun,
	agent.VerbReplay:   runReplay,
	agent.VerbFit:      runFitVerb,
	agent.VerbSimulate: runSimulate,
	agent.VerbRecover:  runRecover,
}

// subcommands returns the planner's subcommands: its own, then the shared
// verbs.
func (c *plannerCmd) subcommands() []subcommand {
	subs := append([]subcommand(nil), c.own...)
	for _, v := range agent.Verbs {
		subs = append(subs, subcommand{name: string(v), synopsis: verbSynopsis(c.p, v), run: func(args []string, stdout io.Writer) error {
			return verbRunners[v](c, args, stdout)
		}})
	}
	return subs
}

// names returns the subcommands' names.
func (c *plannerCmd) names() []string {
	var names []string
	for _, s := range c.subcommands() {
		names = append(names, s.name)
	}
	return names
}

// summary is the command's line in arbor's usage.
func (c *plannerCmd) summary() string {
	var parts []string
	for _, n := range c.names() {
		parts = append(parts, c.p.Name+" "+n)
	}
	return c.p.Doc + ": " + strings.Join(parts, " | ")
}

// run is "arbor NAME ...": the subcommand named by args[0].
func (c *plannerCmd) run(args []string, stdout io.Writer) error {
	subs := c.subcommands()
	want := orList(c.names())
	if len(args) == 0 {
		return badInput("want a subcommand: %s (e.g. %s)", want, c.example)
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, "usage:")
		for _, s := range subs {
			fmt.Fprintf(stdout, "  %s\n", s.synopsis)
		}
		fmt.Fprintf(stdout, "'arbor %s SUBCOMMAND -h' lists a subcommand's flags\n", c.p.Name)
		return nil
	}
	for _, s := range subs {
		if s.name == args[0] {
			return inSubcommand(s.name, s.run(args[1:], stdout))
		}
	}
	return badInput("unknown subcommand %q (want %s)", args[0], want)
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// onParsed, when set, sees the flags of a verb once parseVerb has parsed
// them, before the verb reads a file: merge checks them against the job
// of the shards, and a sweep's check of its grid stops there (stop).
var onParsed func(fs *flag.FlagSet) (stop bool, err error)

// parseVerb parses the flags of a subcommand. It prints the help for -h
// (done is then true; an error under onParsed), refuses positional
// arguments, and explains a flag the subcommand leaves out when refused
// knows why (refused may be nil).
func parseVerb(fs *flag.FlagSet, args []string, synopsis string, refused func(name string) string, stdout io.Writer) (done bool, err error) {
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) && onParsed != nil {
		return false, badInput("-h asks for help, not for a run")
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, synopsis))
		return true, nil
	}
	if err != nil {
		if name, ok := undefinedFlag(err); ok && refused != nil {
			if why := refused(name); why != "" {
				return false, badInput("--%s: %s", name, why)
			}
		}
		return false, err
	}
	if len(pos) > 0 {
		return false, badInput("unexpected argument %q (every input is given by a flag; 'arbor %s -h' lists them)", pos[0], fs.Name())
	}
	if onParsed != nil {
		return onParsed(fs)
	}
	return false, nil
}

// undefinedFlag returns the name of the flag of "flag provided but not
// defined: -name".
func undefinedFlag(err error) (string, bool) {
	rest, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return "", false
	}
	return strings.TrimLeft(rest, "-"), true
}

// verbSynopsis is the usage line of planner p's verb v.
func verbSynopsis(p *agent.Planner, v agent.Verb) string {
	head := "arbor " + p.Name + " " + string(v) + " "
	switch v {
	case agent.VerbRun:
		return head + "(--maze FILE [--noise 0.1] [--pref-precision 3] | --model M [--process W] | --env dsprites [--granularity 4] [--print-model]) " + p.Synopsis + " [--steps 50] [--episodes 1] [--agents 1] [--seed 1] [--jobs N] [--progress] [--dot FILE] [--plot FILE.svg|.pdf|.png [--plot-dpi N] [--plot-episode N|all]] [--json | --csv]"
	case agent.VerbReplay:
		seed := ""
		if p.Draws {
			seed = " [--seed 1]"
		}
		return head + "--model M --data D.csv " + p.Synopsis + " [--beliefs] [--subjects FILE]" + seed + " [--jobs 1] [--json | --csv]"
	case agent.VerbFit:
		return head + "--model M --data D.csv --free NAMES [--prior NAME=MEAN,SD ...] [--restarts N] [--method auto|bfgs|nelder-mead] " + p.Synopsis + " [--jobs 1] [--seed 1] [--group [--covariates C.csv] [--design FORMULA] [--group-cov diag|full]] [--compare FIT.jsonl,...] [--plot FILE.svg|.pdf|.png] [--json | --csv]"
	case agent.VerbSimulate:
		return head + "--model M [--process W] --truth FILE [--draw NAME=DIST ... | --params FILE [--draw-posterior]] [--subjects 20] [--trials 10] [--steps 50] [--seed 1] [--jobs N] " + p.Synopsis + " [-o FILE [--ppc D.csv]] [--json]"
	case agent.VerbRecover:
		return head + "(--model M | --models M1,M2,...) [--process W] --free NAMES [--draw NAME=DIST ... | --params FILE [--draw-posterior]] [--prior NAME=MEAN,SD ...] [--subjects 20] [--trials 10] [--steps 50] [--seed 1] [--jobs N] [--restarts N] " + p.Synopsis + " [--plot FILE] [--json]"
	}
	return head + p.Synopsis
}
