package si_test

import (
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// TestFactory: the agent declares gamma, alpha and the learning and model
// parameters, with the options' defaults, and the values reach the agent.
func TestFactory(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	fac := si.Factory{Options: si.Options{Depth: 2, Gamma: 4}}
	ps := fac.Params(m)
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "gamma,alpha,eta,omega,pref,conc" {
		t.Errorf("Params: %s", got)
	}
	if ps[0].Default != 4 || ps[1].Default != 1 {
		t.Errorf("defaults gamma %v, alpha %v; want 4 and 1", ps[0].Default, ps[1].Default)
	}
	ag, err := fac.NewAgent(m, map[string]float64{"gamma": 2, "alpha": 0.5, "omega": 0.9})
	if err != nil {
		t.Fatal(err)
	}
	o := ag.(*si.Agent).Options()
	if o.Gamma != 2 || *o.ActionPrecision != 0.5 || *o.Forgetting != 0.9 {
		t.Errorf("options gamma %v, alpha %v, omega %v; want 2, 0.5, 0.9", o.Gamma, *o.ActionPrecision, *o.Forgetting)
	}
	if _, err := fac.NewAgent(m, map[string]float64{"omega": 1.5}); err == nil || !strings.Contains(err.Error(), "parameter omega") {
		t.Errorf("omega 1.5: %v, want an error naming omega", err)
	}
}
