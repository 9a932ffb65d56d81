// Command arbor runs inference and planning on Forney factor graphs.
//
//	arbor infer MODEL.json [--json]        variational message passing on a model file
//	arbor dot MODEL.json [--json]          the model's factor graph in Graphviz DOT
//	arbor aci eval|run|replay ...          classic active inference
//	arbor btai plan|run|replay ...         branching time active inference
//	arbor version                          the version
//
// Flags may come before or after the file argument. Exit status: 0 on
// success, 2 on bad input (one line on stderr naming the file, the field and
// the fault), 1 on any other failure.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/arbor-ai/arbor/internal/output"
)

// usageError is bad input: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func badInput(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// subcommandError names the subcommand that failed, so that report prints
// "arbor aci eval: ..." rather than "arbor aci: ...". It keeps err's exit
// status (errors.As sees through it).
type subcommandError struct {
	sub string
	err error
}

func (e *subcommandError) Error() string { return e.err.Error() }
func (e *subcommandError) Unwrap() error { return e.err }

// inSubcommand wraps a non-nil err in a subcommandError for sub.
func inSubcommand(sub string, err error) error {
	if err == nil {
		return nil
	}
	return &subcommandError{sub: sub, err: err}
}

type command struct {
	name, summary string
	run           func(args []string, stdout io.Writer) error
}

func commands() []command {
	return []command{
		{"infer", "run variational message passing on a model file", runInfer},
		{"dot", "write a model's factor graph in Graphviz DOT", runDot},
		{"aci", "classic active inference: aci eval | aci run | aci replay", runACI},
		{"btai", "branching time active inference: btai plan | btai run | btai replay", runBTAI},
		{"version", "print arbor's version", runVersion},
	}
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// runObserver, when set (by the tests), sees every run's arguments and
// exit status.
var runObserver func(args []string, code int)

func run(args []string, stdout, stderr io.Writer) int {
	code := runCommand(args, stdout, stderr)
	if runObserver != nil {
		runObserver(args, code)
	}
	return code
}

func runCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			stderrOut = stderr
			err := c.run(args[1:], stdout)
			return report(stderr, "arbor "+c.name, err)
		}
	}
	fmt.Fprintf(stderr, "arbor: unknown command %q (commands: %s)\n", args[0], commandNames())
	return 2
}

func report(stderr io.Writer, prefix string, err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var se *subcommandError
	if errors.As(err, &se) {
		prefix += " " + se.sub
	}
	if errors.Is(err, context.Canceled) {
		// Ctrl-C: the finished work has been written.
		fmt.Fprintf(stderr, "%s: interrupted\n", prefix)
		return 130
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	fmt.Fprintf(stderr, "%s: %s\n", prefix, msg)
	var ue *usageError
	if errors.As(err, &ue) || isInputError(err) {
		return 2
	}
	return 1
}

func commandNames() string {
	var n []string
	for _, c := range commands() {
		n = append(n, c.name)
	}
	return strings.Join(n, ", ")
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: arbor COMMAND [flags] [FILE]")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-7s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "Run 'arbor COMMAND -h' for a command's flags.")
}

// parseFlags parses args allowing flags before and after positional
// arguments, and returns the positional arguments. Errors are bad input.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, badInput("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// helpText renders a flag set's defaults for -h.
func helpText(fs *flag.FlagSet, synopsis string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n", synopsis)
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}

// runVersion prints the version.
func runVersion(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return badInput("unexpected argument %q (usage: arbor version)", args[0])
	}
	fmt.Fprintln(stdout, output.VersionText())
	return nil
}
