package pomdp

import "math"

// The natural logarithm of the expected free energy's inner loop (the
// predicted outcomes' Q ln Q), table-driven in the manner of the C
// libraries' log: x = 2^k z with z in [0.6875, 1.375), z = c (1 + r) for the
// centre c of one of logN subintervals, ln x = k ln 2 + ln c + ln(1 + r)
// with |r| < 1/128 and ln(1 + r) a polynomial of degree 8 (the next term,
// r^9/9, is below 1e-19); the subinterval that starts at 1 has c = 1, so
// that ln 1 = 0 exactly. It differs from math.Log by at most
// 4e-16 |ln x| + 1e-18, two units in the last place (TestFastLog), and
// costs about half of it.

const (
	logBits = 7
	logN    = 1 << logBits
	logOff  = 0x3fe6000000000000 // the bits of 0.6875
	ln2Hi   = 6.93147180369123816490e-01
	ln2Lo   = 1.90821492927058770002e-10
)

// logTab holds, per subinterval i, 1/c_i rounded and ln c_i = -ln(1/c_i).
var logTab = func() (t [logN][2]float64) {
	lo := math.Float64frombits(logOff) // z spans [lo, 2 lo)
	for i := range t {
		// The subinterval of bits (i << (52-logBits)) above logOff.
		a := math.Float64frombits(logOff + uint64(i)<<(52-logBits))
		b := math.Float64frombits(logOff + uint64(i+1)<<(52-logBits))
		if i == logN-1 {
			b = 2 * lo
		}
		inv := 2 / (a + b)
		if a == 1 {
			inv = 1 // c = 1: ln x exact at 1 and 2^k, and near 1 to a unit in the last place
		}
		t[i] = [2]float64{inv, -math.Log(inv)}
	}
	return t
}()

// fastLog returns ln x for a normal x > 0; math.Log(x) for a subnormal,
// zero, negative, infinite or NaN x.
func fastLog(x float64) float64 {
	ix := math.Float64bits(x)
	if ix-0x0010000000000000 >= 0x7ff0000000000000-0x0010000000000000 {
		return math.Log(x)
	}
	tmp := ix - logOff
	i := (tmp >> (52 - logBits)) % logN
	k := float64(int64(tmp) >> 52)
	z := math.Float64frombits(ix - tmp&(0xfff<<52))
	e := &logTab[i]
	r := math.FMA(z, e[0], -1)
	r2 := r * r
	// ln(1+r) = r - r²/2 + r³/3 - r⁴/4 + r⁵/5 - r⁶/6 + r⁷/7 - r⁸/8
	p := r2 * ((-0.5 + r*(1.0/3)) + r2*((-0.25+r*0.2)+r2*((-1.0/6+r*(1.0/7))+r2*-0.125)))
	return k*ln2Hi + e[1] + (r + (p + k*ln2Lo))
}

// riskTerms returns Σ_o q_o (ln q_o - logC_o) over the q_o > 0, with fastLog's
// logarithm written out in the loop (a call per outcome would cost a
// third of it).
func riskTerms(qo, logC []float64) float64 {
	logC = logC[:len(qo)]
	r := 0.0
	for o, x := range qo {
		if !(x > 0) {
			continue
		}
		ix := math.Float64bits(x)
		var l float64
		if ix-0x0010000000000000 >= 0x7ff0000000000000-0x0010000000000000 {
			l = math.Log(x)
		} else {
			tmp := ix - logOff
			e := &logTab[(tmp>>(52-logBits))%logN]
			k := float64(int64(tmp) >> 52)
			z := math.Float64frombits(ix - tmp&(0xfff<<52))
			t := math.FMA(z, e[0], -1)
			t2 := t * t
			p := t2 * ((-0.5 + t*(1.0/3)) + t2*((-0.25+t*0.2)+t2*((-1.0/6+t*(1.0/7))+t2*-0.125)))
			l = k*ln2Hi + e[1] + (t + (p + k*ln2Lo))
		}
		r += x * (l - logC[o])
	}
	return r
}
