package pomdp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
)

// mixedLearned is a random two-factor model (2 and 3 states, 2 controls
// each: 4 joint actions; two modalities, one over both factors) in which
// both factors' B, the first factor's D and the second modality's A are
// learned: concentrations 1 + 4·p from the random parameters p (an
// arbitrary positive choice).
func mixedLearned(t *testing.T, seed uint64) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	fs := randomFS(rng, []int{2, 3}, []int{2, 2}, []int{2, 3}, [][]string{{"x"}, {"y", "x"}})
	conc := func(p []float64) []float64 {
		c := make([]float64, len(p))
		for i, v := range p {
			c[i] = 1 + 4*v
		}
		return c
	}
	for f := range fs.Factors {
		fs.Factors[f].ConcB, fs.Factors[f].B = conc(fs.Factors[f].B), nil
	}
	fs.Factors[0].ConcD, fs.Factors[0].D = conc(fs.Factors[0].D), nil
	fs.Modalities[1].ConcA, fs.Modalities[1].A = conc(fs.Modalities[1].A), nil
	m, err := NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mxOneHot(n, k int) []float64 {
	x := make([]float64, n)
	x[k] = 1
	return x
}

func mxClose(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !(math.Abs(a[i]-b[i]) <= tol) {
			return false
		}
	}
	return true
}

func mxCloseConc(a, b Concentrations, tol float64) bool {
	for k, xs := range [][][]float64{a.A, a.B, a.D} {
		ys := [][][]float64{b.A, b.B, b.D}[k]
		if len(xs) != len(ys) {
			return false
		}
		for i := range xs {
			if (xs[i] == nil) != (ys[i] == nil) || !mxClose(xs[i], ys[i], tol) {
				return false
			}
		}
	}
	return true
}

// TestGrowMixedOneHot: GrowMixed with all the mass on action u is Grow(u,
// obs): the same present beliefs, smoothed beliefs, free energy, trial
// posteriors and, after CarryOver, learned concentrations, to 1e-12, for
// both past inferences, with and without a window (a window of 2 folds a
// step with a hidden U every step), over two trials of random actions and
// observations in which every other step is given as a distribution.
func TestGrowMixedOneHot(t *testing.T) {
	m := mixedLearned(t, 1)
	ctx := context.Background()
	const tol = 1e-12
	for _, method := range []PastInference{PastVMP, PastFilter} {
		for _, window := range []int{0, 2} {
			ref, err := NewPastWith(m, window, method)
			if err != nil {
				t.Fatal(err)
			}
			mix, err := NewPastWith(m, window, method)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(4, uint64(window)))
			for trial := range 2 {
				o := rng.IntN(m.NumObs())
				for _, p := range []*Past{ref, mix} {
					if err := p.Reset(o); err != nil {
						t.Fatal(err)
					}
				}
				for step := range 5 {
					u, o := rng.IntN(m.NumActions()), rng.IntN(m.NumObs())
					if err := ref.Grow(u, o); err != nil {
						t.Fatal(err)
					}
					if step%2 == 0 {
						err = mix.GrowMixed(mxOneHot(m.NumActions(), u), o)
					} else {
						err = mix.Grow(u, o)
					}
					if err != nil {
						t.Fatal(err)
					}
					r1, err := ref.Infer(ctx, pastSettings)
					if err != nil {
						t.Fatal(err)
					}
					r2, err := mix.Infer(ctx, pastSettings)
					if err != nil {
						t.Fatal(err)
					}
					where := func() string {
						return fmt.Sprintf("%v window %d trial %d step %d", method, window, trial, step)
					}
					if !mxClose(mix.Belief(), ref.Belief(), tol) {
						t.Errorf("%s: belief %v, Grow gives %v", where(), mix.Belief(), ref.Belief())
					}
					if math.Abs(r1.Final()-r2.Final()) > tol {
						t.Errorf("%s: F %v, Grow gives %v", where(), r2.Final(), r1.Final())
					}
					s1, s2 := ref.Smoothed(), mix.Smoothed()
					if len(s1) != len(s2) {
						t.Fatalf("%s: %d smoothed steps, Grow gives %d", where(), len(s2), len(s1))
					}
					for k := range s1 {
						if !mxClose(s2[k], s1[k], tol) {
							t.Errorf("%s: smoothed step %d %v, Grow gives %v", where(), k, s2[k], s1[k])
						}
					}
					if !mxCloseConc(mix.Posteriors(), ref.Posteriors(), tol) {
						t.Errorf("%s: posteriors %+v, Grow gives %+v", where(), mix.Posteriors(), ref.Posteriors())
					}
				}
				ref.CarryOver()
				mix.CarryOver()
				if !mxCloseConc(mix.Concentrations(), ref.Concentrations(), tol) {
					t.Errorf("%v window %d trial %d: learned %+v, Grow gives %+v", method, window, trial, mix.Concentrations(), ref.Concentrations())
				}
			}
		}
	}
}

