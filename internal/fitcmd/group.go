package fitcmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/internal/output"
)

// Group is the group level of `fit --group`: its flags, the first-level
// results kept until every subject is fitted, and the PEB result.
type Group struct {
	on                 bool
	covariates, design string
	cov                fit.GroupCov
	formula            fit.Formula
	dm                 *fit.Design
	results            []*fit.Result
	peb                *fit.PEBResult
}

// Register adds --group, --covariates, --design and --group-cov to fs.
func (g *Group) Register(fs *flag.FlagSet) {
	fs.BoolVar(&g.on, "group", false, "fit a group level over the subjects' fits: parametric empirical Bayes, θ_i = X_i β + ε_i with ε_i ~ N(0, Σ) on the fitting scale (docs/fitting.md, \"Groups\"); adds \"peb\" to the group line and \"theta_eb\" (the shrunk estimates) to the subject lines of --json")
	fs.StringVar(&g.covariates, "covariates", "", "with --group: the subjects' covariates, a CSV file subject,NAME,... (numbers, or categories expanded to indicators with the first level in sorted order as reference)")
	fs.StringVar(&g.design, "design", "", "with --group: the design formula over the covariates' names, e.g. \"1 + group + age\" (1 the intercept, a*b = a + b + a:b, a:b the interaction; default 1 plus every covariate)")
	fs.TextVar(&g.cov, "group-cov", fit.DiagonalCov, "with --group: the between-subject covariance Σ, diag or full")
}

// On reports whether --group was given.
func (g *Group) On() bool { return g != nil && g.on }

// Check validates the group flags before any file is read; csv reports
// --csv. Errors are one line naming the flag.
func (g *Group) Check(csv bool) error {
	if !g.on {
		set := []string{}
		if g.covariates != "" {
			set = append(set, "--covariates")
		}
		if g.design != "" {
			set = append(set, "--design")
		}
		if g.cov != fit.DiagonalCov {
			set = append(set, "--group-cov")
		}
		if len(set) > 0 {
			return fmt.Errorf("%s: only with --group", strings.Join(set, " and "))
		}
		return nil
	}
	if csv {
		return errors.New("--group: its result is the group line of the text or --json output, not a CSV row (drop --csv)")
	}
	if g.design != "" {
		f, err := fit.ParseFormula(g.design)
		if err != nil {
			return fmt.Errorf("--%s", output.Reason(err))
		}
		g.formula = f
		if g.covariates == "" {
			for _, t := range f.Terms {
				if len(t) > 0 {
					return fmt.Errorf("--design %s: term %s needs --covariates", output.Shorten(g.design, 60), strings.Join(t, ":"))
				}
			}
		}
	}
	return nil
}

// Files returns the covariates file for the provenance line (flag, path),
// nothing without one.
func (g *Group) Files() [][2]string {
	if !g.On() || g.covariates == "" {
		return nil
	}
	return [][2]string{{"--covariates", g.covariates}}
}

// Prepare reads the covariates (read returns a file's bytes, its errors
// already worded) and builds the design for the subjects of recs in
// order; sharded reports a run split into shards (--shard, merge), which
// the group level refuses.
func (g *Group) Prepare(recs []behaviour.SubjectRecord, sharded bool, read func(flag, path string) ([]byte, error)) error {
	if !g.On() {
		return nil
	}
	if sharded {
		return errors.New("--group: not with --shard or merge (the group level needs every subject's fit in one run)")
	}
	subjects := make([]string, len(recs))
	for i := range recs {
		subjects[i] = recs[i].Subject
	}
	var cov *fit.Covariates
	if g.covariates != "" {
		raw, err := read("covariates", g.covariates)
		if err != nil {
			return err
		}
		if cov, err = fit.ReadCovariates(strings.NewReader(string(raw)), g.covariates); err != nil {
			return errors.New("--covariates " + output.Reason(err))
		}
	}
	if g.design == "" {
		g.formula = fit.DefaultFormula(cov)
	}
	dm, err := fit.NewDesign(g.formula, cov, subjects)
	if err != nil {
		msg := output.Reason(err)
		if strings.HasPrefix(msg, "design") {
			return errors.New("--" + msg)
		}
		return errors.New("--covariates " + msg)
	}
	g.dm = dm
	return nil
}

// Keep keeps a subject's first-level result for the group level.
func (g *Group) Keep(r *fit.Result) { g.results = append(g.results, r) }

// Finish fits the group level over the results kept, when fitted (not
// after an interruption), and writes each subject's line with line, in
// order. A fault of the data or of the group model (a subject without a
// Laplace posterior) is returned through bad (the caller's bad-input
// error) after the subjects' lines, which then have no shrunk estimates.
func (g *Group) Finish(fitted bool, free []string, line func(int, *fit.Result) error, bad func(error) error) error {
	if !g.On() {
		return nil
	}
	var fault error
	if fitted {
		fault = g.Fit(free)
	}
	for i, res := range g.results {
		if err := line(i, res); err != nil {
			return err
		}
	}
	if fault != nil {
		return bad(fault)
	}
	return nil
}

