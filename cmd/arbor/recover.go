package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/internal/fitcmd"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/internal/runplot"
)

// recoverModel is one model of a recovery: it generates subjects, and
// every model fits them.
type recoverModel struct {
	name string // the file's base name
	path string
	sim  *simulation
	free []agent.Param // the free parameters as the model's agent declares them
}

// recoverSubject is one simulated subject and its fit by every model.
type recoverSubject struct {
	gen  int // the generating model
	sub  *simSubject
	fits []*fit.Result // one per model
}

// paramStats is the recovery of one parameter under its generating model.
type paramStats struct {
	Model    string         `json:"model"`
	Param    string         `json:"param"`
	Scale    string         `json:"scale"`
	N        int            `json:"n"`
	RTheta   output.Float   `json:"r_fitting_scale"`
	R        output.Float   `json:"r"`
	BiasT    output.Float   `json:"bias_fitting_scale"`
	Bias     output.Float   `json:"bias"`
	RMSET    output.Float   `json:"rmse_fitting_scale"`
	RMSE     output.Float   `json:"rmse"`
	Laplace  int            `json:"n_laplace"`
	Coverage output.Float   `json:"coverage95"`
	PostCorr []output.Float `json:"posterior_correlation"` // mean over subjects of the Laplace correlation with each free parameter
}

// recoveryStats is the recovery (fit.ParamsRecovery) of every free
// parameter of model g from the subjects it generated, fitted by itself.
func recoveryStats(models []recoverModel, g int, subs []*recoverSubject) []paramStats {
	mod := models[g]
	var truth []map[string]float64
	var fits []*fit.Result
	for _, s := range subs {
		if s.gen == g {
			truth = append(truth, s.sub.values)
			fits = append(fits, s.fits[g])
		}
	}
	var out []paramStats
	for _, r := range fit.ParamsRecovery(mod.free, truth, fits) {
		out = append(out, paramStats{Model: mod.name, Param: r.Param.Name, Scale: fit.ScaleName(r.Param.Domain), N: r.Theta.N,
			RTheta: output.Float(r.Theta.R), R: output.Float(r.Value.R), BiasT: output.Float(r.Theta.Bias), Bias: output.Float(r.Value.Bias),
			RMSET: output.Float(r.Theta.RMSE), RMSE: output.Float(r.Value.RMSE), Laplace: r.Theta.Laplace, Coverage: output.Float(r.Theta.Coverage),
			PostCorr: output.Floats(r.PostCorr)})
	}
	return out
}

// confusion is the confusion matrix (fit.Confusion) of n models over subs,
// each fitted by every model.
func confusion(n int, subs []*recoverSubject) fit.ConfusionMatrix {
	gen := make([]int, len(subs))
	lme := make([][]float64, len(subs))
	for i, s := range subs {
		gen[i] = s.gen
		lme[i] = make([]float64, len(s.fits))
		for h, r := range s.fits {
			lme[i][h] = r.LogEvidence
		}
	}
	return fit.Confusion(n, gen, lme)
}

// parsePriors reads --prior NAME=MEAN,SD (on the fitting scale).
func parsePriors(list []string) (map[string]fit.Prior, error) {
	out := map[string]fit.Prior{}
	for _, s := range list {
		name, spec, ok := strings.Cut(s, "=")
		ms, sds, ok2 := strings.Cut(spec, ",")
		if !ok || !ok2 {
			return nil, badInput("--prior %q: want NAME=MEAN,SD on the fitting scale (e.g. alpha=0,0.5: ln α ~ N(0, 0.5²))", s)
		}
		mean, err1 := strconv.ParseFloat(strings.TrimSpace(ms), 64)
		sd, err2 := strconv.ParseFloat(strings.TrimSpace(sds), 64)
		switch {
		case err1 != nil || math.IsNaN(mean) || math.IsInf(mean, 0):
			return nil, badInput("--prior %s: mean %q, want a finite number", s, ms)
		case err2 != nil || !(sd > 0) || math.IsInf(sd, 0):
			return nil, badInput("--prior %s: SD %q, want finite > 0", s, sds)
		}
		if err := (fit.Prior{Mean: mean, SD: sd}).Check(); err != nil {
			return nil, badInput("--prior %s: %v", s, err)
		}
		name = strings.TrimSpace(name)
		if _, dup := out[name]; dup {
			return nil, badInput("--prior %s: %s given twice", s, name)
		}
		out[name] = fit.Prior{Mean: mean, SD: sd}
	}
	return out, nil
}

