// Command planners runs arbor's three planners side by side from the
// first observation of three tasks (the T-maze with the context unknown,
// the tiger problem and the maze of the sophisticated-inference
// benchmark) and prints what each chooses, its costs, its nodes and its
// time; then the paper's two statements about them, numerically: forward
// propagation with predictive inference and the classic cost is classic
// active inference (Theorem 1), and backward propagation is the recursion
// of sophisticated inference without its weighting by Q(u, s).
// docs/planners.md shows and explains the output.
//
//	go run ./examples/planners
package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// task is one problem: a model file, the first observation (one outcome
// per modality), the horizon N of aci and the depth N of SI, and SI's
// pruning.
type task struct {
	name, file string
	outcomes   []int
	n          int
	si         si.Options
}

// tasks returns the three tasks, with files relative to dir (the
// repository root).
func tasks(dir string) []task {
	return []task{
		{name: "T-maze", file: dir + "examples/pomdp/tmaze-uniform.json", outcomes: []int{0, 0, 0}, n: 2, si: si.Options{Depth: 2}},
		{name: "tiger", file: dir + "examples/pomdp/tiger.json", outcomes: []int{0}, n: 3, si: si.Options{Depth: 3}},
		// The maze of ActiveInference.jl's SI benchmark, from its start
		// (position 17, no wall, the low preference cue), pruned as the
		// benchmark ran pymdp (docs/si.md, "Speed").
		{name: "maze", file: dir + "examples/pomdp/si-maze.json", outcomes: []int{17, 0, 1}, n: 8,
			si: si.Options{Depth: 8, PruneActions: 1.0 / 16, PruneOutcomes: 0.5}},
	}
}

// propagations are BTAI's three schemes, the default last.
var propagations = []btai.Propagation{btai.Forward, btai.Backward, btai.MinBackward}

// below says whether a difference is below 1e-12, or gives it.
func below(d float64) string {
	if d < 1e-12 {
		return "below 1e-12"
	}
	return fmt.Sprintf("%.3g", d)
}

// timed runs f reps times and returns the shortest time, in
// milliseconds, with f's last error.
func timed(reps int, f func() error) (float64, error) {
	best := math.Inf(1)
	var err error
	for range reps {
		start := time.Now()
		err = f()
		best = math.Min(best, time.Since(start).Seconds()*1e3)
	}
	return best, err
}

// btaiPlan plans with BTAI's default preset and propagation p from the
// first observation obs, with the random stream of seed 1.
func btaiPlan(m *pomdp.Model, obs int, o btai.Options) (*btai.Agent, error) {
	ag, err := btai.NewAgent(m, &o, rand.New(rand.NewPCG(1, 0)))
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := ag.Reset(ctx, obs); err != nil {
		return nil, err
	}
	return ag, ag.Plan(ctx)
}

func main() {
	var b strings.Builder
	if err := run(&b, "", 3); err != nil {
		fmt.Fprintln(os.Stderr, "planners:", err)
		os.Exit(1)
	}
	fmt.Print(trimLines(b.String()))
}

// trimLines removes the spaces at the end of every line.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// run prints the comparison, the files read relative to dir, each time
// the shortest of reps runs.
func run(w io.Writer, dir string, reps int) error {
	def := btai.DefaultOptions()
	fmt.Fprintf(w, "aci: every policy of length N, q(pi) = softmax(-%d G), the action marginal P; min G over the policies that start with the action\n", aci.DefaultGamma)
	fmt.Fprintf(w, "btai: the default preset (%d iterations, %s selection, %s inference, %s cost, %s choice, %s past), each propagation;\n",
		def.Iterations, def.Selection, def.Inference, def.Cost, def.ActionSelection, def.Past)
	fmt.Fprintln(w, "  visits n and average cost g of the root's children")
	fmt.Fprintf(w, "si: depth N, Q(u) = softmax(-%d G) at every node; G of the action\n", si.DefaultGamma)
	for _, tk := range tasks(dir) {
		if err := compare(w, tk, reps); err != nil {
			return fmt.Errorf("%s: %w", tk.name, err)
		}
	}
	fmt.Fprintln(w, "\nTheorem 1: BTAI with predictive inference, the classic cost and forward propagation;")
	fmt.Fprintln(w, "every node's aggregated cost against aci's G of the policy that leads to it")
	fmt.Fprintf(w, "  %-8s %6s %8s  %s\n", "task", "nodes", "deepest", "largest |difference|")
	for _, tk := range tasks(dir) {
		if err := theorem1(w, tk); err != nil {
			return fmt.Errorf("%s: %w", tk.name, err)
		}
	}
	for _, tk := range tasks(dir) {
		if err := backward(w, tk); err != nil {
			return fmt.Errorf("%s: %w", tk.name, err)
		}
	}
	return nil
}

