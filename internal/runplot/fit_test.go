package runplot

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestFitFigure: the fit figure has a panel per parameter (its estimates,
// 90% intervals, the empirical-Bayes estimates with a legend), the group
// effects and, with a comparison, the frequencies and exceedance
// probabilities with the models' names cut to 16 bytes; SVG, PDF and PNG
// by format; lengths that differ are refused; no panel draws nothing.
func TestFitFigure(t *testing.T) {
	params := []FitParam{
		{Name: "alpha", Scale: "log", Estimate: []float64{0.1, 0.5, 1.2}, SD: []float64{0.2, math.NaN(), 0.3}, Shrunk: []float64{0.2, 0.5, 1}},
		{Name: "omega", Scale: "logit", Estimate: []float64{0, math.Inf(1), 1}, SD: []float64{0.1, 0.1, 0.1}},
	}
	effects := []Effect{{Parameter: "alpha", Covariate: "1", Mean: 0.5, Lo: 0.3, Hi: 0.7}, {Parameter: "alpha", Covariate: "group[patient]", Mean: 0.6, Lo: 0.4, Hi: 0.8}}
	cmp := &Comparison{Models: []string{"tmaze.json --free alpha", "b.json"}, Frequencies: []float64{0.7, 0.3}, Exceedance: []float64{0.9, 0.1}, ProtectedExceeds: []float64{0.8, 0.2}}
	w, err := Fit("svg", params, effects, cmp)
	if w == nil || err != nil {
		t.Fatalf("Fit: %v, %v", w, err)
	}
	var b strings.Builder
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, want := range []string{"<svg", "alpha: estimates with 90% intervals", "log alpha", "omega: estimates with 90% intervals", "logit omega",
		">subject<", ">first level<", ">empirical Bayes<", "group effects with 90% intervals", ">alpha: 1<", ">alpha: group[pat<",
		"expected model frequencies", "exceedance probabilities", ">protected<", ">tmaze.json<", ">--free alpha<", ">b.json<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG without %q", want)
		}
	}
	if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
		t.Error("SVG with a coordinate that is not finite")
	}
	for format, magic := range map[string]string{"pdf": "%PDF", "png": "\x89PNG"} {
		w, err := Fit(format, params[:1], nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := w.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(buf.Bytes(), []byte(magic)) {
			t.Errorf("%s: starts %q", format, buf.Bytes()[:min(8, buf.Len())])
		}
	}
	if w, err := Fit("svg", nil, nil, nil); w != nil || err != nil {
		t.Errorf("no panel: %v, %v; want nil, nil", w, err)
	}
	if _, err := Fit("svg", []FitParam{{Name: "eta", Estimate: []float64{1, 2}, SD: []float64{1}}}, nil, nil); err == nil {
		t.Error("2 estimates and 1 SD: no error")
	}
	if _, err := Fit("svg", nil, nil, &Comparison{Models: []string{"a"}, Frequencies: []float64{1, 0}}); err == nil {
		t.Error("1 model and 2 frequencies: no error")
	}
}

// TestRecoveryIntervals: with SDs, the recovery panel draws the 90%
// intervals and names Pearson's r of the points drawn, by hand below.
func TestRecoveryIntervals(t *testing.T) {
	x, y := []float64{0, 1, 2}, []float64{0, 1, 4}
	// r = Σ(x-x̄)(y-ȳ) / √(Σ(x-x̄)² Σ(y-ȳ)²): x̄ = 1, ȳ = 5/3; Σ dx dy = 4,
	// Σ dx² = 2, Σ dy² = 25/9 + 4/9 + 49/9 = 78/9; r = 4/√(2·78/9) = 0.961.
	w, err := Recovery("svg", []RecoveryParam{{Name: "alpha", Scale: "log", True: x, Estimated: y, SD: []float64{0.1, math.NaN(), 0.2}}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "alpha: true and estimated, 90% intervals (r = 0.961)") {
		t.Errorf("SVG without the title with r and intervals")
	}
	if _, err := Recovery("svg", []RecoveryParam{{Name: "a", True: x, Estimated: y, SD: []float64{1}}}, nil, nil); err == nil {
		t.Error("3 true values and 1 SD: no error")
	}
}
