package aci

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/pomdp"
)

// MaxPolicies is the largest number of policies (|U|^T) that
// EvaluatePolicies materialises; use TopPolicies beyond it.
const MaxPolicies = 1 << 22

// nsPerUnit is the measured time of one unit of policy-walk work (one
// multiply-add of the state propagation or of the predicted observations):
// BenchmarkTopPolicies on a dense 30-state, 30-observation, 5-action model
// takes 1.0-1.25 ns per unit at horizons 6 to 8 (docs/benchmarks.md); the
// estimate uses the upper end.
const nsPerUnit = 1.25

// EstimatePlanSeconds estimates the time of one scoring of every policy of
// length horizon for model m (EvaluatePolicies, TopPolicies, one step of
// Agent.Act): the depth-first walk evaluates Σ_(d=1..T) |U|^d nodes, each a
// propagation by B (|S|² multiply-adds) and a prediction by A (|O| |S|),
// at nsPerUnit each. It is +Inf when the count overflows float64, and 0
// for a horizon < 1 (no policy to score). It panics if m is nil or not a
// valid model (pomdp.Check): a programming error, since pomdp.New, Parse
// and Load return an error instead of an invalid model.
func EstimatePlanSeconds(m *pomdp.Model, horizon int) float64 {
	if err := pomdp.Check(m); err != nil {
		panic("aci: EstimatePlanSeconds: " + err.Error())
	}
	nu := float64(m.NumActions())
	nodes, level := 0.0, 1.0
	for range horizon {
		level *= nu
		nodes += level
	}
	return nodes * m.StepWork() * nsPerUnit * 1e-9
}

// NumPolicies returns |U|^T for numActions = |U| and horizon = T. It returns
// an error when horizon < 1, numActions < 1, or |U|^T exceeds limit.
func NumPolicies(numActions, horizon, limit int) (int, error) {
	if horizon < 1 {
		return 0, fmt.Errorf("aci: horizon: %d, want >= 1", horizon)
	}
	if numActions < 1 {
		return 0, fmt.Errorf("aci: number of actions: %d, want >= 1", numActions)
	}
	n := 1
	for range horizon {
		if n > limit/numActions {
			return 0, fmt.Errorf("aci: horizon: %d actions ^ horizon %d policies exceeds the limit %d", numActions, horizon, limit)
		}
		n *= numActions
	}
	return n, nil
}

// DecodePolicy writes policy number i (lexicographic order, first action
// varying slowest) of length horizon over numActions actions into dst, which
// is allocated when nil or too short, and returns it: the base-|U| digits of
// i, most significant first. It panics if numActions < 1, horizon < 0, or
// i is out of range [0, numActions^horizon) (when numActions^horizon fits
// in an int): programming errors.
func DecodePolicy(dst []int, i, numActions, horizon int) []int {
	if numActions < 1 || horizon < 0 {
		panic(fmt.Sprintf("aci: DecodePolicy: %d actions, horizon %d, want >= 1 and >= 0", numActions, horizon))
	}
	if cap(dst) < horizon {
		dst = make([]int, horizon)
	}
	dst = dst[:horizon]
	if i < 0 {
		panic(fmt.Sprintf("aci: DecodePolicy: negative index %d", i))
	}
	for t := horizon - 1; t >= 0; t-- {
		dst[t] = i % numActions
		i /= numActions
	}
	if i != 0 {
		panic(fmt.Sprintf("aci: DecodePolicy: index out of range [0, %d^%d)", numActions, horizon))
	}
	return dst
}

// EncodePolicy is the inverse of DecodePolicy. It panics if an action is out
// of range [0, numActions) or the index does not fit in an int (a policy
// longer than a horizon whose |U|^T does): programming errors.
func EncodePolicy(policy []int, numActions int) int {
	i := 0
	for _, u := range policy {
		if u < 0 || u >= numActions {
			panic(fmt.Sprintf("aci: EncodePolicy: action %d out of range [0, %d)", u, numActions))
		}
		if i > (math.MaxInt-u)/numActions {
			panic(fmt.Sprintf("aci: EncodePolicy: %d actions ^ %d steps overflows int", numActions, len(policy)))
		}
		i = i*numActions + u
	}
	return i
}

// PolicySet holds the expected free energy of every policy of a horizon, in
// lexicographic order (first action varies slowest): policy i is
// DecodePolicy(nil, i, NumActions, Horizon). EvaluatePolicies makes one;
// the methods of one assembled by hand panic, as DecodePolicy does, when
// NumActions < 1 or Horizon < 0 (Posterior and Len excepted).
type PolicySet struct {
	NumActions, Horizon int

	// G, Risk and Ambiguity have |U|^T entries; G = Risk + Ambiguity -
	// Novelty. Novelty is nil unless EFEOptions.Novelty was set.
	G, Risk, Ambiguity, Novelty []float64
}

