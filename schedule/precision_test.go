package schedule_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// precisionModel builds N trials sharing one policy precision γ ~
// Gamma(a0, b0): per trial n, π_n ~ softmax(-γ G_n) over K policies and an
// observed action u_n with P(u_n | π_n = k) = lik[u][k] (the policy's first
// action with probability 0.85).
type precisionModel struct {
	a0, b0  float64
	G       [][]float64
	actions []int
	lik     []float64 // [u*K+k]
	K       int
}

func randomPrecisionModel(rng *rand.Rand, trials int) precisionModel {
	const K = 4
	pm := precisionModel{a0: 1, b0: 1, K: K, lik: make([]float64, K*K)}
	for u := range K {
		for k := range K {
			pm.lik[u*K+k] = 0.05
			if u == k {
				pm.lik[u*K+k] = 0.85
			}
		}
	}
	for range trials {
		g := make([]float64, K)
		for k := range g {
			g[k] = 3 * rng.Float64()
		}
		pm.G = append(pm.G, g)
		// The subject mostly picks the lowest-G policy, sometimes not.
		best := 0
		for k := range g {
			if g[k] < g[best] {
				best = k
			}
		}
		if rng.IntN(4) == 0 {
			best = rng.IntN(K)
		}
		pm.actions = append(pm.actions, best)
	}
	return pm
}

func (pm precisionModel) build(t testing.TB, exact bool) (*ffg.Graph, *ffg.Variable) {
	t.Helper()
	newSM := nodes.NewSoftmax
	if exact {
		newSM = nodes.NewSoftmaxExact
	}
	return pm.buildWith(t, newSM)
}

// buildWith builds the model with the softmax factors newSM makes.
func (pm precisionModel) buildWith(t testing.TB, newSM func([]float64) (*nodes.Softmax, error)) (*ffg.Graph, *ffg.Variable) {
	t.Helper()
	g := ffg.New()
	gamma, _ := g.AddVariable("gamma", expfam.GammaFamily)
	prior, _ := nodes.NewGamma(pm.a0, pm.b0)
	if _, err := g.AddFactor("", prior, gamma); err != nil {
		t.Fatal(err)
	}
	tr, err := nodes.NewTransition(pm.lik, []int{pm.K, pm.K})
	if err != nil {
		t.Fatal(err)
	}
	for n, gn := range pm.G {
		pi, _ := g.AddVariable(fmt.Sprintf("pi%d", n), expfam.CategoricalFamily, pm.K)
		sm, err := newSM(gn)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.AddFactor("", sm, pi, gamma); err != nil {
			t.Fatal(err)
		}
		u, _ := g.AddVariable(fmt.Sprintf("u%d", n), expfam.CategoricalFamily, pm.K)
		if err := u.Observe(pm.actions[n]); err != nil {
			t.Fatal(err)
		}
		if _, err := g.AddFactor("", tr, u, pi); err != nil {
			t.Fatal(err)
		}
	}
	return g, gamma
}

// consistent reports whether every observed action is the lowest-G
// policy of its trial.
func (pm precisionModel) consistent() bool {
	for n, g := range pm.G {
		for _, x := range g {
			if x < g[pm.actions[n]] {
				return false
			}
		}
	}
	return true
}

// likelihood is ℓ(γ) = Π_n Σ_k softmax(-γ G_n)_k P(u_n | k).
func (pm precisionModel) likelihood(gamma float64) float64 {
	l := 1.0
	for n, g := range pm.G {
		mx := math.Inf(-1)
		for _, x := range g {
			mx = math.Max(mx, -gamma*x)
		}
		z, s := 0.0, 0.0
		for k, x := range g {
			e := math.Exp(-gamma*x - mx)
			z += e
			s += e * pm.lik[pm.actions[n]*pm.K+k]
		}
		l *= s / z
	}
	return l
}

// exactMean is the posterior mean of γ by quadrature under the prior:
// p(γ | u) ∝ Gamma(γ; a0, b0) Π_n Σ_k softmax(-γ G_n)_k P(u_n | k), so
// E[γ | u] = E_prior[γ ℓ(γ)] / E_prior[ℓ(γ)] with ℓ the likelihood.
func (pm precisionModel) exactMean() float64 {
	prior := expfam.Gamma{Shape: pm.a0, Rate: pm.b0}
	num := prior.Expect(func(x float64) float64 { return x * pm.likelihood(x) }).E
	den := prior.Expect(pm.likelihood).E
	return num / den
}

