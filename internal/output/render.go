package output

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// The renderer is Graphviz's dot, run on DOT text. It is bounded three
// ways: the caller refuses figures too large to lay out within about a
// minute before starting it (the limits are the command's); a bitmap is
// drawn at most PNGInches across and down (-Gsize; a larger layout is
// scaled down to fit), which bounds its memory; and it is killed when its
// time limit passes, on an interrupt and when arbor exits.
const (
	// RenderSecondsEnv names the environment variable that sets the
	// renderer's time limit in seconds (DefaultRenderSeconds without it).
	RenderSecondsEnv = "ARBOR_RENDER_SECONDS"
	// DefaultRenderSeconds is the renderer's time limit.
	DefaultRenderSeconds = 60
	// PNGInches bounds a PNG's width and height, in inches at Graphviz's
	// 96 pixels per inch: 5,760 pixels, a bitmap of at most 133 MB. A
	// --dot-factors tree of 1,001 nodes (2,005 nodes and 2,003 edges in
	// all) rendered unbounded needed 1.3 GB and 36 s (Graphviz 2.43,
	// 2 cores); bounded, 65 MB and 2.1 s.
	PNGInches = 60
	// renderStderrBytes bounds the renderer's standard error quoted in an
	// error.
	renderStderrBytes = 400
)

// ErrNoGraphviz is Render's error when Graphviz's dot is not installed.
var ErrNoGraphviz = errors.New("the renderer dot (Graphviz) is not installed")

// RenderError is a failed rendering: dot exited with an error or was
// stopped at its time limit.
type RenderError struct {
	Err      error         // the process's error
	Stderr   string        // the start of its standard error, trimmed
	TimedOut bool          // stopped at Limit
	Limit    time.Duration // the time limit
}

func (e *RenderError) Error() string {
	if e.TimedOut {
		return fmt.Sprintf("Graphviz dot did not finish within its time limit of %v (set %s to change it)", e.Limit, RenderSecondsEnv)
	}
	msg := "Graphviz dot failed: " + e.Err.Error()
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

func (e *RenderError) Unwrap() error { return e.Err }

// RenderTimeLimit returns the renderer's time limit: RenderSecondsEnv
// (seconds, > 0) or DefaultRenderSeconds. A value that is not a number >
// 0 is an error naming the variable.
func RenderTimeLimit() (time.Duration, error) {
	s := strings.TrimSpace(os.Getenv(RenderSecondsEnv))
	if s == "" {
		return DefaultRenderSeconds * time.Second, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || v > 1e6 {
		return 0, fmt.Errorf("%s=%q: want a number of seconds > 0", RenderSecondsEnv, Shorten(s, 40))
	}
	return time.Duration(v * float64(time.Second)), nil
}

// renderers holds the process groups of the renderers running.
var renderers = struct {
	sync.Mutex
	pgids map[int]bool
}{pgids: map[int]bool{}}

// KillRenderers kills every renderer still running, with its process
// group: what a process about to exit at once does.
func KillRenderers() {
	renderers.Lock()
	defer renderers.Unlock()
	for pg := range renderers.pgids {
		killGroup(pg)
	}
}

// Render draws DOT text in format (svg, pdf or png) into dst with
// Graphviz's dot, and returns when dot has ended. dot runs in its own
// process group, which is killed (SIGKILL) when ctx is done (Render then
// returns ctx's cause, an *Interrupted for a signal), when limit passes (a
// *RenderError with TimedOut) and, on Linux, when arbor itself dies
// (Pdeathsig). dst's Commit is the caller's: on any error what dot wrote
// is to be aborted. Without dot the error is ErrNoGraphviz. Render drops
// what dot writes on its standard error when it succeeds;
// RenderWarnings returns it.
func Render(ctx context.Context, dotText []byte, format string, dst *AtomicFile, limit time.Duration) error {
	_, err := RenderWarnings(ctx, dotText, format, dst, limit)
	return err
}

// RenderWarnings is Render that also returns, when dot succeeds, its
// warnings: its standard error, trimmed (at most renderStderrBytes), such
// as "Warning: graph is too large for cairo-renderer bitmaps. Scaling by
// 0.5 to fit".
func RenderWarnings(ctx context.Context, dotText []byte, format string, dst *AtomicFile, limit time.Duration) (string, error) {
	bin, err := exec.LookPath("dot")
	if err != nil {
		return "", ErrNoGraphviz
	}
	if ctx.Err() != nil {
		return "", context.Cause(ctx)
	}
	args := []string{"-T" + format}
	if format == "png" {
		args = append(args, fmt.Sprintf("-Gsize=%d,%d", PNGInches, PNGInches))
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin = bytes.NewReader(dotText)
	cmd.Stdout = dst.OS()
	stderr := &capped{max: renderStderrBytes}
	cmd.Stderr = stderr
	cmd.SysProcAttr = renderProcAttr()
	// The group is killed, which closes the pipes; WaitDelay is a backstop
	// for a descendant that escaped it holding them open.
	cmd.WaitDelay = time.Second

	started := make(chan error, 1)
	ended := make(chan error, 1)
	go func() {
		// Pdeathsig is sent when the thread that started the child ends:
		// this goroutine keeps its thread until the child has ended.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		renderers.Lock()
		renderers.pgids[cmd.Process.Pid] = true
		renderers.Unlock()
		started <- nil
		ended <- cmd.Wait()
		renderers.Lock()
		delete(renderers.pgids, cmd.Process.Pid)
		renderers.Unlock()
	}()
	if err := <-started; err != nil {
		return "", &RenderError{Err: err}
	}
	if RenderStarted != nil {
		RenderStarted(cmd.Process.Pid)
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	kill := func() {
		killGroup(cmd.Process.Pid)
		<-ended
	}
	select {
	case err := <-ended:
		if err != nil {
			return "", &RenderError{Err: err, Stderr: strings.TrimSpace(stderr.String())}
		}
		return stderr.lines(), nil
	case <-ctx.Done():
		kill()
		return "", context.Cause(ctx)
	case <-timer.C:
		kill()
		return "", &RenderError{Err: errors.New("killed"), TimedOut: true, Limit: limit}
	}
}

// RenderStarted, when set (by tests), is called with the process id of
// every renderer started.
var RenderStarted func(pid int)

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	max  int
	b    []byte
	more int
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - len(c.b)
	if room >= len(p) {
		c.b = append(c.b, p...)
	} else {
		c.b = append(c.b, p[:max(room, 0)]...)
		c.more += len(p) - max(room, 0)
	}
	return len(p), nil
}

// lines returns what was written a line each, spaces collapsed, blank
// lines left out, with the note of what was cut (String).
func (c *capped) lines() string {
	var out []string
	for _, l := range strings.Split(c.text(), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	if c.more > 0 && len(out) > 0 {
		out[len(out)-1] += fmt.Sprintf("… (%d bytes more)", c.more)
	}
	return strings.Join(out, "\n")
}

// text is what was written, without a character cut at the end.
func (c *capped) text() string {
	b := c.b
	for len(b) > 0 && !utf8.Valid(b) && len(c.b)-len(b) < utf8.UTFMax {
		b = b[:len(b)-1]
	}
	return string(b)
}

func (c *capped) String() string {
	b := c.b
	for len(b) > 0 && !utf8.Valid(b) && len(c.b)-len(b) < utf8.UTFMax {
		b = b[:len(b)-1] // a character cut at the end
	}
	s := strings.Join(strings.Fields(string(b)), " ")
	if more := c.more + len(c.b) - len(b); more > 0 {
		s += fmt.Sprintf("… (%d bytes more)", more)
	}
	return s
}
