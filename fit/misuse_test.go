package fit_test

import (
	"math"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/internal/misusetest"
)

// TestMisuse runs the misuses of the package's API: each refused with an
// error naming the field, or with the panic its doc comment documents (a
// programming error).
func TestMisuse(t *testing.T) {
	m, _, _, _ := pymdpTMaze(t)
	ps := pymdpFactory.Params(m)
	call := func(f func()) func() error { return func() error { f(); return nil } }
	validate := func(s fit.Settings) func() error { return func() error { return s.Validate(ps) } }
	misusetest.Runner{Prefix: "fit: ", Always: true}.Run(t, []misusetest.Case{
		{Name: "ParseDraws of a bad draw", Call: func() error { _, err := fit.ParseDraws([]string{"alpha"}, ps); return err }},
		{Name: "Prior.Check of a NaN mean", Call: func() error { return fit.Prior{Mean: math.NaN(), SD: 1}.Check() }, Msg: "mean NaN"},
		{Name: "Method.UnmarshalText of a bad name", Call: func() error { var m fit.Method; return m.UnmarshalText([]byte("newton")) }, Msg: "newton"},
		{Name: "GroupCov.UnmarshalText of a bad name", Call: func() error { var c fit.GroupCov; return c.UnmarshalText([]byte("x")) }},
		{Name: "Group.Add(nil)", Call: call(func() { new(fit.Group).Add(nil) }), Msg: "nil *Result", Panics: "Group.Add", Says: "panics if r is nil"},
		{Name: "10^9 restarts", Call: validate(fit.Settings{Free: []string{"alpha"}, Restarts: 1e9}), Msg: "Settings.Restarts: 1000000000, want 1..1000"},
		{Name: "a prior mean outside the box", Call: validate(fit.Settings{Free: []string{"alpha"}, Priors: map[string]fit.Prior{"alpha": {Mean: 1e308, SD: 1e308}}}),
			Msg: "Settings.Priors[alpha]: mean 1e+308"},
		{Name: "a prior SD of 1e-300", Call: validate(fit.Settings{Free: []string{"alpha"}, Priors: map[string]fit.Prior{"alpha": {SD: 1e-300}}}),
			Msg: "Settings.Priors[alpha]: SD 1e-300"},
		{Name: "BMS of 101 models", Call: func() error { _, err := fit.BMS([][]float64{make([]float64, 101)}, nil); return err }, Msg: "101 models, want 2..100"},
		{Name: "Confusion of rows and models that differ", Call: call(func() { fit.Confusion(2, []int{0}, nil) }), Msg: "1 generating models, 0 rows",
			Panics: "Confusion", Says: "panics when gen and lme differ in length"},
		{Name: "ExceedanceProbabilities of a count 0", Call: call(func() { fit.ExceedanceProbabilities([]float64{1, 0}) }), Msg: "alpha[1] = 0",
			Panics: "ExceedanceProbabilities", Says: "panics when α has an entry that is not finite and > 0"},
		{Name: "ExceedanceProbabilities of NaN", Call: call(func() { fit.ExceedanceProbabilities([]float64{math.NaN(), 1}) }), Msg: "alpha[0] = NaN",
			Panics: "ExceedanceProbabilities", Says: "not finite and > 0"},
		{Name: "PEB without a design", Call: func() error { _, err := fit.PEB(nil, []string{"alpha"}, []fit.Prior{{SD: 1}}, nil, nil); return err }, Msg: "PEB: nil design"},
		{Name: "PEB with a design of other rows", Call: func() error {
			_, err := fit.PEB([]fit.Posterior{{Mean: []float64{0}, Cov: [][]float64{{1}}}}, []string{"alpha"}, []fit.Prior{{SD: 1}}, &fit.Design{Columns: []string{"1"}}, nil)
			return err
		}, Msg: "the design has 0 rows for 1 subjects"},
		{Name: "PEB of a posterior that is not positive definite", Call: func() error {
			_, err := fit.PEB([]fit.Posterior{{Mean: []float64{0}, Cov: [][]float64{{-1}}}}, []string{"alpha"}, []fit.Prior{{SD: 1}}, &fit.Design{Columns: []string{"1"}, X: [][]float64{{1}}}, nil)
			return err
		}, Msg: "subject 1: the first-level posterior is not a positive definite Gaussian"},
		{Name: "PEB with a Σ form out of range", Call: func() error {
			_, err := fit.PEB(nil, []string{"alpha"}, []fit.Prior{{SD: 1}}, &fit.Design{}, &fit.PEBSettings{Cov: 7})
			return err
		}, Msg: "Cov 7, want DiagonalCov or FullCov"},
		{Name: "GroupPosteriors of a fit without Laplace", Call: func() error {
			_, err := fit.GroupPosteriors([]*fit.Result{{Subject: "s1", Reason: "not converged"}})
			return err
		}, Msg: `subject "s1": the group level needs every subject's Laplace posterior: not converged`},
		{Name: "ParseDraw of no distribution", Call: func() error { _, err := fit.ParseDraw("alpha", ps); return err }},
		{Name: "ParseDraw of an unknown parameter", Call: func() error { _, err := fit.ParseDraw("zeta=normal:0,1", ps); return err }, Msg: "zeta"},
		{Name: "ParseFormula of nothing", Call: func() error { _, err := fit.ParseFormula(""); return err }},
		{Name: "ReadCovariates of no header", Call: func() error { _, err := fit.ReadCovariates(strings.NewReader(""), "c.csv"); return err }},
		{Name: "ReadParamsTable of no rows", Call: func() error { _, err := fit.ReadParamsTable("", "p.csv", ps); return err }},
		{Name: "Settings.Free of an unknown parameter", Call: validate(fit.Settings{Free: []string{"zeta"}}), Prefix: "Settings.Free: ", Msg: "zeta"},
		{Name: "Settings.Free twice", Call: validate(fit.Settings{Free: []string{"alpha", "alpha"}}), Msg: "Settings.Free: alpha given twice"},
	})
}

// TestErrorReturns holds the exported functions and methods of fit to the
// rule of docs/reliability.md ("Error messages") in the source: every
// error they return is nil, a literal starting with "fit: ", or passes
// through apiError, apiResult or inContext, which put the prefix in front
// once.
func TestErrorReturns(t *testing.T) {
	misusetest.Returns(t, "fit: ", "apiError", "apiResult", "inContext")
}
