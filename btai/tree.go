package btai

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/ffg"
)

// Propagation is the scheme that propagates the cost of newly expanded
// nodes through the tree (paper section 6.3.4).
type Propagation int

const (
	// MinBackward adds min_a g_(K::a), the lowest cost among the new
	// children of the expanded node K, to the aggregated cost of K and of
	// every ancestor of K, and increments their visit counts once
	// (paper eq. for min-backward propagation).
	MinBackward Propagation = iota
	// Backward adds the cost g_I of every new child I to the aggregated cost
	// of each of I's ancestors (K up to the root) and increments their visit
	// counts once per child (paper eq. backprop).
	Backward
	// Forward sets the aggregated cost of every new child I to g_I + G_K
	// (the cost of the path that leads to it: active inference's EFE,
	// paper section 7.4) and increments the visit counts of the ancestors
	// once.
	Forward
)

var propagationNames = []string{"min-backward", "backward", "forward"}

func (p Propagation) String() string { return enumName(propagationNames, "Propagation", p) }

// ParsePropagation parses "min-backward", "backward" or "forward".
func ParsePropagation(s string) (Propagation, error) {
	return apiResult(parseEnum[Propagation](propagationNames, "propagation", s))
}

// Node is a node S_I of the planning tree. I is the multi-index of actions
// that leads to it from the root S_t (paper Appendix H).
type Node struct {
	Parent     int     // index of the parent node, -1 for the root
	Action     int     // the last action of I, -1 for the root
	Depth      int     // |I|
	FirstChild int     // index of the child for action 0 (children are contiguous), -1 for a leaf
	Visits     int     // n_I: 1 for its own evaluation plus the propagations through it
	Local      float64 // g_I, the node's own cost (or its roll-out average)
	Aggregated float64 // G^aggr_I

	// S and O are the node's state and observation variables in the
	// agent's graph (nil for the root's O and in graph-free trees).
	S, O *ffg.Variable
}

// Average returns the average cost ḡ_I = G^aggr_I / n_I (paper section
// 6.3.4).
func (n *Node) Average() float64 {
	if n.Visits == 0 {
		return n.Aggregated
	}
	return n.Aggregated / float64(n.Visits)
}

// Leaf reports whether the node has not been expanded.
func (n *Node) Leaf() bool { return n.FirstChild < 0 }

// Tree is the planning tree of Branching Time Active Inference. Node 0 is
// the root S_t. Expanding a node adds one child per action at once
// (paper section 6.3.2), so a node's children are contiguous: child a of
// node k is Nodes[Nodes[k].FirstChild + a].
//
// A Tree is not safe for concurrent use. The zero Tree has no root: Reset
// makes one. Its methods panic on programming errors, as indexing a slice
// does, with a message naming the method: a node index out of range [0,
// len(Nodes)), an action out of range [0, NumActions), a rule or scheme
// that is none of the constants, and the further faults that each doc
// comment names; before Reset every node index is out of range. Agent
// reports the same faults as errors where they can come from its caller.
type Tree struct {
	Nodes      []Node
	NumActions int

	// limit, when > 0, is the depth at which nodes are not expanded
	// (SetDepthLimit); full[k] says that node k's subtree has no node left
	// to expand (kept only when limit > 0).
	limit int
	full  []bool

	// lo and hi are the lowest and highest average cost ḡ any node but
	// the root has had since Reset (NormalizedUCT): every new child's, and
	// every ancestor's after a propagation. The root is never a candidate
	// of the selection, and with forward propagation its average is not a
	// cost at all.
	lo, hi float64
}

// Reset empties the tree and creates the root. It panics if numActions <
// 1.
func (t *Tree) Reset(numActions int, root *ffg.Variable) {
	if numActions < 1 {
		panic(fmt.Sprintf("btai: Tree.Reset: %d actions, want >= 1", numActions))
	}
	clear(t.Nodes)
	t.Nodes = append(t.Nodes[:0], Node{Parent: -1, Action: -1, FirstChild: -1, S: root})
	t.NumActions = numActions
	t.lo, t.hi = math.Inf(1), math.Inf(-1)
	t.limit, t.full = 0, t.full[:0]
}