// runRecover is `arbor X recover` for any planner: it simulates subjects with known parameters, fits them back
// and reports how well the parameters (and, with several models, the
// models) are recovered.
func runRecover(c *plannerCmd, args []string, stdout io.Writer) error {
	command := c.p.Name + " recover"
	synopsis := verbSynopsis(c.p, agent.VerbRecover)
	fset := flag.NewFlagSet(command, flag.ContinueOnError)
	opts := c.p.Flags(fset, agent.VerbRecover)
	var sf simFlags
	sf.register(fset)
	fset.Lookup("jobs").Usage = "subjects simulated, then fits, run in parallel (1..1024; the output is the same as with 1)"
	modelsFlag := fset.String("models", "", "several POMDP files, comma-separated: each generates --subjects subjects and every one fits them all (model recovery: a confusion matrix and BMS); instead of --model")
	freeFlag := fset.String("free", "", "the parameters to fit, comma-separated (required): gamma, alpha, eta, omega, pref, conc, as the agent has them")
	var priorFlags stringList
	fset.Var(&priorFlags, "prior", "a free parameter's Gaussian prior on the fitting scale, NAME=MEAN,SD (repeat for several); default: the --draw distribution where it is lognormal or logitnormal, else fit's default N(θ_0, 1/16)")
	restarts := fset.Int("restarts", fit.DefaultRestarts, "optimisations per subject and model, the best kept (1..100)")
	plotFile := fset.String("plot", "", "draw true against estimated values of each free parameter (fitting scale) and, with --models, the confusion matrix into this file: SVG, PDF or PNG by its ending")
	asJSON := fset.Bool("json", false, "a provenance line, one line per subject, one per parameter, the confusion and BMS lines with --models, and a summary line")
	asCSV := fset.Bool("csv", false, "one CSV row per subject, fitting model and free parameter: "+strings.Join(fitcmd.RecoveryColumns, ","))
	if done, err := parseVerb(fset, args, synopsis, refusals(c.p, agent.VerbRecover, opts), stdout); done || err != nil {
		return err
	} else if *asJSON && *asCSV {
		return badInput("--json and --csv: give one")
	}
	given := agent.Given(fset)
	var paths []string
	switch {
	case *modelsFlag != "" && *sf.model != "":
		return badInput("--model and --models: give one")
	case *modelsFlag != "":
		for _, p := range strings.Split(*modelsFlag, ",") {
			if p = strings.TrimSpace(p); p == "" {
				return badInput("--models %q: an empty file name", *modelsFlag)
			}
			paths = append(paths, p)
		}
		if len(paths) < 2 || len(paths) > fit.MaxBMSModels {
			return badInput("--models: %d files, want 2..%d (one model: --model)", len(paths), fit.MaxBMSModels)
		}
	case *sf.model == "":
		return badInput("--model: missing (the agents' POMDP file; --models for several)")
	default:
		paths = []string{*sf.model}
	}
	if *freeFlag == "" {
		return badInput("--free: missing (the parameters to fit, e.g. --free alpha,eta)")
	}
	free := strings.Split(*freeFlag, ",")
	for i := range free {
		free[i] = strings.TrimSpace(free[i])
	}
	if *restarts < 1 || *restarts > 100 {
		return badInput("--restarts: %d, want 1..100", *restarts)
	}
	if _, err := plotFormat(*plotFile); *plotFile != "" && err != nil {
		return err
	}
	named := []output.NamedFile{output.In("--process", *sf.process), output.In("--params", *sf.params), output.Out("--plot", *plotFile)}
	for _, p := range paths {
		named = append(named, output.In(modelsFlagName(len(paths)), p))
	}
	if err := checkFiles(named...); err != nil {
		return err
	}
	if *plotFile != "" {
		if err := checkOutputFile("--plot", *plotFile, false); err != nil {
			return err
		}
	}
	priors, err := parsePriors(priorFlags)
	if err != nil {
		return err
	}
	if err := opts.Check(); err != nil {
		return asInput(err)
	}
	models := make([]recoverModel, len(paths))
	names := map[string]bool{}
	for i, p := range paths {
		flagName := modelsFlagName(len(paths))
		sim, err := sf.simulationOf(p, flagName, plannerFactory(opts, flagName+" "+p), given)
		if err != nil {
			return err
		}
		name := filepath.Base(p)
		if names[name] {
			name = p
		}
		names[name] = true
		models[i] = recoverModel{name: name, path: p, sim: sim}
		ps := sim.factory.Params(sim.m)
		for _, n := range free {
			fp, err := agent.FindParam(ps, n)
			if err != nil {
				return badInput("--free %s: %s: %s", *freeFlag, p, output.Reason(err))
			}
			if slices.ContainsFunc(models[i].free, func(q agent.Param) bool { return q.Name == n }) {
				return badInput("--free %s: %s given twice", *freeFlag, n)
			}
			models[i].free = append(models[i].free, fp)
		}
		if i > 0 {
			// Every model fits every model's subjects: the data must
			// read the same under each.
			if _, err := loadWorld(p, models[0].sim.m); err != nil {
				return badInput("--models: %s and %s: %s", paths[0], p, strings.TrimPrefix(err.Error(), "--process "+p+": "))
			}
		}
	}
	// The priors: --prior, else the drawing distribution where it is
	// Gaussian on the fitting scale.
	for _, d := range models[0].sim.draws {
		if _, ok := priors[d.Param.Name]; ok || !slices.Contains(free, d.Param.Name) {
			continue
		}
		if (d.Kind == "lognormal" || d.Kind == "logitnormal") && d.B > 0 {
			pr := fit.Prior{Mean: d.A, SD: d.B}
			if err := pr.Check(); err != nil {
				return badInput("--draw %s: as the prior of the fit (no --prior %s given): %v", d.String(), d.Param.Name, err)
			}
			priors[d.Param.Name] = pr
		}
	}
	set := &fit.Settings{Free: free, Priors: priors, Restarts: *restarts, Seed: *sf.seed}
	for _, m := range models {
		if err := set.Validate(m.sim.factory.Params(m.sim.m)); err != nil {
			return badInput("%s", strings.NewReplacer("fit: Settings.Free: ", "--free: ", "fit: Settings.Priors", "--prior").Replace(err.Error()))
		}
	}
	files := [][2]string{{"--process", *sf.process}, {"--params", *sf.params}}
	for _, p := range paths {
		files = append(files, [2]string{"--model", p})
	}
	prov, err := provenance(command, fset, files...)
	if err != nil {
		return err
	}
	return recoverRun(stdout, models, set, agent.Workers(opts, models[0].sim.m, *sf.jobs), prov, *plotFile, *asJSON, *asCSV)
}