// Len returns the number of policies, |U|^T.
func (ps *PolicySet) Len() int { return len(ps.G) }

// Policy returns policy i in dst (see DecodePolicy). It panics if i is out
// of range [0, Len()).
func (ps *PolicySet) Policy(dst []int, i int) []int {
	return DecodePolicy(dst, i, ps.NumActions, ps.Horizon)
}

// Policies materialises every policy as a [][]int (one backing array).
func (ps *PolicySet) Policies() [][]int {
	n, t := ps.Len(), ps.Horizon
	flat := make([]int, n*t)
	out := make([][]int, n)
	for i := range out {
		out[i] = DecodePolicy(flat[i*t:(i+1)*t:(i+1)*t], i, ps.NumActions, t)
	}
	return out
}

// Posterior returns q_pi = softmax(-gamma G) in dst (allocated when nil or
// too short). It returns an error when gamma is not finite and > 0.
//
// A policy with G = +Inf (C gives probability 0 to an outcome it can reach)
// is handled as the limit M -> +Inf of softmax(-gamma min(G, M)): it gets
// q_pi = 0 when some policy has a finite G, and when every policy has
// G = +Inf they tie and q_pi is uniform (package documentation, "Zeros in C").
func (ps *PolicySet) Posterior(dst []float64, gamma float64) ([]float64, error) {
	if err := checkGamma("gamma", gamma); err != nil {
		return nil, apiError(err)
	}
	n := ps.Len()
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	mx := math.Inf(-1)
	for i, g := range ps.G {
		dst[i] = -gamma * g
		mx = math.Max(mx, dst[i])
	}
	if math.IsInf(mx, -1) {
		for i := range dst {
			dst[i] = 1 / float64(n)
		}
		return dst, nil
	}
	if math.IsNaN(mx) {
		return nil, errors.New("aci: expected free energy NaN")
	}
	sum := 0.0
	for i, x := range dst {
		dst[i] = math.Exp(x - mx)
		sum += dst[i]
	}
	for i := range dst {
		dst[i] /= sum
	}
	return dst, nil
}

// ActionProbs returns the action marginal (Bayesian model average, paper
// section 4 "Action selection"): dst[u] = sum of qpi over the policies whose
// first action is u. dst is allocated when nil or too short. It panics if
// len(qpi) != ps.Len(), or ps.NumActions < 1 or does not divide ps.Len().
func (ps *PolicySet) ActionProbs(dst, qpi []float64) []float64 {
	if len(qpi) != ps.Len() {
		panic(fmt.Sprintf("aci: ActionProbs: len(qpi) = %d, want %d", len(qpi), ps.Len()))
	}
	u := ps.NumActions
	if u < 1 || len(qpi)%u != 0 {
		panic(fmt.Sprintf("aci: ActionProbs: %d policies for %d actions", len(qpi), u))
	}
	if cap(dst) < u {
		dst = make([]float64, u)
	}
	dst = dst[:u]
	clear(dst)
	stride := len(qpi) / u // policies per first action
	for i, q := range qpi {
		dst[i/stride] += q
	}
	return dst
}

func checkGamma(field string, gamma float64) error {
	if math.IsNaN(gamma) || math.IsInf(gamma, 0) || gamma <= 0 {
		return fmt.Errorf("%s: %v, want finite > 0", field, gamma)
	}
	return nil
}

// dfs walks the policy tree depth first without materialising it. It keeps
// one state belief per depth (bel[d] = Q(s_d|pi_{1..d})) and the cumulative
// risk, ambiguity and novelty along the current path, so a prefix shared by
// several policies is computed once: the walk costs sum_{d=1..T} |U|^d steps
// and O(T |S|) memory. Its steps are pomdp.Stepper's (the model's compact
// tensors). A dfs is one goroutine's: walk gives each worker its own.
type dfs struct {
	st               *pomdp.Stepper
	horizon          int
	w                []float64 // novelty weights or nil
	bel              []float64 // (T+1) * |S|, then run's memo of siblings: T * |S| and 5T
	cumR, cumA, cumN []float64 // T+1
	idx              []int     // current action per depth
	checkEvery       int       // policies between two looks at the context
	reused           int       // step costs run took from a sibling
}

