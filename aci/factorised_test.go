package aci_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// randomColumns returns k×n (times lead) column-stochastic entries drawn
// from a flat Dirichlet-like recipe (uniform, some exact zeros).
func randomColumns(rng *rand.Rand, lead, k, n int) []float64 {
	x := make([]float64, lead*k*n)
	for l := range lead {
		for j := range n {
			sum := 0.0
			for i := range k {
				v := rng.Float64()
				if rng.IntN(5) == 0 {
					v = 0
				}
				x[(l*k+i)*n+j] = v
				sum += v
			}
			if sum == 0 {
				x[(l*k+0)*n+j], sum = 1, 1
			}
			for i := range k {
				x[(l*k+i)*n+j] /= sum
			}
		}
	}
	return x
}

// randomFactorised builds a random model with nf factors and nm
// modalities; the first nc factors are controllable. Every modality depends
// on a random non-empty subset of the factors, in random order.
func randomFactorised(t testing.TB, rng *rand.Rand, nf, nm, nc int) *pomdp.Model {
	t.Helper()
	var fs pomdp.FactorisedSpec
	for f := range nf {
		ns := 2 + rng.IntN(2)
		nu := 1
		var controls []string
		if f < nc {
			nu = 2 + rng.IntN(2)
			for u := range nu {
				controls = append(controls, fmt.Sprintf("c%d%d", f, u))
			}
		}
		fs.Factors = append(fs.Factors, pomdp.Factor{
			Name: fmt.Sprintf("f%d", f), NumStates: ns, Controls: controls,
			B: randomColumns(rng, nu, ns, ns), D: randomColumns(rng, 1, ns, 1),
		})
	}
	for i := range nm {
		perm := rng.Perm(nf)[:1+rng.IntN(nf)]
		cols := 1
		var deps []string
		for _, f := range perm {
			deps = append(deps, fs.Factors[f].Name)
			cols *= fs.Factors[f].NumStates
		}
		no := 2 + rng.IntN(2)
		logC := make([]float64, no)
		for o := range logC {
			logC[o] = 4*rng.Float64() - 2
		}
		fs.Modalities = append(fs.Modalities, pomdp.Modality{
			Name: fmt.Sprintf("m%d", i), NumOutcomes: no, DependsOn: deps,
			A: randomColumns(rng, 1, no, cols), LogC: logC,
		})
	}
	m, err := pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// flatEFE is the brute-force reference: the model flattened to its joint
// state space (joint state j = (s_0, ..., s_(F-1)) row-major, factor 0
// slowest; joint B_u = ⊗_f B_f[u_f]; A_m as a |O_m| × |S_joint| matrix),
// every policy's beliefs propagated by the joint B from the product of the
// factor marginals, and per step Σ_m KL[A_m q || C_m] (risk) and
// Σ_m Σ_j q_j H[A_m(.|j)] (ambiguity), as in SPM and pymdp. It reads the
// model only through its factorised description.
func flatEFE(fs pomdp.FactorisedSpec, qs []float64, horizon int) (G, risk, amb []float64, nu int) {
	nf := len(fs.Factors)
	sizes := make([]int, nf)
	index := map[string]int{}
	J := 1
	for f, fac := range fs.Factors {
		sizes[f] = fac.NumStates
		index[fac.Name] = f
		J *= fac.NumStates
	}
	decode := func(j int) []int {
		s := make([]int, nf)
		for f := nf - 1; f >= 0; f-- {
			s[f] = j % sizes[f]
			j /= sizes[f]
		}
		return s
	}
	// Joint actions: every combination of the controllable factors'
	// controls, first controllable factor slowest.
	var ctrls [][]int
	ctrls = append(ctrls, make([]int, nf))
	for f := nf - 1; f >= 0; f-- {
		n := max(1, len(fs.Factors[f].Controls))
		var next [][]int
		for c := range n {
			for _, rest := range ctrls {
				x := append([]int(nil), rest...)
				x[f] = c
				next = append(next, x)
			}
		}
		ctrls = next
	}
	// ctrls is now ordered with factor 0's control slowest.
	nu = len(ctrls)
	jointB := make([][]float64, nu)
	for u, c := range ctrls {
		b := make([]float64, J*J)
		for n := range J {
			sn := decode(n)
			for p := range J {
				sp := decode(p)
				v := 1.0
				for f := range nf {
					ns := sizes[f]
					v *= fs.Factors[f].B[(c[f]*ns+sn[f])*ns+sp[f]]
				}
				b[n*J+p] = v
			}
		}
		jointB[u] = b
	}
	type flatMod struct {
		no   int
		a    []float64
		logC []float64
	}
	var mods []flatMod
	for _, md := range fs.Modalities {
		fm := flatMod{no: md.NumOutcomes, a: make([]float64, md.NumOutcomes*J)}
		for j := range J {
			s := decode(j)
			col := 0
			for _, name := range md.DependsOn {
				f := index[name]
				col = col*sizes[f] + s[f]
			}
			cols := len(md.A) / md.NumOutcomes
			for o := range md.NumOutcomes {
				fm.a[o*J+j] = md.A[o*cols+col]
			}
		}
		// C = softmax(log_C); FactorisedSpec returns C itself.
		if md.LogC == nil {
			for _, c := range md.C {
				fm.logC = append(fm.logC, math.Log(c))
			}
			mods = append(mods, fm)
			continue
		}
		mx := math.Inf(-1)
		for _, x := range md.LogC {
			mx = math.Max(mx, x)
		}
		sum := 0.0
		for _, x := range md.LogC {
			sum += math.Exp(x - mx)
		}
		for _, x := range md.LogC {
			fm.logC = append(fm.logC, x-mx-math.Log(sum))
		}
		mods = append(mods, fm)
	}
	q0 := make([]float64, J)
	for j := range J {
		s := decode(j)
		v, off := 1.0, 0
		for f := range nf {
			v *= qs[off+s[f]]
			off += sizes[f]
		}
		q0[j] = v
	}
	n := 1
	for range horizon {
		n *= nu
	}
	G, risk, amb = make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		pol := aci.DecodePolicy(nil, i, nu, horizon)
		q := append([]float64(nil), q0...)
		for _, u := range pol {
			next := make([]float64, J)
			for a := range J {
				for b := range J {
					next[a] += jointB[u][a*J+b] * q[b]
				}
			}
			q = next
			for _, fm := range mods {
				for o := range fm.no {
					qo := 0.0
					for j := range J {
						qo += fm.a[o*J+j] * q[j]
					}
					if qo > 0 {
						risk[i] += qo * (math.Log(qo) - fm.logC[o])
					}
				}
				for j := range J {
					h := 0.0
					for o := range fm.no {
						if p := fm.a[o*J+j]; p > 0 {
							h -= p * math.Log(p)
						}
					}
					amb[i] += q[j] * h
				}
			}
		}
		G[i] = risk[i] + amb[i]
	}
	return G, risk, amb, nu
}

