package si

import "math"

// expNeg returns e^x for the softmax's x = −γ G(u) − max_u' (−γ G(u')) <= 0,
// within two units in the last place of math.Exp (TestExpNeg) in about a
// third of its time; x > 0, x < −708 (where e^x is subnormal or 0), −Inf
// and NaN are left to math.Exp. aci and btai have exponentials of their
// own of the same kind, which si may not import.
//
// With N = 128 and k the integer nearest to x N / ln 2, x = k ln2/N + r
// with |r| <= ln2/(2N), and e^x = 2^(k div N) · 2^((k mod N)/N) · e^r: the
// middle factor from a table, e^r − 1 a polynomial of degree 5 (the next
// term, r^6/720, is below 6e-19). ln2/N is split in two (math.Exp's
// halves of ln 2, over N), the first with its low bits 0, so that k times
// it is exact and so is x less that product.
func expNeg(x float64) float64 {
	if !(x >= -708 && x <= 0) {
		return math.Exp(x)
	}
	const (
		invLn2N = expN / math.Ln2
		ln2NHi  = 6.93147180369123816490e-01 / expN
		ln2NLo  = 1.90821492927058770002e-10 / expN
		// Adding 1.5 · 2^52 rounds x N/ln2 to the nearest integer k and
		// leaves 2^51 + k in the low bits of the sum.
		shift = 0x1.8p52
	)
	kd := x*invLn2N + shift
	k := int64(math.Float64bits(kd)&(1<<52-1)) - 1<<51
	kd -= shift
	r := (x - kd*ln2NHi) - kd*ln2NLo
	// k >= −130,750, so k div N >= −1022: 2^(k div N) is normal, and the
	// product with the table's entry is exact.
	st := math.Float64frombits(uint64(k>>expBits+1023)<<52) * expTab[k&(expN-1)]
	// e^r − 1 in two halves computed side by side (the search waits on
	// every exponential, so the chain's length is its cost).
	r2 := r * r
	p := (r + r2*(0.5+r*(1.0/6))) + r2*r2*(1.0/24+r*(1.0/120))
	return st + st*p
}

const (
	expBits = 7
	expN    = 1 << expBits
)

// expTab[j] = 2^(j/N), the table of expNeg.
var expTab = func() (t [expN]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / expN)
	}
	return t
}()