func newDFS(m *pomdp.Model, qs []float64, horizon int, w []float64) *dfs {
	// One array for the numbers a walk writes at every step, with a cache
	// line (8 numbers) to spare at both ends, so that two workers' never
	// share one.
	nb := (2*horizon+1)*m.NumStates() + 5*horizon
	buf := make([]float64, 8+nb+3*(horizon+1)+8)[8:]
	idx := make([]int, 8+horizon+8)[8:]
	d := &dfs{
		st: pomdp.NewStepper(m), horizon: horizon, w: w,
		bel:  buf[:nb:nb],
		cumR: buf[nb : nb+horizon+1 : nb+horizon+1],
		cumA: buf[nb+horizon+1 : nb+2*(horizon+1) : nb+2*(horizon+1)],
		cumN: buf[nb+2*(horizon+1) : nb+3*(horizon+1) : nb+3*(horizon+1)],
		idx:  idx[:horizon:horizon],

		checkEvery: checkInterval(m.StepWork()),
	}
	copy(d.bel, qs)
	return d
}

// run calls visit for every policy in lexicographic order with its index
// and its total risk, ambiguity and novelty. run does not allocate.
//
// It checks ctx every cancelEvery policies and returns ctx's error, having
// visited only some, when ctx is done.
func (d *dfs) run(ctx context.Context, visit func(i int, risk, amb, nov float64)) error {
	return d.sub(ctx, 0, 0, 0, func(_, _, i int, r, a, n float64) { visit(i, r, a, n) })
}

// visitor receives the policies of a walk: visit(j, c, i, ...) for
// policy i of chunk c, walked by worker j.
type visitor = func(j, c, i int, risk, amb, nov float64)

// sub is run over the policies of chunk c of depth L (walker's chunks), for
// worker j: those
// whose first L actions are the base-|U| digits of c, indices c |U|^(T-L)
// to (c+1) |U|^(T-L) - 1. The L steps of the prefix are computed as run
// computes them, so every policy's numbers are the same bit for bit
// whatever the chunks. L = 0 is the whole tree.
func (d *dfs) sub(ctx context.Context, L, c, j int, v visitor) error {
	st, T := d.st, d.horizon
	m := st.Model()
	ns, nu := m.NumStates(), m.NumActions()
	idx := d.idx
	clear(idx)
	leaf, chunk := c, c
	for l := L - 1; l >= 0; l-- {
		idx[l] = c % nu
		c /= nu
	}
	onePass := st.OnePass() && d.w == nil // leaves by ChildCost
	for l := range L {
		here, prev := d.bel[(l+1)*ns:(l+2)*ns], d.bel[l*ns:(l+1)*ns]
		var r, a, n float64
		if l+1 == T && onePass {
			r, a, n = st.ChildCost(prev, idx[l], nil)
		} else {
			st.Propagate(here, prev, idx[l])
			r, a, n = st.StepCost(here, d.w)
		}
		d.cumR[l+1] = d.cumR[l] + r
		d.cumA[l+1] = d.cumA[l] + a
		d.cumN[l+1] = d.cumN[l] + n
	}
	if L == T {
		v(j, chunk, leaf, d.cumR[T], d.cumA[T], d.cumN[T])
		return nil
	}
	for range T - L {
		leaf *= nu
	}
	// Every level below the root has two beliefs, bel's and alt's; side
	// says which holds the current child, the other the sibling before it.
	// A sibling whose predicted belief is the same as the one before, bit
	// for bit (an action that changes nothing where another also changes
	// nothing, as in an absorbing state), takes its step cost instead of
	// computing the predicted outcomes and their logs again.
	alt, memo := d.bel[(T+1)*ns:(2*T+1)*ns], d.bel[(2*T+1)*ns:]
	lastR, lastA, lastN := memo[:T], memo[T:2*T], memo[2*T:3*T]
	lastOK := memo[3*T : 4*T] // 1 when the level holds a child of the current node
	side := memo[4*T : 5*T]   // side[l-1]: 1 when alt holds level l's current belief
	clear(lastOK)
	clear(side)
	depth := L // position of the action being applied
	seen := 0
	for {
		// Child of the node at depth `depth` through action idx[depth].
		prev := d.bel[depth*ns : (depth+1)*ns]
		if depth > 0 && side[depth-1] == 1 {
			prev = alt[(depth-1)*ns : depth*ns]
		}
		here, there := d.bel[(depth+1)*ns:(depth+2)*ns], alt[depth*ns:(depth+1)*ns]
		if side[depth] == 1 {
			here, there = there, here
		}
		var r, a, n float64
		switch {
		case depth+1 == T && onePass:
			// A leaf: its cost without its belief, which no child needs.
			r, a, n = st.ChildCost(prev, idx[depth], nil)
		case lastOK[depth] == 1:
			// here holds the sibling before: the child goes there.
			st.Propagate(there, prev, idx[depth])
			side[depth] = 1 - side[depth]
			if sameBits(there, here) {
				r, a, n = lastR[depth], lastA[depth], lastN[depth]
				d.reused++
			} else {
				r, a, n = st.StepCost(there, d.w)
				lastR[depth], lastA[depth], lastN[depth] = r, a, n
			}
		default:
			st.Propagate(here, prev, idx[depth])
			r, a, n = st.StepCost(here, d.w)
			lastR[depth], lastA[depth], lastN[depth], lastOK[depth] = r, a, n, 1
		}
		d.cumR[depth+1] = d.cumR[depth] + r
		d.cumA[depth+1] = d.cumA[depth] + a
		d.cumN[depth+1] = d.cumN[depth] + n
		if depth+1 < T {
			depth++
			idx[depth] = 0
			lastOK[depth] = 0 // the first child of a new node
			continue
		}
		v(j, chunk, leaf, d.cumR[T], d.cumA[T], d.cumN[T])
		leaf++
		seen++
		if seen%d.checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		// Next sibling, backtracking past exhausted levels.
		for depth >= L {
			idx[depth]++
			if idx[depth] < nu {
				break
			}
			depth--
		}
		if depth < L {
			return nil
		}
	}
}

