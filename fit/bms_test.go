package fit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// Two models with equal evidence for every subject: by symmetry every
// responsibility is 1/2, so α = 1 + N/2 for both, the frequencies and the
// exceedance probabilities are 1/2.
func TestBMSSymmetric(t *testing.T) {
	lme := [][]float64{{-10, -10}, {-3.5, -3.5}, {-120, -120}, {0, 0}, {-7, -7}}
	res, err := BMS(lme, nil)
	if err != nil {
		t.Fatal(err)
	}
	half := 1 + float64(len(lme))/2
	opt := cmpopts.EquateApprox(0, 1e-12)
	if d := cmp.Diff([]float64{half, half}, res.Alpha, opt); d != "" {
		t.Errorf("alpha mismatch (-want +got):\n%s", d)
	}
	for _, got := range [][]float64{res.Frequencies, res.Exceedance} {
		if d := cmp.Diff([]float64{0.5, 0.5}, got, opt); d != "" {
			t.Errorf("mismatch (-want +got):\n%s", d)
		}
	}
	if !res.Converged || res.ExceedanceMethod != ExceedanceBeta {
		t.Errorf("converged %v, method %q", res.Converged, res.ExceedanceMethod)
	}
}

// Decisive evidence for model 2 in each of N = 3 subjects (a difference
// of 1000 nats: g_i = (0, 1) to double precision), derived by hand:
//
//	α = (1, 1) + (0, 3) = (1, 4); E[r] = (1/5, 4/5).
//	r_2 ~ Beta(4, 1): P(r_2 > 1/2) = 1 - (1/2)^4 = 15/16; P(r_1 > 1/2) = 1/16.
//	With ψ_k = E[ln r_k] = ψ(α_k) - ψ(5) and L = Σ_i lme_i2:
//	  F1 = ELJ + H[q(r)] + H[q(m)]
//	     = [lnΓ(2) - 2 lnΓ(1) + 0 + 3 ψ_2 + L] + [lnΓ(1) + lnΓ(4) - lnΓ(5) - 3 ψ_2] + 0
//	     = L + ln 6 - ln 24 = L - ln 4;
//	  F0 = Σ_i (lme_i2 - ln 2 - ln 1) = L - 3 ln 2;
//	  BOR = 1/(1 + exp(F1 - F0)) = 1/(1 + exp(ln 2)) = 1/3;
//	  pxp = (2/3) xp + (1/3)(1/2) = (5/24, 19/24).
func TestBMSDecisiveByHand(t *testing.T) {
	lme := [][]float64{{-1000, 0}, {-1010, -10}, {-1003.5, -3.5}}
	res, err := BMS(lme, nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := cmpopts.EquateApprox(0, 1e-12)
	L := 0 - 10 - 3.5
	for _, c := range []struct {
		name      string
		want, got any
	}{
		{"alpha", []float64{1, 4}, res.Alpha},
		{"frequencies", []float64{0.2, 0.8}, res.Frequencies},
		{"exceedance", []float64{1.0 / 16, 15.0 / 16}, res.Exceedance},
		{"bor", 1.0 / 3, res.BOR},
		{"pxp", []float64{5.0 / 24, 19.0 / 24}, res.ProtectedExceedance},
		{"F1", L - math.Log(4), res.FreeEnergy},
		{"F0", L - 3*math.Log(2), res.NullFreeEnergy},
	} {
		if d := cmp.Diff(c.want, c.got, opt); d != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", c.name, d)
		}
	}
}

