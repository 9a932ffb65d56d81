package fitcmd

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
)

// PPC is the posterior predictive check of `simulate --params FIT.csv
// --ppc DATA`: the behaviour simulated from each subject's fit beside the
// behaviour it was fitted to.
type PPC struct {
	observed string
	sim      []behaviour.SubjectRecord
}

// Keep keeps a simulated subject's record for the check (nothing without
// --ppc).
func (p *PPC) Keep(rec *behaviour.SubjectRecord) {
	if p.observed != "" {
		c := *rec
		c.Trials = slices.Clone(rec.Trials)
		p.sim = append(p.sim, c)
	}
}

// Register adds --ppc to fs.
func (p *PPC) Register(fs *flag.FlagSet) {
	fs.StringVar(&p.observed, "ppc", "", "posterior predictive check: with --params FIT.csv (the output of fit --csv) and -o, compare the simulated behaviour with this recorded behaviour, the data of the fit: choice rates by trial and step and by the outcome before each choice, and the log-likelihood of each under the fitted parameters")
}

// File returns the --ppc file ("" without one).
func (p *PPC) File() string { return p.observed }

// Check refuses --ppc without --params or -o (out and params are their
// values).
func (p *PPC) Check(out, params string) error {
	switch {
	case p.observed == "":
		return nil
	case params == "":
		return errors.New("--ppc: needs --params FILE, the fit's parameters of each subject (fit --csv)")
	case out == "":
		return errors.New("--ppc: needs -o FILE (the simulated behaviour it compares)")
	}
	return nil
}

// ppcSide is one side of the check: observed or simulated.
type ppcSide struct {
	LogLikelihood output.Float `json:"log_likelihood"`
	NChoices      int          `json:"n_choices"`
}

// ppcRate is a cell of choice rates, observed and simulated.
type ppcRate struct {
	Trial      int            `json:"trial,omitempty"`
	Step       int            `json:"step"`
	Modality   string         `json:"modality,omitempty"`
	Outcome    string         `json:"outcome,omitempty"`
	Observed   []output.Float `json:"observed"`
	Simulated  []output.Float `json:"simulated"`
	NObserved  int            `json:"n_observed"`
	NSimulated int            `json:"n_simulated"`
}

// ppcJSON is the line of --json.
type ppcJSON struct {
	Actions   []string  `json:"actions"`
	Observed  ppcSide   `json:"observed"`
	Simulated ppcSide   `json:"simulated"`
	Below     int       `json:"subjects_below"`
	Subjects  int       `json:"subjects"`
	ByTrial   []ppcRate `json:"by_trial"`
	ByOutcome []ppcRate `json:"by_outcome"`
}

// Report reads the recorded behaviour of --ppc (read gives a file's bytes,
// its errors worded), and with the simulated behaviour kept (Keep) scores
// each
// under its subject's parameters (subjects and values: the rows of
// --params; seed the decisions' seed) and writes the comparison to w, as
// text or one JSON line {"ppc": ...}. Faults of the files are bad input
// through bad.
func (p *PPC) Report(ctx context.Context, w io.Writer, asJSON bool, m *pomdp.Model, f agent.Factory, simFile string, subjects []string,
	values []map[string]float64, seed uint64, read func(flag, path string) ([]byte, error), bad func(error) error) error {
	if p.observed == "" {
		return nil
	}
	load := func(flagName, path string) ([]behaviour.SubjectRecord, error) {
		raw, err := read(strings.TrimLeft(flagName, "-"), path)
		if err != nil {
			return nil, err
		}
		recs, err := behaviour.Read(bytes.NewReader(raw), path, m)
		if err != nil {
			return nil, bad(fmt.Errorf("%s %s: %v", flagName, path, output.Reason(err)))
		}
		return recs, nil
	}
	obs, err := load("--ppc", p.observed)
	if err != nil {
		return err
	}
	sim := p.sim
	row := make(map[string]int, len(subjects))
	for i, s := range subjects {
		row[s] = i
	}
	out := ppcJSON{Subjects: len(obs)}
	for u := range m.NumActions() {
		out.Actions = append(out.Actions, m.ActionName(u))
	}
	score := func(recs []behaviour.SubjectRecord, side *ppcSide, lls []float64) error {
		for i := range recs {
			k, ok := row[recs[i].Subject]
			if !ok {
				return bad(fmt.Errorf("--ppc %s: subject %s has no row in --params", p.observed, output.Quote(recs[i].Subject)))
			}
			ll, n, _, err := fit.LogLikelihood(ctx, f, m, &recs[i], i, seed, values[k])
			if err != nil {
				return err
			}
			side.LogLikelihood += output.Float(ll)
			side.NChoices += n
			if lls != nil {
				lls[k] += ll
			}
		}
		return nil
	}
	obsLL, simLL := make([]float64, len(subjects)), make([]float64, len(subjects))
	if err := score(obs, &out.Observed, obsLL); err != nil {
		return err
	}
	if err := score(sim, &out.Simulated, simLL); err != nil {
		return err
	}
	for _, rec := range obs {
		if k := row[rec.Subject]; obsLL[k] < simLL[k] {
			out.Below++
		}
	}
	ot, oo := fit.ChoiceRates(m, obs)
	st, so := fit.ChoiceRates(m, sim)
	out.ByTrial = mergeRates(m, ot, st)
	out.ByOutcome = mergeRates(m, oo, so)
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]ppcJSON{"ppc": out})
	}
	return writePPC(w, &out, p.observed, simFile)
}

