package ffg_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/messages"
	"github.com/arbor-ai/arbor/nodes"
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
				case !strings.HasPrefix(err.Error(), prefix):
					t.Fatalf("error %q, want the prefix %q", err, prefix)
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

// noInterfaces is a factor that declares no interfaces.
type noInterfaces struct{}

func (noInterfaces) Kind() string                        { return "none" }
func (noInterfaces) Interfaces() []messages.Interface    { return nil }
func (noInterfaces) AverageEnergy(s [][]float64) float64 { return 0 }

// misuseGraph is s ~ Cat(0.5, 0.5), o | s observed, and a third variable
// x bound to no factor.
func misuseGraph() (g *ffg.Graph, s, o, x *ffg.Variable, emit *ffg.FactorNode) {
	g = ffg.New()
	s, _ = g.AddVariable("s", expfam.CategoricalFamily, 2)
	o, _ = g.AddVariable("o", expfam.CategoricalFamily, 2)
	x, _ = g.AddVariable("x", expfam.CategoricalFamily, 2)
	prior, _ := nodes.NewCategorical([]float64{0.5, 0.5})
	a, _ := nodes.NewTransition([]float64{0.9, 0.2, 0.1, 0.8}, []int{2, 2})
	if _, err := g.AddFactor("prior", prior, s); err != nil {
		panic(err)
	}
	emit, err := g.AddFactor("emit", a, o, s)
	if err != nil {
		panic(err)
	}
	_ = o.Observe(1)
	return g, s, o, x, emit
}

