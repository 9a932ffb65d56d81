package si_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/arbor-ai/arbor/internal/misusetest"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// TestTreeBruteForce: the tree of a search shows, at every node, the
// numbers of the independent dense recursion of brute_test.go: every
// action's G and σ(−γ G) at the node's remaining depth, and after every
// action the outcomes of positive probability (their joint indices, their
// probabilities and the exact posteriors), to 1e-12; at the root G and Q
// are the Result's bit for bit. The walk visits every path of the tree.
func TestTreeBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4)) // any seed: the models are checked, not chosen
	checked := 0
	for trial := range 8 {
		nf, nm := 1+trial%2, 1+(trial/2)%2
		m := randomModel(t, rng, nf, nm)
		qs := randomBelief(rng, m)
		gamma := 0.5 + 3*rng.Float64()
		for _, branch := range []si.Branching{si.Joint, si.Marginal} {
			br := newBrute(m, gamma, branch == si.Marginal)
			const depth = 3
			p, err := si.NewPlanner(m, &si.Options{Depth: depth, Gamma: gamma, Branch: branch})
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Plan(context.Background(), qs)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := p.Tree()
			if err != nil {
				t.Fatal(err)
			}
			root := tr.Root()
			if root.Remaining() != depth || tr.Depth() != depth {
				t.Fatalf("root %d steps from the horizon, depth %d; want %d", root.Remaining(), tr.Depth(), depth)
			}
			acts, err := tr.Actions(root)
			if err != nil {
				t.Fatal(err)
			}
			for u, a := range acts {
				if a.G != res.G[u] || a.Prob != res.ActionProbs[u] {
					t.Errorf("trial %d: root action %d: G %v, Q %v; Result %v, %v", trial, u, a.G, a.Prob, res.G[u], res.ActionProbs[u])
				}
			}
			var walk func(n si.Node, q []float64)
			walk = func(n si.Node, q []float64) {
				got, err := tr.Belief(n)
				if err != nil {
					t.Fatal(err)
				}
				for i := range q {
					if math.Abs(got[i]-q[i]) > 1e-12 {
						t.Fatalf("trial %d: belief %v, brute force %v", trial, got, q)
					}
				}
				acts, err := tr.Actions(n)
				if err != nil {
					t.Fatal(err)
				}
				if n.Remaining() == 0 {
					if acts != nil {
						t.Errorf("a node at the horizon has actions")
					}
					return
				}
				g := br.G(q, n.Remaining())
				pq := br.probs(g)
				for u, a := range acts {
					checked++
					if a.Action != u || !a.Expanded || math.Abs(a.G-g[u]) > 1e-12 || math.Abs(a.Prob-pq[u]) > 1e-12 {
						t.Errorf("trial %d, %v, %d steps left, action %d: %+v; brute force G %.15g, Q %.15g", trial, branch, n.Remaining(), u, a, g[u], pq[u])
					}
					if n.Remaining() == 1 {
						if len(a.Outcomes) != 0 {
							t.Errorf("outcomes at the last step")
						}
						continue
					}
					probs, posts, obs := br.outcomes(br.predict(q, u))
					outs := append([]si.TreeOutcome(nil), a.Outcomes...)
					sort.Slice(outs, func(i, j int) bool { return outs[i].Obs < outs[j].Obs })
					if len(outs) != len(obs) {
						t.Fatalf("trial %d: %d outcomes after action %d, brute force %d", trial, len(outs), u, len(obs))
					}
					for k, o := range outs {
						if o.Obs != obs[k] || math.Abs(o.Prob-probs[k]) > 1e-12 || o.Next.Remaining() != n.Remaining()-1 {
							t.Errorf("trial %d: outcome %+v, brute force %d with %.15g", trial, o, obs[k], probs[k])
						}
						walk(o.Next, posts[k])
					}
				}
			}
			walk(root, qs)
		}
	}
	if checked < 500 {
		t.Errorf("%d actions checked, want at least 500", checked)
	}
}

// TestTreeMisuse: a tree before any search, and one kept past the
// planner's next search, are errors, not panics.
func TestTreeMisuse(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/si-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := si.NewPlanner(m, &si.Options{Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := si.NewPlanner(m, &si.Options{Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	qs := []float64{1, 0, 0, 0, 0.5, 0.5}
	if _, err := p.Plan(context.Background(), qs); err != nil {
		t.Fatal(err)
	}
	stale, err := p.Tree()
	if err != nil {
		t.Fatal(err)
	}
	root := stale.Root()
	if _, err := p.Plan(context.Background(), qs); err != nil {
		t.Fatal(err)
	}
	tr, err := p.Tree()
	if err != nil {
		t.Fatal(err)
	}
	ag, err := si.NewAgent(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	var nilTree *si.Tree
	misusetest.Run(t, "si: ", []misusetest.Case{
		{Name: "Tree before Plan", Call: func() error { _, err := fresh.Tree(); return err }, Msg: "call Plan first"},
		{Name: "a Tree kept past the next Plan", Call: func() error { _, err := stale.Actions(root); return err }, Msg: "searched again"},
		{Name: "the zero Node", Call: func() error {
			acts, err := tr.Actions(si.Node{})
			if err == nil && len(acts) != 0 {
				err = fmt.Errorf("%d actions at node 0 at the horizon, want none", len(acts))
			}
			return err
		}, OK: "Node.Remaining", Says: "a node at the horizon has 0 and no actions"},
		{Name: "nil Tree", Call: func() error { _, err := nilTree.Actions(root); return err }, Msg: "nil Tree"},
		{Name: "Agent.Tree before Decide", Call: func() error { _, err := ag.Tree(); return err }, Msg: "call Decide first"},
	})
}
