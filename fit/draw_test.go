package fit_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/fit"
)

// tmazeParams are the classic agent's parameters on arbor's T-maze, which
// learns: gamma, alpha, eta, omega, pref and conc.
func tmazeParams(t testing.TB) []agent.Param {
	t.Helper()
	return aci.Factory{}.Params(loadTMaze(t))
}

// ParseDraw reads each distribution, and String writes it back as read.
func TestParseDraw(t *testing.T) {
	ps := tmazeParams(t)
	for _, c := range []struct {
		spec       string
		kind, name string
		a, b       float64
	}{
		{"alpha=lognormal:0,0.5", "lognormal", "alpha", 0, 0.5},
		{"omega=logitnormal:2,0.1", "logitnormal", "omega", 2, 0.1},
		{"eta=uniform:0,2", "uniform", "eta", 0, 2},
		{"pref=fixed:1.5", "fixed", "pref", 1.5, 0},
		{" gamma = lognormal: -1 , 0 ", "lognormal", "gamma", -1, 0},
		{"omega=fixed:1", "fixed", "omega", 1, 0}, // ω = 1: no forgetting, the closure of (0, 1)
	} {
		d, err := fit.ParseDraw(c.spec, ps)
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		if d.Kind != c.kind || d.Param.Name != c.name || d.A != c.a || d.B != c.b {
			t.Errorf("%q: %+v", c.spec, d)
		}
		back, err := fit.ParseDraw(d.String(), ps)
		if err != nil || back != d {
			t.Errorf("%q: String %q reads back as %+v, %v", c.spec, d.String(), back, err)
		}
	}
}

// ParseDraw's errors name the text and what is wrong with it, after
// "fit: draw ".
func TestParseDrawErrors(t *testing.T) {
	ps := tmazeParams(t)
	for _, c := range []struct{ spec, want string }{
		{"alpha", `fit: draw "alpha": want NAME=DISTRIBUTION, e.g. alpha=lognormal:0,0.5 (` + fit.DrawSyntax + ")"},
		{"zeta=lognormal:0,1", `fit: draw zeta=lognormal:0,1: agent: parameter "zeta": the agent has gamma, alpha, eta, omega, pref and conc`},
		{"alpha=gauss:0,1", `fit: draw alpha=gauss:0,1: unknown distribution "gauss" (want ` + fit.DrawSyntax + ")"},
		{"alpha=lognormal:0", "fit: draw alpha=lognormal:0: lognormal takes 2 numbers, got 1"},
		{"alpha=fixed:1,2", "fit: draw alpha=fixed:1,2: fixed takes 1 numbers, got 2"},
		{"alpha=lognormal:0,-1", "fit: draw alpha=lognormal:0,-1: SIGMA -1, want >= 0"},
		{"alpha=lognormal:1000,1", "fit: draw alpha=lognormal:1000,1: MU 1000 puts the median at +Inf, outside the positive domain of alpha"},
		{"alpha=lognormal:-800,1", "fit: draw alpha=lognormal:-800,1: MU -800 puts the median at 0, outside the positive domain of alpha"},
		{"omega=logitnormal:40,1", "fit: draw omega=logitnormal:40,1: MU 40 puts the median at 1, outside the unit interval domain of omega"},
		{"omega=lognormal:0,1", "fit: draw omega=lognormal:0,1: lognormal is for a positive parameter; omega is in the unit interval domain (use logitnormal or uniform)"},
		{"alpha=logitnormal:0,1", "fit: draw alpha=logitnormal:0,1: logitnormal is for a parameter in (0, 1); alpha is in the positive domain (use lognormal or uniform)"},
		{"alpha=uniform:2,1", "fit: draw alpha=uniform:2,1: LO 2 >= HI 1"},
		{"gamma=uniform:-1,1", "fit: draw gamma=uniform:-1,1: the bounds must be in the positive domain of gamma"},
		{"gamma=fixed:0", "fit: draw gamma=fixed:0: 0 is not in the positive domain of gamma"}, // α and η may be 0, γ not
		{"alpha=fixed:NaN", `fit: draw alpha=fixed:NaN: "NaN" is not a finite number (want ` + fit.DrawSyntax + ")"},
		{"alpha=", `fit: draw alpha=: "" is not a finite number (want ` + fit.DrawSyntax + ")"},
	} {
		_, err := fit.ParseDraw(c.spec, ps)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: error %v\nwant %s", c.spec, err, c.want)
		}
	}
}

