package fitcmd

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/internal/runplot"
)

// Plot is the figure of `fit --plot FILE`: the estimates of every subject
// kept as they are fitted, the group level's effects and the model
// comparison added when there are any.
type Plot struct {
	file    string
	results []*fit.Result
	cmp     *runplot.Comparison
}

// Register adds --plot to fs.
func (p *Plot) Register(fs *flag.FlagSet) {
	fs.StringVar(&p.file, "plot", "", "draw each free parameter's estimates with their 90% Laplace intervals per subject (with --group, the shrunk estimates and the group effects; with --compare, the model frequencies and exceedance probabilities) into this file: SVG, PDF or PNG by its ending")
}

// File returns the --plot file ("" without one).
func (p *Plot) File() string { return p.file }

// Check refuses a --plot file of an unknown ending or that cannot be
// created, before any work.
func (p *Plot) Check() error {
	if p.file == "" {
		return nil
	}
	if runplot.Format(p.file) == "" {
		return fmt.Errorf("--plot %s: unknown ending, want .svg, .pdf or .png", p.file)
	}
	if err := output.CheckCreatable(p.file); err != nil {
		return cannotCreate(p.file, err)
	}
	return nil
}

// Keep keeps a subject's result for the figure.
func (p *Plot) Keep(r *fit.Result) {
	if p.file != "" {
		p.results = append(p.results, r)
	}
}

// Compare adds a model comparison to the figure: the models' labels
// (their directories left out) and the BMS result.
func (p *Plot) Compare(labels []string, b *fit.BMSResult) {
	names := make([]string, len(labels))
	for i, l := range labels {
		file, rest, _ := strings.Cut(l, " ")
		if planner, f, ok := strings.Cut(l, ": "); ok && !strings.Contains(planner, " ") {
			file, rest, _ = strings.Cut(f, " ")
			file = planner + ": " + filepath.Base(file)
		} else {
			file = filepath.Base(file)
		}
		names[i] = strings.TrimSpace(file + " " + rest)
	}
	p.cmp = &runplot.Comparison{Models: names, Frequencies: b.Frequencies, Exceedance: b.Exceedance, ProtectedExceeds: b.ProtectedExceedance}
}

// Write draws the figure into the --plot file (nothing without one); g is
// the group level (nil or without a result: no group panel).
func (p *Plot) Write(g *Group) error {
	if p.file == "" || len(p.results) == 0 {
		return nil
	}
	var params []runplot.FitParam
	var peb *fit.PEBResult
	if g.On() {
		peb = g.Result()
	}
	for j, e := range p.results[0].Params {
		fp := runplot.FitParam{Name: e.Name, Scale: e.Scale}
		for i, r := range p.results {
			fp.Estimate = append(fp.Estimate, r.Params[j].Theta)
			fp.SD = append(fp.SD, r.Params[j].SDTheta)
			if peb != nil {
				fp.Shrunk = append(fp.Shrunk, peb.ThetaEB[i][j])
			}
		}
		params = append(params, fp)
	}
	var effects []runplot.Effect
	if peb != nil {
		for _, e := range peb.Effects {
			effects = append(effects, runplot.Effect{Parameter: e.Parameter, Covariate: e.Covariate, Mean: e.Mean, Lo: e.Lo, Hi: e.Hi})
		}
	}
	c, err := runplot.Fit(runplot.Format(p.file), params, effects, p.cmp)
	if err != nil {
		return fmt.Errorf("--plot %s: %w", p.file, err)
	}
	f, err := output.CreateFile(p.file)
	if err != nil {
		return cannotCreate(p.file, err)
	}
	defer f.Abort()
	if _, err := c.WriteTo(f); err != nil {
		return fmt.Errorf("--plot %s: %w", p.file, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("--plot %s: %w", p.file, err)
	}
	return nil
}

// cannotCreate words a fault of creating the --plot file, without the
// path twice.
func cannotCreate(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("--plot %s: cannot create: %v", path, err)
}