// logEvidence is ln p(u) = ln E_prior[ℓ(γ)], by quadrature: every free
// energy of the model is at least -ln p(u).
func (pm precisionModel) logEvidence() float64 {
	prior := expfam.Gamma{Shape: pm.a0, Rate: pm.b0}
	return math.Log(prior.Expect(pm.likelihood).E)
}

// checkRun fails the test when F rose from one sweep to the next (beyond
// rounding) or the Gamma posterior of gamma is not valid, and returns it.
func checkRun(t *testing.T, res *schedule.Result, gamma *ffg.Variable, label string) expfam.Gamma {
	t.Helper()
	for i := 1; i < len(res.FreeEnergy); i++ {
		if res.FreeEnergy[i] > res.FreeEnergy[i-1]+1e-9*math.Abs(res.FreeEnergy[i-1]) {
			t.Errorf("%s: F rose at sweep %d: %v -> %v", label, i, res.FreeEnergy[i-1], res.FreeEnergy[i])
		}
	}
	q := gamma.Gamma()
	if err := q.Validate(); err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	return q
}

// TestSharedPrecision: several softmax factors on one Gamma precision.
// SPM's linearised rule adds (q(π) - σ(-ḡ G))·G to the rate once per
// trial, and with three or more trials the rate can go below zero (the
// run stops with an invalid posterior). The exact treatment (non-conjugate
// VMP, NewSoftmaxExact) gives a valid posterior at every sweep, F never
// increases, and E[γ] is within 25% of the exact posterior mean computed
// by quadrature, on random models of 1 to 10 trials (docs/models.md
// records the gaps).
func TestSharedPrecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 11))
	spmFailures := 0
	for trials := 1; trials <= 10; trials++ {
		for rep := range 3 {
			pm := randomPrecisionModel(rng, trials)
			g, gamma := pm.build(t, true)
			res, err := schedule.Run(context.Background(), g, &schedule.Settings{Iterations: 500, Tolerance: 1e-12})
			if err != nil {
				t.Fatalf("%d trials (%d): %v", trials, rep, err)
			}
			if len(res.Increases) > 0 {
				t.Errorf("%d trials (%d): F increased: %+v", trials, rep, res.Increases)
			}
			q := checkRun(t, res, gamma, fmt.Sprintf("%d trials (%d)", trials, rep))
			want := pm.exactMean()
			gap := q.Mean()/want - 1
			t.Logf("%2d trials (%d): E[γ] %.4f, exact %.4f, gap %+.1f%%, shape %.3f rate %.3f, %d sweeps, consistent choices %v",
				trials, rep, q.Mean(), want, 100*gap, q.Shape, q.Rate, res.Iterations, pm.consistent())
			// Where every choice is the lowest-G policy, within 25%. Where
			// some are not, the mean-field factorisation q(π_n) q(γ) itself
			// underestimates γ (TestSharedPrecisionMeanFieldOptimum shows
			// that no Gamma posterior has a lower F); the gaps are logged
			// and recorded in docs/models.md.
			if math.Abs(gap) > 0.25 && pm.consistent() {
				t.Errorf("%d trials (%d): E[γ] = %.4f, exact posterior mean %.4f (gap %.0f%%)", trials, rep, q.Mean(), want, 100*gap)
			}
			// SPM's rule on the same model.
			g2, _ := pm.build(t, false)
			if _, err := schedule.Run(context.Background(), g2, &schedule.Settings{Iterations: 500, Tolerance: 1e-12}); err != nil {
				spmFailures++
			}
		}
	}
	t.Logf("SPM's rule failed on %d of 30 models", spmFailures)
}

