package fit

import (
	"fmt"
	"math"
	"slices"

	"github.com/arbor-ai/arbor/agent"
	"gonum.org/v1/gonum/stat"
)

// RecoveryStats is how well the estimates of a parameter recover its true
// values over subjects, on one scale.
type RecoveryStats struct {
	// N is the number of subjects (pairs of a true and an estimated value).
	N int
	// R is the Pearson correlation of the true and the estimated values:
	// NaN with fewer than 2 subjects or when either side is constant.
	R float64
	// Bias is the mean error, mean(estimate − truth), and RMSE the root
	// mean square error: NaN without subjects.
	Bias, RMSE float64
	// Laplace is the number of subjects with an SD, and Coverage the
	// fraction of them whose 95% interval estimate ± 1.96 SD holds the
	// true value: NaN when Laplace is 0.
	Laplace  int
	Coverage float64
}

// Recovery returns the recovery of the true values truth by the estimates
// est, subject i's pair being truth[i] and est[i]. sd[i] is the SD of
// est[i] (on a fitting scale, Estimate.SDTheta), NaN for a subject without
// one (no Laplace approximation); sd may be nil: no coverage. It panics
// when the lengths differ.
func Recovery(truth, est, sd []float64) RecoveryStats {
	if len(est) != len(truth) || (sd != nil && len(sd) != len(truth)) {
		panic(fmt.Sprintf("fit: Recovery: %d true values, %d estimates, %d SDs", len(truth), len(est), len(sd)))
	}
	st := RecoveryStats{N: len(truth), R: pearson(truth, est)}
	st.Bias, st.RMSE = biasRMSE(est, truth)
	covered := 0
	for i, s := range sd {
		if math.IsNaN(s) {
			continue
		}
		st.Laplace++
		if math.Abs(est[i]-truth[i]) <= 1.96*s {
			covered++
		}
	}
	st.Coverage = math.NaN()
	if st.Laplace > 0 {
		st.Coverage = float64(covered) / float64(st.Laplace)
	}
	return st
}

// pearson returns the Pearson correlation of x and y (gonum's
// stat.Correlation), NaN when either is constant or there are fewer than
// 2 pairs: the correlation is undefined then, and stat.Correlation, whose
// mean of a constant need not equal it in floating point, could return
// anything.
func pearson(x, y []float64) float64 {
	if len(x) < 2 || constant(x) || constant(y) {
		return math.NaN()
	}
	return stat.Correlation(x, y, nil)
}

// constant reports whether every value of x equals the first.
func constant(x []float64) bool {
	for _, v := range x[1:] {
		if v != x[0] {
			return false
		}
	}
	return true
}

// biasRMSE returns the mean error and the root mean square error of est
// against truth (NaN, NaN when empty).
func biasRMSE(est, truth []float64) (bias, rmse float64) {
	if len(est) == 0 {
		return math.NaN(), math.NaN()
	}
	for i := range est {
		d := est[i] - truth[i]
		bias += d
		rmse += d * d
	}
	n := float64(len(est))
	return bias / n, math.Sqrt(rmse / n)
}

// ParamRecovery is the recovery of one free parameter over subjects that
// the model fitting them generated.
type ParamRecovery struct {
	Param agent.Param
	// Theta is the recovery on the fitting scale θ
	// (Param.Domain.Transform), with the coverage of the Laplace 95%
	// intervals θ̂ ± 1.96 SD_θ over the subjects with a Laplace
	// approximation; Value the recovery on the natural scale, without
	// coverage (Laplace 0, Coverage NaN).
	Theta, Value RecoveryStats
	// PostCorr holds, for each free parameter, the mean over the subjects
	// with a Laplace approximation of its posterior correlation with this
	// one (Result.Corr, fitting scale), which shows which parameters trade
	// off; NaN when no subject has the approximation.
	PostCorr []float64
}

