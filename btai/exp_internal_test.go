package btai

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ulpOf is the spacing of doubles at |y| (y finite, >= 0).
func ulpOf(y float64) float64 { return math.Nextafter(y, math.Inf(1)) - y }

// bigExp returns e^x to about 70 significant digits: e^x =
// (e^(x/2^10))^(2^10) with the Taylor series of e^(x/2^10), |x/2^10| < 0.7,
// summed to 60 terms (the next term is below 0.7^60/60! ≈ 1e-91), in
// 256-bit arithmetic (the ten squarings lose at most 10 bits).
func bigExp(x float64) *big.Float {
	const prec = 256
	y := new(big.Float).SetPrec(prec).SetFloat64(x)
	y.SetMantExp(y, -10)
	sum := big.NewFloat(1).SetPrec(prec)
	term := big.NewFloat(1).SetPrec(prec)
	for k := 1; k <= 60; k++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(k)))
		sum.Add(sum, term)
	}
	for range 10 {
		sum.Mul(sum, sum)
	}
	return sum
}

// ulpErr is |got - exact| in ulps of got's binade spacing.
func ulpErr(got float64, exact *big.Float) float64 {
	d := new(big.Float).SetPrec(exact.Prec()).Sub(new(big.Float).SetFloat64(got), exact)
	f, _ := d.Float64()
	return math.Abs(f) / ulpOf(got)
}

// TestExpNonPos checks expNonPos, the softmax's exponential (exp.go):
//   - against e^x to 70 digits (bigExp) on 20,000 points of [-708, 0]
//     (2,000 with -short),
//     half uniform and half log-uniform in |x| from 1e-12 to 708: the
//     method's bound is half an ulp for the final rounding plus about
//     0.002 ulp for the rest (exp.go), so at most 0.51 ulp. math.Exp is
//     measured on the same points for comparison (logged; about 1 ulp on
//     linux/amd64, where it is the assembly archExp);
//   - against math.Exp on 4 million points (400,000 with -short) of the
//     same kinds plus the
//     table's nodes k·ln2/128 and the ends: the two are then at most
//     0.51 + (math.Exp's error) apart; the bound checked is 3 ulp, and
//     the largest difference and the share of equal results are logged;
//   - outside [-708, 0] it is math.Exp bit for bit (NaN, ±Inf, underflow,
//     positive x).
func TestExpNonPos(t *testing.T) {
	expTables.Do(expInit)
	rng := rand.New(rand.NewPCG(6, 28))
	point := func(i int) float64 {
		if i%2 == 0 {
			return -708 * rng.Float64()
		}
		return -math.Exp(math.Log(1e-12) + rng.Float64()*(math.Log(708)-math.Log(1e-12)))
	}
	worst, worstStd := 0.0, 0.0
	nBig := 20_000
	if testing.Short() {
		nBig = 2_000
	}
	for i := range nBig {
		x := point(i)
		ref := bigExp(x)
		worstStd = max(worstStd, ulpErr(math.Exp(x), ref))
		if d := ulpErr(expNonPos(x), ref); d > 0.51 {
			t.Fatalf("expNonPos(%v) = %v, e^x = %s: %.4g ulp", x, expNonPos(x), ref.Text('g', 20), d)
		} else {
			worst = max(worst, d)
		}
	}
	t.Logf("against 70-digit e^x: largest error %.4g ulp (math.Exp: %.4g ulp)", worst, worstStd)

	n := 4_000_000
	if testing.Short() {
		n = 400_000
	}
	worst, same, total := 0.0, 0, 0
	check := func(x float64) {
		got, want := expNonPos(x), math.Exp(x)
		d := math.Abs(got-want) / ulpOf(want)
		if d > 3 {
			t.Fatalf("expNonPos(%v) = %v, math.Exp %v: %.3g ulp", x, got, want, d)
		}
		worst = max(worst, d)
		if got == want {
			same++
		}
		total++
	}
	for i := range n {
		check(point(i))
	}
	for k := range 130_000 {
		check(-float64(k) * math.Ln2 / 128)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), -5e-324, -1e-300, -1e-17, -708, math.Nextafter(-708, 0)} {
		check(x)
	}
	t.Logf("against math.Exp: largest difference %.3g ulp, %.2f%% equal", worst, 100*float64(same)/float64(total))

	for _, x := range []float64{math.NaN(), math.Inf(-1), math.Inf(1), -708.5, -745, -746, -1000, 1e-300, 0.5, 1, 700, 710} {
		got, want := expNonPos(x), math.Exp(x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("expNonPos(%v) = %v, math.Exp %v", x, got, want)
		}
	}
}

var expSink float64

// BenchmarkExp: one exponential of the softmax's range (x in [-40, 0]),
// expNonPos against math.Exp.
func BenchmarkExp(b *testing.B) {
	expTables.Do(expInit)
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 1024)
	for i := range xs {
		xs[i] = -40 * rng.Float64()
	}
	for _, c := range []struct {
		name string
		f    func(float64) float64
	}{{"expNonPos", expNonPos}, {"math.Exp", math.Exp}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			s, i := 0.0, 0
			for b.Loop() {
				s += c.f(xs[i&1023])
				i++
			}
			expSink = s
		})
	}
}
