package pomdp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// randomFS is a random factorised description with every entry positive.
func randomFS(rng *rand.Rand, sizes []int, controls []int, outcomes []int, deps [][]string) FactorisedSpec {
	col := func(lead, k, n int) []float64 {
		x := make([]float64, lead*k*n)
		for l := range lead {
			for j := range n {
				s := 0.0
				for i := range k {
					x[(l*k+i)*n+j] = 0.05 + rng.Float64()
					s += x[(l*k+i)*n+j]
				}
				for i := range k {
					x[(l*k+i)*n+j] /= s
				}
			}
		}
		return x
	}
	var fs FactorisedSpec
	names := []string{"x", "y", "z"}
	for f, ns := range sizes {
		fac := Factor{Name: names[f], NumStates: ns, B: col(controls[f], ns, ns), D: col(1, ns, 1)}
		if controls[f] > 1 {
			for u := range controls[f] {
				fac.Controls = append(fac.Controls, string(rune('a'+u)))
			}
		}
		fs.Factors = append(fs.Factors, fac)
	}
	index := map[string]int{"x": 0, "y": 1, "z": 2}
	for i, no := range outcomes {
		size := 1
		for _, d := range deps[i] {
			size *= sizes[index[d]]
		}
		fs.Modalities = append(fs.Modalities, Modality{Name: string(rune('m' + i)), NumOutcomes: no, DependsOn: deps[i], A: col(1, no, size)})
	}
	return fs
}

// jointSpace describes the joint states of fs's factors, the first factor
// slowest: their number J, the state of factor f in joint state j, and
// each factor's index by name.
func jointSpace(fs FactorisedSpec) (J int, digit func(j, f int) int, index map[string]int) {
	nf := len(fs.Factors)
	J = 1
	for _, f := range fs.Factors {
		J *= f.NumStates
	}
	digit = func(j, f int) int {
		for g := nf - 1; g > f; g-- {
			j /= fs.Factors[g].NumStates
		}
		return j % fs.Factors[f].NumStates
	}
	index = map[string]int{}
	for f, fac := range fs.Factors {
		index[fac.Name] = f
	}
	return J, digit, index
}

// bruteFilter enumerates every joint trajectory s_0..s_t: the exact
// posterior marginals of each factor at time t and ln p(o_0..o_t | u).
func bruteFilter(m *Model, obs, acts []int) (marg []float64, logp float64) {
	fs := m.FactorisedSpec()
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
	T := len(obs)
	marg = make([]float64, m.NumStates())
	total := 0.0
	path := make([]int, T)
	var walk func(t int, w float64)
	walk = func(t int, w float64) {
		if t == T {
			total += w
			for f := range fs.Factors {
				marg[m.FactorOffset(f)+digit(path[T-1], f)] += w
			}
			return
		}
		for j := range J {
			v := w * lik(j, obs[t])
			if t == 0 {
				for f, fac := range fs.Factors {
					v *= fac.D[digit(j, f)]
				}
			} else {
				v *= trans(j, path[t-1], acts[t-1])
			}
			path[t] = j
			walk(t+1, v)
		}
	}
	walk(0, 1)
	for i := range marg {
		marg[i] /= total
	}
	return marg, math.Log(total)
}

