package runplot

import (
	"math"
	"strings"
	"testing"
)

// TestRecovery: the recovery figure has a panel per parameter, its axes
// on the fitting scale, and with counts the confusion matrix with the
// models' names cut to 16 bytes and every count; a subject whose value is
// not finite is left out; no panel draws nothing; true values and
// estimates of different lengths are refused.
func TestRecovery(t *testing.T) {
	params := []RecoveryParam{
		{Name: "alpha", Scale: "log", True: []float64{0, 0.5, math.Inf(1)}, Estimated: []float64{0.1, 0.4, 1}},
		{Name: "gamma", Scale: "natural", True: []float64{1, 2}, Estimated: []float64{1.5, math.NaN()}},
	}
	models := []string{"tmaze", "a-model-with-a-long-name"}
	w, err := Recovery("svg", params, models, [][]int{{3, 1}, {0, 47}})
	if w == nil || err != nil {
		t.Fatalf("Recovery: %v, %v", w, err)
	}
	var b strings.Builder
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, want := range []string{"<svg", "alpha: true and estimated", "true log alpha", "estimated log alpha", "true gamma", "estimated gamma",
		"model recovery (subjects)", ">tmaze<", ">a-model-with-a-l<", ">47<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG without %q", want)
		}
	}
	if strings.Contains(svg, "a-model-with-a-lo") {
		t.Error("SVG names a model with more than 16 bytes")
	}
	if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
		t.Error("SVG with a coordinate that is not finite")
	}
	if w, err := Recovery("png", nil, nil, nil); w != nil || err != nil {
		t.Errorf("no panel: %v, %v; want nil, nil", w, err)
	}
	if _, err := Recovery("svg", []RecoveryParam{{Name: "eta", True: []float64{1, 2}, Estimated: []float64{1}}}, nil, nil); err == nil {
		t.Error("2 true values and 1 estimate: no error")
	}
}