func close12(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b))
}

// TestFactorisedMatchesFlattened: on random models with 2-3 factors and
// 2-3 modalities (two of them with two controllable factors), G, risk,
// ambiguity, q_pi and action_probs of the factorised computation equal the
// brute-force flattened computation (flatEFE) to 1e-12.
func TestFactorisedMatchesFlattened(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261124, 10))
	cases := []struct{ nf, nm, nc, horizon int }{
		{2, 2, 1, 3}, {2, 3, 2, 2}, {3, 2, 1, 3}, {3, 3, 2, 2}, {2, 2, 2, 2}, {3, 3, 1, 2}, {3, 2, 3, 1},
	}
	for k, c := range cases {
		t.Run(fmt.Sprintf("%d_factors_%d_modalities_%d_controlled", c.nf, c.nm, c.nc), func(t *testing.T) {
			m := randomFactorised(t, rng, c.nf, c.nm, c.nc)
			qs := make([]float64, 0, m.NumStates())
			for f := range m.NumFactors() {
				qs = append(qs, randomColumns(rng, 1, m.FactorSize(f), 1)...)
			}
			fs := m.FactorisedSpec()
			wantG, wantR, wantA, nu := flatEFE(fs, qs, c.horizon)
			if nu != m.NumActions() {
				t.Fatalf("case %d: %d actions, brute force %d", k, m.NumActions(), nu)
			}
			ps, err := aci.EvaluatePolicies(m, qs, c.horizon, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range wantG {
				if !close12(ps.G[i], wantG[i]) || !close12(ps.Risk[i], wantR[i]) || !close12(ps.Ambiguity[i], wantA[i]) {
					t.Fatalf("policy %d: G %v risk %v amb %v, brute force %v %v %v", i, ps.G[i], ps.Risk[i], ps.Ambiguity[i], wantG[i], wantR[i], wantA[i])
				}
			}
			const gamma = 4
			qpi, err := ps.Posterior(nil, gamma)
			if err != nil {
				t.Fatal(err)
			}
			// Brute-force softmax(-gamma G) and its action marginal.
			mx := math.Inf(-1)
			for _, g := range wantG {
				mx = math.Max(mx, -gamma*g)
			}
			sum := 0.0
			for _, g := range wantG {
				sum += math.Exp(-gamma*g - mx)
			}
			probs := ps.ActionProbs(nil, qpi)
			wantProbs := make([]float64, nu)
			for i, g := range wantG {
				q := math.Exp(-gamma*g-mx) / sum
				if !close12(qpi[i], q) {
					t.Fatalf("q_pi[%d] = %v, brute force %v", i, qpi[i], q)
				}
				wantProbs[aci.DecodePolicy(nil, i, nu, c.horizon)[0]] += q
			}
			for u := range probs {
				if !close12(probs[u], wantProbs[u]) {
					t.Fatalf("action_probs[%d] = %v, brute force %v", u, probs[u], wantProbs[u])
				}
			}
		})
	}
}

