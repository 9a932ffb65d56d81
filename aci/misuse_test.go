package aci_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/internal/misusetest"
	"github.com/arbor-ai/arbor/pomdp"
)

// impossibleModel has states 0 and 1, each emitting its own observation,
// starting in 0 and staying put under both actions: observation 1 is
// impossible at step 0 and after it.
func impossibleModel(t *testing.T) *pomdp.Model {
	t.Helper()
	m, err := pomdp.New(pomdp.Spec{NumStates: 2, NumObs: 2, NumActions: 2,
		A: []float64{1, 0, 0, 1}, B: []float64{1, 0, 0, 1, 1, 0, 0, 1}, C: []float64{0.5, 0.5}, D: []float64{1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// impossibleFactorised is impossibleModel's first factor with a second,
// uncontrolled factor of 3 states and a second modality that depends on
// both: the observations with outcome 1 of the first modality are
// impossible at step 0 and after it.
func impossibleFactorised(t *testing.T) *pomdp.Model {
	t.Helper()
	id3 := []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
	a2 := make([]float64, 2*2*3) // uniform over 2 outcomes
	for i := range a2 {
		a2[i] = 0.5
	}
	m, err := pomdp.NewFactorised(pomdp.FactorisedSpec{
		Factors: []pomdp.Factor{
			{Name: "where", NumStates: 2, Controls: []string{"stay", "wait"}, D: []float64{1, 0}, B: []float64{1, 0, 0, 1, 1, 0, 0, 1}},
			{Name: "what", NumStates: 3, D: []float64{0.2, 0.3, 0.5}, B: id3},
		},
		Modalities: []pomdp.Modality{
			{Name: "seen", NumOutcomes: 2, DependsOn: []string{"where"}, A: []float64{1, 0, 0, 1}},
			{Name: "heard", NumOutcomes: 2, DependsOn: []string{"where", "what"}, A: a2},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// learnedModel is a random model of 4 states, 3 observations and 3 actions
// with concentrations a, b and d.
func learnedModel(t *testing.T) *pomdp.Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	conc := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = 0.5 + rng.Float64()
		}
		return x
	}
	m, err := pomdp.New(pomdp.Spec{NumStates: 4, NumObs: 3, NumActions: 3,
		ConcA: conc(3 * 4), ConcB: conc(3 * 4 * 4), ConcD: conc(4), C: []float64{0.6, 0.3, 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMisuse runs every misuse of the package's API that the package
// refuses: with an error, or with the panic that a doc comment documents
// (a programming error, as the standard library panics on), or gives a
// documented meaning (a nil context, a nil generator).
func TestMisuse(t *testing.T) {
	m, err := pomdp.Load("testdata/tiny-pomdp.json") // 3 states, 2 observations, 2 actions
	if err != nil {
		t.Fatal(err)
	}
	fm, err := pomdp.Load("../pomdp/testdata/factorised-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var nilCtx context.Context // a nil context, as a caller may pass one
	rng := rand.New(rand.NewPCG(1, 2))
	q := []float64{1, 0, 0}
	call := func(f func()) func() error { return func() error { f(); return nil } }
	ps, err := aci.EvaluatePolicies(m, q, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []misusetest.Case{
		{Name: "NumPolicies no actions", Call: func() error { _, err := aci.NumPolicies(0, 2, 100); return err }, Prefix: "number of actions: ", Msg: "want >= 1"},
		{Name: "NumPolicies over the limit", Call: func() error { _, err := aci.NumPolicies(2, 10, 100); return err }, Prefix: "horizon: ", Msg: "exceeds the limit 100"},
		{Name: "CheckPlanTime nil model", Call: func() error { return aci.CheckPlanTime(nil, 2, 1) }, Prefix: "pomdp: ", Msg: "model: nil"},
		{Name: "Observe before Reset", Call: func() error {
			a, err := aci.NewAgent(m, nil)
			if err != nil {
				return fmt.Errorf("setup: %v", err)
			}
			return a.Observe(0, 0)
		}},
		{Name: "DecodePolicy no actions", Call: call(func() { aci.DecodePolicy(nil, 0, 0, 2) }), Panics: "DecodePolicy", Msg: "aci: DecodePolicy: 0 actions"},
		{Name: "DecodePolicy negative horizon", Call: call(func() { aci.DecodePolicy(nil, 0, 2, -1) }), Panics: "DecodePolicy", Msg: "horizon -1"},
		{Name: "DecodePolicy index out of range", Call: call(func() { aci.DecodePolicy(nil, 4, 2, 2) }), Panics: "DecodePolicy", Msg: "index out of range [0, 2^2)"},
		{Name: "DecodePolicy negative index", Call: call(func() { aci.DecodePolicy(nil, -1, 2, 2) }), Panics: "DecodePolicy", Msg: "negative index -1"},
		{Name: "EncodePolicy action out of range", Call: call(func() { aci.EncodePolicy([]int{5}, 2) }), Panics: "EncodePolicy", Msg: "aci: EncodePolicy: action 5 out of range [0, 2)"},
		{Name: "EncodePolicy overflow", Call: call(func() { p := make([]int, 100); p[0] = 1; aci.EncodePolicy(p, 2) }), Panics: "EncodePolicy", Msg: "overflows int"},
		{Name: "EstimatePlanSeconds nil model", Call: call(func() { aci.EstimatePlanSeconds(nil, 2) }), Panics: "EstimatePlanSeconds", Msg: "aci: EstimatePlanSeconds: pomdp: model: nil"},
		{Name: "EstimatePlanSeconds no horizon", Call: func() error {
			if s := aci.EstimatePlanSeconds(m, 0); s != 0 {
				return fmt.Errorf("%v s, want 0", s)
			}
			return nil
		}, OK: "EstimatePlanSeconds"},
		{Name: "PolicySet.ActionProbs short q_pi", Call: call(func() { ps.ActionProbs(nil, nil) }), Panics: "PolicySet.ActionProbs", Msg: "aci: ActionProbs: len(qpi) = 0, want 4"},
		{Name: "PolicySet.ActionProbs no actions", Call: call(func() { (&aci.PolicySet{G: []float64{1}}).ActionProbs(nil, []float64{1}) }), Panics: "PolicySet.ActionProbs", Msg: "1 policies for 0 actions"},
		{Name: "PolicySet.Policy out of range", Call: call(func() { ps.Policy(nil, 99) }), Panics: "PolicySet.Policy", Msg: "index out of range"},
		{Name: "PolicySet.Policies no actions", Call: call(func() { (&aci.PolicySet{Horizon: 1, G: []float64{1}}).Policies() }), Panics: "PolicySet", Msg: "0 actions"},

		// Functions that take a model or a belief: errors that name the
		// field, or pomdp.Check's.
		{Name: "ExpectedFreeEnergy nil model", Call: func() error { _, _, _, err := aci.ExpectedFreeEnergy(nil, q, []int{0}, nil); return err }, Prefix: "pomdp: ", Msg: "model: nil"},
		{Name: "ExpectedFreeEnergy action out of range", Call: func() error { _, _, _, err := aci.ExpectedFreeEnergy(m, q, []int{0, 9}, nil); return err }, Prefix: "policy[1]", Msg: "action 9 out of range [0, 2)"},
		{Name: "ExpectedFreeEnergy bad belief", Call: func() error { _, _, _, err := aci.ExpectedFreeEnergy(m, q[:1], nil, nil); return err }, Prefix: "pomdp: qs", Msg: "1 entries, want 3"},
		{Name: "ExpectedFreeEnergy novelty without a", Call: func() error {
			_, _, _, err := aci.ExpectedFreeEnergy(m, q, nil, &aci.EFEOptions{Novelty: true})
			return err
		}, Prefix: "EFEOptions.Novelty", Msg: "no concentrations a"},
		{Name: "ExpectedFreeEnergy nil policy", Call: func() error {
			G, _, _, err := aci.ExpectedFreeEnergy(m, q, nil, nil)
			if err == nil && G != 0 {
				err = fmt.Errorf("G = %v, want 0", G)
			}
			return err
		}, OK: "ExpectedFreeEnergy"},
		{Name: "EvaluatePolicies no horizon", Call: func() error { _, err := aci.EvaluatePolicies(m, q, 0, nil); return err }, Prefix: "horizon", Msg: "want >= 1"},
		{Name: "EvaluatePolicies nil model", Call: func() error { _, err := aci.EvaluatePolicies(nil, q, 2, nil); return err }, Prefix: "pomdp: ", Msg: "model: nil"},
		{Name: "EvaluatePoliciesContext nil context", Call: func() error { _, err := aci.EvaluatePoliciesContext(nilCtx, m, q, 2, nil); return err }, OK: "EvaluatePoliciesContext"},
		{Name: "TopPolicies no k", Call: func() error { _, err := aci.TopPolicies(m, q, 2, 0, 1, nil); return err }, Prefix: "k", Msg: "want >= 1"},
		{Name: "TopPoliciesContext nil context", Call: func() error { _, err := aci.TopPoliciesContext(nilCtx, m, q, 2, 1, 1, nil); return err }, OK: "TopPoliciesContext"},
		{Name: "Eval bad gamma", Call: func() error { _, err := aci.Eval(m, 0, 2, math.NaN()); return err }, Prefix: "gamma", Msg: "NaN"},
		{Name: "Eval observation out of range", Call: func() error { _, err := aci.Eval(m, 5, 2, 1); return err }, Prefix: "obs", Msg: "out of range"},
		{Name: "PolicySet.Posterior bad gamma", Call: func() error { _, err := ps.Posterior(nil, -1); return err }, Prefix: "gamma", Msg: "want finite > 0"},
		{Name: "NewAgent nil model", Call: func() error { _, err := aci.NewAgent(nil, nil); return err }, Prefix: "pomdp: ", Msg: "model: nil"},
		{Name: "NewAgent bad options", Call: func() error { _, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: -1}); return err }, Prefix: "AgentOptions.Horizon", Msg: "want >= 1"},

		// The zero Agent.
		{Name: "zero Agent Reset", Call: func() error { return new(aci.Agent).Reset(ctx, 0) }, Msg: "aci: the zero Agent"},
		{Name: "zero Agent Decide", Call: func() error { _, err := new(aci.Agent).Decide(ctx, rng); return err }, Msg: "aci: the zero Agent"},
		{Name: "zero Agent Act", Call: func() error { _, err := new(aci.Agent).Act(ctx); return err }, Msg: "aci: the zero Agent"},
		{Name: "zero Agent Advance", Call: func() error { return new(aci.Agent).Advance(ctx, 0, 0) }, Msg: "aci: the zero Agent"},
		{Name: "zero Agent AdvanceMixed", Call: func() error { return new(aci.Agent).AdvanceMixed(ctx, nil, 0) }, Msg: "aci: the zero Agent"},
		{Name: "zero Agent EndTrial", Call: func() error { return new(aci.Agent).EndTrial(ctx) }, Msg: "aci: the zero Agent"},
		{Name: "zero Agent views", Call: func() error {
			var a aci.Agent
			if a.Belief() != nil || len(a.StateBeliefs()) != 0 || a.Concentrations().Learned() || a.LastPlan() != nil || a.Graph() != nil {
				return errors.New("the zero Agent has a belief, a plan or concentrations")
			}
			return nil
		}, OK: "Agent"},
	}
	// Calls in the wrong order, with a single-factor and a factorised model.
	for _, mm := range []struct {
		name string
		m    *pomdp.Model
	}{{"single", m}, {"factorised", fm}} {
		nu := mm.m.NumActions()
		uniform := make([]float64, nu)
		for u := range uniform {
			uniform[u] = 1 / float64(nu)
		}
		fresh := func() *aci.Agent {
			a, err := aci.NewAgent(mm.m, nil)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		ended := func() *aci.Agent {
			a := fresh()
			if err := a.Reset(ctx, 0); err != nil {
				t.Fatal(err)
			}
			if err := a.EndTrial(ctx); err != nil {
				t.Fatal(err)
			}
			return a
		}
		started := func() *aci.Agent {
			a := fresh()
			if err := a.Reset(ctx, 0); err != nil {
				t.Fatal(err)
			}
			return a
		}
		p := mm.name + ": "
		cases = append(cases,
			misusetest.Case{Name: p + "Decide before Reset", Call: func() error { _, err := fresh().Decide(ctx, rng); return err }, Msg: "no trial in progress"},
			misusetest.Case{Name: p + "Act before Reset", Call: func() error { _, err := fresh().Act(ctx); return err }, Msg: "no trial in progress"},
			misusetest.Case{Name: p + "Advance before Reset", Call: func() error { return fresh().Advance(ctx, 0, 0) }, Msg: "no trial in progress"},
			misusetest.Case{Name: p + "AdvanceMixed before Reset", Call: func() error { return fresh().AdvanceMixed(ctx, uniform, 0) }, Msg: "no trial in progress"},
			misusetest.Case{Name: p + "EndTrial before Reset", Call: func() error { return fresh().EndTrial(ctx) }, Msg: "no trial in progress"},
			misusetest.Case{Name: p + "Decide after EndTrial", Call: func() error { _, err := ended().Decide(ctx, rng); return err }, Msg: "no trial in progress"},
			misusetest.Case{Name: p + "Advance after EndTrial", Call: func() error { return ended().Advance(ctx, 0, 0) }, Msg: "no trial in progress"},
			misusetest.Case{Name: p + "AdvanceMixed after EndTrial", Call: func() error { return ended().AdvanceMixed(ctx, uniform, 0) }, Msg: "no trial in progress"},
			misusetest.Case{Name: p + "EndTrial after EndTrial", Call: func() error { return ended().EndTrial(ctx) }, Msg: "no trial in progress"},
			misusetest.Case{Name: p + "Reset observation out of range", Call: func() error { return fresh().Reset(ctx, mm.m.NumObs()) }, Msg: "aci: observation"},
			misusetest.Case{Name: p + "Advance action out of range", Call: func() error { return started().Advance(ctx, nu, 0) }, Msg: "aci: action"},
			misusetest.Case{Name: p + "Advance observation out of range", Call: func() error { return started().Advance(ctx, 0, -1) }, Msg: "aci: observation -1"},
			misusetest.Case{Name: p + "AdvanceMixed short probs", Call: func() error { return started().AdvanceMixed(ctx, []float64{1}, 0) }, Prefix: "pomdp: GrowMixed", Msg: "1 entries"},
			misusetest.Case{Name: p + "Decide nil rng", Call: func() error { _, err := started().Decide(ctx, nil); return err }, Msg: "aci: Decide with a nil random stream"},
			misusetest.Case{Name: p + "nil context", Call: func() error {
				a, world := fresh(), pomdp.NewProcess(mm.m, rand.New(rand.NewPCG(4, 4)))
				if err := a.Reset(nilCtx, world.Reset()); err != nil {
					return err
				}
				if _, err := a.Act(nilCtx); err != nil {
					return err
				}
				for step := range 2 {
					d, err := a.Decide(nilCtx, rng)
					if err != nil {
						return err
					}
					o, err := world.Step(d.Action)
					if err != nil {
						return err
					}
					if step == 0 {
						err = a.Advance(nilCtx, d.Action, o)
					} else {
						err = a.AdvanceMixed(nilCtx, d.Probs, o)
					}
					if err != nil {
						return err
					}
				}
				return a.EndTrial(nilCtx)
			}, OK: "Agent.Reset"},
			misusetest.Case{Name: p + "SetRand nil", Call: func() error {
				a, err := aci.NewAgent(mm.m, &aci.AgentOptions{Select: aci.SelectSample, Seed: 3})
				if err != nil {
					return err
				}
				if err := a.Reset(ctx, 0); err != nil {
					return err
				}
				first, err := a.Act(ctx)
				if err != nil {
					return err
				}
				a.SetRand(nil)
				again, err := a.Act(ctx)
				if err == nil && again != first {
					err = fmt.Errorf("action %d after SetRand(nil), %d from the seed's stream", again, first)
				}
				return err
			}, OK: "Agent.SetRand"},
		)
	}
	// An observation the model gives probability 0: at Reset, and after
	// the past (exact filtering, the default).
	for _, mm := range []struct {
		name string
		m    *pomdp.Model
		obs  int // an observation with outcome 1 of the first modality
	}{{"single", impossibleModel(t), 1}, {"factorised", impossibleFactorised(t), 2}} {
		impossible := func(err error) error {
			if err != nil && !errors.Is(err, pomdp.ErrImpossibleObservation) {
				return fmt.Errorf("not ErrImpossibleObservation: %w", err)
			}
			return err
		}
		cases = append(cases,
			misusetest.Case{Name: mm.name + ": Reset impossible observation", Call: func() error {
				a, err := aci.NewAgent(mm.m, nil)
				if err != nil {
					return err
				}
				return impossible(a.Reset(ctx, mm.obs))
			}, Prefix: "pomdp: step 0", Msg: "probability 0"},
			misusetest.Case{Name: mm.name + ": Advance impossible observation", Call: func() error {
				a, err := aci.NewAgent(mm.m, nil)
				if err != nil {
					return err
				}
				if err := a.Reset(ctx, 0); err != nil {
					return err
				}
				err = impossible(a.Advance(ctx, 0, mm.obs))
				if obs, _ := a.History(); len(obs) != 1 {
					return fmt.Errorf("the refused observation was recorded: %v", obs)
				}
				return err
			}, Prefix: "pomdp: step 1", Msg: "probability 0"},
		)
	}
	misusetest.Runner{Prefix: "aci: ", Always: true}.Run(t, cases)
}

// TestAgentsShareModel runs two agents on one model (with concentrations
// a, b and d, and novelty) on two goroutines at once, as agent.RunAgents
// does with several workers; under -race it finds any write to what they
// share, and without it the model is checked unchanged.
func TestAgentsShareModel(t *testing.T) {
	m := learnedModel(t)
	before, err := json.Marshal(m.FactorisedSpec())
	if err != nil {
		t.Fatal(err)
	}
	newAgent := func() (agent.Agent, error) {
		return aci.NewAgent(m, &aci.AgentOptions{Novelty: true, Select: aci.SelectSample, Horizon: 2})
	}
	newEnv := func(u agent.Unit) (agent.Environment, error) {
		return pomdp.NewProcess(m, agent.WorldRand(5, u.Index(3))), nil
	}
	episodes := 0
	err = agent.RunAgents(context.Background(), &agent.Runs{Agents: 2, Trials: 3, Workers: 2, MaxSteps: 4, Seed: 5, Carry: true},
		newAgent, newEnv, func(agent.Unit, *agent.Episode) error { episodes++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if episodes != 6 {
		t.Fatalf("%d episodes, want 6", episodes)
	}
	after, err := json.Marshal(m.FactorisedSpec())
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Error("the shared model changed")
	}
}

// TestErrorReturns holds the exported functions and methods of aci to the
// rule of docs/reliability.md ("Error messages") in the source: every
// error they return is nil, a literal starting with "aci: ", or passes
// through apiError, apiResult or inContext, which put the prefix in front
// once.
func TestErrorReturns(t *testing.T) {
	misusetest.Returns(t, "aci: ", "apiError", "apiResult", "inContext")
}
