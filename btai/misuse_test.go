package btai_test

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

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

// misuse is one wrong use of the package's API. The call must either
// return an error (err: its message starts with "btai: ", or with field
// for the errors that come from package pomdp, and contains want) or panic with a message containing want, as the doc comment named
// by panics says it does; or, for ok, be accepted with the meaning that
// the doc comment named by ok gives it (call returns nil).
type misuse struct {
	name   string
	call   func() error
	want   string // a substring of the error or panic message
	panics string // doc comment that documents the panic ("Tree.SelectAction")
	ok     string // doc comment that gives the call its meaning
	field  string // the error starts with this instead of "btai: "
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
	cases := []misuse{
		{name: "EstimatePlanSeconds nil model", call: call(func() { btai.EstimatePlanSeconds(nil, btai.Options{}) }), panics: "EstimatePlanSeconds", want: "btai: EstimatePlanSeconds: pomdp: model: nil"},
		{name: "EstimatePlanSeconds zero options", call: func() error {
			if got, want := btai.EstimatePlanSeconds(m, btai.Options{}), btai.EstimatePlanSeconds(m, btai.DefaultOptions()); got != want || !(got > 0) {
				return fmt.Errorf("%v s for the zero options, %v s for the defaults", got, want)
			}
			return nil
		}, ok: "EstimatePlanSeconds"},
		{name: "EstimatePlanSeconds invalid options", call: func() error {
			if s := btai.EstimatePlanSeconds(m, btai.Options{Iterations: -5}); !math.IsInf(s, 1) {
				return fmt.Errorf("%v s, want +Inf", s)
			}
			return nil
		}, ok: "EstimatePlanSeconds"},
		{name: "TreeBytes negative", call: func() error {
			if b := btai.TreeBytes(-1, -1, -1, -1, true); b != 0 {
				return fmt.Errorf("%v bytes, want 0", b)
			}
			return nil
		}, ok: "TreeBytes"},
		{name: "Validate nil options", call: func() error { var o *btai.Options; return o.Validate() }, ok: "Options.Validate"},
		{name: "NewAgent nil model", call: func() error { _, err := btai.NewAgent(nil, nil, nil); return err }, want: "btai: pomdp: model: nil"},
		{name: "NewAgent invalid options", call: func() error { _, err := btai.NewAgent(m, &btai.Options{Iterations: -1}, nil); return err }, want: "btai: iterations -1"},
		{name: "NewAgent nil rng", call: func() error {
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
		}, ok: "NewAgent"},

		// The planning tree: documented panics.
		{name: "zero Tree Select", call: call(func() { new(btai.Tree).Select(1, btai.UCT) }), panics: "Tree.Select", want: "btai: Tree.Select: node 0 of a tree without a root"},
		{name: "zero Tree SelectAction", call: call(func() { new(btai.Tree).SelectAction(btai.MinCost, 1, nil, nil) }), panics: "Tree.SelectAction", want: "btai: Tree.SelectAction: the root is not expanded"},
		{name: "Tree.SelectAction unexpanded root", call: call(func() {
			var tr btai.Tree
			tr.Reset(2, nil)
			tr.SelectAction(btai.Softmax, 1, rng, nil)
		}), panics: "Tree.SelectAction", want: "the root is not expanded"},
		{name: "Tree.BestAction unexpanded root", call: call(func() {
			var tr btai.Tree
			tr.Reset(2, nil)
			tr.BestAction(btai.MostVisited)
		}), panics: "Tree.BestAction", want: "btai: Tree.BestAction: the root is not expanded"},
		{name: "Tree.SelectAction nil rng", call: call(func() { planned().SelectAction(btai.Softmax, 1, nil, nil) }), panics: "Tree.SelectAction", want: "nil rng for softmax"},
		{name: "Tree.SelectAction NaN precision", call: call(func() { planned().SelectAction(btai.Visits, math.NaN(), rng, nil) }), panics: "Tree.SelectAction", want: "precision NaN"},
		{name: "Tree.SelectAction unknown rule", call: call(func() { planned().SelectAction(9, 1, rng, nil) }), panics: "Tree.SelectAction", want: "ActionSelection(9)"},
		{name: "Tree.BestAction unknown rule", call: call(func() { planned().BestAction(-1) }), panics: "Tree.BestAction", want: "ActionSelection(-1)"},
		{name: "Tree.Child unexpanded", call: call(func() { planned().Child(1, 0) }), panics: "Tree.Child", want: "node 1 is not expanded"},
		{name: "Tree.Child action out of range", call: call(func() { planned().Child(0, 7) }), panics: "Tree.Child", want: "action 7 out of range [0, 2)"},
		{name: "Tree.AddChildren short costs", call: call(func() { planned().AddChildren(1, []float64{1}) }), panics: "Tree.AddChildren", want: "len(costs) = 1, want 2"},
		{name: "Tree.AddChildren twice", call: call(func() { planned().AddChildren(0, []float64{1, 2}) }), panics: "Tree.AddChildren", want: "node 0 is already expanded"},
		{name: "Tree.AddChildren node out of range", call: call(func() { planned().AddChildren(5, []float64{1, 2}) }), panics: "Tree.AddChildren", want: "node 5 out of range [0, 3)"},
		{name: "Tree.Propagate unexpanded", call: call(func() { planned().Propagate(2, btai.Backward) }), panics: "Tree.Propagate", want: "node 2 is not expanded"},
		{name: "Tree.Propagate unknown scheme", call: call(func() { planned().Propagate(0, -1) }), panics: "Tree.Propagate", want: "Propagation(-1)"},
		{name: "Tree.Select unknown rule", call: call(func() { planned().Select(1, 99) }), panics: "Tree.Select", want: "Selection(99)"},
		{name: "Tree.Path out of range", call: call(func() { planned().Path(nil, 99) }), panics: "Tree.Path", want: "node 99 out of range"},
		{name: "Tree.Reset no actions", call: call(func() { new(btai.Tree).Reset(0, nil) }), panics: "Tree.Reset", want: "0 actions"},

		// The zero Agent.
		{name: "zero Agent Reset", call: func() error { return new(btai.Agent).Reset(ctx, 0) }, want: "btai: the zero Agent"},
		{name: "zero Agent Plan", call: func() error { return new(btai.Agent).Plan(ctx) }, want: "btai: the zero Agent"},
		{name: "zero Agent Iterate", call: func() error { return new(btai.Agent).Iterate(ctx) }, want: "btai: the zero Agent"},
		{name: "zero Agent Decide", call: func() error { _, err := new(btai.Agent).Decide(ctx, rng); return err }, want: "btai: the zero Agent"},
		{name: "zero Agent SelectAction", call: func() error { _, err := new(btai.Agent).SelectAction(); return err }, want: "btai: the zero Agent"},
		{name: "zero Agent Step", call: func() error { return new(btai.Agent).Step(ctx, 0, 0) }, want: "btai: the zero Agent"},
		{name: "zero Agent AdvanceMixed", call: func() error { return new(btai.Agent).AdvanceMixed(ctx, nil, 0) }, want: "btai: the zero Agent"},
		{name: "zero Agent EndTrial", call: func() error { return new(btai.Agent).EndTrial(ctx) }, want: "btai: the zero Agent"},
		{name: "zero Agent LearnedModel", call: func() error { _, err := new(btai.Agent).LearnedModel(); return err }, want: "btai: the zero Agent"},
		{name: "zero Agent views", call: func() error {
			var a btai.Agent
			a.LabelTree(nil)
			if a.Belief() != nil || a.Time() != 0 || a.Concentrations().Learned() || a.Graph() != nil || len(a.Tree().Nodes) != 0 {
				return errors.New("the zero Agent has a belief, a tree or concentrations")
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
			misuse{name: p + "Plan before Reset", call: func() error { return fresh().Plan(ctx) }, want: "btai: Plan before Reset"},
			misuse{name: p + "Iterate before Reset", call: func() error { return fresh().Iterate(ctx) }, want: "btai: Iterate before Plan"},
			misuse{name: p + "Decide before Reset", call: func() error { _, err := fresh().Decide(ctx, rng); return err }, want: "btai: Plan before Reset"},
			misuse{name: p + "SelectAction before Reset", call: func() error { _, err := fresh().SelectAction(); return err }, want: "btai: SelectAction before Plan"},
			misuse{name: p + "Advance before Reset", call: func() error { return fresh().Advance(ctx, 0, 0) }, want: "btai: Step before Reset"},
			misuse{name: p + "AdvanceMixed before Reset", call: func() error { return fresh().AdvanceMixed(ctx, uniform, 0) }, want: "btai: AdvanceMixed before Reset"},
			misuse{name: p + "EndTrial before Reset", call: func() error { return fresh().EndTrial(ctx) }, want: "btai: EndTrial before Reset"},
			misuse{name: p + "views before Reset", call: func() error {
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
			}, ok: "Agent.Belief"},
			misuse{name: p + "Iterate after Reset before Plan", call: func() error { return started().Iterate(ctx) }, want: "btai: Iterate before Plan"},
			misuse{name: p + "SelectAction after Reset before Plan", call: func() error { _, err := started().SelectAction(); return err }, want: "btai: SelectAction before Plan"},
			misuse{name: p + "Iterate after Step", call: func() error { return stepped().Iterate(ctx) }, want: "btai: Iterate before Plan"},
			misuse{name: p + "SelectAction after Step", call: func() error { _, err := stepped().SelectAction(); return err }, want: "btai: SelectAction before Plan"},
			misuse{name: p + "Plan after EndTrial", call: func() error { return ended().Plan(ctx) }, want: "btai: Plan after EndTrial"},
			misuse{name: p + "Iterate after EndTrial", call: func() error { return ended().Iterate(ctx) }, want: "btai: Iterate before Plan"},
			misuse{name: p + "Decide after EndTrial", call: func() error { _, err := ended().Decide(ctx, rng); return err }, want: "btai: Plan after EndTrial"},
			misuse{name: p + "SelectAction after EndTrial", call: func() error { _, err := ended().SelectAction(); return err }, want: "btai: SelectAction before Plan"},
			misuse{name: p + "Advance after EndTrial", call: func() error { return ended().Advance(ctx, 0, 0) }, want: "btai: Step after EndTrial"},
			misuse{name: p + "AdvanceMixed after EndTrial", call: func() error { return ended().AdvanceMixed(ctx, uniform, 0) }, want: "btai: AdvanceMixed after EndTrial"},
			misuse{name: p + "EndTrial after EndTrial", call: func() error { return ended().EndTrial(ctx) }, want: "btai: EndTrial after EndTrial"},
			misuse{name: p + "Reset observation out of range", call: func() error { return fresh().Reset(ctx, mm.m.NumObs()) }, want: "btai: observation"},
			misuse{name: p + "Step action out of range", call: func() error { return started().Step(ctx, nu, 0) }, want: "btai: action"},
			misuse{name: p + "AdvanceMixed short probs", call: func() error { return started().AdvanceMixed(ctx, []float64{1}, 0) }, want: "btai: pomdp: GrowMixed: probs: 1 entries"},
			misuse{name: p + "Decide nil rng", call: func() error { _, err := started().Decide(ctx, nil); return err }, want: "btai: Decide with a nil random stream"},
			misuse{name: p + "nil context", call: func() error {
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
			}, ok: "Agent"},
			misuse{name: p + "SetRand nil", call: func() error {
				a := started()
				a.SetRand(nil)
				if err := a.Plan(ctx); err != nil {
					return err
				}
				_, err := a.SelectAction()
				return err
			}, ok: "Agent.SetRand"},
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
				misuse{name: p + "Reset impossible observation", call: func() error {
					a, err := newAgent()
					if err != nil {
						return err
					}
					return impossible(a.Reset(ctx, mm.byB))
				}, want: "btai: pomdp: step 0", field: "btai: pomdp: step 0"},
				misuse{name: p + "Step observation that A excludes", call: func() error { return step(mm.never) }, field: "btai: pomdp: step 1", want: "probability 0"},
			)
			if past == pomdp.PastFilter {
				cases = append(cases, misuse{name: p + "Step observation that B excludes", call: func() error { return step(mm.byB) },
					field: "btai: pomdp: step 1", want: "probability 0"})
			} else {
				cases = append(cases, misuse{name: p + "Step observation that B excludes", call: func() error {
					if err := step(mm.byB); err != nil {
						return err
					}
					return nil
				}, ok: "Agent.Step"})
			}
		}
	}
	runMisuse(t, "btai: ", cases)
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
