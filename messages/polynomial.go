package messages

import "fmt"

// Polynomial is the log-density of a conjugate factor over continuous (and
// categorical) neighbours written in its multilinear exponential-family
// form, a sum of products of single sufficient statistics, at most one per
// neighbour:
//
//	ln f = Σ_t c_t Π_(i in t) u_i[j_(t,i)] + Const,
//
// where u_i is the sufficient statistic of the neighbour on interface i
// ([x, x²] for a Normal, [ln g, g] for a gamma, one-hot z for a
// categorical). Because E_q[ln f] is then multilinear in the neighbours'
// expected statistics, the VMP message to neighbour k is its gradient with
// respect to E[u_k] (Winn & Bishop): for each term that contains u_k[j],
// the coefficient times the other factors' expectations, added at entry
// j. A Normal node's log-density
//
//	½ ln τ - ½ ln 2π - ½ τ x² + τ x m - ½ τ m²
//
// is such a form in (x, x²), (m, m²) and (ln τ, τ), with four terms, so its
// messages, average energy and sum-product potential all come from the
// terms; no rule is written per node or per interface.
//
// A Polynomial is read-only once built, and safe for concurrent use.
type Polynomial struct {
	n    int
	coef []float64 // one per term
	// Term t's factors are pairs[start[t]:start[t+1]], in the order of
	// their interfaces; byIf[i] lists the terms that contain interface i,
	// in term order, with the statistic they take of it. A term has a few
	// factors whatever the number of interfaces, so a message costs the
	// size of the terms that contain its interface, not of the form.
	start []int32
	pairs []pair
	byIf  [][]pair // (term, statistic)
	Const float64
}

// pair is (interface, statistic) of a factor of a term, or (term,
// statistic) in byIf.
type pair struct{ i, s int32 }

// NewPolynomial returns an empty form over n interfaces.
func NewPolynomial(n int) *Polynomial {
	return &Polynomial{n: n, start: []int32{0}, byIf: make([][]pair, n)}
}

// Term adds the term c · Π u_(iface)[stat] over the (interface, statistic)
// pairs given as iface, stat, iface, stat, ... It panics (a programming
// error of the node that builds the form) when the pairs are odd in number,
// name an interface out of range or the same interface twice.
func (p *Polynomial) Term(c float64, pairs ...int) *Polynomial {
	if len(pairs)%2 != 0 {
		panic("messages: Polynomial.Term: odd number of interface/statistic values")
	}
	at := len(p.pairs)
	for j := 0; j < len(pairs); j += 2 {
		k, s := pairs[j], pairs[j+1]
		if k < 0 || k >= p.n || s < 0 {
			p.pairs = p.pairs[:at]
			panic(fmt.Sprintf("messages: Polynomial.Term: pair (%d, %d) for %d interfaces", k, s, p.n))
		}
		// Insert in the order of the interfaces.
		q := len(p.pairs)
		p.pairs = append(p.pairs, pair{})
		for q > at && p.pairs[q-1].i > int32(k) {
			p.pairs[q] = p.pairs[q-1]
			q--
		}
		if q > at && p.pairs[q-1].i == int32(k) {
			p.pairs = p.pairs[:at]
			panic(fmt.Sprintf("messages: Polynomial.Term: pair (%d, %d) for %d interfaces", k, s, p.n))
		}
		p.pairs[q] = pair{int32(k), int32(s)}
	}
	t := int32(len(p.coef))
	for _, f := range p.pairs[at:] {
		p.byIf[f.i] = append(p.byIf[f.i], pair{t, f.s})
	}
	p.coef = append(p.coef, c)
	p.start = append(p.start, int32(len(p.pairs)))
	return p
}

// NumInterfaces returns the number of interfaces of the form.
func (p *Polynomial) NumInterfaces() int { return p.n }

// NumTerms returns the number of terms.
func (p *Polynomial) NumTerms() int { return len(p.coef) }

// At returns term t's coefficient and the statistic it takes of
// interface i (-1: the term does not contain that interface).
func (p *Polynomial) At(t, i int) (coef float64, stat int) {
	for _, f := range p.pairs[p.start[t]:p.start[t+1]] {
		if int(f.i) == i {
			return p.coef[t], int(f.s)
		}
	}
	return p.coef[t], -1
}

// Message writes into dst the VMP message to interface k, in the natural
// parameters of its family: dst[j] = Σ over terms containing u_k[j] of
// c_t Π_(i != k) E[u_i[j_(t,i)]]. stats holds the neighbours' expected
// statistics by interface. It visits only the terms that contain u_k, and
// does not allocate.
func (p *Polynomial) Message(dst []float64, k int, stats [][]float64) {
	clear(dst)
	for _, e := range p.byIf[k] {
		c := p.coef[e.i]
		for _, f := range p.pairs[p.start[e.i]:p.start[e.i+1]] {
			if int(f.i) != k {
				c *= stats[f.i][f.s]
			}
		}
		dst[e.s] += c
	}
}

// ExpectedLog returns E_q[ln f] = Σ_t c_t Π E[u_i[j]] + Const (the average
// energy is its negative).
func (p *Polynomial) ExpectedLog(stats [][]float64) float64 {
	sum := p.Const
	for t, c := range p.coef {
		for _, f := range p.pairs[p.start[t]:p.start[t+1]] {
			c *= stats[f.i][f.s]
		}
		sum += c
	}
	return sum
}
