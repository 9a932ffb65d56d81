package envs

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestTMazeModel(t *testing.T) {
	mm, err := TMazeModel(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(mm.A) != 5 || len(mm.B) != 4 || len(mm.C) != 5 || len(mm.D) != 8 {
		t.Fatalf("shapes: A %d, B %d, C %d, D %d", len(mm.A), len(mm.B), len(mm.C), len(mm.D))
	}
	checkColumns(t, "A", mm.A)
	for u := range mm.B {
		checkColumns(t, "B["+TMazeActionNames[u]+"]", mm.B[u])
	}
	approx := cmpopts.EquateApprox(0, tol)
	column := func(m [][]float64, s int) []float64 {
		c := make([]float64, len(m))
		for i := range m {
			c[i] = m[i][s]
		}
		return c
	}
	// Emissions, by the definition in TMazeModel's doc with validity 0.95
	// and reward probability 1. Observations: none, cue-left, cue-right,
	// reward, punishment.
	for _, tt := range []struct {
		loc, ctx int
		want     []float64
	}{
		{TMazeStart, TMazeRewardLeft, []float64{1, 0, 0, 0, 0}},
		{TMazeStart, TMazeRewardRight, []float64{1, 0, 0, 0, 0}},
		{TMazeCue, TMazeRewardLeft, []float64{0, 0.95, 0.05, 0, 0}},
		{TMazeCue, TMazeRewardRight, []float64{0, 0.05, 0.95, 0, 0}},
		{TMazeLeft, TMazeRewardLeft, []float64{0, 0, 0, 1, 0}},
		{TMazeLeft, TMazeRewardRight, []float64{0, 0, 0, 0, 1}},
		{TMazeRight, TMazeRewardLeft, []float64{0, 0, 0, 0, 1}},
		{TMazeRight, TMazeRewardRight, []float64{0, 0, 0, 1, 0}},
	} {
		s := TMazeState(tt.loc, tt.ctx)
		if diff := cmp.Diff(tt.want, column(mm.A, s), approx); diff != "" {
			t.Errorf("A[.][%s] mismatch (-want +got):\n%s", TMazeStateNames[s], diff)
		}
	}
	// Transitions: from start and cue every action goes to its location,
	// arms are absorbing, the context is kept.
	for u := range 4 {
		for loc := range 4 {
			for ctx := range 2 {
				next := u
				if loc == TMazeLeft || loc == TMazeRight {
					next = loc
				}
				want := make([]float64, 8)
				want[TMazeState(next, ctx)] = 1
				s := TMazeState(loc, ctx)
				if diff := cmp.Diff(want, column(mm.B[u], s)); diff != "" {
					t.Errorf("B[%s][.][%s] mismatch (-want +got):\n%s", TMazeActionNames[u], TMazeStateNames[s], diff)
				}
			}
		}
	}
	// C = softmax([0, 0, 0, 3, -3]) = [1, 1, 1, e^3, e^-3] / (3 + e^3 + e^-3).
	z := 3 + math.Exp(3) + math.Exp(-3)
	wantC := []float64{1 / z, 1 / z, 1 / z, math.Exp(3) / z, math.Exp(-3) / z}
	if diff := cmp.Diff(wantC, mm.C, approx); diff != "" {
		t.Errorf("C mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0.5, 0.5, 0, 0, 0, 0, 0, 0}, mm.D); diff != "" {
		t.Errorf("D mismatch (-want +got):\n%s", diff)
	}
	if len(mm.States) != 8 || mm.States[TMazeState(TMazeCue, TMazeRewardRight)] != "cue/reward-right" {
		t.Errorf("States = %q", mm.States)
	}
}

func TestTMazeModelConfig(t *testing.T) {
	cfg := TMazeConfig{CueValidity: 0.7, RewardProbability: 0.8, RewardPreference: 1, PunishmentPreference: -2}
	mm, err := TMazeModel(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := TMazeState(TMazeCue, TMazeRewardLeft)
	if math.Abs(mm.A[TMazeObsCueLeft][s]-0.7) > tol || math.Abs(mm.A[TMazeObsCueRight][s]-0.3) > tol {
		t.Errorf("cue column %v, %v; want 0.7, 0.3", mm.A[TMazeObsCueLeft][s], mm.A[TMazeObsCueRight][s])
	}
	s = TMazeState(TMazeRight, TMazeRewardLeft)
	if math.Abs(mm.A[TMazeObsReward][s]-0.2) > tol || math.Abs(mm.A[TMazeObsPunishment][s]-0.8) > tol {
		t.Errorf("wrong-arm column %v, %v; want 0.2, 0.8", mm.A[TMazeObsReward][s], mm.A[TMazeObsPunishment][s])
	}
	// softmax([0, 0, 0, 1, -2]).
	z := 3 + math.E + math.Exp(-2)
	if diff := cmp.Diff([]float64{1 / z, 1 / z, 1 / z, math.E / z, math.Exp(-2) / z}, mm.C, cmpopts.EquateApprox(0, tol)); diff != "" {
		t.Errorf("C mismatch (-want +got):\n%s", diff)
	}

	bad := []struct {
		cfg  TMazeConfig
		want string
	}{
		{TMazeConfig{CueValidity: 1.5, RewardProbability: 1}, "envs: TMazeConfig.CueValidity 1.5 out of range [0, 1]"},
		{TMazeConfig{CueValidity: math.NaN(), RewardProbability: 1}, "envs: TMazeConfig.CueValidity NaN out of range [0, 1]"},
		{TMazeConfig{CueValidity: 1, RewardProbability: -0.5}, "envs: TMazeConfig.RewardProbability -0.5 out of range [0, 1]"},
		{TMazeConfig{CueValidity: 1, RewardProbability: 1, RewardPreference: math.Inf(1)}, "envs: TMazeConfig.RewardPreference +Inf is not finite"},
		{TMazeConfig{CueValidity: 1, RewardProbability: 1, PunishmentPreference: math.NaN()}, "envs: TMazeConfig.PunishmentPreference NaN is not finite"},
	}
	for _, tt := range bad {
		if _, err := TMazeModel(&tt.cfg); err == nil || err.Error() != tt.want {
			t.Errorf("TMazeModel(%+v): error %v, want %q", tt.cfg, err, tt.want)
		}
		if _, err := NewTMaze(&tt.cfg, nil); err == nil || err.Error() != tt.want {
			t.Errorf("NewTMaze(%+v): error %v, want %q", tt.cfg, err, tt.want)
		}
	}
}

func TestTMazeEpisode(t *testing.T) {
	tm, err := NewTMaze(nil, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if tm.NumActions() != 4 || tm.NumObservations() != 5 || tm.NumStates() != 8 {
		t.Errorf("sizes %d, %d, %d; want 4, 5, 8", tm.NumActions(), tm.NumObservations(), tm.NumStates())
	}
	if err := tm.FixContext(TMazeRewardRight); err != nil {
		t.Fatal(err)
	}
	if o := tm.Reset(); o != TMazeObsNone || tm.Context() != TMazeRewardRight || tm.Location() != TMazeStart {
		t.Fatalf("Reset = %d at %d/%d", o, tm.Location(), tm.Context())
	}
	if _, err := tm.Step(4); err == nil {
		t.Error("Step(4) succeeded")
	}
	if _, err := tm.Step(-1); err == nil {
		t.Error("Step(-1) succeeded")
	}
	if o, _ := tm.Step(TMazeStart); o != TMazeObsNone || tm.Done() || tm.InArm() {
		t.Errorf("at start: obs %d, Done %v, InArm %v", o, tm.Done(), tm.InArm())
	}
	if o, _ := tm.Step(TMazeCue); o != TMazeObsCueLeft && o != TMazeObsCueRight {
		t.Errorf("at the cue: obs %d", o)
	}
	// Reward probability 1: the rewarded arm always rewards.
	if o, _ := tm.Step(TMazeRight); o != TMazeObsReward || !tm.Done() || !tm.InArm() {
		t.Errorf("in the right arm: obs %d, Done %v, InArm %v", o, tm.Done(), tm.InArm())
	}
	// Absorbing: going left from the right arm stays in the right arm.
	if o, _ := tm.Step(TMazeLeft); o != TMazeObsReward || tm.Location() != TMazeRight {
		t.Errorf("after LEFT from the right arm: obs %d at %d", o, tm.Location())
	}
	if tm.State() != TMazeState(TMazeRight, TMazeRewardRight) {
		t.Errorf("State = %d", tm.State())
	}
	tm.Reset()
	if o, _ := tm.Step(TMazeLeft); o != TMazeObsPunishment || tm.Done() || !tm.InArm() {
		t.Errorf("in the left arm: obs %d, Done %v, InArm %v", o, tm.Done(), tm.InArm())
	}
	if err := tm.FixContext(2); err == nil {
		t.Error("FixContext(2) succeeded")
	}
}

// TestTMazeStatistics checks sampled frequencies against the model:
// contexts are drawn 1/2 each and the cue is right with probability 0.95.
// With n = 20000 draws the standard errors are sqrt(0.25/n) = 0.0035 and
// sqrt(0.95*0.05/n) = 0.0015; the tolerance 0.02 is more than 5 of them.
func TestTMazeStatistics(t *testing.T) {
	tm, err := NewTMaze(nil, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	var right, valid int
	for range n {
		tm.Reset()
		if tm.Context() == TMazeRewardRight {
			right++
		}
		o, err := tm.Step(TMazeCue)
		if err != nil {
			t.Fatal(err)
		}
		if (o == TMazeObsCueLeft) == (tm.Context() == TMazeRewardLeft) {
			valid++
		}
	}
	if f := float64(right) / n; math.Abs(f-0.5) > 0.02 {
		t.Errorf("context right in %v of episodes, want 0.5", f)
	}
	if f := float64(valid) / n; math.Abs(f-0.95) > 0.02 {
		t.Errorf("cue valid in %v of steps, want 0.95", f)
	}

	// Seeded runs repeat.
	run := func() []int {
		tm, _ := NewTMaze(nil, rand.New(rand.NewPCG(5, 6)))
		var out []int
		for range 50 {
			out = append(out, tm.Reset()+10*tm.Context())
			o, _ := tm.Step(TMazeCue)
			out = append(out, o)
		}
		return out
	}
	if diff := cmp.Diff(run(), run()); diff != "" {
		t.Errorf("seeded runs differ (-first +second):\n%s", diff)
	}
	// The global source works too.
	tm, err = NewTMaze(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := tm.Step(TMazeCue); o != TMazeObsCueLeft && o != TMazeObsCueRight {
		t.Errorf("obs %d at the cue", o)
	}
	if tm.Config() != DefaultTMazeConfig() {
		t.Errorf("Config = %+v", tm.Config())
	}
	if diff := cmp.Diff(tm.Model(), mustTMazeModel(t)); diff != "" {
		t.Errorf("Model mismatch (-env +TMazeModel):\n%s", diff)
	}
}

func mustTMazeModel(t *testing.T) *MazeModel {
	mm, err := TMazeModel(nil)
	if err != nil {
		t.Fatal(err)
	}
	return mm
}
