package expfam_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmat"
	"gonum.org/v1/gonum/stat/distmv"
	"gonum.org/v1/gonum/stat/distuv"
)

// spd returns a random d×d symmetric positive definite matrix B Bᵀ + d·s·I.
func spd(rng *rand.Rand, d int, s float64) []float64 {
	b := make([]float64, d*d)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	a := make([]float64, d*d)
	for i := range d {
		for j := range d {
			for k := range d {
				a[i*d+j] += b[i*d+k] * b[j*d+k]
			}
		}
		a[i*d+i] += float64(d) * s
	}
	return a
}

// The multivariate Normal against gonum's distmv.Normal: ln p(x) =
// η·T(x) - A(η) with A from the entropy identity, the entropy itself, and
// the natural parameters' round trip.
func TestMvNormalAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for d := 1; d <= 5; d++ {
		mean := make([]float64, d)
		for i := range mean {
			mean[i] = rng.NormFloat64() * 3
		}
		cov := spd(rng, d, 0.5)
		n := expfam.MvNormal{Mean: mean, Cov: cov}
		if err := n.Validate(); err != nil {
			t.Fatal(err)
		}
		ref, ok := distmv.NewNormal(mean, mat.NewSymDense(d, cov), nil)
		if !ok {
			t.Fatal("gonum: not positive definite")
		}
		checkClose(t, "entropy", n.Entropy(), ref.Entropy(), 1e-12)
		eta := n.Natural(nil)
		back, err := expfam.MvNormalFromNatural(eta, d)
		if err != nil {
			t.Fatal(err)
		}
		if diff := sliceDiff(mean, back.Mean, 1e-11); diff != "" {
			t.Errorf("d=%d mean round trip: %s", d, diff)
		}
		if diff := sliceDiff(cov, back.Cov, 1e-11); diff != "" {
			t.Errorf("d=%d covariance round trip: %s", d, diff)
		}
		// A(η) = H + η·E[T] (base measure 1); ln p(x) = η·T(x) - A(η).
		es := n.ExpectedStats(nil)
		a := n.Entropy()
		for i := range eta {
			a += eta[i] * es[i]
		}
		x := make([]float64, d)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		tx := make([]float64, d+d*d)
		copy(tx, x)
		for i := range d {
			for j := range d {
				tx[d+i*d+j] = x[i] * x[j]
			}
		}
		lp := -a
		for i := range eta {
			lp += eta[i] * tx[i]
		}
		checkClose(t, "ln p(x) from η·T(x) - A", lp, ref.LogProb(x), 1e-10)
		checkClose(t, "LogProb", n.LogProb(x), ref.LogProb(x), 1e-10)
	}
}