// TestSharedPrecisionMeanFieldOptimum: on the models where E[γ] is furthest
// from the exact posterior mean, the non-conjugate VMP fixed point is the
// minimum of F over every Gamma posterior q(γ) (with each q(π_n) at its
// optimum given q(γ)): a grid over shape and rate, each point refined by
// updating the π_n, finds no lower F. The gap is that of the mean-field
// family, not of the update.
func TestSharedPrecisionMeanFieldOptimum(t *testing.T) {
	if testing.Short() {
		t.Skip("a grid of F evaluations by quadrature")
	}
	rng := rand.New(rand.NewPCG(2026, 11))
	checked := 0
	for trials := 1; trials <= 6 && checked < 3; trials++ {
		for range 3 {
			pm := randomPrecisionModel(rng, trials)
			if pm.consistent() {
				continue
			}
			checked++
			g, gamma := pm.build(t, true)
			res, err := schedule.Run(context.Background(), g, &schedule.Settings{Iterations: 500, Tolerance: 1e-13})
			if err != nil {
				t.Fatal(err)
			}
			fmin := res.Final()
			// F at a fixed q(γ), every q(π_n) at its optimum (one update
			// each is exact: their energies are linear in q(π_n)).
			var pis []*ffg.Variable
			for n := range pm.G {
				v, _ := g.Variable(fmt.Sprintf("pi%d", n))
				pis = append(pis, v)
			}
			at := func(a, b float64) float64 {
				if err := gamma.SetGamma(expfam.Gamma{Shape: a, Rate: b}); err != nil {
					t.Fatal(err)
				}
				for _, v := range pis {
					if err := g.Update(v); err != nil {
						t.Fatal(err)
					}
				}
				return g.FreeEnergy()
			}
			best := math.Inf(1)
			for i := range 30 {
				for j := range 30 {
					a := math.Exp(-2 + 5*float64(i)/29)
					b := math.Exp(-3 + 5*float64(j)/29)
					best = math.Min(best, at(a, b))
				}
			}
			if best < fmin-1e-9 {
				t.Errorf("%d trials: a Gamma posterior on the grid has F = %.10f below the VMP fixed point's %.10f", trials, best, fmin)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no model with a choice against G was drawn")
	}
}

// TestSharedPrecisionCollapsed: the collapsed treatment
// (NewSoftmaxCollapsed: q(γ) Π q(π_n | γ), π_n integrated out of γ's
// update) on the models of TestSharedPrecision. Every posterior is valid,
// F never increases, F is a bound (at least -ln p(u), computed by
// quadrature) no looser than mean field's, and E[γ] is within 2% of the
// exact posterior mean on every model (measured: within 0.9%), whether or
// not the choices follow G.
func TestSharedPrecisionCollapsed(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 11))
	worst := 0.0
	for trials := 1; trials <= 10; trials++ {
		for rep := range 3 {
			pm := randomPrecisionModel(rng, trials)
			g, gamma := pm.buildWith(t, nodes.NewSoftmaxCollapsed)
			res, err := schedule.Run(context.Background(), g, &schedule.Settings{Iterations: 500, Tolerance: 1e-12})
			if err != nil {
				t.Fatalf("%d trials (%d): %v", trials, rep, err)
			}
			if !res.Converged {
				t.Errorf("%d trials (%d): not converged in %d sweeps", trials, rep, res.Iterations)
			}
			q := checkRun(t, res, gamma, fmt.Sprintf("%d trials (%d)", trials, rep))
			bound := -pm.logEvidence()
			if f := res.Final(); f < bound-1e-9 {
				t.Errorf("%d trials (%d): F = %.10f below -ln p(u) = %.10f", trials, rep, f, bound)
			}
			gm, _ := pm.build(t, true)
			mf, err := schedule.Run(context.Background(), gm, &schedule.Settings{Iterations: 500, Tolerance: 1e-12})
			if err != nil {
				t.Fatal(err)
			}
			if res.Final() > mf.Final()+1e-9 {
				t.Errorf("%d trials (%d): collapsed F %.10f above mean field's %.10f", trials, rep, res.Final(), mf.Final())
			}
			want := pm.exactMean()
			gap := q.Mean()/want - 1
			worst = math.Max(worst, math.Abs(gap))
			t.Logf("%2d trials (%d): E[γ] %.4f, exact %.4f, gap %+.2f%%; F %.6f, mean field %.6f, -ln p(u) %.6f; %d sweeps; consistent choices %v",
				trials, rep, q.Mean(), want, 100*gap, res.Final(), mf.Final(), bound, res.Iterations, pm.consistent())
			// The bound is tight: the structured family is close to the
			// exact posterior (measured at most 0.015 nats above -ln p(u)).
			if f := res.Final(); f > bound+0.02 {
				t.Errorf("%d trials (%d): F = %.6f, more than 0.02 above -ln p(u) = %.6f", trials, rep, f, bound)
			}
			// The requirement is 25%; the measured gaps are below 1%.
			if math.Abs(gap) > 0.02 {
				t.Errorf("%d trials (%d): E[γ] = %.4f, exact posterior mean %.4f (gap %.1f%%)", trials, rep, q.Mean(), want, 100*gap)
			}
		}
	}
	t.Logf("largest gap %.1f%%", 100*worst)
}

