package fastexp

import (
	"math"
	"math/big"
	"sync"
)

// Init makes the tables of Exp and ExpSplit, once: every goroutine that
// calls either must have called Init before (or have been started after a
// call), which is also what makes the tables' writes visible to it. It is
// cheap after the first call (an atomic load), so a planner may call it at
// every softmax.
func Init() { tables.Do(initTables) }

// Exp returns e^x, within 0.51 ulp on [-708, 0] and math.Exp elsewhere
// (package documentation). Init must have been called.
func Exp(x float64) float64 {
	if !(x >= -708 && x <= 0) {
		return math.Exp(x)
	}
	t, s, r := reduce(x)
	p := r + r*r*(0.5+r*(1.0/6+r*(1.0/24+r*(1.0/120))))
	return s + s*(t+p)
}

// ExpSplit is Exp with its polynomial evaluated in two halves side by
// side: the same tables and reduction, a shorter chain of dependent
// operations (for a caller that waits on every result), and results that
// may differ from Exp's in the last bit, within 0.52 ulp of e^x on [-708,
// 0] (TestExpSplit). Outside [-708, 0] it is math.Exp. Init must have been
// called.
func ExpSplit(x float64) float64 {
	if !(x >= -708 && x <= 0) {
		return math.Exp(x)
	}
	t, s, r := reduce(x)
	r2 := r * r
	p := ((t + r) + r2*(0.5+r*(1.0/6))) + r2*r2*(1.0/24+r*(1.0/120))
	return s + s*p
}

// reduce is the range reduction of Exp and ExpSplit for x in [-708, 0]:
// x = k ln2/N + r with k = 128 e + j, s = 2^e · hi (exact, normal) and t
// the table's tail for j.
func reduce(x float64) (t, s, r float64) {
	const shift = 0x1.8p52 // adding it rounds x N/ln2 to an integer in the low bits
	kd := x*invLn2N + shift
	ki := math.Float64bits(kd)
	kd -= shift
	r = (x - kd*c1) - kd*c2
	// The low 52 bits of ki hold 2^51 + k, k in [-130,800, 0]; 2^51 is a
	// multiple of N, so j = k mod N and e = floor(k/N) as below.
	e := int64((ki&(1<<52-1))>>7) - 1<<44
	te := &table[ki&(n-1)]
	return te.tail, math.Float64frombits(te.hi + uint64(e)<<52), r
}

// n is the number of table entries per octave, N = 2^7.
const n = 128

var (
	invLn2N float64 // N / ln 2
	c1      float64 // ln2/N rounded to 33 significant bits
	c2      float64 // ln2/N - c1
	// table[j] holds the bits of 2^(j/N) correctly rounded, hi, and the
	// relative remainder (2^(j/N) - hi) / hi, side by side (one cache
	// line for both).
	table [n]struct {
		hi   uint64
		tail float64
	}
)

// tables guards initTables (Init).
var tables sync.Once

// initTables computes the constants and tables of Exp in 128-bit big.Float
// arithmetic.
func initTables() {
	const prec = 128
	// ln 2 to 128 bits: Σ_(k>=1) 1/(k 2^k), 140 terms (each adds a bit).
	ln2 := new(big.Float).SetPrec(prec)
	for k := 140; k >= 1; k-- {
		t := new(big.Float).SetPrec(prec).SetInt64(int64(k))
		t.SetMantExp(t, k) // k 2^k
		ln2.Add(ln2, new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), t))
	}
	ln2N := new(big.Float).SetPrec(prec).Quo(ln2, big.NewFloat(n).SetPrec(prec))
	c, _ := ln2N.Float64()
	c1 = math.Float64frombits(math.Float64bits(c) &^ (1<<20 - 1))
	c2, _ = new(big.Float).SetPrec(prec).Sub(ln2N, big.NewFloat(c1)).Float64()
	inv := new(big.Float).SetPrec(prec).Quo(big.NewFloat(n).SetPrec(prec), ln2)
	invLn2N, _ = inv.Float64()
	// 2^(1/2^i), i = 1..7, by repeated square roots; 2^(j/N) is the product
	// over the set bits of j.
	var roots [7]*big.Float
	r := big.NewFloat(2).SetPrec(prec)
	for i := range roots {
		r = new(big.Float).SetPrec(prec).Sqrt(r)
		roots[i] = r // 2^(1/2^(i+1))
	}
	for j := range n {
		t := big.NewFloat(1).SetPrec(prec)
		for i := range roots {
			if j&(1<<(6-i)) != 0 { // bit 6-i of j is worth 2^((1<<(6-i))/N) = 2^(1/2^(i+1))
				t.Mul(t, roots[i])
			}
		}
		h, _ := t.Float64()
		table[j].hi = math.Float64bits(h)
		d := new(big.Float).SetPrec(prec).Sub(t, big.NewFloat(h))
		table[j].tail, _ = d.Quo(d, big.NewFloat(h)).Float64()
	}
}
