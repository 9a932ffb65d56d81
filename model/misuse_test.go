package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/model"
	"github.com/arbor-ai/arbor/schedule"
)

// The outcomes a misuse may have.
const (
	wantError  = iota // an error with the package's prefix
	wantPanic         // a panic that a doc comment documents
	wantAccept        // accepted, with the behaviour a doc comment documents
)

// misuse is one wrong call from outside the package and what it must do.
// For wantPanic and wantAccept, doc names the doc comment (a function,
// type, or Type.Method) that documents the behaviour, and says is a phrase
// of that comment, so that the documentation cannot silently go away.
// call returns the error of the misuse or, for wantAccept, a failed check
// of the documented behaviour.
type misuse struct {
	name      string
	want      int
	doc, says string
	call      func() error
}

// runMisuses runs every case with recover and checks its outcome against
// the documentation of the package in the current directory.
func runMisuses(t *testing.T, prefix string, cases []misuse) {
	t.Helper()
	docs := packageDocs(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			var recovered any
			func() {
				defer func() { recovered = recover() }()
				err = c.call()
			}()
			switch c.want {
			case wantError:
				switch {
				case recovered != nil:
					t.Fatalf("panicked: %v; want an error", recovered)
				case err == nil:
					t.Fatal("no error")
				case !strings.HasPrefix(err.Error(), prefix) && !fileError(err):
					t.Fatalf("error %q, want the prefix %q or an *Error naming the file", err, prefix)
				}
				t.Log(err)
				return
			case wantPanic:
				if recovered == nil {
					t.Fatalf("no panic (err %v); %s documents one", err, c.doc)
				}
				t.Log(recovered)
			case wantAccept:
				if recovered != nil || err != nil {
					t.Fatalf("panic %v, error %v; want the behaviour %s documents", recovered, err, c.doc)
				}
			}
			d, ok := docs[c.doc]
			if !ok {
				t.Fatalf("no doc comment for %s", c.doc)
			}
			if !strings.Contains(strings.Join(strings.Fields(d), " "), c.says) {
				t.Errorf("the doc comment of %s does not say %q:\n%s", c.doc, c.says, d)
			}
		})
	}
}

// packageDocs returns the doc comments of the package in the current
// directory by name: "F", "T", "T.M", constants by their name.
func packageDocs(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "pkg")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				out[n] = v.Doc
			}
		}
	}
	values(p.Consts)
	values(p.Vars)
	for _, f := range p.Funcs {
		out[f.Name] = f.Doc
	}
	for _, ty := range p.Types {
		out[ty.Name] = ty.Doc
		values(ty.Consts)
		for _, f := range ty.Funcs {
			out[f.Name] = f.Doc
		}
		for _, m := range ty.Methods {
			out[ty.Name+"."+m.Name] = m.Doc
		}
	}
	return out
}

