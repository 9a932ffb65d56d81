package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/model"
	"github.com/arbor-ai/arbor/schedule"
)

func isInputError(err error) bool {
	var me *model.Error
	var be *modelError
	return errors.As(err, &me) || errors.As(err, &be)
}

func loadModelArg(name string, fs *flag.FlagSet, args []string, stdout io.Writer, synopsis string) (*model.Model, string, error) {
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, synopsis))
		return nil, "", err
	}
	if err != nil {
		return nil, "", err
	}
	if len(pos) != 1 {
		return nil, "", badInput("want one MODEL file, got %d arguments (usage: %s)", len(pos), synopsis)
	}
	m, err := model.Load(pos[0])
	return m, pos[0], err
}

func runInfer(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("infer", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	m, path, err := loadModelArg("infer", fs, args, stdout, "arbor infer MODEL.json [--json]")
	if err != nil {
		return err
	}
	res, err := schedule.Run(context.Background(), m.Graph, &m.Settings)
	if err != nil {
		return inferError(m, path, err)
	}
	out := m.Output(res)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		return enc.Encode(out)
	}
	status := "converged"
	if !res.Converged {
		status = "did not converge"
	}
	fmt.Fprintf(stdout, "%s: %s after %d sweeps, F = %.10g\n", path, status, res.Iterations, res.Final())
	for _, inc := range res.Increases {
		fmt.Fprintf(stdout, "warning: F increased at sweep %d from %.10g to %.10g\n", inc.Sweep, inc.From, inc.To)
	}
	for _, v := range m.Variables {
		if v.Observed() {
			continue
		}
		p := out.Posteriors[v.Name()]
		switch {
		case p.P != nil:
			fmt.Fprintf(stdout, "  %-12s categorical  p = %s\n", v.Name(), fmtVec(p.P))
		case p.Alpha != nil:
			b, _ := json.Marshal(p.Alpha)
			fmt.Fprintf(stdout, "  %-12s dirichlet    alpha = %s\n", v.Name(), b)
		default:
			fmt.Fprintf(stdout, "  %-12s gamma        shape = %.6g, rate = %.6g\n", v.Name(), *p.Shape, *p.Rate)
		}
	}
	return nil
}

// inferError turns a failed run into an error naming the file. An update
// that produced an invalid posterior is a fault of the model (for instance
// evidence that the model gives probability zero), so it is bad input that
// names the variable.
func inferError(m *model.Model, path string, err error) error {
	var ne *ffg.NaNError
	if !errors.As(err, &ne) {
		return fmt.Errorf("%s: %w", path, err)
	}
	field := "variables"
	for i, v := range m.Variables {
		if strconv.Quote(v.Name()) == ne.Variable {
			field = fmt.Sprintf("variables[%d] (%s)", i, ne.Variable)
		}
	}
	return &model.Error{File: path, Field: field, Err: fmt.Errorf("inference produced an invalid posterior: %s", ne.Detail)}
}

func fmtVec(x []float64) string {
	s := "["
	for i, v := range x {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%.6g", v)
	}
	return s + "]"
}

func runDot(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("dot", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, `print {"dot": "..."} instead of the bare DOT text`)
	m, _, err := loadModelArg("dot", fs, args, stdout, "arbor dot MODEL.json [--json] > graph.dot")
	if err != nil {
		return err
	}
	if *asJSON {
		var b jsonBuffer
		if err := m.Graph.WriteDOT(&b); err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(map[string]string{"dot": b.String()})
	}
	return m.Graph.WriteDOT(stdout)
}

type jsonBuffer struct{ b []byte }

func (j *jsonBuffer) Write(p []byte) (int, error) { j.b = append(j.b, p...); return len(p), nil }
func (j *jsonBuffer) String() string              { return string(j.b) }
