package nodes

import (
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
)

// Interface indices of a Softmax node.
const (
	SoftmaxOut       = 0 // the policy variable pi (categorical over n policies)
	SoftmaxPrecision = 1 // the precision gamma (gamma variable)
)

// Softmax is the policy prior P(pi | gamma) = softmax(-gamma G) of classic
// active inference (paper eq. 2), for a fixed vector of expected free
// energies G. Its log-density
//
//	ln P(pi | gamma) = -gamma G_pi - ln sum_k exp(-gamma G_k)
//
// is not linear in gamma's sufficient statistics [ln gamma, gamma], so the
// node is not conjugate. As SPM does for the policy precision, the
// log-partition L(gamma) = ln sum_k exp(-gamma G_k) is replaced by its
// first-order expansion around the current posterior mean ḡ = E[gamma]:
//
//	L(gamma) ≈ L(ḡ) + (gamma - ḡ) L'(ḡ),  L'(ḡ) = -σ(-ḡ G)·G.
//
// Under that approximation the average energy is
//
//	E_q[-ln P] ≈ ḡ G·q(pi) + L(ḡ)
//
// and the hand-written rules are its gradients with respect to the expected
// statistics of each neighbour:
//
//	to pi:    -ḡ G                                   (categorical natural parameters)
//	to gamma: [0, σ(-ḡ G)·G - q(pi)·G]               (gamma natural parameters)
//
// so the posterior rate is the prior rate + (q(pi) - σ(-ḡ G))·G, SPM's
// update of the precision. Every update lowers the approximate F that the
// engine tracks. Because L is convex, the expansion is a lower bound on L,
// so against the exact F (the softmax energy integrated over q(gamma)) the
// update is not guaranteed to be a descent step: schedule's
// TestSoftmaxUpdateLowersExactF measures clear drops (0.06, 0.14) when the
// prior on gamma is far from the evidence, and a rise of 7e-9 when it is
// already close. The schedule reports any increase of the tracked F.
//
// NewSoftmaxExact gives the node the exact treatment instead (docs/models.md,
// "A precision shared across trials"): the energy keeps E_q[L(γ)] itself,
// computed by quadrature, so that F is the mean-field free energy of the
// model, and the precision is updated by non-conjugate VMP
// (ffg.GammaNonConjugate), which keeps every Gamma posterior valid and F
// non-increasing. SPM's rule adds (q(pi) - σ(-ḡ G))·G to the rate once per
// softmax factor; with several factors sharing one precision (trials of
// one subject) the sum can turn the rate negative, which the exact update
// cannot.
//
// NewSoftmaxCollapsed goes one step further (docs/models.md): the posterior
// keeps the policy conditional on the precision, q(γ) q(pi | γ), with
// q(pi | γ) ∝ softmax(-γ G) exp(m) for m the messages into pi from its
// other factors, so that pi is integrated out of the precision's update
// (collapsed variational Bayes). See Collapse.
type Softmax struct {
	g         []float64
	scratch   []float64
	ifs       []messages.Interface
	exact     bool
	collapsed bool
	m         []float64 // the messages into pi from its other factors (collapsed, once set)
	work      []float64
}

// NewSoftmax returns the policy prior for the expected free energies values
// (copied; finite, at least one).
func NewSoftmax(values []float64) (*Softmax, error) {
	if len(values) == 0 {
		return nil, fmt.Errorf("nodes: softmax: no values")
	}
	for i, x := range values {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("nodes: softmax values[%d]: %v is not finite", i, x)
		}
	}
	n := len(values)
	return &Softmax{
		g:       append([]float64(nil), values...),
		scratch: make([]float64, n),
		ifs: []messages.Interface{
			{Name: "out", Family: expfam.CategoricalFamily, Shape: []int{n}},
			{Name: "precision", Family: expfam.GammaFamily},
		},
	}, nil
}

