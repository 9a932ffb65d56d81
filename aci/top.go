package aci

import (
	"context"
	"errors"
	"fmt"
	"math"

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
	default:
		l.sum += math.Exp(x - l.max)
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
	if ctx == nil {
		ctx = context.Background()
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
	k = min(k, n)
	nu := m.NumActions()
	stride := n / nu // policies per first action
	heap := make([]RankedPolicy, 0, k)
	perAction := make([]lse, nu)
	for u := range perAction {
		perAction[u].max = math.Inf(-1)
	}

	err = newDFS(m, qs, horizon, w).run(ctx, func(i int, r, a, nv float64) {
		g := r + a - nv
		perAction[i/stride].add(-gamma * g)
		e := RankedPolicy{Index: i, G: g, Risk: r, Ambiguity: a, Novelty: nv}
		if len(heap) < k {
			heap = append(heap, e)
			siftUp(heap, len(heap)-1)
			return
		}
		if !worse(&heap[0], &e) {
			return
		}
		heap[0] = e
		siftDown(heap, 0)
	})
	if err != nil {
		return nil, apiError(err)
	}

	total := lse{max: math.Inf(-1)}
	lu := make([]float64, nu)
	for u := range perAction {
		lu[u] = perAction[u].value()
		total.add(lu[u])
	}
	res := &Ranking{NumPolicies: n, LogNorm: total.value(), ActionProbs: make([]float64, nu)}
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
	best := make([]RankedPolicy, len(heap))
	for j := len(heap) - 1; j >= 0; j-- {
		best[j] = heap[0]
		last := len(heap) - 1
		heap[0] = heap[last]
		heap = heap[:last]
		siftDown(heap, 0)
	}
	flat := make([]int, len(best)*horizon)
	for j := range best {
		b := &best[j]
		b.Policy = DecodePolicy(flat[j*horizon:(j+1)*horizon:(j+1)*horizon], b.Index, nu, horizon)
		if allInf {
			b.QPi = 1 / float64(n)
			continue
		}
		b.QPi = math.Exp(-gamma*b.G - res.LogNorm)
	}
	res.Best = best
	return res, nil
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