// TestFilterMatchesEnumeration: exact filtering gives the posterior
// marginals of the present state and -ln p(observations) of enumerating
// every state trajectory, to 1e-12 and 1e-10, on a single-factor model and
// on factorised ones (one with two controllable factors).
func TestFilterMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	cases := []FactorisedSpec{
		randomFS(rng, []int{3}, []int{2}, []int{3}, [][]string{{"x"}}),
		randomFS(rng, []int{2, 3}, []int{2, 1}, []int{2, 3}, [][]string{{"x"}, {"y", "x"}}),
		randomFS(rng, []int{2, 2, 3}, []int{2, 1, 2}, []int{3, 2}, [][]string{{"z", "x"}, {"y"}}),
	}
	for k, fs := range cases {
		m, err := NewFactorised(fs)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPastWith(m, 0, PastFilter)
		if err != nil {
			t.Fatal(err)
		}
		var obs, acts []int
		for step := range 4 {
			o := rng.IntN(m.NumObs())
			obs = append(obs, o)
			if step == 0 {
				if err := p.Reset(o); err != nil {
					t.Fatal(err)
				}
			} else {
				u := rng.IntN(m.NumActions())
				acts = append(acts, u)
				if err := p.Grow(u, o); err != nil {
					t.Fatal(err)
				}
			}
			res, err := p.Infer(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			want, logp := bruteFilter(m, obs, acts)
			got := p.Belief()
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-12 {
					t.Fatalf("case %d step %d: Q(S_t) = %v, enumeration %v", k, step, got, want)
				}
			}
			if f := res.Final(); math.Abs(f+logp) > 1e-10 {
				t.Errorf("case %d step %d: F = %v, -ln p(o) = %v", k, step, f, -logp)
			}
		}
	}
}

// TestFilterTMazeCue: in the factorised T-maze, after going to the cue and
// seeing "cue-left", exact filtering believes the left context with
// probability 0.95: by Bayes, 0.5·0.95 / (0.5·0.95 + 0.5·0.05). The
// paper's mean field over the past, on the same evidence, is far more
// certain (its context chain, linked by the floored identity B, is
// mode-seeking): the test records that it is above 0.99.
func TestFilterTMazeCue(t *testing.T) {
	m := loadTMaze(t)
	fs := m.FactorisedSpec()
	fs.Factors[1].ConcD, fs.Factors[1].D = nil, []float64{0.5, 0.5}
	m, err := NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	o0, _ := m.EncodeObs([]int{0, 0, 0})
	o1, _ := m.EncodeObs([]int{1, 1, 0}) // at the cue, cue-left
	belief := func(method PastInference) float64 {
		p, err := NewPastWith(m, 0, method)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Reset(o0); err != nil {
			t.Fatal(err)
		}
		if err := p.Grow(1, o1); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Infer(context.Background(), pastSettings); err != nil {
			t.Fatal(err)
		}
		return p.Belief()[m.FactorOffset(1)]
	}
	if got := belief(PastFilter); math.Abs(got-0.95) > 1e-12 {
		t.Errorf("filter: q(left) = %.15f, want 0.95", got)
	}
	if got := belief(PastVMP); !(got > 0.99) {
		t.Errorf("vmp: q(left) = %.15f, expected the mean-field overconfidence above 0.99", got)
	}
}

