package btai

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/pomdp"
)

func randDistInternal(rng *rand.Rand, n int) []float64 {
	p := make([]float64, n)
	s := 0.0
	for i := range p {
		p[i] = rng.Float64() + 0.01
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func randModelInternal(t testing.TB, rng *rand.Rand, ns, no, nu int) *pomdp.Model {
	t.Helper()
	sp := pomdp.Spec{NumStates: ns, NumObs: no, NumActions: nu, C: randDistInternal(rng, no), D: randDistInternal(rng, ns)}
	sp.A = make([]float64, no*ns)
	for s := range ns {
		for o, p := range randDistInternal(rng, no) {
			sp.A[o*ns+s] = p
		}
	}
	sp.B = make([]float64, nu*ns*ns)
	for u := range nu {
		for p := range ns {
			for n, q := range randDistInternal(rng, ns) {
				sp.B[(u*ns+n)*ns+p] = q
			}
		}
	}
	m, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestVMPStartAssociation checks the one place where the planning loop
// does not compute bit for bit what the straightforward formulation does:
// VMP starts from Q(O_I) = (Ā B̄_u) Q(S_parent) with the product Ā B̄_u
// formed once per planning step, instead of Ā (B̄_u Q(S_parent)). The two
// are equal in exact arithmetic; in floating point they differ by a few
// ulps (|O|·|S| terms of size <= 1, so about 1e-15), and the VMP fixed-point
// iteration started from either must end at the same posteriors to 1e-12
// (the same number of sweeps: the stopping rule |ΔF| < 1e-9 would have to
// fall within 1e-15 of its threshold to differ). The reference is written
// out here: B̄_u q by explicit sums over the parent state, then Ā times
// that, then Agent.vmp. Random POMDPs of several sizes, random parent
// beliefs, every action.
func TestVMPStartAssociation(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	worst := 0.0
	for _, dims := range [][3]int{{2, 2, 2}, {5, 3, 3}, {22, 10, 5}, {30, 7, 4}} {
		ns, no, nu := dims[0], dims[1], dims[2]
		m := randModelInternal(t, rng, ns, no, nu)
		ag, err := NewAgent(m, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.prepareFuture(); err != nil {
			t.Fatal(err)
		}
		for range 50 {
			qp := randDistInternal(rng, ns)
			for u := range nu {
				if err := ag.infer(&ag.sc, qp, u); err != nil {
					t.Fatal(err)
				}
				gotS := append([]float64(nil), ag.sc.qs...)
				gotO := append([]float64(nil), ag.sc.qo...)
				// Reference start: Q(S) = B̄_u q, Q(O) = Ā Q(S).
				for n := range ns {
					acc := 0.0
					for p := range ns {
						acc += m.B(u, n, p) * qp[p]
					}
					ag.sc.qs[n] = acc
				}
				for o := range no {
					acc := 0.0
					for s := range ns {
						acc += m.A(o, s) * ag.sc.qs[s]
					}
					ag.sc.qo[o] = acc
				}
				if err := ag.vmp(&ag.sc, qp, u); err != nil {
					t.Fatal(err)
				}
				for s := range ns {
					worst = math.Max(worst, math.Abs(gotS[s]-ag.sc.qs[s]))
				}
				for o := range no {
					worst = math.Max(worst, math.Abs(gotO[o]-ag.sc.qo[o]))
				}
			}
		}
	}
	t.Logf("largest difference %.3g", worst)
	if worst > 1e-12 {
		t.Errorf("posteriors differ by %g, want <= 1e-12", worst)
	}
}

// benchAgent is an agent on a random POMDP of the size of 1.maze (22
// states, 10 observations, 5 actions) with its future caches prepared.
func benchAgent(b *testing.B, inf Inference) (*Agent, []float64) {
	rng := rand.New(rand.NewPCG(5, 5))
	m := randModelInternal(b, rng, 22, 10, 5)
	o := DefaultOptions()
	o.Inference = inf
	ag, err := NewAgent(m, &o, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := ag.prepareFuture(); err != nil {
		b.Fatal(err)
	}
	return ag, randDistInternal(rng, 22)
}

// BenchmarkInferVMP: local VMP of one new node (start Q(O) = (Ā B̄_u) q,
// message B̊_u q, sweeps to |ΔF| < 1e-9), 22 states and 10 observations.
func BenchmarkInferVMP(b *testing.B) {
	ag, qp := benchAgent(b, VMP)
	b.ReportAllocs()
	for b.Loop() {
		if err := ag.infer(&ag.sc, qp, 2); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInferPredictive: Q(S) = B̄_u q and Q(O) = Ā Q(S) for one node.
func BenchmarkInferPredictive(b *testing.B) {
	ag, qp := benchAgent(b, Predictive)
	b.ReportAllocs()
	for b.Loop() {
		if err := ag.infer(&ag.sc, qp, 2); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMulT: one 22×22 matrix-vector product in the transposed,
// axpy form used by the planning loop.
func BenchmarkMulT(b *testing.B) {
	ag, qp := benchAgent(b, VMP)
	dst := make([]float64, 22)
	bt := transpose(nil, ag.bbar[:22*22], 22, 22)
	b.ReportAllocs()
	for b.Loop() {
		mulT(dst, bt, qp)
	}
}

// BenchmarkSoftmax: the planning loop's softmax over 22 natural parameters.
func BenchmarkSoftmax(b *testing.B) {
	_, qp := benchAgent(b, VMP)
	eta := make([]float64, len(qp))
	for i, p := range qp {
		eta[i] = math.Log(p)
	}
	dst := make([]float64, len(qp))
	b.ReportAllocs()
	for b.Loop() {
		softmax(dst, eta)
	}
}

// TestCompactTreeStorage: whether Q(S) is kept for every node, found in
// the ring of the newest nodes, or computed again from the parent when a
// leaf is selected, the planning tree must be the same bit for bit (the
// same inference on the same inputs): every node's costs and visits, and
// the Q(S_I), Q(O_I) put in the graph by Tree. 300 iterations of 5 actions
// make 1,500 nodes: all kept; a ring of 100 nodes (hits and misses); a
// ring of one node (nearly always computed again).
func TestCompactTreeStorage(t *testing.T) {
	ctx := context.Background()
	for _, inf := range []Inference{VMP, Predictive} {
		var trees [3]*Tree
		var probs [3][][]float64
		for i, c := range []struct{ keep, ring int }{{keepAllFloats, ringFloats}, {0, 100 * 22}, {0, 0}} {
			limit := c.keep
			m := randModelInternal(t, rand.New(rand.NewPCG(8, 8)), 22, 10, 5)
			o := DefaultOptions()
			o.Inference, o.Iterations = inf, 300
			ag, err := NewAgent(m, &o, nil)
			if err != nil {
				t.Fatal(err)
			}
			ag.keepLimit, ag.ringLimit = limit, c.ring
			if err := ag.Reset(ctx, 1); err != nil {
				t.Fatal(err)
			}
			if err := ag.Plan(ctx); err != nil {
				t.Fatal(err)
			}
			if ag.keepAll != (limit > 0) {
				t.Fatalf("keepAll %v with limit %d", ag.keepAll, limit)
			}
			trees[i] = ag.Tree()
			if ag.matErr != nil {
				t.Fatal(ag.matErr)
			}
			for _, n := range trees[i].Nodes[1:] {
				probs[i] = append(probs[i], n.S.Probs(), n.O.Probs())
			}
		}
		for c := 1; c < len(trees); c++ {
			for k := range trees[0].Nodes {
				a, b := trees[0].Nodes[k], trees[c].Nodes[k]
				if a.Local != b.Local || a.Aggregated != b.Aggregated || a.Visits != b.Visits || a.FirstChild != b.FirstChild {
					t.Fatalf("%v, case %d: node %d differs: %+v and %+v", inf, c, k, a, b)
				}
			}
			for j := range probs[0] {
				for i := range probs[0][j] {
					if probs[0][j][i] != probs[c][j][i] {
						t.Fatalf("%v, case %d: posterior %d differs", inf, c, j)
					}
				}
			}
		}
	}
}

// TestSoftmaxMatchesExpfam: the planning loop's softmax against
// expfam.Softmax on random natural parameters (lengths 1 to 40, entries
// spread over [-40, 40] and over [-800, 0], where exp(x - max) underflows,
// with some -Inf). The differences: softmax's exponentials (fastexp.Exp)
// and math.Exp's are up to 2 ulp apart (fastexp's TestExp), so the sum z
// differs by up to 2 ulp relative, plus one rounding; and softmax
// multiplies by the rounded 1/z where expfam.Softmax divides by z (1.5 ulp
// at most). Bound: 8 ulp of p (8·2^-52 relative), plus two roundings of
// the subnormal spacing 2^-1074 where p underflows to a subnormal. ln Z =
// m + log1p(r) from both: the r's differ by 3 ulp relative, which moves
// log1p(r) by at most 3·2^-52, plus the roundings of the logarithms and
// the sum: 8 ulp of max(|ln Z|, 1). Where expfam.Softmax returns NaN (every
// entry -Inf, a NaN entry anywhere, +Inf) softmax must return m = NaN.
func TestSoftmaxMatchesExpfam(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	const ulp = 0x1p-52
	for trial := range 20000 {
		n := 1 + rng.IntN(40)
		eta := make([]float64, n)
		for i := range eta {
			switch {
			case trial%2 == 0:
				eta[i] = 80*rng.Float64() - 40
			default:
				eta[i] = -800 * rng.Float64()
			}
			if rng.IntN(10) == 0 {
				eta[i] = math.Inf(-1)
			}
		}
		want := make([]float64, n)
		logZ := expfam.Softmax(want, eta)
		got := make([]float64, n)
		m, r := softmax(got, eta)
		if math.IsNaN(logZ) {
			if !math.IsNaN(m) {
				t.Fatalf("eta %v: expfam.Softmax NaN, softmax m = %v", eta, m)
			}
			continue
		}
		if d := math.Abs(m + math.Log1p(r) - logZ); d > 8*ulp*max(math.Abs(logZ), 1) {
			t.Fatalf("eta %v: ln Z = %v, expfam %v", eta, m+math.Log1p(r), logZ)
		}
		for i := range got {
			if d := math.Abs(got[i] - want[i]); d > 8*ulp*want[i]+0x1p-1073 {
				t.Fatalf("eta %v: p[%d] = %v, expfam %v (%.3g ulp)", eta, i, got[i], want[i], d/(ulp*want[i]))
			}
		}
	}
	for _, eta := range [][]float64{
		{math.Inf(-1), math.Inf(-1)},
		{math.NaN(), 0},
		{0, math.NaN()},
		{1, math.Inf(1)},
	} {
		if logZ := expfam.Softmax(make([]float64, len(eta)), eta); !math.IsNaN(logZ) {
			t.Fatalf("eta %v: expfam.Softmax %v, want NaN", eta, logZ)
		}
		if m, _ := softmax(make([]float64, len(eta)), eta); !math.IsNaN(m) {
			t.Fatalf("eta %v: softmax m = %v, want NaN", eta, m)
		}
	}
}
