package aci_test

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestFactory: the factory's agent at α equals an agent built with
// ActionPrecision α (the same log-likelihood of pymdp's first subject,
// bit for bit), and it declares and refuses parameters by name.
func TestFactory(t *testing.T) {
	m, err := pomdp.Load("testdata/pymdp-tmaze/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/pymdp-tmaze/subjects.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	subjects, err := behaviour.Read(f, "subjects.csv", m)
	if err != nil {
		t.Fatal(err)
	}
	fac := aci.Factory{Options: aci.AgentOptions{Horizon: 1, Gamma: 1}}
	var names []string
	for _, p := range fac.Params(m) {
		names = append(names, p.Name)
	}
	// pymdp's T-maze has no concentrations: no eta, omega or conc.
	if got := strings.Join(names, ","); got != "gamma,alpha,pref" {
		t.Errorf("Params: %s, want gamma,alpha,pref", got)
	}
	alpha := 2.5
	direct, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: 1, Gamma: 1, ActionPrecision: &alpha})
	if err != nil {
		t.Fatal(err)
	}
	built, err := fac.NewAgent(m, map[string]float64{"alpha": alpha})
	if err != nil {
		t.Fatal(err)
	}
	ll := func(ag agent.Agent) float64 {
		s := 0.0
		for i, tr := range subjects[0].Trials {
			rt, err := agent.Replay(context.Background(), ag, tr.Obs, tr.Actions, &agent.EpisodeSettings{Trial: i})
			if err != nil {
				t.Fatal(err)
			}
			s += rt.LogLikelihood
		}
		return s
	}
	if a, b := ll(direct), ll(built); a != b || math.IsNaN(a) {
		t.Errorf("factory agent: log-likelihood %v, direct agent %v", b, a)
	}
	// pref = 1 is the model itself; pref = 2 changes the likelihood.
	p1, err := fac.NewAgent(m, map[string]float64{"alpha": alpha, "pref": 1})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := fac.NewAgent(m, map[string]float64{"alpha": alpha, "pref": 2})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := ll(p1), ll(p2); a != ll(direct) || a == b {
		t.Errorf("pref 1: %v (want %v), pref 2: %v (want a change)", a, ll(direct), b)
	}
	for _, c := range []struct {
		v    map[string]float64
		want string
	}{
		{map[string]float64{"eta": 0.5}, `parameter "eta": the agent has gamma, alpha and pref`},
		{map[string]float64{"gamma": 0}, "parameter gamma: 0"},
		{map[string]float64{"alpha": -1}, "parameter alpha: -1"},
	} {
		if _, err := fac.NewAgent(m, c.v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewAgent(%v): %v, want %q", c.v, err, c.want)
		}
	}
	// α = 0 (uniform) is accepted; InferGamma removes gamma.
	if _, err := fac.NewAgent(m, map[string]float64{"alpha": 0}); err != nil {
		t.Error(err)
	}
	if ps := (aci.Factory{Options: aci.AgentOptions{Horizon: 1, InferGamma: true}}).Params(m); ps[0].Name != "alpha" {
		t.Errorf("with InferGamma the first parameter is %s, want alpha (no gamma)", ps[0].Name)
	}
	// A learning model declares eta, omega and conc with the options' defaults.
	lm, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	eta := 0.25
	ps := aci.Factory{Options: aci.AgentOptions{Horizon: 2, LearningRate: &eta}}.Params(lm)
	want := map[string]float64{"gamma": aci.DefaultGamma, "alpha": 1, "eta": 0.25, "omega": 1, "pref": 1, "conc": 1}
	if len(ps) != len(want) {
		t.Fatalf("%d parameters, want %d", len(ps), len(want))
	}
	for _, p := range ps {
		if p.Default != want[p.Name] {
			t.Errorf("%s: default %v, want %v", p.Name, p.Default, want[p.Name])
		}
	}
}
