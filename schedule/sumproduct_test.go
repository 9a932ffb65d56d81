package schedule_test

import (
	"context"
	"errors"
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

// discreteModel is a model over categorical variables only, kept in a form
// that the brute force can enumerate: every factor is a (log-)table over
// its variables.
type discreteModel struct {
	g      *ffg.Graph
	hidden []*ffg.Variable
	// Log-potentials as the brute force sees them: for each factor, its
	// variables and ln f as a function of their states; soft evidence on a
	// variable is averaged in (the VMP meaning): ln ψ = Σ_y q(y) ln f(.., y).
	terms []func(state map[*ffg.Variable]int) float64
}

func randCols(rng *rand.Rand, k, n int) []float64 {
	x := make([]float64, k*n)
	for j := range n {
		s := 0.0
		for i := range k {
			x[i*n+j] = 0.05 + rng.Float64()
			s += x[i*n+j]
		}
		for i := range k {
			x[i*n+j] /= s
		}
	}
	return x
}

// addTransition adds P(out | ins) with a random literal table and records
// its term; an observed variable's state is its index, a soft-evidence
// variable is averaged.
func (dm *discreteModel) addTransition(t *testing.T, rng *rand.Rand, out *ffg.Variable, ins []*ffg.Variable, soft map[*ffg.Variable][]float64) {
	t.Helper()
	shape := []int{out.Shape()[0]}
	cols := 1
	for _, v := range ins {
		shape = append(shape, v.Shape()[0])
		cols *= v.Shape()[0]
	}
	m := randCols(rng, shape[0], cols)
	tr, err := nodes.NewTransition(m, shape)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dm.g.AddFactor("", tr, append([]*ffg.Variable{out}, ins...)...); err != nil {
		t.Fatal(err)
	}
	vars := append([]*ffg.Variable{out}, ins...)
	dm.terms = append(dm.terms, func(state map[*ffg.Variable]int) float64 {
		// Sum over the soft-evidence variables' states with weight q.
		var rec func(i, idx int, w float64) float64
		rec = func(i, idx int, w float64) float64 {
			if i == len(vars) {
				return w * math.Log(m[idx])
			}
			v := vars[i]
			if q, ok := soft[v]; ok {
				s := 0.0
				for y, p := range q {
					if p != 0 {
						s += rec(i+1, idx*shape[i]+y, w*p)
					}
				}
				return s
			}
			return rec(i+1, idx*shape[i]+state[v], w)
		}
		// Row-major index over [out, ins...]: out is the slowest axis.
		return rec(0, 0, 1)
	})
}

// addStep adds the HMM step i: s_i with ns states (with a random prior
// when prev is nil, else a random transition from prev) and o_i with no
// outcomes, observed at a random value recorded in obs. It returns s_i.
func (dm *discreteModel) addStep(t *testing.T, rng *rand.Rand, obs map[*ffg.Variable]int, prev *ffg.Variable, i, ns, no int) *ffg.Variable {
	t.Helper()
	s := categorical(t, dm.g, "s"+string(rune('0'+i)), ns)
	dm.hidden = append(dm.hidden, s)
	if prev == nil {
		dm.addPrior(t, rng, s)
	} else {
		dm.addTransition(t, rng, s, []*ffg.Variable{prev}, nil)
	}
	o := categorical(t, dm.g, "o"+string(rune('0'+i)), no)
	x := rng.IntN(no)
	if err := o.Observe(x); err != nil {
		t.Fatal(err)
	}
	obs[o] = x
	dm.addTransition(t, rng, o, []*ffg.Variable{s}, nil)
	return s
}

func (dm *discreteModel) addPrior(t *testing.T, rng *rand.Rand, v *ffg.Variable) {
	t.Helper()
	p := randCols(rng, v.Shape()[0], 1)
	c, err := nodes.NewCategorical(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dm.g.AddFactor("", c, v); err != nil {
		t.Fatal(err)
	}
	dm.terms = append(dm.terms, func(state map[*ffg.Variable]int) float64 { return math.Log(p[state[v]]) })
}

// enumerate returns the exact marginals of the hidden variables and ln Z,
// summing over every joint state.
func (dm *discreteModel) enumerate(observed map[*ffg.Variable]int) ([][]float64, float64) {
	state := map[*ffg.Variable]int{}
	for v, o := range observed {
		state[v] = o
	}
	marg := make([][]float64, len(dm.hidden))
	for i, v := range dm.hidden {
		marg[i] = make([]float64, v.Shape()[0])
	}
	var logs []float64
	var confs [][]int
	var rec func(i int)
	cur := make([]int, len(dm.hidden))
	rec = func(i int) {
		if i == len(dm.hidden) {
			l := 0.0
			for _, term := range dm.terms {
				l += term(state)
			}
			logs = append(logs, l)
			confs = append(confs, append([]int(nil), cur...))
			return
		}
		for x := range dm.hidden[i].Shape()[0] {
			state[dm.hidden[i]] = x
			cur[i] = x
			rec(i + 1)
		}
	}
	rec(0)
	mx := math.Inf(-1)
	for _, l := range logs {
		mx = math.Max(mx, l)
	}
	z := 0.0
	for k, l := range logs {
		w := math.Exp(l - mx)
		z += w
		for i, x := range confs[k] {
			marg[i][x] += w
		}
	}
	for i := range marg {
		for x := range marg[i] {
			marg[i][x] /= z
		}
	}
	return marg, mx + math.Log(z)
}

func categorical(t *testing.T, g *ffg.Graph, name string, k int) *ffg.Variable {
	t.Helper()
	v, err := g.AddVariable(name, expfam.CategoricalFamily, k)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSumProductMatchesEnumeration: with every parameter known, sum-product
// marginals equal brute-force enumeration to 1e-12 and F = -ln p(evidence)
// to 1e-10, on random chains (HMMs), a tree with a two-parent transition,
// and soft evidence.
func TestSumProductMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2))
	build := map[string]func(t *testing.T) (*discreteModel, map[*ffg.Variable]int){
		"chain": func(t *testing.T) (*discreteModel, map[*ffg.Variable]int) {
			dm := &discreteModel{g: ffg.New()}
			obs := map[*ffg.Variable]int{}
			var prev *ffg.Variable
			for i := range 5 {
				prev = dm.addStep(t, rng, obs, prev, i, 3, 2)
			}
			return dm, obs
		},
		"tree with two parents and soft evidence": func(t *testing.T) (*discreteModel, map[*ffg.Variable]int) {
			dm := &discreteModel{g: ffg.New()}
			a := categorical(t, dm.g, "a", 2)
			b := categorical(t, dm.g, "b", 3)
			c := categorical(t, dm.g, "c", 2)
			d := categorical(t, dm.g, "d", 3)
			e := categorical(t, dm.g, "e", 2)
			o := categorical(t, dm.g, "o", 4)
			w := categorical(t, dm.g, "w", 3)
			dm.hidden = []*ffg.Variable{a, b, c, d}
			dm.addPrior(t, rng, a)
			dm.addPrior(t, rng, b)
			dm.addTransition(t, rng, c, []*ffg.Variable{a, b}, nil)
			dm.addTransition(t, rng, d, []*ffg.Variable{c}, nil)
			if err := o.Observe(3); err != nil {
				t.Fatal(err)
			}
			dm.addTransition(t, rng, o, []*ffg.Variable{d}, nil)
			q := []float64{0.2, 0.5, 0.3}
			if err := w.ObserveSoft(q); err != nil {
				t.Fatal(err)
			}
			dm.addTransition(t, rng, w, []*ffg.Variable{b}, map[*ffg.Variable][]float64{w: q})
			qe := []float64{0.9, 0.1}
			if err := e.ObserveSoft(qe); err != nil {
				t.Fatal(err)
			}
			dm.addTransition(t, rng, e, []*ffg.Variable{d}, map[*ffg.Variable][]float64{e: qe})
			return dm, map[*ffg.Variable]int{o: 3}
		},
	}
	for rep := range 3 {
		for _, name := range []string{"chain", "tree with two parents and soft evidence"} {
			mk := build[name]
			t.Run(fmt.Sprintf("%s/%d", name, rep), func(t *testing.T) {
				dm, obs := mk(t)
				res, err := schedule.Run(context.Background(), dm.g, &schedule.Settings{Method: schedule.MethodSumProduct, Iterations: 3})
				if err != nil {
					t.Fatal(err)
				}
				want, logZ := dm.enumerate(obs)
				for i, v := range dm.hidden {
					for x, p := range v.Probs() {
						if math.Abs(p-want[i][x]) > 1e-12 {
							t.Fatalf("%s: q = %v, enumeration %v", v.Name(), v.Probs(), want[i])
						}
					}
				}
				if f := res.Final(); math.Abs(f+logZ) > 1e-10 {
					t.Errorf("F = %.15f, -ln p(evidence) = %.15f", f, -logZ)
				}
				// Mean field on the same graph is an upper bound on -ln p.
				vmp, err := schedule.Run(context.Background(), dm.g, &schedule.Settings{Iterations: 200, Tolerance: 1e-12})
				if err != nil {
					t.Fatal(err)
				}
				if vmp.Final() < -logZ-1e-9 {
					t.Errorf("VMP's F %.12f below -ln p %.12f", vmp.Final(), -logZ)
				}
			})
		}
	}
}

