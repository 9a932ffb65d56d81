package nodes_test

import (
	"math"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/nodes"
)

// gammaGrid integrates h against the Gamma(a, b) density by the midpoint
// rule on a fine grid in γ, independently of expfam's quadrature (which
// works in ln γ).
func gammaGrid(a, b float64, h func(gamma float64) float64) float64 {
	const n = 200000
	hi := (a + 40*math.Sqrt(a)) / b
	dx := hi / n
	lg, _ := math.Lgamma(a)
	num, den := 0.0, 0.0
	for i := range n {
		x := (float64(i) + 0.5) * dx
		w := math.Exp(a*math.Log(b) + (a-1)*math.Log(x) - b*x - lg)
		num += w * h(x)
		den += w
	}
	return num / den
}

// TestSoftmaxCollapsed checks the collapsed softmax against its
// definition, with q(γ) = Gamma(2.5, 1.5), G = (0.4, 2.1, 1.3) and the
// messages m = ln(0.85, 0.05, 0.1) into π from its other factors:
//
//   - before Collapse the node is NewSoftmaxExact (same messages, energy);
//   - Collapse writes q(π) = E_q(γ)[softmax(-γ G + m)], and the energy is
//     E_q(γ)[KL(q(π | γ) || softmax(-γ G))] + H[q(π)] (the definition in
//     the Softmax documentation, rewritten), both by a grid integration in
//     γ; the message to γ has no linear part and NonConjugate gives
//     E_q[L(γ) - M(γ)];
//   - after Uncollapse the node is NewSoftmaxExact again.
func TestSoftmaxCollapsed(t *testing.T) {
	G := []float64{0.4, 2.1, 1.3}
	m := []float64{math.Log(0.85), math.Log(0.05), math.Log(0.1)}
	q := expfam.Gamma{Shape: 2.5, Rate: 1.5}
	ex, _ := nodes.NewSoftmaxExact(G)
	sc, err := nodes.NewSoftmaxCollapsed(G)
	if err != nil {
		t.Fatal(err)
	}
	qpi := []float64{0.5, 0.2, 0.3}
	stats := [][]float64{qpi, q.ExpectedStats(nil)}
	same := func(when string) {
		t.Helper()
		if a, b := sc.AverageEnergy(stats), ex.AverageEnergy(stats); math.Abs(a-b) > 1e-12 {
			t.Errorf("%s: energy %.15f, exact node %.15f", when, a, b)
		}
		a, b := make([]float64, 2), make([]float64, 2)
		_ = sc.Message(a, nodes.SoftmaxPrecision, stats)
		_ = ex.Message(b, nodes.SoftmaxPrecision, stats)
		if a[0] != b[0] || a[1] != b[1] {
			t.Errorf("%s: message to γ %v, exact node %v", when, a, b)
		}
	}
	same("before Collapse")

	cond := func(gamma float64, k int) float64 { // q(π = k | γ)
		z := 0.0
		for i, x := range G {
			z += math.Exp(-gamma*x + m[i])
		}
		return math.Exp(-gamma*G[k]+m[k]) / z
	}
	prior := func(gamma float64, k int) float64 { // softmax(-γ G)_k
		z := 0.0
		for _, x := range G {
			z += math.Exp(-gamma * x)
		}
		return math.Exp(-gamma*G[k]) / z
	}
	marg := make([]float64, 3)
	if !sc.Collapse(marg, m, q) {
		t.Fatal("Collapse: false on a collapsed node")
	}
	for k := range marg {
		want := gammaGrid(q.Shape, q.Rate, func(g float64) float64 { return cond(g, k) })
		if math.Abs(marg[k]-want) > 1e-8 {
			t.Errorf("q(π = %d) = %.12f, grid %.12f", k, marg[k], want)
		}
	}
	stats[0] = marg
	wantE := gammaGrid(q.Shape, q.Rate, func(g float64) float64 {
		kl := 0.0
		for k := range G {
			c := cond(g, k)
			kl += c * math.Log(c/prior(g, k))
		}
		return kl
	})
	for _, p := range marg {
		wantE -= p * math.Log(p)
	}
	if e := sc.AverageEnergy(stats); math.Abs(e-wantE) > 1e-8 {
		t.Errorf("collapsed energy %.12f, grid %.12f", e, wantE)
	}
	msg := make([]float64, 2)
	_ = sc.Message(msg, nodes.SoftmaxPrecision, stats)
	if msg[0] != 0 || msg[1] != 0 {
		t.Errorf("collapsed message to γ %v, want no linear part", msg)
	}
	nc, ok := sc.NonConjugate(nodes.SoftmaxPrecision, stats, q)
	wantR := gammaGrid(q.Shape, q.Rate, func(g float64) float64 {
		l, mm := 0.0, 0.0
		for i, x := range G {
			l += math.Exp(-g * x)
			mm += math.Exp(-g*x + m[i])
		}
		return math.Log(l) - math.Log(mm)
	})
	if !ok || math.Abs(nc.E-wantR) > 1e-8 {
		t.Errorf("NonConjugate E = %.12f (ok %v), grid E[L - M] = %.12f", nc.E, ok, wantR)
	}

	sc.Uncollapse()
	stats[0] = qpi
	same("after Uncollapse")
	if ex.Collapse(marg, m, q) {
		t.Error("Collapse on an exact node reported true")
	}
}
