package aci

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/arbor-ai/arbor/pomdp"
)

// bruteQPi is an independent computation of the classic policy posterior
// and its action marginal from the definitions (paper eqs. 2 and 9, section
// 4 "Action selection"): every policy of length T is enumerated with nested
// counters, rolled out from qs from scratch on the nested matrices of the
// Spec, and scored with risk = KL[A q || C] and ambiguity = q·H[A]; then
// q_pi ∝ E(pi) exp(-gamma G) and P(u) = sum of q_pi over pi_1 = u.
func bruteQPi(sp pomdp.Spec, qs []float64, T int, gamma float64, habits []float64) (G, qpi, act []float64) {
	ns, no, nu := sp.NumStates, sp.NumObs, sp.NumActions
	n := int(math.Pow(float64(nu), float64(T)))
	pol := make([]int, T)
	for i := range n {
		// Lexicographic: the first action varies slowest.
		x := i
		for d := T - 1; d >= 0; d-- {
			pol[d] = x % nu
			x /= nu
		}
		q := append([]float64(nil), qs...)
		g := 0.0
		for _, u := range pol {
			next := make([]float64, ns)
			for s1 := range ns {
				for s0 := range ns {
					next[s1] += sp.B[(u*ns+s1)*ns+s0] * q[s0]
				}
			}
			q = next
			for o := range no {
				qo := 0.0
				for s := range ns {
					qo += sp.A[o*ns+s] * q[s]
				}
				if qo > 0 {
					g += qo * math.Log(qo/sp.C[o])
				}
			}
			for s := range ns {
				for o := range no {
					if p := sp.A[o*ns+s]; p > 0 {
						g -= q[s] * p * math.Log(p)
					}
				}
			}
		}
		G = append(G, g)
	}
	qpi = make([]float64, n)
	z := 0.0
	for i, g := range G {
		qpi[i] = math.Exp(-gamma * g)
		if habits != nil {
			qpi[i] *= habits[i/(n/nu)]
		}
		z += qpi[i]
	}
	act = make([]float64, nu)
	for i := range qpi {
		qpi[i] /= z
		act[i/(n/nu)] += qpi[i]
	}
	return G, qpi, act
}

// exactPosterior is Bayes' rule for one observation: q(s) ∝ D(s) A(obs|s).
func exactPosterior(sp pomdp.Spec, obs int) []float64 {
	q := make([]float64, sp.NumStates)
	z := 0.0
	for s := range q {
		q[s] = sp.D[s] * sp.A[obs*sp.NumStates+s]
		z += q[s]
	}
	for s := range q {
		q[s] /= z
	}
	return q
}

// TestAgentPolicyPosteriorBruteForce checks the agent's first step on
// random POMDPs (no zeros, so the log floor does not act) against bruteQPi:
// q(S_0) by Bayes' rule, q(pi) of the graph's policy variable and the
// action marginal, with and without habits.
func TestAgentPolicyPosteriorBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	opt := cmpopts.EquateApprox(0, 1e-9)
	for trial := range 6 {
		ns, no, nu, T := 2+trial%3, 2+trial%2, 2+trial%2, 1+trial%3
		m := randPOMDP(t, rng, ns, no, nu)
		sp := m.Spec()
		var habits []float64
		if trial%2 == 1 {
			habits = randColumns(rng, 1, nu, 1)
		}
		gamma := 0.5 + 4*rng.Float64()
		ag, err := NewAgent(m, &AgentOptions{Horizon: T, Gamma: gamma, Habits: habits})
		if err != nil {
			t.Fatal(err)
		}
		obs := rng.IntN(no)
		if err := ag.Reset(context.Background(), obs); err != nil {
			t.Fatal(err)
		}
		u, err := ag.Act(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		qs := exactPosterior(sp, obs)
		if d := cmp.Diff(qs, ag.Belief(), opt); d != "" {
			t.Errorf("trial %d q(S_0) mismatch (-want +got):\n%s", trial, d)
		}
		G, qpi, act := bruteQPi(sp, qs, T, gamma, habits)
		pols, gotQ := ag.PolicyPosterior()
		gotG := make([]float64, len(pols))
		for i, p := range pols {
			gotG[i] = p.G
		}
		if d := cmp.Diff(G, gotG, opt); d != "" {
			t.Errorf("trial %d G mismatch (-want +got):\n%s", trial, d)
		}
		if d := cmp.Diff(qpi, gotQ, opt); d != "" {
			t.Errorf("trial %d q(pi) mismatch (-want +got):\n%s", trial, d)
		}
		if d := cmp.Diff(act, ag.ActionProbs(), opt); d != "" {
			t.Errorf("trial %d action marginal mismatch (-want +got):\n%s", trial, d)
		}
		best := 0
		for a := range act {
			if act[a] > act[best] {
				best = a
			}
		}
		if u != best {
			t.Errorf("trial %d: argmax action %d, want %d (P = %v)", trial, u, best, act)
		}
	}
}

