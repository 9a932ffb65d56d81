package si_test

import (
	"context"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// The T-maze of pymdp's notebook
// examples/experimental/sophisticated_inference/si_tmaze_SIvalidation.ipynb
// (pymdp/envs/si_tmaze.py with cue_validity 0.95, reward_probability 1,
// dependent_outcomes true; the agent's C = [0, 2, -6] on the outcome
// modality and 0 on the location modality, flat D over both factors,
// gamma 3), written as examples/pomdp/si-tmaze.json.
const siTMaze = "../examples/pomdp/si-tmaze.json"

// Actions of si-tmaze.json, in pymdp's order.
const (
	goCentre = iota
	goLeft
	goRight
	goCue
)

// tmazeRoot returns the model and the exact posterior after the first
// observation of the notebook's rollout, (centre, no outcome).
func tmazeRoot(t *testing.T) (*pomdp.Model, []float64) {
	t.Helper()
	m, err := pomdp.Load(siTMaze)
	if err != nil {
		t.Fatal(err)
	}
	o, err := m.EncodeObs([]int{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	qs, err := pomdp.StatePosterior(nil, m, o)
	if err != nil {
		t.Fatal(err)
	}
	return m, qs
}

// TestPymdpSITMaze: with marginal branching (pymdp's), depth 2 (the
// notebook's si_policy_search horizon=2), gamma 3 and every threshold 0,
// the first action's distribution is the notebook's, printed by its last
// cell (print_qpi(agent_si, ...), timestep 0) to three decimals:
// centre 0.003, left 0.008, right 0.008, cue 0.980. The tolerance 1e-3
// covers that rounding. The notebook's vanilla agent (policies of length
// 2, gamma 3) printed 0.183, 0.004, 0.004, 0.809, which aci's policy
// marginal at horizon 2 reproduces.
func TestPymdpSITMaze(t *testing.T) {
	m, qs := tmazeRoot(t)
	res, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 2, Gamma: 3, Branch: si.Marginal})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.003, 0.008, 0.008, 0.980}
	for u, w := range want {
		if math.Abs(res.ActionProbs[u]-w) > 1e-3 {
			t.Errorf("SI: Q(%s) = %.4f, pymdp %.3f", m.ActionName(u), res.ActionProbs[u], w)
		}
	}
	t.Logf("SI depth 2: G %.6f, Q %.6f (%d nodes)", res.G, res.ActionProbs, res.Nodes)

	ev, err := aci.Eval(m, mustObs(t, m, 0, 0), 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	vanilla := []float64{0.183, 0.004, 0.004, 0.809}
	for u, w := range vanilla {
		if math.Abs(ev.ActionProbs[u]-w) > 1e-3 {
			t.Errorf("vanilla: P(%s) = %.4f, pymdp %.3f", m.ActionName(u), ev.ActionProbs[u], w)
		}
	}

	// Joint branching is exact; in this maze at most one modality is
	// uncertain after any action, so it gives the same numbers.
	joint, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 2, Gamma: 3})
	if err != nil {
		t.Fatal(err)
	}
	for u := range joint.G {
		if math.Abs(joint.G[u]-res.G[u]) > 1e-12 {
			t.Errorf("G[%d]: joint %.15g, marginal %.15g", u, joint.G[u], res.G[u])
		}
	}
}

func mustObs(t *testing.T, m *pomdp.Model, outcomes ...int) int {
	t.Helper()
	o, err := m.EncodeObs(outcomes)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestTMazeSymmetric: the two arms are mirror images, so their G and
// probabilities agree (to rounding, 1e-12) at every depth.
func TestTMazeSymmetric(t *testing.T) {
	m, qs := tmazeRoot(t)
	for depth := 1; depth <= 4; depth++ {
		res, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: depth, Gamma: 3})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.G[goLeft]-res.G[goRight]) > 1e-12 || math.Abs(res.ActionProbs[goLeft]-res.ActionProbs[goRight]) > 1e-12 {
			t.Errorf("depth %d: left G %.15g Q %.15g, right G %.15g Q %.15g", depth,
				res.G[goLeft], res.ActionProbs[goLeft], res.G[goRight], res.ActionProbs[goRight])
		}
	}
}

