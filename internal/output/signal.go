package output

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Interrupted is the cause of a context cancelled by a signal
// (NotifyContext): SIGINT (Ctrl-C) or SIGTERM. It matches context.Canceled
// under errors.Is.
type Interrupted struct{ Signal syscall.Signal }

func (e *Interrupted) Error() string {
	if e.Signal == syscall.SIGTERM {
		return "interrupted (SIGTERM)"
	}
	return "interrupted"
}

// Is reports target == context.Canceled: code that stops on a done
// context treats a signal as any cancellation.
func (e *Interrupted) Is(target error) bool { return target == context.Canceled }

// ExitStatus is the shell's status of a process ended by the signal: 128
// plus its number, 130 for SIGINT and 143 for SIGTERM.
func (e *Interrupted) ExitStatus() int { return 128 + int(e.Signal) }

// Interruption returns the *Interrupted that cancelled ctx, or nil when
// ctx is not done or was cancelled otherwise.
func Interruption(ctx context.Context) *Interrupted {
	var in *Interrupted
	if errors.As(context.Cause(ctx), &in) {
		return in
	}
	return nil
}

// exit ends the process at a second signal (a variable so that tests can
// watch it).
var exit = os.Exit

// NotifyContext returns a context that the first SIGINT or SIGTERM
// cancels, with an *Interrupted as its cause: the work stops, what was
// finished is written and partial files are removed by the code that
// watches the context. A second signal, or the first when the work has not
// returned (called stop) within grace, ends the process at once: it kills
// the renderers still running (KillRenderers), removes the temporary files
// of the output files not yet committed (RemoveTemporaryFiles), writes
// "PREFIX: interrupted" on stderr and exits with the signal's status (130
// or 143). stop releases the signals: after it they have their default
// effect again (unless another NotifyContext still holds them).
func NotifyContext(parent context.Context, stderr io.Writer, prefix string, grace time.Duration) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var first syscall.Signal
		var late <-chan time.Time
		end := func(sig syscall.Signal) {
			KillRenderers()
			RemoveTemporaryFiles()
			fmt.Fprintf(stderr, "%s: interrupted\n", prefix)
			exit(128 + int(sig))
		}
		for {
			select {
			case s := <-ch:
				sig, _ := s.(syscall.Signal)
				if first == 0 {
					first = sig
					cancel(&Interrupted{Signal: sig})
					t := time.NewTimer(grace)
					defer t.Stop()
					late = t.C
					continue
				}
				end(sig)
				return
			case <-late:
				end(first)
				return
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			wg.Wait()
			cancel(nil)
		})
	}
}
