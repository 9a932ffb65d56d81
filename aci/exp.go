package aci

import "math"

// expTab[i] = 2^(i/expN), the table of fastExp.
const (
	expBits = 7
	expN    = 1 << expBits
)

var expTab = func() (t [expN]float64) {
	for i := range t {
		t[i] = math.Exp2(float64(i) / expN)
	}
	return t
}()

// fastExp returns e^x for x <= 0 as the C libraries' exp does it: x = (k +
// i/expN) ln 2 + r with |r| <= ln 2 / (2 expN), e^x = 2^k 2^(i/expN) e^r, e^r
// a polynomial of degree 5 (the next term, r^6/720, is below 1e-19). It
// is within two units in the last place of math.Exp (TestFastExp), which
// it leaves the rest to: x > 0, x < -708 (where e^x is subnormal), NaN.
// It costs about a third of math.Exp, and the walk takes one per policy
// (lse.add).
func fastExp(x float64) float64 {
	if !(x <= 0 && x >= -708) {
		return math.Exp(x)
	}
	const (
		invLn2N = expN / math.Ln2
		// ln 2 / expN in two parts (those of math.Exp): the high part's
		// low bits are 0, so that n ln2NHi is exact.
		ln2NHi = 6.93147180369123816490e-01 / expN
		ln2NLo = 1.90821492927058770002e-10 / expN
	)
	n := math.Floor(x*invLn2N + 0.5)
	r := (x - n*ln2NHi) - n*ln2NLo
	ni := int64(n)
	k, i := ni>>expBits, ni&(expN-1)
	p := r * (1 + r*(0.5+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
	t := expTab[i]
	// 2^k t (1 + p), with k >= -1023: the scale is a normal number.
	return math.Float64frombits(uint64(k+1023)<<52) * (t + t*p)
}