// modelsFlagName is the flag that named the models of a recovery of n
// models.
func modelsFlagName(n int) string {
	if n > 1 {
		return "--models"
	}
	return "--model"
}

// recoverLine is one subject of recover --json.
type recoverLine struct {
	Kind    string                  `json:"kind"`
	Model   string                  `json:"model"`
	Subject string                  `json:"subject"`
	True    map[string]output.Float `json:"true"`
	Fits    []recoverFit            `json:"fits"`
}

// recoverFit is one model's fit of a subject.
type recoverFit struct {
	Model         string                  `json:"model"`
	Params        map[string]output.Float `json:"params"`
	SD            map[string]output.Float `json:"sd"`
	LogLikelihood output.Float            `json:"log_likelihood"`
	LogEvidence   output.Float            `json:"log_evidence"`
	Converged     bool                    `json:"converged"`
	Reason        string                  `json:"reason,omitempty"`
}

// recoverRun simulates the subjects of every model, fits each by every
// model (in parallel over subjects and models, output in order) and
// writes the recovery.
func recoverRun(stdout io.Writer, models []recoverModel, set *fit.Settings, jobs int, prov output.Provenance, plotFile string, asJSON, asCSV bool) (err error) {
	ctx := commandContext()
	start := time.Now()
	enc := json.NewEncoder(stdout)
	var table *fitcmd.RecoveryCSV
	if asJSON {
		err = enc.Encode(prov)
	} else if asCSV {
		table, err = fitcmd.NewRecoveryCSV(stdout)
	}
	if err != nil {
		return err
	}
	// Simulation: every model's subjects, in order.
	var subs []*recoverSubject
	for g := range models {
		sim := *models[g].sim
		sim.jobs = jobs
		err := sim.run(ctx, func(_ int, s *simSubject) error {
			subs = append(subs, &recoverSubject{gen: g, sub: s, fits: make([]*fit.Result, len(models))})
			unitDone()
			return nil
		})
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return context.Cause(ctx)
			}
			return fmt.Errorf("simulating %s: %w", models[g].name, err)
		}
	}
	simSeconds := time.Since(start).Seconds()
	// Fitting: unit u is subject u / len(models) fitted by model u %
	// len(models).
	nm := len(models)
	// A subject's index within its generating model's data: the
	// position that seeds its decisions, as in the simulation.
	index := make([]int, len(subs))
	count := make([]int, nm)
	for i, s := range subs {
		index[i] = count[s.gen]
		count[s.gen]++
	}
	fitStart := time.Now()
	var finished []*recoverSubject
	err = agent.RunOrdered(ctx, len(subs)*nm, 1, jobs, func(ctx context.Context, _, u int) (*fit.Result, error) {
		s, h := subs[u/nm], u%nm
		return fit.Subject(ctx, agent.Scoring(models[h].sim.factory), models[h].sim.m, &s.sub.rec, index[u/nm], set)
	}, func(u int, r *fit.Result) error {
		s := subs[u/nm]
		s.fits[u%nm] = r
		if u%nm < nm-1 {
			return nil
		}
		finished = append(finished, s)
		unitDone()
		if asJSON {
			return enc.Encode(recoverRecord(models, s))
		} else if table != nil {
			return table.Subject(models[s.gen].name, s.sub.name, models[s.gen].free, s.sub.values, recoverNames(models), s.fits)
		}
		return nil
	})
	var ue *agent.UnitError
	if errors.As(err, &ue) {
		s, h := subs[ue.Unit/nm], ue.Unit%nm
		err = badInput("fitting subject %s of %s with %s: %s", s.sub.name, models[s.gen].name, models[h].path, output.Reason(ue.Err))
	}
	var interrupted error
	if errors.Is(err, context.Canceled) {
		interrupted, err = context.Cause(ctx), nil
	}
	if err != nil {
		return err
	}
	fitSeconds := time.Since(fitStart).Seconds()

	var stats [][]paramStats
	for g := range models {
		stats = append(stats, recoveryStats(models, g, finished))
	}
	var counts [][]int
	var undecided []int
	var bms []*fit.BMSResult
	if nm > 1 {
		c := confusion(nm, finished)
		counts, undecided = c.Counts, c.Undecided
		for g := range models {
			var r *fit.BMSResult
			if len(c.LME[g]) > 0 {
				r, _ = fit.BMS(c.LME[g], nil) // the rows are checked: finite or -Inf, one per model
			}
			bms = append(bms, r)
		}
	}
	if plotFile != "" && interrupted == nil {
		if err := recoverPlot(plotFile, models, finished, counts); err != nil {
			return err
		}
	}
	if asCSV {
		return interrupted
	} else if asJSON {
		for _, st := range stats {
			for i := range st {
				line := struct {
					Kind string `json:"kind"`
					*paramStats
				}{"param", &st[i]}
				if err := enc.Encode(line); err != nil {
					return err
				}
			}
		}
		if nm > 1 {
			names := recoverNames(models)
			if err := enc.Encode(map[string]any{"kind": "confusion", "models": names, "counts": counts, "undecided": undecided}); err != nil {
				return err
			}
			for g, r := range bms {
				line := output.Ordered{}
				line.Add("kind", "bms")
				line.Add("generated_by", models[g].name)
				line.Add("models", names)
				if r != nil {
					line.Add("subjects", len(r.Responsibilities))
					line.Add("alpha", output.Floats(r.Alpha))
					line.Add("frequencies", output.Floats(r.Frequencies))
					line.Add("exceedance", output.Floats(r.Exceedance))
					line.Add("exceedance_method", r.ExceedanceMethod)
					line.Add("bor", output.Float(r.BOR))
					line.Add("protected_exceedance", output.Floats(r.ProtectedExceedance))
				} else {
					line.Add("subjects", 0)
				}
				if err := enc.Encode(line); err != nil {
					return err
				}
			}
		}
		sum := output.Ordered{}
		sum.Add("kind", "summary")
		sum.Add("models", nm)
		sum.Add("subjects", len(finished))
		sum.Add("trials", models[0].sim.trials)
		sum.Add("free", set.Free)
		sum.Add("simulation_seconds", simSeconds)
		sum.Add("fit_seconds", fitSeconds)
		if err := enc.Encode(sum); err != nil {
			return err
		}
		return interrupted
	}
	recoverHuman(stdout, models, finished, stats, counts, undecided, bms, set, fitSeconds)
	return interrupted
}