// singleCue is _build_single_cue_model of pymdp's
// test/test_sophisticated_inference_jax.py: location (start, left, right,
// cue; one control per target location) and reward (left, right); a fully
// valid cue at the cue location, reward or punishment in the arms; D: the
// start, and 0.5/0.5 on the reward. C is that of
// test_si_accepts_costly_informative_cue: cue cost -2 on both cue
// outcomes, reward 6, punishment -12.
func singleCue(t *testing.T) *pomdp.Model {
	t.Helper()
	const nl = 4
	cue := make([]float64, 5*nl*2) // [o][loc][reward]
	out := make([]float64, 3*nl*2)
	set := func(a []float64, o, loc, r int) { a[(o*nl+loc)*2+r] = 1 }
	for r := range 2 {
		set(cue, 0, 0, r)
		set(out, 0, 0, r)
		set(cue, 3+r, 3, r)
		set(out, 0, 3, r)
		set(cue, 1, 1, r)
		set(out, pick(r == 0, 1, 2), 1, r)
		set(cue, 2, 2, r)
		set(out, pick(r == 1, 1, 2), 2, r)
	}
	fs := pomdp.FactorisedSpec{
		Factors: []pomdp.Factor{
			{Name: "location", NumStates: nl, Controls: []string{"start", "left", "right", "cue"}, B: moveAnywhere(nl), D: []float64{1, 0, 0, 0}},
			{Name: "reward", NumStates: 2, B: []float64{1, 0, 0, 1}, D: []float64{0.5, 0.5}},
		},
		Modalities: []pomdp.Modality{
			{Name: "cue", NumOutcomes: 5, DependsOn: []string{"location", "reward"}, A: cue, LogC: []float64{0, 0, 0, -2, -2}},
			{Name: "outcome", NumOutcomes: 3, DependsOn: []string{"location", "reward"}, A: out, LogC: []float64{0, 6, -12}},
		},
	}
	m, err := pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// moveAnywhere is pymdp's utils.create_controllable_B(n, n): control u
// moves to location u from anywhere; flat [u][next][prev].
func moveAnywhere(n int) []float64 {
	b := make([]float64, n*n*n)
	for u := range n {
		for prev := range n {
			b[(u*n+u)*n+prev] = 1
		}
	}
	return b
}

// pymdpSearch is the search of pymdp's _run_si_search: horizon 2, gamma 4,
// thresholds 0, from the prior D (topk_obsspace=2 keeps every outcome of
// these models, which have at most two per modality after any action).
func pymdpSearch(t *testing.T, m *pomdp.Model) (*si.Result, []float64) {
	t.Helper()
	var qs []float64
	for f := range m.NumFactors() {
		spec := m.FactorisedSpec().Factors[f]
		qs = append(qs, spec.D...)
	}
	res, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 2, Gamma: 4, Branch: si.Marginal})
	if err != nil {
		t.Fatal(err)
	}
	return res, qs
}

