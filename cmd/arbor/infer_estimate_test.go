package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-ai/arbor/model"
	"github.com/arbor-ai/arbor/schedule"
)

// hmmFile writes an HMM model file of the given length (10 states, 10
// outcomes, B learned) running exactly sweeps sweeps.
func hmmFile(t *testing.T, dir string, steps, sweeps int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(steps), 3))
	const k = 10
	cols := func() [][]float64 {
		m := make([][]float64, k)
		for i := range m {
			m[i] = make([]float64, k)
		}
		for j := range k {
			s := 0.0
			for i := range k {
				m[i][j] = 0.1 + rng.Float64()
				s += m[i][j]
			}
			for i := range k {
				m[i][j] /= s
			}
		}
		return m
	}
	ones := make([][]float64, k)
	for i := range ones {
		ones[i] = make([]float64, k)
		for j := range ones[i] {
			ones[i][j] = 1
		}
	}
	vars := []map[string]any{{"name": "B", "family": "dirichlet", "shape": []int{k, k}}}
	facs := []map[string]any{{"node": "dirichlet", "out": "B", "alpha": ones}}
	a := cols()
	d := make([]float64, k)
	for i := range d {
		d[i] = 1.0 / k
	}
	for i := range steps {
		s, o := fmt.Sprintf("s%d", i), fmt.Sprintf("o%d", i)
		vars = append(vars, map[string]any{"name": s, "family": "categorical", "shape": []int{k}},
			map[string]any{"name": o, "family": "categorical", "shape": []int{k}, "observed": rng.IntN(k)})
		if i == 0 {
			facs = append(facs, map[string]any{"node": "categorical", "out": s, "p": d})
		} else {
			facs = append(facs, map[string]any{"node": "transition", "out": s, "in": []string{fmt.Sprintf("s%d", i-1)}, "matrix": "B"})
		}
		facs = append(facs, map[string]any{"node": "transition", "out": o, "in": []string{s}, "matrix": a})
	}
	data, _ := json.Marshal(map[string]any{"variables": vars, "factors": facs,
		"settings": map[string]any{"iterations": sweeps, "tolerance": 1e-300}})
	p := filepath.Join(dir, fmt.Sprintf("hmm%d.json", steps))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestInferEstimate measures the inference of arbor infer on HMMs of 2,000
// and 20,000 steps (30 sweeps each) against schedule.EstimateSeconds, with the wide margin
// timing on a shared machine needs: between 1/50 of the estimate and 5
// times it (docs/reliability.md records the ratios). A model estimated
// above --max-minutes is refused with one line.
func TestInferEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("times inference")
	}
	dir := t.TempDir()
	for _, steps := range []int{2000, 20000} {
		path := hmmFile(t, dir, steps, 30)
		data, _ := os.ReadFile(path)
		m, err := model.Parse(path, data)
		if err != nil {
			t.Fatal(err)
		}
		est := schedule.EstimateSeconds(m.Graph, &m.Settings)
		t0 := time.Now()
		if _, err := schedule.Run(context.Background(), m.Graph, &m.Settings); err != nil {
			t.Fatal(err)
		}
		got := time.Since(t0).Seconds()
		var out, errb bytes.Buffer
		start := time.Now()
		if code := run([]string{"infer", path, "--json"}, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		t.Logf("%d steps: inference %.3f s, estimate %.3f s, ratio %.2f; the whole command (reading the file too) %.3f s",
			steps, got, est, got/est, time.Since(start).Seconds())
		if got > 5*est || got < est/50 {
			t.Errorf("%d steps: measured %.3f s against an estimate of %.3f s", steps, got, est)
		}
	}
	path := hmmFile(t, dir, 2000, 100000)
	var out, errb bytes.Buffer
	code := run([]string{"infer", path, "--max-minutes", "0.05"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "100000 sweeps") || !strings.Contains(errb.String(), "--max-minutes 0.05") || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q: want 2 and one line with the sweeps and the flag", code, errb.String())
	}
}
