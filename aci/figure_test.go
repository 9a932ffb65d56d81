package aci

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestFigureGraph: the figure of the T-maze agent after its first Act
// holds the past (S₀ and O₀ per factor and modality), π, and one future
// step in the plate "τ = 1 … 2" (horizon 2 from t = 0): Sτ per factor
// (location, context) with B, joined to π only where the factor has
// controls (location: 4 moves; context: 1), and the hidden Oτ per
// modality (where, cue, reward) with A. Building it leaves the agent's
// graph and beliefs as they were.
func TestFigureGraph(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewAgent(m, &AgentOptions{Horizon: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.FigureGraph(); err == nil {
		t.Error("FigureGraph before Reset: no error")
	}
	ctx := context.Background()
	if err := a.Reset(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Act(ctx); err != nil {
		t.Fatal(err)
	}
	nv, nf := len(a.Graph().Variables()), len(a.Graph().Factors())
	belief := slices.Clone(a.Belief())
	g, err := a.FigureGraph()
	if err != nil {
		t.Fatal(err)
	}
	if g == a.Graph() {
		t.Fatal("FigureGraph returned the agent's graph")
	}
	if len(a.Graph().Variables()) != nv || len(a.Graph().Factors()) != nf || !slices.Equal(a.Belief(), belief) {
		t.Error("FigureGraph changed the agent's graph or belief")
	}
	const plate = "τ = 1 … 2"
	byLabel := map[string]*ffg.Variable{}
	for _, v := range g.Variables() {
		l := v.Label
		if l == "" {
			l = v.Name()
		}
		byLabel[l] = v
	}
	for _, l := range []string{"S₀[location]", "S₀[context]", "O₀[cue]", "pi", "Sτ[location]", "Sτ[context]", "Oτ[where]", "Oτ[cue]", "Oτ[reward]"} {
		v, ok := byLabel[l]
		if !ok {
			t.Errorf("no variable %s", l)
			continue
		}
		future := strings.Contains(l, "τ")
		if future && (v.Cluster != plate || v.Observed()) {
			t.Errorf("%s: cluster %q, observed %v; want %q, hidden", l, v.Cluster, v.Observed(), plate)
		}
		if !future && strings.HasPrefix(l, "O") && !v.Observed() {
			t.Errorf("%s is hidden, want observed", l)
		}
	}
	pi := byLabel["pi"]
	joined := map[string]bool{}
	for _, f := range g.Factors() {
		if f.Cluster != plate || !strings.HasPrefix(f.Label, "B[") {
			continue
		}
		joined[f.Label] = slices.Contains(f.Variables(), pi)
	}
	if want := map[string]bool{"B[location]": true, "B[context]": false}; !maps.Equal(joined, want) {
		t.Errorf("future B joined to π: %v, want %v", joined, want)
	}
}

// TestFigureGraphVariants: on the tiger (one factor, one modality), with
// γ inferred and habits, at t = 2 after a known and an unknown action, the
// figure holds the past S_0..S_2 (the unknown U_1 hidden), π with its
// habit E and γ with its softmax, one future step in the plate "τ = 3 … 5"
// (horizon 3 from t = 2) whose B is joined to π, and it writes DOT.
func TestFigureGraphVariants(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/tiger.json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewAgent(m, &AgentOptions{Horizon: 3, InferGamma: true, Habits: []float64{0.5, 0.25, 0.25}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := a.Reset(ctx, 0); err != nil {
		t.Fatal(err)
	}
	g, err := a.FigureGraph()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range g.Variables() {
		if v.Name() == "pi" || v.Cluster != "past" && v.Cluster != "" {
			t.Errorf("before Act: variable %s %q in %q, want the past alone", v.Name(), v.Label, v.Cluster)
		}
	}
	if err := a.Advance(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := a.AdvanceMixed(ctx, []float64{0.5, 0.25, 0.25}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Act(ctx); err != nil {
		t.Fatal(err)
	}
	if g, err = a.FigureGraph(); err != nil {
		t.Fatal(err)
	}
	const plate = "τ = 3 … 5"
	var pi, gamma *ffg.Variable
	labels := map[string]bool{}
	hiddenU := 0
	for _, v := range g.Variables() {
		l := v.Label
		if l == "" {
			l = v.Name()
		}
		labels[l] = true
		switch {
		case v.Name() == "pi":
			pi = v
		case v.Name() == "gamma":
			gamma = v
		case strings.HasPrefix(v.Label, "U_") && !v.Observed():
			hiddenU++
		}
	}
	for _, l := range []string{"S_0", "S_1", "S_2", "O_2", "U_0", "U_1", "Sτ", "Oτ"} {
		if !labels[l] {
			t.Errorf("no variable %s", l)
		}
	}
	if pi == nil || gamma == nil || hiddenU != 1 {
		t.Fatalf("π %v, γ %v, hidden U %d; want π, γ and one hidden U", pi != nil, gamma != nil, hiddenU)
	}
	var habit, softmax, future bool
	for _, f := range g.Factors() {
		vs := f.Variables()
		switch {
		case f.Label == "habit E":
			habit = len(vs) == 1 && vs[0] == pi
		case len(vs) == 2 && vs[0] == pi && vs[1] == gamma:
			softmax = f.Cluster == "policy"
		case f.Cluster == plate && f.Label == "B":
			future = slices.Contains(vs, pi)
		}
	}
	if !habit || !softmax || !future {
		t.Errorf("habit E on π %v, softmax of π and γ %v, future B joined to π %v; want all", habit, softmax, future)
	}
	var b strings.Builder
	if err := g.WriteDOT(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `label="`+plate+`"`) {
		t.Errorf("the DOT has no plate %q", plate)
	}
}