// SetDepthLimit makes nodes at depth d (d actions below the root) and
// deeper terminal: Select never returns one for expansion, and a subtree
// with nothing left to expand is not descended into (Exhausted). d <= 0
// removes the limit. It must be called on a tree that is only a root
// (after Reset); it panics otherwise.
func (t *Tree) SetDepthLimit(d int) {
	t.node("SetDepthLimit", 0)
	if len(t.Nodes) != 1 {
		panic(fmt.Sprintf("btai: Tree.SetDepthLimit on a tree of %d nodes, want the root only (call Reset)", len(t.Nodes)))
	}
	t.limit = max(d, 0)
	t.full = append(t.full[:0], false)
}

// DepthLimit returns the depth limit of SetDepthLimit (0: none).
func (t *Tree) DepthLimit() int { return t.limit }

// Exhausted reports whether a depth-limited tree (SetDepthLimit) has no
// node left to expand: every leaf is at the limit. A tree without a limit
// is never exhausted.
func (t *Tree) Exhausted() bool { return t.limit > 0 && len(t.full) > 0 && t.full[0] }

// CostRange returns the lowest and highest finite average cost ḡ that any
// node but the root has had since Reset (+Inf and -Inf before the first
// expansion): the bounds that NormalizedUCT maps to [0, 1].
func (t *Tree) CostRange() (lo, hi float64) { return t.lo, t.hi }

// see widens the seen range of average costs to include g, unless g is
// infinite (a cost is +Inf where the preferences give an outcome
// probability 0): such a child's normalised value is then -Inf, as its
// UCT value is.
func (t *Tree) see(g float64) {
	if math.IsInf(g, 0) {
		return
	}
	if g < t.lo {
		t.lo = g
	}
	if g > t.hi {
		t.hi = g
	}
}

// Child returns the index of child a of node k. It panics if k is out of
// range or not expanded, or a is out of range [0, NumActions).
func (t *Tree) Child(k, a int) int {
	t.expanded("Child", k)
	if uint(a) >= uint(t.NumActions) {
		panic(fmt.Sprintf("btai: Tree.Child: action %d out of range [0, %d)", a, t.NumActions))
	}
	return t.Nodes[k].FirstChild + a
}

// node panics, naming method fn, unless k is a node of the tree.
func (t *Tree) node(fn string, k int) {
	if uint(k) >= uint(len(t.Nodes)) {
		badNode(fn, k, len(t.Nodes))
	}
}

// expanded panics, naming method fn, unless k is an expanded node.
func (t *Tree) expanded(fn string, k int) {
	t.node(fn, k)
	if t.Nodes[k].FirstChild < 0 {
		panic(fmt.Sprintf("btai: Tree.%s: node %d is not expanded", fn, k))
	}
}

//go:noinline
func badNode(fn string, k, n int) {
	if n == 0 {
		panic(fmt.Sprintf("btai: Tree.%s: node %d of a tree without a root (call Reset)", fn, k))
	}
	panic(fmt.Sprintf("btai: Tree.%s: node %d out of range [0, %d)", fn, k, n))
}

// Path returns the multi-index I of node k: the actions from the root,
// appended to dst. It panics if k is out of range.
func (t *Tree) Path(dst []int, k int) []int {
	t.node("Path", k)
	start := len(dst)
	for ; k > 0; k = t.Nodes[k].Parent {
		dst = append(dst, t.Nodes[k].Action)
	}
	for i, j := start, len(dst)-1; i < j; i, j = i+1, j-1 {
		dst[i], dst[j] = dst[j], dst[i]
	}
	return dst
}

// Selection is the rule that picks which child to descend into during the
// selection step of planning (paper section 6.3.1).
type Selection int

