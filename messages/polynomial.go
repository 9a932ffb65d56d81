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
	n     int       // interfaces
	coef  []float64 // one per term
	stat  []int32   // len(coef)*n: the statistic of interface i in term t, or -1
	Const float64
}

// NewPolynomial returns an empty form over n interfaces.
func NewPolynomial(n int) *Polynomial { return &Polynomial{n: n} }

// Term adds the term c · Π u_(iface)[stat] over the (interface, statistic)
// pairs given as iface, stat, iface, stat, ... It panics (a programming
// error of the node that builds the form) when the pairs are odd in number,
// name an interface out of range or the same interface twice.
func (p *Polynomial) Term(c float64, pairs ...int) *Polynomial {
	if len(pairs)%2 != 0 {
		panic("messages: Polynomial.Term: odd number of interface/statistic values")
	}
	row := make([]int32, p.n)
	for i := range row {
		row[i] = -1
	}
	for j := 0; j < len(pairs); j += 2 {
		k, s := pairs[j], pairs[j+1]
		if k < 0 || k >= p.n || s < 0 || row[k] >= 0 {
			panic(fmt.Sprintf("messages: Polynomial.Term: pair (%d, %d) for %d interfaces", k, s, p.n))
		}
		row[k] = int32(s)
	}
	p.coef = append(p.coef, c)
	p.stat = append(p.stat, row...)
	return p
}

// NumInterfaces returns the number of interfaces of the form.
func (p *Polynomial) NumInterfaces() int { return p.n }

// NumTerms returns the number of terms.
func (p *Polynomial) NumTerms() int { return len(p.coef) }

// At returns term t's coefficient and the statistic it takes of
// interface i (-1: the term does not contain that interface).
func (p *Polynomial) At(t, i int) (coef float64, stat int) {
	return p.coef[t], int(p.stat[t*p.n+i])
}

// Message writes into dst the VMP message to interface k, in the natural
// parameters of its family: dst[j] = Σ over terms containing u_k[j] of
// c_t Π_(i != k) E[u_i[j_(t,i)]]. stats holds the neighbours' expected
// statistics by interface. It does not allocate.
func (p *Polynomial) Message(dst []float64, k int, stats [][]float64) {
	clear(dst)
	n := p.n
	for t, c := range p.coef {
		row := p.stat[t*n : t*n+n]
		j := row[k]
		if j < 0 {
			continue
		}
		for i, s := range row {
			if s >= 0 && i != k {
				c *= stats[i][s]
			}
		}
		dst[j] += c
	}
}

// ExpectedLog returns E_q[ln f] = Σ_t c_t Π E[u_i[j]] + Const (the average
// energy is its negative).
func (p *Polynomial) ExpectedLog(stats [][]float64) float64 {
	n := p.n
	sum := p.Const
	for t, c := range p.coef {
		for i, s := range p.stat[t*n : t*n+n] {
			if s >= 0 {
				c *= stats[i][s]
			}
		}
		sum += c
	}
	return sum
}
