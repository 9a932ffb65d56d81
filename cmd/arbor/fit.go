package main

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/internal/fitcmd"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
)

// fitParamNames are the names of the fittable parameters of every agent.
var fitParamNames = []string{agent.ParamGamma, agent.ParamAlpha, agent.ParamEta, agent.ParamOmega, agent.ParamPref, agent.ParamConc}

// fitPriors are the values of --prior, in order (a repeatable flag).
type fitPriors []string

func (p *fitPriors) String() string {
	if p == nil {
		return ""
	}
	return strings.Join(*p, " ")
}

func (p *fitPriors) Set(s string) error {
	*p = append(*p, s)
	return nil
}

// fitFlags are the flags every fit command has.
type fitFlags struct {
	model, data, free *string
	priors            fitPriors
	restarts, jobs    *int
	seed              *uint64
	method            fit.Method
	asJSON, asCSV     *bool
	compare           *string
	group             fitcmd.Group
	plot              fitcmd.Plot
}

func (f *fitFlags) register(fs *flag.FlagSet) {
	f.model = fs.String("model", "", "POMDP file (docs/formats.md): the agent's beliefs (required)")
	f.data = fs.String("data", "", "recorded behaviour, CSV or JSON lines (docs/behaviour.md): subject,trial,step,o_<modality>...,u_<factor>... (required)")
	f.free = fs.String("free", "", "the parameters to fit, comma-separated, among those the agent has: gamma (policy precision; aci and si), alpha (action precision), eta (learning rate), omega (forgetting), pref (preference precision: multiplies ln C), conc (scale of the prior concentrations); the agent flags fix the others and give the free ones' prior means (required)")
	fs.Var(&f.priors, "prior", "Gaussian prior of a free parameter on its fitting scale (ln for gamma, alpha, eta, pref, conc; logit for omega): NAME=MEAN,SD (repeatable; default: mean at the agent flag's value, SD 0.25, SPM's variance 1/16)")
	f.restarts = fs.Int("restarts", fit.DefaultRestarts, "optimisations per subject, the best kept: the first from the prior means, the others from draws of the priors at twice their SD (1..1000)")
	fs.TextVar(&f.method, "method", fit.Auto, "optimiser: bfgs (quasi-Newton, then the Laplace approximation), nelder-mead (derivative-free) or auto (nelder-mead when a free parameter changes the agent's plan in steps, as btai's pref, conc, eta and omega; bfgs otherwise)")
	f.jobs = fs.Int("jobs", 1, "subjects fitted in parallel, and with fewer subjects than jobs a subject's restarts (1..1024; the output is the same as with 1)")
	f.seed = fs.Uint64("seed", 1, "random seed of the restarts and of the agents' decisions (subject k's trial i draws each step from agent.StepRand(seed, k-1, i-1, step), as run draws agent k's episode i)")
	f.asJSON = fs.Bool("json", false, "a provenance line, one JSON object per subject and a group summary line")
	f.asCSV = fs.Bool("csv", false, "one CSV row per subject: subject, each parameter and its SD, log_likelihood, log_evidence, aic, bic, n_choices, converged, reason")
	f.group.Register(fs)
	f.plot.Register(fs)
	f.compare = fs.String("compare", "", "compare this fit with the fits of other models or settings to the same subjects: comma-separated outputs of fit --json (random-effects Bayesian model selection over the subjects' log evidences: expected model frequencies, exceedance and protected exceedance probabilities)")
}

// check validates the flags that need neither the model nor the agent.
func (f *fitFlags) check() error {
	switch {
	case *f.model == "":
		return badInput("--model: missing (the agent's POMDP file)")
	case *f.data == "":
		return badInput("--data: missing (the recorded behaviour)")
	case *f.free == "":
		return badInput("--free: missing (the parameters to fit, e.g. --free alpha or --free alpha,gamma)")
	case *f.jobs < 1 || *f.jobs > 1024:
		return badInput("--jobs: %d, want 1..1024", *f.jobs)
	case *f.restarts < 1 || *f.restarts > fit.MaxRestarts:
		return badInput("--restarts: %d, want 1..%d", *f.restarts, fit.MaxRestarts)
	case *f.asJSON && *f.asCSV:
		return badInput("--json and --csv: give one")
	case *f.compare != "" && *f.asCSV:
		return badInput("--compare: its result is a line of the text or --json output, not a CSV row (drop --csv)")
	}
	return asInput(cmp.Or(f.group.Check(*f.asCSV), f.plot.Check()))
}