// TestAgentTopK holds only 3 of the 27 policies in pi and checks that the
// action marginal is still the exact one over all policies (bruteQPi), and
// that q(pi) is the brute-force posterior restricted to the 3 lowest G and
// renormalised, with and without habits and gamma inference.
func TestAgentTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := randPOMDP(t, rng, 4, 3, 3)
	sp := m.Spec()
	const T, k = 3, 3
	for _, habits := range [][]float64{nil, {0.2, 0.5, 0.3}} {
		ag, err := NewAgent(m, &AgentOptions{Horizon: T, Gamma: 2, GraphPolicies: k, Habits: habits})
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Reset(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		if _, err := ag.Act(context.Background()); err != nil {
			t.Fatal(err)
		}
		_, qpi, act := bruteQPi(sp, exactPosterior(sp, 1), T, 2, habits)
		opt := cmpopts.EquateApprox(0, 1e-9)
		if d := cmp.Diff(act, ag.ActionProbs(), opt); d != "" {
			t.Errorf("habits %v: action marginal mismatch (-want +got):\n%s", habits, d)
		}
		pols, got := ag.PolicyPosterior()
		if len(pols) != k || ag.LastPlan().NumPolicies != 27 {
			t.Fatalf("held %d of %d policies, want %d of 27", len(pols), ag.LastPlan().NumPolicies, k)
		}
		want := make([]float64, k)
		z := 0.0
		for i, p := range pols {
			want[i] = qpi[p.Index]
			z += want[i]
		}
		for i := range want {
			want[i] /= z
		}
		if d := cmp.Diff(want, got, opt); d != "" {
			t.Errorf("habits %v: q(pi) over the top %d mismatch (-want +got):\n%s", habits, k, d)
		}
	}
}

// gammaFixedPoint solves the VMP fixed point of the precision for a
// Gamma(1, beta) prior by bisection, independently of nodes.Softmax: with
// gbar = 1/rate, q(pi) = softmax(ln E - gbar G) and the prior policy
// distribution p(pi) = softmax(-gbar G), the rate satisfies
// rate = beta + (q(pi) - p(pi))·G (SPM's precision update; the shape stays
// 1 because the Softmax message to gamma has no ln-gamma component).
func gammaFixedPoint(G, E []float64, beta float64) float64 {
	f := func(rate float64) float64 {
		gbar := 1 / rate
		q := make([]float64, len(G))
		p := make([]float64, len(G))
		zq, zp := 0.0, 0.0
		for i, g := range G {
			p[i] = math.Exp(-gbar * g)
			q[i] = E[i] * p[i]
			zq += q[i]
			zp += p[i]
		}
		d := 0.0
		for i, g := range G {
			d += (q[i]/zq - p[i]/zp) * g
		}
		return rate - beta - d
	}
	lo, hi := 1e-6, 1e6
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if f(mid) > 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return math.Sqrt(lo * hi)
}

