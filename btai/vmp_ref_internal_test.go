package btai

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// The local VMP of a new node as it was before the structured logarithms
// (logmat.go), kept here verbatim as the reference the planning loop must
// reproduce to 1e-12 (TestVMPMatchesReference): dense matrix-vector
// products over the transposed ln Ā and ln B̄_u in index order, the softmax
// of expfam.Softmax (exp(x - max), division by the sum), F from the
// normalisers, |ΔF| < VMPTolerance or VMPIterations sweeps.

// refVMP holds the reference's own copies of the model's logarithms and
// its scratch, so that nothing it computes goes through the code under
// test.
type refVMP struct {
	ns, no, nu int
	iters      int
	tol        float64
	logA       []float64 // [o*ns+s]
	logAT      []float64 // [s*no+o]
	logBT      []float64 // [u][prev*ns+next]
	abT        []float64 // [u][prev*no+o]
	qs, qo     []float64
	mpar       []float64
	etaS, etaO []float64
	sweeps     int // sweeps of the last infer
}

// newRefVMP copies the agent's prepared future (prepareFuture must have
// run): ln Ā, ln B̄ (floored) and Ā B̄_u.
func newRefVMP(a *Agent) *refVMP {
	ns, no, nu := a.ns, a.no, a.nu
	r := &refVMP{ns: ns, no: no, nu: nu, iters: a.opts.VMPIterations, tol: a.opts.VMPTolerance,
		logA: append([]float64(nil), a.logA...), abT: append([]float64(nil), a.abT...),
		qs: make([]float64, ns), qo: make([]float64, no), mpar: make([]float64, ns),
		etaS: make([]float64, ns), etaO: make([]float64, no)}
	r.logAT = make([]float64, ns*no)
	for o := range no {
		for s := range ns {
			r.logAT[s*no+o] = a.logA[o*ns+s]
		}
	}
	// ln B̄ floored, as the future's factors have it.
	logB := append([]float64(nil), a.bbar...)
	for u := range nu {
		pomdp.FloorColumns(logB[u*ns*ns:(u+1)*ns*ns], ns, ns)
	}
	for i, p := range logB {
		logB[i] = math.Log(p)
	}
	r.logBT = make([]float64, nu*ns*ns)
	for u := range nu {
		for n := range ns {
			for p := range ns {
				r.logBT[(u*ns+p)*ns+n] = logB[(u*ns+n)*ns+p]
			}
		}
	}
	return r
}

func refMulT(dst, mt, q []float64) {
	n := len(dst)
	clear(dst)
	for p, w := range q {
		if w == 0 {
			continue
		}
		row := mt[p*n : (p+1)*n]
		for i := range dst {
			dst[i] += w * row[i]
		}
	}
}

func refSoftmax(dst, eta []float64) float64 {
	m, im := math.Inf(-1), -1
	for i, x := range eta {
		if x > m || im < 0 {
			m, im = x, i
		}
	}
	if m-m != 0 {
		return math.NaN()
	}
	r := 0.0
	for i, x := range eta {
		if i == im {
			dst[i] = 1
			continue
		}
		e := math.Exp(x - m)
		dst[i] = e
		r += e
	}
	z := 1 + r
	for i := range dst {
		dst[i] /= z
	}
	return m + math.Log1p(r)
}

// infer leaves Q(S_I), Q(O_I) of the node for action u below a parent
// with posterior qp in r.qs, r.qo; false if a softmax is undefined.
func (r *refVMP) infer(qp []float64, u int) bool {
	ns, no := r.ns, r.no
	refMulT(r.qo, r.abT[u*ns*no:(u+1)*ns*no], qp)
	refMulT(r.mpar, r.logBT[u*ns*ns:(u+1)*ns*ns], qp)
	prev := math.Inf(1)
	r.sweeps = 0
	for range r.iters {
		r.sweeps++
		copy(r.etaS, r.mpar)
		for o, w := range r.qo {
			if w == 0 {
				continue
			}
			for s := range ns {
				r.etaS[s] += w * r.logA[o*ns+s]
			}
		}
		zs := refSoftmax(r.qs, r.etaS)
		if math.IsNaN(zs) {
			return false
		}
		refMulT(r.etaO, r.logAT, r.qs)
		zo := refSoftmax(r.qo, r.etaO)
		if math.IsNaN(zo) {
			return false
		}
		f := -zs - zo
		for s, q := range r.qs {
			if q > 0 {
				f += q * (r.etaS[s] - r.mpar[s])
			}
		}
		if math.Abs(f-prev) < r.tol {
			break
		}
		prev = f
	}
	return true
}