// sameBits reports whether x and y hold the same numbers bit for bit.
func sameBits(x, y []float64) bool {
	for i, v := range x {
		if math.Float64bits(v) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

// cancelWork is the work (multiply-adds, see EstimatePlanSeconds) between
// two looks of the depth-first walk at its context: 3e7, about 40 ms.
// checkEvery turns it into policies for the model at hand: 16,384 (the
// most) on a 30-state model, 27 on a 1,024-state maze, so that an
// interrupt is seen well within a second whatever the model.
const cancelWork = 3e7

// checkInterval returns the policies between two context checks for a model
// whose future step costs unit multiply-adds (Model.StepWork).
func checkInterval(unit float64) int {
	return max(1, min(1<<14, int(cancelWork/unit)))
}

// prepare validates the common arguments of EvaluatePolicies and
// TopPolicies.
func prepare(m *pomdp.Model, qs []float64, horizon, limit int, opts *EFEOptions) (n int, w []float64, err error) {
	if err := pomdp.Check(m); err != nil {
		return 0, nil, err
	}
	if err := pomdp.CheckBelief(m, "qs", qs); err != nil {
		return 0, nil, err
	}
	if n, err = NumPolicies(m.NumActions(), horizon, limit); err != nil {
		return 0, nil, err
	}
	if w, err = noveltyWeights(m, opts); err != nil {
		return 0, nil, err
	}
	return n, w, nil
}

// EvaluatePolicies computes the expected free energy (risk, ambiguity and
// optionally novelty, see ExpectedFreeEnergy) of all |U|^T policies of
// length horizon from the state belief qs, in lexicographic order (first
// action varies slowest). It walks the policy tree depth first, sharing
// prefixes, with O(T |S|) working memory besides the output. The horizon must
// be >= 1 and |U|^T at most MaxPolicies.
func EvaluatePolicies(m *pomdp.Model, qs []float64, horizon int, opts *EFEOptions) (*PolicySet, error) {
	return apiResult(EvaluatePoliciesContext(context.Background(), m, qs, horizon, opts))
}

// EvaluatePoliciesContext is EvaluatePolicies that stops with ctx's error
// when ctx is done (a nil ctx is context.Background()).
func EvaluatePoliciesContext(ctx context.Context, m *pomdp.Model, qs []float64, horizon int, opts *EFEOptions) (*PolicySet, error) {
	return apiResult(evaluatePolicies(ctx, new(walker), m, qs, horizon, opts, nil))
}

// evaluatePolicies is EvaluatePoliciesContext with the walker wk, whose
// buffers an agent keeps from one decision to the next (walker.reset
// makes them again only for another model or horizon), writing into dst
// (its slices reused when their capacity suffices) or, when dst is nil,
// a new PolicySet.
func evaluatePolicies(ctx context.Context, wk *walker, m *pomdp.Model, qs []float64, horizon int, opts *EFEOptions, dst *PolicySet) (*PolicySet, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	n, w, err := prepare(m, qs, horizon, MaxPolicies, opts)
	if err != nil {
		return nil, apiError(err)
	}
	ps := dst
	if ps == nil {
		ps = new(PolicySet)
	}
	old := *ps
	*ps = PolicySet{
		NumActions: m.NumActions(), Horizon: horizon,
		G: sized(old.G, n), Risk: sized(old.Risk, n), Ambiguity: sized(old.Ambiguity, n),
	}
	if w != nil {
		ps.Novelty = sized(old.Novelty, n)
	}
	jobs := opts.jobs()
	wk.reset(m, qs, horizon, w, jobs)
	err = wk.run(ctx, chunkDepth(m, horizon), jobs, wk.filler(ps))
	wk.ps = nil
	if err != nil {
		return nil, apiError(err)
	}
	return ps, nil
}
