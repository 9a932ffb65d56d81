package ffg_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// randModel is a random discrete model: categorical variables 0..n-1, each
// either a root with a literal prior or the child of an earlier variable
// through a transition matrix; some variables emit an observation through a
// matrix that is either literal or a shared Dirichlet-distributed parameter
// theta. In multi-parent models a child may also depend on a second latent
// parent and/or an observed action u, P(s_i | s_p, s_p2, u_i), a Transition
// of rank 3 or 4. Its description is kept so the test can compute
// everything by brute force, independently of the engine.
type randModel struct {
	k       []int       // outcomes of each latent variable
	parent  []int       // parent index or -1
	prior   [][]float64 // prior of roots
	trans   [][]float64 // trans[i] row-major over [k[i], k[parent], (k[parent2]), (actK)]
	parent2 []int       // second latent parent or -1
	actK    int         // outcomes of the observed actions
	act     []int       // observed action of variable i as a parent, or -1
	obsDim  int
	emits   []bool    // variable i emits an observation
	obs     []int     // the observed index for emitting variables
	obsLit  []float64 // literal emission matrix [obsDim x k] (all latents share k when Dirichlet)
	dirich  bool      // emission matrix is Dirichlet-distributed
	alpha   []float64 // its prior concentrations [obsDim x K]
	dirichB bool      // transition matrix is one shared Dirichlet-distributed B
	beta    []float64 // its prior concentrations [K x K]
	g       *ffg.Graph
	latents []*ffg.Variable
	theta   *ffg.Variable
	bvar    *ffg.Variable
	acts    []*ffg.Variable // the observed action variables, nil where act[i] < 0
}