// mxPath enumerates every trajectory of joint states and joint actions of
// a trial: first observation obs[0], then per step k a distribution
// mixes[k] over the joint action and the observation obs[k+1]. A known
// action is a one-hot mix. The parameters are fs's (taken as given: not
// validated, columns need not sum to 1). It returns the total weight (the
// evidence), the smoothed marginals of every step (every factor's, laid
// out as a belief) and the posterior of (s_k = jp, u_k = u, s_k+1 = jn)
// as pair[k][(u·J + jn)·J + jp].
func mxPath(m *Model, fs FactorisedSpec, obs []int, mixes [][]float64) (total float64, marg [][]float64, pair [][]float64) {
	J, digit, index := jointSpace(fs)
	lik := func(j, o int) float64 {
		out := m.DecodeObs(nil, o)
		v := 1.0
		for i, md := range fs.Modalities {
			c := 0
			for _, d := range md.DependsOn {
				c = c*fs.Factors[index[d]].NumStates + digit(j, index[d])
			}
			v *= md.A[out[i]*(len(md.A)/md.NumOutcomes)+c]
		}
		return v
	}
	trans := func(jn, jp, u int) float64 {
		ctrl := m.DecodeAction(nil, u)
		v := 1.0
		for f, fac := range fs.Factors {
			ns := fac.NumStates
			v *= fac.B[(ctrl[f]*ns+digit(jn, f))*ns+digit(jp, f)]
		}
		return v
	}
	T, nu := len(obs), m.NumActions()
	marg = make([][]float64, T)
	for k := range marg {
		marg[k] = make([]float64, m.NumStates())
	}
	pair = make([][]float64, T-1)
	for k := range pair {
		pair[k] = make([]float64, nu*J*J)
	}
	states := make([]int, T)
	acts := make([]int, T)
	var walk func(k int, w float64)
	walk = func(k int, w float64) {
		if k == T {
			total += w
			for t := range T {
				for f := range fs.Factors {
					marg[t][m.FactorOffset(f)+digit(states[t], f)] += w
				}
				if t > 0 {
					pair[t-1][(acts[t-1]*J+states[t])*J+states[t-1]] += w
				}
			}
			return
		}
		for j := range J {
			if k == 0 {
				v := w * lik(j, obs[0])
				for f, fac := range fs.Factors {
					v *= fac.D[digit(j, f)]
				}
				states[0] = j
				walk(1, v)
				continue
			}
			for u := range nu {
				if mixes[k-1][u] == 0 {
					continue
				}
				states[k], acts[k-1] = j, u
				walk(k+1, w*mixes[k-1][u]*trans(j, states[k-1], u)*lik(j, obs[k]))
			}
		}
	}
	walk(0, 1)
	for _, q := range append(marg, pair...) {
		for i := range q {
			q[i] /= total
		}
	}
	return total, marg, pair
}

