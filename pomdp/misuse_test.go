package pomdp_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// misuse is one wrong use of the package's API. The call must either
// return an error (err: its message starts with "pomdp: ", or with field
// for the errors that name a field, and contains want) or panic with a
// message containing want, as the doc comment named by panics says it
// does; or, for ok, be accepted with the meaning that the doc comment
// named by ok gives it (call returns nil).
type misuse struct {
	name   string
	call   func() error
	want   string // a substring of the error or panic message
	panics string // doc comment that documents the panic ("Risk", "Tree.Child", "Model")
	ok     string // doc comment that gives the call its meaning
	field  string // the error names this field instead of starting with "pomdp: "
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

// TestMisuse runs every misuse of the package's API that the package
// refuses: with an error, or with the panic that a doc comment documents
// (a programming error, as the standard library panics on), or gives a
// documented meaning (a nil context, a nil generator).
func TestMisuse(t *testing.T) {
	m, err := pomdp.Load("testdata/tiny-pomdp.json") // 3 states, 2 observations, 2 actions
	if err != nil {
		t.Fatal(err)
	}
	fm := twoControlModel(t) // factors of 2 and 3 states, 6 joint actions
	q := []float64{1, 0, 0}
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
	ctx := context.Background()
	var nilModel *pomdp.Model
	call := func(f func()) func() error { return func() error { f(); return nil } }

	runMisuse(t, "pomdp: ", []misuse{
		// The kernels of the expected free energy: documented panics.
		{name: "Risk nil model", call: call(func() { pomdp.Risk(nil, nil) }), panics: "Risk", want: "pomdp: Risk: model: nil"},
		{name: "Risk zero model", call: call(func() { pomdp.Risk(&pomdp.Model{}, nil) }), panics: "Risk", want: "pomdp: Risk: model: nil or not built"},
		{name: "Risk short qs", call: call(func() { pomdp.Risk(m, q[:1]) }), panics: "Risk", want: "pomdp: Risk: len(qs) = 1, want 3"},
		{name: "Ambiguity long qs", call: call(func() { pomdp.Ambiguity(m, make([]float64, 5)) }), panics: "Ambiguity", want: "pomdp: Ambiguity: len(qs) = 5, want 3"},
		{name: "Novelty nil model", call: call(func() { pomdp.Novelty(nil, nil) }), panics: "Novelty", want: "pomdp: Novelty: model"},
		{name: "StepCost short w", call: call(func() { pomdp.StepCost(m, q, []float64{1}) }), panics: "StepCost", want: "pomdp: StepCost: len(w) = 1, want 0"},
		{name: "StepCost long qs", call: call(func() { pomdp.StepCost(m, make([]float64, 4), nil) }), panics: "StepCost", want: "len(qs) = 4, want 3"},
		{name: "Propagate short next", call: call(func() { pomdp.Propagate(m, nil, q, 0) }), panics: "Propagate", want: "pomdp: Propagate: len(next) = 0, want 3"},
		{name: "Propagate short prev", call: call(func() { pomdp.Propagate(m, make([]float64, 3), nil, 0) }), panics: "Propagate", want: "len(qs) = 0, want 3"},
		{name: "Propagate action out of range", call: call(func() { pomdp.Propagate(m, make([]float64, 3), q, 7) }), panics: "Propagate", want: "pomdp: Propagate: action 7 out of range [0, 2)"},
		{name: "Propagate negative action", call: call(func() { pomdp.Propagate(m, make([]float64, 3), q, -1) }), panics: "Propagate", want: "action -1 out of range"},
		{name: "PredictObs short dst", call: call(func() { pomdp.PredictObs(m, nil, q) }), panics: "PredictObs", want: "pomdp: PredictObs: len(dst) = 0, want 2"},
		{name: "PredictObs nil model", call: call(func() { pomdp.PredictObs(nil, nil, q) }), panics: "PredictObs", want: "model"},
		{name: "ToNPU short", call: call(func() { pomdp.ToNPU([]float64{1}, 2, 2) }), panics: "ToNPU", want: "pomdp: ToNPU: len(x) = 1, want 8"},
		{name: "FromNPU short", call: call(func() { pomdp.FromNPU([]float64{1}, 2, 2) }), panics: "FromNPU", want: "pomdp: FromNPU: len(y) = 1, want 8"},
		{name: "FloorColumns bad dims", call: call(func() { pomdp.FloorColumns([]float64{1}, 2, 2) }), panics: "FloorColumns", want: "pomdp: FloorColumns: len(x) = 1, want 4"},
		{name: "FloorColumns negative", call: call(func() { pomdp.FloorColumns(nil, -1, -2) }), panics: "FloorColumns", want: "negative dimension"},

		// Model's accessors: an index out of range, a nil model.
		{name: "FactorSize out of range", call: call(func() { m.FactorSize(5) }), panics: "Model.FactorSize", want: "pomdp: FactorSize: factor 5 out of range [0, 1)"},
		{name: "FactorSize zero model", call: call(func() { (&pomdp.Model{}).FactorSize(0) }), panics: "Model.FactorSize", want: "factor 0 out of range [0, 0)"},
		{name: "FactorName out of range", call: call(func() { fm.FactorName(-1) }), panics: "Model.FactorName", want: "factor -1 out of range [0, 2)"},
		{name: "ControlName factor out of range", call: call(func() { fm.ControlName(9, 0) }), panics: "Model.ControlName", want: "factor 9"},
		{name: "ModalityName out of range", call: call(func() { m.ModalityName(5) }), panics: "Model.ModalityName", want: "pomdp: ModalityName: modality 5 out of range [0, 1)"},
		{name: "ObsOffset out of range", call: call(func() { m.ObsOffset(5) }), panics: "Model.ObsOffset", want: "modality 5"},
		{name: "ModalityA out of range", call: call(func() { m.ModalityA(5) }), panics: "Model.ModalityA", want: "modality 5"},
		{name: "DependsOn out of range", call: call(func() { m.DependsOn(1) }), panics: "Model.DependsOn", want: "modality 1"},
		{name: "DecodeAction out of range", call: call(func() { m.DecodeAction(nil, 9) }), panics: "Model.DecodeAction", want: "pomdp: DecodeAction: action 9 out of range [0, 2)"},
		{name: "DecodeObs out of range", call: call(func() { m.DecodeObs(nil, -1) }), panics: "Model.DecodeObs", want: "observation -1"},
		{name: "SplitBelief short", call: call(func() { m.SplitBelief(nil) }), panics: "Model.SplitBelief", want: "len(qs) = 0, want 3"},
		{name: "ModalityExpect short x", call: call(func() { m.ModalityExpect(0, nil, q) }), panics: "Model.ModalityExpect", want: "len(x) = 0, want 3"},
		{name: "ModalityMarginal bad axis", call: call(func() { m.ModalityMarginal(make([]float64, 3), 0, 1, make([]float64, 3), q) }), panics: "Model.ModalityMarginal", want: "axis 1 out of range [0, 1)"},
		{name: "A on a factorised model", call: call(func() { fm.A(0, 0) }), panics: "Model.A", want: "use FactorisedSpec"},
		{name: "Spec on a factorised model", call: call(func() { fm.Spec() }), panics: "Model.Spec", want: "use FactorisedSpec"},
		{name: "method of a nil model", call: call(func() { nilModel.NumObs() }), panics: "Model", want: "nil pointer"},
		{name: "ActionName out of range", call: func() error { return wantText(fm.ActionName(99), "99") }, ok: "Model.ActionName"},
		{name: "ObsName out of range", call: func() error { return wantText(fm.ObsName(-1), "-1") }, ok: "Model.ObsName"},
		{name: "StateName out of range", call: func() error { return wantText(fm.StateName(-1), "-1") }, ok: "Model.StateName"},

		// Functions that take a model refuse a nil or zero one.
		{name: "Check nil", call: func() error { return pomdp.Check(nil) }, want: "model: nil"},
		{name: "CheckBelief nil model", call: func() error { return pomdp.CheckBelief(nil, "q", q) }, want: "model: nil"},
		{name: "StatePosterior nil model", call: func() error { _, err := pomdp.StatePosterior(nil, nil, 0); return err }, want: "model: nil"},
		// cmd/arbor parses the "observation N: " that starts this error.
		{name: "StatePosterior observation out of range", call: func() error { _, err := pomdp.StatePosterior(nil, m, 9); return err }, field: "observation 9", want: "out of range [0, 2)"},
		{name: "EncodeObs zero model", call: func() error { _, err := (&pomdp.Model{}).EncodeObs(nil); return err }, want: "model: nil"},
		{name: "AgentView nil model", call: func() error { _, err := nilModel.AgentView(); return err }, want: "model: nil"},
		{name: "NewPast nil model", call: func() error { _, err := pomdp.NewPast(nil, 0); return err }, want: "model: nil"},
		{name: "NewProcess nil model", call: call(func() { pomdp.NewProcess(nil, nil) }), panics: "NewProcess", want: "pomdp: NewProcess: model: nil"},

		// The true process.
		{name: "Process.Step before Reset", call: func() error { _, err := pomdp.NewProcess(m, rng()).Step(0); return err }, want: "pomdp: Process.Step before Reset"},
		{name: "Process.Step action out of range", call: func() error {
			p := pomdp.NewProcess(m, rng())
			p.Reset()
			_, err := p.Step(7)
			return err
		}, want: "action 7 out of range [0, 2)"},
		{name: "zero Process Step", call: func() error { _, err := (&pomdp.Process{}).Step(0); return err }, want: "zero Process"},
		{name: "zero Process Reset", call: call(func() { (&pomdp.Process{}).Reset() }), panics: "Process.Reset", want: "zero Process"},
		{name: "NewProcess nil rng", call: func() error {
			p := pomdp.NewProcess(m, nil)
			p.Reset()
			_, err := p.Step(1)
			return err
		}, ok: "NewProcess"},
		{name: "Process.SetRand nil", call: func() error {
			p := pomdp.NewProcess(m, rng())
			p.SetRand(nil)
			p.Reset()
			return nil
		}, ok: "Process.SetRand"},

		// The past.
		{name: "zero Past Reset", call: func() error { return new(pomdp.Past).Reset(0) }, want: "zero Past"},
		{name: "zero Past ExpectedModel", call: func() error { _, err := new(pomdp.Past).ExpectedModel(); return err }, want: "zero Past"},
		{name: "Past.Reset observation out of range", call: func() error { p, _ := pomdp.NewPast(m, 0); return p.Reset(2) }, want: "pomdp: Past.Reset: observation 2 out of range [0, 2)"},
		{name: "Past.Grow before Reset", call: func() error { p, _ := pomdp.NewPast(m, 0); return p.Grow(0, 0) }, want: "pomdp: Grow before Reset"},
		{name: "Past.GrowMixed before Reset", call: func() error { p, _ := pomdp.NewPast(m, 0); return p.GrowMixed([]float64{1, 0}, 0) }, want: "before Reset"},
		{name: "Past.Infer before Reset", call: func() error { p, _ := pomdp.NewPast(m, 0); _, err := p.Infer(ctx, nil); return err }, want: "pomdp: Infer before Reset"},
		{name: "Past.Grow action out of range", call: func() error {
			p, _ := pomdp.NewPast(m, 0)
			if err := p.Reset(0); err != nil {
				return err
			}
			return p.Grow(2, 0)
		}, want: "action 2 out of range"},
		{name: "Past.Belief before Reset", call: func() error {
			p, _ := pomdp.NewPast(m, 0)
			if p.Belief() != nil || p.Present() != nil {
				return errors.New("a belief before Reset")
			}
			return nil
		}, ok: "Past.Belief"},
		{name: "Past.FactorStates out of range", call: call(func() { p, _ := pomdp.NewPast(m, 0); p.FactorStates(1) }), panics: "Past.FactorStates", want: "factor 1"},

		// Recorded behaviour.
	})
}

// wantText returns an error unless got == want.
func wantText(got, want string) error {
	if got != want {
		return fmt.Errorf("%q, want %q", got, want)
	}
	return nil
}
