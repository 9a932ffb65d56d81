package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/envs"
)

// TestTMazeLearning is the acceptance test of the T-maze: on
// trial 1 the agent, not knowing the context, visits the cue first (the
// hand computation at PunishmentPreference gives the cue L - 0.49 against
// L + 0.81 for a blind arm), and after Dirichlet learning of d in a fixed
// context most trials go straight to the rewarded arm.
func TestTMazeLearning(t *testing.T) {
	for _, c := range []struct {
		name    string
		context int
		arm     int
	}{{"left", envs.TMazeRewardLeft, envs.TMazeLeft}, {"right", envs.TMazeRewardRight, envs.TMazeRight}} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Run(Config{Trials: 32, Seed: 7, Context: c.context})
			if err != nil {
				t.Fatal(err)
			}
			if !res[0].VisitedCueFirst() {
				t.Fatalf("trial 1: path %v, want the cue (%d) first", res[0].Path, envs.TMazeCue)
			}
			// Trial 1 starts from d = 1 everywhere: the context prior is
			// exactly 1/2 (symmetric model, symmetric prior).
			if got := res[0].PriorLeft; math.Abs(got-0.5) > 1e-12 {
				t.Errorf("trial 1: q(context left) = %v, want 0.5", got)
			}
			straight := 0
			for _, tr := range res[1:] {
				if tr.Straight() && tr.Path[1] == c.arm {
					straight++
				}
			}
			// "Most trials" after learning: at least 3/4 of trials 2..32.
			if want := 3 * 31 / 4; straight < want {
				t.Errorf("went straight to the rewarded arm on %d of trials 2..32, want >= %d", straight, want)
			}
			// The learned prior moves monotonically towards the true
			// context (each trial adds about one count to d of the
			// true start state).
			last := res[len(res)-1].PriorLeft
			if c.context == envs.TMazeRewardRight {
				last = 1 - last
			}
			if last < 0.9 {
				t.Errorf("after 32 trials q(true context) = %.3f, want >= 0.9", last)
			}
		})
	}
}

func TestPrint(t *testing.T) {
	res, err := Run(Config{Trials: 3, Seed: 1, Context: envs.TMazeRewardLeft})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	Print(&buf, res)
	out := buf.String()
	if !strings.Contains(out, "start -> cue -> left") || !strings.Contains(out, "of 3 trials") {
		t.Errorf("summary:\n%s", out)
	}
	// The columns line up: in the header and every row, the outcome and the
	// probability start at the same column.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	col := strings.Index(lines[0], "outcome")
	pcol := strings.Index(lines[0], "P(left")
	for _, l := range lines[1 : len(lines)-1] {
		if o := strings.IndexAny(l[col:col+1], "rp"); o != 0 || l[col-1] != ' ' {
			t.Errorf("row %q: outcome not at column %d of the header %q", l, col, lines[0])
		}
		if l[pcol] != '0' && l[pcol] != '1' {
			t.Errorf("row %q: probability not at column %d of the header %q", l, pcol, lines[0])
		}
	}
}
