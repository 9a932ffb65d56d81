package ffg_test

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/misusetest"
	"github.com/arbor-ai/arbor/messages"
	"github.com/arbor-ai/arbor/nodes"
)

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
	cases := []misusetest.Case{
		{Name: "zero Graph{} AddVariable, AddFactor, Update", OK: "Graph", Says: "The zero Graph is an empty graph ready to use", Call: func() error {
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
		{Name: "AddVariable categorical of 1<<30 entries", Call: func() error {
			_, err := ffg.New().AddVariable("x", expfam.CategoricalFamily, 1<<30)
			if want := `ffg: variable "x": categorical shape [1073741824] has 1073741824 entries, more than ffg.MaxElements (8388608)`; err != nil && err.Error() != want {
				return fmt.Errorf("ffg: error %q, want %q", err, want)
			}
			return err
		}},
		{Name: "AddVariable categorical of MaxElements+1 entries", Call: func() error {
			_, err := ffg.New().AddVariable("", expfam.CategoricalFamily, ffg.MaxElements+1)
			return err
		}},
		{Name: "AddVariable dirichlet of more than MaxElements entries", Call: func() error {
			_, err := ffg.New().AddVariable("A", expfam.DirichletFamily, 2, ffg.MaxElements/2+1)
			if err != nil && !strings.Contains(err.Error(), "8388610 entries, more than ffg.MaxElements (8388608)") {
				return fmt.Errorf("ffg: %v does not give the size and the cap", err)
			}
			return err
		}},
		{Name: "AddVariable dirichlet whose entries overflow int", Call: func() error {
			_, err := ffg.New().AddVariable("A", expfam.DirichletFamily, 1<<30, 1<<30, 1<<30)
			return err
		}},
		{Name: "AddFactor of a factor without interfaces", Call: func() error {
			_, err := ffg.New().AddFactor("f", noInterfaces{})
			return err
		}},
		{Name: "Update(nil)", Call: func() error {
			g, _, _, _, _ := misuseGraph()
			return g.Update(nil)
		}},
		{Name: "UpdateStructured(nil)", Call: func() error {
			g, _, _, _, _ := misuseGraph()
			if _, err := g.SumProduct(); err != nil {
				return err
			}
			return g.UpdateStructured(nil)
		}},
		{Name: "Update of a variable of another graph", Call: func() error {
			g, _, _, _, _ := misuseGraph()
			return g.Update(s0)
		}},
		{Name: "Update of a removed variable", Call: func() error {
			g, s, _, _, _ := misuseGraph()
			g.RemoveVariables(s)
			return g.Update(s)
		}},
		{Name: "Update of a variable without factors", OK: "Graph.Update", Says: "A variable bound to no factor gets the default posterior", Call: func() error {
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
		{Name: "RemoveFactor(nil)", OK: "Graph.RemoveFactor", Says: "removing a nil factor", Call: func() error {
			g, _, _, _, _ := misuseGraph()
			g.RemoveFactor(nil)
			if n := len(g.Factors()); n != 2 {
				return fmt.Errorf("%d factors left, want 2", n)
			}
			return nil
		}},
		{Name: "RemoveFactor twice", OK: "Graph.RemoveFactor", Says: "Removal is idempotent", Call: func() error {
			g, s, _, _, emit := misuseGraph()
			g.RemoveFactor(emit)
			g.RemoveFactor(emit)
			if n := len(g.Factors()); n != 1 || !emit.Removed() || len(s.Neighbors(nil)) != 1 {
				return fmt.Errorf("%d factors left, removed %v, s has %d; want 1, true, 1", n, emit.Removed(), len(s.Neighbors(nil)))
			}
			return nil
		}},
		{Name: "RemoveFactor of another graph's factor", OK: "Graph.RemoveFactor", Says: "one of another graph does nothing", Call: func() error {
			g, _, _, _, _ := misuseGraph()
			h, _, _, _, emit := misuseGraph()
			g.RemoveFactor(emit)
			if emit.Removed() || len(g.Factors()) != 2 || len(h.Factors()) != 2 {
				return errors.New("a factor of another graph was removed")
			}
			return nil
		}},
		{Name: "RemoveVariables(nil)", OK: "Graph.RemoveVariables", Says: "Nil variables, variables already removed and those of another graph are skipped", Call: func() error {
			g, _, _, _, _ := misuseGraph()
			g.RemoveVariables(nil)
			g.RemoveVariables()
			g.RemoveVariables(s0)
			if len(g.Variables()) != 3 || len(g.Factors()) != 2 || s0.Removed() {
				return errors.New("something was removed")
			}
			return nil
		}},
		{Name: "RemoveVariables still bound to a factor", OK: "Graph.RemoveVariables", Says: "A factor that also binds a variable that stays is removed all the same", Call: func() error {
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
		{Name: "SumProduct of an empty graph", OK: "Graph.SumProduct", Says: "A graph without hidden categorical variables has no tree: ln Z is 0", Call: func() error {
			logZ, err := ffg.New().SumProduct()
			if err == nil && logZ != 0 {
				return fmt.Errorf("ln Z = %v, want 0", logZ)
			}
			return err
		}},
		{Name: "SumProductLoopy with negative iterations", Call: func() error {
			_, _, err := ffg.New().SumProductLoopy(ffg.LoopyOptions{Iterations: -1})
			return err
		}},
		{Name: "SumProductLoopy with a NaN tolerance", Call: func() error {
			_, _, err := ffg.New().SumProductLoopy(ffg.LoopyOptions{Tolerance: math.NaN()})
			return err
		}},
		{Name: "WriteDOT(nil)", Call: func() error {
			g, _, _, _, _ := misuseGraph()
			return g.WriteDOT(nil)
		}},
		{Name: "LocalFreeEnergy(nil)", OK: "Graph.LocalFreeEnergy", Says: "no variables give 0", Call: func() error {
			g, _, _, _, _ := misuseGraph()
			if f := g.LocalFreeEnergy(nil); f != 0 {
				return fmt.Errorf("LocalFreeEnergy(nil) = %v, want 0", f)
			}
			if f := g.LocalFreeEnergy([]*ffg.Variable{nil, s0}); f != 0 {
				return fmt.Errorf("LocalFreeEnergy(nil, foreign) = %v, want 0", f)
			}
			return nil
		}},
		{Name: "zero Variable Observe", Call: func() error {
			var v ffg.Variable
			return v.Observe(0)
		}},
		{Name: "zero Variable SetProbs", Call: func() error {
			var v ffg.Variable
			return v.SetProbs([]float64{1})
		}},
		{Name: "zero Variable Entropy", OK: "Variable", Says: "Entropy is NaN", Call: func() error {
			var v ffg.Variable
			if h := v.Entropy(); !math.IsNaN(h) {
				return fmt.Errorf("entropy %v, want NaN", h)
			}
			return nil
		}},
		{Name: "zero Variable Probs", Panics: "Variable", Says: "Probs, Alpha and Gamma panic", Call: func() error {
			var v ffg.Variable
			_ = v.Probs()
			return nil
		}},
		{Name: "Gamma of a categorical variable", Panics: "Variable.Gamma", Says: "It panics for another family", Call: func() error {
			_ = s0.Gamma()
			return nil
		}},
		{Name: "nil *Variable Observe", Panics: "Variable", Says: "The methods of a nil *Variable panic", Call: func() error {
			var v *ffg.Variable
			return v.Observe(0)
		}},
		{Name: "zero FactorNode Message", Call: func() error {
			var f ffg.FactorNode
			return f.Message(make([]float64, 2), 0)
		}},
		{Name: "zero FactorNode AverageEnergy", OK: "FactorNode", Says: "its AverageEnergy NaN", Call: func() error {
			var f ffg.FactorNode
			if e := f.AverageEnergy(); !math.IsNaN(e) {
				return fmt.Errorf("average energy %v, want NaN", e)
			}
			return nil
		}},
		{Name: "nil *FactorNode AverageEnergy", Panics: "FactorNode", Says: "The methods of a nil *FactorNode panic", Call: func() error {
			var f *ffg.FactorNode
			_ = f.AverageEnergy()
			return nil
		}},
		{Name: "PrettyName of odd names", OK: "PrettyName", Says: "Other names are unchanged", Call: func() error {
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
		cases = append(cases, misusetest.Case{Name: "nil *Graph " + m.name, Panics: "Graph", Says: "A nil *Graph is not a graph: calling its methods is a programming error, and they panic", Call: func() error {
			m.call()
			return nil
		}})
	}
	misusetest.Run(t, "ffg: ", cases)
	if d := misusetest.Docs(t)["Graph"]; !strings.Contains(d, "not safe for concurrent use") {
		t.Errorf("the doc comment of Graph does not say it is not safe for concurrent use")
	}
}