// Fit runs the group level over the results kept. An error is the data's
// (a subject without a Laplace posterior) or the group model's.
func (g *Group) Fit(free []string) error {
	if len(g.results) == 0 {
		return errors.New("--group: no subject was fitted")
	}
	post, err := fit.GroupPosteriors(g.results)
	if err != nil {
		return errors.New("--group: " + output.Reason(err))
	}
	priors := make([]fit.Prior, len(free))
	for p := range free {
		priors[p] = g.results[0].Params[p].Prior
	}
	res, err := fit.PEB(post, free, priors, g.dm, &fit.PEBSettings{Cov: g.cov})
	if err != nil {
		return errors.New("--group: " + output.Reason(err))
	}
	g.peb = res
	return nil
}

// Result returns the PEB result (nil before Fit).
func (g *Group) Result() *fit.PEBResult { return g.peb }

// ThetaEB returns subject i's shrunk estimates keyed by parameter, nil
// without a group result.
func (g *Group) ThetaEB(i int) *output.Ordered {
	if g.peb == nil || i >= len(g.peb.ThetaEB) {
		return nil
	}
	var o output.Ordered
	for p, name := range g.peb.Free {
		o.Add(name, output.Float(g.peb.ThetaEB[i][p]))
	}
	return &o
}

// EffectJSON is one effect of the group line's "peb".
type EffectJSON struct {
	Parameter string          `json:"parameter"`
	Covariate string          `json:"covariate"`
	Mean      output.Float    `json:"mean"`
	SD        output.Float    `json:"sd"`
	CI90      [2]output.Float `json:"ci90"`
	PNonzero  output.Float    `json:"p_nonzero"`
}

// PEBJSON is the "peb" object of the group line of fit --json --group.
type PEBJSON struct {
	Design      string           `json:"design"`
	Cov         string           `json:"cov"`
	Effects     []EffectJSON     `json:"effects"`
	Sigma       [][]output.Float `json:"sigma"`
	LogEvidence output.Float     `json:"log_evidence"`
	Converged   bool             `json:"converged"`
	Reason      string           `json:"reason,omitempty"`
}

// JSON returns the "peb" object, nil without a group result.
func (g *Group) JSON() *PEBJSON {
	if g.peb == nil {
		return nil
	}
	out := &PEBJSON{Design: g.formula.String(), Cov: g.cov.String(), LogEvidence: output.Float(g.peb.LogEvidence),
		Converged: g.peb.Converged, Reason: g.peb.Reason, Effects: []EffectJSON{}}
	for _, e := range g.peb.Effects {
		out.Effects = append(out.Effects, EffectJSON{Parameter: e.Parameter, Covariate: e.Covariate, Mean: output.Float(e.Mean),
			SD: output.Float(e.SD), CI90: [2]output.Float{output.Float(e.Lo), output.Float(e.Hi)}, PNonzero: output.Float(e.PNonzero)})
	}
	for _, row := range g.peb.Sigma {
		out.Sigma = append(out.Sigma, output.Floats(row))
	}
	return out
}

// WriteText writes the group level as a table: the effects, Σ, the log
// evidence beside the sum of the first-level ones, and each subject's
// first-level and shrunk estimates.
func (g *Group) WriteText(w io.Writer) error {
	r := g.peb
	if r == nil {
		return nil
	}
	first := 0.0
	for _, res := range g.results {
		first += res.LogEvidence
	}
	var b strings.Builder
	fmt.Fprintf(&b, "group level (parametric empirical Bayes, design %s, Σ %s): log evidence %.6f (first level with fixed priors: %.6f)\n",
		g.formula.String(), map[fit.GroupCov]string{fit.DiagonalCov: "diagonal", fit.FullCov: "full"}[g.cov], r.LogEvidence, first)
	if !r.Converged {
		fmt.Fprintf(&b, "  not converged: %s\n", r.Reason)
	}
	pw, cw := len("parameter"), len("covariate")
	for _, e := range r.Effects {
		pw, cw = max(pw, len(e.Parameter)), max(cw, len(e.Covariate))
	}
	fmt.Fprintf(&b, "  %-*s  %-*s  %10s  %9s  %23s  %9s\n", pw, "parameter", cw, "covariate", "mean", "sd", "90% interval", "P(≠ 0)")
	for _, e := range r.Effects {
		fmt.Fprintf(&b, "  %-*s  %-*s  %10.4f  %9.4f  %23s  %9.4f\n", pw, e.Parameter, cw, e.Covariate, e.Mean, e.SD,
			fmt.Sprintf("[%.4f, %.4f]", e.Lo, e.Hi), e.PNonzero)
	}
	fmt.Fprintf(&b, "  Σ (%s):", strings.Join(r.Free, ", "))
	for _, row := range r.Sigma {
		b.WriteString(" [")
		for j, v := range row {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%.4g", v)
		}
		b.WriteByte(']')
	}
	b.WriteString("; √Σ diagonal:")
	for p := range r.Free {
		fmt.Fprintf(&b, " %.4g", math.Sqrt(r.Sigma[p][p]))
	}
	b.WriteString("\n  subjects on the fitting scale, first level -> empirical Bayes:\n")
	for i, res := range g.results {
		fmt.Fprintf(&b, "    subject %s:", output.Quote(res.Subject))
		for p, e := range res.Params {
			fmt.Fprintf(&b, " %s %.4f -> %.4f", e.Name, e.Theta, r.ThetaEB[i][p])
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