// NewSoftmaxExact is NewSoftmax with the exact treatment of the precision
// (see Softmax).
func NewSoftmaxExact(values []float64) (*Softmax, error) {
	s, err := NewSoftmax(values)
	if err != nil {
		return nil, err
	}
	s.exact = true
	return s, nil
}

// NewSoftmaxCollapsed is NewSoftmax with the collapsed treatment of the
// precision (see Softmax and Collapse). Until the graph first collapses
// the node (the first update of pi), it behaves as NewSoftmaxExact.
func NewSoftmaxCollapsed(values []float64) (*Softmax, error) {
	s, err := NewSoftmaxExact(values)
	if err != nil {
		return nil, err
	}
	s.collapsed = true
	s.work = make([]float64, len(values))
	return s, nil
}

// CollapsesOutput reports whether the node keeps pi conditional on γ
// (NewSoftmaxCollapsed); ffg.GammaCollapsed.
func (s *Softmax) CollapsesOutput() bool { return s.collapsed }

// Collapse sets q(pi | γ) ∝ softmax(-γ G + m) for the messages m into pi
// from its other factors (copied), and writes the marginal
// q(pi) = E_q(γ)[softmax(-γ G + m)] into dst by quadrature over q. It is
// the optimal conditional given m, so the free energy does not increase.
// From then on the node's energy and its message to the precision are the
// collapsed ones:
//
//	to gamma:   no linear part; r(γ) = L(γ) - M(γ), M(γ) = ln Σ_k exp(-γ G_k + m_k)
//	energy:     q(pi)·m + E_q[L(γ) - M(γ)] + H[q(pi)]
//
// (with the energies of pi's other factors, -q(pi)·m up to a constant, and
// pi's entropy, -H[q(pi)], this is E[-ln P(pi | γ)] - E_q(γ) H[q(pi | γ)]:
// the free energy of the structured posterior). It returns false, keeping
// the node as it was, for a node that is not collapsed or when no
// marginal exists (every m_k is -Inf: evidence of probability 0).
func (s *Softmax) Collapse(dst, m []float64, q expfam.Gamma) bool {
	if !s.collapsed {
		return false
	}
	q.ExpectVec(dst, s.work, func(gamma float64, out []float64) {
		for i, x := range s.g {
			out[i] = -gamma*x + m[i]
		}
		expfam.Softmax(out, out)
	})
	for _, p := range dst {
		if !(p >= 0 && p <= 1) { // NaN: every m_k is -Inf (impossible evidence)
			return false
		}
	}
	s.m = append(s.m[:0], m...)
	return true
}

// Uncollapse forgets the messages set by Collapse: the node is as new
// (ffg.Graph.ResetPosteriors).
func (s *Softmax) Uncollapse() { s.m = s.m[:0] }

// isCollapsed reports whether Collapse has set the messages.
func (s *Softmax) isCollapsed() bool { return s.collapsed && len(s.m) > 0 }

// collapsedR returns r(γ) = L(γ) - M(γ) (see Collapse).
func (s *Softmax) collapsedR(gamma float64) float64 {
	l, mx := math.Inf(-1), math.Inf(-1)
	for i, x := range s.g {
		l = math.Max(l, -gamma*x)
		mx = math.Max(mx, -gamma*x+s.m[i])
	}
	sl, sm := 0.0, 0.0
	for i, x := range s.g {
		sl += math.Exp(-gamma*x - l)
		sm += math.Exp(-gamma*x + s.m[i] - mx)
	}
	return l + math.Log(sl) - mx - math.Log(sm)
}

// Exact reports whether the node treats the precision exactly
// (NewSoftmaxExact) rather than by SPM's linearisation.
func (s *Softmax) Exact() bool { return s.exact }

// Kind returns "softmax".
func (s *Softmax) Kind() string { return "softmax" }

// Interfaces returns [out, precision].
func (s *Softmax) Interfaces() []messages.Interface { return s.ifs }

// Rules names the interfaces with (hand-written) rules.
func (s *Softmax) Rules() []string { return []string{"out", "precision"} }

