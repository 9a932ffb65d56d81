package expfam_test

import (
	"math"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
)

func TestCategoricalEntropy(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    []float64
		want float64
		tol  float64
	}{
		// Closed form -Σ p ln p = -(0.7 ln 0.7 + 0.2 ln 0.2 + 0.1 ln 0.1) = 0.801819 (to 6 digits).
		{"0.7,0.2,0.1 (6 digits)", []float64{0.7, 0.2, 0.1}, 0.801819, 1e-6},
		// Same, 0.80181855254333730856 from mpmath (testdata/reference.py).
		{"0.7,0.2,0.1", []float64{0.7, 0.2, 0.1}, 0.80181855254333730856, 1e-15},
		// 0 ln 0 = 0: (0.5, 0, 0.5) has entropy ln 2.
		{"zero in the middle", []float64{0.5, 0, 0.5}, math.Ln2, 1e-15},
		// A point mass has entropy 0.
		{"point mass", []float64{0, 1, 0}, 0, 0},
		// Uniform over 4: ln 4.
		{"uniform", []float64{0.25, 0.25, 0.25, 0.25}, math.Log(4), 1e-15},
	} {
		checkClose(t, tc.name, expfam.Categorical{P: tc.p}.Entropy(), tc.want, tc.tol)
	}
}

func TestCategoricalKL(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name string
		p, q []float64
		want float64
	}{
		// Σ p ln(p/q) by hand: 0.5 ln(0.5/0.25) * 2 = ln 2; q's mass at index 2 where p is 0 costs nothing.
		{"zero in p only", []float64{0.5, 0.5, 0}, []float64{0.25, 0.25, 0.5}, math.Ln2},
		// p has mass where q has none: +Inf.
		{"zero in q only", []float64{0.5, 0, 0.5}, []float64{0.5, 0.5, 0}, inf},
		// Zeros on both sides at the same index: the term is 0; 1 ln(1/1) = 0.
		{"zeros both sides", []float64{1, 0}, []float64{1, 0}, 0},
		// 1 ln(1/0.5) = ln 2, the zero entry of p contributes 0.
		{"zeros both sides, different", []float64{0, 1, 0}, []float64{0, 0.5, 0.5}, math.Ln2},
		// Self-divergence is 0.
		{"self", []float64{0.7, 0.2, 0.1}, []float64{0.7, 0.2, 0.1}, 0},
		// 0.7 ln(0.7/0.2) + 0.3 ln(0.3/0.8), by hand.
		{"bernoulli", []float64{0.7, 0.3}, []float64{0.2, 0.8}, 0.7*math.Log(0.7/0.2) + 0.3*math.Log(0.3/0.8)},
	} {
		checkClose(t, tc.name, expfam.Categorical{P: tc.p}.KL(expfam.Categorical{P: tc.q}), tc.want, 1e-15)
	}
	mustPanic(t, "Categorical.KL length mismatch", func() {
		expfam.Categorical{P: []float64{1}}.KL(expfam.Categorical{P: []float64{0.5, 0.5}})
	})
}

func TestCategoricalNaturalMean(t *testing.T) {
	c := expfam.Categorical{P: []float64{0.5, 0, 0.25, 0.25}}
	// ln p with ln 0 = -Inf.
	want := []float64{math.Log(0.5), math.Inf(-1), math.Log(0.25), math.Log(0.25)}
	if d := sliceDiff(want, c.Natural(nil), 0); d != "" {
		t.Errorf("Natural: %s", d)
	}
	dst := make([]float64, 4)
	if got := c.Natural(dst); &got[0] != &dst[0] {
		t.Error("Natural(dst) did not return dst")
	}
	m := c.Mean(nil)
	if d := sliceDiff(c.P, m, 0); d != "" {
		t.Errorf("Mean: %s", d)
	}
	m[0] = 9
	if c.P[0] != 0.5 {
		t.Error("Mean(nil) aliases P")
	}
	mustPanic(t, "Natural short dst", func() { c.Natural(make([]float64, 3)) })
	mustPanic(t, "Mean short dst", func() { c.Mean(make([]float64, 5)) })
}

// The entropy of an exponential family with base measure 1 is
// H = A(η) - η·E[T]; for a categorical η = ln p, A(η) = LogSumExp(ln p) = 0
// and E[T] = p, with 0·(-Inf) = 0.
func TestCategoricalEntropyIdentity(t *testing.T) {
	for _, p := range [][]float64{{0.7, 0.2, 0.1}, {0.5, 0, 0.5}, {1e-300, 1 - 1e-300}, {1}} {
		c := expfam.Categorical{P: p}
		eta := c.Natural(nil)
		h := expfam.CategoricalLogNormalizer(eta) - dot(c.Mean(nil), eta)
		checkClose(t, "identity entropy", c.Entropy(), h, 1e-15)
	}
}

