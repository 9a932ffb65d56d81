package schedule

import (
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/ffg"
)

// paramChange tracks the largest relative change of a natural parameter
// over one sweep (Settings.ParamTolerance): each update's natural
// parameters against those of the variable's update before it. It keeps
// one scratch slice, so a sweep does not allocate once it has grown.
type paramChange struct {
	on  bool
	max float64
	old []float64
}

func (pc *paramChange) start(ptol float64) {
	pc.on, pc.max = ptol > 0, 0
}

// before saves v's natural parameters.
func (pc *paramChange) before(v *ffg.Variable) {
	if !pc.on {
		return
	}
	pc.old = append(pc.old[:0], v.Natural()...)
}

// after compares them with the update's.
func (pc *paramChange) after(v *ffg.Variable) {
	if !pc.on {
		return
	}
	nat := v.Natural()
	if len(pc.old) != len(nat) {
		// The variable's first update: no earlier natural parameters to
		// compare with, so the sweep has not settled.
		pc.max = math.Inf(1)
		return
	}
	if v.Categorical() {
		// Log-probabilities up to a constant: compare them less their
		// largest finite entry.
		co, cn := maxFinite(pc.old), maxFinite(nat)
		for i, x := range nat {
			pc.note(pc.old[i]-co, x-cn)
		}
		return
	}
	for i, x := range nat {
		pc.note(pc.old[i], x)
	}
}

func (pc *paramChange) note(a, b float64) {
	if a == b { // equal infinities too
		return
	}
	d := math.Abs(a-b) / math.Max(1, math.Abs(b))
	if !(d <= pc.max) { // NaN counts as a change
		pc.max = math.Max(pc.max, d)
		if math.IsNaN(d) {
			pc.max = math.Inf(1)
		}
	}
}

func maxFinite(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		if v > m && !math.IsInf(v, 0) {
			m = v
		}
	}
	if math.IsInf(m, -1) {
		return 0
	}
	return m
}

// Warning returns the one line that reports the increases of F of a run
// ("" when there is none): the first, with its sweep and values, and how
// many sweeps after it raised F too, with the largest rise. A rise within
// round-off (1e-12 of |F|) is no increase (Result.Increases).
func (r *Result) Warning() string {
	if r == nil || len(r.Increases) == 0 {
		return ""
	}
	first := r.Increases[0]
	s := fmt.Sprintf("warning: F increased at sweep %d from %.10g to %.10g", first.Sweep, first.From, first.To)
	if n := len(r.Increases) - 1; n > 0 {
		largest := 0.0
		for _, inc := range r.Increases {
			largest = math.Max(largest, inc.To-inc.From)
		}
		s += fmt.Sprintf(" (and at %d later sweeps; the largest rise %.3g)", n, largest)
	}
	return s
}
