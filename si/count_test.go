package si

import (
	"context"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// The arithmetic of a search, counted after it by walking the nodes it
// scored: what the benchmarks set the time per node against.
//
// The convention: multiply-adds (MACs) of the dense arithmetic over the
// support, whatever zeros the model's tensors hold (pomdp's compact
// tensors and the planner's compressed B skip them, so the planner may do
// fewer). For every scored belief q and every action u (all actions are
// scored, pruned or not):
//
//   - the propagation B_u q: for every factor f, |supp q_f| × |S_f| (a
//     dense column of B_u per non-zero entry of q);
//   - the predicted outcomes A q: for every modality m, |O_m| × J_m, with
//     J_m = Π_(f ∈ deps m) |supp (B_u q)_f| the joint states it reads, and
//     (k_m − 1) × J_m for the products of the k_m factors' probabilities
//     that weigh them;
//   - the ambiguity H_m · q: J_m; the risk Σ_o q_o (ln q_o − ln C_o):
//     |O_m| (the logarithms are not counted); with Novelty, the novelty
//     W_m q: |O_m| × J_m + |O_m|.
//
// For every kept outcome of every expanded action (a node branched), the
// posterior: with J = Π_f |supp (B_u q)_f|, nm × J for the likelihoods
// of the modalities' outcomes, nf × J for the factors' marginals and
// Σ_f |supp (B_u q)_f| divisions to normalise them. Finding which
// outcomes are kept (the enumeration, the pruned outcomes' products), the
// logarithms and exponentials, the softmaxes and the memo are not counted.

// Work is the arithmetic of the last search.
type Work struct {
	Nodes int   // beliefs scored
	MACs  int64 // multiply-adds, by the convention above
}

// Work counts the arithmetic of the nodes the last search scored. It
// reuses the planner's scratch, so it runs between two searches.
func (p *Planner) Work() Work {
	var w Work
	nz := make([]int, p.nf)
	for id := range p.stage {
		if p.stage[id] < scored {
			continue
		}
		w.Nodes++
		q := p.belief(int32(id))
		prop := int64(0)
		for fi := range p.facs {
			f := &p.facs[fi]
			prop += int64(nonZero(q[f.off:f.off+f.ns]) * f.ns)
		}
		base := id * p.nu
		for u := range p.nu {
			p.propagate(q, p.nonZero(int32(id)), u)
			joint, sum := 1, 0
			for fi := range p.facs {
				f := &p.facs[fi]
				nz[fi] = nonZero(p.pred[f.off : f.off+f.ns])
				joint *= nz[fi]
				sum += nz[fi]
			}
			w.MACs += prop
			for mi := range p.mods {
				md := &p.mods[mi]
				jm := 1
				for _, f := range md.deps {
					jm *= nz[f]
				}
				w.MACs += int64(md.no*jm + (len(md.deps)-1)*jm + jm + md.no)
				if p.w != nil {
					w.MACs += int64(md.no*jm + md.no)
				}
			}
			if p.stage[id] >= branched && p.kept[base+u] {
				kept := int64(p.ohi[base+u] - p.olo[base+u])
				w.MACs += kept * int64(p.nm*joint+p.nf*joint+sum)
			}
		}
	}
	return w
}

func nonZero(x []float64) int {
	n := 0
	for _, v := range x {
		if v != 0 {
			n++
		}
	}
	return n
}

// TestWork: the count of the maze's root at depth 1 by hand. The root is
// one-hot (81 states, 2 actions, no branching); per action the propagation
// is a dense column, 81; the position modality (81 outcomes) reads one
// state: 81 for A q, 1 for the ambiguity, 81 for the risk; the wall and
// preference modalities (2 outcomes each) 2 + 1 + 2 each: 81 + 163 + 10 =
// 254, and 508 for the two actions.
func TestWork(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/si-maze.json")
	if err != nil {
		t.Fatal(err)
	}
	q := make([]float64, m.NumStates())
	q[17] = 1
	p, err := NewPlanner(m, &Options{Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Plan(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	if w := p.Work(); w.Nodes != 1 || w.MACs != 508 {
		t.Errorf("depth 1: %+v, want 1 node of 508 multiply-adds", w)
	}
}
