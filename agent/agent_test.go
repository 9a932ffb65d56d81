package agent_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// The model used as the true process is an environment of the drivers.
var (
	_ agent.Environment   = (*pomdp.Process)(nil)
	_ agent.StateReporter = (*pomdp.Process)(nil)
)

// TestPowerProbs: P(u) ∝ x_u^α by hand. x = (0.5, 0.25, 0.25, 0):
// α = 2 gives (0.25, 0.0625, 0.0625, 0)/0.375 = (2/3, 1/6, 1/6, 0);
// α = 1 gives x itself; α = 0 the uniform 1/4 (the zero entry included);
// visit counts (30, 10, 0) at α = 0.5 give (√30, √10, 0)/(√30 + √10).
func TestPowerProbs(t *testing.T) {
	for _, c := range []struct {
		x     []float64
		alpha float64
		want  []float64
	}{
		{[]float64{0.5, 0.25, 0.25, 0}, 2, []float64{2.0 / 3, 1.0 / 6, 1.0 / 6, 0}},
		{[]float64{0.5, 0.25, 0.25, 0}, 1, []float64{0.5, 0.25, 0.25, 0}},
		{[]float64{0.5, 0.25, 0.25, 0}, 0, []float64{0.25, 0.25, 0.25, 0.25}},
		{[]float64{30, 10, 0}, 0.5, []float64{math.Sqrt(30) / (math.Sqrt(30) + math.Sqrt(10)), math.Sqrt(10) / (math.Sqrt(30) + math.Sqrt(10)), 0}},
		// Huge α on tiny probabilities: no overflow, the largest wins.
		{[]float64{1e-300, 2e-300}, 1e6, []float64{0, 1}},
	} {
		got, err := agent.PowerProbs(nil, c.x, c.alpha)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-15 {
				t.Errorf("PowerProbs(%v, %v) = %v, want %v", c.x, c.alpha, got, c.want)
				break
			}
		}
	}
	for _, alpha := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := agent.PowerProbs(nil, []float64{1}, alpha); err == nil {
			t.Errorf("α = %v: no error", alpha)
		}
	}
	if _, err := agent.PowerProbs(nil, []float64{0, 0}, 1); err == nil {
		t.Error("no positive weight: no error")
	}
}

// TestSampleNeverDrawsZero: a zero-probability entry is never drawn, and
// the draws follow the distribution (10,000 draws of (0.2, 0, 0.8): the
// share of 0 within 5 standard deviations, 5·√(0.2·0.8/10⁴) = 0.02).
func TestSampleNeverDrawsZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := []float64{0.2, 0, 0.8}
	n0 := 0
	for range 10000 {
		switch agent.Sample(rng, p) {
		case 0:
			n0++
		case 1:
			t.Fatal("drew an entry of probability 0")
		}
	}
	if f := float64(n0) / 10000; math.Abs(f-0.2) > 0.02 {
		t.Errorf("share of 0: %v, want 0.2 ± 0.02", f)
	}
}

// TestStepRand: the stream of a step depends on the seed, agent, trial and
// step, and on nothing else; agent 0's trial i of seed s is trial 0 of
// seed s + i (a run's episode i repeats seed s + i of the tables).
func TestStepRand(t *testing.T) {
	draw := func(seed uint64, ag, trial, step int) uint64 {
		return agent.StepRand(seed, ag, trial, step).Uint64()
	}
	if a, b := draw(3, 1, 2, 4), draw(3, 1, 2, 4); a != b {
		t.Error("equal arguments, different streams")
	}
	seen := map[uint64]bool{}
	for _, a := range [][4]int{{3, 0, 0, 0}, {3, 2, 0, 0}, {3, 1, 0, 0}, {3, 0, 1, 0}, {3, 0, 0, 1}, {3, 1, 1, 1}} {
		seen[draw(uint64(a[0]), a[1], a[2], a[3])] = true
	}
	if len(seen) != 6 {
		t.Errorf("6 different steps gave %d different streams", len(seen))
	}
	if draw(5, 0, 2, 3) != draw(7, 0, 0, 3) {
		t.Error("trial 2 of seed 5 is not trial 0 of seed 7")
	}
}