func TestSoftmax(t *testing.T) {
	inf := math.Inf(1)
	nan := math.NaN()
	vn := -1000 + math.Ln2
	ed := math.Exp(vn + 1000) // vn + 1000 is exact (Sterbenz)
	for _, tc := range []struct {
		name     string
		eta      []float64
		want     []float64
		wantLogZ float64
	}{
		// exp(ln k)/Σ = k/6, logZ = ln 6.
		{"logs of 1,2,3", []float64{0, math.Ln2, math.Log(3)}, []float64{1. / 6, 2. / 6, 3. / 6}, math.Log(6)},
		// -Inf entries give 0 and do not change the normaliser: logZ = ln(1+1).
		{"-Inf entries", []float64{-inf, 0, 0, -inf}, []float64{0, 0.5, 0.5, 0}, math.Ln2},
		// Huge values: softmax is shift invariant, logZ = 1000 + ln 2 (exp(1000) overflows).
		{"huge", []float64{1000, 1000}, []float64{0.5, 0.5}, 1000 + math.Ln2},
		{"max float", []float64{math.MaxFloat64, math.MaxFloat64}, []float64{0.5, 0.5}, math.MaxFloat64},
		// Very negative values: exp(-1000) underflows, the shift avoids 0/0.
		// ed = e^(η_1-η_0) with the difference of the stored floats (≈ 2).
		{"very negative", []float64{-1000, vn}, []float64{1 / (1 + ed), ed / (1 + ed)}, -1000 + math.Log1p(ed)},
		// A single entry: probability 1, logZ = the entry.
		{"single", []float64{-3.5}, []float64{1}, -3.5},
		// Dominated entry: logZ = ln(1 + e^-40) = log1p(e^-40) ≈ 4.248e-18, not rounded to 0.
		{"dominated", []float64{0, -40}, []float64{1 / (1 + math.Exp(-40)), math.Exp(-40) / (1 + math.Exp(-40))}, math.Log1p(math.Exp(-40))},
		// Degenerate inputs: NaN everywhere.
		{"all -Inf", []float64{-inf, -inf}, []float64{nan, nan}, nan},
		{"NaN", []float64{0, nan, 1}, []float64{nan, nan, nan}, nan},
		{"+Inf", []float64{0, inf}, []float64{nan, nan}, nan},
		{"empty", []float64{}, []float64{}, nan},
	} {
		dst := make([]float64, len(tc.eta))
		logZ := expfam.Softmax(dst, tc.eta)
		if d := sliceDiff(tc.want, dst, 1e-15); d != "" {
			t.Errorf("%s: Softmax: %s", tc.name, d)
		}
		if !(near(logZ, tc.wantLogZ, 1e-15) || math.IsNaN(logZ) && math.IsNaN(tc.wantLogZ)) {
			t.Errorf("%s: logZ = %v, want %v", tc.name, logZ, tc.wantLogZ)
		}
		// In place, and with a nil dst (normaliser only), give the same.
		in := append([]float64(nil), tc.eta...)
		logZ2 := expfam.Softmax(in, in)
		if d := sliceDiff(dst, in, 0); d != "" {
			t.Errorf("%s: in-place Softmax: %s", tc.name, d)
		}
		if logZ3 := expfam.Softmax(nil, tc.eta); !(logZ2 == logZ && logZ3 == logZ || math.IsNaN(logZ)) {
			t.Errorf("%s: logZ %v (dst), %v (in place), %v (nil dst) differ", tc.name, logZ, logZ2, logZ3)
		}
		if s := tc.name; !math.IsNaN(logZ) {
			var sum float64
			for _, p := range dst {
				sum += p
			}
			checkClose(t, s+": sum of softmax", sum, 1, 1e-15)
		}
	}
	mustPanic(t, "Softmax length mismatch", func() { expfam.Softmax(make([]float64, 2), []float64{1, 2, 3}) })
}

func TestLogSumExp(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name string
		eta  []float64
		want float64
	}{
		{"logs of 1,2,3", []float64{0, math.Ln2, math.Log(3)}, math.Log(6)},
		{"huge", []float64{1000, 1000}, 1000 + math.Ln2},
		{"dominated", []float64{-40, 0}, math.Log1p(math.Exp(-40))},
		// The mathematical limits: ln 0 = -Inf for the empty sum and for all -Inf; +Inf wins.
		{"empty", nil, -inf},
		{"all -Inf", []float64{-inf, -inf}, -inf},
		{"+Inf", []float64{1, inf, -inf}, inf},
	} {
		checkClose(t, tc.name, expfam.LogSumExp(tc.eta), tc.want, 1e-15)
		checkClose(t, tc.name+" (CategoricalLogNormalizer)", expfam.CategoricalLogNormalizer(tc.eta), tc.want, 1e-15)
	}
	if got := expfam.LogSumExp([]float64{1, math.NaN()}); !math.IsNaN(got) {
		t.Errorf("LogSumExp with NaN = %v, want NaN", got)
	}
}

// Gradient of the log-normaliser = expected sufficient statistics (paper
// Appendix D): ∂ LogSumExp(η)/∂η_i = softmax(η)_i, checked by central
// differences (truncation error O(h²) ≈ 1e-12, rounding ≈ 1e-16/h).
func TestLogSumExpGradient(t *testing.T) {
	for _, eta := range [][]float64{{0.3, -1.2, 2.5, 0}, {100, 101, 99.5}, {-7, 0}} {
		want := make([]float64, len(eta))
		expfam.Softmax(want, eta)
		for i := range eta {
			g := centralDiff(expfam.LogSumExp, eta, i, 1e-5)
			checkClose(t, "d LogSumExp/d eta", g, want[i], 1e-8)
		}
	}
}
