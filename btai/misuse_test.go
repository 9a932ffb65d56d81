package btai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/internal/misusetest"
	"github.com/arbor-ai/arbor/pomdp"
)

// impossibleModel has states 0 and 1, emitting observations 0 and 1, and
// an observation 2 that no state emits; it starts in 0 and stays put under
// both actions: observation 1 is impossible at step 0 and after it (only B
// excludes it there), observation 2 always (A excludes it).
func impossibleModel(t *testing.T) *pomdp.Model {
	t.Helper()
	m, err := pomdp.New(pomdp.Spec{NumStates: 2, NumObs: 3, NumActions: 2,
		A: []float64{1, 0, 0, 1, 0, 0}, B: []float64{1, 0, 0, 1, 1, 0, 0, 1}, C: []float64{0.4, 0.4, 0.2}, D: []float64{1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// impossibleFactorised is impossibleModel's first factor with a second,
// uncontrolled factor of 3 states and a second modality of 2 outcomes that
// depends on both. Observation (seen, heard) is 2 seen + heard: those with
// seen = 1 are impossible at step 0 and after it (only B excludes them
// there), those with seen = 2 always.
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
			{Name: "seen", NumOutcomes: 3, DependsOn: []string{"where"}, A: []float64{1, 0, 0, 1, 0, 0}},
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

// planned returns a tree of 2 actions whose root is expanded.
func planned() *btai.Tree {
	var tr btai.Tree
	tr.Reset(2, nil)
	tr.AddChildren(0, []float64{1, 2})
	tr.Propagate(0, btai.MinBackward)
	return &tr
}

// TestMisuse runs every misuse of the package's API that the package
// refuses: with an error, or with the panic that a doc comment documents
// (a programming error, as the standard library panics on: the planning
// tree's), or gives a documented meaning (a nil context, a nil generator,
// zero options).
func TestMisuse(t *testing.T) {
	m, err := pomdp.Load("../aci/testdata/tiny-pomdp.json") // 3 states, 2 observations, 2 actions
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
	call := func(f func()) func() error { return func() error { f(); return nil } }
	small := btai.DefaultOptions()
	small.Iterations = 20
	cases := []misusetest.Case{
		{Name: "ParseCost of a bad name", Call: func() error { _, err := btai.ParseCost("risk"); return err }, Msg: `unknown cost "risk"`},
		{Name: "ParseSelection of a bad name", Call: func() error { _, err := btai.ParseSelection("greedy"); return err }, Msg: `unknown selection "greedy"`},
		{Name: "ParseInference of a bad name", Call: func() error { _, err := btai.ParseInference("exact"); return err }, Msg: `unknown inference "exact"`},
		{Name: "ParsePropagation of a bad name", Call: func() error { _, err := btai.ParsePropagation("up"); return err }, Msg: `unknown propagation "up"`},
		{Name: "ParseActionSelection of a bad name", Call: func() error { _, err := btai.ParseActionSelection("x"); return err }, Msg: `unknown action selection "x"`},
		{Name: "PresetByName of a bad name", Call: func() error { _, err := btai.PresetByName("fast"); return err }, Msg: `unknown preset "fast"`},
		{Name: "Options.Validate of 0 iterations", Call: func() error { o := btai.DefaultOptions(); o.Iterations = -1; return o.Validate() }, Msg: "iterations -1"},
		{Name: "CheckTree nil model", Call: func() error { return btai.CheckTree(10, nil, false) }, Prefix: "pomdp: ", Msg: "model: nil"},
		{Name: "CheckFactorised global with two factors", Call: func() error { return btai.CheckFactorised(fm, "--model f.json", true, false) }, Msg: "f.json"},
		{Name: "EstimatePlanSeconds nil model", Call: call(func() { btai.EstimatePlanSeconds(nil, btai.Options{}) }), Panics: "EstimatePlanSeconds", Msg: "btai: EstimatePlanSeconds: pomdp: model: nil"},
		{Name: "EstimatePlanSeconds zero options", Call: func() error {
			if got, want := btai.EstimatePlanSeconds(m, btai.Options{}), btai.EstimatePlanSeconds(m, btai.DefaultOptions()); got != want || !(got > 0) {
				return fmt.Errorf("%v s for the zero options, %v s for the defaults", got, want)
			}
			return nil
		}, OK: "EstimatePlanSeconds"},
		{Name: "EstimatePlanSeconds invalid options", Call: func() error {
			if s := btai.EstimatePlanSeconds(m, btai.Options{Iterations: -5}); !math.IsInf(s, 1) {
				return fmt.Errorf("%v s, want +Inf", s)
			}
			return nil
		}, OK: "EstimatePlanSeconds"},
		{Name: "TreeBytes negative", Call: func() error {
			if b := btai.TreeBytes(-1, -1, -1, -1, true); b != 0 {
				return fmt.Errorf("%v bytes, want 0", b)
			}
			return nil
		}, OK: "TreeBytes"},
		{Name: "Validate nil options", Call: func() error { var o *btai.Options; return o.Validate() }, OK: "Options.Validate"},
		{Name: "NewAgent nil model", Call: func() error { _, err := btai.NewAgent(nil, nil, nil); return err }, Msg: "btai: pomdp: model: nil"},
		{Name: "NewAgent invalid options", Call: func() error { _, err := btai.NewAgent(m, &btai.Options{Iterations: -1}, nil); return err }, Msg: "btai: iterations -1"},
		{Name: "NewAgent nil rng", Call: func() error {
			a, err := btai.NewAgent(m, &small, nil)
			if err != nil {
				return err
			}
			_, err = a.Decide(ctx, rng)
			if err == nil {
				err = errors.New("Decide before Reset accepted")
			} else {
				err = nil
			}
			return err
		}, OK: "NewAgent"},

		// The planning tree: documented panics.
		{Name: "zero Tree Select", Call: call(func() { new(btai.Tree).Select(1, btai.UCT) }), Panics: "Tree.Select", Msg: "btai: Tree.Select: node 0 of a tree without a root"},
		{Name: "zero Tree SelectAction", Call: call(func() { new(btai.Tree).SelectAction(btai.MinCost, 1, nil, nil) }), Panics: "Tree.SelectAction", Msg: "btai: Tree.SelectAction: the root is not expanded"},
		{Name: "Tree.SelectAction unexpanded root", Call: call(func() {
			var tr btai.Tree
			tr.Reset(2, nil)
			tr.SelectAction(btai.Softmax, 1, rng, nil)
		}), Panics: "Tree.SelectAction", Msg: "the root is not expanded"},
		{Name: "Tree.BestAction unexpanded root", Call: call(func() {
			var tr btai.Tree
			tr.Reset(2, nil)
			tr.BestAction(btai.MostVisited)
		}), Panics: "Tree.BestAction", Msg: "btai: Tree.BestAction: the root is not expanded"},
		{Name: "Tree.SelectAction nil rng", Call: call(func() { planned().SelectAction(btai.Softmax, 1, nil, nil) }), Panics: "Tree.SelectAction", Msg: "nil rng for softmax"},
		{Name: "Tree.SelectAction NaN precision", Call: call(func() { planned().SelectAction(btai.Visits, math.NaN(), rng, nil) }), Panics: "Tree.SelectAction", Msg: "precision NaN"},
		{Name: "Tree.SelectAction unknown rule", Call: call(func() { planned().SelectAction(9, 1, rng, nil) }), Panics: "Tree.SelectAction", Msg: "ActionSelection(9)"},
		{Name: "Tree.BestAction unknown rule", Call: call(func() { planned().BestAction(-1) }), Panics: "Tree.BestAction", Msg: "ActionSelection(-1)"},
		{Name: "Tree.Child unexpanded", Call: call(func() { planned().Child(1, 0) }), Panics: "Tree.Child", Msg: "node 1 is not expanded"},
		{Name: "Tree.Child action out of range", Call: call(func() { planned().Child(0, 7) }), Panics: "Tree.Child", Msg: "action 7 out of range [0, 2)"},
		{Name: "Tree.AddChildren short costs", Call: call(func() { planned().AddChildren(1, []float64{1}) }), Panics: "Tree.AddChildren", Msg: "len(costs) = 1, want 2"},
		{Name: "Tree.AddChildren twice", Call: call(func() { planned().AddChildren(0, []float64{1, 2}) }), Panics: "Tree.AddChildren", Msg: "node 0 is already expanded"},
		{Name: "Tree.AddChildren node out of range", Call: call(func() { planned().AddChildren(5, []float64{1, 2}) }), Panics: "Tree.AddChildren", Msg: "node 5 out of range [0, 3)"},
		{Name: "Tree.Propagate unexpanded", Call: call(func() { planned().Propagate(2, btai.Backward) }), Panics: "Tree.Propagate", Msg: "node 2 is not expanded"},
		{Name: "Tree.Propagate unknown scheme", Call: call(func() { planned().Propagate(0, -1) }), Panics: "Tree.Propagate", Msg: "Propagation(-1)"},
		{Name: "Tree.Select unknown rule", Call: call(func() { planned().Select(1, 99) }), Panics: "Tree.Select", Msg: "Selection(99)"},
		{Name: "Tree.Path out of range", Call: call(func() { planned().Path(nil, 99) }), Panics: "Tree.Path", Msg: "node 99 out of range"},
		{Name: "Tree.Reset no actions", Call: call(func() { new(btai.Tree).Reset(0, nil) }), Panics: "Tree.Reset", Msg: "0 actions"},

		// The zero Agent.
		{Name: "zero Agent Reset", Call: func() error { return new(btai.Agent).Reset(ctx, 0) }, Msg: "btai: the zero Agent"},
		{Name: "zero Agent Plan", Call: func() error { return new(btai.Agent).Plan(ctx) }, Msg: "btai: the zero Agent"},
		{Name: "zero Agent Iterate", Call: func() error { return new(btai.Agent).Iterate(ctx) }, Msg: "btai: the zero Agent"},
		{Name: "zero Agent Decide", Call: func() error { _, err := new(btai.Agent).Decide(ctx, rng); return err }, Msg: "btai: the zero Agent"},
		{Name: "zero Agent SelectAction", Call: func() error { _, err := new(btai.Agent).SelectAction(); return err }, Msg: "btai: the zero Agent"},
		{Name: "zero Agent Step", Call: func() error { return new(btai.Agent).Step(ctx, 0, 0) }, Msg: "btai: the zero Agent"},
		{Name: "zero Agent AdvanceMixed", Call: func() error { return new(btai.Agent).AdvanceMixed(ctx, nil, 0) }, Msg: "btai: the zero Agent"},
		{Name: "zero Agent EndTrial", Call: func() error { return new(btai.Agent).EndTrial(ctx) }, Msg: "btai: the zero Agent"},
		{Name: "zero Agent LearnedModel", Call: func() error { _, err := new(btai.Agent).LearnedModel(); return err }, Msg: "btai: the zero Agent"},
		{Name: "zero Agent views", Call: func() error {
			var a btai.Agent
			a.LabelTree(nil)
			if a.Belief() != nil || a.Time() != 0 || a.Concentrations().Learned() || a.Graph() != nil || len(a.Tree().Nodes) != 0 {
				return errors.New("the zero Agent has a belief, a tree or concentrations")
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
		fresh := func() *btai.Agent {
			a, err := btai.NewAgent(mm.m, &small, nil)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		started := func() *btai.Agent {
			a := fresh()
			if err := a.Reset(ctx, 0); err != nil {
				t.Fatal(err)
			}
			return a
		}
		ended := func() *btai.Agent {
			a := started()
			if err := a.Plan(ctx); err != nil {
				t.Fatal(err)
			}
			if err := a.EndTrial(ctx); err != nil {
				t.Fatal(err)
			}
			return a
		}
		stepped := func() *btai.Agent { // planned, then the tree removed by Step
			a, world := fresh(), pomdp.NewProcess(mm.m, rand.New(rand.NewPCG(4, 4)))
			if err := a.Reset(ctx, world.Reset()); err != nil {
				t.Fatal(err)
			}
			d, err := a.Decide(ctx, rng)
			if err != nil {
				t.Fatal(err)
			}
			o, err := world.Step(d.Action)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Step(ctx, d.Action, o); err != nil {
				t.Fatal(err)
			}
			return a
		}
		p := mm.name + ": "
		cases = append(cases,
			misusetest.Case{Name: p + "Plan before Reset", Call: func() error { return fresh().Plan(ctx) }, Msg: "btai: Plan before Reset"},
			misusetest.Case{Name: p + "Iterate before Reset", Call: func() error { return fresh().Iterate(ctx) }, Msg: "btai: Iterate before Plan"},
			misusetest.Case{Name: p + "Decide before Reset", Call: func() error { _, err := fresh().Decide(ctx, rng); return err }, Msg: "btai: Plan before Reset"},
			misusetest.Case{Name: p + "SelectAction before Reset", Call: func() error { _, err := fresh().SelectAction(); return err }, Msg: "btai: SelectAction before Plan"},
			misusetest.Case{Name: p + "Advance before Reset", Call: func() error { return fresh().Advance(ctx, 0, 0) }, Msg: "btai: Step before Reset"},
			misusetest.Case{Name: p + "AdvanceMixed before Reset", Call: func() error { return fresh().AdvanceMixed(ctx, uniform, 0) }, Msg: "btai: AdvanceMixed before Reset"},
			misusetest.Case{Name: p + "EndTrial before Reset", Call: func() error { return fresh().EndTrial(ctx) }, Msg: "btai: EndTrial before Reset"},
			misusetest.Case{Name: p + "views before Reset", Call: func() error {
				a := fresh()
				a.LabelTree(nil)
				if a.Belief() != nil || a.Graph() != nil || len(a.Tree().Nodes) != 0 {
					return errors.New("a belief, graph or tree before Reset")
				}
				_, _, err := a.NodePosteriors(1)
				if err == nil {
					return errors.New("NodePosteriors before Reset accepted")
				}
				return nil
			}, OK: "Agent.Belief"},
			misusetest.Case{Name: p + "Iterate after Reset before Plan", Call: func() error { return started().Iterate(ctx) }, Msg: "btai: Iterate before Plan"},
			misusetest.Case{Name: p + "SelectAction after Reset before Plan", Call: func() error { _, err := started().SelectAction(); return err }, Msg: "btai: SelectAction before Plan"},
			misusetest.Case{Name: p + "Iterate after Step", Call: func() error { return stepped().Iterate(ctx) }, Msg: "btai: Iterate before Plan"},
			misusetest.Case{Name: p + "SelectAction after Step", Call: func() error { _, err := stepped().SelectAction(); return err }, Msg: "btai: SelectAction before Plan"},
			misusetest.Case{Name: p + "Plan after EndTrial", Call: func() error { return ended().Plan(ctx) }, Msg: "btai: Plan after EndTrial"},
			misusetest.Case{Name: p + "Iterate after EndTrial", Call: func() error { return ended().Iterate(ctx) }, Msg: "btai: Iterate before Plan"},
			misusetest.Case{Name: p + "Decide after EndTrial", Call: func() error { _, err := ended().Decide(ctx, rng); return err }, Msg: "btai: Plan after EndTrial"},
			misusetest.Case{Name: p + "SelectAction after EndTrial", Call: func() error { _, err := ended().SelectAction(); return err }, Msg: "btai: SelectAction before Plan"},
			misusetest.Case{Name: p + "Advance after EndTrial", Call: func() error { return ended().Advance(ctx, 0, 0) }, Msg: "btai: Step after EndTrial"},
			misusetest.Case{Name: p + "AdvanceMixed after EndTrial", Call: func() error { return ended().AdvanceMixed(ctx, uniform, 0) }, Msg: "btai: AdvanceMixed after EndTrial"},
			misusetest.Case{Name: p + "EndTrial after EndTrial", Call: func() error { return ended().EndTrial(ctx) }, Msg: "btai: EndTrial after EndTrial"},
			misusetest.Case{Name: p + "Reset observation out of range", Call: func() error { return fresh().Reset(ctx, mm.m.NumObs()) }, Msg: "btai: observation"},
			misusetest.Case{Name: p + "Step action out of range", Call: func() error { return started().Step(ctx, nu, 0) }, Msg: "btai: action"},
			misusetest.Case{Name: p + "AdvanceMixed short probs", Call: func() error { return started().AdvanceMixed(ctx, []float64{1}, 0) }, Msg: "btai: pomdp: GrowMixed: probs: 1 entries"},
			misusetest.Case{Name: p + "Decide nil rng", Call: func() error { _, err := started().Decide(ctx, nil); return err }, Msg: "btai: Decide with a nil random stream"},
			misusetest.Case{Name: p + "nil context", Call: func() error {
				a, world := fresh(), pomdp.NewProcess(mm.m, rand.New(rand.NewPCG(4, 4)))
				if err := a.Reset(nilCtx, world.Reset()); err != nil {
					return err
				}
				if err := a.Plan(nilCtx); err != nil {
					return err
				}
				if err := a.Iterate(nilCtx); err != nil {
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
			}, OK: "Agent"},
			misusetest.Case{Name: p + "SetRand nil", Call: func() error {
				a := started()
				a.SetRand(nil)
				if err := a.Plan(ctx); err != nil {
					return err
				}
				_, err := a.SelectAction()
				return err
			}, OK: "Agent.SetRand"},
		)
	}
	// An observation the model cannot explain, at Reset and after the past,
	// with exact filtering and with the default mean field over the past.
	for _, mm := range []struct {
		name       string
		m          *pomdp.Model
		byB, never int // an observation only B excludes after step 0, one A excludes
	}{{"single", impossibleModel(t), 1, 2}, {"factorised", impossibleFactorised(t), 2, 4}} {
		for _, past := range []pomdp.PastInference{pomdp.PastVMP, pomdp.PastFilter} {
			o := small
			o.Past = past
			newAgent := func() (*btai.Agent, error) { return btai.NewAgent(mm.m, &o, nil) }
			impossible := func(err error) error {
				if err != nil && !errors.Is(err, pomdp.ErrImpossibleObservation) {
					return fmt.Errorf("not ErrImpossibleObservation: %w", err)
				}
				return err
			}
			// step makes an agent, resets it with observation 0 and steps
			// it with obs; the refused observation leaves the past as it was.
			step := func(obs int) error {
				a, err := newAgent()
				if err != nil {
					return err
				}
				if err := a.Reset(ctx, 0); err != nil {
					return err
				}
				err = impossible(a.Step(ctx, 0, obs))
				if err != nil && a.Time() != 0 {
					return fmt.Errorf("time %d after a refused observation", a.Time())
				}
				return err
			}
			p := fmt.Sprintf("%s, %v: ", mm.name, past)
			cases = append(cases,
				misusetest.Case{Name: p + "Reset impossible observation", Call: func() error {
					a, err := newAgent()
					if err != nil {
						return err
					}
					return impossible(a.Reset(ctx, mm.byB))
				}, Msg: "btai: pomdp: step 0", Prefix: "pomdp: step 0"},
				misusetest.Case{Name: p + "Step observation that A excludes", Call: func() error { return step(mm.never) }, Prefix: "pomdp: step 1", Msg: "probability 0"},
			)
			if past == pomdp.PastFilter {
				cases = append(cases, misusetest.Case{Name: p + "Step observation that B excludes", Call: func() error { return step(mm.byB) },
					Prefix: "pomdp: step 1", Msg: "probability 0"})
			} else {
				cases = append(cases, misusetest.Case{Name: p + "Step observation that B excludes", Call: func() error {
					if err := step(mm.byB); err != nil {
						return err
					}
					return nil
				}, OK: "Agent.Step"})
			}
		}
	}
	misusetest.Runner{Prefix: "btai: ", Always: true}.Run(t, cases)
}

// TestAgentsShareModel runs two agents on one model on two goroutines at
// once, as agent.RunAgents does with several workers: a model with
// concentrations a, b and d (learnt, with novelty) and a factorised one.
// Under -race it finds any write to what they share, and without it each
// model is checked unchanged.
func TestAgentsShareModel(t *testing.T) {
	fm, err := pomdp.Load("../pomdp/testdata/factorised-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*pomdp.Model{learnedModel(t), fm} {
		before, err := json.Marshal(m.FactorisedSpec())
		if err != nil {
			t.Fatal(err)
		}
		o := btai.DefaultOptions()
		o.Iterations, o.Rollouts = 30, 1
		if la, _, _ := m.Learnable(); la {
			o.Novelty = true
		}
		newAgent := func() (agent.Agent, error) { return btai.NewAgent(m, &o, nil) }
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
}

// TestErrorReturns holds the exported functions and methods of btai to the
// rule of docs/reliability.md ("Error messages") in the source: every
// error they return is nil, a literal starting with "btai: ", or passes
// through apiError, apiResult or inContext, which put the prefix in front
// once.
func TestErrorReturns(t *testing.T) {
	misusetest.Returns(t, "btai: ", "apiError", "apiResult", "inContext")
}