// TestGrowMixedFilterHalf: exact filtering of the 2-state, 2-action model
// (B[0] the identity, B[1] the swap) with the action 50/50: from o_0 = 0,
// Q(S_0) = (0.8, 0.2) (TestPastFirstObservation); half the identity and
// half the swap predict (0.5, 0.5) whatever Q(S_0) is, and o_1 = 1 gives
// (0.5·0.2, 0.5·0.7)/0.45 = (2/9, 7/9). The enumeration of (s_0, u_0, s_1)
// gives the same, and F = -ln p(o_0, o_1) = -ln(0.6 · 0.45): p(o_0 = 0) =
// 0.6·0.8 + 0.4·0.3 = 0.6, p(o_1 = 1 | o_0) = 0.45. A second step, with
// the action (0.3, 0.7) and o_2 = 0 (arbitrary), is checked against the
// enumeration of (s_0, u_0, s_1, u_1, s_2) only. Tolerances 1e-14: the
// same sums in another order, rounding only.
func TestGrowMixedFilterHalf(t *testing.T) {
	m := twoStateModel(t, nil)
	p, err := NewPastWith(m, 0, PastFilter)
	if err != nil {
		t.Fatal(err)
	}
	obs := []int{0, 1, 0}
	mixes := [][]float64{{0.5, 0.5}, {0.3, 0.7}}
	if err := p.Reset(obs[0]); err != nil {
		t.Fatal(err)
	}
	for k, probs := range mixes {
		if err := p.GrowMixed(probs, obs[k+1]); err != nil {
			t.Fatal(err)
		}
		res, err := p.Infer(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		total, marg, _ := mxPath(m, m.FactorisedSpec(), obs[:k+2], mixes[:k+1])
		if got, want := p.Belief(), marg[k+1]; !mxClose(got, want, 1e-14) {
			t.Errorf("step %d: belief %v, enumeration %v", k+1, got, want)
		}
		if got, want := res.Final(), -math.Log(total); math.Abs(got-want) > 1e-14 {
			t.Errorf("step %d: F = %v, enumeration -ln p(o) = %v", k+1, got, want)
		}
		if k == 0 {
			if got, want := p.Belief(), []float64{2.0 / 9, 7.0 / 9}; !mxClose(got, want, 1e-14) {
				t.Errorf("belief %v, want (2/9, 7/9)", got)
			}
			if got, want := res.Final(), -math.Log(0.6*0.45); math.Abs(got-want) > 1e-14 {
				t.Errorf("F = %v, want -ln 0.27 = %v", got, want)
			}
		}
	}
}

// mxGeometric returns exp(ψ(α) - ψ(Σ_column α)) of concentrations in the
// layout of a Spec's B (lead u, then next, prev: columns over next) or D
// (lead 1, k states, 1 column).
func mxGeometric(alpha []float64, lead, k, n int) []float64 {
	out := make([]float64, len(alpha))
	for l := range lead {
		for j := range n {
			s := 0.0
			for i := range k {
				s += alpha[(l*k+i)*n+j]
			}
			for i := range k {
				x := (l*k+i)*n + j
				out[x] = math.Exp(expfam.Digamma(alpha[x]) - expfam.Digamma(s))
			}
		}
	}
	return out
}

// mxFilterSpec is m with every learned parameter replaced by the
// geometric means of its concentrations, the parameters of exact
// filtering (columns that need not sum to 1).
func mxFilterSpec(m *Model) FactorisedSpec {
	gs := m.FactorisedSpec()
	for f := range gs.Factors {
		fac := &gs.Factors[f]
		if fac.ConcB != nil {
			fac.B = mxGeometric(fac.ConcB, m.FactorControls(f), fac.NumStates, fac.NumStates)
		}
		if fac.ConcD != nil {
			fac.D = mxGeometric(fac.ConcD, 1, fac.NumStates, 1)
		}
	}
	for i := range gs.Modalities {
		md := &gs.Modalities[i]
		if md.ConcA != nil {
			md.A = mxGeometric(md.ConcA, 1, md.NumOutcomes, len(md.ConcA)/md.NumOutcomes)
		}
	}
	return gs
}

// TestGrowMixedLearnsB: with b learned, a trial of exact filtering with a
// known step and two steps whose action is a distribution (arbitrary:
// (1, 2, ...)/Σ and uniform; observations 1, 0, 1, 0) adds to b[u][s',
// s] the posterior of (s_k = s, u_k = u, s_k+1 = s') summed over the
// steps, which the enumeration of every trajectory of states and actions
// gives, under the filter's parameters exp E[ln B] of the trial's priors
// (variational Bayes); a single factor with 3 states and 3 actions, and
// the two-factor model of mixedLearned (b of both factors, a and d learned
// too: the enumeration uses their geometric means as well).
func TestGrowMixedLearnsB(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	fs := randomFS(rng, []int{3}, []int{3}, []int{2}, [][]string{{"x"}})
	fs.Factors[0].ConcB = make([]float64, len(fs.Factors[0].B))
	for i, b := range fs.Factors[0].B {
		fs.Factors[0].ConcB[i] = 0.5 + 3*b // arbitrary positive concentrations
	}
	fs.Factors[0].B = nil
	single, err := NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Model{single, mixedLearned(t, 2)} {
		nu := m.NumActions()
		mixes := [][]float64{mxOneHot(nu, 1), make([]float64, nu), make([]float64, nu)}
		for u := range nu {
			mixes[1][u] = float64(u+1) / float64(nu*(nu+1)/2) // (1, 2, ...)/Σ
			mixes[2][u] = 1 / float64(nu)
		}
		obs := []int{1, 0, 1, 0}
		p, err := NewPastWith(m, 0, PastFilter)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Reset(obs[0]); err != nil {
			t.Fatal(err)
		}
		if err := p.Grow(1, obs[1]); err != nil {
			t.Fatal(err)
		}
		for k := 1; k < 3; k++ {
			if err := p.GrowMixed(mixes[k], obs[k+1]); err != nil {
				t.Fatal(err)
			}
		}
		prior := p.Concentrations()
		gs := mxFilterSpec(m)
		_, _, pair := mxPath(m, gs, obs, mixes)
		J, digit, _ := jointSpace(gs)
		p.CarryOver()
		got := p.Concentrations()
		for f := range gs.Factors {
			ns := m.FactorSize(f)
			want := append([]float64(nil), prior.B[f]...)
			for _, xi := range pair {
				for u := range nu {
					c := m.DecodeAction(nil, u)[f]
					for jn := range J {
						for jp := range J {
							want[(c*ns+digit(jn, f))*ns+digit(jp, f)] += xi[(u*J+jn)*J+jp]
						}
					}
				}
			}
			if !mxClose(got.B[f], want, 1e-12) {
				t.Errorf("%d factors: b[%d] learned %v, enumeration %v", m.NumFactors(), f, got.B[f], want)
			}
		}
	}
}

// TestGrowMixedVMPFixedPoint: the mean field's Q(U_0) after GrowMixed is
// its VMP fixed point, Q(u) ∝ probs(u) exp Σ_(s, s') Q_1(s') Q_0(s)
// ln B̊_u(s' | s), B̊ the floored B (B[0] the identity, B[1] the swap of
// the 2-state model, so a floored zero is ln(LogFloor/(1+LogFloor))), and
// with a window of 2 the folded step's counts reach b whole: every
// transition adds mass 1 to b, so after six steps b sums to its prior (8
// ones) plus 6 with the window as without it, and the window keeps 2 steps
// and a bounded graph. Tolerances: 1e-12 for the fixed point (converged
// to |ΔF| < 1e-300 or 10,000 sweeps), 1e-9 for sums of counts.
func TestGrowMixedVMPFixedPoint(t *testing.T) {
	m := twoStateModel(t, nil)
	p, err := NewPast(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	probs := []float64{0.3, 0.7} // arbitrary
	if err := p.Reset(0); err != nil {
		t.Fatal(err)
	}
	if err := p.GrowMixed(probs, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Infer(context.Background(), fixedPoint); err != nil {
		t.Fatal(err)
	}
	u := p.steps[0].u[0]
	if u.Observed() {
		t.Fatal("U_0 of GrowMixed is observed")
	}
	q0, q1 := p.States()[0].Probs(), p.States()[1].Probs()
	nat := make([]float64, 2)
	for a := range 2 {
		b := []float64{1, 0, 0, 1, 0, 1, 1, 0}[a*4 : a*4+4] // [next][prev]
		fb := append([]float64(nil), b...)
		FloorColumns(fb, 2, 2)
		nat[a] = math.Log(probs[a])
		for n := range 2 {
			for s := range 2 {
				nat[a] += q1[n] * q0[s] * math.Log(fb[n*2+s])
			}
		}
	}
	want := make([]float64, 2)
	expfam.Softmax(want, nat)
	if got := u.Probs(); !mxClose(got, want, 1e-12) {
		t.Errorf("Q(U_0) = %v, fixed point %v", got, want)
	}

	sp := m.Spec()
	sp.B, sp.ConcB = nil, []float64{1, 1, 1, 1, 1, 1, 1, 1}
	lm, err := New(sp)
	if err != nil {
		t.Fatal(err)
	}
	for _, window := range []int{0, 2} {
		p, err := NewPast(lm, window)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Reset(0); err != nil {
			t.Fatal(err)
		}
		vars := -1
		for k := range 6 {
			// Arbitrary distributions (0.25, 0.75), (0.35, 0.65), ...
			if err := p.GrowMixed([]float64{0.25 + 0.1*float64(k), 0.75 - 0.1*float64(k)}, k%2); err != nil {
				t.Fatal(err)
			}
			if _, err := p.Infer(context.Background(), pastSettings); err != nil {
				t.Fatal(err)
			}
			// The window is full from the first step on: the graph
			// holds as many variables after every step.
			if n := len(p.Graph().Variables()); window > 0 && vars >= 0 && n != vars {
				t.Errorf("window %d step %d: %d variables in the graph, %d a step before", window, k, n, vars)
			} else {
				vars = n
			}
		}
		_, bv, _ := p.Params()
		sum := 0.0
		for _, a := range bv.Alpha() {
			sum += a
		}
		if math.Abs(sum-14) > 1e-9 {
			t.Errorf("window %d: b sums to %v, want 8 + 6 = 14", window, sum)
		}
		want := 7 // S_0..S_6 without a window
		if window > 0 {
			want = window
		}
		if p.Kept() != want {
			t.Errorf("window %d: %d steps kept, want %d", window, p.Kept(), want)
		}
	}
}

// TestGrowMixedBadProbs: probs of the wrong length, with NaN, an infinite
// or a negative entry, or not summing to 1 within Tolerance are errors
// that start with "pomdp: " and name probs; so are GrowMixed before Reset
// and an observation out of range; none changes the past.
func TestGrowMixedBadProbs(t *testing.T) {
	m := twoStateModel(t, nil)
	for _, method := range []PastInference{PastVMP, PastFilter} {
		p, err := NewPastWith(m, 0, method)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.GrowMixed([]float64{0.5, 0.5}, 0); err == nil || !strings.HasPrefix(err.Error(), "pomdp: ") {
			t.Errorf("%v: GrowMixed before Reset: %v", method, err)
		}
		if err := p.Reset(0); err != nil {
			t.Fatal(err)
		}
		for _, probs := range [][]float64{
			nil,
			{1},
			{0.5, 0.25, 0.25},
			{math.NaN(), 1},
			{math.Inf(1), 0},
			{-0.5, 1.5},
			{0.5, 0.4},
			{0.5, 0.5 + 2e-6}, // beyond the tolerance 1e-6
		} {
			err := p.GrowMixed(probs, 1)
			if err == nil || !strings.HasPrefix(err.Error(), "pomdp: ") || !strings.Contains(err.Error(), "probs") {
				t.Errorf("%v: probs %v: error %v, want one naming probs", method, probs, err)
			}
		}
		if err := p.GrowMixed([]float64{0.5, 0.5}, 2); err == nil || !strings.HasPrefix(err.Error(), "pomdp: ") {
			t.Errorf("%v: observation 2 of 2: %v", method, err)
		}
		if p.Time() != 0 || p.Kept() != 1 {
			t.Errorf("%v: after the errors time %d with %d steps kept, want 0 and 1", method, p.Time(), p.Kept())
		}
		// Within the tolerance it is a distribution (renormalised).
		if err := p.GrowMixed([]float64{0.5, 0.5 + 5e-7}, 1); err != nil {
			t.Errorf("%v: probs within the tolerance: %v", method, err)
		}
	}
}
