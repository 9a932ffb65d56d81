package si_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// randomModel returns a factorised model with nf factors (2 or 3 states,
// the first with 2 or 3 controls, the second with 1 or 2) and nm
// modalities (2 or 3 outcomes) over random non-empty subsets of the
// factors. About a third of the entries of A and B are zero, so that some
// outcome combinations are impossible jointly and beliefs have zeros.
func randomModel(t *testing.T, rng *rand.Rand, nf, nm int) *pomdp.Model {
	t.Helper()
	column := func(n int) []float64 {
		c := make([]float64, n)
		for {
			z := 0.0
			for i := range c {
				c[i] = 0
				if rng.Float64() > 1.0/3 {
					c[i] = rng.Float64()
				}
				z += c[i]
			}
			if z > 0 {
				for i := range c {
					c[i] /= z
				}
				return c
			}
		}
	}
	var fs pomdp.FactorisedSpec
	for f := range nf {
		ns := 2 + rng.IntN(2)
		nu := 2 + rng.IntN(2)
		if f > 0 {
			nu = 1 + rng.IntN(2)
		}
		fac := pomdp.Factor{Name: fmt.Sprintf("f%d", f), NumStates: ns, B: make([]float64, nu*ns*ns), D: column(ns)}
		if nu > 1 {
			for c := range nu {
				fac.Controls = append(fac.Controls, fmt.Sprintf("c%d", c))
			}
		}
		for c := range nu {
			for prev := range ns {
				col := column(ns)
				for next := range ns {
					fac.B[(c*ns+next)*ns+prev] = col[next]
				}
			}
		}
		fs.Factors = append(fs.Factors, fac)
	}
	for i := range nm {
		no := 2 + rng.IntN(2)
		var deps []string
		size := 1
		for f := range nf {
			if rng.IntN(2) == 0 || (f == nf-1 && deps == nil) {
				deps = append(deps, fs.Factors[f].Name)
				size *= fs.Factors[f].NumStates
			}
		}
		md := pomdp.Modality{Name: fmt.Sprintf("m%d", i), NumOutcomes: no, DependsOn: deps, A: make([]float64, no*size), LogC: make([]float64, no)}
		for s := range size {
			col := column(no)
			for o := range no {
				md.A[o*size+s] = col[o]
			}
		}
		for o := range no {
			md.LogC[o] = 3 * (rng.Float64() - 0.5) // log-preferences in [-1.5, 1.5)
		}
		fs.Modalities = append(fs.Modalities, md)
	}
	m, err := pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// randomBelief returns every factor's marginal, one after the other, with
// a zero now and then.
func randomBelief(rng *rand.Rand, m *pomdp.Model) []float64 {
	q := make([]float64, m.NumStates())
	for f := range m.NumFactors() {
		off, ns := m.FactorOffset(f), m.FactorSize(f)
		z := 0.0
		for z == 0 {
			for s := range ns {
				q[off+s] = 0
				if rng.IntN(4) > 0 {
					q[off+s] = rng.Float64()
				}
				z += q[off+s]
			}
		}
		for s := range ns {
			q[off+s] /= z
		}
	}
	return q
}

// brute is an independent, dense implementation of the recursion of
// docs/si.md, straight from the definitions: every joint state and every
// joint outcome, no sharing; pruning, when asked for, by the rules of
// Options (pAct absolute, or relative with rel; pOut on outcomes).
type brute struct {
	m        *pomdp.Model
	gamma    float64
	marginal bool
	pAct     float64
	rel      bool
	pOut     float64
	sizes    []int // |S_f|
	joint    int   // Π_f |S_f|
	digits   [][]int
	cols     [][]int // cols[m][j]: the column of A_m in joint state j
	a, c     [][]float64
	b        [][]float64
}

func newBrute(m *pomdp.Model, gamma float64, marginal bool) *brute {
	br := &brute{m: m, gamma: gamma, marginal: marginal, joint: 1}
	for f := range m.NumFactors() {
		br.sizes = append(br.sizes, m.FactorSize(f))
		br.joint *= m.FactorSize(f)
		br.b = append(br.b, m.FactorB(f))
	}
	for j := range br.joint {
		d := make([]int, len(br.sizes))
		x := j
		for f := len(br.sizes) - 1; f >= 0; f-- {
			d[f] = x % br.sizes[f]
			x /= br.sizes[f]
		}
		br.digits = append(br.digits, d)
	}
	for i := range m.NumModalities() {
		br.a = append(br.a, m.ModalityA(i))
		br.c = append(br.c, m.ModalityC(i))
		col := make([]int, br.joint)
		for j := range br.joint {
			c := 0
			for _, f := range m.DependsOn(i) {
				c = c*br.sizes[f] + br.digits[j][f]
			}
			col[j] = c
		}
		br.cols = append(br.cols, col)
	}
	return br
}

// prior returns the product of the marginals of q over the joint states.
func (br *brute) prior(q []float64) []float64 {
	p := make([]float64, br.joint)
	for j := range p {
		p[j] = 1
		for f, s := range br.digits[j] {
			p[j] *= q[br.m.FactorOffset(f)+s]
		}
	}
	return p
}

// predict moves every factor's marginal by its B under joint action u.
func (br *brute) predict(q []float64, u int) []float64 {
	ctrl := br.m.DecodeAction(nil, u)
	out := make([]float64, len(q))
	for f, ns := range br.sizes {
		off := br.m.FactorOffset(f)
		for next := range ns {
			for prev := range ns {
				out[off+next] += br.b[f][(ctrl[f]*ns+next)*ns+prev] * q[off+prev]
			}
		}
	}
	return out
}

// local returns risk + ambiguity of the predicted belief q.
func (br *brute) local(q []float64) float64 {
	p := br.prior(q)
	g := 0.0
	for i, a := range br.a {
		no := br.m.ModalitySize(i)
		size := len(a) / no
		for o := range no {
			qo := 0.0
			for j, w := range p {
				qo += w * a[o*size+br.cols[i][j]]
			}
			if qo > 0 {
				g += qo * math.Log(qo/br.c[i][o])
			}
		}
		for j, w := range p {
			h := 0.0
			for o := range no {
				if x := a[o*size+br.cols[i][j]]; x > 0 {
					h -= x * math.Log(x)
				}
			}
			g += w * h
		}
	}
	return g
}

// outcomes returns every joint outcome of positive probability after the
// predicted belief q, its probability (renormalised over the kept ones)
// and the posterior marginals.
func (br *brute) outcomes(q []float64) (probs []float64, posts [][]float64, obs []int) {
	p := br.prior(q)
	nm := br.m.NumModalities()
	marg := make([][]float64, nm)
	for i, a := range br.a {
		no := br.m.ModalitySize(i)
		size := len(a) / no
		marg[i] = make([]float64, no)
		for o := range no {
			for j, w := range p {
				marg[i][o] += w * a[o*size+br.cols[i][j]]
			}
		}
	}
	var all []float64
	var allPosts [][]float64
	var allObs []int
	for o := range br.m.NumObs() {
		outs := br.m.DecodeObs(nil, o)
		l := make([]float64, br.joint)
		z := 0.0
		for j, w := range p {
			l[j] = w
			for i, a := range br.a {
				size := len(a) / br.m.ModalitySize(i)
				l[j] *= a[outs[i]*size+br.cols[i][j]]
			}
			z += l[j]
		}
		if z == 0 {
			continue
		}
		pr := z
		if br.marginal {
			pr = 1
			for i := range nm {
				pr *= marg[i][outs[i]]
			}
		}
		post := make([]float64, len(q))
		for j, v := range l {
			for f, s := range br.digits[j] {
				post[br.m.FactorOffset(f)+s] += v / z
			}
		}
		all = append(all, pr)
		allPosts = append(allPosts, post)
		allObs = append(allObs, o)
	}
	for k, pr := range all {
		if pr >= br.pOut {
			probs, posts, obs = append(probs, pr), append(posts, allPosts[k]), append(obs, allObs[k])
		}
	}
	if probs == nil {
		// No outcome reaches pOut: the most probable, ties (to rounding)
		// up to ⌊1/pOut⌋ of them, the earliest first.
		best := 0.0
		for _, pr := range all {
			best = math.Max(best, pr)
		}
		for k, pr := range all {
			if pr >= best*(1-1e-9) && len(probs) < int(1/br.pOut) {
				probs, posts, obs = append(probs, pr), append(posts, allPosts[k]), append(obs, allObs[k])
			}
		}
	}
	total := 0.0
	for _, pr := range probs {
		total += pr
	}
	for k := range probs {
		probs[k] /= total
	}
	return probs, posts, obs
}

// G returns G(u | q) for every action, r steps from the horizon: +Inf
// for a pruned action.
func (br *brute) G(q []float64, r int) []float64 {
	nu := br.m.NumActions()
	local := make([]float64, nu)
	preds := make([][]float64, nu)
	for u := range local {
		preds[u] = br.predict(q, u)
		local[u] = br.local(preds[u])
	}
	kept := br.kept(local)
	g := make([]float64, nu)
	for u := range g {
		if !kept[u] {
			g[u] = math.Inf(1)
			continue
		}
		g[u] = local[u]
		if r > 1 {
			probs, posts, _ := br.outcomes(preds[u])
			for k, pr := range probs {
				g[u] += pr * br.value(posts[k], r-1)
			}
		}
	}
	return g
}

// kept applies the action pruning to the one-step G.
func (br *brute) kept(local []float64) []bool {
	p := br.probs(local)
	kept := make([]bool, len(p))
	best := 0.0
	for _, x := range p {
		best = math.Max(best, x)
	}
	bound := br.pAct
	if br.rel {
		bound *= best
	}
	any := false
	for u, x := range p {
		kept[u] = x >= bound
		any = any || kept[u]
	}
	if !any {
		// The most probable, ties included: actions that differ only in
		// the control of a factor no modality reads tie exactly in the
		// search, and to rounding here.
		for u, x := range p {
			kept[u] = x >= best*(1-1e-9)
		}
	}
	return kept
}

// value returns Σ_u σ(−γ G)(u) G(u).
func (br *brute) value(q []float64, r int) float64 {
	g := br.G(q, r)
	p := br.probs(g)
	v := 0.0
	for u := range g {
		if p[u] > 0 {
			v += p[u] * g[u]
		}
	}
	return v
}

// probs returns σ(−γ g), an entry +Inf (a pruned action) getting 0.
func (br *brute) probs(g []float64) []float64 {
	mx := math.Inf(-1)
	for _, x := range g {
		mx = math.Max(mx, -br.gamma*x)
	}
	p := make([]float64, len(g))
	z := 0.0
	for u, x := range g {
		if !math.IsInf(x, 1) {
			p[u] = math.Exp(-br.gamma*x - mx)
		}
		z += p[u]
	}
	for u := range p {
		p[u] /= z
	}
	return p
}

// TestBruteForce: the unpruned search equals the dense recursion to 1e-12
// (G, the root's distribution and its value) on random models of one or
// two factors and one or two modalities, at depths 1 to 4, with joint and
// marginal branching.
func TestBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2)) // any seed; the models are checked, not chosen
	worst := 0.0
	cases, deep := 0, 0
	for trial := range 24 {
		nf, nm := 1+trial%2, 1+(trial/2)%2
		m := randomModel(t, rng, nf, nm)
		qs := randomBelief(rng, m)
		gamma := 0.5 + 3*rng.Float64() // γ in [0.5, 3.5)
		for _, branch := range []si.Branching{si.Joint, si.Marginal} {
			br := newBrute(m, gamma, branch == si.Marginal)
			for depth := 1; depth <= 4; depth++ {
				if depth == 4 && m.NumActions()*m.NumObs() > 18 {
					// The dense recursion grows as (|U| |O|)^depth: at
					// depth 4 only the models with at most 18 (action,
					// outcome) pairs, which keeps the test under a second.
					continue
				}
				res, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: depth, Gamma: gamma, Branch: branch})
				if err != nil {
					t.Fatal(err)
				}
				if res.Truncated || res.Depth != depth {
					t.Fatalf("trial %d: truncated at depth %d of %d", trial, res.Depth, depth)
				}
				g := br.G(qs, depth)
				p := br.probs(g)
				v := br.value(qs, depth)
				for u := range g {
					worst = math.Max(worst, math.Abs(res.G[u]-g[u]))
					worst = math.Max(worst, math.Abs(res.ActionProbs[u]-p[u]))
					if math.Abs(res.G[u]-g[u]) > 1e-12 || math.Abs(res.ActionProbs[u]-p[u]) > 1e-12 {
						t.Errorf("trial %d (%d factors, %d modalities), %v, depth %d, action %d: G %.15g, brute force %.15g; Q %.15g, brute force %.15g",
							trial, nf, nm, branch, depth, u, res.G[u], g[u], res.ActionProbs[u], p[u])
					}
				}
				if math.Abs(res.Value-v) > 1e-12 {
					t.Errorf("trial %d, %v, depth %d: value %.15g, brute force %.15g", trial, branch, depth, res.Value, v)
				}
				cases++
				if depth == 4 {
					deep++
				}
			}
		}
	}
	if deep < 8 {
		// A third of the 24 models, each with both branchings.
		t.Errorf("%d cases at depth 4, want at least 8", deep)
	}
	t.Logf("%d cases (%d at depth 4), largest difference from the brute force %.3g", cases, deep, worst)
}

