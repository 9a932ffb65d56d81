package aci

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/internal/fastexp"
	"github.com/arbor-ai/arbor/pomdp"
)

// RankedPolicy is one policy kept by TopPolicies.
type RankedPolicy struct {
	Index  int   // position in lexicographic order
	Policy []int // DecodePolicy(nil, Index, |U|, T)

	G, Risk, Ambiguity, Novelty float64
	QPi                         float64 // softmax(-gamma G) over all |U|^T policies
}

// Ranking is the result of TopPolicies.
type Ranking struct {
	NumPolicies int // |U|^T, all of which were scored
	// Best holds the k policies with the lowest G, ascending; ties are
	// broken by the lower index.
	Best []RankedPolicy
	// LogNorm is ln sum_pi exp(-gamma G_pi) over all policies, so that
	// q_pi = exp(-gamma G_pi - LogNorm). When every policy has G = +Inf it
	// is -Inf and q_pi is uniform, 1/NumPolicies (package documentation,
	// "Zeros in C").
	LogNorm float64
	// ActionProbs[u] is the sum of q_pi over all policies starting with u.
	ActionProbs []float64
}

// lse is a streaming log-sum-exp: ln sum exp(x) = max + ln(sum).
type lse struct{ max, sum float64 }

func (l *lse) add(x float64) {
	switch {
	case math.IsInf(x, -1):
	case x > l.max:
		l.sum = l.sum*math.Exp(l.max-x) + 1
		l.max = x
	case x-l.max > expZero:
		l.sum += fastexp.Exp(x - l.max)
	}
}

// expZero is a number below which math.Exp is 0 (the smallest positive
// float64 is e^-744.44): lse.add skips those terms, which would add 0.
const expZero = -746

// merge adds the terms of b to l: l's sum and b's, scaled to the larger
// maximum. An empty b leaves l as it was, and b merged into an empty l is
// b, bit for bit.
func (l *lse) merge(b lse) {
	switch {
	case b.sum == 0:
	case l.sum == 0:
		*l = b
	case b.max > l.max:
		l.sum = l.sum*math.Exp(l.max-b.max) + b.sum
		l.max = b.max
	default:
		l.sum += b.sum * math.Exp(b.max-l.max)
	}
}

func (l lse) value() float64 {
	if l.sum == 0 {
		return math.Inf(-1)
	}
	return l.max + math.Log(l.sum)
}

// worse orders heap entries: higher G, then higher index, is worse.
func worse(a, b *RankedPolicy) bool {
	if a.G != b.G {
		return a.G > b.G
	}
	return a.Index > b.Index
}

// TopPolicies scores all |U|^T policies of length horizon like
// EvaluatePolicies, in one streaming depth-first pass that stores neither the
// policy tree nor the |U|^T values: it keeps the k lowest-G policies in a
// bounded max-heap, a streaming log-sum-exp of -gamma G per first action for
// the normalisation of q_pi = softmax(-gamma G), and from those the action
// marginal. Memory is O(k T + T |S| + |U|). k is clamped to |U|^T; |U|^T must
// fit in an int. gamma must be finite and > 0, k >= 1.
func TopPolicies(m *pomdp.Model, qs []float64, horizon, k int, gamma float64, opts *EFEOptions) (*Ranking, error) {
	return apiResult(TopPoliciesContext(context.Background(), m, qs, horizon, k, gamma, opts))
}

// TopPoliciesContext is TopPolicies that stops with ctx's error when ctx
// is done (a nil ctx is context.Background()).
func TopPoliciesContext(ctx context.Context, m *pomdp.Model, qs []float64, horizon, k int, gamma float64, opts *EFEOptions) (*Ranking, error) {
	return apiResult(topPolicies(ctx, nil, m, qs, horizon, k, gamma, opts))
}

// topPolicies is TopPoliciesContext on the ranker rk (nil: a new one),
// whose Ranking it returns (valid until rk ranks again): an agent's
// DecideInto keeps its rankers, and a decision then allocates nothing.
func topPolicies(ctx context.Context, rk *ranker, m *pomdp.Model, qs []float64, horizon, k int, gamma float64, opts *EFEOptions) (*Ranking, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if rk == nil {
		rk = new(ranker)
	}
	n, w, err := prepare(m, qs, horizon, math.MaxInt, opts)
	if err != nil {
		return nil, apiError(err)
	}
	if k < 1 {
		return nil, fmt.Errorf("aci: k: %d, want >= 1", k)
	}
	if err := checkGamma("gamma", gamma); err != nil {
		return nil, apiError(err)
	}
	return rk.rank(ctx, m, qs, horizon, min(k, n), gamma, w, opts.jobs())
}

// ranker is TopPolicies' walk and what it keeps: a ranker used again
// reuses its buffers, and then allocates nothing but the goroutines of its
// walk. The Ranking it returns is its own, valid until the next rank.
type ranker struct {
	wk    walker
	acc   []lse // acc[c*span+u]: the log-sum-exp over chunk c's policies that start with u
	heaps []workerHeap
	lu    []float64
	res   Ranking
	flat  []int

	nu, stride, k int
	span          int // nu + accPad
	gamma         float64
	visitFn       visitor // visit, bound once
}