// noisyModelInternal is a random POMDP whose columns of A and of each B_u
// have the structure of the maze models: one to three likely entries and
// the rest equal (the "noise" background), some columns with hard zeros
// instead of a background (floored by floorColumns), so that the split
// logarithms take their sparse form.
func noisyModelInternal(t testing.TB, rng *rand.Rand, ns, no, nu int) *pomdp.Model {
	t.Helper()
	col := func(dst []float64, stride, n int) {
		bg := 0.0
		if rng.IntN(4) > 0 {
			bg = 0.001 + 0.05*rng.Float64()
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = bg
		}
		for range 1 + rng.IntN(3) {
			v[rng.IntN(n)] = 0.5 + rng.Float64()
		}
		z := 0.0
		for _, x := range v {
			z += x
		}
		for i, x := range v {
			dst[i*stride] = x / z
		}
	}
	sp := pomdp.Spec{NumStates: ns, NumObs: no, NumActions: nu, C: randDistInternal(rng, no), D: randDistInternal(rng, ns)}
	sp.A = make([]float64, no*ns)
	for s := range ns {
		col(sp.A[s:], ns, no)
	}
	sp.B = make([]float64, nu*ns*ns)
	for u := range nu {
		for p := range ns {
			col(sp.B[u*ns*ns+p:], ns, ns)
		}
	}
	m, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// compareTree recomputes, with the reference, every node of the agent's
// planning tree along its own chain from the root (the reference's
// Q(S_parent), not the agent's, so differences that would accumulate with
// depth are seen) and returns the largest difference of Q(S_I), Q(O_I) and
// of the node's local cost. It counts the reference's sweeps per node in
// sweeps.
func compareTree(t *testing.T, a *Agent, ref *refVMP, sweeps map[int]int) float64 {
	t.Helper()
	nodes := a.tree.Nodes
	refQ := make([][]float64, len(nodes))
	refQ[0] = append([]float64(nil), a.past.Present().Probs()...)
	worst := 0.0
	diff := func(x, y []float64) {
		for i := range x {
			worst = max(worst, math.Abs(x[i]-y[i]))
		}
	}
	for k := 1; k < len(nodes); k++ {
		n := nodes[k]
		if !ref.infer(refQ[n.Parent], n.Action) {
			t.Fatalf("node %d: reference softmax undefined", k)
		}
		sweeps[ref.sweeps]++
		refQ[k] = append([]float64(nil), ref.qs...)
		qp, err := a.nodeProbs(n.Parent)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.infer(&a.sc, qp, n.Action); err != nil {
			t.Fatal(err)
		}
		diff(a.sc.qs, ref.qs)
		diff(a.sc.qo, ref.qo)
		got, err := a.nodeProbs(k)
		if err != nil {
			t.Fatal(err)
		}
		diff(got, ref.qs)
		worst = max(worst, math.Abs(n.Local-a.cost(&a.sc, ref.qs, ref.qo)))
	}
	return worst
}

// TestVMPMatchesReference: the planning loop's local VMP (split
// logarithms, vmp) against the dense implementation it replaced (refVMP),
// to 1e-12 on every Q(S_I), Q(O_I) and local cost:
//   - random dense POMDPs (the split stays dense: the same loops, the
//     softmax multiplying by 1/z instead of dividing), random parents,
//     every action;
//   - random POMDPs with maze-like columns (sparse split), planned trees;
//   - 1.maze, 2.maze and 13.maze with the default options, 1,000
//     iterations at each of the first three actions of an episode, every
//     node of every tree (with -short: 1.maze, 300 iterations).
//
// 1e-12: the split sums are the dense ones associated differently, so each
// natural parameter moves by a few ulps of its size (|ln ·| <= 32, ~1e-14),
// the posteriors by as much, plus one rounding from 1/z; F is computed with
// one logarithm instead of two (a few ulps of |F|); the stopping rule could
// only take a different number of sweeps if some |ΔF| fell within ~1e-14
// of 1e-9. Measured: about 2e-14 (logged).
func TestVMPMatchesReference(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(21, 12))
	dense := 0.0
	for _, dims := range [][3]int{{2, 2, 2}, {5, 3, 3}, {22, 10, 5}} {
		ns, no, nu := dims[0], dims[1], dims[2]
		ag, err := NewAgent(randModelInternal(t, rng, ns, no, nu), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.prepareFuture(); err != nil {
			t.Fatal(err)
		}
		if !ag.lnA.dense || !ag.lnB[0].dense {
			t.Fatalf("dims %v: a random model's logarithms split sparse", dims)
		}
		ref := newRefVMP(ag)
		for range 50 {
			qp := randDistInternal(rng, ns)
			for u := range nu {
				if err := ag.infer(&ag.sc, qp, u); err != nil {
					t.Fatal(err)
				}
				ref.infer(qp, u)
				for i := range ns {
					dense = max(dense, math.Abs(ag.sc.qs[i]-ref.qs[i]))
				}
				for i := range no {
					dense = max(dense, math.Abs(ag.sc.qo[i]-ref.qo[i]))
				}
			}
		}
	}
	t.Logf("random dense models: largest difference %.3g", dense)
	if dense > 1e-12 {
		t.Errorf("random dense models: largest difference %g, want <= 1e-12", dense)
	}
	worst := 0.0
	for i, dims := range [][3]int{{3, 2, 2}, {8, 5, 3}, {22, 10, 5}, {40, 12, 4}} {
		m := noisyModelInternal(t, rand.New(rand.NewPCG(uint64(i), 3)), dims[0], dims[1], dims[2])
		o := DefaultOptions()
		o.Iterations = 300
		ag, err := NewAgent(m, &o, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Reset(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if err := ag.Plan(ctx); err != nil {
			t.Fatal(err)
		}
		if dims[0] >= 20 && (ag.lnA.dense || ag.lnB[0].dense) {
			// (In the smaller ones 1-3 peaks can be a quarter of a column:
			// dense or sparse, both are compared.)
			t.Fatalf("dims %v: maze-like logarithms split dense", dims)
		}
		worst = max(worst, compareTree(t, ag, newRefVMP(ag), map[int]int{}))
	}
	t.Logf("random maze-like models: largest difference %.3g", worst)
	if worst > 1e-12 {
		t.Errorf("random maze-like models: largest difference %g, want <= 1e-12", worst)
	}
	mazes, iters := []string{"1.maze", "2.maze", "13.maze"}, 1000
	if testing.Short() {
		mazes, iters = mazes[:1], 300 // about 10 s under -race otherwise
	}
	for _, name := range mazes {
		mz, m := mazeInternal(t, name)
		o := DefaultOptions()
		o.Iterations = iters
		ag, err := NewAgent(m, &o, rand.New(rand.NewPCG(3, 3)))
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Reset(ctx, mz.Reset()); err != nil {
			t.Fatal(err)
		}
		worst, sweeps, nodes := 0.0, map[int]int{}, 0
		for range 3 {
			if err := ag.Plan(ctx); err != nil {
				t.Fatal(err)
			}
			if ag.lnA.dense || ag.lnB[0].dense {
				t.Fatalf("%s: logarithms split dense", name)
			}
			worst = max(worst, compareTree(t, ag, newRefVMP(ag), sweeps))
			nodes += len(ag.tree.Nodes) - 1
			u, err := ag.SelectAction()
			if err != nil {
				t.Fatal(err)
			}
			obs, err := mz.Step(u)
			if err != nil {
				t.Fatal(err)
			}
			if err := ag.Step(ctx, u, obs); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s: %d nodes, largest difference %.3g, reference sweeps per node %v", name, nodes, worst, sweeps)
		if worst > 1e-12 {
			t.Errorf("%s: largest difference %g, want <= 1e-12", name, worst)
		}
	}
}

// mazeInternal loads envs/testdata/mazes/name and its POMDP with the
// default noise and preference precision (as the CLI and maze_test.go).
func mazeInternal(t testing.TB, name string) (*envs.Maze, *pomdp.Model) {
	t.Helper()
	mz, err := envs.LoadMaze(filepath.Join("..", "envs", "testdata", "mazes", name))
	if err != nil {
		t.Fatal(err)
	}
	mm, err := mz.Model(envs.DefaultNoise, envs.DefaultPrefPrecision)
	if err != nil {
		t.Fatal(err)
	}
	m, err := mm.POMDP()
	if err != nil {
		t.Fatal(err)
	}
	return mz, m
}

// BenchmarkInferVMPMaze: local VMP of one new node on 1.maze (split
// logarithms in sparse form, 4 sweeps), from the start belief, action 1;
// BenchmarkInferVMPMazeReference is the dense implementation it replaced
// (refVMP) on the same node.
func BenchmarkInferVMPMaze(b *testing.B) {
	ag, qp := mazeBenchAgent(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := ag.infer(&ag.sc, qp, 1); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkInferVMPMazeReference(b *testing.B) {
	ag, qp := mazeBenchAgent(b)
	ref := newRefVMP(ag)
	b.ReportAllocs()
	for b.Loop() {
		ref.infer(qp, 1)
	}
}

func mazeBenchAgent(b *testing.B) (*Agent, []float64) {
	mz, m := mazeInternal(b, "1.maze")
	ag, err := NewAgent(m, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := ag.Reset(context.Background(), mz.Reset()); err != nil {
		b.Fatal(err)
	}
	if err := ag.prepareFuture(); err != nil {
		b.Fatal(err)
	}
	return ag, append([]float64(nil), ag.past.Present().Probs()...)
}