// Values returns G. The slice must not be modified.
func (s *Softmax) Values() []float64 { return s.g }

// logPartition returns L(ḡ) and writes σ(-ḡ G) into s.scratch.
func (s *Softmax) logPartition(gbar float64) float64 {
	for i, x := range s.g {
		s.scratch[i] = -gbar * x
	}
	return expfam.Softmax(s.scratch, s.scratch)
}

// Message writes the rule for interface k (see the type documentation).
func (s *Softmax) Message(dst []float64, k int, stats [][]float64) error {
	if len(stats) != 2 {
		return fmt.Errorf("nodes: softmax: %d neighbour statistics for 2 interfaces", len(stats))
	}
	gbar := stats[SoftmaxPrecision][1]
	switch k {
	case SoftmaxOut:
		for i, x := range s.g {
			dst[i] = -gbar * x
		}
	case SoftmaxPrecision:
		if s.isCollapsed() {
			dst[0], dst[1] = 0, 0 // everything is in r(γ) (NonConjugate)
			return nil
		}
		if s.exact {
			// The linear part, -γ G·q(pi); E_q[L(γ)] is NonConjugate's.
			dot := 0.0
			for i, x := range s.g {
				dot -= stats[SoftmaxOut][i] * x
			}
			dst[0], dst[1] = 0, dot
			return nil
		}
		s.logPartition(gbar)
		dot := 0.0
		for i, x := range s.g {
			dot += (s.scratch[i] - stats[SoftmaxOut][i]) * x
		}
		dst[0], dst[1] = 0, dot
	default:
		return &messages.NoRuleError{Factor: "softmax", Interface: fmt.Sprintf("#%d", k), Rules: s.Rules()}
	}
	return nil
}

// AverageEnergy returns ḡ G·q(pi) + L(ḡ), the first-order approximation of
// E_q[-ln P(pi | gamma)]; with the exact treatment ḡ G·q(pi) + E_q[L(γ)],
// E_q[-ln P(pi | gamma)] itself, by quadrature over q(γ) (recovered from
// its expected statistics).
func (s *Softmax) AverageEnergy(stats [][]float64) float64 {
	gbar := stats[SoftmaxPrecision][1]
	if s.isCollapsed() {
		if q, err := expfam.GammaFromStats(stats[SoftmaxPrecision][0], gbar); err == nil {
			e := q.Expect(s.collapsedR).E
			for i, p := range stats[SoftmaxOut] {
				if p > 0 {
					e += p * (s.m[i] - math.Log(p))
				}
			}
			return e
		}
	}
	e := 0.0
	for i, x := range s.g {
		if q := stats[SoftmaxOut][i]; q != 0 {
			e += q * x
		}
	}
	if s.exact {
		if q, err := expfam.GammaFromStats(stats[SoftmaxPrecision][0], gbar); err == nil {
			return gbar*e + q.Expect(s.partition).E
		}
	}
	return gbar*e + s.logPartition(gbar)
}

// partition returns L(γ) = ln Σ_k exp(-γ G_k).
func (s *Softmax) partition(gamma float64) float64 {
	return s.logPartition(gamma)
}

// NonConjugateAt reports whether the node is not conjugate at interface k:
// the precision of the exact or collapsed node (ffg.GammaNonConjugate).
func (s *Softmax) NonConjugateAt(k int) bool { return s.exact && k == SoftmaxPrecision }

// NonConjugate returns, for the precision interface of the exact node, the
// moments of L(γ) under q (of r(γ) = L(γ) - M(γ) once collapsed) (ffg.GammaNonConjugate); ok is false otherwise.
func (s *Softmax) NonConjugate(k int, stats [][]float64, q expfam.Gamma) (expfam.GammaMoments, bool) {
	if !s.NonConjugateAt(k) {
		return expfam.GammaMoments{}, false
	}
	if s.isCollapsed() {
		return q.Expect(s.collapsedR), true
	}
	return q.Expect(s.partition), true
}
