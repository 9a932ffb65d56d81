package si

import (
	"errors"
	"fmt"
	"math"
)

// Tree is the last search of a Planner seen as a tree from its root: each
// node a belief some steps from the horizon, with every action's expected
// free energy and probability there, and under each expanded action the
// outcomes the search kept, their probabilities and the belief each leads
// to. The search scores a belief reached by different paths once; the
// tree shows it under every path (Node.ID tells the repeats apart). A
// Tree reads the planner's tables: its methods return an error once the
// planner has started another search.
type Tree struct {
	p   *Planner
	gen uint64
}

// Node is a belief of the search tree with the number of steps left to the
// horizon.
type Node struct {
	id int32
	r  int
}

// ID identifies the node's belief within the search: nodes of equal ID
// hold the same belief (reached by different paths or at different
// depths).
func (n Node) ID() int { return int(n.id) }

// Remaining is the number of steps from the node to the horizon: the
// root's is Tree.Depth, a node at the horizon has 0 and no actions.
func (n Node) Remaining() int { return n.r }

// TreeAction is one action at a node of the search tree.
type TreeAction struct {
	Action int // the joint action
	// G is G(u | q) with the node's remaining steps, Local its one-step
	// term (risk + ambiguity − novelty); G is +Inf for an action that is
	// not expanded (PruneActions).
	G, Local float64
	// Prob is Q(u) = σ(−γ G)(u) at the node (0 when not expanded).
	Prob float64
	// Expanded reports that the search went past the action's first step
	// (it was not pruned at the node).
	Expanded bool
	// Outcomes are the outcomes kept after the action, in enumeration
	// order, with their renormalised probabilities: none at the last step
	// (Remaining 1) or for an action not expanded.
	Outcomes []TreeOutcome
}

// TreeOutcome is one outcome kept after an action.
type TreeOutcome struct {
	Obs  int     // the joint outcome (pomdp.Model.EncodeObs)
	Prob float64 // Q(o | u, q), renormalised over the kept outcomes
	Next Node    // the exact posterior after the outcome
}

// Tree returns the tree of the planner's last search (an error before a
// search has completed). It is valid until the planner's next Plan.
func (p *Planner) Tree() (*Tree, error) {
	if !p.planned {
		return nil, errors.New("si: no search to show (call Plan first)")
	}
	return &Tree{p: p, gen: p.gen}, nil
}

func (t *Tree) check() error {
	if t == nil || t.p == nil {
		return errors.New("si: nil Tree")
	}
	if t.p.gen != t.gen || !t.p.planned {
		return errors.New("si: the planner has searched again since this Tree was made")
	}
	return nil
}

// Root returns the root: the belief searched from, Depth steps from the
// horizon.
func (t *Tree) Root() Node {
	if t.check() != nil {
		return Node{}
	}
	return Node{id: t.p.root, r: t.p.depth}
}

// Depth returns the depth of the search (Result.Depth: less than
// Options.Depth when the node budget cut it short).
func (t *Tree) Depth() int {
	if t.check() != nil {
		return 0
	}
	return t.p.depth
}

// Belief returns a copy of node n's belief, every factor's marginal.
func (t *Tree) Belief(n Node) ([]float64, error) {
	if err := t.node(n); err != nil {
		return nil, apiError(err)
	}
	return append([]float64(nil), t.p.belief(n.id)...), nil
}

func (t *Tree) node(n Node) error {
	if err := t.check(); err != nil {
		return err
	}
	if n.id < 0 || int(n.id) >= len(t.p.stage) || n.r < 0 || n.r > t.p.depth {
		return fmt.Errorf("si: node %d with %d steps left is not in the tree", n.id, n.r)
	}
	return nil
}

// Actions returns every action at node n with its G, probability and kept
// outcomes (none at the horizon, Remaining 0). The numbers are those the
// search computed: at the root, G and Prob equal the Result's.
func (t *Tree) Actions(n Node) ([]TreeAction, error) {
	if err := t.node(n); err != nil {
		return nil, apiError(err)
	}
	if n.r == 0 {
		return nil, nil
	}
	p := t.p
	if p.stage[n.id] < scored || n.r >= 2 && p.stage[n.id] < branched {
		return nil, fmt.Errorf("si: node %d was not searched %d steps from the horizon", n.id, n.r)
	}
	base := int(n.id) * p.nu
	out := make([]TreeAction, p.nu)
	g := make([]float64, p.nu)
	for u := range p.nu {
		a := TreeAction{Action: u, Local: p.local[base+u], Expanded: p.kept[base+u]}
		if !a.Expanded {
			g[u] = math.Inf(1)
			out[u] = a
			continue
		}
		x := a.Local
		if n.r >= 2 {
			for k := p.olo[base+u]; k < p.ohi[base+u]; k++ {
				child := p.ochild[k]
				v := 0.0
				if n.r-1 > 0 {
					vs := p.vals[child]
					if n.r-1 >= len(vs) || math.IsNaN(vs[n.r-1]) {
						return nil, fmt.Errorf("si: node %d was not searched %d steps from the horizon", child, n.r-1)
					}
					v = vs[n.r-1]
				}
				x += p.oprob[k] * v
				a.Outcomes = append(a.Outcomes, TreeOutcome{Obs: int(p.oobs[k]), Prob: p.oprob[k], Next: Node{id: child, r: n.r - 1}})
			}
		}
		g[u] = x
		out[u] = a
	}
	q := make([]float64, p.nu)
	if err := softmax(q, g, p.kept[base:base+p.nu], p.o.Gamma); err != nil {
		return nil, apiError(err)
	}
	for u := range out {
		out[u].G, out[u].Prob = g[u], q[u]
	}
	return out, nil
}