// settings builds the fit's settings for the agent's declared parameters
// ps, with errors that name the flag.
func (f *fitFlags) settings(agent string, ps []agent.Param) (*fit.Settings, error) {
	s := &fit.Settings{Restarts: *f.restarts, Seed: *f.seed, Method: f.method, Jobs: *f.jobs}
	has := make([]string, len(ps))
	for i, p := range ps {
		has[i] = p.Name
	}
	for _, name := range strings.Split(*f.free, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			return nil, badInput("--free %s: an empty name", shortArg(*f.free))
		case !slices.Contains(fitParamNames, name):
			return nil, badInput("--free: unknown parameter %q (want %s)", shortArg(name), strings.Join(fitParamNames, ", "))
		case !slices.Contains(has, name):
			return nil, badInput("--free: %s has no parameter %s with this model and these flags (it has %s)", agent, name, fitList(has))
		case slices.Contains(s.Free, name):
			return nil, badInput("--free: %s given twice", name)
		}
		s.Free = append(s.Free, name)
	}
	for _, raw := range f.priors {
		name, rest, ok := strings.Cut(raw, "=")
		name = strings.TrimSpace(name)
		meanText, sdText, ok2 := strings.Cut(rest, ",")
		if !ok || !ok2 {
			return nil, badInput("--prior %s: want NAME=MEAN,SD (e.g. alpha=0,1)", shortArg(raw))
		}
		if !slices.Contains(s.Free, name) {
			return nil, badInput("--prior %s: %s is not among --free %s", shortArg(raw), shortArg(name), shortArg(*f.free))
		}
		mean, err := strconv.ParseFloat(strings.TrimSpace(meanText), 64)
		if err != nil || math.IsNaN(mean) || math.IsInf(mean, 0) {
			return nil, badInput("--prior %s: mean %q, want a finite number (on the %s scale)", shortArg(raw), shortArg(meanText), fitScale(ps, name))
		}
		sd, err := strconv.ParseFloat(strings.TrimSpace(sdText), 64)
		if err != nil || !(sd > 0) || math.IsInf(sd, 0) {
			return nil, badInput("--prior %s: SD %q, want a finite number > 0", shortArg(raw), shortArg(sdText))
		}
		if err := (fit.Prior{Mean: mean, SD: sd}).Check(); err != nil {
			return nil, badInput("--prior %s: %v", shortArg(raw), err)
		}
		if s.Priors == nil {
			s.Priors = make(map[string]fit.Prior)
		}
		if _, dup := s.Priors[name]; dup {
			return nil, badInput("--prior: %s given twice", name)
		}
		s.Priors[name] = fit.Prior{Mean: mean, SD: sd}
	}
	if err := s.Validate(ps); err != nil {
		return nil, badInput("%s", output.Reason(err))
	}
	return s, nil
}

func fitScale(ps []agent.Param, name string) string {
	p, err := agent.FindParam(ps, name)
	if err != nil {
		return "natural"
	}
	return fit.ScaleName(p.Domain)
}

func fitList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// fitRun is a fit command once its flags are read.
type fitRun struct {
	command string // "aci fit"
	agent   string // "aci"
	m       *pomdp.Model
	fac     agent.Factory
	set     *fit.Settings
	data    string
	asJSON  bool
	asCSV   bool
	prov    output.Provenance
	compare []fitCompared
	peb     *fitcmd.Group
	plot    *fitcmd.Plot
}