// TestMarginalDiffersFromJoint: on a model whose two modalities read the
// same binary state (each reports it with probability 0.9), the product
// of the marginals is not the joint, and the two modes give different G
// at depth 2; both equal their brute force.
func TestMarginalDiffersFromJoint(t *testing.T) {
	// One factor "s", two states, one control that keeps it; D = [0.5,
	// 0.5]. The second step's ambiguity depends on the posterior, so
	// branching on a wrong joint changes G.
	fs := pomdp.FactorisedSpec{
		Factors: []pomdp.Factor{{Name: "s", NumStates: 2, Controls: []string{"stay", "flip"}, B: []float64{1, 0, 0, 1, 0, 1, 1, 0}, D: []float64{0.5, 0.5}}},
		Modalities: []pomdp.Modality{
			{Name: "x", NumOutcomes: 2, DependsOn: []string{"s"}, A: []float64{0.9, 0.1, 0.1, 0.9}, LogC: []float64{1, 0}},
			{Name: "y", NumOutcomes: 2, DependsOn: []string{"s"}, A: []float64{0.9, 0.1, 0.1, 0.9}},
		},
	}
	m, err := pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	qs := []float64{0.5, 0.5}
	var gs [2][]float64
	for k, b := range []si.Branching{si.Joint, si.Marginal} {
		res, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: 2, Branch: b})
		if err != nil {
			t.Fatal(err)
		}
		want := newBrute(m, si.DefaultGamma, b == si.Marginal).G(qs, 2)
		for u := range want {
			if math.Abs(res.G[u]-want[u]) > 1e-12 {
				t.Errorf("%v: G[%d] = %.15g, brute force %.15g", b, u, res.G[u], want[u])
			}
		}
		gs[k] = res.G
	}
	// The modes must differ well beyond rounding (1e-6, a million times
	// the tolerance of the comparisons above).
	if math.Abs(gs[0][0]-gs[1][0]) < 1e-6 {
		t.Errorf("joint G %v and marginal G %v agree; the test model should tell them apart", gs[0], gs[1])
	}
}

