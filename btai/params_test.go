package btai_test

import (
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestFactory: BTAI declares alpha only with a stochastic choice rule, no
// gamma, the learning parameters of a learning model, and sets α.
func TestFactory(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	names := func(ps []agent.Param) string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return strings.Join(out, ",")
	}
	if got := names(btai.Factory{}.Params(m)); got != "eta,omega,pref,conc" {
		t.Errorf("default preset (most visited): %s, want eta,omega,pref,conc", got)
	}
	o := btai.Options{ActionSelection: btai.Visits, Iterations: 50}
	fac := btai.Factory{Options: &o}
	ps := fac.Params(m)
	if got := names(ps); got != "alpha,eta,omega,pref,conc" {
		t.Errorf("visits: %s, want alpha,eta,omega,pref,conc", got)
	}
	if ps[0].Default != btai.DefaultVisitsPrecision {
		t.Errorf("alpha default %v, want %v", ps[0].Default, btai.DefaultVisitsPrecision)
	}
	ag, err := fac.NewAgent(m, map[string]float64{"alpha": 3, "pref": 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := *ag.(*btai.Agent).Options().ActionPrecision; got != 3 {
		t.Errorf("alpha: the agent's precision is %v, want 3", got)
	}
	if _, err := fac.NewAgent(m, map[string]float64{"gamma": 1}); err == nil || !strings.Contains(err.Error(), `parameter "gamma"`) {
		t.Errorf("gamma: %v, want an error naming it", err)
	}
}

// TestFactoryStepped: every parameter but α changes the planning tree and
// is declared stepped.
func TestFactoryStepped(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range (btai.Factory{Options: &btai.Options{ActionSelection: btai.Softmax}}).Params(m) {
		if p.Stepped != (p.Name != "alpha") {
			t.Errorf("%s: Stepped %v", p.Name, p.Stepped)
		}
	}
}