// TestSumProductVBEM: an HMM whose transition matrix B is Dirichlet
// distributed. The sum-product fixed point equals variational Bayesian EM
// done by enumeration (E-step: the exact posterior of the states under
// exp E[ln B]; M-step: α = prior + the expected transition counts from
// that exact joint) to 1e-8 in the state posteriors, in α and in
// F = -ln Z̃ + KL(q(B) ‖ p(B)); F never increases over the sweeps.
func TestSumProductVBEM(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 21))
	const K, O, T = 3, 2, 5
	d := randCols(rng, K, 1)
	a := randCols(rng, O, K)
	prior := make([]float64, K*K)
	for i := range prior {
		prior[i] = 0.5 + 2*rng.Float64()
	}
	obs := make([]int, T)
	for i := range obs {
		obs[i] = rng.IntN(O)
	}
	g := ffg.New()
	bv, _ := g.AddVariable("B", expfam.DirichletFamily, K, K)
	dp, _ := nodes.NewDirichlet(prior, []int{K, K})
	if _, err := g.AddFactor("", dp, bv); err != nil {
		t.Fatal(err)
	}
	var states []*ffg.Variable
	for i := range T {
		s := categorical(t, g, "s"+string(rune('0'+i)), K)
		states = append(states, s)
		if i == 0 {
			c, _ := nodes.NewCategorical(d)
			if _, err := g.AddFactor("", c, s); err != nil {
				t.Fatal(err)
			}
		} else {
			tr, _ := nodes.NewTransitionDirichlet([]int{K, K})
			if _, err := g.AddFactor("", tr, s, states[i-1], bv); err != nil {
				t.Fatal(err)
			}
		}
		o := categorical(t, g, "o"+string(rune('0'+i)), O)
		if err := o.Observe(obs[i]); err != nil {
			t.Fatal(err)
		}
		tr, _ := nodes.NewTransition(a, []int{O, K})
		if _, err := g.AddFactor("", tr, o, s); err != nil {
			t.Fatal(err)
		}
	}
	// Run every sweep (a tolerance no ΔF reaches): near the optimum F is
	// flat, and a |ΔF| stop would leave the parameters short of it.
	res, err := schedule.Run(context.Background(), g, &schedule.Settings{Method: schedule.MethodSumProduct, Iterations: 3000, Tolerance: 1e-300})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Increases) > 0 {
		t.Errorf("F increased: %+v", res.Increases)
	}
	// VB-EM by enumeration.
	alpha := append([]float64(nil), prior...)
	var marg [][]float64
	var fVB float64
	for range 5000 {
		// exp E[ln B] column by column (B[next][prev], columns over next).
		gb := make([]float64, K*K)
		for p := range K {
			s := 0.0
			for n := range K {
				s += alpha[n*K+p]
			}
			for n := range K {
				gb[n*K+p] = math.Exp(expfam.Digamma(alpha[n*K+p]) - expfam.Digamma(s))
			}
		}
		counts := make([]float64, K*K)
		marg = make([][]float64, T)
		for i := range marg {
			marg[i] = make([]float64, K)
		}
		path := make([]int, T)
		z := 0.0
		var rec func(i int, w float64)
		rec = func(i int, w float64) {
			if i == T {
				z += w
				for j, x := range path {
					marg[j][x] += w
				}
				for j := 1; j < T; j++ {
					counts[path[j]*K+path[j-1]] += w
				}
				return
			}
			for x := range K {
				v := w * a[obs[i]*K+x]
				if i == 0 {
					v *= d[x]
				} else {
					v *= gb[x*K+path[i-1]]
				}
				path[i] = x
				rec(i+1, v)
			}
		}
		rec(0, 1)
		next := make([]float64, K*K)
		for i := range next {
			next[i] = prior[i] + counts[i]/z
		}
		for j := range marg {
			for x := range marg[j] {
				marg[j][x] /= z
			}
		}
		// F = -ln Z̃ + KL(q(B) || p(B)) with q(B) the current alpha.
		kl := 0.0
		for p := range K {
			qc, pc := make([]float64, K), make([]float64, K)
			for n := range K {
				qc[n], pc[n] = alpha[n*K+p], prior[n*K+p]
			}
			kl += expfam.Dirichlet{Alpha: qc}.KL(expfam.Dirichlet{Alpha: pc})
		}
		fVB = -math.Log(z) + kl
		diff := 0.0
		for i := range next {
			diff = math.Max(diff, math.Abs(next[i]-alpha[i]))
		}
		alpha = next
		if diff < 1e-15 {
			break
		}
	}
	for i, s := range states {
		for x, p := range s.Probs() {
			if math.Abs(p-marg[i][x]) > 1e-8 {
				t.Fatalf("%s: q = %v, VB-EM %v", s.Name(), s.Probs(), marg[i])
			}
		}
	}
	for i, x := range bv.Alpha() {
		if math.Abs(x-alpha[i]) > 1e-8 {
			t.Fatalf("alpha = %v, VB-EM %v", bv.Alpha(), alpha)
		}
	}
	if math.Abs(res.Final()-fVB) > 1e-8 {
		t.Errorf("F = %.12f, VB-EM %.12f", res.Final(), fVB)
	}
}