// TestCollapsedRefusedBySumProduct: sum-product treats the policies as
// part of the exact discrete posterior, apart from the precision, which a
// collapsed softmax contradicts: the run is refused with a message naming
// the remedy.
func TestCollapsedRefusedBySumProduct(t *testing.T) {
	pm := randomPrecisionModel(rand.New(rand.NewPCG(1, 2)), 2)
	g, _ := pm.buildWith(t, nodes.NewSoftmaxCollapsed)
	_, err := schedule.Run(context.Background(), g, &schedule.Settings{Method: schedule.MethodSumProduct})
	if err == nil || !strings.Contains(err.Error(), "NewSoftmaxExact") {
		t.Errorf("sum-product on a collapsed softmax: %v", err)
	}
}

// BenchmarkSharedPrecision runs inference to convergence on a 10-trial
// shared-precision model (the models of TestSharedPrecision) with each
// treatment of the softmax: the graph is built once and reset between
// runs, as model.Model.Infer does.
func BenchmarkSharedPrecision(b *testing.B) {
	pm := randomPrecisionModel(rand.New(rand.NewPCG(2026, 12)), 10)
	for _, c := range []struct {
		name string
		new  func([]float64) (*nodes.Softmax, error)
	}{{"exact", nodes.NewSoftmaxExact}, {"collapsed", nodes.NewSoftmaxCollapsed}} {
		b.Run(c.name, func(b *testing.B) {
			g, _ := pm.buildWith(b, c.new)
			s := &schedule.Settings{Iterations: 500, Tolerance: 1e-12}
			b.ReportAllocs()
			for b.Loop() {
				if err := g.ResetPosteriors(); err != nil {
					b.Fatal(err)
				}
				if _, err := schedule.Run(context.Background(), g, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// hiddenModel is a shared-precision model whose policies have a hidden
// child: per trial n, π_n ~ softmax(-γ G_n) over 3 policies, a hidden
// state s_n ~ T[:, π_n] (3 states) and an observed o_n ~ A[:, s_n].
type hiddenModel struct {
	G   [][]float64
	T   []float64 // [s*3+k]
	A   []float64 // [o*3+s]
	obs []int
}

func randomHiddenModel(rng *rand.Rand, trials int) hiddenModel {
	col := func() []float64 { // three random columns
		m := make([]float64, 9)
		for c := range 3 {
			z := 0.0
			for r := range 3 {
				m[r*3+c] = 0.1 + rng.Float64()
				z += m[r*3+c]
			}
			for r := range 3 {
				m[r*3+c] /= z
			}
		}
		return m
	}
	hm := hiddenModel{T: col(), A: col()}
	for range trials {
		hm.G = append(hm.G, []float64{3 * rng.Float64(), 3 * rng.Float64(), 3 * rng.Float64()})
		hm.obs = append(hm.obs, rng.IntN(3))
	}
	return hm
}

// likelihood is p(o | γ) = Π_n Σ_k softmax(-γ G_n)_k Σ_s T[s, k] A[o_n, s],
// by enumeration.
func (hm hiddenModel) likelihood(gamma float64) float64 {
	l := 1.0
	for n, g := range hm.G {
		mx := math.Inf(-1)
		for _, x := range g {
			mx = math.Max(mx, -gamma*x)
		}
		z, s := 0.0, 0.0
		for k, x := range g {
			e := math.Exp(-gamma*x - mx)
			z += e
			for st := range 3 {
				s += e * hm.T[st*3+k] * hm.A[hm.obs[n]*3+st]
			}
		}
		l *= s / z
	}
	return l
}

func (hm hiddenModel) build(t testing.TB) (*ffg.Graph, *ffg.Variable, []*ffg.Variable) {
	return hm.buildWith(t, nodes.NewSoftmaxCollapsed)
}

func (hm hiddenModel) buildWith(t testing.TB, newSM func([]float64) (*nodes.Softmax, error)) (*ffg.Graph, *ffg.Variable, []*ffg.Variable) {
	t.Helper()
	g := ffg.New()
	gamma, _ := g.AddVariable("gamma", expfam.GammaFamily)
	prior, _ := nodes.NewGamma(1, 1)
	if _, err := g.AddFactor("", prior, gamma); err != nil {
		t.Fatal(err)
	}
	tr, _ := nodes.NewTransition(hm.T, []int{3, 3})
	lik, _ := nodes.NewTransition(hm.A, []int{3, 3})
	var pis []*ffg.Variable
	for n, gn := range hm.G {
		pi, _ := g.AddVariable(fmt.Sprintf("pi%d", n), expfam.CategoricalFamily, 3)
		st, _ := g.AddVariable(fmt.Sprintf("s%d", n), expfam.CategoricalFamily, 3)
		o, _ := g.AddVariable(fmt.Sprintf("o%d", n), expfam.CategoricalFamily, 3)
		sm, err := newSM(gn)
		if err != nil {
			t.Fatal(err)
		}
		for _, add := range []struct {
			f    ffg.Factor
			vars []*ffg.Variable
		}{{sm, []*ffg.Variable{pi, gamma}}, {tr, []*ffg.Variable{st, pi}}, {lik, []*ffg.Variable{o, st}}} {
			if _, err := g.AddFactor("", add.f, add.vars...); err != nil {
				t.Fatal(err)
			}
		}
		if err := o.Observe(hm.obs[n]); err != nil {
			t.Fatal(err)
		}
		pis = append(pis, pi)
	}
	return g, gamma, pis
}

// TestCollapsedEveryUpdate: with a hidden child of every policy (so the
// messages m_n change between updates) and the variables updated in a new
// random order every sweep (γ first, last or in between), F never rises
// after any single update, and the local free energy of γ changes exactly
// as F does when γ (and with it the policies) is updated. At convergence
// F lies between -ln p(o) (enumeration and quadrature) and the mean-field
// F of the same model (NewSoftmaxExact), and E[γ] is within 10% of the
// exact posterior mean and closer to it than mean field's. Not closer: the
// policies are integrated out of γ's update, but each q(π_n | γ) still
// sees its hidden child through mean field, so the collapsed treatment is
// exact only where a policy's other neighbours are observed
// (TestSharedPrecisionCollapsed).
func TestCollapsedEveryUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	prior := expfam.Gamma{Shape: 1, Rate: 1}
	for model := range 8 {
		hm := randomHiddenModel(rng, 2+model%4)
		g, gamma, _ := hm.build(t)
		var hidden []*ffg.Variable
		for _, v := range g.Variables() {
			if !v.Observed() {
				hidden = append(hidden, v)
			}
		}
		f := g.FreeEnergy()
		for sweep := range 40 {
			for _, i := range rng.Perm(len(hidden)) {
				v := hidden[i]
				local := g.LocalFreeEnergy([]*ffg.Variable{v})
				if err := g.Update(v); err != nil {
					t.Fatal(err)
				}
				next := g.FreeEnergy()
				if next > f+1e-9*math.Max(1, math.Abs(f)) {
					t.Errorf("model %d sweep %d: F rose from %.12f to %.12f updating %s", model, sweep, f, next, v.Name())
				}
				if v == gamma {
					if d := (g.LocalFreeEnergy([]*ffg.Variable{v}) - local) - (next - f); math.Abs(d) > 1e-9 {
						t.Errorf("model %d: updating γ changed F by %.12f, its local free energy by %.12f", model, next-f, next-f+d)
					}
				}
				f = next
			}
		}
		bound := -math.Log(prior.Expect(hm.likelihood).E)
		gm, gammaMF, _ := hm.buildWith(t, nodes.NewSoftmaxExact)
		mf, err := schedule.Run(context.Background(), gm, &schedule.Settings{Iterations: 500, Tolerance: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		if f < bound-1e-9 || f > mf.Final()+1e-9 {
			t.Errorf("model %d: F = %.10f, want between -ln p(o) = %.10f and mean field's %.10f", model, f, bound, mf.Final())
		}
		want := prior.Expect(func(x float64) float64 { return x * hm.likelihood(x) }).E / prior.Expect(hm.likelihood).E
		gap, gapMF := gamma.Gamma().Mean()/want-1, gammaMF.Gamma().Mean()/want-1
		t.Logf("model %d: F %.6f, mean field %.6f, -ln p(o) %.6f; E[γ] %.4f (%+.1f%%), mean field %.4f (%+.1f%%), exact %.4f",
			model, f, mf.Final(), bound, gamma.Gamma().Mean(), 100*gap, gammaMF.Gamma().Mean(), 100*gapMF, want)
		// Measured: within 8.3% (mean field: down to -34%).
		if math.Abs(gap) > 0.10 || math.Abs(gap) > math.Abs(gapMF) {
			t.Errorf("model %d: E[γ] gap %+.1f%%, mean field's %+.1f%%", model, 100*gap, 100*gapMF)
		}
	}
}

// TestCollapsedObserveAfterRun: observing a policy after a run leaves no
// collapsed conditional behind: running again gives the numbers of a
// fresh graph with that policy observed from the start.
func TestCollapsedObserveAfterRun(t *testing.T) {
	hm := randomHiddenModel(rand.New(rand.NewPCG(3, 4)), 3)
	s := &schedule.Settings{Iterations: 500, Tolerance: 1e-13}
	g, gamma, pis := hm.build(t)
	if _, err := schedule.Run(context.Background(), g, s); err != nil {
		t.Fatal(err)
	}
	if err := pis[1].Observe(2); err != nil {
		t.Fatal(err)
	}
	got, err := schedule.Run(context.Background(), g, s)
	if err != nil {
		t.Fatal(err)
	}
	g2, gamma2, pis2 := hm.build(t)
	if err := pis2[1].Observe(2); err != nil {
		t.Fatal(err)
	}
	want, err := schedule.Run(context.Background(), g2, s)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.Final()-want.Final()) > 1e-9 || math.Abs(gamma.Gamma().Mean()-gamma2.Gamma().Mean()) > 1e-7 {
		t.Errorf("observed after a run: F %.12f, E[γ] %.12f; fresh graph F %.12f, E[γ] %.12f",
			got.Final(), gamma.Gamma().Mean(), want.Final(), gamma2.Gamma().Mean())
	}
}

// TestCollapsedOneParent: a policy can be kept conditional on one
// precision only; a second collapsed softmax on the same output is
// refused when it is added.
func TestCollapsedOneParent(t *testing.T) {
	g := ffg.New()
	a, _ := g.AddVariable("a", expfam.GammaFamily)
	b, _ := g.AddVariable("b", expfam.GammaFamily)
	pi, _ := g.AddVariable("pi", expfam.CategoricalFamily, 2)
	s1, _ := nodes.NewSoftmaxCollapsed([]float64{1, 2})
	s2, _ := nodes.NewSoftmaxCollapsed([]float64{2, 1})
	if _, err := g.AddFactor("first", s1, pi, a); err != nil {
		t.Fatal(err)
	}
	_, err := g.AddFactor("second", s2, pi, b)
	if err == nil || !strings.Contains(err.Error(), "already the output of the collapsed factor") {
		t.Errorf("second collapsed parent: %v", err)
	}
	s3, _ := nodes.NewSoftmaxExact([]float64{2, 1})
	if _, err := g.AddFactor("third", s3, pi, b); err != nil {
		t.Errorf("an exact softmax beside a collapsed one: %v", err)
	}
}
