package aci_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// misuse is one wrong use of the package's API. The call must either
// return an error (err: its message starts with "aci: ", or with field for
// the errors that name a field or come from package pomdp, and contains
// want) or panic with a message containing want, as the doc comment named
// by panics says it does; or, for ok, be accepted with the meaning that
// the doc comment named by ok gives it (call returns nil).
type misuse struct {
	name   string
	call   func() error
	want   string // a substring of the error or panic message
	panics string // doc comment that documents the panic ("DecodePolicy", "PolicySet.ActionProbs")
	ok     string // doc comment that gives the call its meaning
	field  string // the error starts with this instead of "aci: "
}

// runMisuse runs every case with recover() and checks the outcome against
// the package's doc comments, read from its source.
func runMisuse(t *testing.T, prefix string, cases []misuse) {
	t.Helper()
	docs := packageDocs(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			panicked, msg, err := protect(c.call)
			switch {
			case c.panics != "":
				if !panicked {
					t.Fatalf("no panic (error %v); %s documents one", err, c.panics)
				}
				if !strings.Contains(msg, c.want) {
					t.Errorf("panic %q, want it to contain %q", msg, c.want)
				}
				if d, ok := docs[c.panics]; !ok || !strings.Contains(d, "panic") {
					t.Errorf("the doc comment of %s does not document the panic %q", c.panics, msg)
				}
			case panicked:
				t.Fatalf("undocumented panic: %s", msg)
			case c.ok != "":
				if err != nil {
					t.Fatalf("error %v; %s gives the call a meaning", err, c.ok)
				}
				if _, ok := docs[c.ok]; !ok {
					t.Errorf("no doc comment %s", c.ok)
				}
			case err == nil:
				t.Fatal("accepted without an error")
			default:
				start := prefix
				if c.field != "" {
					start = c.field
				}
				if !strings.HasPrefix(err.Error(), start) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("error %q, want one starting with %q and containing %q", err, start, c.want)
				}
			}
		})
	}
}

// protect calls f, turning a panic into its message.
func protect(f func() error) (panicked bool, msg string, err error) {
	defer func() {
		if r := recover(); r != nil {
			panicked, msg = true, fmt.Sprint(r)
		}
	}()
	return false, "", f()
}

var (
	docsOnce sync.Once
	docsMap  map[string]string
	docsErr  error
)

