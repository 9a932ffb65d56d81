package output

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// isTerminal reports whether w is a terminal (a character device).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Progress reports a long run on standard error once every interval: the
// episodes finished out of the total, the actions taken, the planning rate
// and an estimate of the time left. On a terminal it rewrites one line;
// otherwise (--progress with standard error redirected) it writes a line
// per report. Standard output is never touched.
type Progress struct {
	w        io.Writer
	tty      bool
	total    int
	unit     string // what Decision.Work counts (agent.Planner.WorkUnit)
	start    time.Time
	episodes atomic.Int64
	steps    atomic.Int64
	work     atomic.Int64 // Decision.Work summed over the actions
	stop     chan struct{}
	wg       sync.WaitGroup
}

// StartProgress starts reporting on w every interval when on is set
// (--progress) or w is a terminal; it returns nil otherwise (a nil
// *Progress does nothing). total is the number of episodes, unit what
// Decision.Work counts (agent.Planner.WorkUnit).
func StartProgress(w io.Writer, on bool, total int, unit string, every time.Duration) *Progress {
	tty := IsTerminal(w)
	if !on && !tty {
		return nil
	}
	p := &Progress{w: w, tty: tty, total: total, unit: unit, start: time.Now(), stop: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				p.report()
			case <-p.stop:
				return
			}
		}
	}()
	return p
}

// Step counts one action, whose planning did work (Decision.Work).
func (p *Progress) Step(work int) {
	if p != nil {
		p.steps.Add(1)
		p.work.Add(int64(work))
	}
}

// Episode counts one finished episode.
func (p *Progress) Episode() {
	if p != nil {
		p.episodes.Add(1)
	}
}

func (p *Progress) report() {
	el := time.Since(p.start).Seconds()
	e, s := p.episodes.Load(), p.steps.Load()
	line := fmt.Sprintf("progress: %d/%d episodes, %d actions, %.0f %s per second", e, p.total, s, float64(p.work.Load())/max(el, 1e-9), p.unit)
	if e > 0 && int(e) < p.total {
		line += fmt.Sprintf(", about %.0f s left", el/float64(e)*float64(int64(p.total)-e))
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// End stops reporting (and clears the terminal line).
func (p *Progress) End() {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
