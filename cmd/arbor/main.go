// Command arbor runs inference and planning on Forney factor graphs.
//
//	arbor infer MODEL.json [--json]        variational message passing on a model file
//	arbor dot MODEL.json [--json]          the model's factor graph in Graphviz DOT
//	arbor aci eval|run|replay|fit|simulate|recover ...   classic active inference
//	arbor btai plan|run|replay|fit|simulate|recover ...  branching time active inference
//	arbor si plan|run|replay|fit|simulate|recover ...    sophisticated inference
//	arbor merge DIR                        the shards of a run (--shard k/n --out DIR) put together
//	arbor sweep GRID.json                  a command at every point of a grid of settings
//	arbor version                          the version
//
// Flags may come before or after the file argument.
//
// Exit status (every failure is one line on stderr, at most maxErrorLine
// bytes):
//
//	0    success; also standard output whose reader has gone (EPIPE, as
//	     `arbor ... | head -1` ends): the work stops, quietly
//	1    any other failure, among them standard output that cannot be
//	     written (a full disk), whatever the output mode
//	2    bad input: the line names the file or flag, the field and the fault
//	130  interrupted by SIGINT (Ctrl-C)
//	143  interrupted by SIGTERM
//
// Every command handles SIGINT and SIGTERM alike, at every stage (reading,
// planning, writing, rendering): the work stops, what was finished before
// the signal is written to standard output (the episodes, subjects or data
// sets, with the summary line), a figure being rendered is abandoned (the
// renderer is killed), no output file is replaced (each file a command
// writes is renamed into place only when the command succeeds), and stderr
// gets one line "arbor COMMAND: interrupted". A signal that arrives while the command
// runs gives 130 or 143 even if the command then finishes. Work that
// cannot stop at once is abandoned after interruptGrace. A second signal
// ends the process at once, with the same statuses.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/arbor-ai/arbor/internal/output"
)

// usageError is bad input: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// badInput words bad input; an error among args reads without the prefix
// of the library package that returned it (output.Reason): the line names
// the flag and the file instead.
func badInput(format string, args ...any) error {
	for i, a := range args {
		if err, ok := a.(error); ok {
			args[i] = output.Reason(err)
		}
	}
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
	if err == nil || sub == "" {
		return err
	}
	return &subcommandError{sub: sub, err: err}
}

type command struct {
	name, summary string
	run           func(args []string, stdout io.Writer) error
}

func commands() []command {
	cmds := []command{
		{"infer", "run variational message passing on a model file", runInfer},
		{"dot", "write a model's factor graph in Graphviz DOT", runDot},
	}
	for _, c := range plannerCmds() {
		cmds = append(cmds, command{c.p.Name, c.summary(), withShard(c.p.Name, c.run)})
	}
	return append(cmds,
		command{"merge", "put the shard files of a sharded run together (arbor merge DIR)", runMerge},
		command{"sweep", "run a command at every point of a grid of settings (arbor sweep GRID.json)", runSweep},
		command{"version", "print arbor's version", runVersion},
	)
}