// TestBruteForcePruned: with pruning, the search equals the dense
// recursion pruned by the same rules (docs/si.md, "Pruning") to 1e-12, on
// random models at depths 2 and 3, with thresholds drawn from [0, 0.5).
func TestBruteForcePruned(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	pruned := 0
	for trial := range 24 {
		nf, nm := 1+trial%2, 1+(trial/2)%2
		m := randomModel(t, rng, nf, nm)
		qs := randomBelief(rng, m)
		o := si.Options{
			Gamma: 0.5 + 3*rng.Float64(), Branch: si.Branching(trial / 4 % 2),
			PruneActions: 0.5 * rng.Float64(), PruneRelative: trial%3 == 0, PruneOutcomes: 0.5 * rng.Float64(),
		}
		br := newBrute(m, o.Gamma, o.Branch == si.Marginal)
		br.pAct, br.rel, br.pOut = o.PruneActions, o.PruneRelative, o.PruneOutcomes
		for depth := 2; depth <= 3; depth++ {
			o.Depth = depth
			res, err := si.Plan(context.Background(), m, qs, &o)
			if err != nil {
				t.Fatal(err)
			}
			g := br.G(qs, depth)
			p := br.probs(g)
			for u := range g {
				if math.IsInf(g[u], 1) {
					pruned++
					if !math.IsInf(res.G[u], 1) || res.ActionProbs[u] != 0 || res.Expanded[u] {
						t.Errorf("trial %d, depth %d: action %d pruned by the brute force, not by the search (G %v, Q %v)", trial, depth, u, res.G[u], res.ActionProbs[u])
					}
					continue
				}
				d := math.Max(math.Abs(res.G[u]-g[u]), math.Abs(res.ActionProbs[u]-p[u]))
				worst = math.Max(worst, d)
				if d > 1e-12 {
					t.Errorf("trial %d (%+v), depth %d, action %d: G %.15g Q %.15g, brute force G %.15g Q %.15g", trial, o, depth, u, res.G[u], res.ActionProbs[u], g[u], p[u])
				}
			}
		}
	}
	if pruned == 0 {
		t.Error("no root action was pruned: the thresholds do not test pruning")
	}
	t.Logf("%d root actions pruned; largest difference from the pruned brute force %.3g", pruned, worst)
}