// runFitVerb is `arbor X fit` for any planner: each subject's parameters
// estimated from its recorded behaviour (package fit), the planner's
// options checked against the model first.
func runFitVerb(c *plannerCmd, args []string, stdout io.Writer) error {
	command := c.p.Name + " fit"
	synopsis := verbSynopsis(c.p, agent.VerbFit)
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	opts := c.p.Flags(fs, agent.VerbFit)
	var ff fitFlags
	ff.register(fs)
	if done, err := parseVerb(fs, args, synopsis, refusals(c.p, agent.VerbFit, opts), stdout); done || err != nil {
		return err
	}
	if err := ff.check(); err != nil {
		return err
	}
	if err := opts.Check(); err != nil {
		return asInput(err)
	}
	named := []output.NamedFile{output.In("--model", *ff.model), output.In("--data", *ff.data), output.Out("--plot", ff.plot.File())}
	for _, path := range strings.Split(*ff.compare, ",") {
		named = append(named, output.In("--compare", path))
	}
	if err := checkFiles(named...); err != nil {
		return err
	}
	m, err := loadPOMDP(*ff.model)
	if err != nil {
		return err
	}
	fac, err := opts.Factory(m, "--model "+*ff.model)
	if err != nil {
		return asInput(err)
	}
	set, err := ff.settings(c.p.Name, fac.Params(m))
	if err != nil {
		return err
	}
	set.Jobs = agent.Workers(opts, m, set.Jobs)
	r := &fitRun{command: command, agent: c.p.Name, m: m, fac: fac, set: set, data: *ff.data, asJSON: *ff.asJSON, asCSV: *ff.asCSV, peb: &ff.group, plot: &ff.plot}
	files := append([][2]string{{"--model", *ff.model}}, ff.group.Files()...)
	if n := len(strings.Split(*ff.compare, ",")); *ff.compare != "" && n >= fit.MaxBMSModels {
		return badInput("--compare: %d files, at most %d (BMS compares at most %d models, this fit among them)", n, fit.MaxBMSModels-1, fit.MaxBMSModels)
	}
	if *ff.compare != "" {
		for _, path := range strings.Split(*ff.compare, ",") {
			fc, err := readFitOutput(path)
			if err != nil {
				return err
			}
			r.compare = append(r.compare, fc)
			files = append(files, [2]string{"--compare", path})
		}
	}
	if r.prov, err = provenance(command, fs, files...); err != nil {
		return err
	}
	r.prov.Record = "provenance"
	return r.run(stdout)
}

// fitRowJSON is the per-subject line of fit --json.
type fitRowJSON struct {
	Record        string           `json:"record"` // "subject"
	Subject       string           `json:"subject"`
	Params        output.Ordered   `json:"params"`
	SD            output.Ordered   `json:"sd"`
	Theta         output.Ordered   `json:"theta"`
	SDTheta       output.Ordered   `json:"sd_theta"`
	Scale         output.Ordered   `json:"scale"`
	Corr          [][]output.Float `json:"corr"`
	LogLikelihood output.Float     `json:"log_likelihood"`
	LogPrior      output.Float     `json:"log_prior"`
	LogEvidence   output.Float     `json:"log_evidence"`
	AIC           output.Float     `json:"aic"`
	BIC           output.Float     `json:"bic"`
	NChoices      int              `json:"n_choices"`
	Converged     bool             `json:"converged"`
	Reason        string           `json:"reason,omitempty"`
	Warning       string           `json:"warning,omitempty"`
	ZeroChoice    *fitZeroJSON     `json:"zero_choice,omitempty"`
	ThetaEB       *output.Ordered  `json:"theta_eb,omitempty"`
	Method        string           `json:"method"`
	Evaluations   int              `json:"evaluations"`
}

// fitZeroJSON locates a recorded choice of probability 0.
type fitZeroJSON struct {
	Trial int `json:"trial"`
	Step  int `json:"step"`
}

// fitGroupJSON is the last line of fit --json: the group's sums.
type fitGroupJSON struct {
	Record        string          `json:"record"` // "group"
	Group         string          `json:"group"`
	Subjects      int             `json:"subjects"`
	LogEvidence   output.Float    `json:"log_evidence"`
	LogLikelihood output.Float    `json:"log_likelihood"`
	AIC           output.Float    `json:"aic"`
	BIC           output.Float    `json:"bic"`
	NChoices      int             `json:"n_choices"`
	NotConverged  int             `json:"not_converged"`
	Free          []string        `json:"free"`
	PEB           *fitcmd.PEBJSON `json:"peb,omitempty"`
}