// ParamsRecovery returns the recovery of each of the free parameters free
// from the fits of simulated subjects: fits[i] is subject i's fit, its
// Params in the order of free, and truth[i] the values it was simulated
// with, by name (a parameter absent from it took its Default). A subject
// whose estimate θ̂ of a parameter is NaN or infinite is left out of that
// parameter's recovery. It panics when truth and fits differ in length or
// a fit has not one estimate per free parameter.
func ParamsRecovery(free []agent.Param, truth []map[string]float64, fits []*Result) []ParamRecovery {
	if len(truth) != len(fits) {
		panic(fmt.Sprintf("fit: ParamsRecovery: %d subjects' true values, %d fits", len(truth), len(fits)))
	}
	for i, r := range fits {
		if len(r.Params) != len(free) {
			panic(fmt.Sprintf("fit: ParamsRecovery: fit %d has %d estimates, want %d", i, len(r.Params), len(free)))
		}
	}
	out := make([]ParamRecovery, len(free))
	for j, p := range free {
		var tt, et, sd, tx, ex []float64
		laplace := 0
		corr := make([]float64, len(free))
		for i, r := range fits {
			x := p.Default
			if v, ok := truth[i][p.Name]; ok {
				x = v
			}
			e := r.Params[j]
			if math.IsNaN(e.Theta) || math.IsInf(e.Theta, 0) {
				continue
			}
			tt = append(tt, p.Domain.Transform(x))
			et = append(et, e.Theta)
			tx = append(tx, x)
			ex = append(ex, e.Value)
			s := math.NaN()
			if r.Laplace {
				s = e.SDTheta
				laplace++
				for k := range corr {
					corr[k] += r.Corr[j][k]
				}
			}
			sd = append(sd, s)
		}
		for k := range corr {
			if laplace > 0 {
				corr[k] /= float64(laplace)
			} else {
				corr[k] = math.NaN()
			}
		}
		out[j] = ParamRecovery{Param: p, Theta: Recovery(tt, et, sd), Value: Recovery(tx, ex, nil), PostCorr: corr}
	}
	return out
}

// ConfusionMatrix is the outcome of a model recovery: for the subjects
// simulated by each model, which model explains them best.
type ConfusionMatrix struct {
	// Counts[g][h] is the number of subjects generated by model g whose
	// log evidence is highest under model h alone.
	Counts [][]int
	// Undecided[g] is the number of subjects of model g that no model
	// wins: some model's log evidence is NaN (no Laplace approximation) or
	// +Inf, every model's is -Inf (none can produce the subject's
	// choices), or two models or more tie for the highest (a model
	// compared with itself ties on every subject).
	Undecided []int
	// LME[g] holds the log evidences under every model of the subjects of
	// model g that BMS takes (each finite or -Inf, one at least finite;
	// ties among them), one row per subject in input order: what BMS
	// compares the models on over model g's subjects.
	LME [][][]float64
}

// Confusion returns the confusion matrix of n models over subjects:
// gen[i] is the model (0..n-1) that generated subject i and lme[i][h] its
// log evidence under model h (Result.LogEvidence of h's fit). It panics
// when gen and lme differ in length, a model is out of range or a row of
// lme has not n values.
func Confusion(n int, gen []int, lme [][]float64) ConfusionMatrix {
	if len(gen) != len(lme) {
		panic(fmt.Sprintf("fit: Confusion: %d generating models, %d rows of log evidences", len(gen), len(lme)))
	}
	c := ConfusionMatrix{Counts: make([][]int, n), Undecided: make([]int, n), LME: make([][][]float64, n)}
	for g := range c.Counts {
		c.Counts[g] = make([]int, n)
	}
	for i, row := range lme {
		g := gen[i]
		if g < 0 || g >= n || len(row) != n {
			panic(fmt.Sprintf("fit: Confusion: subject %d: generated by model %d, %d log evidences, want 0..%d and %d", i, g, len(row), n-1, n))
		}
		best, ok, tie := 0, true, false
		for h, le := range row {
			if math.IsNaN(le) || math.IsInf(le, 1) {
				ok = false
			}
			switch {
			case le > row[best]:
				best, tie = h, false
			case h != best && le == row[best]:
				tie = true
			}
		}
		if !ok || math.IsInf(row[best], -1) {
			c.Undecided[g]++
			continue
		}
		c.LME[g] = append(c.LME[g], slices.Clone(row))
		if tie {
			c.Undecided[g]++
			continue
		}
		c.Counts[g][best]++
	}
	return c
}
