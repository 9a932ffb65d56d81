package fit_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/fit"
)

// near reports whether got is want within tol, or both NaN.
func near(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= tol
}

// Recovery's correlation, bias and RMSE against hand values.
func TestRecoveryCorrelation(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name        string
		truth, est  []float64
		r, bias, rm float64
	}{
		// est = 2 truth + 1 exactly: r = 1; errors (2, 3, 4, 5): bias
		// 3.5, RMSE sqrt((4 + 9 + 16 + 25)/4) = sqrt(13.5).
		{"linear", []float64{1, 2, 3, 4}, []float64{3, 5, 7, 9}, 1, 3.5, math.Sqrt(13.5)},
		// est = -truth: r = -1; errors (-2, -4, -6): bias -4, RMSE
		// sqrt(56/3).
		{"reversed", []float64{1, 2, 3}, []float64{-1, -2, -3}, -1, -4, math.Sqrt(56.0 / 3)},
		// truth (1, 2, 4), est (2, 1, 3): means 7/3 and 2, deviations
		// (-4/3, -1/3, 5/3) and (0, -1, 1): Sxy = 0 + 1/3 + 5/3 = 2, Sxx =
		// 16/9 + 1/9 + 25/9 = 42/9, Syy = 2; r = 2 / sqrt(84/9) =
		// 0.654653...; errors (1, -1, -1): bias -1/3, RMSE 1.
		{"by hand", []float64{1, 2, 4}, []float64{2, 1, 3}, 2 / math.Sqrt(84.0/9), -1.0 / 3, 1},
		// A constant side: r undefined. Errors (3, 2, 1): bias 2, RMSE
		// sqrt(14/3).
		{"constant estimate", []float64{1, 2, 3}, []float64{4, 4, 4}, nan, 2, math.Sqrt(14.0 / 3)},
		// 0.1 three times: its floating-point mean, 0.30000000000000004/3,
		// is not 0.1, so that the deviations are not 0; still constant.
		// Errors (0.9, 1.9, 2.9): bias 1.9, RMSE sqrt(12.83/3).
		{"constant truth", []float64{0.1, 0.1, 0.1}, []float64{1, 2, 3}, nan, 1.9, math.Sqrt(12.83 / 3)},
		// One pair: r undefined; error 1.
		{"one", []float64{1}, []float64{2}, nan, 1, 1},
		{"none", nil, nil, nan, nan, nan},
	} {
		st := fit.Recovery(c.truth, c.est, nil)
		if st.N != len(c.truth) || !near(st.R, c.r, 1e-12) || !near(st.Bias, c.bias, 1e-12) || !near(st.RMSE, c.rm, 1e-12) {
			t.Errorf("%s: n %d r %v bias %v RMSE %v, want %d, %v, %v, %v", c.name, st.N, st.R, st.Bias, st.RMSE, len(c.truth), c.r, c.bias, c.rm)
		}
		if st.Laplace != 0 || !math.IsNaN(st.Coverage) {
			t.Errorf("%s: no SDs, yet %d with Laplace and coverage %v", c.name, st.Laplace, st.Coverage)
		}
	}
}

// The coverage of the 95% intervals est ± 1.96 SD by hand: errors (0.1,
// 0.5, 0, 0) with SDs (0.1, 0.2, none, 0.5): the intervals cover the
// first (0.1 <= 0.196) and the last (0 <= 0.98), not the second (0.5 >
// 0.392), and the third has none: coverage 2/3 over 3.
func TestRecoveryCoverage(t *testing.T) {
	st := fit.Recovery([]float64{0, 1, 0.5, -1}, []float64{0.1, 1.5, 0.5, -1}, []float64{0.1, 0.2, math.NaN(), 0.5})
	if st.Laplace != 3 || st.Coverage != 2.0/3 {
		t.Errorf("%d with Laplace, coverage %v, want 3 and 2/3", st.Laplace, st.Coverage)
	}
}

