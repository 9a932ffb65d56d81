package btai_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/schedule"
)

// randFactorised builds a random model with nf factors (the first nc
// controllable, 2 or 3 controls) and nm modalities, each depending on a
// random non-empty subset of the factors in random order; every entry of
// A, B, C, D is positive.
func randFactorised(t testing.TB, rng *rand.Rand, nf, nm, nc int) *pomdp.Model {
	t.Helper()
	var fs pomdp.FactorisedSpec
	cols := func(lead, k, n int) []float64 {
		x := make([]float64, lead*k*n)
		for l := range lead {
			for j := range n {
				c := randDist(rng, k)
				for i := range k {
					x[(l*k+i)*n+j] = c[i]
				}
			}
		}
		return x
	}
	for f := range nf {
		ns, nu := 2+rng.IntN(2), 1
		var controls []string
		if f < nc {
			nu = 2 + rng.IntN(2)
			for u := range nu {
				controls = append(controls, fmt.Sprintf("u%d.%d", f, u))
			}
		}
		fs.Factors = append(fs.Factors, pomdp.Factor{
			Name: fmt.Sprintf("f%d", f), NumStates: ns, Controls: controls,
			B: cols(nu, ns, ns), D: randDist(rng, ns), CStates: randDist(rng, ns),
		})
	}
	for i := range nm {
		perm := rng.Perm(nf)[:1+rng.IntN(nf)]
		size := 1
		var deps []string
		for _, f := range perm {
			deps = append(deps, fs.Factors[f].Name)
			size *= fs.Factors[f].NumStates
		}
		no := 2 + rng.IntN(2)
		fs.Modalities = append(fs.Modalities, pomdp.Modality{
			Name: fmt.Sprintf("m%d", i), NumOutcomes: no, DependsOn: deps,
			A: cols(1, no, size), C: randDist(rng, no),
		})
	}
	m, err := pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// bruteFactorisedEFE is the classic EFE of an action path from the product
// belief qs, computed on the joint state space from the model's
// factorised description: joint belief Π_f q_f, joint B_u = ⊗_f B_f[u_f]
// (the action's controls decoded as pomdp orders them: first factor
// slowest), and per step Σ_m KL[A_m q ‖ C_m] + Σ_m Σ_j q_j H[A_m(·|j)].
func bruteFactorisedEFE(m *pomdp.Model, qs []float64, path []int) float64 {
	fs := m.FactorisedSpec()
	nf := len(fs.Factors)
	sizes := make([]int, nf)
	J := 1
	for f, fac := range fs.Factors {
		sizes[f] = fac.NumStates
		J *= fac.NumStates
	}
	digits := func(j int) []int {
		s := make([]int, nf)
		for f := nf - 1; f >= 0; f-- {
			s[f] = j % sizes[f]
			j /= sizes[f]
		}
		return s
	}
	q := make([]float64, J)
	for j := range J {
		s, v := digits(j), 1.0
		for f := range nf {
			v *= qs[m.FactorOffset(f)+s[f]]
		}
		q[j] = v
	}
	index := map[string]int{}
	for f, fac := range fs.Factors {
		index[fac.Name] = f
	}
	g := 0.0
	for _, u := range path {
		// Controls of u: mixed radix over the factors' control counts.
		ctrl := make([]int, nf)
		rest := u
		for f := nf - 1; f >= 0; f-- {
			n := max(1, fs.Factors[f].NumControls)
			ctrl[f] = rest % n
			rest /= n
		}
		next := make([]float64, J)
		for a := range J {
			sa := digits(a)
			for b := range J {
				sb := digits(b)
				v := 1.0
				for f := range nf {
					ns := sizes[f]
					v *= fs.Factors[f].B[(ctrl[f]*ns+sa[f])*ns+sb[f]]
				}
				next[a] += v * q[b]
			}
		}
		q = next
		for _, md := range fs.Modalities {
			cols := len(md.A) / md.NumOutcomes
			col := func(j int) int {
				s, c := digits(j), 0
				for _, name := range md.DependsOn {
					f := index[name]
					c = c*sizes[f] + s[f]
				}
				return c
			}
			for o := range md.NumOutcomes {
				qo := 0.0
				for j := range J {
					qo += md.A[o*cols+col(j)] * q[j]
				}
				g += qo * math.Log(qo/md.C[o])
			}
			for j := range J {
				h := 0.0
				for o := range md.NumOutcomes {
					p := md.A[o*cols+col(j)]
					h -= p * math.Log(p)
				}
				g += q[j] * h
			}
		}
	}
	return g
}

// TestTheorem1Factorised: paper Theorem 1 on factorised models. With
// predictive inference, the classic cost and forward propagation, every
// node's aggregated cost equals the classic EFE of its action path,
// computed by brute force on the joint state space, to 1e-9; one model has
// two controllable factors (joint actions).
func TestTheorem1Factorised(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 1))
	for trial, c := range []struct{ nf, nm, nc int }{{2, 2, 1}, {2, 3, 2}, {3, 2, 1}, {3, 3, 2}} {
		m := randFactorised(t, rng, c.nf, c.nm, c.nc)
		o := btai.DefaultOptions()
		o.Inference, o.Cost, o.Propagation, o.Iterations = btai.Predictive, btai.Classic, btai.Forward, 20
		ag, err := btai.NewAgent(m, &o, rand.New(rand.NewPCG(uint64(trial), 0)))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := ag.Reset(ctx, rng.IntN(m.NumObs())); err != nil {
			t.Fatal(err)
		}
		root := append([]float64(nil), ag.Belief()...)
		if err := ag.Plan(ctx); err != nil {
			t.Fatal(err)
		}
		tr := ag.Tree()
		if len(tr.Nodes) != 1+20*m.NumActions() {
			t.Fatalf("trial %d: %d nodes, want %d", trial, len(tr.Nodes), 1+20*m.NumActions())
		}
		maxDepth := 0
		for i := 1; i < len(tr.Nodes); i++ {
			path := tr.Path(nil, i)
			want := bruteFactorisedEFE(m, root, path)
			if got := tr.Nodes[i].Aggregated; math.Abs(got-want) > 1e-9 {
				t.Errorf("trial %d: node %v: aggregated cost %.12f, EFE %.12f", trial, path, got, want)
			}
			maxDepth = max(maxDepth, len(path))
		}
		if maxDepth < 2 {
			t.Errorf("trial %d: tree of depth %d does not test aggregation", trial, maxDepth)
		}
	}
}