// TestMisuse runs the wrong calls of the package's API from outside it:
// each returns an error with the prefix "ffg: ", or panics as a doc
// comment says, or is accepted as a doc comment says.
func TestMisuse(t *testing.T) {
	var nilGraph *ffg.Graph
	_, s0, _, _, _ := misuseGraph()
	cases := []misuse{
		{"zero Graph{} AddVariable, AddFactor, Update", wantAccept, "Graph", "The zero Graph is an empty graph ready to use", func() error {
			var g ffg.Graph
			s, err := g.AddVariable("s", expfam.CategoricalFamily, 2)
			if err != nil {
				return err
			}
			prior, _ := nodes.NewCategorical([]float64{0.2, 0.8})
			if _, err := g.AddFactor("", prior, s); err != nil {
				return err
			}
			if err := g.Update(s); err != nil {
				return err
			}
			if v, ok := g.Variable("s"); !ok || v != s || math.Abs(s.Probs()[1]-0.8) > 1e-12 {
				return fmt.Errorf("Variable(s) = %v, %v; q(s) = %v", v, ok, s.Probs())
			}
			if _, err := g.AddVariable("s", expfam.CategoricalFamily, 2); err == nil {
				return errors.New("a duplicate name accepted")
			}
			return nil
		}},
		{"AddVariable categorical of 1<<30 entries", wantError, "", "", func() error {
			_, err := ffg.New().AddVariable("x", expfam.CategoricalFamily, 1<<30)
			if want := `ffg: variable "x": categorical shape [1073741824] has 1073741824 entries, more than ffg.MaxElements (8388608)`; err != nil && err.Error() != want {
				return fmt.Errorf("ffg: error %q, want %q", err, want)
			}
			return err
		}},
		{"AddVariable categorical of MaxElements+1 entries", wantError, "", "", func() error {
			_, err := ffg.New().AddVariable("", expfam.CategoricalFamily, ffg.MaxElements+1)
			return err
		}},
		{"AddVariable dirichlet of more than MaxElements entries", wantError, "", "", func() error {
			_, err := ffg.New().AddVariable("A", expfam.DirichletFamily, 2, ffg.MaxElements/2+1)
			if err != nil && !strings.Contains(err.Error(), "8388610 entries, more than ffg.MaxElements (8388608)") {
				return fmt.Errorf("ffg: %v does not give the size and the cap", err)
			}
			return err
		}},
		{"AddVariable dirichlet whose entries overflow int", wantError, "", "", func() error {
			_, err := ffg.New().AddVariable("A", expfam.DirichletFamily, 1<<30, 1<<30, 1<<30)
			return err
		}},
		{"AddFactor of a factor without interfaces", wantError, "", "", func() error {
			_, err := ffg.New().AddFactor("f", noInterfaces{})
			return err
		}},
		{"Update(nil)", wantError, "", "", func() error {
			g, _, _, _, _ := misuseGraph()
			return g.Update(nil)
		}},
		{"UpdateStructured(nil)", wantError, "", "", func() error {
			g, _, _, _, _ := misuseGraph()
			if _, err := g.SumProduct(); err != nil {
				return err
			}
			return g.UpdateStructured(nil)
		}},
		{"Update of a variable of another graph", wantError, "", "", func() error {
			g, _, _, _, _ := misuseGraph()
			return g.Update(s0)
		}},
		{"Update of a removed variable", wantError, "", "", func() error {
			g, s, _, _, _ := misuseGraph()
			g.RemoveVariables(s)
			return g.Update(s)
		}},
		{"Update of a variable without factors", wantAccept, "Graph.Update", "A variable bound to no factor gets the default posterior", func() error {
			g, _, _, x, _ := misuseGraph()
			if err := x.SetProbs([]float64{0.9, 0.1}); err != nil {
				return err
			}
			if err := g.Update(x); err != nil {
				return err
			}
			if p := x.Probs(); p[0] != 0.5 || p[1] != 0.5 {
				return fmt.Errorf("q(x) = %v, want uniform", p)
			}
			return nil
		}},
		{"RemoveFactor(nil)", wantAccept, "Graph.RemoveFactor", "removing a nil factor", func() error {
			g, _, _, _, _ := misuseGraph()
			g.RemoveFactor(nil)
			if n := len(g.Factors()); n != 2 {
				return fmt.Errorf("%d factors left, want 2", n)
			}
			return nil
		}},
		{"RemoveFactor twice", wantAccept, "Graph.RemoveFactor", "Removal is idempotent", func() error {
			g, s, _, _, emit := misuseGraph()
			g.RemoveFactor(emit)
			g.RemoveFactor(emit)
			if n := len(g.Factors()); n != 1 || !emit.Removed() || len(s.Neighbors(nil)) != 1 {
				return fmt.Errorf("%d factors left, removed %v, s has %d; want 1, true, 1", n, emit.Removed(), len(s.Neighbors(nil)))
			}
			return nil
		}},
		{"RemoveFactor of another graph's factor", wantAccept, "Graph.RemoveFactor", "one of another graph does nothing", func() error {
			g, _, _, _, _ := misuseGraph()
			h, _, _, _, emit := misuseGraph()
			g.RemoveFactor(emit)
			if emit.Removed() || len(g.Factors()) != 2 || len(h.Factors()) != 2 {
				return errors.New("a factor of another graph was removed")
			}
			return nil
		}},
		{"RemoveVariables(nil)", wantAccept, "Graph.RemoveVariables", "Nil variables, variables already removed and those of another graph are skipped", func() error {
			g, _, _, _, _ := misuseGraph()
			g.RemoveVariables(nil)
			g.RemoveVariables()
			g.RemoveVariables(s0)
			if len(g.Variables()) != 3 || len(g.Factors()) != 2 || s0.Removed() {
				return errors.New("something was removed")
			}
			return nil
		}},
		{"RemoveVariables still bound to a factor", wantAccept, "Graph.RemoveVariables", "A factor that also binds a variable that stays is removed all the same", func() error {
			g, s, o, _, emit := misuseGraph()
			g.RemoveVariables(o)
			switch {
			case !emit.Removed() || len(g.Factors()) != 1:
				return errors.New("the factor on o is still in the graph")
			case len(s.Neighbors(nil)) != 1:
				return fmt.Errorf("s has %d factors, want its prior only", len(s.Neighbors(nil)))
			case !math.IsNaN(emit.AverageEnergy()):
				return fmt.Errorf("removed factor's average energy %v, want NaN", emit.AverageEnergy())
			case emit.Message(make([]float64, 2), 1) == nil:
				return errors.New("a removed factor sent a message")
			}
			if err := g.Update(s); err != nil { // s stays, with its prior only
				return err
			}
			g.RemoveVariables(o) // again: nothing
			return nil
		}},
		{"SumProduct of an empty graph", wantAccept, "Graph.SumProduct", "A graph without hidden categorical variables has no tree: ln Z is 0", func() error {
			logZ, err := ffg.New().SumProduct()
			if err == nil && logZ != 0 {
				return fmt.Errorf("ln Z = %v, want 0", logZ)
			}
			return err
		}},
		{"SumProductLoopy with negative iterations", wantError, "", "", func() error {
			_, _, err := ffg.New().SumProductLoopy(ffg.LoopyOptions{Iterations: -1})
			return err
		}},
		{"SumProductLoopy with a NaN tolerance", wantError, "", "", func() error {
			_, _, err := ffg.New().SumProductLoopy(ffg.LoopyOptions{Tolerance: math.NaN()})
			return err
		}},
		{"WriteDOT(nil)", wantError, "", "", func() error {
			g, _, _, _, _ := misuseGraph()
			return g.WriteDOT(nil)
		}},
		{"LocalFreeEnergy(nil)", wantAccept, "Graph.LocalFreeEnergy", "no variables give 0", func() error {
			g, _, _, _, _ := misuseGraph()
			if f := g.LocalFreeEnergy(nil); f != 0 {
				return fmt.Errorf("LocalFreeEnergy(nil) = %v, want 0", f)
			}
			if f := g.LocalFreeEnergy([]*ffg.Variable{nil, s0}); f != 0 {
				return fmt.Errorf("LocalFreeEnergy(nil, foreign) = %v, want 0", f)
			}
			return nil
		}},
		{"zero Variable Observe", wantError, "", "", func() error {
			var v ffg.Variable
			return v.Observe(0)
		}},
		{"zero Variable SetProbs", wantError, "", "", func() error {
			var v ffg.Variable
			return v.SetProbs([]float64{1})
		}},
		{"zero Variable Entropy", wantAccept, "Variable", "Entropy is NaN", func() error {
			var v ffg.Variable
			if h := v.Entropy(); !math.IsNaN(h) {
				return fmt.Errorf("entropy %v, want NaN", h)
			}
			return nil
		}},
		{"zero Variable Probs", wantPanic, "Variable", "Probs, Alpha and Gamma panic", func() error {
			var v ffg.Variable
			_ = v.Probs()
			return nil
		}},
		{"Gamma of a categorical variable", wantPanic, "Variable.Gamma", "It panics for another family", func() error {
			_ = s0.Gamma()
			return nil
		}},
		{"nil *Variable Observe", wantPanic, "Variable", "The methods of a nil *Variable panic", func() error {
			var v *ffg.Variable
			return v.Observe(0)
		}},
		{"zero FactorNode Message", wantError, "", "", func() error {
			var f ffg.FactorNode
			return f.Message(make([]float64, 2), 0)
		}},
		{"zero FactorNode AverageEnergy", wantAccept, "FactorNode", "its AverageEnergy NaN", func() error {
			var f ffg.FactorNode
			if e := f.AverageEnergy(); !math.IsNaN(e) {
				return fmt.Errorf("average energy %v, want NaN", e)
			}
			return nil
		}},
		{"nil *FactorNode AverageEnergy", wantPanic, "FactorNode", "The methods of a nil *FactorNode panic", func() error {
			var f *ffg.FactorNode
			_ = f.AverageEnergy()
			return nil
		}},
		{"PrettyName of odd names", wantAccept, "PrettyName", "Other names are unchanged", func() error {
			for _, name := range []string{"", "_", "_1", "0", "9x", "é1", "γ2", "\xff3", "gamma_"} {
				_ = ffg.PrettyName(name)
			}
			return nil
		}},
	}
	// Every method of a nil *Graph, with otherwise good arguments.
	prior, _ := nodes.NewCategorical([]float64{0.5, 0.5})
	for _, m := range []struct {
		name string
		call func()
	}{
		{"AddVariable", func() { _, _ = nilGraph.AddVariable("x", expfam.CategoricalFamily, 2) }},
		{"AddFactor", func() { _, _ = nilGraph.AddFactor("", prior, s0) }},
		{"Update", func() { _ = nilGraph.Update(s0) }},
		{"UpdateStructured", func() { _ = nilGraph.UpdateStructured(s0) }},
		{"Variables", func() { _ = nilGraph.Variables() }},
		{"Variable", func() { _, _ = nilGraph.Variable("s") }},
		{"Factors", func() { _ = nilGraph.Factors() }},
		{"FreeEnergy", func() { _ = nilGraph.FreeEnergy() }},
		{"LocalFreeEnergy", func() { _ = nilGraph.LocalFreeEnergy(nil) }},
		{"RemoveFactor", func() { nilGraph.RemoveFactor(nil) }},
		{"RemoveVariables", func() { nilGraph.RemoveVariables() }},
		{"ResetPosteriors", func() { _ = nilGraph.ResetPosteriors() }},
		{"SumProduct", func() { _, _ = nilGraph.SumProduct() }},
		{"SumProductLoopy", func() { _, _, _ = nilGraph.SumProductLoopy(ffg.LoopyOptions{}) }},
		{"StructuredFreeEnergy", func() { _ = nilGraph.StructuredFreeEnergy(0) }},
		{"WriteDOT", func() { _ = nilGraph.WriteDOT(io.Discard) }},
	} {
		cases = append(cases, misuse{"nil *Graph " + m.name, wantPanic, "Graph", "A nil *Graph is not a graph: calling its methods is a programming error, and they panic", func() error {
			m.call()
			return nil
		}})
	}
	runMisuses(t, "ffg: ", cases)
	if d := packageDocs(t)["Graph"]; !strings.Contains(d, "not safe for concurrent use") {
		t.Errorf("the doc comment of Graph does not say it is not safe for concurrent use")
	}
}