// TestSumProductLoop: a loop among the discrete variables (a → b, a → c,
// b, c → d: a, b, c and the factor of d close a loop) is an error that
// names the variables on it.
func TestSumProductLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	dm := &discreteModel{g: ffg.New()}
	a := categorical(t, dm.g, "a", 2)
	b := categorical(t, dm.g, "b", 2)
	c := categorical(t, dm.g, "c", 2)
	d := categorical(t, dm.g, "d", 2)
	dm.addPrior(t, rng, a)
	dm.addTransition(t, rng, b, []*ffg.Variable{a}, nil)
	dm.addTransition(t, rng, c, []*ffg.Variable{a}, nil)
	dm.addTransition(t, rng, d, []*ffg.Variable{b, c}, nil)
	_, err := schedule.Run(context.Background(), dm.g, &schedule.Settings{Method: schedule.MethodSumProduct})
	var le *ffg.LoopError
	if !errors.As(err, &le) {
		t.Fatalf("error %v, want a loop error", err)
	}
	for _, name := range []string{`"a"`, `"b"`, `"c"`} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("loop error %q does not name %s", err, name)
		}
	}
	if _, err := schedule.Run(context.Background(), dm.g, &schedule.Settings{Method: "bp"}); err == nil || !strings.Contains(err.Error(), `"bp"`) {
		t.Errorf("unknown method: %v", err)
	}
}