// recoverNames returns the models' names.
func recoverNames(models []recoverModel) []string {
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = m.name
	}
	return names
}

// recoverRecord is the JSON line of a subject.
func recoverRecord(models []recoverModel, s *recoverSubject) *recoverLine {
	line := &recoverLine{Kind: "subject", Model: models[s.gen].name, Subject: s.sub.name, True: map[string]output.Float{}}
	for n, v := range s.sub.values {
		line.True[n] = output.Float(v)
	}
	for h, r := range s.fits {
		f := recoverFit{Model: models[h].name, Params: map[string]output.Float{}, SD: map[string]output.Float{},
			LogLikelihood: output.Float(r.LogLikelihood), LogEvidence: output.Float(r.LogEvidence), Converged: r.Converged, Reason: r.Reason}
		for _, e := range r.Params {
			f.Params[e.Name] = output.Float(e.Value)
			f.SD[e.Name] = output.Float(e.SD)
		}
		line.Fits = append(line.Fits, f)
	}
	return line
}

// recoverHuman is the human output: a table per generating model, and the
// confusion matrix and BMS with several models.
func recoverHuman(w io.Writer, models []recoverModel, subs []*recoverSubject, stats [][]paramStats, counts [][]int, undecided []int, bms []*fit.BMSResult, set *fit.Settings, fitSeconds float64) {
	f := func(v output.Float) string {
		x := float64(v)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "-"
		}
		return strconv.FormatFloat(x, 'f', 3, 64)
	}
	notConv := 0
	for _, s := range subs {
		for _, r := range s.fits {
			if !r.Converged {
				notConv++
			}
		}
	}
	fmt.Fprintf(w, "%d subjects fitted by %d model(s) in %.1f s (%d fits not converged); free %s\n",
		len(subs), len(models), fitSeconds, notConv, strings.Join(set.Free, ", "))
	for g, st := range stats {
		fmt.Fprintf(w, "parameter recovery, subjects of %s fitted by it (θ: the fitting scale)\n", models[g].name)
		fmt.Fprintf(w, "  %-6s %-6s %7s %7s %9s %9s %9s %9s %9s\n", "param", "scale", "r(θ)", "r", "bias(θ)", "bias", "RMSE(θ)", "RMSE", "cover95")
		for _, p := range st {
			fmt.Fprintf(w, "  %-6s %-6s %7s %7s %9s %9s %9s %9s %9s\n", p.Param, p.Scale, f(p.RTheta), f(p.R), f(p.BiasT), f(p.Bias), f(p.RMSET), f(p.RMSE), f(p.Coverage))
		}
		if len(st) > 1 {
			fmt.Fprintf(w, "  mean posterior correlation (Laplace, fitting scale)\n")
			for _, p := range st {
				cells := make([]string, len(p.PostCorr))
				for k, c := range p.PostCorr {
					cells[k] = fmt.Sprintf("%7s", f(c))
				}
				fmt.Fprintf(w, "    %-6s %s\n", p.Param, strings.Join(cells, " "))
			}
		}
	}
	if counts == nil {
		return
	}
	fmt.Fprintf(w, "model recovery: rows generated the subjects, columns won by log evidence\n")
	short := make([]string, len(models))
	width := len("undecided")
	for i, m := range models {
		short[i] = output.Cut(strings.TrimSuffix(m.name, ".json"), 24)
		width = max(width, utf8.RuneCountInString(short[i]))
	}
	cell := func(s string) string { return strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s))) + s }
	var b strings.Builder
	b.WriteString("  " + strings.Repeat(" ", width))
	for _, n := range short {
		b.WriteString(" " + cell(n))
	}
	fmt.Fprintf(w, "%s %s\n", b.String(), cell("undecided"))
	for g, row := range counts {
		b.Reset()
		b.WriteString("  " + strings.Repeat(" ", max(0, width-utf8.RuneCountInString(short[g]))) + short[g])
		for _, c := range row {
			b.WriteString(" " + cell(strconv.Itoa(c)))
		}
		fmt.Fprintf(w, "%s %s\n", b.String(), cell(strconv.Itoa(undecided[g])))
	}
	for g, r := range bms {
		if r == nil {
			continue
		}
		fmt.Fprintf(w, "BMS over the subjects of %s: frequencies %s, exceedance %s, protected %s, BOR %.3g\n",
			models[g].name, floatsText(r.Frequencies), floatsText(r.Exceedance), floatsText(r.ProtectedExceedance), r.BOR)
	}
}