// Identical models (every subject's evidences equal): g = (1/2, 1/2),
// α = (1 + N/2, 1 + N/2) and, by the terms of TestBMSDecisiveByHand,
//
//	F1 - F0 = ln[Γ(1 + N/2)² 2^N / Γ(N + 2)]
//
// (the expected log r terms cancel): N = 2 gives ln(4/6), BOR =
// 1/(1 + 2/3) = 3/5; N = 4 gives ln(4·16/120) = ln(8/15), BOR = 15/23.
// The omnibus risk of identical models is above 1/2: the data favour equal
// frequencies.
func TestBMSIdenticalModelsBOR(t *testing.T) {
	for _, c := range []struct {
		n    int
		want float64
	}{{2, 3.0 / 5}, {4, 15.0 / 23}} {
		lme := make([][]float64, c.n)
		for i := range lme {
			v := -float64(3 * (i + 1))
			lme[i] = []float64{v, v}
		}
		res, err := BMS(lme, nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.BOR-c.want) > 1e-12 {
			t.Errorf("N = %d: BOR %.15g, want %.15g", c.n, res.BOR, c.want)
		}
		// pxp of identical models: (1 - BOR)/2 + BOR/2 = 1/2.
		for k, p := range res.ProtectedExceedance {
			if math.Abs(p-0.5) > 1e-12 {
				t.Errorf("N = %d: pxp[%d] = %v, want 0.5", c.n, k, p)
			}
		}
	}
}

