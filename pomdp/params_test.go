package pomdp_test

import (
	"math"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// TestDomainTransforms: Inverse undoes Transform, and Jacobian is the
// derivative of Inverse (checked by a central difference).
func TestDomainTransforms(t *testing.T) {
	cases := []struct {
		d  pomdp.Domain
		xs []float64
	}{
		{pomdp.Real, []float64{-3, 0, 2.5}},
		{pomdp.Positive, []float64{1e-3, 1, 16}},
		{pomdp.UnitInterval, []float64{1e-4, 0.3, 0.5, 0.999}},
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
		d pomdp.Domain
		x float64
	}{{pomdp.Positive, 0}, {pomdp.Positive, math.Inf(1)}, {pomdp.UnitInterval, 1}, {pomdp.UnitInterval, 0}, {pomdp.Real, math.NaN()}} {
		if c.d.Contains(c.x) {
			t.Errorf("%v contains %v", c.d, c.x)
		}
	}
	// The logit's inverse does not overflow at large |θ|.
	if x := pomdp.UnitInterval.Inverse(-800); x != 0 || math.IsNaN(x) {
		t.Errorf("Inverse(-800) = %v, want 0", x)
	}
}

// TestScaleModel: pref multiplies ln C (ratios of C become powers) and conc
// multiplies every concentration, leaving the expectations as they are.
func TestScaleModel(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	same, err := pomdp.ScaleModel(m, 1, 1)
	if err != nil || same != m {
		t.Fatalf("ScaleModel(m, 1, 1) = %p, %v; want m itself", same, err)
	}
	s, err := pomdp.ScaleModel(m, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	fs, ss := m.FactorisedSpec(), s.FactorisedSpec()
	for i := range fs.Modalities {
		c, c2 := fs.Modalities[i].C, ss.Modalities[i].C
		// ln C'_o - ln C'_0 = 2 (ln C_o - ln C_0): the log-ratios double.
		for o := range c {
			if c[o] == 0 {
				if c2[o] != 0 {
					t.Errorf("modality %d: C[%d] = 0 became %v", i, o, c2[o])
				}
				continue
			}
			want := 2 * (math.Log(c[o]) - math.Log(c[0]))
			if got := math.Log(c2[o]) - math.Log(c2[0]); math.Abs(got-want) > 1e-12 {
				t.Errorf("modality %d: ln C'[%d]/C'[0] = %v, want %v", i, o, got, want)
			}
		}
	}
	for f := range fs.Factors {
		for k, d := range fs.Factors[f].ConcD {
			if got := ss.Factors[f].ConcD[k]; got != 3*d {
				t.Errorf("factor %d: d[%d] = %v, want 3 × %v", f, k, got, d)
			}
		}
		for k, d := range fs.Factors[f].D {
			if got := ss.Factors[f].D[k]; math.Abs(got-d) > 1e-15 {
				t.Errorf("factor %d: D[%d] = %v, want %v (unchanged)", f, k, got, d)
			}
		}
	}
	// The original is untouched.
	if got := m.FactorisedSpec(); got.Factors[1].ConcD[0] != fs.Factors[1].ConcD[0] || got.Modalities[2].C[1] != fs.Modalities[2].C[1] {
		t.Error("ScaleModel changed its input")
	}
	for _, c := range []struct {
		pref, conc float64
		want       string
	}{
		{0, 1, "pref 0"}, {-1, 1, "pref -1"}, {math.NaN(), 1, "pref NaN"}, {1, math.Inf(1), "conc +Inf"},
	} {
		_, err := pomdp.ScaleModel(m, c.pref, c.conc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ScaleModel(%v, %v): %v, want an error with %q", c.pref, c.conc, err, c.want)
		}
	}
}

// TestCheckParams: unknown names and values out of the domain are errors
// naming the parameter; the closure is allowed where the caller says.
func TestCheckParams(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	ps := append(pomdp.LearningParams(m, pomdp.Learning{}), pomdp.ModelParams(m)...)
	if len(ps) != 4 {
		t.Fatalf("%d parameters for a learning model, want eta, omega, pref, conc", len(ps))
	}
	closed := func(name string, x float64) bool { return name == pomdp.ParamOmega && x == 1 }
	if err := pomdp.CheckParams(ps, map[string]float64{"eta": 0.5, "omega": 1, "pref": 2}, closed); err != nil {
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
		err := pomdp.CheckParams(ps, c.v, closed)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckParams(%v): %v, want %q", c.v, err, c.want)
		}
	}
	tiny, err := pomdp.New(pomdp.Spec{NumStates: 1, NumObs: 1, NumActions: 1, A: []float64{1}, B: []float64{1}, C: []float64{1}, D: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	if ps := pomdp.LearningParams(tiny, pomdp.Learning{}); ps != nil {
		t.Errorf("a model without concentrations declares %v", ps)
	}
	if ps := pomdp.ModelParams(tiny); len(ps) != 1 || ps[0].Name != pomdp.ParamPref {
		t.Errorf("a model without concentrations: %v, want pref alone", ps)
	}
}

// TestOverride: a value given replaces the option (as a copy: the map is
// not aliased); a value not given leaves the option's pointer, nil
// included, as it was.
func TestOverride(t *testing.T) {
	def := 2.0
	values := map[string]float64{pomdp.ParamAlpha: 3}
	got := pomdp.Override(&def, values, pomdp.ParamAlpha)
	if got == &def || *got != 3 {
		t.Errorf("alpha given: %v (at %p, option at %p), want 3 in a new place", *got, got, &def)
	}
	*got = 4
	if values[pomdp.ParamAlpha] != 3 || def != 2 {
		t.Errorf("writing the result changed the map (%v) or the option (%v)", values[pomdp.ParamAlpha], def)
	}
	if p := pomdp.Override(&def, values, pomdp.ParamEta); p != &def {
		t.Errorf("eta not given: %p, want the option's pointer %p", p, &def)
	}
	if p := pomdp.Override(nil, values, pomdp.ParamOmega); p != nil {
		t.Errorf("omega not given, nil option: %v, want nil", p)
	}
}