// TestGammaInference checks the inferred precision against the fixed point
// computed by gammaFixedPoint, that inferring gamma lowers the free energy
// below that of gamma held at its prior (entry 0 of the trace), and that
// without habits the posterior stays the prior (the update
// (q(pi) - p(pi))·G vanishes when q(pi) = p(pi)).
func TestGammaInference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	m := randPOMDP(t, rng, 3, 3, 3)
	const T, beta = 2, 0.5
	habits := []float64{0.7, 0.2, 0.1}
	ag, err := NewAgent(m, &AgentOptions{Horizon: T, InferGamma: true, Beta: beta, Habits: habits})
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Reset(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := ag.Act(context.Background()); err != nil {
		t.Fatal(err)
	}
	plan := ag.LastPlan()
	pols, _ := ag.PolicyPosterior()
	G := make([]float64, len(pols))
	E := make([]float64, len(pols))
	for i, p := range pols {
		G[i] = p.G
		E[i] = habits[p.Policy[0]] / 3 // 3 policies per first action
	}
	wantRate := gammaFixedPoint(G, E, beta)
	if plan.Gamma.Shape != 1 || math.Abs(plan.Gamma.Rate-wantRate) > 1e-6*wantRate {
		t.Errorf("q(gamma) = Gamma(%v, %v), want Gamma(1, %v)", plan.Gamma.Shape, plan.Gamma.Rate, wantRate)
	}
	F := plan.FreeEnergy
	if len(F) < 2 || !(F[len(F)-1] < F[0]-1e-9) {
		t.Errorf("free energy trace %v: inferring gamma did not lower F below its value with gamma at the prior", F)
	}
	for i := 1; i < len(F); i++ {
		if F[i] > F[i-1]+1e-9 {
			t.Errorf("F increased at sweep %d: %v -> %v", i, F[i-1], F[i])
		}
	}
	// q(pi) = softmax(ln E - E[gamma] G), by hand from the fixed point.
	_, qpi := ag.PolicyPosterior()
	gbar := 1 / wantRate
	want := make([]float64, len(G))
	z := 0.0
	for i := range G {
		want[i] = E[i] * math.Exp(-gbar*G[i])
		z += want[i]
	}
	for i := range want {
		want[i] /= z
	}
	if d := cmp.Diff(want, qpi, cmpopts.EquateApprox(0, 1e-6)); d != "" {
		t.Errorf("q(pi) mismatch (-want +got):\n%s", d)
	}

	// Without habits: the posterior is the prior Gamma(1, beta).
	ag2, err := NewAgent(m, &AgentOptions{Horizon: T, InferGamma: true, Beta: beta})
	if err != nil {
		t.Fatal(err)
	}
	if err := ag2.Reset(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := ag2.Act(context.Background()); err != nil {
		t.Fatal(err)
	}
	if g := ag2.LastPlan().Gamma; g.Shape != 1 || math.Abs(g.Rate-beta) > 1e-12 {
		t.Errorf("without habits q(gamma) = Gamma(%v, %v), want the prior Gamma(1, %v)", g.Shape, g.Rate, beta)
	}
}

// learnModel is a random POMDP whose A, B and D are learned (every
// concentration in [0.5, 3)).
func learnModel(t *testing.T, rng *rand.Rand, ns, no, nu int) *pomdp.Model {
	t.Helper()
	conc := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = 0.5 + 2.5*rng.Float64()
		}
		return x
	}
	m, err := pomdp.New(pomdp.Spec{
		NumStates: ns, NumObs: no, NumActions: nu,
		C:     randColumns(rng, 1, no, 1),
		ConcA: conc(no * ns), ConcB: conc(nu * ns * ns), ConcD: conc(ns),
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLearningClosedForm runs a trial with learned a, b and d and checks the
// learned concentrations against the closed forms of paper Appendix C
// (at the VMP fixed point, with the agent's final state posteriors):
//
//	a' = a + sum_tau o_tau ⊗ Q(S_tau)
//	b'[u] = b[u] + sum_tau [u_tau = u] Q(S_(tau+1)) ⊗ Q(S_tau)
//	d' = d + Q(S_0)
//
// and that the next trial starts from them.
func TestLearningClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const ns, no, nu = 3, 3, 2
	m := learnModel(t, rng, ns, no, nu)
	sp := m.Spec()
	// The closed forms hold at the VMP fixed point: pin the paper's mean
	// field (the default filters; TestFilterLearning covers its counts).
	ag, err := NewAgent(m, &AgentOptions{Horizon: 2, Tolerance: 1e-13, Iterations: 1000, Past: pomdp.PastVMP})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ag.Reset(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	for _, step := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {1, 2}} {
		if _, err := ag.Act(ctx); err != nil {
			t.Fatal(err)
		}
		if err := ag.Observe(step[0], step[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := ag.EndTrial(context.Background()); err != nil {
		t.Fatal(err)
	}
	q := ag.StateBeliefs()
	obs, acts := ag.History()
	wantA := clone(sp.ConcA)
	wantB := clone(sp.ConcB)
	wantD := clone(sp.ConcD)
	for tau, o := range obs {
		for s := range ns {
			wantA[o*ns+s] += q[tau][s]
		}
	}
	for tau, u := range acts {
		for next := range ns {
			for prev := range ns {
				wantB[(u*ns+next)*ns+prev] += q[tau+1][next] * q[tau][prev]
			}
		}
	}
	for s := range ns {
		wantD[s] += q[0][s]
	}
	c := ag.Concentrations()
	gotA, gotB, gotD := c.A[0], c.B[0], c.D[0]
	opt := cmpopts.EquateApprox(0, 1e-6)
	for _, c := range []struct {
		name      string
		want, got []float64
	}{{"a", wantA, gotA}, {"b", wantB, gotB}, {"d", wantD, gotD}} {
		if d := cmp.Diff(c.want, c.got, opt); d != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", c.name, d)
		}
	}
	// The counts added equal the trial's length: 5 observations, 4
	// transitions, 1 initial state.
	for _, c := range []struct {
		name      string
		prior     []float64
		got       []float64
		wantCount float64
	}{{"a", sp.ConcA, gotA, 5}, {"b", sp.ConcB, gotB, 4}, {"d", sp.ConcD, gotD, 1}} {
		s := 0.0
		for i := range c.got {
			s += c.got[i] - c.prior[i]
		}
		if math.Abs(s-c.wantCount) > 1e-9 {
			t.Errorf("%s: %v counts added, want %v", c.name, s, c.wantCount)
		}
	}
	// The next trial's prior: the graph's Dirichlet prior starts there.
	if err := ag.Reset(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := ag.Graph().Variable("D"); !ok {
		t.Fatal("no variable D in the new trial's graph")
	}
	if d := cmp.Diff(gotD, ag.Concentrations().D[0], cmpopts.EquateApprox(0, 1e-15)); d != "" {
		t.Errorf("next trial's d mismatch (-want +got):\n%s", d)
	}
}

// TestLearningIdentityA: with A = identity the observation names the state,
// so Q(S_0) = one-hot(o_0) (up to the e^-32 log floor) and by hand
// d' = [1, 2, 3] + one-hot(2) = [1, 2, 4].
func TestLearningIdentityA(t *testing.T) {
	m, err := pomdp.New(pomdp.Spec{
		NumStates: 3, NumObs: 3, NumActions: 1,
		A: []float64{1, 0, 0, 0, 1, 0, 0, 0, 1},
		B: []float64{1, 0, 0, 0, 1, 0, 0, 0, 1},
		C: []float64{0.2, 0.3, 0.5}, ConcD: []float64{1, 2, 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := NewAgent(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Reset(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if err := ag.EndTrial(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := ag.Concentrations().D[0]
	if diff := cmp.Diff([]float64{1, 2, 4}, d, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("d mismatch (-want +got):\n%s", diff)
	}
}

// TestSampleDeterminism: equal seeds give equal action sequences, and the
// sampled frequencies match the action distribution (each within 5
// standard deviations of a binomial with n = 4000).
func TestSampleDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	m := randPOMDP(t, rng, 3, 2, 3)
	run := func(seed uint64, n int) ([]int, []float64) {
		ag, err := NewAgent(m, &AgentOptions{Horizon: 2, Gamma: 1, Select: SelectSample, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var seq []int
		for range n {
			if err := ag.Reset(context.Background(), 0); err != nil {
				t.Fatal(err)
			}
			u, err := ag.Act(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			seq = append(seq, u)
		}
		return seq, ag.ActionProbs()
	}
	const n = 4000
	a, p := run(7, n)
	b, _ := run(7, n)
	c, _ := run(8, n)
	if !cmp.Equal(a, b) {
		t.Error("equal seeds gave different action sequences")
	}
	if cmp.Equal(a, c) {
		t.Error("seeds 7 and 8 gave the same 4000 actions")
	}
	count := make([]float64, len(p))
	for _, u := range a {
		count[u]++
	}
	for u := range p {
		sd := math.Sqrt(n * p[u] * (1 - p[u]))
		if math.Abs(count[u]-n*p[u]) > 5*sd+1 {
			t.Errorf("action %d drawn %v times, want %v ± %v", u, count[u], n*p[u], 5*sd)
		}
	}
}

func TestAgentBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	m := randPOMDP(t, rng, 2, 2, 2)
	for _, c := range []struct {
		opts AgentOptions
		want string
	}{
		{AgentOptions{Horizon: -1}, "Horizon"},
		{AgentOptions{Horizon: 80}, "Horizon"},
		{AgentOptions{Gamma: math.NaN()}, "Gamma"},
		{AgentOptions{Gamma: -2}, "Gamma"},
		{AgentOptions{Beta: math.Inf(1)}, "Beta"},
		{AgentOptions{Novelty: true}, "Novelty"},
		{AgentOptions{Habits: []float64{1}}, "Habits"},
		{AgentOptions{Habits: []float64{0.5, 0.6}}, "Habits"},
		{AgentOptions{Select: "best"}, "Select"},
		{AgentOptions{GraphPolicies: -1}, "GraphPolicies"},
		{AgentOptions{Iterations: -1}, "Iterations"},
		{AgentOptions{Tolerance: math.NaN()}, "Tolerance"},
	} {
		_, err := NewAgent(m, &c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %s", c.opts, err, c.want)
		}
	}
	if _, err := NewAgent(nil, nil); err == nil {
		t.Error("nil model: no error")
	}
	// A zero concentration is refused by pomdp.New already, so no agent
	// can be built on it.
	if _, err := pomdp.New(pomdp.Spec{NumStates: 2, NumObs: 2, NumActions: 1,
		A: []float64{1, 0, 0, 1}, B: []float64{1, 0, 0, 1}, C: []float64{0.5, 0.5},
		ConcD: []float64{1, 0}}); err == nil || !strings.Contains(err.Error(), "d[1]: 0, want > 0") {
		t.Errorf("zero concentration: error %v, want one naming d[1]", err)
	}

	ag, err := NewAgent(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := ag.Act(ctx); err == nil {
		t.Error("Act before Reset: no error")
	}
	if err := ag.Observe(0, 0); err == nil {
		t.Error("Observe before Reset: no error")
	}
	if err := ag.EndTrial(context.Background()); err == nil {
		t.Error("EndTrial before Reset: no error")
	}
	if err := ag.Reset(context.Background(), 2); err == nil {
		t.Error("Reset(2) with 2 observations: no error")
	}
	if err := ag.Reset(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if err := ag.Observe(2, 0); err == nil || !strings.Contains(err.Error(), "action") {
		t.Errorf("Observe(2, 0): error %v, want one naming the action", err)
	}
	if err := ag.Observe(0, -1); err == nil || !strings.Contains(err.Error(), "observation") {
		t.Errorf("Observe(0, -1): error %v, want one naming the observation", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ag.Act(cctx); err == nil {
		t.Error("Act with a cancelled context: no error")
	}
}

// TestInferGammaInfiniteG: a target with a zero can make G infinite, which
// the Softmax node cannot hold: NewAgent refuses InferGamma with an error
// naming C[1] (before, Act failed later, which the command line reported
// with exit status 1 instead of 2).
func TestInferGammaInfiniteG(t *testing.T) {
	m, err := pomdp.New(pomdp.Spec{NumStates: 2, NumObs: 2, NumActions: 2,
		A: []float64{1, 0, 0, 1}, B: []float64{1, 0, 0, 1, 0, 1, 1, 0}, C: []float64{1, 0},
		D: []float64{0.5, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewAgent(m, &AgentOptions{InferGamma: true}); err == nil || !strings.Contains(err.Error(), "C[1] is 0") {
		t.Errorf("error %v, want one naming C[1]", err)
	}
	// With a fixed gamma the infinite policies just get probability 0.
	ag2, err := NewAgent(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ag2.Reset(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	u, err := ag2.Act(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// In state 0 (observed 0, preferred), staying (action 0) keeps o = 0;
	// every policy starting with a switch predicts o = 1, which C forbids.
	if p := ag2.ActionProbs(); u != 0 || p[0] != 1 {
		t.Errorf("action %d with P = %v, want 0 with P = [1 0]", u, p)
	}
}

// TestAgentGraph checks the graph built for paper section 4, eq. 2 after
// two observations and an Act with learned a, b, d and inferred gamma: the
// Dirichlet variables, S_0..S_2, pi over the 4 policies of length 2 with
// a Softmax factor, gamma with its Gamma prior; and that it exports to DOT.
func TestAgentGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	m := learnModel(t, rng, 3, 2, 2)
	ag, err := NewAgent(m, &AgentOptions{InferGamma: true, Novelty: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Reset(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		u, err := ag.Act(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Observe(u, 1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ag.Act(context.Background()); err != nil {
		t.Fatal(err)
	}
	g := ag.Graph()
	for _, name := range []string{"A", "B", "D", "S_0", "pi", "gamma"} {
		if _, ok := g.Variable(name); !ok {
			t.Errorf("no variable %q", name)
		}
	}
	pi, _ := g.Variable("pi")
	if n := pi.Shape()[0]; n != 4 {
		t.Errorf("pi has %d values, want 4 = 2^2 policies", n)
	}
	kinds := map[string]int{}
	for _, f := range g.Factors() {
		kinds[f.Factor().Kind()]++
	}
	// 3 observations and 2 transitions (Dirichlet-distributed), the
	// categorical D, three Dirichlet priors, Softmax, Gamma.
	if kinds["softmax"] != 1 || kinds["gamma"] != 1 || kinds["dirichlet"] != 3 || kinds["transition"] != 5 {
		t.Errorf("factor kinds %v", kinds)
	}
	if len(ag.StateBeliefs()) != 3 || ag.Time() != 2 {
		t.Errorf("%d states at t = %d, want 3 at t = 2", len(ag.StateBeliefs()), ag.Time())
	}
	var sb strings.Builder
	if err := g.WriteDOT(&sb); err != nil || !strings.Contains(sb.String(), "σ(") {
		t.Errorf("DOT export: err %v", err)
	}
	// With Novelty and learned a, G is risk + ambiguity - novelty of the
	// expected model (EvaluatePolicies on Model() and Belief()).
	ps, err := EvaluatePolicies(ag.Model(), ag.Belief(), 2, &EFEOptions{Novelty: true})
	if err != nil {
		t.Fatal(err)
	}
	pols, _ := ag.PolicyPosterior()
	for i, p := range pols {
		if math.Abs(p.G-ps.G[i]) > 1e-12 || p.Novelty != ps.Novelty[i] || p.Novelty <= 0 {
			t.Errorf("policy %v: G %v novelty %v, want %v and %v > 0", p.Policy, p.G, p.Novelty, ps.G[i], ps.Novelty[i])
		}
	}
}

// TestAgentFullyObserved: with A the identity, every observation names the
// state, so q(S_t) is one-hot(o_t) at every step (up to the e^-32 floor of
// B), whatever the action.
func TestAgentFullyObserved(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	sp := randPOMDP(t, rng, 3, 3, 2).Spec()
	sp.A = []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
	m, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := NewAgent(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Reset(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	for step, o := range []int{2, 0, 0, 1} {
		u, err := ag.Act(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Observe(u, o); err != nil {
			t.Fatal(err)
		}
		if _, err := ag.Act(context.Background()); err != nil {
			t.Fatal(err)
		}
		want := make([]float64, 3)
		want[o] = 1
		if d := cmp.Diff(want, ag.Belief(), cmpopts.EquateApprox(0, 1e-9)); d != "" {
			t.Errorf("step %d: q(S_t) mismatch (-want +got):\n%s", step, d)
		}
	}
}

// TestAgentTopKInferGamma: with gamma inferred over the 3 held policies,
// the action marginal is still the exact one over all 27 at the posterior
// mean E[gamma] (bruteQPi with that precision and the habits).
func TestAgentTopKInferGamma(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	m := randPOMDP(t, rng, 4, 3, 3)
	sp := m.Spec()
	habits := []float64{0.6, 0.3, 0.1}
	ag, err := NewAgent(m, &AgentOptions{Horizon: 3, InferGamma: true, Beta: 0.25, GraphPolicies: 3, Habits: habits})
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Reset(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := ag.Act(context.Background()); err != nil {
		t.Fatal(err)
	}
	gbar := ag.LastPlan().GammaMean
	if gbar == 4 { // the prior mean 1/0.25: the habits must move it
		t.Errorf("E[gamma] = %v stayed at the prior mean", gbar)
	}
	_, _, act := bruteQPi(sp, exactPosterior(sp, 2), 3, gbar, habits)
	if d := cmp.Diff(act, ag.ActionProbs(), cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("action marginal mismatch (-want +got):\n%s", d)
	}
}

// TestAgentAllPoliciesInfinite: with handModel's A (state 1 shows o0 half
// the time) and C = [0, 1], every one-step policy from any belief predicts
// o0 with probability >= 0.5, so every G is +Inf. The policies tie (package
// documentation, "Zeros in C"): the action distribution is [0.5, 0.5] and
// argmax takes the first action. Before, Act failed and `arbor aci run`
// exited with status 1.
func TestAgentAllPoliciesInfinite(t *testing.T) {
	sp := handModel(t).Spec()
	sp.C = []float64{0, 1}
	m, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := NewAgent(m, &AgentOptions{Horizon: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Reset(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	u, err := ag.Act(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]float64{0.5, 0.5}, ag.ActionProbs(), cmpopts.EquateApprox(0, 1e-12)); u != 0 || d != "" {
		t.Errorf("action %d, action probabilities mismatch (-want +got):\n%s", u, d)
	}
}
