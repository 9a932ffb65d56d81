package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestSpecIsTheFile: the Go model and examples/pomdp/tmaze.json are the
// same model.
func TestSpecIsTheFile(t *testing.T) {
	f, err := pomdp.Load("../pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Model()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(m.FactorisedSpec(), f.FactorisedSpec()); d != "" {
		t.Errorf("Spec() and tmaze.json differ (-go +file):\n%s", d)
	}
}

// TestFlattenedSameEFE: the 8-state T-maze of envs (one factor, location ×
// context flattened, one modality of 5 outcomes) and the same model
// spelled with two factors (location, context) and that modality over
// both give the same EFE, risk, ambiguity, q_pi and action_probs to 1e-12
// from the start (D is a product: start, context 1/2-1/2).
func TestFlattenedSameEFE(t *testing.T) {
	cfg := envs.DefaultTMazeConfig()
	cfg.PunishmentPreference = PunishmentPreference
	mm, err := envs.TMazeModel(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	flat, err := pomdp.New(mm.Spec())
	if err != nil {
		t.Fatal(err)
	}
	sp := mm.Spec()
	// The flat state is location*2 + context, as A[o][location][context].
	locB := make([]float64, 4*4*4)
	for u := range 4 {
		for n := range 4 {
			for p := range 4 {
				locB[(u*4+n)*4+p] = sp.B[(u*8+n*2)*8+p*2] // context 0 to context 0
			}
		}
	}
	fac, err := pomdp.NewFactorised(pomdp.FactorisedSpec{
		Factors: []pomdp.Factor{
			{Name: "location", NumStates: 4, Controls: []string{"s", "c", "l", "r"}, B: locB, D: []float64{1, 0, 0, 0}},
			{Name: "context", NumStates: 2, B: []float64{1, 0, 0, 1}, D: []float64{0.5, 0.5}},
		},
		Modalities: []pomdp.Modality{{Name: "outcome", NumOutcomes: 5, DependsOn: []string{"location", "context"}, A: sp.A, C: sp.C}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, horizon := range []int{1, 2, 3} {
		want, err := aci.Eval(flat, 0, horizon, 16)
		if err != nil {
			t.Fatal(err)
		}
		got, err := aci.Eval(fac, 0, horizon, 16)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name      string
			got, want []float64
		}{{"G", got.G, want.G}, {"risk", got.Risk, want.Risk}, {"ambiguity", got.Ambiguity, want.Ambiguity},
			{"q_pi", got.QPi, want.QPi}, {"action_probs", got.ActionProbs, want.ActionProbs}} {
			for i := range c.want {
				if math.Abs(c.got[i]-c.want[i]) > 1e-12 {
					t.Errorf("horizon %d: %s[%d] = %v factorised, %v flattened", horizon, c.name, i, c.got[i], c.want[i])
				}
			}
		}
	}
}

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
	}{{"left", RewardLeft, Left}, {"right", RewardRight, Right}} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Run(Config{Trials: 32, Seed: 7, Context: c.context})
			if err != nil {
				t.Fatal(err)
			}
			if !res[0].VisitedCueFirst() {
				t.Fatalf("trial 1: path %v, want the cue (%d) first", res[0].Path, Cue)
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
			// Learning the context: straight to the rewarded arm in at least
			// 28 of the 32 trials.
			if straight < 28 {
				t.Errorf("went straight to the rewarded arm on %d of trials 2..32, want >= 28", straight)
			}
			if !res[0].Rewarded {
				t.Errorf("trial 1: path %v ends unrewarded, want the arm the cue names", res[0].Path)
			}
			// The learned prior moves monotonically towards the true
			// context (each trial adds about one count to d of the
			// true start state).
			last := res[len(res)-1].PriorLeft
			if c.context == RewardRight {
				last = 1 - last
			}
			if last < 0.9 {
				t.Errorf("after 32 trials q(true context) = %.3f, want >= 0.9", last)
			}
		})
	}
}

func TestPrint(t *testing.T) {
	res, err := Run(Config{Trials: 3, Seed: 1, Context: RewardLeft})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	Print(&buf, res)
	out := buf.String()
	// Seed 1's first cue misleads: the agent goes to the cue, then right.
	if !strings.Contains(out, "start -> cue -> right") || !strings.Contains(out, "of 3 trials") {
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

// TestTMazeLearningFilter: with exact filtering of the past the T-maze
// learning result holds (cue first on trial 1, at least 28 of 32 trials
// straight to the rewarded arm), and the misleading cue of seed 1's first
// trial is learned right: the punishment in the right arm rules out the
// right context exactly, smoothing adds one count to d(left), and trial 2
// starts, with D = exp E[ln D] under d = (2, 1), from
// q(left) = e^(ψ(2)-ψ(3)) / (e^(ψ(2)-ψ(3)) + e^(ψ(1)-ψ(3))) = 1/(1 + e^-1),
// where the paper's mean field learned "right" (0.264, TestPrint's seed).
func TestTMazeLearningFilter(t *testing.T) {
	for _, c := range []struct {
		context, arm int
	}{{RewardLeft, Left}, {RewardRight, Right}} {
		res, err := Run(Config{Trials: 32, Seed: 7, Context: c.context, Past: pomdp.PastFilter})
		if err != nil {
			t.Fatal(err)
		}
		if !res[0].VisitedCueFirst() {
			t.Errorf("context %d: trial 1 path %v, want the cue first", c.context, res[0].Path)
		}
		straight := 0
		for _, tr := range res {
			if tr.Straight() && tr.Path[1] == c.arm {
				straight++
			}
		}
		if straight < 28 {
			t.Errorf("context %d: straight to the rewarded arm on %d of 32 trials, want >= 28", c.context, straight)
		}
	}
	res, err := Run(Config{Trials: 2, Seed: 1, Context: RewardLeft, Past: pomdp.PastFilter})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Rewarded {
		t.Fatalf("seed 1, trial 1: %v rewarded; the test expects the misleading cue", res[0].Path)
	}
	if got, want := res[1].PriorLeft, 1/(1+math.Exp(-1)); math.Abs(got-want) > 1e-12 {
		t.Errorf("trial 2: q(left) = %.15f, want 1/(1+e^-1) = %.15f", got, want)
	}
}