func (r *fitRun) run(stdout io.Writer) error {
	recs, file, err := readSubjects(r.data, r.m)
	if err != nil {
		return err
	}
	r.prov.Files = append(r.prov.Files, file)
	// A subject without choices is refused before any fit.
	for _, rec := range recs {
		n := 0
		for _, tr := range rec.Trials {
			for _, u := range tr.Actions {
				if u >= 0 {
					n++
				}
			}
		}
		if n == 0 {
			return badInput("--data %s: subject %s has no choices to fit (every response is missing)", r.data, output.Quote(rec.Subject))
		}
	}
	if err := r.peb.Prepare(recs, shardJob != nil, readInput); err != nil {
		return asInput(err)
	}
	if shardJob != nil {
		if r.plot.File() != "" { // a shard holds part of the subjects: the figure is the merge's
			return badInput("--plot %s: a shard fits part of the subjects; draw the figure from the merged fit (arbor merge, then fit's --plot on one run)", r.plot.File())
		}
		return r.sharded(stdout, recs) // --shard, or arbor merge (shard.go)
	}
	// Every --compare file holds the subjects of the data, checked before
	// the first fit.
	for _, c := range r.compare {
		for _, rec := range recs {
			if _, ok := c.evidence[rec.Subject]; !ok {
				return badInput("--compare %s: no line for subject %s of --data %s", c.path, output.Quote(rec.Subject), r.data)
			}
		}
		if len(c.evidence) != len(recs) {
			return badInput("--compare %s: %d subjects, --data %s has %d (the fits must be of the same subjects)", c.path, len(c.evidence), r.data, len(recs))
		}
	}
	ctx := commandContext()
	enc := json.NewEncoder(stdout)
	var cw *csv.Writer
	switch {
	case r.asJSON:
		if err := enc.Encode(r.prov); err != nil {
			return err
		}
	case r.asCSV:
		cw = csv.NewWriter(stdout)
		if err := cw.Write(r.csvHead()); err != nil {
			return err
		}
	}
	var g fit.Group
	var evidence []float64
	line := func(i int, res *fit.Result) error {
		switch {
		case r.asJSON:
			row := fitRow(res)
			row.ThetaEB = r.peb.ThetaEB(i)
			return enc.Encode(row)
		case r.asCSV:
			if err := cw.Write(fitCSVRow(res)); err != nil {
				return err
			}
			cw.Flush()
			return cw.Error()
		}
		_, err := fmt.Fprintln(stdout, fitText(res))
		return err
	}
	err = fit.Subjects(ctx, r.fac, r.m, recs, r.set, func(res *fit.Result) error {
		g.Add(res)
		evidence = append(evidence, res.LogEvidence)
		unitDone()
		r.plot.Keep(res)
		if r.peb.On() {
			r.peb.Keep(res)
			return nil
		}
		return line(len(evidence)-1, res)
	})
	var interrupted error
	if errors.Is(err, context.Canceled) {
		interrupted, err = context.Cause(ctx), nil
	}
	if err != nil {
		return fitError(err, r.data, recs)
	}
	if err := r.peb.Finish(interrupted == nil, r.set.Free, line, asInput); err != nil {
		return err
	}
	switch {
	case r.asJSON:
		if err := enc.Encode(r.group(&g)); err != nil {
			return err
		}
	case r.asCSV:
	default:
		fmt.Fprintf(stdout, "%d subjects: sum of log evidences %s, log-likelihood %s over %d choices, AIC %s, BIC %s; %d not converged\n",
			g.Subjects, fitNum(g.LogEvidence), fitNum(g.LogLikelihood), g.NChoices, fitNum(g.AIC), fitNum(g.BIC), g.NotConverged)
		if err := r.peb.WriteText(stdout); err != nil {
			return err
		}
	}
	if len(r.compare) > 0 && interrupted == nil {
		if err := r.compareModels(stdout, enc, recs, evidence); err != nil {
			return err
		}
	}
	if interrupted == nil {
		if err := r.plot.Write(r.peb); err != nil {
			return err
		}
	}
	return interrupted
}

// csvHead is the header row of fit --csv.
func (r *fitRun) csvHead() []string {
	head := []string{"subject"}
	for _, name := range r.set.Free {
		head = append(head, name, name+"_sd")
	}
	return append(head, "log_likelihood", "log_evidence", "aic", "bic", "n_choices", "converged", "reason")
}

// fitCSVRow is a subject's row of fit --csv.
func fitCSVRow(res *fit.Result) []string {
	row := []string{res.Subject}
	for _, e := range res.Params {
		row = append(row, csvFloat(e.Value), csvFloat(e.SD))
	}
	reason := res.Reason
	if reason == "" {
		reason = res.Warning
	}
	return append(row, csvFloat(res.LogLikelihood), csvFloat(res.LogEvidence), csvFloat(res.AIC), csvFloat(res.BIC),
		strconv.Itoa(res.NChoices), strconv.FormatBool(res.Converged), reason)
}

// group is the last line of fit --json.
func (r *fitRun) group(g *fit.Group) fitGroupJSON {
	return fitGroupJSON{Record: "group", Group: r.agent, Subjects: g.Subjects, LogEvidence: output.Float(g.LogEvidence),
		LogLikelihood: output.Float(g.LogLikelihood), AIC: output.Float(g.AIC), BIC: output.Float(g.BIC),
		NChoices: g.NChoices, NotConverged: g.NotConverged, Free: r.set.Free, PEB: r.peb.JSON()}
}

