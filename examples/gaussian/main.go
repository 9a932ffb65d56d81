// Command gaussian writes, with the model builder, the five continuous
// models of examples/models — a local-level model (random walk plus
// noise) with an unknown noise precision, the unknown mean and precision
// of i.i.d. data, a Gaussian mixture of three components, a hidden
// Markov model whose two states (engaged, lapsing) emit reaction times,
// and a linear regression with unknown weights, intercept and noise
// precision — runs each as `arbor infer` does and prints its normal
// posteriors.
//
//	go run ./examples/gaussian -model local-level
//	go run ./examples/gaussian -model unknown-mean-precision --json
//
// The models are univariate (the multivariate ones are in examples/models/multivariate).
// Its test checks that every model gives the posteriors of `arbor infer`
// on its file to 1e-12. docs/models.md gives the equations.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"

	"github.com/arbor-ai/arbor/model"
)

// The data, as in the model files.
var (
	localLevelY    = []float64{1.67, -0.27, 0.588, -1.109, -1.453, -2.022, -1.65, 1.1, 1.61, 0.128, -2.127, 0.09, 0.204, -2.584, 0.94, 1.707, 1.553, -0.051, 0.839, -0.094}
	meanPrecisionY = []float64{0.955, 1.637, 0.896, 1.099, 1.842, 1.797, 1.401, 0.723, 0.287, 1.463, 1.372, 1.921}
	mixtureY       = []float64{-0.762, 2.927, -1.908, 2.081, 3.176, 2.848, -0.289, -1.893, -2.386, -0.053, 4.334, 2.367, -0.469, 0.118, 3.182, -0.286, -0.034, 0.739, -1.286, 3.151, 1.029, -1.012, -2.037, 3.575, 0.819, -2.597, -0.135, -0.981, 0.043, 2.186}
	// The regression's covariates x_n (three per observation) and
	// responses y_n.
	regressionX   = [][]float64{{-0.26, 0.51, -0.23}, {-0.32, -0.93, -0.21}, {1.11, 0.42, 1.04}, {0.25, 0.39, 0.19}, {-1.67, 0.86, 0.51}, {0.5, -1.69, -1.74}, {-0.89, -0.47, 0.31}, {-0.05, 0.52, -0.64}, {0.31, 0.39, -0.66}, {1.72, 0.56, 1.2}, {-0.62, -0.74, -0.34}, {-0.11, 0.63, 0.25}, {-0.45, -0.96, -0.52}, {1.22, -0.81, 0.24}, {0.43, -1.49, 0.05}, {1.31, -2.01, -0.32}, {-0.11, -0.82, 0.5}, {-0.06, -1.46, 0.83}, {0.67, 0.95, 1.44}, {0.36, 0.12, -1.3}}
	regressionY   = []float64{-0.517, 1.669, 1.819, -0.242, -3.754, 3.694, 1.104, -1.751, -0.674, 2.88, 1.802, -0.311, 0.735, 3.011, 4.529, 6.157, 1.865, 4.434, 1.076, 0.429}
	reactionTimes = []float64{0.442, 0.585, 0.43, 0.309, 0.732, 0.479, 0.473, 0.437, 0.493, 0.379, 0.522, 0.471, 0.446, 0.455, 0.557, 0.397, 0.637, 0.752, 0.756, 0.684, 0.973, 0.997, 0.734, 0.854}
)

// builders lists the models by the name of their file.
var builders = map[string]func() (*model.Model, error){
	"local-level":            localLevel,
	"unknown-mean-precision": meanPrecision,
	"gaussian-mixture":       mixture,
	"hmm-reaction-times":     reactionTimeHMM,
	"linear-regression":      regression,
}

// localLevel: x_0 ~ N(0, 1/0.1), x_t ~ N(x_(t-1), 1/4), y_t ~ N(x_t, 1/r),
// r ~ Gamma(2, 2); the states exactly (sum-product: Kalman smoothing), r by
// VMP.
func localLevel() (*model.Model, error) {
	b := model.New()
	r := b.Gamma("r", 2, 2)
	xs := make([]model.Var, len(localLevelY))
	xs[0] = b.Normal("x0").NormalFrom(model.Num(0), model.Num(0.1))
	for t := 1; t < len(xs); t++ {
		xs[t] = b.Normal(fmt.Sprint("x", t)).NormalFrom(model.Of(xs[t-1]), model.Num(4))
	}
	for t, y := range localLevelY {
		b.Normal(fmt.Sprint("y", t)).ObserveValue(y).NormalFrom(model.Of(xs[t]), model.Of(r))
	}
	b.Settings(model.SettingsSpec{Method: "sum-product", Iterations: 1000, Tolerance: 1e-12})
	return b.Build("local-level")
}

// meanPrecision: y_i ~ N(μ, 1/τ), μ ~ N(0, 1/0.01), τ ~ Gamma(1, 1), mean
// field q(μ) q(τ) (Winn and Bishop's example).
func meanPrecision() (*model.Model, error) {
	b := model.New()
	mu := b.Normal("mu").NormalFrom(model.Num(0), model.Num(0.01))
	tau := b.Gamma("tau", 1, 1)
	for i, y := range meanPrecisionY {
		b.Normal(fmt.Sprint("y", i)).ObserveValue(y).NormalFrom(model.Of(mu), model.Of(tau))
	}
	b.Settings(model.SettingsSpec{Iterations: 1000, Tolerance: 1e-12})
	return b.Build("unknown-mean-precision")
}