// TestPymdpCostlyInformativeCue ports test_si_accepts_costly_informative_cue:
// SI goes to the cue although the step there costs (its risk is above
// staying's: the cue outcomes have log-preference -2), while classic
// active inference over policies of length 2 (gamma 4) prefers to stay.
func TestPymdpCostlyInformativeCue(t *testing.T) {
	m := singleCue(t)
	res, qs := pymdpSearch(t, m)
	const stay, left, right, cue = 0, 1, 2, 3
	if best := argmax(res.ActionProbs); best != cue {
		t.Errorf("SI chooses %s, want the cue: Q %.4f", m.ActionName(best), res.ActionProbs)
	}
	if !(res.ActionProbs[cue] > res.ActionProbs[left] && res.ActionProbs[cue] > res.ActionProbs[right]) {
		t.Errorf("SI: Q(cue) %.4f not above the arms' %.4f, %.4f", res.ActionProbs[cue], res.ActionProbs[left], res.ActionProbs[right])
	}
	if !(res.Risk[cue] > res.Risk[stay]) {
		t.Errorf("the cue's one-step risk %.4f is not above staying's %.4f", res.Risk[cue], res.Risk[stay])
	}
	ps, err := aci.EvaluatePolicies(m, qs, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	qpi, err := ps.Posterior(nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	vanilla := ps.ActionProbs(nil, qpi)
	if !(vanilla[cue] < vanilla[stay]) || argmax(vanilla) == cue {
		t.Errorf("classic active inference: P %.4f, want staying above the cue and the cue not chosen", vanilla)
	}
}

// dualCue is _build_dual_cue_model of the same pymdp test file: location
// (start, cue A, cue B, reward left, reward right), reward (left, right)
// and an irrelevant distractor (two states); cue A reports the reward
// side, cue B the distractor; C as test_si_ignores_irrelevant_distractor_cue
// (cost -2 on both cues' informative outcomes, reward 6, punishment -12).
func dualCue(t *testing.T) *pomdp.Model {
	t.Helper()
	const nl = 5
	loc := make([]float64, nl*nl)
	for i := range nl {
		loc[i*nl+i] = 1
	}
	cueA := make([]float64, 3*nl*2)
	cueB := make([]float64, 3*nl*2)
	rew := make([]float64, 3*nl*2)
	set := func(a []float64, o, l, s int) { a[(o*nl+l)*2+s] = 1 }
	for l := range nl {
		for s := range 2 {
			if l == 1 {
				set(cueA, 1+s, l, s)
			} else {
				set(cueA, 0, l, s)
			}
			switch l {
			case 3:
				set(rew, pick(s == 0, 1, 2), l, s)
			case 4:
				set(rew, pick(s == 1, 1, 2), l, s)
			default:
				set(rew, 0, l, s)
			}
			if l == 2 {
				set(cueB, 1+s, l, s)
			} else {
				set(cueB, 0, l, s)
			}
		}
	}
	fs := pomdp.FactorisedSpec{
		Factors: []pomdp.Factor{
			{Name: "location", NumStates: nl, Controls: []string{"start", "cue-a", "cue-b", "left", "right"}, B: moveAnywhere(nl), D: []float64{1, 0, 0, 0, 0}},
			{Name: "reward", NumStates: 2, B: []float64{1, 0, 0, 1}, D: []float64{0.5, 0.5}},
			{Name: "distractor", NumStates: 2, B: []float64{1, 0, 0, 1}, D: []float64{0.5, 0.5}},
		},
		Modalities: []pomdp.Modality{
			{Name: "location", NumOutcomes: nl, DependsOn: []string{"location"}, A: loc},
			{Name: "cue-a", NumOutcomes: 3, DependsOn: []string{"location", "reward"}, A: cueA, LogC: []float64{0, -2, -2}},
			{Name: "cue-b", NumOutcomes: 3, DependsOn: []string{"location", "distractor"}, A: cueB, LogC: []float64{0, -2, -2}},
			{Name: "reward", NumOutcomes: 3, DependsOn: []string{"location", "reward"}, A: rew, LogC: []float64{0, 6, -12}},
		},
	}
	m, err := pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPymdpIrrelevantCue ports test_si_ignores_irrelevant_distractor_cue:
// SI prefers the cue that tells where the reward is, and goes there.
func TestPymdpIrrelevantCue(t *testing.T) {
	m := dualCue(t)
	res, _ := pymdpSearch(t, m)
	const cueA, cueB = 1, 2
	if !(res.ActionProbs[cueA] > res.ActionProbs[cueB]) {
		t.Errorf("Q(cue A) %.4f not above Q(cue B) %.4f", res.ActionProbs[cueA], res.ActionProbs[cueB])
	}
	if best := argmax(res.ActionProbs); best != cueA {
		t.Errorf("SI chooses %s, want cue A: Q %.4f", m.ActionName(best), res.ActionProbs)
	}
}

// TestPymdpSymmetricCues ports the last assertion of the same pymdp test:
// for classic active inference (policies of length 2, gamma 4) the two
// cues are alike, each a costly step whose information the policy cannot
// use, so their probabilities are equal (pymdp: to 6 places; here to
// 1e-12, and their G too).
func TestPymdpSymmetricCues(t *testing.T) {
	m := dualCue(t)
	_, qs := pymdpSearch(t, m)
	ps, err := aci.EvaluatePolicies(m, qs, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	qpi, err := ps.Posterior(nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	p := ps.ActionProbs(nil, qpi)
	const cueA, cueB = 1, 2
	if math.Abs(p[cueA]-p[cueB]) > 1e-12 {
		t.Errorf("classic active inference: P(cue A) %.15g, P(cue B) %.15g", p[cueA], p[cueB])
	}
	// At depth 1 SI is classic active inference at horizon 1: the two
	// cues cost the same.
	res, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 1, Gamma: 4})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.G[cueA]-res.G[cueB]) > 1e-12 {
		t.Errorf("SI depth 1: G(cue A) %.15g, G(cue B) %.15g", res.G[cueA], res.G[cueB])
	}
}

func argmax(x []float64) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// pick returns a when c holds, else b: the outcome (reward 1 or
// punishment 2) of an arm.
func pick(c bool, a, b int) int {
	if c {
		return a
	}
	return b
}
