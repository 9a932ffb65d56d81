package pomdp_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/internal/misusetest"
	"github.com/arbor-ai/arbor/pomdp"
)

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

	misusetest.Runner{Prefix: "pomdp: ", Always: true}.Run(t, []misusetest.Case{
		// The kernels of the expected free energy: documented panics.
		{Name: "Risk nil model", Call: call(func() { pomdp.Risk(nil, nil) }), Panics: "Risk", Msg: "pomdp: Risk: model: nil"},
		{Name: "Risk zero model", Call: call(func() { pomdp.Risk(&pomdp.Model{}, nil) }), Panics: "Risk", Msg: "pomdp: Risk: model: nil or not built"},
		{Name: "Risk short qs", Call: call(func() { pomdp.Risk(m, q[:1]) }), Panics: "Risk", Msg: "pomdp: Risk: len(qs) = 1, want 3"},
		{Name: "Ambiguity long qs", Call: call(func() { pomdp.Ambiguity(m, make([]float64, 5)) }), Panics: "Ambiguity", Msg: "pomdp: Ambiguity: len(qs) = 5, want 3"},
		{Name: "Novelty nil model", Call: call(func() { pomdp.Novelty(nil, nil) }), Panics: "Novelty", Msg: "pomdp: Novelty: model"},
		{Name: "StepCost short w", Call: call(func() { pomdp.StepCost(m, q, []float64{1}) }), Panics: "StepCost", Msg: "pomdp: StepCost: len(w) = 1, want 0"},
		{Name: "StepCost long qs", Call: call(func() { pomdp.StepCost(m, make([]float64, 4), nil) }), Panics: "StepCost", Msg: "len(qs) = 4, want 3"},
		{Name: "Propagate short next", Call: call(func() { pomdp.Propagate(m, nil, q, 0) }), Panics: "Propagate", Msg: "pomdp: Propagate: len(next) = 0, want 3"},
		{Name: "Propagate short prev", Call: call(func() { pomdp.Propagate(m, make([]float64, 3), nil, 0) }), Panics: "Propagate", Msg: "len(qs) = 0, want 3"},
		{Name: "Propagate action out of range", Call: call(func() { pomdp.Propagate(m, make([]float64, 3), q, 7) }), Panics: "Propagate", Msg: "pomdp: Propagate: action 7 out of range [0, 2)"},
		{Name: "Propagate negative action", Call: call(func() { pomdp.Propagate(m, make([]float64, 3), q, -1) }), Panics: "Propagate", Msg: "action -1 out of range"},
		{Name: "PredictObs short dst", Call: call(func() { pomdp.PredictObs(m, nil, q) }), Panics: "PredictObs", Msg: "pomdp: PredictObs: len(dst) = 0, want 2"},
		{Name: "PredictObs nil model", Call: call(func() { pomdp.PredictObs(nil, nil, q) }), Panics: "PredictObs", Msg: "model"},
		{Name: "ToNPU short", Call: call(func() { pomdp.ToNPU([]float64{1}, 2, 2) }), Panics: "ToNPU", Msg: "pomdp: ToNPU: len(x) = 1, want 8"},
		{Name: "FromNPU short", Call: call(func() { pomdp.FromNPU([]float64{1}, 2, 2) }), Panics: "FromNPU", Msg: "pomdp: FromNPU: len(y) = 1, want 8"},
		{Name: "FloorColumns bad dims", Call: call(func() { pomdp.FloorColumns([]float64{1}, 2, 2) }), Panics: "FloorColumns", Msg: "pomdp: FloorColumns: len(x) = 1, want 4"},
		{Name: "FloorColumns negative", Call: call(func() { pomdp.FloorColumns(nil, -1, -2) }), Panics: "FloorColumns", Msg: "negative dimension"},

		// Model's accessors: an index out of range, a nil model.
		{Name: "FactorSize out of range", Call: call(func() { m.FactorSize(5) }), Panics: "Model.FactorSize", Msg: "pomdp: FactorSize: factor 5 out of range [0, 1)"},
		{Name: "FactorSize zero model", Call: call(func() { (&pomdp.Model{}).FactorSize(0) }), Panics: "Model.FactorSize", Msg: "factor 0 out of range [0, 0)"},
		{Name: "FactorName out of range", Call: call(func() { fm.FactorName(-1) }), Panics: "Model.FactorName", Msg: "factor -1 out of range [0, 2)"},
		{Name: "ControlName factor out of range", Call: call(func() { fm.ControlName(9, 0) }), Panics: "Model.ControlName", Msg: "factor 9"},
		{Name: "ModalityName out of range", Call: call(func() { m.ModalityName(5) }), Panics: "Model.ModalityName", Msg: "pomdp: ModalityName: modality 5 out of range [0, 1)"},
		{Name: "ObsOffset out of range", Call: call(func() { m.ObsOffset(5) }), Panics: "Model.ObsOffset", Msg: "modality 5"},
		{Name: "ModalityA out of range", Call: call(func() { m.ModalityA(5) }), Panics: "Model.ModalityA", Msg: "modality 5"},
		{Name: "DependsOn out of range", Call: call(func() { m.DependsOn(1) }), Panics: "Model.DependsOn", Msg: "modality 1"},
		{Name: "DecodeAction out of range", Call: call(func() { m.DecodeAction(nil, 9) }), Panics: "Model.DecodeAction", Msg: "pomdp: DecodeAction: action 9 out of range [0, 2)"},
		{Name: "DecodeObs out of range", Call: call(func() { m.DecodeObs(nil, -1) }), Panics: "Model.DecodeObs", Msg: "observation -1"},
		{Name: "SplitBelief short", Call: call(func() { m.SplitBelief(nil) }), Panics: "Model.SplitBelief", Msg: "len(qs) = 0, want 3"},
		{Name: "ModalityExpect short x", Call: call(func() { m.ModalityExpect(0, nil, q) }), Panics: "Model.ModalityExpect", Msg: "len(x) = 0, want 3"},
		{Name: "ModalityMarginal bad axis", Call: call(func() { m.ModalityMarginal(make([]float64, 3), 0, 1, make([]float64, 3), q) }), Panics: "Model.ModalityMarginal", Msg: "axis 1 out of range [0, 1)"},
		{Name: "A on a factorised model", Call: call(func() { fm.A(0, 0) }), Panics: "Model.A", Msg: "use FactorisedSpec"},
		{Name: "Spec on a factorised model", Call: call(func() { fm.Spec() }), Panics: "Model.Spec", Msg: "use FactorisedSpec"},
		{Name: "method of a nil model", Call: call(func() { nilModel.NumObs() }), Panics: "Model", Msg: "nil pointer"},
		{Name: "ActionName out of range", Call: func() error { return wantText(fm.ActionName(99), "99") }, OK: "Model.ActionName"},
		{Name: "ObsName out of range", Call: func() error { return wantText(fm.ObsName(-1), "-1") }, OK: "Model.ObsName"},
		{Name: "StateName out of range", Call: func() error { return wantText(fm.StateName(-1), "-1") }, OK: "Model.StateName"},

		// Functions that take a model refuse a nil or zero one.
		{Name: "Check nil", Call: func() error { return pomdp.Check(nil) }, Msg: "model: nil"},
		{Name: "CheckBelief nil model", Call: func() error { return pomdp.CheckBelief(nil, "q", q) }, Msg: "model: nil"},
		{Name: "StatePosterior nil model", Call: func() error { _, err := pomdp.StatePosterior(nil, nil, 0); return err }, Msg: "model: nil"},
		// cmd/arbor parses the "observation N: " that starts this error.
		{Name: "StatePosterior observation out of range", Call: func() error { _, err := pomdp.StatePosterior(nil, m, 9); return err }, Prefix: "observation 9", Msg: "out of range [0, 2)"},
		{Name: "EncodeObs zero model", Call: func() error { _, err := (&pomdp.Model{}).EncodeObs(nil); return err }, Msg: "model: nil"},
		{Name: "AgentView nil model", Call: func() error { _, err := nilModel.AgentView(); return err }, Msg: "model: nil"},
		{Name: "NewPast nil model", Call: func() error { _, err := pomdp.NewPast(nil, 0); return err }, Msg: "model: nil"},
		{Name: "NewProcess nil model", Call: call(func() { pomdp.NewProcess(nil, nil) }), Panics: "NewProcess", Msg: "pomdp: NewProcess: model: nil"},

		// The true process.
		{Name: "Process.Step before Reset", Call: func() error { _, err := pomdp.NewProcess(m, rng()).Step(0); return err }, Msg: "pomdp: Process.Step before Reset"},
		{Name: "Process.Step action out of range", Call: func() error {
			p := pomdp.NewProcess(m, rng())
			p.Reset()
			_, err := p.Step(7)
			return err
		}, Msg: "action 7 out of range [0, 2)"},
		{Name: "zero Process Step", Call: func() error { _, err := (&pomdp.Process{}).Step(0); return err }, Msg: "zero Process"},
		{Name: "zero Process Reset", Call: call(func() { (&pomdp.Process{}).Reset() }), Panics: "Process.Reset", Msg: "zero Process"},
		{Name: "NewProcess nil rng", Call: func() error {
			p := pomdp.NewProcess(m, nil)
			p.Reset()
			_, err := p.Step(1)
			return err
		}, OK: "NewProcess"},
		{Name: "Process.SetRand nil", Call: func() error {
			p := pomdp.NewProcess(m, rng())
			p.SetRand(nil)
			p.Reset()
			return nil
		}, OK: "Process.SetRand"},

		// The past.
		{Name: "zero Past Reset", Call: func() error { return new(pomdp.Past).Reset(0) }, Msg: "zero Past"},
		{Name: "zero Past ExpectedModel", Call: func() error { _, err := new(pomdp.Past).ExpectedModel(); return err }, Msg: "zero Past"},
		{Name: "Past.Reset observation out of range", Call: func() error { p, _ := pomdp.NewPast(m, 0); return p.Reset(2) }, Msg: "pomdp: Past.Reset: observation 2 out of range [0, 2)"},
		{Name: "Past.Grow before Reset", Call: func() error { p, _ := pomdp.NewPast(m, 0); return p.Grow(0, 0) }, Msg: "pomdp: Grow before Reset"},
		{Name: "Past.GrowMixed before Reset", Call: func() error { p, _ := pomdp.NewPast(m, 0); return p.GrowMixed([]float64{1, 0}, 0) }, Msg: "before Reset"},
		{Name: "Past.Infer before Reset", Call: func() error { p, _ := pomdp.NewPast(m, 0); _, err := p.Infer(ctx, nil); return err }, Msg: "pomdp: Infer before Reset"},
		{Name: "Past.Grow action out of range", Call: func() error {
			p, _ := pomdp.NewPast(m, 0)
			if err := p.Reset(0); err != nil {
				return err
			}
			return p.Grow(2, 0)
		}, Msg: "action 2 out of range"},
		{Name: "Past.Belief before Reset", Call: func() error {
			p, _ := pomdp.NewPast(m, 0)
			if p.Belief() != nil || p.Present() != nil {
				return errors.New("a belief before Reset")
			}
			return nil
		}, OK: "Past.Belief"},
		{Name: "Past.FactorStates out of range", Call: call(func() { p, _ := pomdp.NewPast(m, 0); p.FactorStates(1) }), Panics: "Past.FactorStates", Msg: "factor 1"},

		// Malformed files: the field and the fault after the prefix, once.
		{Name: "Parse of invalid JSON", Call: func() error { _, err := pomdp.Parse([]byte(`{"A": [[0.5, NaN]]}`)); return err }, Msg: "A[0][1]: invalid JSON"},
		{Name: "Parse of null", Call: func() error { _, err := pomdp.Parse([]byte(`null`)); return err }, Msg: "want a JSON object, got null"},
		{Name: "Parse of an array", Call: func() error { _, err := pomdp.Parse([]byte(`[1]`)); return err }, Msg: "cannot use JSON array as an object"},
		{Name: "Parse of a string for B", Call: func() error { _, err := pomdp.Parse([]byte(`{"A": [[1]], "B": "x"}`)); return err }, Msg: "B: cannot use JSON string"},
		{Name: "Parse of a duplicate key", Call: func() error { _, err := pomdp.Parse([]byte(`{"D": [1], "D": [1]}`)); return err }, Msg: `duplicate key "D"`},
		{Name: "Parse without D", Call: func() error {
			_, err := pomdp.Parse([]byte(`{"A": [[1]], "B": [[[1]]], "C": [1]}`))
			return err
		}, Msg: "D: missing"},
		{Name: "Load of a missing file", Call: func() error { _, err := pomdp.Load("testdata/absent.json"); return err }, Msg: "no such file"},
		{Name: "New of an empty spec", Call: func() error { _, err := pomdp.New(pomdp.Spec{}); return err }},
		{Name: "NewFactorised of no factors", Call: func() error { _, err := pomdp.NewFactorised(pomdp.FactorisedSpec{}); return err }, Msg: "factors: none"},
		{Name: "ParsePastInference of a bad name", Call: func() error { _, err := pomdp.ParsePastInference("exact"); return err }, Msg: `"exact", want vmp, filter or factorised`},
		{Name: "NewPast of a window 1", Call: func() error { _, err := pomdp.NewPast(m, 1); return err }, Msg: "window 1"},
		{Name: "CheckBelief of a short belief", Call: func() error { return pomdp.CheckBelief(m, "qs", q[:1]) }, Prefix: "qs: ", Msg: "1 entries, want 3"},
		{Name: "EncodeObs of too many outcomes", Call: func() error { _, err := m.EncodeObs([]int{0, 0}); return err }, Msg: "2 outcomes, want 1"},
		{Name: "ScaleModel of a NaN precision", Call: func() error { _, err := pomdp.ScaleModel(m, math.NaN(), 1); return err }},
		{Name: "Learning.Validate of a negative rate", Call: func() error { r := -1.0; return pomdp.Learning{Rate: &r}.Validate() }},
	})
}

// wantText returns an error unless got == want.
func wantText(got, want string) error {
	if got != want {
		return fmt.Errorf("%q, want %q", got, want)
	}
	return nil
}

// TestErrorReturns holds the exported functions and methods of pomdp to the
// rule of docs/reliability.md ("Error messages") in the source: every
// error they return is nil, a literal starting with "pomdp: ", or passes
// through apiError, apiResult or inContext, which put the prefix in front
// once.
func TestErrorReturns(t *testing.T) {
	misusetest.Returns(t, "pomdp: ", "apiError", "apiResult", "inContext")
}