// fitNum formats a number of the human output (NA when not finite).
func fitNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		if math.IsInf(v, -1) {
			return "-Inf"
		}
		return "NA"
	}
	return strconv.FormatFloat(v, 'f', 6, 64)
}

// fitText is a subject's line of the human output.
func fitText(res *fit.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "subject %s:", output.Quote(res.Subject))
	for i, e := range res.Params {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %s %.6g", e.Name, e.Value)
		if res.Laplace {
			fmt.Fprintf(&b, " (sd %.4g)", e.SD)
		}
	}
	fmt.Fprintf(&b, "; log-likelihood %s over %d choices, log evidence %s, AIC %s, BIC %s",
		fitNum(res.LogLikelihood), res.NChoices, fitNum(res.LogEvidence), fitNum(res.AIC), fitNum(res.BIC))
	if !res.Converged {
		fmt.Fprintf(&b, "; not converged: %s", res.Reason)
	}
	if res.Warning != "" {
		fmt.Fprintf(&b, "; %s", res.Warning)
	}
	return b.String()
}

func fitRow(res *fit.Result) fitRowJSON {
	row := fitRowJSON{Record: "subject", Subject: res.Subject, LogLikelihood: output.Float(res.LogLikelihood), LogPrior: output.Float(res.LogPrior),
		LogEvidence: output.Float(res.LogEvidence), AIC: output.Float(res.AIC), BIC: output.Float(res.BIC),
		NChoices: res.NChoices, Converged: res.Converged, Reason: res.Reason, Warning: res.Warning,
		Method: res.Method.String(), Evaluations: res.Evaluations}
	for _, e := range res.Params {
		row.Params.Add(e.Name, output.Float(e.Value))
		row.SD.Add(e.Name, output.Float(e.SD))
		row.Theta.Add(e.Name, output.Float(e.Theta))
		row.SDTheta.Add(e.Name, output.Float(e.SDTheta))
		row.Scale.Add(e.Name, e.Scale)
	}
	for _, c := range res.Corr {
		row.Corr = append(row.Corr, output.Floats(c))
	}
	if z := res.Zero; z != nil {
		row.ZeroChoice = &fitZeroJSON{Trial: z.TrialNumber, Step: z.Step}
	}
	return row
}

// fitError turns an error of the fits into the command's error: a fault of
// the data names the file, its line and the subject (exit 2).
func fitError(err error, data string, recs []behaviour.SubjectRecord) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return ue
	}
	var se *fit.SubjectError
	if !errors.As(err, &se) {
		return err
	}
	if errors.Is(se.Err, fit.ErrNoChoices) {
		return badInput("--data %s: subject %s has no choices to fit (every response is missing)", data, output.Quote(se.Subject))
	}
	if errors.Is(se.Err, agent.ErrDeterministic) {
		return badInput("the agent's choice rule is deterministic: it gives no probability to score a recorded choice with")
	}
	var st *agent.StepError
	if errors.As(se.Err, &st) && se.Index >= 0 && se.Index < len(recs) && se.Trial >= 0 && se.Trial < len(recs[se.Index].Trials) {
		tr := recs[se.Index].Trials[se.Trial]
		if st.Step < len(tr.Lines) {
			return badInput("--data %s:%d: subject %s, trial %d, step %d: %v", data, tr.Lines[st.Step], output.Quote(se.Subject), tr.Trial, st.Step, st.Err)
		}
	}
	return badInput("--data %s: subject %s: %v", data, output.Quote(se.Subject), se.Err)
}

// fitCompared is the output of another fit (--compare): its label and the
// log evidence of each subject by name.
type fitCompared struct {
	path, command string
	settings      map[string]string
	evidence      map[string]float64
}

