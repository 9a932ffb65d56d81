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
