package pomdp

import (
	"slices"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
)

// figureFactors returns the figure's factors by label, each as the names
// of its variables (with Dirichlet variables by their labels); a label
// drawn at several steps has several entries.
func figureFactors(g *ffg.Graph) map[string][][]string {
	out := map[string][][]string{}
	for _, f := range g.Factors() {
		var names []string
		for _, v := range f.Variables() {
			n := v.Name()
			if v.Label != "" {
				n = v.Label
			}
			names = append(names, n)
		}
		out[f.Label] = append(out[f.Label], names)
	}
	return out
}

// TestFigureGraphTMaze: the T-maze's figure over two transitions has D
// per factor (context's with its Dirichlet d[context]), B per factor at
// t = 1, 2 joined to π only for location (the factor with controls), A per
// modality over the factors of its depends_on, C only for reward (the
// modality with preferences), π with its prior σ(−G), and every outcome
// observed.
func TestFigureGraphTMaze(t *testing.T) {
	m, err := Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.FigureGraph(2)
	if err != nil {
		t.Fatal(err)
	}
	fs := figureFactors(g)
	want := map[string][][]string{
		"σ(−G)":       {{"pi"}},
		"D[location]": {{"location_0"}},
		"D[context]":  {{"context_0", "d[context]"}},
		"B[location]": {{"location_1", "location_0", "pi"}, {"location_2", "location_1", "pi"}},
		"B[context]":  {{"context_1", "context_0"}, {"context_2", "context_1"}},
		"A[where]":    {{"where_0", "location_0"}, {"where_1", "location_1"}, {"where_2", "location_2"}},
		"A[cue]":      {{"cue_0", "location_0", "context_0"}, {"cue_1", "location_1", "context_1"}, {"cue_2", "location_2", "context_2"}},
		"A[reward]":   {{"reward_0", "location_0", "context_0"}, {"reward_1", "location_1", "context_1"}, {"reward_2", "location_2", "context_2"}},
		"C[reward]":   {{"reward_0"}, {"reward_1"}, {"reward_2"}},
		"":            {{"d[context]"}}, // the Dirichlet prior of d
	}
	for label, w := range want {
		if got := fs[label]; !slices.EqualFunc(got, w, slices.Equal) {
			t.Errorf("%s: %v, want %v", label, got, w)
		}
	}
	for label := range fs {
		if _, ok := want[label]; !ok {
			t.Errorf("unexpected factor %s: %v", label, fs[label])
		}
	}
	for _, v := range g.Variables() {
		outcome := strings.HasPrefix(v.Name(), "where_") || strings.HasPrefix(v.Name(), "cue_") || strings.HasPrefix(v.Name(), "reward_")
		if v.Observed() != outcome {
			t.Errorf("%s: observed %v, want %v", v.Name(), v.Observed(), outcome)
		}
	}
	if d, ok := g.Variable("pi"); !ok || !slices.Equal(d.Shape(), []int{4}) {
		t.Errorf("π: %v, want 4 actions", d)
	}
}

// TestFigureGraphLearned: a model with one action (no π), a modality named
// as its factor (drawn o[name]_t), concentrations a, b and d (Dirichlet
// variables of the shapes of A, B and D, each with its prior and shared
// by every step), and no preferences (no C); a factor with controls and b
// (one matrix of b per action, B joined to π). Zero steps draw t = 0
// alone; negative steps are an error.
func TestFigureGraphLearned(t *testing.T) {
	m, err := NewFactorised(FactorisedSpec{
		Factors: []Factor{{Name: "s", NumStates: 2, NumControls: 1,
			ConcB: []float64{1, 1, 1, 1}, ConcD: []float64{1, 1}}},
		Modalities: []Modality{{Name: "s", NumOutcomes: 3, DependsOn: []string{"s"},
			ConcA: []float64{1, 1, 1, 1, 1, 1}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.FigureGraph(FigureSteps)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.Variable("pi"); ok {
		t.Error("π drawn for a model with one action")
	}
	fs := figureFactors(g)
	if got := fs["A[s]"]; len(got) != FigureSteps+1 || !slices.Equal(got[1], []string{"o[s]_1", "s_1", "a[s]"}) {
		t.Errorf("A[s]: %v", got)
	}
	if got := fs["B[s]"]; len(got) != FigureSteps || !slices.Equal(got[0], []string{"s_1", "s_0", "b[s]"}) {
		t.Errorf("B[s]: %v", got)
	}
	if got := fs["D[s]"]; !slices.EqualFunc(got, [][]string{{"s_0", "d[s]"}}, slices.Equal) {
		t.Errorf("D[s]: %v", got)
	}
	if got := fs[""]; len(got) != 3 || fs["C[s]"] != nil {
		t.Errorf("priors %v (want a, b, d), C %v (want none)", got, fs["C[s]"])
	}
	shapes := map[string][]int{}
	for _, v := range g.Variables() {
		if v.Family() == expfam.DirichletFamily {
			shapes[v.Label] = v.Shape()
		}
	}
	if want := map[string][]int{"a[s]": {3, 2}, "b[s]": {2, 2}, "d[s]": {2}}; len(shapes) != 3 ||
		!slices.Equal(shapes["a[s]"], want["a[s]"]) || !slices.Equal(shapes["b[s]"], want["b[s]"]) || !slices.Equal(shapes["d[s]"], want["d[s]"]) {
		t.Errorf("Dirichlet shapes %v, want %v", shapes, want)
	}
	g, err = m.FigureGraph(0)
	if err != nil {
		t.Fatal(err)
	}
	if fs := figureFactors(g); fs["B[s]"] != nil || len(fs["A[s]"]) != 1 {
		t.Errorf("zero steps: %v", fs)
	}
	// With controls, b has one matrix per action and B joins π.
	m, err = NewFactorised(FactorisedSpec{
		Factors: []Factor{{Name: "s", NumStates: 2, Controls: []string{"stay", "switch"}, NumControls: 2,
			ConcB: []float64{1, 1, 1, 1, 1, 1, 1, 1}, D: []float64{0.5, 0.5}}},
		Modalities: []Modality{{Name: "o", NumOutcomes: 2, DependsOn: []string{"s"}, A: []float64{1, 0, 0, 1}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if g, err = m.FigureGraph(1); err != nil {
		t.Fatal(err)
	}
	if got := figureFactors(g)["B[s]"]; !slices.EqualFunc(got, [][]string{{"s_1", "s_0", "pi", "b[s]"}}, slices.Equal) {
		t.Errorf("controlled B[s] with b: %v", got)
	}
	for _, v := range g.Variables() {
		if v.Label == "b[s]" && !slices.Equal(v.Shape(), []int{2, 2, 2}) {
			t.Errorf("b[s] of shape %v, want [2 2 2]", v.Shape())
		}
	}
	if _, err := m.FigureGraph(-1); err == nil || err.Error() != "pomdp: FigureGraph: steps -1, want >= 0" {
		t.Errorf("steps -1: %v", err)
	}
}
