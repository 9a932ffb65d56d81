package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/misusetest"
	"github.com/arbor-ai/arbor/model"
	"github.com/arbor-ai/arbor/schedule"
)

// misuseModel builds s0 -> s1 with s1 observed through o1.
func misuseModel() (*model.Model, error) {
	b := model.New()
	s0 := b.Categorical("s0", 2).Prior([]float64{0.5, 0.5})
	s1 := b.Categorical("s1", 2).Given(model.Tensor{Data: []float64{0.9, 0.2, 0.1, 0.8}, Shape: []int{2, 2}}, s0)
	b.Categorical("o1", 2).Observe(1).Given(model.Tensor{Data: []float64{0.7, 0.4, 0.3, 0.6}, Shape: []int{2, 2}}, s1)
	return b.Build("misuse.json")
}

// TestMisuse runs the wrong calls of the package's API from outside it:
// each returns an error with the prefix "model: " (or an *Error, which
// names the model file first), or panics as a doc comment says, or is
// accepted as a doc comment says.
func TestMisuse(t *testing.T) {
	ctx := context.Background()
	cases := []misusetest.Case{
		{Name: "nil *Model Infer", Call: func() error {
			var m *model.Model
			_, err := m.Infer(ctx, "data", nil)
			return err
		}},
		{Name: "zero Model Infer", Call: func() error {
			var m model.Model
			_, err := m.Infer(ctx, "data", model.Data{})
			return err
		}},
		{Name: "nil *Model CheckData", Call: func() error {
			var m *model.Model
			return m.CheckData("data", model.Data{"o1": {Index: 0}})
		}},
		{Name: "Infer of a model whose Variables were replaced", Call: func() error {
			m, err := misuseModel()
			if err != nil {
				return err
			}
			m.Variables = append(m.Variables, m.Variables[0])
			_, err = m.Infer(ctx, "data", nil)
			return err
		}},
		{Name: "Infer of a data set that does not fit", Call: func() error {
			m, err := misuseModel()
			if err != nil {
				return err
			}
			_, err = m.Infer(ctx, "data", model.Data{"o1": {Index: 7}})
			return err
		}},
		{Name: "Infer(nil ctx)", OK: "Model.Infer", Says: "a nil ctx is context.Background()", Call: func() error {
			m, err := misuseModel()
			if err != nil {
				return err
			}
			//lint:ignore SA1012 a nil context is the misuse under test
			_, err = m.Infer(nil, "data", nil)
			return err
		}},
		{Name: "Output(nil)", OK: "Model.Output", Says: "A nil res stands for no run", Call: func() error {
			m, err := misuseModel()
			if err != nil {
				return err
			}
			out := m.Output(nil)
			if out.Iterations != 0 || out.FreeEnergy == nil || len(out.Posteriors) != 2 {
				return fmt.Errorf("output %+v, want no sweeps and the posteriors of s0 and s1", out)
			}
			return nil
		}},
		{Name: "nil *Model Output", OK: "Model.Output", Says: "a nil or zero m has no posteriors", Call: func() error {
			var m *model.Model
			if out := m.Output(&schedule.Result{Iterations: 3}); out.Iterations != 3 || len(out.Posteriors) != 0 {
				return fmt.Errorf("output %+v", out)
			}
			return nil
		}},
		{Name: "nil *Model RunError", OK: "Model.RunError", Says: "A nil *Model is taken as the zero Model", Call: func() error {
			var m *model.Model
			if err := m.RunError(&ffg.NaNError{Variable: `"s"`, Detail: "x"}); err == nil || !strings.HasPrefix(err.Error(), "model: ") {
				return fmt.Errorf("RunError = %v, want an error with the prefix model: ", err)
			}
			if err := m.RunError(errors.New("x")); err == nil || err.Error() != "model: x" {
				return fmt.Errorf("RunError = %v, want model: x", err)
			}
			return nil
		}},
		{Name: "zero Var Observe", Panics: "Var", Says: "The zero Var belongs to no Builder, so nothing could record a fault of its own methods: they panic", Call: func() error {
			var v model.Var
			v.Observe(0)
			return nil
		}},
		{Name: "zero Var Given", Panics: "Var", Says: "The zero Var belongs to no Builder, so nothing could record a fault of its own methods: they panic", Call: func() error {
			var v model.Var
			v.Given(model.Tensor{Data: []float64{1}, Shape: []int{1}})
			return nil
		}},
		{Name: "zero Var as a parent", Call: func() error {
			b := model.New()
			b.Categorical("s", 2).Given(model.Tensor{Data: []float64{1, 0, 0, 1}, Shape: []int{2, 2}}, model.Var{})
			_, err := b.Build("m.json")
			return err
		}},
		{Name: "Var of another builder", Call: func() error {
			other := model.New().Categorical("p", 2)
			b := model.New()
			b.Categorical("s", 2).Given(model.Tensor{Data: []float64{1, 0, 0, 1}, Shape: []int{2, 2}}, other)
			_, err := b.Build("m.json")
			return err
		}},
		{Name: "nil *Builder Categorical", Panics: "Builder", Says: "The methods of a nil *Builder panic", Call: func() error {
			var b *model.Builder
			b.Categorical("s", 2)
			return nil
		}},
		{Name: "zero Builder", OK: "Builder", Says: "The zero Builder is an empty builder ready to use", Call: func() error {
			var b model.Builder
			b.Categorical("s", 2).Prior([]float64{0.3, 0.7})
			m, err := b.Build("m.json")
			if err != nil {
				return err
			}
			if _, err := m.Infer(ctx, "data", nil); err != nil {
				return err
			}
			if p := m.Variables[0].Probs(); p[1] < 0.69 || p[1] > 0.71 {
				return fmt.Errorf("q(s) = %v", p)
			}
			return nil
		}},
		{Name: "zero Builder Build", Call: func() error {
			var b model.Builder
			_, err := b.Build("m.json")
			return err
		}},
		{Name: "Builder categorical of 1<<30 entries", Call: func() error {
			b := model.New()
			b.Categorical("s", 1<<30)
			_, err := b.Build("m.json")
			return err
		}},
		{Name: "Builder dirichlet of a tensor whose shape is not its data's", Call: func() error {
			b := model.New()
			b.Dirichlet("A", model.Tensor{Data: []float64{1, 1, 1}, Shape: []int{2, 2}})
			_, err := b.Build("m.json")
			if want := `model: m.json: factors[0] (dirichlet).alpha: shape [2 2] with 3 entries, want positive extents whose product is the number of entries`; err != nil && err.Error() != want {
				return fmt.Errorf("model: error %q, want %q", err, want)
			}
			return err
		}},
		{Name: "Builder transition of a matrix with a zero extent", Call: func() error {
			b := model.New()
			s := b.Categorical("s", 2)
			b.Categorical("o", 2).Given(model.Tensor{Data: []float64{1, 0, 0, 1}, Shape: []int{0, 2}}, s)
			_, err := b.Build("m.json")
			return err
		}},
		{Name: "Tensor MarshalJSON of a shape that is not its data's", Call: func() error {
			_, err := model.Tensor{Data: []float64{1, 2, 3}, Shape: []int{2, 2}}.MarshalJSON()
			return err
		}},
		{Name: "json.Marshal of a Spec with a bad tensor", Call: func() error {
			_, err := json.Marshal(model.Spec{Factors: []model.FactorSpec{{Node: "dirichlet", Out: "A", Alpha: &model.Tensor{Data: []float64{1}, Shape: []int{2, 3}}}}})
			var me *json.MarshalerError
			if errors.As(err, &me) {
				return me.Unwrap()
			}
			return fmt.Errorf("model: got %v, want a *json.MarshalerError", err)
		}},
		{Name: "PosteriorOf(nil)", Panics: "PosteriorOf", Says: "A nil v is a programming error, for which it panics", Call: func() error {
			model.PosteriorOf(nil)
			return nil
		}},
		{Name: "PosteriorOf a zero ffg.Variable", OK: "PosteriorOf", Says: "returns the posterior of v in its JSON form", Call: func() error {
			if p := model.PosteriorOf(&ffg.Variable{}); p.P != nil || p.Alpha != nil || p.Shape != nil {
				return fmt.Errorf("posterior %+v, want none", p)
			}
			return nil
		}},
		{Name: "Parse of no data, without a name", Call: func() error {
			_, err := model.Parse("", nil)
			return err
		}},
		{Name: "Load of no path", Call: func() error {
			_, err := model.Load("")
			return err
		}},
		{Name: "ParseData of null", Call: func() error {
			_, err := model.ParseData("", []byte("null"))
			return err
		}},
		{Name: "Parse of a variable with an unknown field", Call: func() error {
			_, err := model.Parse("m.json", []byte(`{"variables": [{"name": "x", "type": "categorical"}]}`))
			return err
		}, Prefix: "m.json: ", Msg: "variables[0].type: unknown field"},
		{Name: "Parse of a categorical p of the wrong length", Call: func() error {
			_, err := model.Parse("m.json", []byte(`{"variables": [{"name": "s", "family": "categorical", "shape": [2]}],
 "factors": [{"node": "categorical", "out": "s", "p": [1]}]}`))
			return err
		}, Prefix: "m.json: factors[0] (categorical): ", Msg: "wants shape [1]"},
		{Name: "Parse of a beta with a negative a", Call: func() error {
			_, err := model.Parse("m.json", []byte(`{"variables": [{"name": "b", "family": "beta"}], "factors": [{"node": "beta", "out": "b", "a": -1, "b": 1}]}`))
			return err
		}, Prefix: "m.json: factors[0] (beta).a: ", Msg: "want a finite number > 0"},
		{Name: "Parse of malformed JSON", Call: func() error { _, err := model.Parse("m.json", []byte(`{`)); return err }, Prefix: "m.json: ", Msg: "malformed JSON"},
		{Name: "ParseSpec of an array", Call: func() error { _, err := model.ParseSpec([]byte(`[1]`)); return err }, Msg: "want a JSON object"},
		{Name: "ParseSpec of an unknown field", Call: func() error {
			_, err := model.ParseSpec([]byte(`{"variables": [{"name": "x", "type": "categorical"}]}`))
			return err
		}, Msg: "variables[0].type: unknown field"},
		{Name: "Load of a missing file", Call: func() error { _, err := model.Load("testdata/absent.json"); return err }, Prefix: "testdata/absent.json: ", Msg: "no such file"},
		{Name: "ParseData of a duplicate key", Call: func() error { _, err := model.ParseData("d.jsonl:3", []byte(`{"o": 1, "o": 1}`)); return err }, Prefix: "d.jsonl:3: ", Msg: `duplicate key "o"`},
	}
	misusetest.Runner{Prefix: "model: ", Always: true}.Run(t, cases)
}

// TestErrorReturns holds the exported functions and methods of model to the
// rule of docs/reliability.md ("Error messages") in the source: every
// error they return is nil, a literal starting with "model: ", or passes
// through apiError, apiResult or inContext, which put the prefix in front
// once.
func TestErrorReturns(t *testing.T) {
	misusetest.Returns(t, "model: ", "apiError", "apiResult", "inContext")
}
