package fastexp

import (
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"sync"
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

// TestInitConcurrent: goroutines that make the tables at once (Init) and
// use them at once agree with one another (run it with -race).
func TestInitConcurrent(t *testing.T) {
	xs := []float64{-1e-10, -0.3, -1, -7.5, -100, -707.9}
	var wg sync.WaitGroup
	got := make([][]float64, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			Init()
			for _, x := range xs {
				got[g] = append(got[g], Exp(x))
			}
		}()
	}
	wg.Wait()
	for g := range got {
		for i, x := range xs {
			if got[g][i] != got[0][i] || math.Abs(got[g][i]-math.Exp(x)) > 3*ulpOf(math.Exp(x)) {
				t.Fatalf("goroutine %d: Exp(%v) = %v, goroutine 0 %v, math.Exp %v", g, x, got[g][i], got[0][i], math.Exp(x))
			}
		}
	}
}

// TestInitLazy: the tables are made at the first Init, not when the
// package is loaded (in a fresh process: this test binary run again).
func TestInitLazy(t *testing.T) {
	if os.Getenv("FASTEXP_LAZY_CHILD") == "1" {
		if table[1].hi != 0 || invLn2N != 0 {
			t.Fatal("tables made before Init")
		}
		Init()
		if table[0].hi != math.Float64bits(1) || table[0].tail != 0 || invLn2N == 0 {
			t.Fatalf("after Init: table[0] %x, %v, N/ln2 %v", table[0].hi, table[0].tail, invLn2N)
		}
		return
	}
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInitLazy$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FASTEXP_LAZY_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// checkExp checks f (Exp or ExpSplit):
//   - against e^x to 70 digits (bigExp) on 20,000 points of [-708, 0]
//     (2,000 with -short), half uniform and half log-uniform in |x| from
//     1e-12 to 708: the method's bound is half an ulp for the final
//     rounding plus about 0.002 ulp for the rest (package documentation),
//     so at most bound ulps (0.51 for Exp). math.Exp is measured on the
//     same points for comparison (logged; about 1 ulp on linux/amd64, where
//     it is the assembly archExp);
//   - against math.Exp on 4 million points (400,000 with -short) of the
//     same kinds plus the table's nodes k·ln2/128 and the ends: the two
//     are then at most bound + (math.Exp's error) apart; the bound checked
//     is 3 ulp, and the largest difference and the share of equal results
//     are logged;
//   - outside [-708, 0] it is math.Exp bit for bit (NaN, ±Inf, underflow,
//     positive x).
func checkExp(t *testing.T, name string, f func(float64) float64, bound float64) {
	t.Helper()
	Init()
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
		if d := ulpErr(f(x), ref); d > bound {
			t.Fatalf("%s(%v) = %v, e^x = %s: %.4g ulp", name, x, f(x), ref.Text('g', 20), d)
		} else {
			worst = max(worst, d)
		}
	}
	t.Logf("%s against 70-digit e^x: largest error %.4g ulp (math.Exp: %.4g ulp)", name, worst, worstStd)

	n := 4_000_000
	if testing.Short() {
		n = 400_000
	}
	worst, same, total := 0.0, 0, 0
	check := func(x float64) {
		got, want := f(x), math.Exp(x)
		d := math.Abs(got-want) / ulpOf(want)
		if d > 3 {
			t.Fatalf("%s(%v) = %v, math.Exp %v: %.3g ulp", name, x, got, want, d)
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
	t.Logf("%s against math.Exp: largest difference %.3g ulp, %.2f%% equal", name, worst, 100*float64(same)/float64(total))

	for _, x := range []float64{math.NaN(), math.Inf(-1), math.Inf(1), -708.5, -745, -746, -1000, 1e-300, 0.5, 1, 700, 710} {
		got, want := f(x), math.Exp(x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("%s(%v) = %v, math.Exp %v", name, x, got, want)
		}
	}
}

// TestExp: Exp within 0.51 ulp of e^x (checkExp).
func TestExp(t *testing.T) { checkExp(t, "Exp", Exp, 0.51) }

// TestExpSplit: ExpSplit within 0.52 ulp of e^x (checkExp), and the share
// of its results equal to Exp's (logged).
func TestExpSplit(t *testing.T) {
	checkExp(t, "ExpSplit", ExpSplit, 0.52)
	rng := rand.New(rand.NewPCG(9, 4))
	same, n := 0, 1_000_000
	for range n {
		if x := -708 * rng.Float64(); ExpSplit(x) == Exp(x) {
			same++
		}
	}
	t.Logf("ExpSplit equal to Exp on %.2f%% of %d points", 100*float64(same)/float64(n), n)
}

// TestExpRelative: within 4.5e-16 of math.Exp relative (two ulp where the
// significand is small) on a million points mixing the whole range, [-10,
// 0] and [-1e-3, 0], and equal to it bit for bit at the ends and outside.
func TestExpRelative(t *testing.T) {
	Init()
	for _, c := range funcs {
		rng := rand.New(rand.NewPCG(3, 5))
		worst := 0.0
		for i := range 1_000_000 {
			x := -708 * rng.Float64()
			switch i % 4 {
			case 0:
				x = -rng.Float64() * 1e-3
			case 1:
				x = -rng.Float64() * 10
			}
			got, want := c.f(x), math.Exp(x)
			worst = max(worst, math.Abs(got-want)/want)
		}
		if worst > 4.5e-16 {
			t.Errorf("%s within %.3g of math.Exp (relative), want within 4.5e-16", c.name, worst)
		}
		for _, x := range []float64{0, math.Copysign(0, -1), -1e-300, -708, -709, -745, -746, -1000, math.Inf(-1), 1, math.NaN()} {
			got, want := c.f(x), math.Exp(x)
			if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("%s(%v) = %v, want math.Exp's %v", c.name, x, got, want)
			}
		}
	}
}

// funcs are the package's two exponentials, for the tests and benchmarks
// that take both.
var funcs = []struct {
	name string
	f    func(float64) float64
}{{"Exp", Exp}, {"ExpSplit", ExpSplit}}

// FuzzExp: Exp and ExpSplit on [-708, 0] within 3 ulp of math.Exp (and
// finite, >= 0), elsewhere math.Exp bit for bit.
func FuzzExp(f *testing.F) {
	for _, x := range []float64{0, -1e-300, -0.5, -1, -707.99, -708, -708.0000001, -745, math.Inf(-1), 3, math.NaN()} {
		f.Add(x)
	}
	Init()
	f.Fuzz(func(t *testing.T, x float64) {
		want := math.Exp(x)
		for _, c := range funcs {
			got := c.f(x)
			if x >= -708 && x <= 0 {
				if !(got >= 0) || math.Abs(got-want) > 3*ulpOf(want) {
					t.Fatalf("%s(%v) = %v, math.Exp %v", c.name, x, got, want)
				}
			} else if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("%s(%v) = %v, math.Exp %v", c.name, x, got, want)
			}
		}
	})
}

var expSink float64

// benchFuncs are the benchmarks' exponentials.
var benchFuncs = append(funcs[:len(funcs):len(funcs)], struct {
	name string
	f    func(float64) float64
}{"math.Exp", math.Exp})

// BenchmarkExp: one exponential of a softmax's range (x in [-40, 0]),
// Exp and ExpSplit against math.Exp, the calls independent of one
// another.
func BenchmarkExp(b *testing.B) {
	Init()
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 1024)
	for i := range xs {
		xs[i] = -40 * rng.Float64()
	}
	for _, c := range benchFuncs {
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

// BenchmarkExpLatency chains the calls, each argument made from the last
// result, as a search that waits on every softmax does.
func BenchmarkExpLatency(b *testing.B) {
	Init()
	for _, c := range benchFuncs {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			x := -0.5
			for b.Loop() {
				x = -c.f(x) - 0.25
			}
			expSink = x
		})
	}
}
