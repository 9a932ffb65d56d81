package model_test

import (
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/model"
)

// Bad multivariate input: one line naming the file, the field and the
// reason.
func TestMvBadInput(t *testing.T) {
	const x2 = `{"name": "x", "family": "mvnormal", "dim": 2}`
	file := func(vars, factors string) string {
		return `{"variables": [` + vars + `], "factors": [` + factors + `]}`
	}
	for _, c := range []struct {
		name, file, field, reason string
	}{
		{"non-symmetric", file(x2, `{"node": "mvnormal", "out": "x", "mean": [0, 0], "precision": [[1, 0.5], [0.4, 1]]}`),
			"factors[0] (mvnormal).precision", "not symmetric"},
		{"indefinite", file(x2, `{"node": "mvnormal", "out": "x", "mean": [0, 0], "covariance": [[1, 2], [2, 1]]}`),
			"factors[0] (mvnormal).covariance", "not positive definite"},
		{"wrong matrix shape", file(x2, `{"node": "mvnormal", "out": "x", "mean": [0, 0], "precision": [[1, 0, 0], [0, 1, 0]]}`),
			"factors[0] (mvnormal).precision", "want a 2×2 matrix"},
		{"wrong mean length", file(x2, `{"node": "mvnormal", "out": "x", "mean": [0, 0, 0], "precision": [[1, 0], [0, 1]]}`),
			"factors[0] (mvnormal).mean", "want an array of 2 numbers"},
		{"matrix of the mean", file(x2+`, {"name": "z", "family": "mvnormal", "dim": 3}`,
			`{"node": "mvnormal", "out": "x", "mean": {"of": "z", "matrix": [[1, 0], [0, 1]]}, "precision": [[1, 0], [0, 1]]}`),
			"factors[0] (mvnormal).mean.matrix", "want a 2×3 matrix"},
		{"mean of another dimension", file(x2+`, {"name": "z", "family": "mvnormal", "dim": 3}`,
			`{"node": "mvnormal", "out": "x", "mean": "z", "precision": [[1, 0], [0, 1]]}`),
			"factors[0] (mvnormal).mean", "dimension 3, want 2"},
		{"df too small", file(`{"name": "W", "family": "wishart", "dim": 3}`, `{"node": "wishart", "out": "W", "df": 2, "scale": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}`),
			"factors[0] (wishart).df", "want a finite number > d - 1 = 2"},
		{"dot of another length", file(`{"name": "w", "family": "mvnormal", "dim": 3}, {"name": "y", "family": "normal", "observed": 1}`,
			`{"node": "normal", "out": "y", "mean": {"dot": {"of": "w", "with": [1, 2]}}, "precision": 1}`),
			"factors[0] (normal).mean.dot.with", `want an array of 3 numbers (the length of "w")`},
		{"observed vector of the wrong length", file(`{"name": "x", "family": "mvnormal", "dim": 2, "observed": [1, 2, 3]}`, ``),
			`variables[0] ("x").observed`, "want an array of 2 numbers"},
		{"missing dim", file(`{"name": "x", "family": "mvnormal"}`, ``),
			`variables[0] ("x").dim`, "missing"},
		{"dim on a normal", file(`{"name": "x", "family": "normal", "dim": 2}`, ``),
			`variables[0] ("x").dim`, "only mvnormal and wishart variables have a dimension"},
		{"beta a", file(`{"name": "p", "family": "beta"}`, `{"node": "beta", "out": "p", "a": -1, "b": 1}`),
			"factors[0] (beta).a", "want a finite number > 0"},
		{"bernoulli of three outcomes", file(`{"name": "c", "family": "categorical", "shape": [3]}`, `{"node": "bernoulli", "out": "c", "p": 0.3}`),
			"factors[0] (bernoulli).out", "want 2"},
		{"param tolerance", `{"variables": [` + x2 + `], "settings": {"param_tolerance": -1}}`,
			"settings.param_tolerance", "want a finite number > 0"},
	} {
		_, err := model.Parse("m.json", []byte(c.file))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "model: m.json: "+c.field+": ") || !strings.Contains(msg, c.reason) || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q, want %q naming %q", c.name, msg, c.reason, c.field)
		}
	}
}

// The Go builder returns faults of the multivariate nodes from Build,
// without a panic.
func TestMvBuilderErrors(t *testing.T) {
	b := model.New()
	x := b.MvNormal("x", 2)
	x.MvNormalFrom(model.Vec(0, 0), model.PrecisionMatrix([][]float64{{1, 2}, {2, 1}}))
	if _, err := b.Build("go"); err == nil || !strings.Contains(err.Error(), "not positive definite") {
		t.Errorf("indefinite precision: %v", err)
	}
	b = model.New()
	g := b.Gamma("g", 1, 1)
	b.MvNormal("x", 2).MvNormalFrom(model.MvOf(g), model.PrecisionMatrix([][]float64{{1, 0}, {0, 1}}))
	if _, err := b.Build("go"); err == nil || !strings.Contains(err.Error(), `mean "g" is gamma, want mvnormal`) {
		t.Errorf("mean of a gamma: %v", err)
	}
	b = model.New()
	b.MvNormal("x", 2).ObserveVector([]float64{1, 2, 3}).MvNormalFrom(model.Vec(0, 0), model.CovarianceMatrix([][]float64{{1, 0}, {0, 1}}))
	if _, err := b.Build("go"); err == nil || !strings.Contains(err.Error(), "want an array of 2 numbers") {
		t.Errorf("observed vector of the wrong length: %v", err)
	}
	// Ragged matrices, a zero handle, a wishart of the wrong size.
	for name, f := range map[string]func(b *model.Builder){
		"ragged covariance": func(b *model.Builder) {
			b.MvNormal("x", 2).MvNormalFrom(model.Vec(0, 0), model.CovarianceMatrix([][]float64{{1, 0}, {0}}))
		},
		"ragged mean matrix": func(b *model.Builder) {
			z := b.MvNormal("z", 2).MvNormalFrom(model.Vec(0, 0), model.CovarianceMatrix([][]float64{{1, 0}, {0, 1}}))
			b.MvNormal("x", 2).MvNormalFrom(model.MvAffine(z, [][]float64{{1}, {0, 1}}, nil), model.CovarianceMatrix([][]float64{{1, 0}, {0, 1}}))
		},
		"zero handle": func(b *model.Builder) {
			b.MvNormal("x", 2).MvNormalFrom(model.MvOf(model.Var{}), model.CovarianceMatrix([][]float64{{1, 0}, {0, 1}}))
		},
		"wishart of another size": func(b *model.Builder) {
			w := b.Wishart("W", 4, [][]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
			b.MvNormal("x", 2).MvNormalFrom(model.Vec(0, 0), model.PrecisionOf(w))
		},
	} {
		b := model.New()
		f(b)
		if _, err := b.Build("go"); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line", name, err)
		}
	}
}
