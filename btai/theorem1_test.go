package btai_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

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

func randPOMDP(t *testing.T, rng *rand.Rand, ns, no, nu int) *pomdp.Model {
	sp := pomdp.Spec{NumStates: ns, NumObs: no, NumActions: nu, C: randDist(rng, no), D: randDist(rng, ns)}
	sp.A = make([]float64, no*ns)
	for s := range ns {
		col := randDist(rng, no)
		for o := range no {
			sp.A[o*ns+s] = col[o]
		}
	}
	sp.B = make([]float64, nu*ns*ns)
	for u := range nu {
		for p := range ns {
			col := randDist(rng, ns)
			for n := range ns {
				sp.B[(u*ns+n)*ns+p] = col[n]
			}
		}
	}
	m, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// bruteEFE is the classic expected free energy of an action path from the
// belief qs (docs/cli.md), written out from A, B and C:
// Q(s_tau) = B_u Q(s_(tau-1)), Q(o_tau) = A Q(s_tau),
// G = sum_tau KL[Q(o_tau) || C] + sum_s Q(s_tau)(s) H[A(.|s)].
func bruteEFE(m *pomdp.Model, qs []float64, path []int) float64 {
	ns, no := m.NumStates(), m.NumObs()
	q := append([]float64(nil), qs...)
	g := 0.0
	for _, u := range path {
		next := make([]float64, ns)
		for n := range ns {
			for p := range ns {
				next[n] += m.B(u, n, p) * q[p]
			}
		}
		q = next
		for o := range no {
			qo := 0.0
			for s := range ns {
				qo += m.A(o, s) * q[s]
			}
			g += qo * math.Log(qo/m.C(o))
		}
		for s := range ns {
			h := 0.0
			for o := range no {
				h -= m.A(o, s) * math.Log(m.A(o, s))
			}
			g += q[s] * h
		}
	}
	return g
}

// TestTheorem1 checks paper Theorem 1: with predictive inference, the
// classic cost and forward propagation, the aggregated cost of every node of
// the planning tree equals the classic expected free energy of the action
// path that leads to it.
func TestTheorem1(t *testing.T) {
	rng := rand.New(rand.NewPCG(2024, 1))
	for trial := range 6 {
		ns, no, nu := 2+rng.IntN(4), 2+rng.IntN(3), 2+rng.IntN(2)
		m := randPOMDP(t, rng, ns, no, nu)
		o := btai.DefaultOptions()
		o.Inference, o.Cost, o.Propagation, o.Iterations = btai.Predictive, btai.Classic, btai.Forward, 25
		ag, err := btai.NewAgent(m, &o, rand.New(rand.NewPCG(uint64(trial), 0)))
		if err != nil {
			t.Fatal(err)
		}
		obs := rng.IntN(no)
		ctx := context.Background()
		if err := ag.Reset(ctx, obs); err != nil {
			t.Fatal(err)
		}
		// The present belief is the exact posterior D ⊙ A[obs, :] / Z.
		root := make([]float64, ns)
		z := 0.0
		for s := range ns {
			root[s] = m.D(s) * m.A(obs, s)
			z += root[s]
		}
		for s := range root {
			root[s] /= z
			if math.Abs(root[s]-ag.Belief()[s]) > 1e-9 {
				t.Fatalf("trial %d: belief %v, want %v", trial, ag.Belief(), root)
			}
		}
		if err := ag.Plan(ctx); err != nil {
			t.Fatal(err)
		}
		tr := ag.Tree()
		if len(tr.Nodes) != 1+25*nu {
			t.Fatalf("trial %d: %d nodes, want %d", trial, len(tr.Nodes), 1+25*nu)
		}
		maxDepth := 0
		for i := 1; i < len(tr.Nodes); i++ {
			path := tr.Path(nil, i)
			want := bruteEFE(m, root, path)
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
