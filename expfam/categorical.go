package expfam

import (
	"math"
	"strconv"
)

// Categorical is a distribution over {0, …, K-1} with probabilities P.
// Its sufficient statistic is T(x) = one-hot(x), its natural parameter is
// ln p and its mean parameter (expected sufficient statistic) is p itself.
// The log-normaliser of a natural parameter η is LogSumExp(η).
//
// The methods do not check that P is a distribution; see ValidateDistribution.
type Categorical struct {
	P []float64
}

// Entropy returns -Σ p ln p with 0 ln 0 = 0.
func (c Categorical) Entropy() float64 {
	var h float64
	for _, p := range c.P {
		if p > 0 {
			h -= p * math.Log(p)
		}
	}
	return h
}

// KL returns KL(c || q) = Σ c_i ln(c_i / q_i). Terms with c_i = 0 are 0 (also
// where q_i = 0); a term with c_i > 0 and q_i = 0 makes the result +Inf.
// KL panics if the lengths differ.
func (c Categorical) KL(q Categorical) float64 {
	if len(c.P) != len(q.P) {
		panic("expfam: Categorical.KL: length mismatch " + strconv.Itoa(len(c.P)) + " != " + strconv.Itoa(len(q.P)))
	}
	var kl float64
	for i, p := range c.P {
		if p == 0 {
			continue
		}
		if q.P[i] == 0 {
			return math.Inf(1)
		}
		kl += p * (math.Log(p) - math.Log(q.P[i]))
	}
	return kl
}

// Natural writes the natural parameters ln p into dst (ln 0 = -Inf) and returns
// dst; it allocates when dst is nil and panics if len(dst) != len(c.P).
func (c Categorical) Natural(dst []float64) []float64 {
	dst = makeDst(dst, len(c.P), "Categorical.Natural")
	for i, p := range c.P {
		dst[i] = math.Log(p)
	}
	return dst
}

// Mean writes a copy of p, the expected sufficient statistics, into dst and
// returns dst; it allocates when dst is nil and panics if len(dst) != len(c.P).
func (c Categorical) Mean(dst []float64) []float64 {
	dst = makeDst(dst, len(c.P), "Categorical.Mean")
	copy(dst, c.P)
	return dst
}

// LogSumExp returns ln Σ exp(eta_i), computed without overflow or underflow by
// factoring out the largest entry. It is the log-normaliser of a categorical
// distribution with natural parameter eta. Following the mathematics, it
// returns -Inf when eta is empty or every entry is -Inf, +Inf when an entry is
// +Inf, and NaN when an entry is NaN.
func LogSumExp(eta []float64) float64 {
	m, im, ok := maxEntry(eta)
	if !ok {
		return math.NaN()
	}
	if math.IsInf(m, 0) {
		return m // -Inf: all -Inf or empty; +Inf: some +Inf
	}
	var r float64 // Σ over i != im of exp(eta_i - m), each term <= 1
	for i, x := range eta {
		if i != im {
			r += math.Exp(x - m)
		}
	}
	return m + math.Log1p(r)
}

// CategoricalLogNormalizer returns the log-normaliser A(η) = LogSumExp(eta) of
// a categorical distribution with natural parameter eta.
func CategoricalLogNormalizer(eta []float64) float64 { return LogSumExp(eta) }

// Softmax writes exp(eta - logsumexp(eta)) into dst and returns logsumexp(eta),
// the log-normaliser of a categorical with natural parameter eta. Entries of
// -Inf give probability 0 and huge entries do not overflow.
//
// If eta is empty, every entry is -Inf, or any entry is NaN or +Inf, Softmax
// fills dst with NaN and returns NaN.
//
// dst may be eta itself (in-place softmax). When dst is nil only the
// log-normaliser is computed. Softmax panics if dst is not nil and
// len(dst) != len(eta). It does not allocate.
func Softmax(dst, eta []float64) (logZ float64) {
	if dst != nil && len(dst) != len(eta) {
		panic("expfam: Softmax: len(dst) = " + strconv.Itoa(len(dst)) + ", len(eta) = " + strconv.Itoa(len(eta)))
	}
	m, im, ok := maxEntry(eta)
	if !ok || math.IsInf(m, 0) {
		nan := math.NaN()
		for i := range dst {
			dst[i] = nan
		}
		return nan
	}
	var r float64 // Σ over i != im of exp(eta_i - m)
	if dst == nil {
		for i, x := range eta {
			if i != im {
				r += math.Exp(x - m)
			}
		}
		return m + math.Log1p(r)
	}
	for i, x := range eta {
		if i == im {
			dst[i] = 1
			continue
		}
		e := math.Exp(x - m)
		dst[i] = e // dst[i] may alias eta[i], which is no longer needed
		r += e
	}
	z := 1 + r
	for i := range dst {
		dst[i] /= z
	}
	return m + math.Log1p(r)
}

// maxEntry returns the largest entry of eta and its first index; ok is false
// when an entry is NaN. For an empty eta it returns -Inf, -1, true.
func maxEntry(eta []float64) (m float64, im int, ok bool) {
	m, im = math.Inf(-1), -1
	for i, x := range eta {
		if math.IsNaN(x) {
			return math.NaN(), -1, false
		}
		if x > m || im < 0 {
			m, im = x, i
		}
	}
	return m, im, true
}

// makeDst returns dst, or a new slice of length n when dst is nil; it panics
// if len(dst) != n.
func makeDst(dst []float64, n int, where string) []float64 {
	if dst == nil {
		return make([]float64, n)
	}
	if len(dst) != n {
		panic("expfam: " + where + ": len(dst) = " + strconv.Itoa(len(dst)) + ", want " + strconv.Itoa(n))
	}
	return dst
}