// TestFactorisedVMPMatchesSchedule: the local mean-field updates of a new
// node on a factorised model equal schedule.Local on the same sub-graph
// built in ffg: the parent's marginals as soft evidence, S_f,I with the
// floored B̄_f[u_f], O_m,I with the floored Ā_m over its factors, started
// at the prediction, updated in the same order (factors, then modalities).
func TestFactorisedVMPMatchesSchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 4))
	moved := 0.0 // how far VMP moves Q(S_I) from the prediction
	for trial, c := range []struct{ nf, nm, nc int }{{2, 2, 1}, {3, 3, 2}, {2, 3, 2}} {
		m := randFactorised(t, rng, c.nf, c.nm, c.nc)
		o := btai.DefaultOptions()
		o.Inference, o.Iterations = btai.VMP, 1
		ag, err := btai.NewAgent(m, &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := ag.Reset(ctx, rng.IntN(m.NumObs())); err != nil {
			t.Fatal(err)
		}
		qp := append([]float64(nil), ag.Belief()...)
		if err := ag.Plan(ctx); err != nil {
			t.Fatal(err)
		}
		for u := range m.NumActions() {
			gotS, gotO, err := ag.NodePosteriors(1 + u)
			if err != nil {
				t.Fatal(err)
			}
			wantS, wantO := scheduleNode(t, m, qp, u, o.VMPIterations, o.VMPTolerance)
			pred := make([]float64, m.NumStates())
			pomdp.Propagate(m, pred, qp, u)
			for i := range pred {
				moved = math.Max(moved, math.Abs(pred[i]-gotS[i]))
			}
			for i := range wantS {
				if math.Abs(gotS[i]-wantS[i]) > 1e-9 {
					t.Fatalf("trial %d action %d: Q(S_I) = %v, schedule %v", trial, u, gotS, wantS)
				}
			}
			for i := range wantO {
				if math.Abs(gotO[i]-wantO[i]) > 1e-9 {
					t.Fatalf("trial %d action %d: Q(O_I) = %v, schedule %v", trial, u, gotO, wantO)
				}
			}
		}
	}
	if moved < 1e-3 {
		t.Errorf("VMP moved Q(S_I) by at most %v from the prediction: the test compares nothing", moved)
	}
}