// TestFactorisedSpellingIdentical: a single-factor model and its factorised
// spelling (one factor, one modality) give bit-identical policy scores and
// identical agent runs.
func TestFactorisedSpellingIdentical(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/tiger.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := pomdp.NewFactorised(m.FactorisedSpec())
	if err != nil {
		t.Fatal(err)
	}
	if !f.Factorised() || m.Factorised() {
		t.Fatal("Factorised() does not tell the spellings apart")
	}
	for obs := range m.NumObs() {
		want, err := aci.Eval(m, obs, 3, 16)
		got, ferr := aci.Eval(f, obs, 3, 16)
		if err != nil || ferr != nil {
			if fmt.Sprint(err) != fmt.Sprint(ferr) {
				t.Fatalf("obs %d: errors differ: %v, %v", obs, err, ferr)
			}
			continue
		}
		for _, pair := range [][2][]float64{{got.QS, want.QS}, {got.G, want.G}, {got.Risk, want.Risk}, {got.Ambiguity, want.Ambiguity}, {got.QPi, want.QPi}, {got.ActionProbs, want.ActionProbs}} {
			for i := range pair[1] {
				if pair[0][i] != pair[1][i] {
					t.Fatalf("obs %d: entry %d: factorised %v, single %v", obs, i, pair[0][i], pair[1][i])
				}
			}
		}
	}
	run := func(m *pomdp.Model) []float64 {
		ag, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: 2})
		if err != nil {
			t.Fatal(err)
		}
		env := pomdp.NewProcess(m, rand.New(rand.NewPCG(7, 7)))
		ep, err := agent.RunEpisode(context.Background(), ag, env, &agent.EpisodeSettings{MaxSteps: 6})
		if err != nil {
			t.Fatal(err)
		}
		var out []float64
		for _, u := range ep.Actions() {
			out = append(out, float64(u))
		}
		for _, q := range ag.StateBeliefs() {
			out = append(out, q...)
		}
		return out
	}
	a, b := run(m), run(f)
	if len(a) != len(b) {
		t.Fatalf("runs differ in length: %d, %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("runs differ at %d: %v, %v", i, a[i], b[i])
		}
	}
}

// TestFactorisedTermsAddOverModalities: risk, ambiguity and novelty of a
// model with two modalities are the sums of those of the same model with
// each modality alone (the factorised EFE sums over modalities; novelty
// uses each modality's own concentrations a, and none for a modality
// without them).
func TestFactorisedTermsAddOverModalities(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	m := randomFactorised(t, rng, 2, 3, 1)
	fs := m.FactorisedSpec()
	for i := range fs.Modalities[:2] {
		md := &fs.Modalities[i]
		md.ConcA = make([]float64, len(md.A))
		for j, p := range md.A {
			md.ConcA[j] = 0.5 + 4*p + float64(j%3)
		}
		md.A = nil // the expectation of a
	}
	full, err := pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	qs := make([]float64, 0, full.NumStates())
	for f := range full.NumFactors() {
		qs = append(qs, randomColumns(rng, 1, full.FactorSize(f), 1)...)
	}
	opts := &aci.EFEOptions{Novelty: true}
	all, err := aci.EvaluatePolicies(full, qs, 2, opts)
	if err != nil {
		t.Fatal(err)
	}
	sumR, sumA, sumN := make([]float64, all.Len()), make([]float64, all.Len()), make([]float64, all.Len())
	for i := range fs.Modalities {
		one := fs
		one.Modalities = fs.Modalities[i : i+1]
		mi, err := pomdp.NewFactorised(one)
		if err != nil {
			t.Fatal(err)
		}
		o := opts
		if fs.Modalities[i].ConcA == nil {
			o = nil
		}
		ps, err := aci.EvaluatePolicies(mi, qs, 2, o)
		if err != nil {
			t.Fatal(err)
		}
		for p := range ps.G {
			sumR[p] += ps.Risk[p]
			sumA[p] += ps.Ambiguity[p]
			if ps.Novelty != nil {
				sumN[p] += ps.Novelty[p]
			}
		}
	}
	for p := range all.G {
		if !close12(all.Risk[p], sumR[p]) || !close12(all.Ambiguity[p], sumA[p]) || !close12(all.Novelty[p], sumN[p]) {
			t.Fatalf("policy %d: (risk, ambiguity, novelty) = (%v, %v, %v), sums over modalities (%v, %v, %v)",
				p, all.Risk[p], all.Ambiguity[p], all.Novelty[p], sumR[p], sumA[p], sumN[p])
		}
		if sumN[p] <= 0 {
			t.Fatalf("policy %d: novelty %v, want > 0", p, sumN[p])
		}
	}
}