// packageDocs returns the doc comments of the package in the current
// directory by name: "Func", "Type" and "Type.Method".
func packageDocs(t *testing.T) map[string]string {
	t.Helper()
	docsOnce.Do(func() {
		names, err := filepath.Glob("*.go")
		if err != nil {
			docsErr = err
			return
		}
		fset := token.NewFileSet()
		var files []*ast.File
		for _, n := range names {
			if strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, n, nil, parser.ParseComments)
			if err != nil {
				docsErr = err
				return
			}
			files = append(files, f)
		}
		p, err := doc.NewFromFiles(fset, files, "pkg")
		if err != nil {
			docsErr = err
			return
		}
		docsMap = map[string]string{}
		for _, f := range p.Funcs {
			docsMap[f.Name] = f.Doc
		}
		for _, ty := range p.Types {
			docsMap[ty.Name] = ty.Doc
			for _, f := range ty.Funcs {
				docsMap[f.Name] = f.Doc
			}
			for _, m := range ty.Methods {
				docsMap[ty.Name+"."+m.Name] = m.Doc
			}
		}
	})
	if docsErr != nil {
		t.Fatal(docsErr)
	}
	return docsMap
}

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
	cases := []misuse{
		{name: "DecodePolicy no actions", call: call(func() { aci.DecodePolicy(nil, 0, 0, 2) }), panics: "DecodePolicy", want: "aci: DecodePolicy: 0 actions"},
		{name: "DecodePolicy negative horizon", call: call(func() { aci.DecodePolicy(nil, 0, 2, -1) }), panics: "DecodePolicy", want: "horizon -1"},
		{name: "DecodePolicy index out of range", call: call(func() { aci.DecodePolicy(nil, 4, 2, 2) }), panics: "DecodePolicy", want: "index out of range [0, 2^2)"},
		{name: "DecodePolicy negative index", call: call(func() { aci.DecodePolicy(nil, -1, 2, 2) }), panics: "DecodePolicy", want: "negative index -1"},
		{name: "EncodePolicy action out of range", call: call(func() { aci.EncodePolicy([]int{5}, 2) }), panics: "EncodePolicy", want: "aci: EncodePolicy: action 5 out of range [0, 2)"},
		{name: "EncodePolicy overflow", call: call(func() { p := make([]int, 100); p[0] = 1; aci.EncodePolicy(p, 2) }), panics: "EncodePolicy", want: "overflows int"},
		{name: "EstimatePlanSeconds nil model", call: call(func() { aci.EstimatePlanSeconds(nil, 2) }), panics: "EstimatePlanSeconds", want: "aci: EstimatePlanSeconds: pomdp: model: nil"},
		{name: "EstimatePlanSeconds no horizon", call: func() error {
			if s := aci.EstimatePlanSeconds(m, 0); s != 0 {
				return fmt.Errorf("%v s, want 0", s)
			}
			return nil
		}, ok: "EstimatePlanSeconds"},
		{name: "PolicySet.ActionProbs short q_pi", call: call(func() { ps.ActionProbs(nil, nil) }), panics: "PolicySet.ActionProbs", want: "aci: ActionProbs: len(qpi) = 0, want 4"},
		{name: "PolicySet.ActionProbs no actions", call: call(func() { (&aci.PolicySet{G: []float64{1}}).ActionProbs(nil, []float64{1}) }), panics: "PolicySet.ActionProbs", want: "1 policies for 0 actions"},
		{name: "PolicySet.Policy out of range", call: call(func() { ps.Policy(nil, 99) }), panics: "PolicySet.Policy", want: "index out of range"},
		{name: "PolicySet.Policies no actions", call: call(func() { (&aci.PolicySet{Horizon: 1, G: []float64{1}}).Policies() }), panics: "PolicySet", want: "0 actions"},

		// Functions that take a model or a belief: errors that name the
		// field, or pomdp.Check's.
		{name: "ExpectedFreeEnergy nil model", call: func() error { _, _, _, err := aci.ExpectedFreeEnergy(nil, q, []int{0}, nil); return err }, field: "pomdp: ", want: "model: nil"},
		{name: "ExpectedFreeEnergy action out of range", call: func() error { _, _, _, err := aci.ExpectedFreeEnergy(m, q, []int{0, 9}, nil); return err }, field: "policy[1]", want: "action 9 out of range [0, 2)"},
		{name: "ExpectedFreeEnergy bad belief", call: func() error { _, _, _, err := aci.ExpectedFreeEnergy(m, q[:1], nil, nil); return err }, field: "qs", want: "1 entries, want 3"},
		{name: "ExpectedFreeEnergy novelty without a", call: func() error {
			_, _, _, err := aci.ExpectedFreeEnergy(m, q, nil, &aci.EFEOptions{Novelty: true})
			return err
		}, field: "EFEOptions.Novelty", want: "no concentrations a"},
		{name: "ExpectedFreeEnergy nil policy", call: func() error {
			G, _, _, err := aci.ExpectedFreeEnergy(m, q, nil, nil)
			if err == nil && G != 0 {
				err = fmt.Errorf("G = %v, want 0", G)
			}
			return err
		}, ok: "ExpectedFreeEnergy"},
		{name: "EvaluatePolicies no horizon", call: func() error { _, err := aci.EvaluatePolicies(m, q, 0, nil); return err }, field: "horizon", want: "want >= 1"},
		{name: "EvaluatePolicies nil model", call: func() error { _, err := aci.EvaluatePolicies(nil, q, 2, nil); return err }, field: "pomdp: ", want: "model: nil"},
		{name: "EvaluatePoliciesContext nil context", call: func() error { _, err := aci.EvaluatePoliciesContext(nilCtx, m, q, 2, nil); return err }, ok: "EvaluatePoliciesContext"},
		{name: "TopPolicies no k", call: func() error { _, err := aci.TopPolicies(m, q, 2, 0, 1, nil); return err }, field: "k", want: "want >= 1"},
		{name: "TopPoliciesContext nil context", call: func() error { _, err := aci.TopPoliciesContext(nilCtx, m, q, 2, 1, 1, nil); return err }, ok: "TopPoliciesContext"},
		{name: "Eval bad gamma", call: func() error { _, err := aci.Eval(m, 0, 2, math.NaN()); return err }, field: "gamma", want: "NaN"},
		{name: "Eval observation out of range", call: func() error { _, err := aci.Eval(m, 5, 2, 1); return err }, field: "obs", want: "out of range"},
		{name: "PolicySet.Posterior bad gamma", call: func() error { _, err := ps.Posterior(nil, -1); return err }, field: "gamma", want: "want finite > 0"},
		{name: "NewAgent nil model", call: func() error { _, err := aci.NewAgent(nil, nil); return err }, field: "pomdp: ", want: "model: nil"},
		{name: "NewAgent bad options", call: func() error { _, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: -1}); return err }, field: "AgentOptions.Horizon", want: "want >= 1"},

		// The zero Agent.
		{name: "zero Agent Reset", call: func() error { return new(aci.Agent).Reset(ctx, 0) }, want: "aci: the zero Agent"},
		{name: "zero Agent Decide", call: func() error { _, err := new(aci.Agent).Decide(ctx, rng); return err }, want: "aci: the zero Agent"},
		{name: "zero Agent Act", call: func() error { _, err := new(aci.Agent).Act(ctx); return err }, want: "aci: the zero Agent"},
		{name: "zero Agent Advance", call: func() error { return new(aci.Agent).Advance(ctx, 0, 0) }, want: "aci: the zero Agent"},
		{name: "zero Agent AdvanceMixed", call: func() error { return new(aci.Agent).AdvanceMixed(ctx, nil, 0) }, want: "aci: the zero Agent"},
		{name: "zero Agent EndTrial", call: func() error { return new(aci.Agent).EndTrial(ctx) }, want: "aci: the zero Agent"},
		{name: "zero Agent views", call: func() error {
			var a aci.Agent
			if a.Belief() != nil || len(a.StateBeliefs()) != 0 || a.Concentrations().Learned() || a.LastPlan() != nil || a.Graph() != nil {
				return errors.New("the zero Agent has a belief, a plan or concentrations")
			}
			return nil
		}, ok: "Agent"},
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
			misuse{name: p + "Decide before Reset", call: func() error { _, err := fresh().Decide(ctx, rng); return err }, want: "no trial in progress"},
			misuse{name: p + "Act before Reset", call: func() error { _, err := fresh().Act(ctx); return err }, want: "no trial in progress"},
			misuse{name: p + "Advance before Reset", call: func() error { return fresh().Advance(ctx, 0, 0) }, want: "no trial in progress"},
			misuse{name: p + "AdvanceMixed before Reset", call: func() error { return fresh().AdvanceMixed(ctx, uniform, 0) }, want: "no trial in progress"},
			misuse{name: p + "EndTrial before Reset", call: func() error { return fresh().EndTrial(ctx) }, want: "no trial in progress"},
			misuse{name: p + "Decide after EndTrial", call: func() error { _, err := ended().Decide(ctx, rng); return err }, want: "no trial in progress"},
			misuse{name: p + "Advance after EndTrial", call: func() error { return ended().Advance(ctx, 0, 0) }, want: "no trial in progress"},
			misuse{name: p + "AdvanceMixed after EndTrial", call: func() error { return ended().AdvanceMixed(ctx, uniform, 0) }, want: "no trial in progress"},
			misuse{name: p + "EndTrial after EndTrial", call: func() error { return ended().EndTrial(ctx) }, want: "no trial in progress"},
			misuse{name: p + "Reset observation out of range", call: func() error { return fresh().Reset(ctx, mm.m.NumObs()) }, want: "aci: observation"},
			misuse{name: p + "Advance action out of range", call: func() error { return started().Advance(ctx, nu, 0) }, want: "aci: action"},
			misuse{name: p + "Advance observation out of range", call: func() error { return started().Advance(ctx, 0, -1) }, want: "aci: observation -1"},
			misuse{name: p + "AdvanceMixed short probs", call: func() error { return started().AdvanceMixed(ctx, []float64{1}, 0) }, field: "pomdp: GrowMixed", want: "1 entries"},
			misuse{name: p + "Decide nil rng", call: func() error { _, err := started().Decide(ctx, nil); return err }, want: "aci: Decide with a nil random stream"},
			misuse{name: p + "nil context", call: func() error {
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
			}, ok: "Agent.Reset"},
			misuse{name: p + "SetRand nil", call: func() error {
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
			}, ok: "Agent.SetRand"},
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
			misuse{name: mm.name + ": Reset impossible observation", call: func() error {
				a, err := aci.NewAgent(mm.m, nil)
				if err != nil {
					return err
				}
				return impossible(a.Reset(ctx, mm.obs))
			}, field: "pomdp: step 0", want: "probability 0"},
			misuse{name: mm.name + ": Advance impossible observation", call: func() error {
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
			}, field: "pomdp: step 1", want: "probability 0"},
		)
	}
	runMisuse(t, "aci: ", cases)
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