// The iteration reaches the fixed point of spm_BMS.m's update: at the
// returned α, α_k = α_0k + Σ_i g_ik with g recomputed from α, and the
// responsibilities are distributions. The null free energy equals its
// closed form Σ_i ln(Σ_k exp(lme_ik) / K).
func TestBMSFixedPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lme := make([][]float64, 20)
	for i := range lme {
		lme[i] = make([]float64, 3)
		for k := range lme[i] {
			lme[i][k] = -50 + 4*rng.NormFloat64() + float64(k)*0.7
		}
	}
	prior := []float64{1, 2, 0.5}
	res, err := BMS(lme, &BMSOptions{Prior: prior})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || res.Iterations < 2 {
		t.Fatalf("converged %v after %d iterations", res.Converged, res.Iterations)
	}
	s := 0.0
	for _, a := range res.Alpha {
		s += a
	}
	want := append([]float64(nil), prior...)
	f0 := 0.0
	for i, row := range lme {
		u := make([]float64, 3)
		z, m := 0.0, 0.0
		for k, v := range row {
			u[k] = math.Exp(v + mathext.Digamma(res.Alpha[k]) - mathext.Digamma(s))
			z += u[k]
			m += math.Exp(v) / 3
		}
		f0 += math.Log(m)
		gs := 0.0
		for k := range u {
			want[k] += u[k] / z
			gs += res.Responsibilities[i][k]
		}
		if math.Abs(gs-1) > 1e-12 {
			t.Errorf("subject %d: responsibilities sum to %v", i+1, gs)
		}
	}
	if d := cmp.Diff(want, res.Alpha, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("alpha is not the fixed point (-want +got):\n%s", d)
	}
	if math.Abs(f0-res.NullFreeEnergy) > 1e-9*math.Abs(f0) {
		t.Errorf("F0 = %v, closed form %v", res.NullFreeEnergy, f0)
	}
	// The exceedance probabilities are a distribution, and so are the
	// protected ones.
	for _, p := range [][]float64{res.Exceedance, res.ProtectedExceedance, res.Frequencies} {
		sum := 0.0
		for _, v := range p {
			sum += v
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("%v sums to %v", p, sum)
		}
	}
	// SPM's looser tolerance (1e-3) stops earlier at nearly the same α.
	spm, err := BMS(lme, &BMSOptions{Prior: prior, Tolerance: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	if spm.Iterations > res.Iterations {
		t.Errorf("tolerance 1e-3: %d iterations, 1e-10: %d", spm.Iterations, res.Iterations)
	}
	if d := cmp.Diff(res.Alpha, spm.Alpha, cmpopts.EquateApprox(0, 1e-2)); d != "" {
		t.Errorf("tolerance 1e-3 mismatch (-want +got):\n%s", d)
	}
}

// A subject whose data a model cannot produce (log evidence -Inf) gives
// that model no responsibility; the other subjects decide as before.
func TestBMSMinusInf(t *testing.T) {
	inf := math.Inf(-1)
	res, err := BMS([][]float64{{inf, 0}, {inf, -5}, {inf, -2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every subject is model 2's: α = (1, 4), as TestBMSDecisiveByHand.
	if d := cmp.Diff([]float64{1, 4}, res.Alpha, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("alpha mismatch (-want +got):\n%s", d)
	}
	if math.IsNaN(res.BOR) || math.Abs(res.BOR-1.0/3) > 1e-12 {
		t.Errorf("BOR %v, want 1/3", res.BOR)
	}
}

// Two models: the quadrature of ExceedanceProbabilities equals the Beta
// distribution function that BMS uses (exact), including counts below 1
// and large counts.
func TestExceedanceQuadratureBeta(t *testing.T) {
	for _, a := range [][2]float64{{1, 1}, {1, 4}, {2.5, 7.25}, {0.3, 0.8}, {0.5, 30}, {40, 41}, {500, 530}, {5000, 4900}} {
		got := ExceedanceProbabilities(a[:])
		want := mathext.RegIncBeta(a[1], a[0], 0.5)
		t.Logf("alpha %v: quadrature - Beta = %.2g", a, got[0]-want)
		if math.Abs(got[0]-want) > 1e-9 {
			t.Errorf("alpha %v: xp_1 %.12g, Beta %.12g", a, got[0], want)
		}
	}
}

// Three or more models: symmetric counts give 1/K each; a uniform
// Dirichlet with one count doubled is checked against 4·10^5 draws of the
// Dirichlet (seeded; tolerance five standard errors).
func TestExceedanceQuadratureSampling(t *testing.T) {
	for _, K := range []int{3, 5} {
		a := make([]float64, K)
		for k := range a {
			a[k] = 3.7
		}
		for k, p := range ExceedanceProbabilities(a) {
			if math.Abs(p-1/float64(K)) > 1e-10 {
				t.Errorf("K = %d: xp[%d] = %v, want 1/%d", K, k, p, K)
			}
		}
	}
	alpha := []float64{6, 3, 2.5, 1}
	got := ExceedanceProbabilities(alpha)
	const draws = 400000
	src := rand.NewPCG(1, 2)
	gs := make([]distuv.Gamma, len(alpha))
	for k, a := range alpha {
		gs[k] = distuv.Gamma{Alpha: a, Beta: 1, Src: src}
	}
	count := make([]float64, len(alpha))
	for range draws {
		best, bv := 0, -1.0
		for k := range gs {
			if v := gs[k].Rand(); v > bv {
				best, bv = k, v
			}
		}
		count[best]++
	}
	for k := range count {
		p := count[k] / draws
		se := math.Sqrt(p*(1-p)/draws) + 1e-6
		if math.Abs(got[k]-p) > 5*se {
			t.Errorf("xp[%d] = %.5f, sampling %.5f ± %.5f", k, got[k], p, se)
		}
	}
}

// BMS on four models uses the quadrature, and a model that wins every
// subject has the largest exceedance probability.
func TestBMSFourModels(t *testing.T) {
	lme := [][]float64{{-10, -12, -15, -11}, {-20, -25, -21, -22}, {-5, -9, -8, -7}, {-30, -29, -35, -33}}
	res, err := BMS(lme, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExceedanceMethod != ExceedanceQuadrature {
		t.Errorf("method %q", res.ExceedanceMethod)
	}
	for k := 1; k < 4; k++ {
		if !(res.Exceedance[0] > res.Exceedance[k]) || !(res.Frequencies[0] > res.Frequencies[k]) {
			t.Errorf("model 1 does not lead: xp %v, r %v", res.Exceedance, res.Frequencies)
		}
	}
	if !(res.BOR > 0 && res.BOR < 1) {
		t.Errorf("BOR %v", res.BOR)
	}
}

// TestBMSHugeEvidences: log evidences of ±1e308 (whose sums overflow)
// give the frequencies, exceedance and BOR of the same differences at a
// smaller scale, not NaN: only a subject's differences matter.
func TestBMSHugeEvidences(t *testing.T) {
	huge, err := BMS([][]float64{{1e308, -1e308}, {1e308, -1e308}, {-1e308, 1e308}, {5e307, 5e307}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	small, err := BMS([][]float64{{0, -1e4}, {0, -1e4}, {-1e4, 0}, {0, 0}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want []float64
	}{
		{"alpha", huge.Alpha, small.Alpha},
		{"frequencies", huge.Frequencies, small.Frequencies},
		{"exceedance", huge.Exceedance, small.Exceedance},
		{"protected exceedance", huge.ProtectedExceedance, small.ProtectedExceedance},
		{"BOR", []float64{huge.BOR}, []float64{small.BOR}},
	} {
		for k := range c.want {
			if math.IsNaN(c.got[k]) || math.Abs(c.got[k]-c.want[k]) > 1e-12 {
				t.Errorf("%s: %v, the same differences at a smaller scale give %v", c.name, c.got, c.want)
				break
			}
		}
	}
	if !math.IsInf(huge.FreeEnergy, 1) || !math.IsInf(huge.NullFreeEnergy, 1) {
		t.Errorf("F1 %v, F0 %v: the sums of 1e308 overflow to +Inf", huge.FreeEnergy, huge.NullFreeEnergy)
	}
}

func TestBMSErrors(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		lme  [][]float64
		opts *BMSOptions
		want string
	}{
		{nil, nil, "no subjects"},
		{[][]float64{{1}}, nil, "1 models, want 2..100 (MaxBMSModels)"},
		// 1,000 models once ran for minutes (the exceedance
		// probabilities), with no way to stop them.
		{[][]float64{make([]float64, MaxBMSModels+1)}, nil, "fit: BMS: 101 models, want 2..100 (MaxBMSModels)"},
		{[][]float64{{1, 2}, {1}}, nil, "subject 2 has 1 log evidences"},
		{[][]float64{{1, math.NaN()}}, nil, "subject 1 model 2: log evidence NaN"},
		{[][]float64{{1, 2}, {inf, 2}}, nil, "subject 2 model 1: log evidence +Inf"},
		{[][]float64{{1, 2}, {-inf, -inf}}, nil, "subject 2: log evidence -Inf under every model"},
		{[][]float64{{1, 2}}, &BMSOptions{Prior: []float64{1}}, "Prior: 1 counts, want 2"},
		{[][]float64{{1, 2}}, &BMSOptions{Prior: []float64{1, 0}}, "Prior[1]: 0"},
		{[][]float64{{1, 2}}, &BMSOptions{Tolerance: -1}, "Tolerance: -1"},
		{[][]float64{{1, 2}}, &BMSOptions{MaxIterations: -1}, "MaxIterations: -1"},
	} {
		_, err := BMS(c.lme, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "fit: ") {
			t.Errorf("BMS(%v, %+v): error %v, want %q", c.lme, c.opts, err, c.want)
		}
	}
}

// ExceedanceProbabilities documents a panic for counts that are not
// finite and > 0.
func TestExceedanceProbabilitiesPanics(t *testing.T) {
	for _, a := range [][]float64{{1, 0}, {1, math.NaN()}, {math.Inf(1), 1}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "fit: ExceedanceProbabilities") {
					t.Errorf("alpha %v: recovered %v", a, r)
				}
			}()
			ExceedanceProbabilities(a)
		}()
	}
}

func BenchmarkBMS(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, K := range []int{2, 3} {
		lme := make([][]float64, 50)
		for i := range lme {
			lme[i] = make([]float64, K)
			for k := range lme[i] {
				lme[i][k] = -40 + 3*rng.NormFloat64()
			}
		}
		b.Run(fmt.Sprintf("subjects=50/models=%d", K), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := BMS(lme, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Three subjects whose data favour the second model decisively: every
// subject is the second model's, so the Dirichlet counts are (1, 1 + 3).
func ExampleBMS() {
	lme := [][]float64{ // subjects × models: log evidences
		{-1000, 0},
		{-1010, -10},
		{-1003.5, -3.5},
	}
	res, err := BMS(lme, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("alpha %.3g\n", res.Alpha)
	fmt.Printf("expected frequencies %.3g\n", res.Frequencies)
	fmt.Printf("exceedance %.4g (%s)\n", res.Exceedance, res.ExceedanceMethod)
	fmt.Printf("BOR %.4g, protected exceedance %.4g\n", res.BOR, res.ProtectedExceedance)
	// Output:
	// alpha [1 4]
	// expected frequencies [0.2 0.8]
	// exceedance [0.0625 0.9375] (beta-cdf)
	// BOR 0.3333, protected exceedance [0.2083 0.7917]
}
