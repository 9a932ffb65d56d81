package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/arbor-ai/arbor/internal/model"
	"github.com/arbor-ai/arbor/schedule"
)

func isInputError(err error) bool {
	var me *model.Error
	return errors.As(err, &me)
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
	m, _, err := loadModelArg("infer", fs, args, stdout, "arbor infer MODEL.json [--json]")
	if err != nil {
		return err
	}
	return inferModel(m, *asJSON, stdout)
}

// inferModel runs global VMP on a loaded model and prints the result. A
// fault of the model found while inferring (an invalid posterior, evidence
// of probability 0, a free energy that overflows) is bad input naming the
// file and the field (model.Model.RunError).
func inferModel(m *model.Model, asJSON bool, stdout io.Writer) error {
	res, err := schedule.Run(context.Background(), m.Graph, &m.Settings)
	if err != nil {
		return m.RunError(err)
	}
	out := m.Output(res)
	if asJSON {
		return json.NewEncoder(stdout).Encode(out)
	}
	status := "converged"
	if !res.Converged {
		status = "did not converge"
	}
	fmt.Fprintf(stdout, "%s: %s after %d sweeps, F = %.10g\n", m.Name, status, res.Iterations, res.Final())
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
