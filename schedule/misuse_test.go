package schedule_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/misusetest"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

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
	cases := []misusetest.Case{
		{Name: "Run(ctx, nil, nil)", Call: func() error {
			_, err := schedule.Run(ctx, nil, nil)
			return err
		}},
		{Name: "Run(ctx, nil, sum-product)", Call: func() error {
			_, err := schedule.Run(ctx, nil, sp(schedule.Settings{}))
			return err
		}},
		{Name: "Local(ctx, nil, vars, nil)", Call: func() error {
			_, s := misuseGraph()
			_, err := schedule.Local(ctx, nil, []*ffg.Variable{s}, nil)
			return err
		}},
		{Name: "Run(nil ctx, g, nil)", OK: "Run", Says: "a nil ctx is taken as context.Background()", Call: func() error {
			g, _ := misuseGraph()
			//lint:ignore SA1012 a nil context is the misuse under test
			res, err := schedule.Run(nil, g, nil)
			if err == nil && !res.Converged {
				return errors.New("not converged")
			}
			return err
		}},
		{Name: "Run(nil ctx, g, sum-product)", OK: "Run", Says: "a nil ctx is taken as context.Background()", Call: func() error {
			g, _ := misuseGraph()
			//lint:ignore SA1012 a nil context is the misuse under test
			_, err := schedule.Run(nil, g, sp(schedule.Settings{}))
			return err
		}},
		{Name: "Local(nil ctx, g, vars, nil)", OK: "Local", Says: "a nil ctx is taken as context.Background()", Call: func() error {
			g, s := misuseGraph()
			//lint:ignore SA1012 a nil context is the misuse under test
			_, err := schedule.Local(nil, g, []*ffg.Variable{s}, nil)
			return err
		}},
		{Name: "Run of a cancelled ctx", Call: func() error {
			g, _ := misuseGraph()
			c, cancel := context.WithCancel(ctx)
			cancel()
			_, err := schedule.Run(c, g, nil)
			return err
		}},
		{Name: "Run of an empty graph", OK: "Run", Says: "A graph without hidden variables converges after one sweep", Call: func() error {
			res, err := schedule.Run(ctx, ffg.New(), nil)
			if err != nil {
				return err
			}
			return converged(res, 0)
		}},
		{Name: "Run of an empty graph, sum-product", OK: "Run", Says: "A graph without hidden variables converges after one sweep", Call: func() error {
			res, err := schedule.Run(ctx, ffg.New(), sp(schedule.Settings{}))
			if err != nil {
				return err
			}
			return converged(res, 0)
		}},
		{Name: "Run of a zero Graph", OK: "Run", Says: "A graph without hidden variables converges after one sweep", Call: func() error {
			res, err := schedule.Run(ctx, &ffg.Graph{}, nil)
			if err != nil {
				return err
			}
			return converged(res, 0)
		}},
		{Name: "Local(nil vars)", OK: "Local", Says: "No vars is a run that converges after one sweep at a local free energy of 0", Call: func() error {
			g, _ := misuseGraph()
			res, err := schedule.Local(ctx, g, nil, nil)
			if err != nil {
				return err
			}
			return converged(res, 0)
		}},
		{Name: "Local with a nil variable", Call: func() error {
			g, _ := misuseGraph()
			_, err := schedule.Local(ctx, g, []*ffg.Variable{nil}, nil)
			return err
		}},
		{Name: "Local with a removed variable", Call: func() error {
			g, s := misuseGraph()
			g.RemoveVariables(s)
			_, err := schedule.Local(ctx, g, []*ffg.Variable{s}, nil)
			return err
		}},
		{Name: "Local with a variable of another graph", Call: func() error {
			g, _ := misuseGraph()
			_, s := misuseGraph()
			_, err := schedule.Local(ctx, g, []*ffg.Variable{s}, nil)
			return err
		}},
		{Name: "Local with sum-product", Call: func() error {
			g, s := misuseGraph()
			_, err := schedule.Local(ctx, g, []*ffg.Variable{s}, sp(schedule.Settings{}))
			return err
		}},
		{Name: "Local with an Order", Call: func() error {
			g, s := misuseGraph()
			_, err := schedule.Local(ctx, g, []*ffg.Variable{s}, &schedule.Settings{Order: []*ffg.Variable{s}})
			return err
		}},
		{Name: "Order with a nil variable", Call: func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, &schedule.Settings{Order: []*ffg.Variable{nil}})
			return err
		}},
		{Name: "Order with a nil variable, sum-product", Call: func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, sp(schedule.Settings{Order: []*ffg.Variable{nil}}))
			return err
		}},
		{Name: "Order with a variable of another graph", Call: func() error {
			g, _ := misuseGraph()
			_, s := misuseGraph()
			_, err := schedule.Run(ctx, g, &schedule.Settings{Order: []*ffg.Variable{s}})
			return err
		}},
		{Name: "negative iterations", Call: func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, &schedule.Settings{Iterations: -1})
			return err
		}},
		{Name: "NaN tolerance", Call: func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, &schedule.Settings{Tolerance: math.NaN()})
			return err
		}},
		{Name: "unknown method", Call: func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, &schedule.Settings{Method: "gibbs"})
			return err
		}},
		{Name: "loopy under VMP", Call: func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, &schedule.Settings{Loopy: true})
			return err
		}},
		{Name: "damping without loopy", Call: func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, sp(schedule.Settings{Damping: 0.3}))
			return err
		}},
		{Name: "damping NaN", Call: func() error {
			g, _ := misuseGraph()
			_, err := schedule.Run(ctx, g, sp(schedule.Settings{Loopy: true, Damping: math.NaN()}))
			return err
		}},
		{Name: "EstimateSeconds(nil, nil)", OK: "EstimateSeconds", Says: "A nil graph takes 0 seconds", Call: func() error {
			if s := schedule.EstimateSeconds(nil, nil); s != 0 {
				return fmt.Errorf("%v seconds, want 0", s)
			}
			return nil
		}},
		{Name: "SweepWork(nil)", OK: "SweepWork", Says: "A nil graph, as an empty one, has no work", Call: func() error {
			if w := schedule.SweepWork(nil); w != 0 {
				return fmt.Errorf("work %v, want 0", w)
			}
			return nil
		}},
		{Name: "Final of the nil result of a refused run", OK: "Result.Final", Says: "NaN when no sweep ran, or r is nil", Call: func() error {
			res, err := schedule.Run(ctx, nil, nil)
			if err == nil || res != nil {
				return fmt.Errorf("Run(nil graph) = %v, %v; want nil and an error", res, err)
			}
			if f := res.Final(); !math.IsNaN(f) {
				return fmt.Errorf("Final() = %v, want NaN", f)
			}
			return nil
		}},
		{Name: "MaxSweeps of nil settings", OK: "Settings.MaxSweeps", Says: "when it is 0 or s is nil", Call: func() error {
			var s *schedule.Settings
			if n := s.MaxSweeps(); n != schedule.DefaultIterations {
				return fmt.Errorf("MaxSweeps() = %d", n)
			}
			return nil
		}},
	}
	misusetest.Run(t, "schedule: ", cases)
}