// logPartitionMv is A(η) of the multivariate Normal written directly from
// η: ½ hᵀ Λ⁻¹ h - ½ ln|Λ| + (d/2) ln 2π with Λ = -2 (η₂ + η₂ᵀ)/2.
func logPartitionMv(eta []float64, d int) float64 {
	p := mat.NewSymDense(d, nil)
	for i := range d {
		for j := range d {
			p.SetSym(i, j, -(eta[d+i*d+j] + eta[d+j*d+i]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(p) {
		return math.NaN()
	}
	h := mat.NewVecDense(d, append([]float64(nil), eta[:d]...))
	var s mat.VecDense
	if err := ch.SolveVecTo(&s, h); err != nil {
		return math.NaN()
	}
	return 0.5*mat.Dot(h, &s) - 0.5*ch.LogDet() + 0.5*float64(d)*math.Log(2*math.Pi)
}

// E[T] = ∇A(η): central differences of A against ExpectedStats.
func TestMvNormalExpectedStatsAreGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const d = 3
	n := expfam.MvNormal{Mean: []float64{0.5, -1, 2}, Cov: spd(rng, d, 1)}
	eta := n.Natural(nil)
	es := n.ExpectedStats(nil)
	const h = 1e-6
	for i := range eta {
		x := eta[i]
		eta[i] = x + h
		up := logPartitionMv(eta, d)
		eta[i] = x - h
		down := logPartitionMv(eta, d)
		eta[i] = x
		checkClose(t, "dA/dη", (up-down)/(2*h), es[i], 1e-6)
	}
}

// The Wishart against gonum's distmat.Wishart: ln p(Λ) = η·T(Λ) - A(η),
// E[Λ] = νV, and E ln|Λ| and E[Λ] by Monte Carlo (fixed seed, 5·10⁴
// draws: the standard error of the mean of ln|Λ| is below 1e-2 here).
func TestWishartAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for d := 1; d <= 4; d++ {
		v := spd(rng, d, 0.3)
		w := expfam.Wishart{DF: float64(d) + 1.5, Scale: v}
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		ref, ok := distmat.NewWishart(mat.NewSymDense(d, append([]float64(nil), v...)), w.DF, rand.NewPCG(uint64(d), 7))
		if !ok {
			t.Fatal("gonum: not positive definite")
		}
		// η = [-V⁻¹/2, (ν-d-1)/2]; T(Λ) = [Λ, ln|Λ|].
		var vinv mat.Dense
		if err := vinv.Inverse(mat.NewDense(d, d, append([]float64(nil), v...))); err != nil {
			t.Fatal(err)
		}
		lam := spd(rng, d, 1)
		var ch mat.Cholesky
		ch.Factorize(mat.NewSymDense(d, append([]float64(nil), lam...)))
		lp := (w.DF-float64(d)-1)/2*ch.LogDet() - w.LogNormalizer()
		for i := range d {
			for j := range d {
				lp += -0.5 * vinv.At(i, j) * lam[i*d+j]
			}
		}
		checkClose(t, "ln p(Λ)", lp, ref.LogProbSym(mat.NewSymDense(d, lam)), 1e-10)

		const draws = 50000
		sumLD := 0.0
		sum := make([]float64, d*d)
		x := mat.NewSymDense(d, nil)
		for range draws {
			ref.RandSymTo(x)
			var c mat.Cholesky
			c.Factorize(x)
			sumLD += c.LogDet()
			for i := range d {
				for j := range d {
					sum[i*d+j] += x.At(i, j)
				}
			}
		}
		es := w.ExpectedStats(nil)
		checkClose(t, "E ln|Λ| (Monte Carlo)", sumLD/draws, es[d*d], 0.04)
		for i := range d * d {
			checkClose(t, "E Λ (Monte Carlo)", sum[i]/draws, es[i], 0.05*math.Max(1, math.Abs(es[i])))
		}
		// Entropy = A - η·E[T], with A written from gonum's log density:
		// A = η·T(Λ) - ln p(Λ) at any Λ.
		ent := -lp
		for i := range d {
			for j := range d {
				ent += -0.5 * vinv.At(i, j) * (lam[i*d+j] - es[i*d+j])
			}
		}
		ent += (w.DF - float64(d) - 1) / 2 * (ch.LogDet() - es[d*d])
		checkClose(t, "entropy", w.Entropy(), ent, 1e-10)
		back, err := expfam.WishartFromNatural(naturalWishart(w, vinv.RawMatrix().Data), d)
		if err != nil {
			t.Fatal(err)
		}
		checkClose(t, "ν round trip", back.DF, w.DF, 1e-12)
		if diff := sliceDiff(v, back.Scale, 1e-10); diff != "" {
			t.Errorf("scale round trip: %s", diff)
		}
	}
}

func naturalWishart(w expfam.Wishart, vinv []float64) []float64 {
	d := w.Dim()
	eta := make([]float64, d*d+1)
	for i := range vinv {
		eta[i] = -0.5 * vinv[i]
	}
	eta[d*d] = (w.DF - float64(d) - 1) / 2
	return eta
}

// E ln|Λ| = dA/dη₂ with ν = 2η₂ + d + 1: a central difference in ν.
func TestWishartExpectedLogDetIsGradient(t *testing.T) {
	v := []float64{2, 0.3, 0.3, 1}
	const h = 1e-5
	for _, nu := range []float64{1.2, 3, 40} {
		up := expfam.Wishart{DF: nu + 2*h, Scale: v}.LogNormalizer()
		down := expfam.Wishart{DF: nu - 2*h, Scale: v}.LogNormalizer()
		checkClose(t, "E ln|Λ|", (up-down)/(2*h), expfam.Wishart{DF: nu, Scale: v}.ExpectedLogDet(), 1e-7)
	}
}

// The Beta against gonum's distuv.Beta, and E[T] = ∇ ln B(a, b).
func TestBetaAgainstGonum(t *testing.T) {
	for _, c := range []expfam.Beta{{A: 1, B: 1}, {A: 0.5, B: 3}, {A: 20, B: 7.5}} {
		ref := distuv.Beta{Alpha: c.A, Beta: c.B}
		// gonum's Beta entropy uses mathext.Digamma, good to about 5e-11.
		checkClose(t, "entropy", c.Entropy(), ref.Entropy(), 1e-9)
		x := 0.3
		lp := (c.A-1)*math.Log(x) + (c.B-1)*math.Log1p(-x) - c.LogNormalizer()
		checkClose(t, "ln p", lp, ref.LogProb(x), 1e-12)
		es := c.ExpectedStats(nil)
		const h = 1e-6
		da := (expfam.Beta{A: c.A + h, B: c.B}.LogNormalizer() - expfam.Beta{A: c.A - h, B: c.B}.LogNormalizer()) / (2 * h)
		db := (expfam.Beta{A: c.A, B: c.B + h}.LogNormalizer() - expfam.Beta{A: c.A, B: c.B - h}.LogNormalizer()) / (2 * h)
		checkClose(t, "E ln x", es[0], da, 1e-7)
		checkClose(t, "E ln(1-x)", es[1], db, 1e-7)
		back, err := expfam.BetaFromNatural([]float64{c.A - 1, c.B - 1})
		if err != nil || back != c {
			t.Errorf("round trip %v: %v, %v", c, back, err)
		}
	}
}

// Bad matrices and parameters give errors naming what is wrong.
func TestSPDChecks(t *testing.T) {
	for _, c := range []struct {
		a    []float64
		d    int
		want string
	}{
		{[]float64{1, 0.5, 0.4, 1}, 2, "not symmetric"},
		{[]float64{1, 2, 2, 1}, 2, "not positive definite"},
		{[]float64{1, 0, 0, math.NaN()}, 2, "entry [1][1]"},
		{[]float64{1, 0, 0}, 2, "3 entries"},
		{[]float64{1e16, 0, 0, 1e-1}, 2, "ill-conditioned"},
	} {
		err := expfam.CheckSPD(c.a, c.d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckSPD(%v) = %v, want %q", c.a, err, c.want)
		}
	}
	if err := (expfam.Wishart{DF: 0.5, Scale: []float64{1, 0, 0, 1}}).Validate(); err == nil || !strings.Contains(err.Error(), "degrees of freedom") {
		t.Errorf("ν = 0.5 with d = 2: %v", err)
	}
	if _, err := expfam.MvNormalFromNatural([]float64{0, 0, 0.5, 0, 0, -0.5}, 2); err == nil || !strings.Contains(err.Error(), "not positive definite") {
		t.Errorf("indefinite natural parameters: %v", err)
	}
	if err := (expfam.Beta{A: 0, B: 1}).Validate(); err == nil || !strings.Contains(err.Error(), "a is 0") {
		t.Errorf("Beta(0, 1): %v", err)
	}
}

// The declarations do not allocate on the engine's path for small d.
func TestMvDeclarationsDoNotAllocate(t *testing.T) {
	const d = 4
	for _, f := range []expfam.Family{expfam.MvNormalFamily, expfam.WishartFamily} {
		decl := f.Declaration()
		shape, n, np, err := decl.Layout([]int{d})
		if err != nil {
			t.Fatal(err)
		}
		param, stats, nat := make([]float64, np), make([]float64, n), make([]float64, n)
		decl.Default(param, stats, shape)
		for i := range d {
			nat[i*d+i+map[bool]int{true: d, false: 0}[f == expfam.MvNormalFamily]] = -1
		}
		if f == expfam.WishartFamily {
			nat[d*d] = 1
		}
		allocs := testing.AllocsPerRun(100, func() {
			if err := decl.FromNatural(param, stats, nat, shape); err != nil {
				t.Fatal(err)
			}
			_ = decl.Entropy(param, stats, shape)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per update, want 0", f, allocs)
		}
	}
}