// mixture: y_i ~ N(m_(z_i), 1/t_(z_i)), z_i ~ Cat(θ), θ ~ Dir(1, 1, 1),
// m_k ~ N(-2, 0, 2; precision 0.25), t_k ~ Gamma(2, 1). The assignments
// are declared first, so that they are updated first, from the means'
// different priors.
func mixture() (*model.Model, error) {
	b := model.New()
	zs := make([]model.Var, len(mixtureY))
	for i := range zs {
		zs[i] = b.Categorical(fmt.Sprint("z", i), 3)
	}
	theta := b.Dirichlet("theta", model.Tensor{Data: []float64{1, 1, 1}, Shape: []int{3}})
	var means, precisions []model.Param
	for k, mu := range []float64{-2, 0, 2} {
		means = append(means, model.Of(b.Normal(fmt.Sprint("m", k)).NormalFrom(model.Num(mu), model.Num(0.25))))
	}
	for k := range 3 {
		precisions = append(precisions, model.Of(b.Gamma(fmt.Sprint("t", k), 2, 1)))
	}
	for _, z := range zs {
		z.PriorFrom(theta)
	}
	for i, y := range mixtureY {
		b.Normal(fmt.Sprint("y", i)).ObserveValue(y).MixtureFrom(zs[i], means, precisions)
	}
	b.Settings(model.SettingsSpec{Iterations: 1000, Tolerance: 1e-12})
	return b.Build("gaussian-mixture")
}

// reactionTimeHMM: hidden states s_t in {engaged, lapsing}, s_0 ~ Cat(0.8,
// 0.2), P(s_t | s_(t-1)) sticky; a reaction time rt_t ~ N(m_(s_t),
// 1/τ_(s_t)) with the precisions known (250 and 40: standard deviations
// 63 ms and 158 ms) and the two mean reaction times learned. The states
// are exact (sum-product), the means VMP.
func reactionTimeHMM() (*model.Model, error) {
	b := model.New()
	trans := model.Tensor{Data: []float64{0.9, 0.2, 0.1, 0.8}, Shape: []int{2, 2}} // [next][prev]
	ss := make([]model.Var, len(reactionTimes))
	ss[0] = b.Categorical("s0", 2).Prior([]float64{0.8, 0.2})
	for t := 1; t < len(ss); t++ {
		ss[t] = b.Categorical(fmt.Sprint("s", t), 2).Given(trans, ss[t-1])
	}
	engaged := b.Normal("engaged").NormalFrom(model.Num(0.5), model.Num(100))
	lapse := b.Normal("lapse").NormalFrom(model.Num(0.9), model.Num(25))
	means := []model.Param{model.Of(engaged), model.Of(lapse)}
	precisions := []model.Param{model.Num(250), model.Num(40)}
	for t, rt := range reactionTimes {
		b.Normal(fmt.Sprint("rt", t)).ObserveValue(rt).MixtureFrom(ss[t], means, precisions)
	}
	b.Settings(model.SettingsSpec{Method: "sum-product", Iterations: 1000, Tolerance: 1e-12})
	return b.Build("hmm-reaction-times")
}

// regression: y_n ~ N(Σ_k w_k x_nk + b, 1/τ) with the weights
// w_k ~ N(0, 1/0.01), the intercept b ~ N(0, 1/0.01) and the noise
// precision τ ~ Gamma(1, 1) unknown, mean field q(w_0) q(w_1) q(w_2) q(b)
// q(τ); each observation's mean is the linear predictor model.Linear.
func regression() (*model.Model, error) {
	b := model.New()
	w := make([]model.Var, len(regressionX[0]))
	for k := range w {
		w[k] = b.Normal(fmt.Sprint("w", k))
	}
	bias := b.Normal("b")
	tau := b.Gamma("tau", 1, 1)
	ys := make([]model.Var, len(regressionY))
	for n, y := range regressionY {
		ys[n] = b.Normal(fmt.Sprint("y", n)).ObserveValue(y)
	}
	for k := range w {
		w[k].NormalFrom(model.Num(0), model.Num(0.01))
	}
	bias.NormalFrom(model.Num(0), model.Num(0.01))
	terms := make([]model.Term, len(w))
	for n, xs := range regressionX {
		for k, x := range xs {
			terms[k] = w[k].Times(x)
		}
		ys[n].NormalFrom(model.Linear(model.Of(bias), terms...), model.Of(tau))
	}
	b.Settings(model.SettingsSpec{Iterations: 1000, Tolerance: 1e-12})
	return b.Build("linear-regression")
}

// infer builds and runs the named model and returns its output.
func infer(name string) (model.InferOutput, error) {
	build, ok := builders[name]
	if !ok {
		return model.InferOutput{}, fmt.Errorf("unknown model %q", name)
	}
	m, err := build()
	if err != nil {
		return model.InferOutput{}, err
	}
	res, err := m.Infer(context.Background(), name, nil)
	if err != nil {
		return model.InferOutput{}, err
	}
	return m.Output(res), nil
}

func main() {
	name := flag.String("model", "local-level", "local-level, unknown-mean-precision, gaussian-mixture, hmm-reaction-times or linear-regression")
	asJSON := flag.Bool("json", false, `print {"posteriors": ...} as arbor infer --json does`)
	flag.Parse()
	out, err := infer(*name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gaussian:", err)
		os.Exit(2)
	}
	if *asJSON {
		_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"posteriors": out.Posteriors})
		return
	}
	fmt.Printf("%s: converged %v after %d sweeps, F = %.10g\n", *name, out.Converged, out.Iterations, out.FreeEnergy[len(out.FreeEnergy)-1])
	names := make([]string, 0, len(out.Posteriors))
	for v := range out.Posteriors {
		names = append(names, v)
	}
	sort.Strings(names)
	for _, v := range names {
		if p := out.Posteriors[v]; p.Mean != nil {
			fmt.Printf("  %-8s N(%.4f, %.4f)\n", v, *p.Mean, *p.Variance)
		}
	}
}
