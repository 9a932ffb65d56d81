package model_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-ai/arbor/model"
	"github.com/arbor-ai/arbor/schedule"
)

// The multivariate examples of docs/models.md, each a model file and the
// same model written with the Go builder: equal posteriors and F to 1e-12.

func fileJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// observed returns the "observed" of the file's variable name.
func observed(file map[string]any, name string) []any {
	for _, v := range file["variables"].([]any) {
		if v.(map[string]any)["name"] == name {
			return v.(map[string]any)["observed"].([]any)
		}
	}
	return nil
}

func floats(x any) []float64 {
	var out []float64
	for _, v := range x.([]any) {
		out = append(out, v.(float64))
	}
	return out
}

func diag(d int, x float64) [][]float64 {
	m := make([][]float64, d)
	for i := range m {
		m[i] = make([]float64, d)
		m[i][i] = x
	}
	return m
}

// runBoth runs the file and the built model and compares every hidden
// variable's posterior parameters (in model order) and F.
func runBoth(t *testing.T, path string, b *model.Builder) {
	t.Helper()
	fm, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	gm, err := b.Build("go")
	if err != nil {
		t.Fatal(err)
	}
	fr, err := schedule.Run(context.Background(), fm.Graph, &fm.Settings)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := schedule.Run(context.Background(), gm.Graph, &gm.Settings)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(fr.Final()-gr.Final()) > 1e-12*math.Max(1, math.Abs(fr.Final())) {
		t.Errorf("%s: F %.15g from the file, %.15g from Go", path, fr.Final(), gr.Final())
	}
	var fp, gp [][]float64
	for _, v := range fm.Variables {
		if !v.Observed() {
			fp = append(fp, append(v.Params(), v.Stats()...))
		}
	}
	for _, v := range gm.Variables {
		if !v.Observed() {
			gp = append(gp, append(v.Params(), v.Stats()...))
		}
	}
	if len(fp) != len(gp) {
		t.Fatalf("%s: %d hidden variables from the file, %d from Go", path, len(fp), len(gp))
	}
	for i := range fp {
		for j := range fp[i] {
			if math.Abs(fp[i][j]-gp[i][j]) > 1e-12*math.Max(1, math.Abs(fp[i][j])) {
				t.Fatalf("%s: hidden variable %d entry %d: %.15g from the file, %.15g from Go", path, i, j, fp[i][j], gp[i][j])
			}
		}
	}
}

func TestMvExamplesFileEqualsGo(t *testing.T) {
	t.Run("tracking", func(t *testing.T) {
		const path = "../examples/models/multivariate/tracking.json"
		file := fileJSON(t, path)
		ys := observed(file, "y")
		a := [][]float64{{1, 0, 1, 0}, {0, 1, 0, 1}, {0, 0, 1, 0}, {0, 0, 0, 1}}
		h := [][]float64{{1, 0, 0, 0}, {0, 1, 0, 0}}
		q := [][]float64{{0.1 / 3, 0, 0.05, 0}, {0, 0.1 / 3, 0, 0.05}, {0.05, 0, 0.1, 0}, {0, 0.05, 0, 0.1}}
		r := [][]float64{{0.5, 0.1}, {0.1, 0.4}}
		b := model.New()
		xs := make([]model.Var, len(ys))
		for i := range ys {
			xs[i] = b.MvNormal(fmt.Sprint("x", i), 4)
		}
		xs[0].MvNormalFrom(model.Vec(0, 0, 1, -0.5), model.CovarianceMatrix([][]float64{{4, 0, 0, 0}, {0, 4, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}))
		for i := 1; i < len(ys); i++ {
			xs[i].MvNormalFrom(model.MvAffine(xs[i-1], a, nil), model.CovarianceMatrix(q))
		}
		for i, y := range ys {
			b.MvNormal(fmt.Sprint("obs", i), 2).ObserveVector(floats(y)).MvNormalFrom(model.MvAffine(xs[i], h, nil), model.CovarianceMatrix(r))
		}
		b.Settings(model.SettingsSpec{Method: "sum-product"})
		runBoth(t, path, b)
	})
	t.Run("regression", func(t *testing.T) {
		const path = "../examples/models/multivariate/regression-vector.json"
		file := fileJSON(t, path)
		x := file["data"].(map[string]any)["X"].([]any)
		ys := observed(file, "y")
		b := model.New()
		w := b.MvNormal("w", 3).MvNormalFrom(model.Vec(0, 0, 0), model.PrecisionMatrix(diag(3, 0.5)))
		tau := b.Gamma("tau", 1, 1)
		for n, y := range ys {
			b.Normal(fmt.Sprint("y", n)).ObserveValue(y.(float64)).NormalDot(w, floats(x[n]), model.Num(0), model.Of(tau))
		}
		b.Settings(model.SettingsSpec{Iterations: 500, Tolerance: 1e-12})
		runBoth(t, path, b)
	})
	t.Run("mean and precision matrix", func(t *testing.T) {
		const path = "../examples/models/multivariate/mean-precision-matrix.json"
		xs := observed(fileJSON(t, path), "x")
		b := model.New()
		mu := b.MvNormal("mu", 3).MvNormalFrom(model.Vec(0, 0, 0), model.PrecisionMatrix(diag(3, 0.1)))
		lam := b.Wishart("Lambda", 5, diag(3, 0.5))
		for n, x := range xs {
			b.MvNormal(fmt.Sprint("x", n), 3).ObserveVector(floats(x)).MvNormalFrom(model.MvOf(mu), model.PrecisionOf(lam))
		}
		b.Settings(model.SettingsSpec{Iterations: 500, Tolerance: 1e-12})
		runBoth(t, path, b)
	})
	t.Run("coin toss", func(t *testing.T) {
		const path = "../examples/models/multivariate/coin-toss.json"
		tosses := observed(fileJSON(t, path), "toss")
		b := model.New()
		p := b.Beta("p", 2, 2)
		for n, x := range tosses {
			b.Categorical(fmt.Sprint("toss", n), 2).Observe(int(x.(float64))).Bernoulli(model.Of(p))
		}
		runBoth(t, path, b)
	})
}

// Every multivariate example reads into a Spec (ParseSpec) and back to
// JSON (FromSpec) as the same model.
func TestMvExamplesSpecRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../examples/models/multivariate/*.json")
	if len(files) < 4 {
		t.Fatalf("%d example files", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := model.ParseSpec(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		a, err := model.Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		b, err := model.FromSpec(f, sp)
		if err != nil {
			t.Fatalf("%s: FromSpec: %v", f, err)
		}
		ra, err := schedule.Run(context.Background(), a.Graph, &a.Settings)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := schedule.Run(context.Background(), b.Graph, &b.Settings)
		if err != nil {
			t.Fatal(err)
		}
		if ra.Final() != rb.Final() || ra.Iterations != rb.Iterations {
			t.Errorf("%s: F %v after %d sweeps, through the Spec %v after %d", f, ra.Final(), ra.Iterations, rb.Final(), rb.Iterations)
		}
	}
}