// visit takes policy i of chunk c from worker j.
func (rk *ranker) visit(j, c, i int, r, a, nv float64) {
	g := r + a - nv
	rk.acc[c*rk.span+i/rk.stride].add(-rk.gamma * g)
	h := &rk.heaps[j]
	h.h = keep(h.h, rk.k, RankedPolicy{Index: i, G: g, Risk: r, Ambiguity: a, Novelty: nv})
}

// accPad spaces the chunks' sums of ranker.acc so that two chunks, which
// two workers may be summing at once, never write to one cache line (64
// bytes, 4 lse).
const accPad = 4

// workerHeap is one worker's heap of the best policies, padded to two
// cache lines so that workers never write to the same one.
type workerHeap struct {
	h []RankedPolicy
	_ [128 - 24]byte
}

// grow returns x with length n, reusing its array when it can.
func grow[T any](x []T, n int) []T {
	if cap(x) < n {
		return make([]T, n)
	}
	return x[:n]
}

// rank is TopPolicies for valid arguments, k at most |U|^T, on jobs
// goroutines.
func (rk *ranker) rank(ctx context.Context, m *pomdp.Model, qs []float64, horizon, k int, gamma float64, w []float64, jobs int) (*Ranking, error) {
	fastexp.Init() // the tables of lse.add's exponentials, before the walk's goroutines start
	n, _ := NumPolicies(m.NumActions(), horizon, math.MaxInt)
	nu := m.NumActions()
	stride := n / nu // policies per first action
	rk.nu, rk.stride, rk.k, rk.gamma = nu, stride, k, gamma
	L := chunkDepth(m, horizon)
	nc := numChunks(nu, L)
	rk.span = nu + accPad
	rk.acc = grow(rk.acc, nc*rk.span)
	for i := range rk.acc {
		rk.acc[i] = lse{max: math.Inf(-1)}
	}
	jobs = max(1, min(jobs, nc))
	rk.heaps = grow(rk.heaps, jobs)
	for j := range rk.heaps {
		h := &rk.heaps[j]
		if cap(h.h) < k {
			h.h = make([]RankedPolicy, 0, k)
		}
		h.h = h.h[:0]
	}
	rk.wk.reset(m, qs, horizon, w, jobs)
	if rk.visitFn == nil {
		rk.visitFn = rk.visit
	}
	if err := rk.wk.run(ctx, L, jobs, rk.visitFn); err != nil {
		return nil, err
	}
	// The k best of the k best of every worker: the same policies, the
	// order being total (G, then the index).
	heap := rk.heaps[0].h
	for _, h := range rk.heaps[1:] {
		for _, e := range h.h {
			heap = keep(heap, k, e)
		}
	}

	total := lse{max: math.Inf(-1)}
	lu := grow(rk.lu, nu)
	rk.lu = lu
	for u := range lu {
		l := lse{max: math.Inf(-1)}
		for c := range nc {
			l.merge(rk.acc[c*rk.span+u])
		}
		lu[u] = l.value()
		total.add(lu[u])
	}
	res := &rk.res
	*res = Ranking{NumPolicies: n, LogNorm: total.value(), ActionProbs: grow(res.ActionProbs, nu), Best: grow(res.Best, len(heap))}
	allInf := math.IsInf(res.LogNorm, -1) // every G = +Inf: q_pi uniform (package documentation, "Zeros in C")
	if math.IsNaN(res.LogNorm) {
		return nil, errors.New("aci: expected free energy NaN")
	}
	for u := range lu {
		if allInf {
			res.ActionProbs[u] = float64(stride) / float64(n)
			continue
		}
		res.ActionProbs[u] = math.Exp(lu[u] - res.LogNorm)
	}
	// Sort ascending by popping the max-heap from the back.
	best := res.Best
	for j := len(heap) - 1; j >= 0; j-- {
		best[j] = heap[0]
		last := len(heap) - 1
		heap[0] = heap[last]
		heap = heap[:last]
		siftDown(heap, 0)
	}
	rk.flat = grow(rk.flat, len(best)*horizon)
	flat := rk.flat
	for j := range best {
		b := &best[j]
		b.Policy = DecodePolicy(flat[j*horizon:(j+1)*horizon:(j+1)*horizon], b.Index, nu, horizon)
		if allInf {
			b.QPi = 1 / float64(n)
			continue
		}
		b.QPi = math.Exp(-gamma*b.G - res.LogNorm)
	}
	return res, nil
}

// keep adds e to the max-heap h of at most k policies, the k best of
// those offered: e replaces the worst when it is better.
func keep(h []RankedPolicy, k int, e RankedPolicy) []RankedPolicy {
	if len(h) < k {
		h = append(h, e)
		siftUp(h, len(h)-1)
		return h
	}
	if worse(&h[0], &e) {
		h[0] = e
		siftDown(h, 0)
	}
	return h
}

func siftUp(h []RankedPolicy, j int) {
	for j > 0 {
		p := (j - 1) / 2
		if !worse(&h[j], &h[p]) {
			return
		}
		h[j], h[p] = h[p], h[j]
		j = p
	}
}

func siftDown(h []RankedPolicy, j int) {
	n := len(h)
	for {
		l := 2*j + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && worse(&h[r], &h[l]) {
			c = r
		}
		if !worse(&h[c], &h[j]) {
			return
		}
		h[j], h[c] = h[c], h[j]
		j = c
	}
}