func floatsText(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.FormatFloat(v, 'f', 3, 64)
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// recoverPlot draws the recovery figure (runplot.Recovery) into path:
// for each free parameter of the first model, the true against the
// estimated value on the fitting scale (subjects it generated and
// fitted), and with several models the confusion matrix.
func recoverPlot(path string, models []recoverModel, subs []*recoverSubject, counts [][]int) error {
	mod := models[0]
	params := make([]runplot.RecoveryParam, len(mod.free))
	for j, p := range mod.free {
		params[j] = runplot.RecoveryParam{Name: p.Name, Scale: fit.ScaleName(p.Domain)}
		for _, s := range subs {
			if s.gen != 0 {
				continue
			}
			truth := p.Default
			if v, ok := s.sub.values[p.Name]; ok {
				truth = v
			}
			params[j].True = append(params[j].True, p.Domain.Transform(truth))
			params[j].Estimated = append(params[j].Estimated, s.fits[0].Params[j].Theta)
			params[j].SD = append(params[j].SD, s.fits[0].Params[j].SDTheta)
		}
	}
	var names []string
	if counts != nil {
		for _, m := range models {
			names = append(names, strings.TrimSuffix(m.name, ".json"))
		}
	}
	format, err := plotFormat(path)
	if err != nil {
		return err
	}
	c, err := runplot.Recovery(format, params, names, counts)
	if c == nil || err != nil {
		return err
	}
	return writePlot(path, c)
}