const (
	// NormalizedUCT (the default, the zero Selection) is UCT with the
	// average costs mapped to [0, 1] by the range of average costs seen in
	// the tree (min-max normalisation, as
	// MuZero normalises values: Schrittwieser et al. 2020, "Mastering
	// Atari, Go, chess and shogi by planning with a learned model", Nature
	// 588, Appendix B):
	//
	//	UCT_J = (hi - ḡ_J) / (hi - lo) + c sqrt(ln n / n_J),
	//
	// lo and hi being the lowest and highest ḡ any node but the root has
	// had since the tree was started (Tree.CostRange; 0 in place of the
	// first term while hi = lo). Every child competes, as with UCT. The first term is in
	// [0, 1] whatever the scale of the costs, so the exploration constant
	// does not depend on it: it is on the scale of the constant of Kocsis
	// and Szepesvári for rewards in [0, 1], 1/√2 (PresetScaleFree takes
	// 0.5, by measurement).
	NormalizedUCT Selection = iota
	// UnexploredFirst is the paper's rule: at an expanded node, a child
	// that has not been expanded yet ("unexplored") is taken first; when
	// every child has been expanded, the child maximising UCT is taken.
	// The paper does not say which unexplored child goes first: here it is
	// the one with the lowest local cost (ties: lowest action). Every node
	// on the selected path thus has all its children expanded before the
	// search goes below them.
	UnexploredFirst
	// UCT takes the child maximising UCT among all the children, expanded
	// or not (ties: lowest action). A new child counts as visited once (its
	// own evaluation), so UCT is defined for it: this is how the paper
	// author's C++ implementation (Homing-Pigeon, MCTS::selectNode) selects,
	// and it lets the search go deep along a cheap branch without first
	// expanding every sibling on the way.
	UCT
	// UCT3MF is UCT as the BTAI_3MF agent (the paper author's Python
	// implementation for multimodal, multifactor models) counts visits:
	// the root starts with one visit of its own, so that its ln n is
	// ln(1 + expansions so far); every other node is as with UCT.
	UCT3MF
)

var selectionNames = []string{"normalized-uct", "unexplored-first", "uct", "uct-3mf"}

func (s Selection) String() string { return enumName(selectionNames, "Selection", s) }

// ParseSelection parses "normalized-uct", "unexplored-first" or "uct".
func ParseSelection(s string) (Selection, error) {
	return apiResult(parseEnum[Selection](selectionNames, "selection", s))
}

// Select walks from the root to the leaf to expand (paper section 6.3.1)
// with selection rule rule (see Selection). UCT is
//
//	UCT_J = -ḡ_J + c sqrt(ln n / n_J),
//
// n being the visit count of the current node and n_J that of child J;
// NormalizedUCT replaces -ḡ_J by its normalised form. Under a depth limit
// (SetDepthLimit) the children whose subtrees have nothing left to expand
// do not compete. It panics before Reset, if rule is not a Selection, and
// on an exhausted tree (Exhausted).
func (t *Tree) Select(c float64, rule Selection) int {
	t.node("Select", 0)
	if uint(rule) > uint(UCT3MF) {
		panic(fmt.Sprintf("btai: Tree.Select: %v", rule))
	}
	if t.Exhausted() {
		panic("btai: Tree.Select: the depth-limited tree has nothing left to expand")
	}
	k := 0
	for !t.Nodes[k].Leaf() {
		k = t.selectChild(k, c, rule)
	}
	return k
}