func randDist(rng *rand.Rand, n int) []float64 {
	p := make([]float64, n)
	s := 0.0
	for i := range p {
		p[i] = 0.05 + rng.Float64()
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func randColumns(rng *rand.Rand, rows, cols int) []float64 {
	m := make([]float64, rows*cols)
	for c := range cols {
		col := randDist(rng, rows)
		for r := range rows {
			m[r*cols+c] = col[r]
		}
	}
	return m
}

// newRandModel draws a chain (chain=true) or a random tree of n variables;
// dirich makes the emission matrix, dirichB the transition matrix a
// Dirichlet-distributed parameter shared by every step. With multi, child 1
// has an observed action as second parent, every later child a second
// latent parent (s_p2, p2 < i, p2 != p) and, on a coin flip, an observed
// action too; with multi and dirichB every child has an action, so the
// shared B is P(s_i | s_p, u_i) of shape [K, K, actK].
func newRandModel(t testing.TB, rng *rand.Rand, n int, chain, dirich, dirichB, multi bool) *randModel {
	m := &randModel{obsDim: 2 + rng.IntN(2), dirich: dirich, dirichB: dirichB}
	if multi {
		m.actK = 2 + rng.IntN(2)
	}
	kShared := 2 + rng.IntN(2)
	for i := range n {
		k := 2 + rng.IntN(3)
		if dirich || dirichB {
			k = kShared
		}
		m.k = append(m.k, k)
		p := -1
		if i > 0 {
			p = i - 1
			if !chain {
				p = rng.IntN(i)
			}
		}
		m.parent = append(m.parent, p)
		p2, a := -1, -1
		if multi && p >= 0 {
			if i >= 2 && !dirichB {
				p2 = rng.IntN(i - 1)
				if p2 >= p {
					p2++ // any earlier variable but p
				}
			}
			if i == 1 || dirichB || rng.IntN(2) == 0 {
				a = rng.IntN(m.actK)
			}
		}
		m.parent2 = append(m.parent2, p2)
		m.act = append(m.act, a)
		if p < 0 {
			m.prior = append(m.prior, randDist(rng, k))
			m.trans = append(m.trans, nil)
		} else {
			m.prior = append(m.prior, nil)
			shape := m.transShape(i)
			cols := 1
			for _, d := range shape[1:] {
				cols *= d
			}
			m.trans = append(m.trans, randColumns(rng, k, cols))
		}
		emit := rng.IntN(3) > 0 || i == n-1
		m.emits = append(m.emits, emit)
		m.obs = append(m.obs, rng.IntN(m.obsDim))
	}
	if dirichB {
		m.beta = make([]float64, kShared*kShared*max(m.actK, 1))
		for i := range m.beta {
			m.beta[i] = 0.5 + 2*rng.Float64()
		}
	}
	if dirich {
		m.alpha = make([]float64, m.obsDim*kShared)
		for i := range m.alpha {
			m.alpha[i] = 0.5 + 2*rng.Float64()
		}
	} else {
		m.obsLit = randColumns(rng, m.obsDim, 4)
	}
	m.build(t)
	return m
}

// transShape is the shape [k[i], k[parent], (k[parent2]), (actK)] of the
// transition into child i.
func (m *randModel) transShape(i int) []int {
	shape := []int{m.k[i], m.k[m.parent[i]]}
	if p2 := m.parent2[i]; p2 >= 0 {
		shape = append(shape, m.k[p2])
	}
	if m.act[i] >= 0 {
		shape = append(shape, m.actK)
	}
	return shape
}

// transIndex is the row-major index into the transition tensor of child i
// of the entry for the joint latent state x (and i's observed action).
func (m *randModel) transIndex(i int, x []int) int {
	idx := x[i]*m.k[m.parent[i]] + x[m.parent[i]]
	if p2 := m.parent2[i]; p2 >= 0 {
		idx = idx*m.k[p2] + x[p2]
	}
	if a := m.act[i]; a >= 0 {
		idx = idx*m.actK + a
	}
	return idx
}

func (m *randModel) emission(i int) []float64 {
	// literal emissions: use the first k[i] columns of a obsDim x 4 matrix
	k := m.k[i]
	e := make([]float64, m.obsDim*k)
	for o := range m.obsDim {
		for s := range k {
			e[o*k+s] = m.obsLit[o*4+s]
		}
	}
	// renormalise columns (they are columns of a valid matrix already)
	return e
}

func (m *randModel) build(t testing.TB) {
	g := ffg.New()
	m.g = g
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	if m.dirich {
		th, err := g.AddVariable("theta", expfam.DirichletFamily, m.obsDim, m.k[0])
		must(err)
		prior, err := nodes.NewDirichlet(m.alpha, []int{m.obsDim, m.k[0]})
		must(err)
		_, err = g.AddFactor("", prior, th)
		must(err)
		m.theta = th
	}
	if m.dirichB {
		k := m.k[0]
		shape := []int{k, k}
		if m.actK > 0 {
			shape = append(shape, m.actK)
		}
		b, err := g.AddVariable("B", expfam.DirichletFamily, shape...)
		must(err)
		prior, err := nodes.NewDirichlet(m.beta, shape)
		must(err)
		_, err = g.AddFactor("", prior, b)
		must(err)
		m.bvar = b
	}
	for i, k := range m.k {
		v, err := g.AddVariable(fmt.Sprintf("s%d", i), expfam.CategoricalFamily, k)
		must(err)
		m.latents = append(m.latents, v)
		var u *ffg.Variable
		if a := m.act[i]; a >= 0 {
			u, err = g.AddVariable(fmt.Sprintf("u%d", i), expfam.CategoricalFamily, m.actK)
			must(err)
			must(u.Observe(a))
		}
		m.acts = append(m.acts, u)
		if p := m.parent[i]; p < 0 {
			c, err := nodes.NewCategorical(m.prior[i])
			must(err)
			_, err = g.AddFactor("", c, v)
			must(err)
		} else {
			// Bound in the order of transShape: out, s_p, (s_p2), (u), (B).
			vars := []*ffg.Variable{v, m.latents[p]}
			if p2 := m.parent2[i]; p2 >= 0 {
				vars = append(vars, m.latents[p2])
			}
			if u != nil {
				vars = append(vars, u)
			}
			var tr ffg.Factor
			if m.dirichB {
				tr, err = nodes.NewTransitionDirichlet(m.transShape(i))
				vars = append(vars, m.bvar)
			} else {
				tr, err = nodes.NewTransition(m.trans[i], m.transShape(i))
			}
			must(err)
			_, err = g.AddFactor("", tr, vars...)
			must(err)
		}
		if m.emits[i] {
			o, err := g.AddVariable(fmt.Sprintf("o%d", i), expfam.CategoricalFamily, m.obsDim)
			must(err)
			must(o.Observe(m.obs[i]))
			if m.dirich {
				tr, err := nodes.NewTransitionDirichlet([]int{m.obsDim, k})
				must(err)
				_, err = g.AddFactor("", tr, o, v, m.theta)
				must(err)
			} else {
				tr, err := nodes.NewTransition(m.emission(i), []int{m.obsDim, k})
				must(err)
				_, err = g.AddFactor("", tr, o, v)
				must(err)
			}
		}
	}
}

// expLogTheta returns E[ln theta] under the current Dirichlet posterior,
// computed from the digamma formula of paper Appendix D.
func (m *randModel) expLogTheta() []float64 {
	return expfam.DirichletTensor{Alpha: m.theta.Alpha(), Shape: m.theta.Shape()}.ExpectedLog(nil)
}

// expLogB is E[ln B] (Appendix D) per column, or nil without a Dirichlet B.
func (m *randModel) expLogB() []float64 {
	if !m.dirichB {
		return nil
	}
	return expfam.DirichletTensor{Alpha: m.bvar.Alpha(), Shape: m.bvar.Shape()}.ExpectedLog(nil)
}

// logJoint returns ln P(o, x | E ln theta, E ln B): the log of every factor
// at the joint latent state x, with Dirichlet parameters replaced by their
// expected logs elt and elb (exact for E_q[ln P] because ln P is linear in
// ln theta and ln B).
func (m *randModel) logJoint(x []int, elt, elb []float64) float64 {
	l := 0.0
	for i, xi := range x {
		if p := m.parent[i]; p < 0 {
			l += math.Log(m.prior[i][xi])
		} else if m.dirichB {
			l += elb[m.transIndex(i, x)]
		} else {
			l += math.Log(m.trans[i][m.transIndex(i, x)])
		}
		if m.emits[i] {
			if m.dirich {
				l += elt[m.obs[i]*m.k[i]+xi]
			} else {
				l += math.Log(m.emission(i)[m.obs[i]*m.k[i]+xi])
			}
		}
	}
	return l
}

// forEach calls fn for every joint latent state with its mean-field weight.
func (m *randModel) forEach(fn func(x []int, q float64)) {
	x := make([]int, len(m.k))
	for {
		q := 1.0
		for i, xi := range x {
			q *= m.latents[i].Probs()[xi]
		}
		fn(x, q)
		j := len(x) - 1
		for ; j >= 0; j-- {
			x[j]++
			if x[j] < m.k[j] {
				break
			}
			x[j] = 0
		}
		if j < 0 {
			return
		}
	}
}

// bruteF is F = E_q[-ln P(o, x, theta)] - H[q] by enumeration of every
// joint latent state, plus KL[q(theta) || p(theta)] for the Dirichlet part
// (E_q[-ln p(theta)] - H[q(theta)] is exactly that KL).
func (m *randModel) bruteF() float64 {
	var elt []float64
	if m.dirich {
		elt = m.expLogTheta()
	}
	elb := m.expLogB()
	f := 0.0
	m.forEach(func(x []int, q float64) {
		if q > 0 {
			f += q * (math.Log(q) - m.logJoint(x, elt, elb))
		}
	})
	if m.dirichB {
		post := expfam.DirichletTensor{Alpha: m.bvar.Alpha(), Shape: m.bvar.Shape()}
		prior := expfam.DirichletTensor{Alpha: m.beta, Shape: m.bvar.Shape()}
		f += post.KL(prior)
	}
	if m.dirich {
		post := expfam.DirichletTensor{Alpha: m.theta.Alpha(), Shape: m.theta.Shape()}
		prior := expfam.DirichletTensor{Alpha: m.alpha, Shape: m.theta.Shape()}
		f += post.KL(prior)
	}
	return f
}

func TestFreeEnergyMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 40 {
		// Chains (even trials) and trees (odd) each take every size 2..5;
		// every third trial has a Dirichlet emission matrix, every fifth
		// (from trial 1 on) a Dirichlet transition matrix B.
		n := 2 + (trial/2)%4
		m := newRandModel(t, rng, n, trial%2 == 0, trial%3 == 0, trial%5 == 1, false)
		checkAgainstEnumeration(t, rng, trial, m)
	}
}

// TestMultiParentMatchesEnumeration is the same check on models whose
// transitions have two or three parents, P(s_i | s_p, s_p2, u_i) with s_p2
// hidden and u_i observed: Transition tensors of rank 3 and 4, literal or
// (rank 3, shared B of shape [K, K, actK]) Dirichlet-distributed, whose
// messages contract a tensor over non-last axes.
func TestMultiParentMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	ranks := map[int]int{} // transitions of each rank among the trials
	for trial := range 40 {
		n := 2 + (trial/2)%4
		m := newRandModel(t, rng, n, trial%2 == 0, trial%3 == 0, trial%5 == 1, true)
		for i, p := range m.parent {
			if p >= 0 {
				ranks[len(m.transShape(i))]++
			}
		}
		checkAgainstEnumeration(t, rng, trial, m)
	}
	// The trials must really exercise ranks 3 and 4 (a guard on the
	// generator, not on the engine).
	if ranks[3] == 0 || ranks[4] == 0 || ranks[2] != 0 {
		t.Errorf("transitions by rank %v: want ranks 3 and 4 only", ranks)
	}
}