func main() {
	holdSignals = true
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// holdSignals, set by main, keeps SIGINT and SIGTERM caught from the
// moment a command starts handling them to the process's exit: a signal
// that comes after the command has decided its exit status changes
// nothing, rather than killing the process on its way out.
var holdSignals bool

// runObserver, when set (by the tests), sees every run's arguments and
// exit status.
var runObserver func(args []string, code int)

// cmdCtx is the context of the running command (runCommand sets it): done
// at the first SIGINT or SIGTERM (its cause an *output.Interrupted) or when
// standard output fails.
var cmdCtx = context.Background()

// commandContext returns the context of the running command, which every
// stage that can stop watches.
func commandContext() context.Context { return cmdCtx }

// interruptAt, set by the tests, interrupts the running command as SIGINT
// would once it has finished that many units (unitDone): a test stops a
// command mid-way in-process. interrupt is set by runCommand.
var (
	interruptAt int
	units       atomic.Int64
	interrupt   = func() {}
)

// unitDone counts a unit the command finished and written (an episode
// run, a subject simulated, replayed or fitted), for interruptAt.
func unitDone() {
	if n := units.Add(1); interruptAt > 0 && n == int64(interruptAt) {
		interrupt()
	}
}

// interruptGrace is the time a command has after the first signal to
// write what it finished and return; work that does not stop within it
// (reading a large file, a write blocked on a full pipe) is abandoned and
// the process exits, as at a second signal. Every stage that watches the
// context stops within milliseconds.
const interruptGrace = time.Second

// maxErrorLine bounds the line report prints (a flag value or a file's
// content quoted in an error is cut, with the number of bytes left out).
const maxErrorLine = 1000

// stdoutError is standard output that could not be written.
type stdoutError struct{ err error }

func (e *stdoutError) Error() string { return "writing standard output: " + e.err.Error() }
func (e *stdoutError) Unwrap() error { return e.err }

func run(args []string, stdout, stderr io.Writer) int {
	code := runCommand(args, stdout, stderr)
	if runObserver != nil {
		runObserver(args, code)
	}
	return code
}

func runCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		out := output.NewErrWriter(stdout, nil)
		usage(out)
		if err := out.Err(); err != nil {
			return report(stderr, "arbor", &stdoutError{err})
		}
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			stderrOut = stderr
			prefix := "arbor " + c.name
			sub := subcommandName(args)
			sigCtx, stop := output.NotifyContext(context.Background(), stderr, strings.TrimSpace(prefix+" "+sub), interruptGrace)
			defer stop()
			if holdSignals {
				signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGTERM)
			}
			ctx, cancel := context.WithCancelCause(sigCtx)
			defer cancel(nil)
			units.Store(0)
			interrupt = func() { cancel(&output.Interrupted{Signal: syscall.SIGINT}) }
			// Standard output that fails (a full disk; a closed pipe, whose
			// SIGPIPE is caught so that the write returns EPIPE) stops the
			// work: exit 1, or 0 without a word for a closed pipe (report).
			pipe := make(chan os.Signal, 1)
			signal.Notify(pipe, syscall.SIGPIPE)
			defer signal.Stop(pipe)
			out := output.NewErrWriter(stdout, func(err error) { cancel(&stdoutError{err}) })
			cmdCtx = ctx
			defer func() { cmdCtx = context.Background() }()
			// The files the command writes replace the old ones only
			// when it succeeds (output.EndCommand below).
			output.BeginCommand()
			defer output.EndCommand(false)
			err := c.run(args[1:], out)
			var ue *usageError
			var se *subcommandError
			if errors.As(err, &se) {
				sub = se.sub
			}
			switch werr, in := out.Err(), output.Interruption(ctx); {
			case werr != nil && !errors.As(err, &ue):
				// Output lost: whatever the command made of it.
				err = inSubcommand(sub, &stdoutError{werr})
			case in != nil:
				// Interrupted: whatever the work stopped on (a step of a
				// replay, a renderer killed) reads as its own fault.
				err = inSubcommand(sub, in)
			}
			if ferr := output.EndCommand(err == nil); ferr != nil {
				err = inSubcommand(sub, ferr)
			}
			return report(stderr, prefix, err)
		}
	}
	fmt.Fprintf(stderr, "arbor: unknown command %q (commands: %s)\n", args[0], commandNames())
	return 2
}

// report writes err on stderr as one line headed by prefix (and the
// subcommand), cut to maxErrorLine bytes, and returns the exit status
// (the table at the top of this file).
func report(stderr io.Writer, prefix string, err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var se *subcommandError
	if errors.As(err, &se) {
		prefix += " " + se.sub
	}
	var so *stdoutError
	if errors.As(err, &so) && errors.Is(so.err, syscall.EPIPE) {
		return 0 // the reader has gone (head): quiet, as Unix tools end
	}
	var in *output.Interrupted
	if errors.As(err, &in) || errors.Is(err, context.Canceled) {
		// SIGINT or SIGTERM: the finished work has been written.
		fmt.Fprintf(stderr, "%s: interrupted\n", prefix)
		if in != nil {
			return in.ExitStatus()
		}
		return 130
	}
	msg := strings.ReplaceAll(output.Reason(err), "\n", " ")
	fmt.Fprintf(stderr, "%s\n", output.Shorten(prefix+": "+msg, maxErrorLine))
	var ue *usageError
	if errors.As(err, &ue) || isInputError(err) {
		return 2
	}
	return 1
}

// subcommandName returns the subcommand of a planner's command named in
// args ("run" of arbor btai run), or "".
func subcommandName(args []string) string {
	if len(args) < 2 {
		return ""
	}
	for _, c := range plannerCmds() {
		if c.p.Name == args[0] && slices.Contains(c.names(), args[1]) {
			return args[1]
		}
	}
	return ""
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
			// A flag's own parser (encoding.TextUnmarshaler) is a library's.
			msg := err.Error()
			if i := strings.Index(msg, " for flag -"); i >= 0 {
				if j := strings.Index(msg[i:], ": "); j >= 0 {
					msg = msg[:i+j+2] + output.Reason(errors.New(msg[i+j+2:]))
				}
			}
			return nil, badInput("%s", msg)
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