func (t *Tree) selectChild(k int, c float64, rule Selection) int {
	first := t.Nodes[k].FirstChild
	children := t.Nodes[first : first+t.NumActions]
	best := -1
	limited := t.limit > 0
	if rule == UnexploredFirst {
		bestCost := math.Inf(1)
		for a := range children {
			if limited && t.full[first+a] {
				continue
			}
			if ch := &children[a]; ch.Leaf() && (best < 0 || ch.Local < bestCost) {
				best, bestCost = a, ch.Local
			}
		}
		if best >= 0 {
			return first + best
		}
	}
	n := t.Nodes[k].Visits
	if rule == UCT3MF && k == 0 {
		n++
	}
	logN := math.Log(float64(max(n, 1)))
	bestUCT := math.Inf(-1)
	norm, span := rule == NormalizedUCT, t.hi-t.lo
	for a := range children {
		if limited && t.full[first+a] {
			continue
		}
		ch := &children[a]
		// A child built by AddChildren has at least one visit; the max
		// keeps a hand-built node with Visits 0 (Nodes is exported) at a
		// finite bonus instead of +Inf, or NaN when ln n = 0.
		explore := c * math.Sqrt(logN/float64(max(ch.Visits, 1)))
		var u float64
		switch {
		case !norm:
			u = -ch.Average() + explore
		case span > 0:
			u = (t.hi-ch.Average())/span + explore
		case math.IsInf(ch.Average(), 1):
			u = math.Inf(-1) // an impossible outcome: last, as with UCT
		default: // every finite average seen is the same
			u = explore
		}
		if u > bestUCT || best < 0 {
			best, bestUCT = a, u
		}
	}
	return first + best
}

// AddChildren expands node k with one child per action, whose local costs
// are costs[a]. A new child's aggregated cost starts at its local cost and
// its visit count at 1: its own evaluation is its first sample, as the
// roll-out value of a newly expanded node is in MCTS, so that ḡ = G/n
// averages over the same set of evaluations it sums. It returns the index
// of the first child. It does not propagate: call Propagate. It panics if
// k is out of range or already expanded, or len(costs) != NumActions.
func (t *Tree) AddChildren(k int, costs []float64) int {
	t.node("AddChildren", k)
	switch {
	case t.Nodes[k].FirstChild >= 0:
		panic(fmt.Sprintf("btai: Tree.AddChildren: node %d is already expanded", k))
	case len(costs) != t.NumActions:
		panic(fmt.Sprintf("btai: Tree.AddChildren: len(costs) = %d, want %d (one per action)", len(costs), t.NumActions))
	}
	first := len(t.Nodes)
	t.Nodes[k].FirstChild = first
	d := t.Nodes[k].Depth + 1
	for a, g := range costs {
		t.Nodes = append(t.Nodes, Node{Parent: k, Action: a, Depth: d, FirstChild: -1, Local: g, Aggregated: g, Visits: 1})
		t.see(g)
	}
	if t.limit > 0 {
		// Children at the limit are terminal: then k has nothing left to
		// expand, and so has every ancestor all of whose children are
		// exhausted.
		for range costs {
			t.full = append(t.full, d >= t.limit)
		}
		for j := k; j >= 0 && d >= t.limit; j = t.Nodes[j].Parent {
			f := t.Nodes[j].FirstChild
			for a := range t.NumActions {
				if !t.full[f+a] {
					return first
				}
			}
			t.full[j] = true
		}
	}
	return first
}

// Propagate propagates the costs of the new children of node k with
// scheme p (see Propagation) and updates the visit counts of k and its
// ancestors. It panics if k is out of range or not expanded, or p is not a
// Propagation.
func (t *Tree) Propagate(k int, p Propagation) {
	t.expanded("Propagate", k)
	if uint(p) > uint(Forward) {
		panic(fmt.Sprintf("btai: Tree.Propagate: %v", p))
	}
	first := t.Nodes[k].FirstChild
	children := t.Nodes[first : first+t.NumActions]
	switch p {
	case Forward:
		for a := range children {
			if k > 0 {
				children[a].Aggregated = children[a].Local + t.Nodes[k].Aggregated
			}
			t.see(children[a].Average())
		}
		for j := k; j >= 0; j = t.Nodes[j].Parent {
			t.Nodes[j].Visits++
			if j > 0 {
				t.see(t.Nodes[j].Average())
			}
		}
	case Backward:
		sum := 0.0
		for a := range children {
			sum += children[a].Local
		}
		for j := k; j >= 0; j = t.Nodes[j].Parent {
			t.Nodes[j].Aggregated += sum
			t.Nodes[j].Visits += len(children)
			if j > 0 {
				t.see(t.Nodes[j].Average())
			}
		}
	default: // MinBackward
		m := math.Inf(1)
		for a := range children {
			m = math.Min(m, children[a].Local)
		}
		for j := k; j >= 0; j = t.Nodes[j].Parent {
			t.Nodes[j].Aggregated += m
			t.Nodes[j].Visits++
			if j > 0 {
				t.see(t.Nodes[j].Average())
			}
		}
	}
}