// fileError reports whether err is an *Error that names its model file,
// which stands first in its message.
func fileError(err error) bool {
	var me *model.Error
	return errors.As(err, &me) && me.File != "" && strings.HasPrefix(err.Error(), me.File+": ")
}

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
	cases := []misuse{
		{"nil *Model Infer", wantError, "", "", func() error {
			var m *model.Model
			_, err := m.Infer(ctx, "data", nil)
			return err
		}},
		{"zero Model Infer", wantError, "", "", func() error {
			var m model.Model
			_, err := m.Infer(ctx, "data", model.Data{})
			return err
		}},
		{"nil *Model CheckData", wantError, "", "", func() error {
			var m *model.Model
			return m.CheckData("data", model.Data{"o1": {Index: 0}})
		}},
		{"Infer of a model whose Variables were replaced", wantError, "", "", func() error {
			m, err := misuseModel()
			if err != nil {
				return err
			}
			m.Variables = append(m.Variables, m.Variables[0])
			_, err = m.Infer(ctx, "data", nil)
			return err
		}},
		{"Infer of a data set that does not fit", wantError, "", "", func() error {
			m, err := misuseModel()
			if err != nil {
				return err
			}
			_, err = m.Infer(ctx, "data", model.Data{"o1": {Index: 7}})
			return err
		}},
		{"Infer(nil ctx)", wantAccept, "Model.Infer", "a nil ctx is context.Background()", func() error {
			m, err := misuseModel()
			if err != nil {
				return err
			}
			//lint:ignore SA1012 a nil context is the misuse under test
			_, err = m.Infer(nil, "data", nil)
			return err
		}},
		{"Output(nil)", wantAccept, "Model.Output", "A nil res stands for no run", func() error {
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
		{"nil *Model Output", wantAccept, "Model.Output", "a nil or zero m has no posteriors", func() error {
			var m *model.Model
			if out := m.Output(&schedule.Result{Iterations: 3}); out.Iterations != 3 || len(out.Posteriors) != 0 {
				return fmt.Errorf("output %+v", out)
			}
			return nil
		}},
		{"nil *Model RunError", wantAccept, "Model.RunError", "A nil *Model is taken as the zero Model", func() error {
			var m *model.Model
			if err := m.RunError(&ffg.NaNError{Variable: `"s"`, Detail: "x"}); err == nil || !strings.HasPrefix(err.Error(), "model: ") {
				return fmt.Errorf("RunError = %v, want an error with the prefix model: ", err)
			}
			if err := m.RunError(errors.New("x")); err == nil || err.Error() != "model: x" {
				return fmt.Errorf("RunError = %v, want model: x", err)
			}
			return nil
		}},
		{"zero Var Observe", wantPanic, "Var", "The zero Var belongs to no Builder, so nothing could record a fault of its own methods: they panic", func() error {
			var v model.Var
			v.Observe(0)
			return nil
		}},
		{"zero Var Given", wantPanic, "Var", "The zero Var belongs to no Builder, so nothing could record a fault of its own methods: they panic", func() error {
			var v model.Var
			v.Given(model.Tensor{Data: []float64{1}, Shape: []int{1}})
			return nil
		}},
		{"zero Var as a parent", wantError, "", "", func() error {
			b := model.New()
			b.Categorical("s", 2).Given(model.Tensor{Data: []float64{1, 0, 0, 1}, Shape: []int{2, 2}}, model.Var{})
			_, err := b.Build("m.json")
			return err
		}},
		{"Var of another builder", wantError, "", "", func() error {
			other := model.New().Categorical("p", 2)
			b := model.New()
			b.Categorical("s", 2).Given(model.Tensor{Data: []float64{1, 0, 0, 1}, Shape: []int{2, 2}}, other)
			_, err := b.Build("m.json")
			return err
		}},
		{"nil *Builder Categorical", wantPanic, "Builder", "The methods of a nil *Builder panic", func() error {
			var b *model.Builder
			b.Categorical("s", 2)
			return nil
		}},
		{"zero Builder", wantAccept, "Builder", "The zero Builder is an empty builder ready to use", func() error {
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
		{"zero Builder Build", wantError, "", "", func() error {
			var b model.Builder
			_, err := b.Build("m.json")
			return err
		}},
		{"Builder categorical of 1<<30 entries", wantError, "", "", func() error {
			b := model.New()
			b.Categorical("s", 1<<30)
			_, err := b.Build("m.json")
			return err
		}},
		{"Builder dirichlet of a tensor whose shape is not its data's", wantError, "", "", func() error {
			b := model.New()
			b.Dirichlet("A", model.Tensor{Data: []float64{1, 1, 1}, Shape: []int{2, 2}})
			_, err := b.Build("m.json")
			if want := `m.json: factors[0] (dirichlet).alpha: shape [2 2] with 3 entries, want positive extents whose product is the number of entries`; err != nil && err.Error() != want {
				return fmt.Errorf("model: error %q, want %q", err, want)
			}
			return err
		}},
		{"Builder transition of a matrix with a zero extent", wantError, "", "", func() error {
			b := model.New()
			s := b.Categorical("s", 2)
			b.Categorical("o", 2).Given(model.Tensor{Data: []float64{1, 0, 0, 1}, Shape: []int{0, 2}}, s)
			_, err := b.Build("m.json")
			return err
		}},
		{"Tensor MarshalJSON of a shape that is not its data's", wantError, "", "", func() error {
			_, err := model.Tensor{Data: []float64{1, 2, 3}, Shape: []int{2, 2}}.MarshalJSON()
			return err
		}},
		{"json.Marshal of a Spec with a bad tensor", wantError, "", "", func() error {
			_, err := json.Marshal(model.Spec{Factors: []model.FactorSpec{{Node: "dirichlet", Out: "A", Alpha: &model.Tensor{Data: []float64{1}, Shape: []int{2, 3}}}}})
			var me *json.MarshalerError
			if errors.As(err, &me) {
				return me.Unwrap()
			}
			return fmt.Errorf("model: got %v, want a *json.MarshalerError", err)
		}},
		{"PosteriorOf(nil)", wantPanic, "PosteriorOf", "A nil v is a programming error, for which it panics", func() error {
			model.PosteriorOf(nil)
			return nil
		}},
		{"PosteriorOf a zero ffg.Variable", wantAccept, "PosteriorOf", "returns the posterior of v in its JSON form", func() error {
			if p := model.PosteriorOf(&ffg.Variable{}); p.P != nil || p.Alpha != nil || p.Shape != nil {
				return fmt.Errorf("posterior %+v, want none", p)
			}
			return nil
		}},
		{"Parse of no data, without a name", wantError, "", "", func() error {
			_, err := model.Parse("", nil)
			return err
		}},
		{"Load of no path", wantError, "", "", func() error {
			_, err := model.Load("")
			return err
		}},
		{"ParseData of null", wantError, "", "", func() error {
			_, err := model.ParseData("", []byte("null"))
			return err
		}},
	}
	runMisuses(t, "model: ", cases)
}