// TestFilterLearning: with learned a, b and d, CarryOver adds the smoothed
// counts: d grows by Q(s_0 | o_0..o_T) (the enumeration's smoothed first
// state), every b by one count per transition in total, a by one per
// observation; a second CarryOver adds nothing.
func TestFilterLearning(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	fs := randomFS(rng, []int{2, 3}, []int{2, 1}, []int{2, 2}, [][]string{{"x", "y"}, {"y"}})
	fs.Factors[0].ConcD = []float64{1, 2}
	fs.Factors[0].D = nil
	fs.Factors[1].ConcB = make([]float64, len(fs.Factors[1].B))
	for i, b := range fs.Factors[1].B {
		fs.Factors[1].ConcB[i] = 1 + 5*b
	}
	fs.Modalities[0].ConcA = make([]float64, len(fs.Modalities[0].A))
	for i, a := range fs.Modalities[0].A {
		fs.Modalities[0].ConcA[i] = 2 + 3*a
	}
	m, err := NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPastWith(m, 0, PastFilter)
	if err != nil {
		t.Fatal(err)
	}
	obs := []int{1, 0, 3, 2}
	acts := []int{1, 0, 1}
	if err := p.Reset(obs[0]); err != nil {
		t.Fatal(err)
	}
	for i, u := range acts {
		if err := p.Grow(u, obs[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	sum := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s
	}
	d0, b0, a0 := sum(p.facs[0].dAlpha), sum(p.facs[1].bAlpha), sum(p.mods[0].aAlpha)
	// The smoothed first state of factor x, by enumeration with the
	// filter's parameters (the geometric means of the priors): run the
	// brute force on a model holding them.
	gm := m.FactorisedSpec()
	gm.Factors[0].D, gm.Factors[0].ConcD = p.fl.d[0], nil
	gm.Factors[1].B, gm.Factors[1].ConcB = p.fl.b[1], nil
	gm.Modalities[0].A, gm.Modalities[0].ConcA = p.fl.a[0], nil
	// exp E[ln θ] columns do not sum to 1; the enumeration normalises by
	// the total anyway, so the smoothed marginal is unaffected.
	smoothed := smoothFirst(t, gm, obs, acts)
	dBefore := append([]float64(nil), p.facs[0].dAlpha...)
	p.CarryOver()
	for s := range 2 {
		if got := p.facs[0].dAlpha[s] - dBefore[s]; math.Abs(got-smoothed[s]) > 1e-12 {
			t.Errorf("d[%d] grew by %v, smoothed Q(s_0) %v", s, got, smoothed[s])
		}
	}
	if got := sum(p.facs[0].dAlpha) - d0; math.Abs(got-1) > 1e-12 {
		t.Errorf("d grew by %v, want 1", got)
	}
	if got := sum(p.facs[1].bAlpha) - b0; math.Abs(got-3) > 1e-12 {
		t.Errorf("b grew by %v, want 3 (one per transition)", got)
	}
	if got := sum(p.mods[0].aAlpha) - a0; math.Abs(got-4) > 1e-12 {
		t.Errorf("a grew by %v, want 4 (one per observation)", got)
	}
	d1 := sum(p.facs[0].dAlpha)
	p.CarryOver()
	if sum(p.facs[0].dAlpha) != d1 {
		t.Error("a second CarryOver counted the episode again")
	}
}

// smoothFirst is the smoothed marginal of factor 0 at time 0, by
// enumeration of every trajectory (parameters taken as given, not
// validated as distributions).
func smoothFirst(t *testing.T, fs FactorisedSpec, obs, acts []int) []float64 {
	t.Helper()
	J, digit, index := jointSpace(fs)
	strides := make([]int, len(fs.Modalities))
	stride := 1
	for i := len(fs.Modalities) - 1; i >= 0; i-- {
		strides[i] = stride
		stride *= fs.Modalities[i].NumOutcomes
	}
	lik := func(j, o int) float64 {
		v := 1.0
		for i, md := range fs.Modalities {
			oi := (o / strides[i]) % md.NumOutcomes
			c := 0
			for _, d := range md.DependsOn {
				c = c*fs.Factors[index[d]].NumStates + digit(j, index[d])
			}
			v *= md.A[oi*(len(md.A)/md.NumOutcomes)+c]
		}
		return v
	}
	ctrlOf := func(u int) []int {
		c := make([]int, len(fs.Factors))
		for f := len(fs.Factors) - 1; f >= 0; f-- {
			n := max(1, len(fs.Factors[f].Controls))
			c[f] = u % n
			u /= n
		}
		return c
	}
	first := make([]float64, fs.Factors[0].NumStates)
	total := 0.0
	var walk func(tt, prev, s0 int, w float64)
	walk = func(tt, prev, s0 int, w float64) {
		if tt == len(obs) {
			first[s0] += w
			total += w
			return
		}
		for j := range J {
			v := w * lik(j, obs[tt])
			if tt == 0 {
				for f, fac := range fs.Factors {
					v *= fac.D[digit(j, f)]
				}
				s0 = digit(j, 0)
			} else {
				c := ctrlOf(acts[tt-1])
				for f, fac := range fs.Factors {
					ns := fac.NumStates
					v *= fac.B[(c[f]*ns+digit(j, f))*ns+digit(prev, f)]
				}
			}
			walk(tt+1, j, s0, v)
		}
	}
	walk(0, 0, 0, 1)
	for i := range first {
		first[i] /= total
	}
	return first
}