// readFitOutput reads the output of fit --json at path.
func readFitOutput(path string) (fitCompared, error) {
	c := fitCompared{path: path, evidence: make(map[string]float64), settings: map[string]string{}}
	raw, err := readInput("compare", path)
	if err != nil {
		return c, err
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	for i, line := range lines {
		var v struct {
			Command     string          `json:"command"`
			Settings    map[string]any  `json:"settings"`
			Subject     *string         `json:"subject"`
			LogEvidence json.RawMessage `json:"log_evidence"`
			Reason      string          `json:"reason"`
			Group       *string         `json:"group"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return c, badInput("--compare %s:%d: not a line of fit --json: %v", path, i+1, err)
		}
		switch {
		case i == 0:
			if !strings.HasSuffix(v.Command, " fit") {
				return c, badInput("--compare %s:1: the provenance line of fit --json, want a command ending in \"fit\" (got %q)", path, shortArg(v.Command))
			}
			c.command = v.Command
			for k, x := range v.Settings {
				c.settings[k] = fmt.Sprint(x)
			}
		case v.Group != nil:
		case v.Subject != nil:
			if string(v.LogEvidence) == "null" || len(v.LogEvidence) == 0 {
				return c, badInput("--compare %s:%d: subject %s has no log evidence (%s)", path, i+1, shortArg(output.Quote(*v.Subject)), fitWhy(v.Reason))
			}
			x, err := strconv.ParseFloat(string(v.LogEvidence), 64)
			if err != nil {
				return c, badInput("--compare %s:%d: log_evidence %s, want a number", path, i+1, shortArg(string(v.LogEvidence)))
			}
			if _, dup := c.evidence[*v.Subject]; dup {
				return c, badInput("--compare %s:%d: subject %s twice", path, i+1, shortArg(output.Quote(*v.Subject)))
			}
			c.evidence[*v.Subject] = x
		default:
			return c, badInput("--compare %s:%d: neither a subject nor the group line of fit --json", path, i+1)
		}
	}
	if len(c.evidence) == 0 {
		return c, badInput("--compare %s: no subject lines (want the output of fit --json)", path)
	}
	return c, nil
}

func fitWhy(reason string) string {
	if reason == "" {
		return "no Laplace approximation"
	}
	return shortArg(reason)
}

// fitBMSJSON is the model-comparison line of fit --json --compare.
type fitBMSJSON struct {
	Record              string         `json:"record"` // "compare"
	Compare             []string       `json:"compare"`
	Subjects            int            `json:"subjects"`
	LogEvidence         []output.Float `json:"log_evidence"`
	Frequencies         []output.Float `json:"expected_frequencies"`
	Exceedance          []output.Float `json:"exceedance"`
	ProtectedExceedance []output.Float `json:"protected_exceedance"`
	BOR                 output.Float   `json:"bor"`
	ExceedanceMethod    string         `json:"exceedance_method"`
}

// compareModels runs random-effects Bayesian model selection over this
// fit (model 1) and those of --compare, on the subjects of this fit.
func (r *fitRun) compareModels(stdout io.Writer, enc *json.Encoder, recs []behaviour.SubjectRecord, evidence []float64) error {
	own, order := fitcmd.Settings(r.prov.Settings)
	cmds, sets, paths := []string{r.command}, []map[string]string{own}, []string{""}
	for _, c := range r.compare {
		cmds, sets, paths = append(cmds, c.command), append(sets, c.settings), append(paths, c.path)
	}
	labels := fitcmd.CompareLabels(cmds, sets, order, paths)
	lme := make([][]float64, len(recs))
	sums := make([]float64, len(labels))
	for i, rec := range recs {
		if math.IsNaN(evidence[i]) {
			return badInput("--compare: subject %s has no log evidence in this fit (no Laplace approximation: see its line)", output.Quote(rec.Subject))
		}
		lme[i] = []float64{evidence[i]}
		for _, c := range r.compare {
			lme[i] = append(lme[i], c.evidence[rec.Subject]) // every subject is there (run)
		}
		for k, x := range lme[i] {
			sums[k] += x
		}
	}
	b, err := fit.BMS(lme, nil)
	if err != nil {
		return badInput("--compare: %s", output.Reason(err))
	}
	r.plot.Compare(labels, b)
	if r.asJSON {
		return enc.Encode(fitBMSJSON{Record: "compare", Compare: labels, Subjects: len(recs), LogEvidence: output.Floats(sums),
			Frequencies: output.Floats(b.Frequencies), Exceedance: output.Floats(b.Exceedance),
			ProtectedExceedance: output.Floats(b.ProtectedExceedance), BOR: output.Float(b.BOR), ExceedanceMethod: b.ExceedanceMethod})
	}
	fmt.Fprintf(stdout, "random-effects model comparison over %d subjects (Bayesian omnibus risk %.4g):\n", len(recs), b.BOR)
	for k, l := range labels {
		fmt.Fprintf(stdout, "  model %d, %s: sum of log evidences %s, expected frequency %.4f, exceedance %.4f, protected exceedance %.4f\n",
			k+1, l, fitNum(sums[k]), b.Frequencies[k], b.Exceedance[k], b.ProtectedExceedance[k])
	}
	return nil
}
