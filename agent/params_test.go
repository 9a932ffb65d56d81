package agent_test

import (
	"math"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestDomainTransforms: Inverse undoes Transform, and Jacobian is the
// derivative of Inverse (checked by a central difference).
func TestDomainTransforms(t *testing.T) {
	cases := []struct {
		d  agent.Domain
		xs []float64
	}{
		{agent.Real, []float64{-3, 0, 2.5}},
		{agent.Positive, []float64{1e-3, 1, 16}},
		{agent.UnitInterval, []float64{1e-4, 0.3, 0.5, 0.999}},
	}
	for _, c := range cases {
		for _, x := range c.xs {
			th := c.d.Transform(x)
			if got := c.d.Inverse(th); math.Abs(got-x) > 1e-12*math.Max(1, x) {
				t.Errorf("%v: Inverse(Transform(%v)) = %v", c.d, x, got)
			}
			const h = 1e-6
			fd := (c.d.Inverse(th+h) - c.d.Inverse(th-h)) / (2 * h)
			if j := c.d.Jacobian(th); math.Abs(j-fd) > 1e-6*math.Max(1, math.Abs(j)) {
				t.Errorf("%v: Jacobian at %v: %v, central difference %v", c.d, th, j, fd)
			}
			if !c.d.Contains(x) {
				t.Errorf("%v does not contain %v", c.d, x)
			}
		}
	}
	for _, c := range []struct {
		d agent.Domain
		x float64
	}{{agent.Positive, 0}, {agent.Positive, math.Inf(1)}, {agent.UnitInterval, 1}, {agent.UnitInterval, 0}, {agent.Real, math.NaN()}} {
		if c.d.Contains(c.x) {
			t.Errorf("%v contains %v", c.d, c.x)
		}
	}
	// The logit's inverse does not overflow at large |θ|.
	if x := agent.UnitInterval.Inverse(-800); x != 0 || math.IsNaN(x) {
		t.Errorf("Inverse(-800) = %v, want 0", x)
	}
}

// TestCheckParams: unknown names and values out of the domain are errors
// naming the parameter; the closure is allowed where the caller says.
func TestCheckParams(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	ps := append(agent.LearningParams(m, pomdp.Learning{}), agent.ModelParams(m)...)
	if len(ps) != 4 {
		t.Fatalf("%d parameters for a learning model, want eta, omega, pref, conc", len(ps))
	}
	closed := func(name string, x float64) bool { return name == agent.ParamOmega && x == 1 }
	if err := agent.CheckParams(ps, map[string]float64{"eta": 0.5, "omega": 1, "pref": 2}, closed); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		v    map[string]float64
		want string
	}{
		{map[string]float64{"gamma": 1}, `parameter "gamma": the agent has eta, omega, pref and conc`},
		{map[string]float64{"omega": 1.5}, "parameter omega: 1.5, want a value in the unit interval domain"},
		{map[string]float64{"eta": -1}, "parameter eta: -1"},
		{map[string]float64{"pref": math.Inf(1)}, "parameter pref: +Inf"},
	} {
		err := agent.CheckParams(ps, c.v, closed)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckParams(%v): %v, want %q", c.v, err, c.want)
		}
	}
	tiny, err := pomdp.New(pomdp.Spec{NumStates: 1, NumObs: 1, NumActions: 1, A: []float64{1}, B: []float64{1}, C: []float64{1}, D: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	if ps := agent.LearningParams(tiny, pomdp.Learning{}); ps != nil {
		t.Errorf("a model without concentrations declares %v", ps)
	}
	if ps := agent.ModelParams(tiny); len(ps) != 1 || ps[0].Name != agent.ParamPref {
		t.Errorf("a model without concentrations: %v, want pref alone", ps)
	}
}

// TestOverride: a value given replaces the option (as a copy: the map is
// not aliased); a value not given leaves the option's pointer, nil
// included, as it was.
func TestOverride(t *testing.T) {
	def := 2.0
	values := map[string]float64{agent.ParamAlpha: 3}
	got := agent.Override(&def, values, agent.ParamAlpha)
	if got == &def || *got != 3 {
		t.Errorf("alpha given: %v (at %p, option at %p), want 3 in a new place", *got, got, &def)
	}
	*got = 4
	if values[agent.ParamAlpha] != 3 || def != 2 {
		t.Errorf("writing the result changed the map (%v) or the option (%v)", values[agent.ParamAlpha], def)
	}
	if p := agent.Override(&def, values, agent.ParamEta); p != &def {
		t.Errorf("eta not given: %p, want the option's pointer %p", p, &def)
	}
	if p := agent.Override(nil, values, agent.ParamOmega); p != nil {
		t.Errorf("omega not given, nil option: %v, want nil", p)
	}
}