// ActionSelection is the rule that picks the action to perform from the
// root's children after planning (paper section 6.4).
type ActionSelection int

const (
	// MostVisited (the default, the zero ActionSelection) takes the most
	// visited child; ties go to the lower average cost, then to the lower
	// action. Visit counts do not depend on the scale of the costs: on
	// short epistemic tasks, where the root children's average costs
	// converge within a few thousandths of a nat, it keeps choosing what the
	// search preferred (docs/btai.md, "Short epistemic tasks").
	MostVisited ActionSelection = iota
	// Softmax samples from softmax(-precision · ḡ) over the root's children,
	// ḡ = g/N being their average costs.
	Softmax
	// MinCost takes the child with the lowest average cost (ties: lower
	// action).
	MinCost
	// Visits samples from P(u) ∝ N_u^precision over the root's children's
	// visit counts N_u (AlphaZero's rule at temperature 1/precision):
	// scale-free, and a distribution that can score recorded choices.
	Visits
	// MostVisitedFirst takes the most visited child, ties to the lower
	// action, as the BTAI_3MF agent does (Python's max over the children
	// in action order).
	MostVisitedFirst
)

var actionSelectionNames = []string{"most-visited", "softmax", "min-cost", "visits", "most-visited-first"}

func (s ActionSelection) String() string { return enumName(actionSelectionNames, "ActionSelection", s) }

// Deterministic reports whether the rule picks its action without a
// distribution (MostVisited, MinCost, MostVisitedFirst).
func (s ActionSelection) Deterministic() bool {
	return s == MostVisited || s == MinCost || s == MostVisitedFirst
}

// ParseActionSelection parses "most-visited", "softmax", "min-cost" or
// "visits".
func ParseActionSelection(s string) (ActionSelection, error) {
	return apiResult(parseEnum[ActionSelection](actionSelectionNames, "action selection", s))
}

// BestAction returns the root's child that rule r favours most: the
// action SelectAction takes for the deterministic rules (MostVisited,
// MinCost), and the most probable action of the stochastic ones (Softmax:
// the lowest average cost, ties to the lower action; Visits: the most
// visited, ties as MostVisited). It panics if the root has not been
// expanded (before Reset, or after Reset and no AddChildren on node 0) or r
// is not an ActionSelection: programming errors (Agent.SelectAction reports
// an unplanned tree as an error).
func (t *Tree) BestAction(r ActionSelection) int {
	switch r {
	case MostVisited, Visits:
		return t.selectAction("BestAction", MostVisited, 0, nil, nil)
	case MostVisitedFirst:
		return t.selectAction("BestAction", MostVisitedFirst, 0, nil, nil)
	case Softmax, MinCost:
		return t.selectAction("BestAction", MinCost, 0, nil, nil)
	}
	panic(fmt.Sprintf("btai: Tree.BestAction: %v", r))
}