// TestSumProductGrowingGraph: a chain grown between runs (a new state and
// its observation added after the first run) is inferred exactly again:
// the cached tree is rebuilt when the structure changes.
func TestSumProductGrowingGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	dm := &discreteModel{g: ffg.New()}
	obs := map[*ffg.Variable]int{}
	var prev *ffg.Variable
	grow := func(i int) { prev = dm.addStep(t, rng, obs, prev, i, 2, 3) }
	for step := range 4 {
		grow(step)
		res, err := schedule.Run(context.Background(), dm.g, &schedule.Settings{Method: schedule.MethodSumProduct, Iterations: 2})
		if err != nil {
			t.Fatal(err)
		}
		want, logZ := dm.enumerate(obs)
		for i, v := range dm.hidden {
			for x, p := range v.Probs() {
				if math.Abs(p-want[i][x]) > 1e-12 {
					t.Fatalf("after %d steps, %s: %v, enumeration %v", step+1, v.Name(), v.Probs(), want[i])
				}
			}
		}
		if math.Abs(res.Final()+logZ) > 1e-10 {
			t.Errorf("after %d steps: F %v, -ln p %v", step+1, res.Final(), -logZ)
		}
	}
}

// TestSumProductLoopy: loopy belief propagation (Settings.Loopy) is exact on
// a tree (marginals to 1e-10 of enumeration, F = -ln p to 1e-9), and on a
// single loop (a → b, a → c, b, c → d, d observed) converges to marginals
// close to the exact ones: within 0.05 here, where one loop's
// double counting is small (the measured gap is printed).
func TestSumProductLoopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	// A tree: the chain of TestSumProductMatchesEnumeration.
	dm := &discreteModel{g: ffg.New()}
	obs := map[*ffg.Variable]int{}
	var prev *ffg.Variable
	for i := range 4 {
		prev = dm.addStep(t, rng, obs, prev, i, 3, 2)
	}
	res, err := schedule.Run(context.Background(), dm.g, &schedule.Settings{Method: schedule.MethodSumProduct, Loopy: true, Iterations: 2})
	if err != nil {
		t.Fatal(err)
	}
	want, logZ := dm.enumerate(obs)
	for i, v := range dm.hidden {
		for x, p := range v.Probs() {
			if math.Abs(p-want[i][x]) > 1e-10 {
				t.Fatalf("tree: %s = %v, enumeration %v", v.Name(), v.Probs(), want[i])
			}
		}
	}
	if math.Abs(res.Final()+logZ) > 1e-9 {
		t.Errorf("tree: F %v, -ln p %v", res.Final(), -logZ)
	}
	// A loop.
	lm := &discreteModel{g: ffg.New()}
	a := categorical(t, lm.g, "a", 2)
	b := categorical(t, lm.g, "b", 2)
	c := categorical(t, lm.g, "c", 2)
	d := categorical(t, lm.g, "d", 2)
	lm.hidden = []*ffg.Variable{a, b, c}
	lm.addPrior(t, rng, a)
	lm.addTransition(t, rng, b, []*ffg.Variable{a}, nil)
	lm.addTransition(t, rng, c, []*ffg.Variable{a}, nil)
	_ = d.Observe(1)
	lm.addTransition(t, rng, d, []*ffg.Variable{b, c}, nil)
	res, err = schedule.Run(context.Background(), lm.g, &schedule.Settings{Method: schedule.MethodSumProduct, Loopy: true, Damping: 0.3, Iterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	want, logZ = lm.enumerate(map[*ffg.Variable]int{d: 1})
	gap := 0.0
	for i, v := range lm.hidden {
		for x, p := range v.Probs() {
			gap = math.Max(gap, math.Abs(p-want[i][x]))
		}
	}
	t.Logf("loop: largest marginal error %.4f, Bethe F %.4f against -ln p %.4f", gap, res.Final(), -logZ)
	if gap > 0.05 {
		t.Errorf("loop: marginals off by %v", gap)
	}
	if _, err := schedule.Run(context.Background(), lm.g, &schedule.Settings{Method: schedule.MethodSumProduct, Loopy: true, Damping: 1}); err == nil {
		t.Error("damping 1 accepted")
	}
}