// TestFactorProbs: the marginal of each controllable factor of a joint
// action distribution, on a model with two controllable factors of 2 and
// 3 controls (joint actions: the first factor slowest).
func TestFactorProbs(t *testing.T) {
	m := twoControlModel(t)
	d := &agent.Decision{Probs: []float64{0.1, 0.2, 0.3, 0.05, 0.15, 0.2}}
	got, err := d.FactorProbs(m)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0.6, 0.4}, {0.15, 0.35, 0.5}}
	for f := range want {
		for i := range want[f] {
			if math.Abs(got[f][i]-want[f][i]) > 1e-15 {
				t.Errorf("factor %d: %v, want %v", f, got[f], want[f])
			}
		}
	}
}

func twoControlModel(t *testing.T) *pomdp.Model {
	t.Helper()
	id := func(n, copies int) []float64 {
		var b []float64
		for range copies {
			for i := range n {
				for j := range n {
					b = append(b, map[bool]float64{true: 1}[i == j])
				}
			}
		}
		return b
	}
	m, err := pomdp.NewFactorised(pomdp.FactorisedSpec{
		Factors: []pomdp.Factor{
			{Name: "x", NumStates: 2, Controls: []string{"a", "b"}, D: []float64{1, 0}, B: id(2, 2)},
			{Name: "y", NumStates: 3, Controls: []string{"p", "q", "r"}, D: []float64{1, 0, 0}, B: id(3, 3)},
		},
		Modalities: []pomdp.Modality{{Name: "o", NumOutcomes: 2, DependsOn: []string{"x"}, A: id(2, 1)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fakeAgent decides with fixed probabilities (those of its step, cycling)
// and records what it is told.
type fakeAgent struct {
	probs         [][]float64
	deterministic bool
	t             int
	told          []int
	mixed         int
}

func (a *fakeAgent) Reset(_ context.Context, obs int) error {
	a.t = 0
	a.told = append(a.told, obs)
	return nil
}
func (a *fakeAgent) Decide(_ context.Context, rng *rand.Rand) (*agent.Decision, error) {
	p := a.probs[a.t%len(a.probs)]
	return &agent.Decision{Probs: p, Action: agent.Sample(rng, p), Deterministic: a.deterministic}, nil
}
func (a *fakeAgent) Advance(_ context.Context, u, obs int) error {
	a.t++
	a.told = append(a.told, u, obs)
	return nil
}
func (a *fakeAgent) EndTrial(context.Context) error { return nil }
func (a *fakeAgent) Belief() []float64              { return []float64{1} }

type mixedAgent struct{ fakeAgent }

func (a *mixedAgent) AdvanceMixed(_ context.Context, probs []float64, obs int) error {
	a.t++
	a.mixed++
	a.told = append(a.told, -1, obs)
	return nil
}

// TestReplayScores: the log-likelihood is Σ ln P(recorded action) over the
// scored steps: recorded actions 1, 0 under (0.25, 0.75) then (0.6, 0.4)
// give ln 0.75 + ln 0.6; a missed response is not scored and the agent
// is told the mixture (AdvanceMixed) or, without it, its own draw; a
// deterministic agent is refused.
func TestReplayScores(t *testing.T) {
	ctx := context.Background()
	probs := [][]float64{{0.25, 0.75}, {0.6, 0.4}, {0.5, 0.5}}
	ag := &fakeAgent{probs: probs}
	rt, err := agent.Replay(ctx, ag, []int{7, 8, 9}, []int{1, 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Log(0.75) + math.Log(0.6); math.Abs(rt.LogLikelihood-want) > 1e-15 || rt.Choices != 2 {
		t.Errorf("log-likelihood %v over %d choices, want %v over 2", rt.LogLikelihood, rt.Choices, want)
	}
	if want := []int{7, 1, 8, 0, 9}; !slices.Equal(ag.told, want) {
		t.Errorf("agent told %v, want %v", ag.told, want)
	}
	if len(rt.Steps) != 3 || rt.Steps[2].Decision != nil || rt.Steps[0].PAction != 0.75 {
		t.Errorf("steps %+v", rt.Steps)
	}

	mx := &mixedAgent{fakeAgent{probs: probs}}
	rt, err = agent.Replay(ctx, mx, []int{7, 8, 9}, []int{-1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(rt.LogLikelihood-math.Log(0.4)) > 1e-15 || rt.Choices != 1 || mx.mixed != 1 || !rt.Steps[0].Missed {
		t.Errorf("missed response: log-likelihood %v over %d choices, %d mixed advances", rt.LogLikelihood, rt.Choices, mx.mixed)
	}
	plain := &fakeAgent{probs: probs}
	if _, err := agent.Replay(ctx, plain, []int{7, 8, 9}, []int{-1, 1}, nil); err != nil || plain.told[1] < 0 {
		t.Errorf("missed response without AdvanceMixed: %v, told %v (want the agent's own draw)", err, plain.told)
	}

	det := &fakeAgent{probs: [][]float64{{1, 0}}, deterministic: true}
	if _, err := agent.Replay(ctx, det, []int{0, 0}, []int{0}, nil); !errors.Is(err, agent.ErrDeterministic) {
		t.Errorf("deterministic agent: %v, want ErrDeterministic", err)
	}
	if _, err := agent.Replay(ctx, ag, []int{0, 0}, []int{0, 1}, nil); err == nil {
		t.Error("2 actions for 2 observations: no error")
	}
	var se *agent.StepError
	if _, err := agent.Replay(ctx, ag, []int{0, 0}, []int{5}, nil); !errors.As(err, &se) || se.Step != 0 {
		t.Errorf("an action out of range: %v, want a StepError at step 0", err)
	}
}

// TestRunOrdered: results are emitted in unit order whatever the number
// of workers and groups; a group's units run in order on one worker; an
// error names its unit; a cancelled context returns its error after the
// finished units.
func TestRunOrdered(t *testing.T) {
	for _, workers := range []int{1, 2, 5} {
		for _, per := range []int{1, 3} {
			var got []int
			owner := make([]int, 10)
			err := agent.RunOrdered(context.Background(), 10, per, workers, func(_ context.Context, w, i int) (int, error) {
				owner[i] = w
				return i * i, nil
			}, func(i, r int) error {
				if r != i*i || i != len(got) {
					t.Errorf("unit %d: %d out of order", i, r)
				}
				got = append(got, i)
				return nil
			})
			if err != nil || len(got) != 10 {
				t.Fatalf("workers %d per %d: %v, %d results", workers, per, err, len(got))
			}
			for i := range owner {
				if i%per != 0 && owner[i] != owner[i-1] {
					t.Errorf("workers %d per %d: unit %d ran on worker %d, its group's first on %d", workers, per, i, owner[i], owner[i-1])
				}
			}
		}
	}
	boom := errors.New("boom")
	err := agent.RunOrdered(context.Background(), 10, 1, 2, func(_ context.Context, _, i int) (int, error) {
		if i == 4 {
			return 0, boom
		}
		return i, nil
	}, func(int, int) error { return nil })
	var ue *agent.UnitError
	if !errors.As(err, &ue) || ue.Unit != 4 || !errors.Is(err, boom) {
		t.Errorf("error: %v, want unit 4's", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err = agent.RunOrdered(ctx, 10, 1, 1, func(ctx context.Context, _, i int) (int, error) {
		if i == 3 {
			cancel()
		}
		return i, ctx.Err()
	}, func(int, int) error { n++; return nil })
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Errorf("cancelled after 3 units: %v, %d emitted", err, n)
	}
}

// TestRunOrderedBounded: however slowly emit works, at most 2·workers
// groups are started and not yet emitted, so a long batch holds a bounded
// number of results.
func TestRunOrderedBounded(t *testing.T) {
	for _, per := range []int{1, 4} {
		const workers = 3
		var mu sync.Mutex
		started, emitted, most := 0, 0, 0
		err := agent.RunOrdered(context.Background(), 200, per, workers, func(_ context.Context, _, i int) (int, error) {
			mu.Lock()
			started++
			if ahead := started - emitted; ahead > most {
				most = ahead
			}
			mu.Unlock()
			return i, nil
		}, func(int, int) error {
			time.Sleep(100 * time.Microsecond)
			mu.Lock()
			emitted++
			mu.Unlock()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if limit := 2 * workers * per; most > limit {
			t.Errorf("per %d: %d units ahead of the output, want at most %d", per, most, limit)
		}
	}
}