// first returns the model of tk, the index of its first observation and
// the exact posterior after it.
func first(tk task) (*pomdp.Model, int, []float64, error) {
	m, err := pomdp.Load(tk.file)
	if err != nil {
		return nil, 0, nil, err
	}
	obs, err := m.EncodeObs(tk.outcomes)
	if err != nil {
		return nil, 0, nil, err
	}
	qs, err := pomdp.StatePosterior(nil, m, obs)
	return m, obs, qs, err
}

// column is one planner's numbers per action and its summary.
type column struct {
	head   string
	p, g   []float64 // the probability (or visits) and the cost of each action
	visits bool      // p holds visit counts
	choice int
	nodes  int
	ms     float64
}

// compare prints what the planners choose on tk.
func compare(w io.Writer, tk task, reps int) error {
	m, obs, qs, err := first(tk)
	if err != nil {
		return err
	}
	nu := m.NumActions()
	var cols []column

	// aci: every policy of length N.
	var ps *aci.PolicySet
	ms, err := timed(reps, func() error {
		var err error
		ps, err = aci.EvaluatePolicies(m, qs, tk.n, nil)
		return err
	})
	if err != nil {
		return err
	}
	qpi, err := ps.Posterior(nil, aci.DefaultGamma)
	if err != nil {
		return err
	}
	c := column{head: fmt.Sprintf("aci horizon %d", tk.n), p: ps.ActionProbs(nil, qpi), g: make([]float64, nu), ms: ms}
	for u := range c.g {
		c.g[u] = math.Inf(1)
	}
	for i, g := range ps.G {
		u := ps.Policy(nil, i)[0]
		c.g[u] = math.Min(c.g[u], g)
	}
	for d, level := 1, nu; d <= tk.n; d, level = d+1, level*nu {
		c.nodes += level // the beliefs of the policy walk, prefixes shared
	}
	c.choice = argmax(c.p)
	cols = append(cols, c)

	// btai: the default preset with each propagation.
	for _, prop := range propagations {
		o := btai.DefaultOptions()
		o.Propagation = prop
		var ag *btai.Agent
		ms, err := timed(reps, func() error {
			var err error
			ag, err = btaiPlan(m, obs, o)
			return err
		})
		if err != nil {
			return err
		}
		tr := ag.Tree()
		c := column{head: "btai " + prop.String(), p: make([]float64, nu), g: make([]float64, nu), visits: true, nodes: len(tr.Nodes), ms: ms}
		for u := range nu {
			n := &tr.Nodes[tr.Child(0, u)]
			c.p[u], c.g[u] = float64(n.Visits), n.Average()
		}
		c.choice = tr.BestAction(o.ActionSelection)
		cols = append(cols, c)
	}

	// si: depth N.
	p, err := si.NewPlanner(m, &tk.si)
	if err != nil {
		return err
	}
	var res *si.Result
	ms, err = timed(reps, func() error {
		var err error
		res, err = p.Plan(context.Background(), qs)
		return err
	})
	if err != nil {
		return err
	}
	cols = append(cols, column{head: fmt.Sprintf("si depth %d", tk.n), p: res.ActionProbs, g: res.G, choice: argmax(res.ActionProbs), nodes: res.Nodes, ms: ms})

	fmt.Fprintf(w, "\n%s (%s): O0 = %s, N = %d\n", tk.name, strings.TrimPrefix(tk.file, "../../"), m.ObsName(obs), tk.n)
	if tk.si.PruneActions > 0 || tk.si.PruneOutcomes > 0 {
		fmt.Fprintf(w, "si prunes actions below %.4g and outcomes below %.4g\n", tk.si.PruneActions, tk.si.PruneOutcomes)
	}
	fmt.Fprintf(w, "  %-10s", "")
	for _, c := range cols {
		fmt.Fprintf(w, " %-18s", c.head)
	}
	fmt.Fprintf(w, "\n  %-10s", "action")
	for _, c := range cols {
		if c.visits {
			fmt.Fprintf(w, " %-18s", "    n        g")
		} else if strings.HasPrefix(c.head, "aci") {
			fmt.Fprintf(w, " %-18s", "    P    min G")
		} else {
			fmt.Fprintf(w, " %-18s", "    Q        G")
		}
	}
	fmt.Fprintln(w)
	for u := range nu {
		fmt.Fprintf(w, "  %-10s", m.ActionName(u))
		for _, c := range cols {
			if c.visits {
				fmt.Fprintf(w, " %5.0f %8.3f    ", c.p[u], c.g[u])
			} else {
				fmt.Fprintf(w, " %5.3f %8.3f    ", c.p[u], c.g[u])
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  %-10s", "choice")
	for _, c := range cols {
		fmt.Fprintf(w, " %-18s", m.ActionName(c.choice))
	}
	fmt.Fprintf(w, "\n  %-10s", "nodes")
	for _, c := range cols {
		fmt.Fprintf(w, " %-18d", c.nodes)
	}
	fmt.Fprintf(w, "\n  %-10s", "time")
	for _, c := range cols {
		fmt.Fprintf(w, " %-18s", fmt.Sprintf("%.2f ms", c.ms))
	}
	fmt.Fprintln(w)
	return nil
}

// theorem1 compares, on the tree BTAI grows with predictive inference,
// the classic cost and forward propagation, every node's aggregated cost
// with the expected free energy of the policy that leads to it.
func theorem1(w io.Writer, tk task) error {
	m, obs, qs, err := first(tk)
	if err != nil {
		return err
	}
	o := btai.DefaultOptions()
	o.Inference, o.Cost, o.Propagation = btai.Predictive, btai.Classic, btai.Forward
	ag, err := btaiPlan(m, obs, o)
	if err != nil {
		return err
	}
	tr := ag.Tree()
	worst, deepest := 0.0, 0
	for k := 1; k < len(tr.Nodes); k++ {
		path := tr.Path(nil, k)
		g, _, _, err := aci.ExpectedFreeEnergy(m, qs, path, nil)
		if err != nil {
			return err
		}
		worst = math.Max(worst, math.Abs(tr.Nodes[k].Aggregated-g))
		deepest = max(deepest, len(path))
	}
	fmt.Fprintf(w, "  %-8s %6d %8d  %s\n", tk.name, len(tr.Nodes)-1, deepest, below(worst))
	return nil
}

// backward builds the full tree of depth N with BTAI's own tree (every
// node expanded, predictive beliefs, the classic cost), propagates each
// expansion backward as BTAI does, and compares at the root's children:
// BTAI's aggregated cost (every descendant's cost added, unweighted), the
// same recursion with SI's weights Q(u) = softmax(-gamma G) over the
// children, and SI's G, whose recursion also branches on the outcomes
// with their probabilities Q(o | u) and the beliefs they lead to.
func backward(w io.Writer, tk task) error {
	m, _, qs, err := first(tk)
	if err != nil {
		return err
	}
	nu := m.NumActions()
	var tr btai.Tree
	tr.Reset(nu, nil)
	beliefs := [][]float64{qs}
	costs := make([]float64, nu)
	// Breadth first: the nodes of depth < N in index order.
	for k := 0; k < len(tr.Nodes); k++ {
		if tr.Nodes[k].Depth == tk.n {
			continue
		}
		kids := make([][]float64, nu)
		for u := range nu {
			kids[u] = make([]float64, m.NumStates())
			pomdp.Propagate(m, kids[u], beliefs[k], u)
			r, a, _ := pomdp.StepCost(m, kids[u], nil)
			costs[u] = r + a
		}
		tr.AddChildren(k, costs)
		tr.Propagate(k, btai.Backward)
		beliefs = append(beliefs, kids...)
	}
	// The recursion G_J = g_J + Σ_children G_I reproduces BTAI's numbers;
	// with SI's weights it is W_J = g_J + Σ_children Q(I) W_I.
	gamma := float64(si.DefaultGamma)
	worst := 0.0
	var weighted func(k int) float64
	weighted = func(k int) float64 {
		n := &tr.Nodes[k]
		if n.FirstChild < 0 {
			return n.Local
		}
		sum := n.Local
		ws := make([]float64, nu)
		for u := range nu {
			c := tr.Child(k, u)
			sum += tr.Nodes[c].Aggregated
			ws[u] = weighted(c)
		}
		worst = math.Max(worst, math.Abs(n.Aggregated-sum)/math.Max(1, math.Abs(sum)))
		q := softmax(ws, gamma)
		v := n.Local
		for u := range nu {
			v += q[u] * ws[u]
		}
		return v
	}
	res, err := si.Plan(context.Background(), m, qs, &si.Options{Depth: tk.n}) // unpruned
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nbackward propagation and SI, %s: the full tree of depth %d (%d nodes)\n", tk.name, tk.n, len(tr.Nodes))
	fmt.Fprintf(w, "  %-10s %12s %6s %9s %14s %9s\n", "action", "btai G_aggr", "n", "g", "Q(u)-weighted", "si G")
	gap := 0.0 // between the weighted recursion and SI
	for u := range nu {
		c := tr.Child(0, u)
		n := &tr.Nodes[c]
		wu := weighted(c)
		gap = math.Max(gap, math.Abs(wu-res.G[u]))
		fmt.Fprintf(w, "  %-10s %12.3f %6d %9.3f %14.3f %9.3f\n", m.ActionName(u), n.Aggregated, n.Visits, n.Average(), wu, res.G[u])
	}
	fmt.Fprintf(w, "  G_J = g_J + sum of the children's G_I, against BTAI's backward propagation: largest relative difference %s\n", below(worst))
	fmt.Fprintf(w, "  Q(u)-weighted against si (unpruned): largest |difference| %s\n", below(gap))
	return nil
}

func argmax(x []float64) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// softmax returns softmax(-gamma g).
func softmax(g []float64, gamma float64) []float64 {
	mx := math.Inf(-1)
	for _, x := range g {
		mx = math.Max(mx, -gamma*x)
	}
	q := make([]float64, len(g))
	z := 0.0
	for i, x := range g {
		q[i] = math.Exp(-gamma*x - mx)
		z += q[i]
	}
	for i := range q {
		q[i] /= z
	}
	return q
}