// ParamsRecovery by hand: ln α true (0, 1, 0.5, -1, 2) and estimated
// (0.1, 1.5, 0.5, -1, +Inf) with Laplace SDs (0.1, 0.2, none, 0.5, none),
// and a second parameter ω fixed at its default 0.5 (absent from the true
// values) and estimated at logit (0.2, -0.2, 0, 0, 0). The fifth subject's
// infinite ln α leaves it out of α's recovery, not of ω's.
//
// α on the ln scale: errors (0.1, 0.5, 0, 0), bias 0.15, RMSE
// sqrt(0.26/4); coverage 2/3 over 3 (TestRecoveryCoverage). On the natural
// scale: errors e^θ̂ − e^θ.
//
// ω: truth constant (logit 0.5 = 0 on the fitting scale), so r is
// undefined on both scales; errors on the logit scale (0.2, -0.2, 0, 0, 0):
// bias 0, RMSE sqrt(0.08/5).
//
// Posterior correlation of α and ω: the subjects with a Laplace
// approximation (the first, second and fourth) have ρ = 0.3, -0.6, 0.9:
// mean 0.2.
func TestParamsRecoveryByHand(t *testing.T) {
	alpha := agent.Param{Name: "alpha", Domain: agent.Positive, Default: 1}
	omega := agent.Param{Name: "omega", Domain: agent.UnitInterval, Default: 0.5}
	truth := []float64{0, 1, 0.5, -1, 2}
	est := []float64{0.1, 1.5, 0.5, -1, math.Inf(1)}
	sd := []float64{0.1, 0.2, math.NaN(), 0.5, math.NaN()}
	rho := []float64{0.3, -0.6, 0, 0.9, 0}
	west := []float64{0.2, -0.2, 0, 0, 0}
	var values []map[string]float64
	var fits []*fit.Result
	for i := range truth {
		r := &fit.Result{Params: []fit.Estimate{
			{Name: "alpha", Theta: est[i], Value: math.Exp(est[i]), SDTheta: sd[i]},
			{Name: "omega", Theta: west[i], Value: 1 / (1 + math.Exp(-west[i])), SDTheta: 0.1},
		}}
		if !math.IsNaN(sd[i]) {
			r.Laplace, r.Corr = true, [][]float64{{1, rho[i]}, {rho[i], 1}}
		}
		values = append(values, map[string]float64{"alpha": math.Exp(truth[i])})
		fits = append(fits, r)
	}
	rs := fit.ParamsRecovery([]agent.Param{alpha, omega}, values, fits)
	if len(rs) != 2 || rs[0].Param != alpha || rs[1].Param != omega {
		t.Fatalf("recoveries %+v", rs)
	}
	a, w := rs[0], rs[1]
	natBias, natSq := 0.0, 0.0
	for i := range 4 {
		d := math.Exp(est[i]) - math.Exp(truth[i])
		natBias += d / 4
		natSq += d * d / 4
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"alpha bias", a.Theta.Bias, 0.15},
		{"alpha RMSE", a.Theta.RMSE, math.Sqrt(0.26 / 4)},
		{"alpha coverage", a.Theta.Coverage, 2.0 / 3},
		{"alpha natural bias", a.Value.Bias, natBias},
		{"alpha natural RMSE", a.Value.RMSE, math.Sqrt(natSq)},
		{"alpha natural coverage", a.Value.Coverage, math.NaN()},
		{"alpha-alpha correlation", a.PostCorr[0], 1},
		{"alpha-omega correlation", a.PostCorr[1], 0.2},
		{"omega-alpha correlation", w.PostCorr[0], 0.2},
		{"omega r", w.Theta.R, math.NaN()},
		{"omega natural r", w.Value.R, math.NaN()},
		{"omega bias", w.Theta.Bias, 0},
		{"omega RMSE", w.Theta.RMSE, math.Sqrt(0.08 / 5)},
	} {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("%s %v, want %v", c.name, c.got, c.want)
		}
	}
	// r of α on the ln scale is Recovery's on the four finite pairs.
	if r := fit.Recovery(truth[:4], est[:4], nil).R; a.Theta.R != r {
		t.Errorf("alpha r %v, want %v", a.Theta.R, r)
	}
	if a.Theta.N != 4 || a.Value.N != 4 || a.Theta.Laplace != 3 || w.Theta.N != 5 || w.Theta.Laplace != 3 {
		t.Errorf("alpha n %d/%d with Laplace %d, omega n %d with Laplace %d; want 4/4, 3, 5, 3", a.Theta.N, a.Value.N, a.Theta.Laplace, w.Theta.N, w.Theta.Laplace)
	}
	// Without a Laplace approximation the posterior correlations are
	// undefined.
	none := fit.ParamsRecovery([]agent.Param{alpha}, values[2:3], []*fit.Result{{Params: fits[2].Params[:1]}})
	if !math.IsNaN(none[0].PostCorr[0]) || !math.IsNaN(none[0].Theta.Coverage) {
		t.Errorf("no Laplace: %+v", none[0])
	}
}

// Confusion counts each subject's winner by log evidence; a tie for the
// highest is undecided (once a win for the first model, so that a model
// compared with itself won every subject), and kept in the rows for BMS;
// a subject without evidence (NaN) or with +Inf under some model, or with
// -Inf under all, is undecided and left out of them.
func TestConfusion(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	gen := []int{0, 0, 0, 1, 1, 1, 1, 0}
	lme := [][]float64{
		{-10, -12},      // 0 wins
		{-10, -9},       // 1 wins
		{nan, -9},       // undecided: no evidence under model 0
		{-inf, -3},      // 1 wins: model 0 cannot produce the choices
		{-inf, -inf},    // undecided: neither can
		{-5, -5},        // a tie: undecided, but BMS takes it
		{-1, inf},       // undecided: +Inf is no evidence
		{-2.5, -2.5001}, // 0 wins
	}
	c := fit.Confusion(2, gen, lme)
	if got := fmt.Sprint(c.Counts, c.Undecided, c.LME); got != "[[2 1] [0 1]] [1 3] [[[-10 -12] [-10 -9] [-2.5 -2.5001]] [[-Inf -3] [-5 -5]]]" {
		t.Errorf("counts, undecided, BMS rows: %s", got)
	}
	// Three models, two tied for the highest: undecided; a tie below the
	// highest is a win. The same model twice ties on every subject.
	c3 := fit.Confusion(3, []int{0, 1, 2}, [][]float64{{-1, -3, -1}, {-4, -2, -4}, {-7, -7, -7}})
	if got := fmt.Sprint(c3.Counts, c3.Undecided, len(c3.LME[0])+len(c3.LME[1])+len(c3.LME[2])); got != "[[0 0 0] [0 1 0] [0 0 0]] [1 0 1] 3" {
		t.Errorf("three models: %s", got)
	}
	same := fit.Confusion(2, []int{0, 0, 1, 1}, [][]float64{{-3, -3}, {-8, -8}, {-1, -1}, {-2, -2}})
	if got := fmt.Sprint(same.Counts, same.Undecided); got != "[[0 0] [0 0]] [2 2]" {
		t.Errorf("a model against itself: %s, want every subject undecided", got)
	}
	lme[0][0] = 7 // the rows are copies
	if c.LME[0][0][0] != -10 {
		t.Error("LME shares the input's rows")
	}
	if c := fit.Confusion(3, nil, nil); fmt.Sprint(c.Counts, c.Undecided, len(c.LME)) != "[[0 0 0] [0 0 0] [0 0 0]] [0 0 0] 3" {
		t.Errorf("no subjects: %+v", c)
	}
}