// ParseDraws returns the draws in the parameters' declared order (γ, α,
// η, ω, pref, conc), whatever the order given, and refuses a parameter
// drawn twice.
func TestParseDraws(t *testing.T) {
	ps := tmazeParams(t)
	ds, err := fit.ParseDraws([]string{"pref=fixed:1.5", "eta=uniform:0.5,2", "alpha=lognormal:0,0.5"}, ps)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range ds {
		names = append(names, d.Param.Name)
	}
	if got := strings.Join(names, ","); got != "alpha,eta,pref" {
		t.Errorf("order %s, want alpha,eta,pref", got)
	}
	_, err = fit.ParseDraws([]string{"alpha=fixed:1", "alpha=fixed:2"}, ps)
	if want := "fit: draw alpha=fixed:2: alpha is drawn twice"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	if ds, err := fit.ParseDraws(nil, ps); err != nil || ds != nil {
		t.Errorf("no draws: %v, %v", ds, err)
	}
}

// ParamRand is the documented PCG(seed + subject, 0x9a4a3e7f).
func TestParamRand(t *testing.T) {
	got, want := fit.ParamRand(7, 3), rand.New(rand.NewPCG(10, 0x9a4a3e7f))
	for range 5 {
		if a, b := got.Uint64(), want.Uint64(); a != b {
			t.Fatalf("ParamRand(7, 3) gives %d, PCG(10, 0x9a4a3e7f) %d", a, b)
		}
	}
}

// DrawParams samples the draws in the order given from ParamRand(seed,
// subject): with α lognormal(0.5, 0.4), η uniform(0.5, 2), ω
// logitnormal(2, 0.1) and pref fixed at 1.5, subject 0 at seed 1 takes a
// standard normal z1, a uniform u2 and a standard normal z3 from the
// stream in turn, and pref nothing:
//
//	α = exp(0.5 + 0.4 z1), η = 0.5 + 1.5 u2, ω = 1 / (1 + exp(-(2 + 0.1 z3)))
//
// These are the values `arbor aci simulate --seed 1 --draw ...` wrote in
// its truth table for subject 1 before the rule moved to this package
// (the golden numbers below): the stream must not change.
func TestDrawParams(t *testing.T) {
	ps := tmazeParams(t)
	ds, err := fit.ParseDraws([]string{"eta=uniform:0.5,2", "alpha=lognormal:0.5,0.4", "omega=logitnormal:2,0.1", "pref=fixed:1.5"}, ps)
	if err != nil {
		t.Fatal(err)
	}
	v := fit.DrawParams(ds, 1, 0)
	rng := fit.ParamRand(1, 0)
	z1, u2, z3 := rng.NormFloat64(), rng.Float64(), rng.NormFloat64()
	for _, c := range []struct {
		name         string
		hand, golden float64
	}{
		{"alpha", math.Exp(0.5 + 0.4*z1), 2.2402279122450706},
		{"eta", 0.5 + 1.5*u2, 1.8009835453990948},
		{"omega", 1 / (1 + math.Exp(-(2 + 0.1*z3))), 0.8848743238328813},
		{"pref", 1.5, 1.5},
	} {
		// (Within 1e-12: an architecture that fuses a + b·z into one
		// instruction may round the last bit differently.)
		if math.Abs(v[c.name]-c.hand) > 1e-12*c.hand || math.Abs(v[c.name]-c.golden) > 1e-12*c.golden {
			t.Errorf("%s = %v, want %v by hand and %v as simulate wrote it", c.name, v[c.name], c.hand, c.golden)
		}
	}
	if len(v) != 4 {
		t.Errorf("values %v, want the 4 drawn parameters", v)
	}
	if w := fit.DrawParams(ds, 1, 1); w["alpha"] == v["alpha"] {
		t.Error("subjects 0 and 1 drew the same α")
	}
}

// FuzzParseDraw: any draw text is refused with an error or gives a
// distribution whose draws lie in the parameter's domain (its closure for
// α, η = 0 and ω = 1, as the agents accept), but for a lognormal or
// logitnormal far in a tail, which may round to the domain's edge (0 or
// +Inf, 0 or 1): the agent then refuses it with an error naming the
// parameter, which is not a crash.
func FuzzParseDraw(f *testing.F) {
	for _, s := range []string{"alpha=lognormal:0,0.5", "omega=logitnormal:2,0.1", "eta=uniform:0,2", "pref=fixed:1.5",
		"gamma=lognormal:1e308,1e308", "omega=uniform:0.5,1", "alpha=uniform:-0,1", "x", "alpha=", "=lognormal:0,1"} {
		f.Add(s)
	}
	m := loadTMaze(f)
	ps := aci.Factory{}.Params(m)
	f.Fuzz(func(t *testing.T, s string) {
		d, err := fit.ParseDraw(s, ps)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fit: draw ") {
				t.Fatalf("%q: error %q lacks the prefix", s, err)
			}
			return
		}
		rng := fit.ParamRand(1, 0)
		for range 20 {
			x := d.Sample(rng)
			if d.Param.Domain.Contains(x) || agent.ClosedLearning(d.Param.Name, x) {
				continue
			}
			if _, err := (aci.Factory{}).NewAgent(m, map[string]float64{d.Param.Name: x}); err == nil {
				t.Fatalf("%q drew %v outside the %s domain and the agent took it", s, x, d.Param.Domain)
			}
		}
	})
}