// SelectAction picks the action to perform with rule r. precision is the
// precision of Softmax and Visits; rng is used by them only. probs, when
// non-nil with one entry per action, receives the distribution the action
// is drawn from (Softmax and Visits; one-hot on the action for the
// deterministic rules); a probs of another length is left alone.
//
// It panics if the root has not been expanded (before Reset, or after
// Reset and no AddChildren on node 0), r is not an ActionSelection, or,
// for Softmax and Visits, rng is nil or precision is not finite and >= 0:
// programming errors, with a message such as "btai: Tree.SelectAction:
// the root is not expanded" (Agent.SelectAction reports an unplanned tree
// as an error).
func (t *Tree) SelectAction(r ActionSelection, precision float64, rng *rand.Rand, probs []float64) int {
	return t.selectAction("SelectAction", r, precision, rng, probs)
}

// cmpVisits orders two nodes as MostVisited ranks the root's children:
// the more visited first, on a tie the lower average cost first; 0 when
// neither comes first (the caller then takes the lower action). The
// figure's top-K children (Tree.WriteDOT) are ranked by the same rule.
func cmpVisits(a, b *Node) int {
	switch {
	case a.Visits != b.Visits:
		return cmp.Compare(b.Visits, a.Visits)
	case a.Average() < b.Average():
		return -1
	case b.Average() < a.Average():
		return 1
	}
	return 0
}

// selectAction is SelectAction for method fn.
func (t *Tree) selectAction(fn string, r ActionSelection, precision float64, rng *rand.Rand, probs []float64) int {
	if len(t.Nodes) == 0 || t.Nodes[0].FirstChild < 0 {
		panic(fmt.Sprintf("btai: Tree.%s: the root is not expanded", fn))
	}
	switch {
	case uint(r) > uint(MostVisitedFirst):
		panic(fmt.Sprintf("btai: Tree.%s: %v", fn, r))
	case r.Deterministic():
	case rng == nil:
		panic(fmt.Sprintf("btai: Tree.%s: nil rng for %v", fn, r))
	case !(precision >= 0) || math.IsInf(precision, 1):
		panic(fmt.Sprintf("btai: Tree.%s: precision %v, want finite >= 0", fn, precision))
	}
	first := t.Nodes[0].FirstChild
	children := t.Nodes[first : first+t.NumActions]
	oneHot := func(best int) int {
		if len(probs) == len(children) {
			clear(probs)
			probs[best] = 1
		}
		return best
	}
	switch r {
	case MostVisited:
		best := 0
		for a := 1; a < len(children); a++ {
			if cmpVisits(&children[a], &children[best]) < 0 {
				best = a
			}
		}
		return oneHot(best)
	case MostVisitedFirst:
		best := 0
		for a := 1; a < len(children); a++ {
			if children[a].Visits > children[best].Visits {
				best = a
			}
		}
		return oneHot(best)
	case MinCost:
		best := 0
		for a := 1; a < len(children); a++ {
			if children[a].Average() < children[best].Average() {
				best = a
			}
		}
		return oneHot(best)
	case Visits:
		p := probs
		if len(p) != len(children) {
			p = make([]float64, len(children))
		}
		n := make([]float64, len(children))
		for a := range children {
			n[a] = float64(children[a].Visits)
		}
		if _, err := agent.PowerProbs(p, n, precision); err != nil {
			// No child visited (cannot happen after an expansion with at
			// least one iteration): uniform.
			for a := range p {
				p[a] = 1 / float64(len(p))
			}
		}
		return agent.Sample(rng, p)
	default:
		// softmax(-precision ḡ), computed stably.
		m := math.Inf(1)
		for a := range children {
			m = math.Min(m, children[a].Average())
		}
		var buf [16]float64
		p := probs
		if len(p) != len(children) {
			if len(children) <= len(buf) {
				p = buf[:len(children)]
			} else {
				p = make([]float64, len(children))
			}
		}
		z := 0.0
		for a := range children {
			p[a] = math.Exp(-precision * (children[a].Average() - m))
			z += p[a]
		}
		u := rng.Float64() * z
		choice := len(children) - 1
		acc := 0.0
		for a := range children {
			acc += p[a]
			if u < acc {
				choice = a
				break
			}
		}
		for a := range p {
			p[a] /= z
		}
		return choice
	}
}
