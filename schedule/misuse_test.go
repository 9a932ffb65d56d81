package schedule_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
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

// misuseGraph is s ~ Cat(0.5, 0.5) and an observed o | s.
func misuseGraph() (*ffg.Graph, *ffg.Variable) {
	g := ffg.New()
	s, _ := g.AddVariable("s", expfam.CategoricalFamily, 2)
	o, _ := g.AddVariable("o", expfam.CategoricalFamily, 2)
	prior, _ := nodes.NewCategorical([]float64{0.5, 0.5})
	a, _ := nodes.NewTransition([]float64{0.9, 0.2, 0.1, 0.8}, []int{2, 2})
	if _, err := g.AddFactor("", prior, s); err != nil {
		panic(err)
	}
	if _, err := g.AddFactor("", a, o, s); err != nil {
		panic(err)
	}
	_ = o.Observe(1)
	return g, s
}

// converged checks a run that did one sweep, converged, at F = f.
func converged(res *schedule.Result, f float64) error {
	if res == nil || res.Iterations != 1 || !res.Converged || len(res.FreeEnergy) != 1 || res.FreeEnergy[0] != f {
		return fmt.Errorf("result %+v, want one sweep, converged at F = %v", res, f)
	}
	return nil
}

// TestMisuse runs the wrong calls of the package's API from outside it:
// each returns an error with the prefix "schedule: ", or is accepted as a
// doc comment says.
func TestMisuse(t *testing.T) {
	ctx := context.Background()
	sp := func(s schedule.Settings) *schedule.Settings { s.Method = schedule.MethodSumProduct; return &s }
	cases := []misuse{
		{"Run(ctx, nil, nil)", wantError, "", "", func() error {
			_, err := schedule.Run(ctx, nil, nil)
			return err
		}},
		{"Run(ctx, nil, sum-product)", wantError, "", "", func() error {
			_, err := schedule.Run(ctx, nil, sp(schedule.Settings{}))
			return err
		}},
		{"Local(ctx, nil, vars, nil)", wantError, "", "", func() error {
			_, s := misuseGraph()
			_, err := schedule.Local(ctx, nil, []*ffg.Variable{s}, nil)
			return err
		}},
		{"Run(nil ctx, g, nil)", wantAccept, "Run", "a nil ctx is taken as context.Background()", func() error {
			g, _ := misuseGraph()
			//lint:ignore SA1012 a nil context is the misuse under test
			res, err := schedule.Run(nil, g, nil)
			if err == nil && !res.Converged {
				return errors.New("not converged")
			}
			return err
		}},
		{"Run(nil ctx, g, sum-product)", wantAccept, "Run", "a nil ctx is taken as context.Background()", func() error {
			g, _ := misuseGraph()
			//lint:ignore SA1012 a nil context is the misuse under test
			_, err := schedule.Run(nil, g, sp(schedule.Settings{}))
			return err
		}},
		{"Local(nil ctx, g, vars, nil)", wantAccept, "Local", "a nil ctx is taken as context.Background()", func() error {
			g, s := misuseGraph()
			//lint:ignore SA1012 a nil context is the misuse under test
			_, err := schedule.Local(nil, g, []*ffg.Variable{s}, nil)
			return err
		}},
		{"Run of a cancelled ctx", wantError, "", "", func() error {
			g, _ := misuseGraph()
			c, cancel := context.WithCancel(ctx)
			cancel()
			_, err := schedule.Run(c, g, nil)
			return err
		}},
		{"Run of an empty graph", wantAccept, "Run", "A graph without hidden variables converges after one sweep", func() error {
			res, err := schedule.Run(ctx, ffg.New(), nil)
			if err != nil {
				return err
			}
			return converged(res, 0)
		}},
		{"Run of an empty graph, sum-product", wantAccept, "Run", "A graph without hidden variables converges after one sweep", func() error {
			res, err := schedule.Run(ctx, ffg.New(), sp(schedule.Settings{}))
			if err != nil {
				return err
			}
			return converged(res, 0)
		}},
		{"Run of a zero Graph", wantAccept, "Run", "A graph without hidden variables converges after one sweep", func() error {
			res, err := schedule.Run(ctx, &ffg.Graph{}, nil)
			if err != nil {
				return err
			}
			return converged(res, 0)
		}},
		{"Local(nil vars)", wantAccept, "Local", "No vars is a run that converges after one sweep at a local free energy of 0", func() error {
			g, _ := misuseGraph()
			res, err := schedule.Local(ctx, g, nil, nil)
			if err != nil {
				return err
			}
			return converged(res, 0)
		}},
		{"Local with a nil variable", wantError, "", "", func() error {
			g, _ := misuseGraph()
			_, err := schedule.Local(ctx, g, []*ffg.Variable{nil}, nil)
			return err
		}},
		{"Local with a removed variable", wantError, "", "", func() error {
			g, s := misuseGraph()
			g.RemoveVariables(s)
			_, err := schedule.Local(ctx, g, []*ffg.Variable{s}, nil)
			return err
		}},
		{"Local with a variable of another graph", wantError, "", "", func() error {
			g, _ := misuseGraph()
			_, s := misuseGraph()
			_, err := schedule.Local(ctx, g, []*ffg.Variable{s}, nil)
			return err
		}},
		{"Local with sum-product", wantError, "", "", func() error {
			g, s := misuseGraph()
			_, err := schedule.Local(ctx, g, []*ffg.Variable{s}, sp(schedule.Settings{}))
			return err
		}},
		{"Local with an Order", wantError, "", "", func() error {
			g, s := misuseGraph()
			_, err := schedule.Local(ctx, g, []*ffg.Variable{s}, &schedule.Settings{Order: []*ffg.Variable{s}})
			return err
		}},
		{"Order with a nil variable", wantError, "", "", func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, &schedule.Settings{Order: []*ffg.Variable{nil}})
			return err
		}},
		{"Order with a nil variable, sum-product", wantError, "", "", func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, sp(schedule.Settings{Order: []*ffg.Variable{nil}}))
			return err
		}},
		{"Order with a variable of another graph", wantError, "", "", func() error {
			g, _ := misuseGraph()
			_, s := misuseGraph()
			_, err := schedule.Run(ctx, g, &schedule.Settings{Order: []*ffg.Variable{s}})
			return err
		}},
		{"negative iterations", wantError, "", "", func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, &schedule.Settings{Iterations: -1})
			return err
		}},
		{"NaN tolerance", wantError, "", "", func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, &schedule.Settings{Tolerance: math.NaN()})
			return err
		}},
		{"unknown method", wantError, "", "", func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, &schedule.Settings{Method: "gibbs"})
			return err
		}},
		{"loopy under VMP", wantError, "", "", func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, &schedule.Settings{Loopy: true})
			return err
		}},
		{"damping without loopy", wantError, "", "", func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, sp(schedule.Settings{Damping: 0.3}))
			return err
		}},
		{"damping NaN", wantError, "", "", func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, sp(schedule.Settings{Loopy: true, Damping: math.NaN()}))
			return err
		}},
		{"EstimateSeconds(nil, nil)", wantAccept, "EstimateSeconds", "A nil graph takes 0 seconds", func() error {
			if s := schedule.EstimateSeconds(nil, nil); s != 0 {
				return fmt.Errorf("%v seconds, want 0", s)
			}
			return nil
		}},
		{"SweepWork(nil)", wantAccept, "SweepWork", "A nil graph, as an empty one, has no work", func() error {
			if w := schedule.SweepWork(nil); w != 0 {
				return fmt.Errorf("work %v, want 0", w)
			}
			return nil
		}},
		{"Final of the nil result of a refused run", wantAccept, "Result.Final", "NaN when no sweep ran, or r is nil", func() error {
			res, err := schedule.Run(ctx, nil, nil)
			if err == nil || res != nil {
				return fmt.Errorf("Run(nil graph) = %v, %v; want nil and an error", res, err)
			}
			if f := res.Final(); !math.IsNaN(f) {
				return fmt.Errorf("Final() = %v, want NaN", f)
			}
			return nil
		}},
		{"MaxSweeps of nil settings", wantAccept, "Settings.MaxSweeps", "when it is 0 or s is nil", func() error {
			var s *schedule.Settings
			if n := s.MaxSweeps(); n != schedule.DefaultIterations {
				return fmt.Errorf("MaxSweeps() = %d", n)
			}
			return nil
		}},
	}
	runMisuses(t, "schedule: ", cases)
}
