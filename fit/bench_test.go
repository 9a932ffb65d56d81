package fit_test

import (
	"context"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/pomdp"
)

// tmazeFactory is the classic agent at horizon 2 on arbor's T-maze
// (examples/pomdp/tmaze.json, which learns the context's prior d),
// sampling its choices, with γ = 4 and α = 2 by default.
func tmazeFactory() aci.Factory {
	alpha := 2.0
	return aci.Factory{Options: aci.AgentOptions{Horizon: 2, Gamma: 4, ActionPrecision: &alpha, Select: aci.SelectSample}}
}

func loadTMaze(t testing.TB) *pomdp.Model {
	t.Helper()
	m, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// BenchmarkSubject fits α and γ of one subject of 100 trials of the
// T-maze at horizon 2 (one start): one subject of the fitting goal of
// docs/benchmarks.md, "Fitting".
func BenchmarkSubject(b *testing.B) {
	m := loadTMaze(b)
	fac := tmazeFactory()
	recs := simulate(b, m, fac, []map[string]float64{{"alpha": 2, "gamma": 4}}, 100, 2, 1)
	set := &fit.Settings{Free: []string{"alpha", "gamma"}, Restarts: 1, Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fit.Subject(context.Background(), fac, m, &recs[0], 0, set); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLogLikelihood is one evaluation of the likelihood: a fresh
// agent replays 100 trials of the T-maze at horizon 2.
func BenchmarkLogLikelihood(b *testing.B) {
	m := loadTMaze(b)
	fac := tmazeFactory()
	recs := simulate(b, m, fac, []map[string]float64{{"alpha": 2, "gamma": 4}}, 100, 2, 1)
	v := map[string]float64{"alpha": 2, "gamma": 4}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := fit.LogLikelihood(context.Background(), fac, m, &recs[0], 0, 1, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGroup100 fits α and γ of 100 subjects × 100 trials of the
// T-maze at horizon 2 with 2 jobs and one start each: the fitting goal of
// docs/benchmarks.md (under 60 s on a 2-core machine).
func BenchmarkGroup100(b *testing.B) {
	m := loadTMaze(b)
	fac := tmazeFactory()
	values := make([]map[string]float64, 100)
	for k := range values {
		values[k] = map[string]float64{"alpha": 1 + float64(k%5)*0.5, "gamma": 4}
	}
	recs := simulate(b, m, fac, values, 100, 2, 1)
	set := &fit.Settings{Free: []string{"alpha", "gamma"}, Restarts: 1, Seed: 1, Jobs: 2}
	b.ReportAllocs()
	for b.Loop() {
		if err := fit.Subjects(context.Background(), fac, m, recs, set, func(*fit.Result) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
