package si_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// tmazeWorld is si-tmaze.json as the true process: the agent starts at
// the centre and the reward is on the left.
func tmazeWorld(t *testing.T) *pomdp.Model {
	t.Helper()
	m, err := pomdp.Load(siTMaze)
	if err != nil {
		t.Fatal(err)
	}
	fs := m.FactorisedSpec()
	fs.Factors[0].D = []float64{1, 0, 0, 0}
	fs.Factors[1].D = []float64{1, 0}
	w, err := pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestAgentTMaze: as in the notebook's rollout, the agent (depth 2,
// gamma 3) goes to the cue, then to the arm the cue names, and stays. The
// world's stream agent.WorldRand(0, 0) draws a valid cue.
func TestAgentTMaze(t *testing.T) {
	m, qs := tmazeRoot(t)
	ag, err := si.NewAgent(m, &si.Options{Depth: 2, Gamma: 3})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := agent.RunEpisode(context.Background(), ag, pomdp.NewProcess(tmazeWorld(t), agent.WorldRand(0, 0)), &agent.EpisodeSettings{MaxSteps: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ep.Actions(), []int{goCue, goLeft, goLeft}; !slices.Equal(got, want) {
		t.Errorf("actions %v, want %v (cue, left, left)", got, want)
	}
	// The first belief is the exact posterior of aci eval.
	for i, q := range ep.Steps[0].Belief {
		if math.Abs(q-qs[i]) > 1e-12 {
			t.Errorf("belief after Reset %v, StatePosterior %v", ep.Steps[0].Belief, qs)
			break
		}
	}
	// After the cue-left: the context is 0.95 left (Bayes' rule).
	if b := ep.Steps[1].Belief; math.Abs(b[4]-0.95) > 1e-12 {
		t.Errorf("belief after the cue %v, want the left context at 0.95", b)
	}
	d := ep.Steps[0].Decision
	res := d.Detail.(*si.Result)
	for _, name := range []string{"G", "risk", "ambiguity", "q_u"} {
		if d.Value(name) == nil {
			t.Errorf("decision has no %q", name)
		}
	}
	if !slices.Equal(d.Probs, res.ActionProbs) || !slices.Equal(d.Value("G"), res.G) {
		t.Errorf("Probs %v and G %v, result %v and %v", d.Probs, d.Value("G"), res.ActionProbs, res.G)
	}
}

// TestAgentReplay: a recorded trial is scored with the decision's
// probabilities; the first choice (the cue) with the search's Q(cue).
func TestAgentReplay(t *testing.T) {
	m, qs := tmazeRoot(t)
	o := &si.Options{Depth: 2, Gamma: 3}
	ag, err := si.NewAgent(m, o)
	if err != nil {
		t.Fatal(err)
	}
	obs := []int{mustObs(t, m, 0, 0), mustObs(t, m, 3, 0), mustObs(t, m, 1, 1)}
	rt, err := agent.Replay(context.Background(), ag, obs, []int{goCue, goLeft}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := si.Plan(context.Background(), m, qs, o)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(rt.Steps[0].PAction-res.ActionProbs[goCue]) > 1e-12 {
		t.Errorf("P(cue) %v, search %v", rt.Steps[0].PAction, res.ActionProbs[goCue])
	}
	ll := math.Log(rt.Steps[0].PAction) + math.Log(rt.Steps[1].PAction)
	if rt.Choices != 2 || math.Abs(rt.LogLikelihood-ll) > 1e-12 {
		t.Errorf("%d choices, log-likelihood %v, want 2 and %v", rt.Choices, rt.LogLikelihood, ll)
	}
	// A missed response: the agent carries its belief under its own
	// distribution (AdvanceMixed).
	rt, err = agent.Replay(context.Background(), ag, obs, []int{-1, goLeft}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rt.Choices != 1 || !rt.Steps[0].Missed {
		t.Errorf("missed response: %d choices, missed %v", rt.Choices, rt.Steps[0].Missed)
	}
}

// TestAgentLearning: with concentrations d over the context (tmaze.json,
// d = [1, 1]) the agent learns between trials: after a trial it has one
// more count (the smoothed posterior of the first context), and the next
// trial starts from D = exp E[ln D] under the learned d, normalised
// (docs/aci.md: 1/(1 + e⁻¹) = 0.731 for d = (2, 1)).
func TestAgentLearning(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	ag, err := si.NewAgent(m, &si.Options{Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	fs := m.FactorisedSpec()
	fs.Factors[1].D, fs.Factors[1].ConcD = []float64{1, 0}, nil
	world, err := pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := agent.RunEpisode(context.Background(), ag, pomdp.NewProcess(world, agent.WorldRand(0, 0)), &agent.EpisodeSettings{MaxSteps: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ep.Learned == nil {
		t.Fatal("no concentrations recorded")
	}
	d := ag.Concentrations().D[1]
	if math.Abs(d[0]+d[1]-3) > 1e-12 || !(d[0] > d[1]) {
		t.Errorf("learned d = %v, want 3 counts, most on the rewarded left", d)
	}
	if err := ag.Reset(context.Background(), ep.Steps[0].Obs); err != nil {
		t.Fatal(err)
	}
	b := ag.Belief()
	g0, g1 := math.Exp(expfam.Digamma(d[0])), math.Exp(expfam.Digamma(d[1]))
	if want := g0 / (g0 + g1); math.Abs(b[4]-want) > 1e-12 {
		t.Errorf("next trial's first belief %v, want the left context at %v", b, want)
	}
}

// TestAgentChoice: the action precision α shapes P = σ(α ln Q) (α = 0 is
// uniform), and SelectSample draws from P with the step's stream: equal
// streams, equal actions.
func TestAgentChoice(t *testing.T) {
	m, _ := tmazeRoot(t)
	o0 := mustObs(t, m, 0, 0)
	decide := func(o *si.Options, seed uint64) *agent.Decision {
		ag, err := si.NewAgent(m, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Reset(context.Background(), o0); err != nil {
			t.Fatal(err)
		}
		d, err := ag.Decide(context.Background(), rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	zero, two := 0.0, 2.0 // α = 0 (uniform) and a sharpening α = 2
	d := decide(&si.Options{Depth: 2, Gamma: 3, ActionPrecision: &zero}, 1)
	for u, p := range d.Probs {
		if p != 0.25 { // uniform over the 4 actions
			t.Errorf("α = 0: P(%d) = %v, want 1/4", u, p)
		}
	}
	q := d.Value("q_u")
	d2 := decide(&si.Options{Depth: 2, Gamma: 3, ActionPrecision: &two}, 1)
	want, err := agent.PowerProbs(nil, q, 2)
	if err != nil {
		t.Fatal(err)
	}
	for u := range want {
		if math.Abs(d2.Probs[u]-want[u]) > 1e-12 {
			t.Errorf("α = 2: P %v, want %v", d2.Probs, want)
			break
		}
	}
	for seed := range uint64(8) {
		a := decide(&si.Options{Depth: 2, Gamma: 3, ActionPrecision: &zero, Select: si.SelectSample}, seed)
		b := decide(&si.Options{Depth: 2, Gamma: 3, ActionPrecision: &zero, Select: si.SelectSample}, seed)
		if a.Action != b.Action {
			t.Errorf("seed %d: actions %d and %d", seed, a.Action, b.Action)
		}
	}
}

// TestAgentMisuse: the calls of a trial before Reset are errors.
func TestAgentMisuse(t *testing.T) {
	m, _ := tmazeRoot(t)
	ag, err := si.NewAgent(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if ag.Belief() != nil {
		t.Error("belief before Reset")
	}
	if _, err := ag.Decide(ctx, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("Decide before Reset")
	}
	if err := ag.Advance(ctx, 0, 0); err == nil {
		t.Error("Advance before Reset")
	}
	if err := ag.AdvanceMixed(ctx, []float64{1, 0, 0, 0}, 0); err == nil {
		t.Error("AdvanceMixed before Reset")
	}
	if err := ag.EndTrial(ctx); err == nil {
		t.Error("EndTrial before Reset")
	}
	if err := ag.Reset(ctx, m.NumObs()); err == nil {
		t.Error("observation out of range accepted")
	}
}