// scheduleNode builds the new node's sub-graph for action u below a parent
// with marginals qp and runs schedule.Local on it.
func scheduleNode(t *testing.T, m *pomdp.Model, qp []float64, u, iters int, tol float64) (qs, qo []float64) {
	t.Helper()
	g := ffg.New()
	ctrl := m.DecodeAction(nil, u)
	pred := make([]float64, m.NumStates())
	pomdp.Propagate(m, pred, qp, u)
	predO := make([]float64, m.ObsLen())
	pomdp.PredictObs(m, predO, pred)
	var vars []*ffg.Variable
	svars := make([]*ffg.Variable, m.NumFactors())
	for f := range m.NumFactors() {
		ns, off := m.FactorSize(f), m.FactorOffset(f)
		par, _ := g.AddVariable("", expfam.CategoricalFamily, ns)
		if err := par.ObserveSoft(qp[off : off+ns]); err != nil {
			t.Fatal(err)
		}
		b := m.FactorB(f)[ctrl[f]*ns*ns : (ctrl[f]+1)*ns*ns]
		pomdp.FloorColumns(b, ns, ns)
		tr, err := nodes.NewTransition(b, []int{ns, ns})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := g.AddVariable("", expfam.CategoricalFamily, ns)
		if _, err := g.AddFactor("", tr, s, par); err != nil {
			t.Fatal(err)
		}
		if err := s.SetProbs(pred[off : off+ns]); err != nil {
			t.Fatal(err)
		}
		svars[f] = s
		vars = append(vars, s)
	}
	for i := range m.NumModalities() {
		no, off := m.ModalitySize(i), m.ObsOffset(i)
		a := m.ModalityA(i)
		pomdp.FloorColumns(a, no, len(a)/no)
		shape := []int{no}
		for _, f := range m.DependsOn(i) {
			shape = append(shape, m.FactorSize(f))
		}
		tr, err := nodes.NewTransition(a, shape)
		if err != nil {
			t.Fatal(err)
		}
		ov, _ := g.AddVariable("", expfam.CategoricalFamily, no)
		args := []*ffg.Variable{ov}
		for _, f := range m.DependsOn(i) {
			args = append(args, svars[f])
		}
		if _, err := g.AddFactor("", tr, args...); err != nil {
			t.Fatal(err)
		}
		if err := ov.SetProbs(predO[off : off+no]); err != nil {
			t.Fatal(err)
		}
		vars = append(vars, ov)
	}
	if _, err := schedule.Local(context.Background(), g, vars, &schedule.Settings{Iterations: iters, Tolerance: tol}); err != nil {
		t.Fatal(err)
	}
	for _, v := range vars[:m.NumFactors()] {
		qs = append(qs, v.Probs()...)
	}
	for _, v := range vars[m.NumFactors():] {
		qo = append(qo, v.Probs()...)
	}
	return qs, qo
}

// TestFactorisedEveryOption: every cost, propagation and inference mode
// plans on a factorised model, with finite costs, and runs an episode
// against the model as the true process; global inference and novelty are
// refused with an error.
func TestFactorisedEveryOption(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	m := randFactorised(t, rng, 3, 3, 2)
	for _, cost := range []btai.Cost{btai.Classic, btai.PCost, btai.FEEF} {
		for _, prop := range []btai.Propagation{btai.Backward, btai.MinBackward, btai.Forward} {
			for _, inf := range []btai.Inference{btai.VMP, btai.Predictive} {
				o := btai.DefaultOptions()
				o.Cost, o.Propagation, o.Inference, o.Iterations, o.Rollouts, o.RolloutLength = cost, prop, inf, 30, 1, 2
				ag, err := btai.NewAgent(m, &o, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					t.Fatal(err)
				}
				env := pomdp.NewProcess(m, rand.New(rand.NewPCG(3, 4)))
				ep, err := agent.RunEpisode(context.Background(), ag, env, &agent.EpisodeSettings{MaxSteps: 4})
				if err != nil {
					t.Fatalf("%v/%v/%v: %v", cost, prop, inf, err)
				}
				if ep.NumActions() != 4 {
					t.Errorf("%v/%v/%v: %d steps", cost, prop, inf, ep.NumActions())
				}
				for i := 1; i < len(ag.Tree().Nodes); i++ {
					if g := ag.Tree().Nodes[i].Local; math.IsNaN(g) || math.IsInf(g, 0) {
						t.Fatalf("%v/%v/%v: node %d cost %v", cost, prop, inf, i, g)
					}
				}
			}
		}
	}
	for _, o := range []btai.Options{func() btai.Options {
		o := btai.DefaultOptions()
		o.GlobalInference, o.Past = true, pomdp.PastVMP
		return o
	}(),
		func() btai.Options { o := btai.DefaultOptions(); o.Novelty = true; return o }()} {
		if _, err := btai.NewAgent(m, &o, nil); err == nil {
			t.Errorf("options %+v accepted on a factorised model", o)
		}
	}
}