// checkAgainstEnumeration checks the engine on m against enumeration: F at
// random posteriors, F after every single coordinate update (never rising),
// F after a converged run, and every variable's fixed-point equation.
func checkAgainstEnumeration(t *testing.T, rng *rand.Rand, trial int, m *randModel) {
	t.Helper()
	n := len(m.k)
	// Random (not converged) posteriors test the formula itself.
	for _, v := range m.latents {
		if err := v.SetProbs(randDist(rng, len(v.Probs()))); err != nil {
			t.Fatal(err)
		}
	}
	if m.dirich {
		a := make([]float64, len(m.alpha))
		for i := range a {
			a[i] = 0.3 + 3*rng.Float64()
		}
		if err := m.theta.SetAlpha(a); err != nil {
			t.Fatal(err)
		}
	}
	if m.dirichB {
		b := make([]float64, len(m.beta))
		for i := range b {
			b[i] = 0.3 + 3*rng.Float64()
		}
		if err := m.bvar.SetAlpha(b); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := m.g.FreeEnergy(), m.bruteF(); math.Abs(got-want) > 1e-9 {
		t.Errorf("trial %d (n=%d): F = %.12f, enumeration gives %.12f", trial, n, got, want)
	}
	// Two hand-driven sweeps: every single coordinate update must not
	// raise F, judged by the enumerated F (not only the engine's), and
	// the engine's F must match enumeration after each one.
	prev := m.bruteF()
	for sweep := range 2 {
		for _, v := range m.g.Variables() {
			if v.Observed() {
				continue
			}
			if err := m.g.Update(v); err != nil {
				t.Fatal(err)
			}
			f := m.bruteF()
			if got := m.g.FreeEnergy(); math.Abs(got-f) > 1e-9 {
				t.Errorf("trial %d sweep %d after updating %s: F = %.12f, enumeration %.12f", trial, sweep, v.Name(), got, f)
			}
			if f > prev+1e-12 {
				t.Errorf("trial %d sweep %d: updating %s raised F from %.15f to %.15f", trial, sweep, v.Name(), prev, f)
			}
			prev = f
		}
	}
	// Tolerance 1e-13, not tight: F of ~10 can alternate between two
	// neighbouring floats forever; polish below reaches the fixed point.
	res, err := schedule.Run(context.Background(), m.g, &schedule.Settings{Iterations: 5000, Tolerance: 1e-13})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.g.FreeEnergy(), m.bruteF(); math.Abs(got-want) > 1e-9 {
		t.Errorf("trial %d after inference: F = %.12f, enumeration gives %.12f", trial, got, want)
	}
	if len(res.Increases) != 0 {
		t.Errorf("trial %d: F increased across sweeps: %+v", trial, res.Increases)
	}
	for i := 1; i < len(res.FreeEnergy); i++ {
		if res.FreeEnergy[i] > res.FreeEnergy[i-1]+1e-12 {
			t.Errorf("trial %d: F rose from %.15f to %.15f at sweep %d", trial, res.FreeEnergy[i-1], res.FreeEnergy[i], i+1)
		}
	}
	if !res.Converged {
		t.Errorf("trial %d: not converged after %d sweeps", trial, res.Iterations)
	}
	polish(t, m.g)
	m.checkFixedPoint(t, trial)
}

// checkFixedPoint verifies, by enumeration, that every variable satisfies its
// own mean-field fixed-point equation ln q_i(x_i) = E_{q_-i}[ln P] + c, and
// that theta's posterior is the prior plus the expected counts.
func (m *randModel) checkFixedPoint(t *testing.T, trial int) {
	t.Helper()
	var elt []float64
	if m.dirich {
		elt = m.expLogTheta()
	}
	elb := m.expLogB()
	for i, v := range m.latents {
		k := m.k[i]
		eta := make([]float64, k)
		for xi := range k {
			// E over the other variables with x_i clamped.
			x := make([]int, len(m.k))
			var rec func(j int, w float64)
			rec = func(j int, w float64) {
				if j == len(m.k) {
					eta[xi] += w * m.logJoint(x, elt, elb)
					return
				}
				if j == i {
					x[j] = xi
					rec(j+1, w)
					return
				}
				for xj := range m.k[j] {
					x[j] = xj
					rec(j+1, w*m.latents[j].Probs()[xj])
				}
			}
			rec(0, 1)
		}
		want := make([]float64, k)
		expfam.Softmax(want, eta)
		for xi := range k {
			if d := math.Abs(want[xi] - v.Probs()[xi]); d > 1e-9 {
				t.Errorf("trial %d: q(s%d) = %v, fixed point %v", trial, i, v.Probs(), want)
				break
			}
		}
	}
	if m.dirich {
		// Appendix C / section 6.2: alpha_hat = alpha + sum_tau o_tau ⊗ q(s_tau).
		want := append([]float64(nil), m.alpha...)
		K := m.k[0]
		for i, v := range m.latents {
			if m.emits[i] {
				for s := range K {
					want[m.obs[i]*K+s] += v.Probs()[s]
				}
			}
		}
		for j, a := range m.theta.Alpha() {
			if math.Abs(a-want[j]) > 1e-9 {
				t.Errorf("trial %d: theta alpha = %v, want prior + counts %v", trial, m.theta.Alpha(), want)
				break
			}
		}
	}
	if m.dirichB {
		// Section 6.2, Q*(B): b_hat = b + sum over child-parent pairs of
		// q(s_child) ⊗ q(s_parent) (⊗ the one-hot observed action u_child
		// when B is [K, K, actK]), the expected transition counts.
		want := append([]float64(nil), m.beta...)
		K := m.k[0]
		for i, p := range m.parent {
			if p < 0 {
				continue
			}
			for next := range K {
				for prev := range K {
					idx := next*K + prev
					if a := m.act[i]; a >= 0 {
						idx = idx*m.actK + a
					}
					want[idx] += m.latents[i].Probs()[next] * m.latents[p].Probs()[prev]
				}
			}
		}
		for j, a := range m.bvar.Alpha() {
			if math.Abs(a-want[j]) > 1e-9 {
				t.Errorf("trial %d: B alpha = %v, want prior + counts %v", trial, m.bvar.Alpha(), want)
				break
			}
		}
	}
}
