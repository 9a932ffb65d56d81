package btai

import (
	"math"
	"math/big"
	"sync"
)

// expNonPos returns e^x for the arguments of the planning loop's softmax,
// x = eta_i - max(eta) <= 0, faster than math.Exp (BenchmarkExp) and, on
// [-708, 0], within one ulp of it (TestExpNonPos: checked on 4 million
// points against math.Exp and on 20,000 against 60-digit big.Float
// values, error below 0.52 ulp). Outside [-708, 0] (underflow to
// subnormals or zero, -Inf, NaN, and positive x) it is math.Exp.
//
// The method is the usual table-driven one: with N = 128, x = (128 e + j)
// ln2/N + r, k = 128 e + j the integer nearest to x N / ln 2 and |r| <=
// ln2/(2N) ≈ 0.0027, so
//
//	e^x = 2^e · 2^(j/N) · e^r,  e^r - 1 ≈ r + r²/2 + r³/6 + r⁴/24 + r⁵/120,
//
// where the Taylor polynomial's truncation error is below r⁶/720 < 6e-19
// (relative, against 1.1e-16 for one ulp), 2^(j/N) is tabulated as its
// correctly rounded double hi plus the relative tail (2^(j/N) - hi)/hi
// (computed once with 128-bit big.Float arithmetic), and r = (x - k c1) -
// k c2 with c1 + c2 = ln2/N to about 2^-100 relative, c1 having 33
// significant bits so that k c1 is exact for |k| < 2^20 and x - k c1 is
// exact (Sterbenz). The result 2^e · hi · (1 + tail + (e^r - 1)) is
// formed as s + s·(tail + p) with s = 2^e hi exact, so the only
// significant rounding is the last addition (half an ulp).
//
// The tables must have been made (expTables.Do(expInit)).
func expNonPos(x float64) float64 {
	if !(x >= -708 && x <= 0) {
		return math.Exp(x)
	}
	const shift = 0x1.8p52 // adding it rounds x N/ln2 to an integer in the low bits
	kd := x*expInvLn2N + shift
	ki := math.Float64bits(kd)
	kd -= shift
	r := (x - kd*expC1) - kd*expC2
	// The low 52 bits of ki hold 2^51 + k, k in [-130,800, 0]; 2^51 is a
	// multiple of N, so j = k mod N and e = floor(k/N) as below.
	j := ki & (expN - 1)
	e := int64((ki&(1<<52-1))>>7) - 1<<44
	s := math.Float64frombits(expHi[j] + uint64(e)<<52)
	p := r + r*r*(0.5+r*(1.0/6+r*(1.0/24+r*(1.0/120))))
	return s + s*(expTail[j]+p)
}

const expN = 128

var (
	expInvLn2N float64       // N / ln 2
	expC1      float64       // ln2/N rounded to 33 significant bits
	expC2      float64       // ln2/N - expC1
	expHi      [expN]uint64  // bits of 2^(j/N) correctly rounded
	expTail    [expN]float64 // (2^(j/N) - hi) / hi
)

// expTables makes the tables of expNonPos once, at the first softmax
// (not at every start of a process that never plans with btai: the
// big.Float arithmetic takes about a millisecond).
var expTables sync.Once

// expInit computes the tables of expNonPos (expTables).
func expInit() {
	const prec = 128
	// ln 2 to 128 bits: Σ_(k>=1) 1/(k 2^k), 140 terms (each adds a bit).
	ln2 := new(big.Float).SetPrec(prec)
	for k := 140; k >= 1; k-- {
		t := new(big.Float).SetPrec(prec).SetInt64(int64(k))
		t.SetMantExp(t, k) // k 2^k
		ln2.Add(ln2, new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), t))
	}
	ln2N := new(big.Float).SetPrec(prec).Quo(ln2, big.NewFloat(expN).SetPrec(prec))
	c, _ := ln2N.Float64()
	expC1 = math.Float64frombits(math.Float64bits(c) &^ (1<<20 - 1))
	expC2, _ = new(big.Float).SetPrec(prec).Sub(ln2N, big.NewFloat(expC1)).Float64()
	inv := new(big.Float).SetPrec(prec).Quo(big.NewFloat(expN).SetPrec(prec), ln2)
	expInvLn2N, _ = inv.Float64()
	// 2^(1/2^i), i = 1..7, by repeated square roots; 2^(j/N) is the product
	// over the set bits of j.
	var roots [7]*big.Float
	r := big.NewFloat(2).SetPrec(prec)
	for i := range roots {
		r = new(big.Float).SetPrec(prec).Sqrt(r)
		roots[i] = r // 2^(1/2^(i+1))
	}
	for j := range expN {
		t := big.NewFloat(1).SetPrec(prec)
		for i := range roots {
			if j&(1<<(6-i)) != 0 { // bit 6-i of j is worth 2^((1<<(6-i))/N) = 2^(1/2^(i+1))
				t.Mul(t, roots[i])
			}
		}
		hi, _ := t.Float64()
		expHi[j] = math.Float64bits(hi)
		tail := new(big.Float).SetPrec(prec).Sub(t, big.NewFloat(hi))
		expTail[j], _ = tail.Quo(tail, big.NewFloat(hi)).Float64()
	}
}