// mergeRates pairs the observed and simulated cells by trial, step,
// modality and outcome (a cell of one side only has zeros on the other).
func mergeRates(m *pomdp.Model, obs, sim []fit.ChoiceRate) []ppcRate {
	type key struct{ t, s, mod, o int }
	var keys []key
	cells := map[key]*ppcRate{}
	zero := output.Floats(make([]float64, m.NumActions()))
	get := func(r fit.ChoiceRate) *ppcRate {
		k := key{r.Trial, r.Step, r.Modality, r.Outcome}
		c, ok := cells[k]
		if !ok {
			c = &ppcRate{Trial: r.Trial, Step: r.Step, Observed: zero, Simulated: zero}
			if r.Modality >= 0 {
				c.Modality, c.Outcome = m.ModalityName(r.Modality), m.OutcomeName(r.Modality, r.Outcome)
			}
			cells[k] = c
			keys = append(keys, k)
		}
		return c
	}
	for _, r := range obs {
		c := get(r)
		c.Observed, c.NObserved = output.Floats(r.Rates), r.Choices
	}
	for _, r := range sim {
		c := get(r)
		c.Simulated, c.NSimulated = output.Floats(r.Rates), r.Choices
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.s, b.s), cmp.Compare(a.mod, b.mod), cmp.Compare(a.o, b.o))
	})
	out := make([]ppcRate, 0, len(keys))
	for _, k := range keys {
		out = append(out, *cells[k])
	}
	return out
}

func writePPC(w io.Writer, r *ppcJSON, observed, simulated string) error {
	var b strings.Builder
	perChoice := func(s ppcSide) float64 {
		if s.NChoices == 0 {
			return math.NaN()
		}
		return float64(s.LogLikelihood) / float64(s.NChoices)
	}
	fmt.Fprintf(&b, "posterior predictive check: %s (recorded) against %s (simulated from the fits)\n", observed, simulated)
	fmt.Fprintf(&b, "  log-likelihood under the fitted parameters: recorded %.4f over %d choices (%.4f per choice), simulated %.4f over %d choices (%.4f per choice); %d of %d subjects' recorded choices are less likely than their simulation's\n",
		float64(r.Observed.LogLikelihood), r.Observed.NChoices, perChoice(r.Observed), float64(r.Simulated.LogLikelihood), r.Simulated.NChoices, perChoice(r.Simulated), r.Below, r.Subjects)
	rates := func(v []output.Float) string {
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = fmt.Sprintf("%.3f", float64(x))
		}
		return strings.Join(parts, " ")
	}
	fmt.Fprintf(&b, "  choice rates by trial and step, recorded | simulated (%s):\n", strings.Join(r.Actions, ", "))
	for _, c := range r.ByTrial {
		fmt.Fprintf(&b, "    trial %d, step %d: %s | %s (%d | %d choices)\n", c.Trial, c.Step, rates(c.Observed), rates(c.Simulated), c.NObserved, c.NSimulated)
	}
	fmt.Fprintf(&b, "  choice rates by the outcome before the choice, every trial, recorded | simulated:\n")
	for _, c := range r.ByOutcome {
		fmt.Fprintf(&b, "    step %d, %s = %s: %s | %s (%d | %d choices)\n", c.Step, c.Modality, c.Outcome, rates(c.Observed), rates(c.Simulated), c.NObserved, c.NSimulated)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
