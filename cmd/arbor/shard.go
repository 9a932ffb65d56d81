package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/internal/shard"
)

// shardPlan is a sharded run (--shard, --out) or a merge of one (merge
// set): withShard sets shardJob for the command it runs.
type shardPlan struct {
	args   []string // arbor's arguments, the shard flags left out
	res    shard.Resolved
	dir    string
	resume bool
	merge  *shard.Set // merge: the shard files, opened
}

// shardJob is the plan of the running command, nil when it is not
// sharded (like cmdCtx, one command runs at a time).
var shardJob *shardPlan

// shardHelp is appended to the -h of the commands that shard.
const shardHelp = `sharded runs (docs/cluster.md):
  -shard k/n|auto
    	run only units k, k+n, k+2n, ... of the job (auto: from the array variables of Slurm, Kubernetes (with --shards), Grid Engine, AWS Batch or LSF); needs --out, and --json or --csv
  -shards n
    	the number of shards, for --shard auto where the scheduler does not give it
  -out DIR
    	write DIR/shard-k-of-n.jsonl (a manifest line, then the units' lines), renamed into place when complete; 'arbor merge DIR' prints the whole job's output
  -resume
    	do nothing when DIR already holds this shard's complete file for the same job (verified: its checksum, every unit); run it again otherwise
`

// shardFlags are the flags withShard takes out of a command's arguments.
type shardFlags struct {
	shard, shards, out string
	resume, given      bool
}

// cutShardFlags takes --shard, --shards, --out and --resume (with one or
// two dashes, the value after '=' or in the next argument) out of args,
// up to a "--".
func cutShardFlags(args []string) ([]string, shardFlags, error) {
	var f shardFlags
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || len(a)-len(strings.TrimLeft(a, "-")) > 2 {
			rest = append(rest, a)
			continue
		}
		switch name {
		case "shard", "shards", "out":
			if !hasVal {
				if i+1 >= len(args) {
					return nil, f, badInput("flag needs an argument: -%s", name)
				}
				i++
				val = args[i]
			}
			switch name {
			case "shard":
				f.shard = val
			case "shards":
				f.shards = val
			case "out":
				f.out = val
			}
		case "resume":
			b := true
			if hasVal {
				var err error
				if b, err = strconv.ParseBool(val); err != nil {
					return nil, f, badInput("invalid boolean value %q for -resume", val)
				}
			}
			f.resume = b
		default:
			rest = append(rest, a)
			continue
		}
		f.given = true
	}
	return rest, f, nil
}

// plan checks the shard flags and resolves the slice.
func (f *shardFlags) plan(getenv func(string) string) (*shardPlan, error) {
	switch {
	case f.shard == "":
		return nil, badInput("--out, --shards and --resume go with --shard k/n or --shard auto")
	case f.out == "":
		return nil, badInput("--shard %s needs --out DIR, the directory of the shard files", f.shard)
	}
	spec, err := shard.Parse(f.shard)
	if err != nil {
		return nil, badInput("%v", err)
	}
	n := 0
	if f.shards != "" {
		if n, err = strconv.Atoi(f.shards); err != nil || n < 1 {
			return nil, badInput("--shards %q: want a whole number >= 1", f.shards)
		}
	}
	res, err := shard.Resolve(spec, n, getenv)
	if err != nil {
		return nil, badInput("%v", err)
	}
	return &shardPlan{res: res, dir: f.out, resume: f.resume}, nil
}

// withShard gives the run, replay and fit subcommands of run (a planner's
// command) the shard flags.
func withShard(name string, run func(args []string, stdout io.Writer) error) func(args []string, stdout io.Writer) error {
	return func(args []string, stdout io.Writer) error {
		if len(args) == 0 || (args[0] != "run" && args[0] != "fit" && args[0] != "replay") {
			return run(args, stdout)
		}
		rest, f, err := cutShardFlags(args[1:])
		if err != nil {
			return inSubcommand(args[0], err)
		}
		sub := append([]string{args[0]}, rest...)
		for _, a := range rest {
			if a == "-h" || a == "--help" || a == "-help" {
				err := run(sub, stdout)
				fmt.Fprint(stdout, shardHelp)
				return err
			}
		}
		if !f.given {
			return run(args, stdout)
		}
		plan, err := f.plan(os.Getenv)
		if err != nil {
			return inSubcommand(args[0], err)
		}
		plan.args = append([]string{name}, sub...)
		shardJob = plan
		defer func() { shardJob = nil }()
		return run(sub, stdout)
	}
}

// file is the shard's file, DIR/shard-k-of-n.jsonl.
func (p *shardPlan) file() string { return filepath.Join(p.dir, shard.FileName(p.res.K, p.res.N)) }

// shardOut is a shard file being written.
type shardOut struct {
	w     *shard.Writer
	units []int
	buf   bytes.Buffer
	enc   *json.Encoder
}

// start starts the shard's file for a job of total units (what a unit is:
// unit) whose provenance line is prov; nil (and no error) when --resume
// finds the file complete. It prints what it resolved on stderr.
//
// head, for --csv, holds the lines the command prints before the first
// unit's (the header row): the file's lines are then JSON strings, each a
// row of the unit.
func (p *shardPlan) start(command string, prov output.Provenance, total int, unit string, head []string) (*shardOut, error) {
	job, err := json.Marshal(prov)
	if err != nil {
		return nil, err
	}
	k, n := p.res.K, p.res.N
	file := p.file()
	limit, err := maxInput()
	if err != nil {
		return nil, err
	}
	if p.resume {
		err := shard.CheckFile(p.dir, k, n, total, job, int(limit))
		if err == nil {
			fmt.Fprintf(stderrOut, "arbor %s: %s: %s is complete, skipped (--resume)\n", command, p.res, file)
			return nil, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stderrOut, "arbor %s: %s: %s does not verify, running it again (--resume): %s\n", command, p.res, file, output.Shorten(err.Error(), 300))
		}
	}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return nil, badInput("--out %s: %v", p.dir, err)
	}
	units := shard.Units(total, k, n)
	m := &shard.Manifest{Shard: k, Of: n, Units: total, Unit: unit, Job: job, Args: p.args, From: p.res.From}
	if head != nil {
		m.Lines, m.Head = "csv", head
	}
	w, err := shard.Create(p.dir, m)
	if err != nil {
		return nil, badInput("--out %s: %v", p.dir, err)
	}
	w.MaxLine = int(limit)
	fmt.Fprintf(stderrOut, "arbor %s: %s: %d of %d %ss -> %s\n", command, p.res, len(units), total, unit, file)
	o := &shardOut{w: w, units: units}
	o.enc = json.NewEncoder(&o.buf)
	return o, nil
}

// line writes v, encoded as the unsharded command encodes it, as a line
// of unit.
func (o *shardOut) line(unit int, v any) error {
	o.buf.Reset()
	if err := o.enc.Encode(v); err != nil {
		return err
	}
	return o.w.Line(unit, o.buf.Bytes())
}

// finish commits the file when err is nil, else discards it; an
// interruption returns its cause.
func (o *shardOut) finish(ctx context.Context, err error) error {
	if errors.Is(err, context.Canceled) {
		o.w.Abort()
		return context.Cause(ctx)
	}
	if err != nil {
		o.w.Abort()
		return err
	}
	return o.w.Commit()
}

// mergeTo writes the merge of the shards (p.merge) of a job of total
// units whose provenance line is prov, once every shard file has been
// verified (shard.Set.Verify) and the command has read the same files
// with the same settings as the shards: the CSV header or the provenance
// line, the lines in unit order, then, when sum is not nil, the summary
// line sum returns. check sees every line first, in unit order, while the
// files are verified: a fault of a line is found before anything is
// written.
func (p *shardPlan) mergeTo(w io.Writer, prov output.Provenance, total int, csv bool, check func(unit int, line []byte) error, sum func() any) error {
	set := p.merge
	job, err := json.Marshal(prov)
	if err != nil {
		return err
	}
	switch {
	case set.M.Units != total:
		return badInput("%s: the shards hold %d %ss, the command %d", set.Dir, set.M.Units, set.M.Unit, total)
	case csv != (set.M.Lines == "csv"):
		return badInput("%s: the shards hold lines of format %s, the command's are not", set.Dir, set.M.Lines)
	case !shard.SameJob(set.M.Job, job):
		return badInput("%s: the job's files or settings are not those of the shards now (%s); run merge where the shards ran, with their files", set.Dir, shard.JobDiff(set.M.Job, job))
	}
	if err := set.Verify(check); err != nil {
		return badInput("%v", err)
	}
	enc := json.NewEncoder(w)
	if csv {
		for _, h := range set.M.Head {
			if _, err := io.WriteString(w, h+"\n"); err != nil {
				return err
			}
		}
	} else if err := enc.Encode(prov); err != nil {
		return err
	}
	if err := set.WriteLines(w); err != nil {
		var fe *shard.FileError
		if errors.As(err, &fe) {
			return badInput("%v", err)
		}
		return err
	}
	if sum == nil {
		return nil
	}
	return enc.Encode(sum())
}

// sharded runs the slice of a run's units (--shard), or merges (merge).
// Units are the agents of a run with learning (--carry: an agent's
// episodes stay together), else the episodes, agent-major.
func (r *agentRun) sharded(stdout io.Writer) error {
	p := shardJob
	if !r.asJSON && !r.asCSV {
		return badInput("--shard writes the --json records or the --csv rows: give --json or --csv")
	}
	if r.plot != nil || r.dot != nil {
		return badInput("--shard: --plot and --dot draw the whole run; leave them out of a sharded run")
	}
	set := r.runs
	set.Agents, set.Trials = max(1, set.Agents), max(1, set.Trials)
	total, per, unitName := set.Agents*set.Trials, 1, "episode"
	if set.Carry {
		total, per, unitName = set.Agents, set.Trials, "agent"
	}
	if p.merge != nil && r.asCSV {
		return p.mergeTo(stdout, r.prov, total, true, nil, nil)
	}
	if p.merge != nil {
		var sum runSummary
		return p.mergeTo(stdout, r.prov, total, false, sum.add, func() any { return r.view.summary(r, &sum) })
	}
	var csvw *behaviour.Writer
	var rows bytes.Buffer
	var head []string
	if r.asCSV {
		var err error
		if csvw, err = behaviour.NewWriter(&rows, r.m, &behaviour.WriterOptions{Extra: r.csvExtra()}); err != nil {
			return err
		}
		if err := csvw.Flush(); err != nil {
			return err
		}
		head = shard.Lines(rows.Bytes())
	}
	out, err := p.start(r.command, r.prov, total, unitName, head)
	if out == nil || err != nil {
		return err
	}
	ctx := commandContext()
	unit := func(i int) agent.Unit {
		if per == 1 {
			x := out.units[i]
			return agent.Unit{Agent: x / set.Trials, Trial: x % set.Trials}
		}
		return agent.Unit{Agent: out.units[i/per], Trial: i % per}
	}
	workers := make([]agent.Agent, max(1, min(max(1, set.Workers), len(out.units))))
	err = agent.RunOrdered(ctx, len(out.units)*per, per, len(workers), func(ctx context.Context, w, i int) (*agent.Episode, error) {
		u := unit(i)
		if workers[w] == nil || (set.Carry && u.Trial == 0) {
			ag, err := r.newAg()
			if err != nil {
				return nil, err
			}
			workers[w] = ag
		}
		env, err := r.env(u)
		if err != nil {
			return nil, err
		}
		es := &agent.EpisodeSettings{MaxSteps: set.MaxSteps, Seed: set.Seed, Agent: u.Agent, Trial: u.Trial}
		if es.MaxSteps == 0 {
			es.MaxSteps = agent.DefaultMaxSteps
		}
		es.OnStep = func(st *agent.Step) error {
			if st.Decision != nil {
				r.prog.Step(st.Decision.Work)
			}
			return nil
		}
		return agent.RunEpisode(ctx, workers[w], env, es)
	}, func(i int, ep *agent.Episode) error {
		r.prog.Episode()
		u := unit(i)
		if csvw != nil {
			rows.Reset()
			if err := r.writeCSV(csvw, u, ep); err != nil {
				return err
			}
			if err := csvw.Flush(); err != nil {
				return err
			}
			return out.w.Rows(out.units[i/per], rows.Bytes())
		}
		return out.line(out.units[i/per], r.record(u, ep, r.positions(ep)))
	})
	var ue *agent.UnitError
	if errors.As(err, &ue) {
		u := unit(ue.Unit)
		err = fmt.Errorf("agent %d trial %d: %w", u.Agent+1, u.Trial+1, ue.Err)
	}
	return out.finish(ctx, err)
}

// add adds a record (a --json line of run) to the summary: the fields it
// sums read without decoding the record (shard.Fields).
func (sum *runSummary) add(_ int, line []byte) error {
	var solved bool
	var steps int
	var bad error
	err := shard.Fields(line, func(key, val []byte) {
		var err error
		switch string(key) {
		case "solved":
			solved = string(val) == "true"
		case "steps":
			steps, err = strconv.Atoi(string(val))
		case "planning_seconds", "reward", "seconds": // reward and seconds: a built-in world's (--env)
			var s float64
			s, err = strconv.ParseFloat(string(val), 64)
			switch string(key) {
			case "reward":
				sum.Reward += s
			case "seconds":
				sum.Seconds += s
			default:
				sum.PlanningSeconds += s
			}
		case "truncated_steps":
			if len(val) > 2 && val[0] == '[' {
				sum.Truncated += bytes.Count(val, []byte{','}) + 1
			}
		case "planning_iterations":
			var n int
			n, err = strconv.Atoi(string(val))
			sum.Work += n
		}
		if err != nil && bad == nil {
			bad = fmt.Errorf("%s: %v", key, err)
		}
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return err
	}
	sum.Episodes++
	sum.Actions += steps
	if solved {
		sum.Solved++
		sum.StepsSolved += steps
	}
	return nil
}

// sharded fits the slice of the subjects (--shard), or merges (merge).
// Units are the subjects in the order of --data.
func (r *fitRun) sharded(stdout io.Writer, recs []behaviour.SubjectRecord) error {
	p := shardJob
	switch {
	case !r.asJSON && !r.asCSV:
		return badInput("--shard writes the --json lines or the --csv rows: give --json or --csv")
	case len(r.compare) > 0:
		return badInput("--shard: --compare compares whole groups; give it to the merged outputs' fits, not to a shard")
	}
	if p.merge != nil {
		return r.merged(stdout, len(recs))
	}
	var rows bytes.Buffer
	cw := csv.NewWriter(&rows)
	var head []string
	if r.asCSV {
		cw.Write(r.csvHead())
		cw.Flush()
		head = shard.Lines(rows.Bytes())
	}
	out, err := p.start(r.command, r.prov, len(recs), "subject", head)
	if out == nil || err != nil {
		return err
	}
	ctx := commandContext()
	inner := r.set.PerSubject(len(out.units))
	err = agent.RunOrdered(ctx, len(out.units), 1, max(1, r.set.Jobs), func(ctx context.Context, _, i int) (*fit.Result, error) {
		return fit.Subject(ctx, r.fac, r.m, &recs[out.units[i]], out.units[i], inner)
	}, func(i int, res *fit.Result) error {
		if !r.asCSV {
			return out.line(out.units[i], fitRow(res))
		}
		rows.Reset()
		cw.Write(fitCSVRow(res))
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		return out.w.Rows(out.units[i], rows.Bytes())
	})
	var ue *agent.UnitError
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		out.w.Abort()
		return fitError(err, r.data, recs)
	}
	return out.finish(ctx, err)
}

// merged prints the merged rows of the shards in subject order and the
// group line of them.
func (r *fitRun) merged(stdout io.Writer, total int) error {
	if r.asCSV {
		return shardJob.mergeTo(stdout, r.prov, total, true, nil, nil)
	}
	var g fit.Group
	var row struct {
		LogLikelihood *float64 `json:"log_likelihood"`
		LogEvidence   *float64 `json:"log_evidence"`
		AIC           *float64 `json:"aic"`
		BIC           *float64 `json:"bic"`
		NChoices      int      `json:"n_choices"`
		Converged     bool     `json:"converged"`
	}
	num := func(p *float64) float64 {
		if p == nil {
			return math.NaN() // a non-finite number is written null
		}
		return *p
	}
	return shardJob.mergeTo(stdout, r.prov, total, false, func(unit int, line []byte) error {
		row.LogLikelihood, row.LogEvidence, row.AIC, row.BIC = nil, nil, nil, nil
		if err := json.Unmarshal(line, &row); err != nil {
			return fmt.Errorf("subject %d: %v", unit+1, err)
		}
		g.Add(&fit.Result{LogLikelihood: num(row.LogLikelihood), LogEvidence: num(row.LogEvidence), AIC: num(row.AIC), BIC: num(row.BIC),
			NChoices: row.NChoices, Converged: row.Converged})
		return nil
	}, func() any { return r.group(&g) })
}

// sharded replays the slice of the subjects (--shard), or merges
// (merge). Units are the subjects in the order of --data; a subject's
// lines (its steps, then its own line) stay together.
func (r *replayRun) sharded(stdout io.Writer, recs []behaviour.SubjectRecord) error {
	p := shardJob
	switch {
	case !r.asJSON && !r.asCSV:
		return badInput("--shard writes the --json lines or the --csv rows: give --json or --csv")
	case r.subjects != "":
		return badInput("--shard: --subjects writes the whole table; take it from the merged output's subject lines")
	}
	if p.merge != nil {
		return p.mergeTo(stdout, r.prov, len(recs), r.asCSV, nil, nil)
	}
	var buf bytes.Buffer
	var csvw *behaviour.Writer
	var head []string
	if r.asCSV {
		var err error
		if csvw, err = behaviour.NewWriter(&buf, r.m, &behaviour.WriterOptions{Extra: r.csvExtra()}); err != nil {
			return err
		}
		if err := csvw.Flush(); err != nil {
			return err
		}
		head = shard.Lines(buf.Bytes())
	}
	out, err := p.start(r.prov.Command, r.prov, len(recs), "subject", head)
	if out == nil || err != nil {
		return err
	}
	ctx := commandContext()
	enc := json.NewEncoder(&buf)
	err = agent.RunOrdered(ctx, len(out.units), 1, max(1, r.jobs), func(ctx context.Context, _, i int) (*replaySubject, error) {
		return r.subject(ctx, out.units[i], recs[out.units[i]])
	}, func(i int, s *replaySubject) error {
		buf.Reset()
		if csvw != nil {
			if err := r.writeCSV(csvw, s); err != nil {
				return err
			}
			if err := csvw.Flush(); err != nil {
				return err
			}
			return out.w.Rows(out.units[i], buf.Bytes())
		}
		if err := r.writeJSON(enc, s); err != nil {
			return err
		}
		for _, line := range bytes.SplitAfter(buf.Bytes(), []byte{'\n'}) {
			if len(line) == 0 {
				continue
			}
			if err := out.w.Line(out.units[i], line); err != nil {
				return err
			}
		}
		return nil
	})
	var ue *agent.UnitError
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return out.finish(ctx, err)
}

// runMerge is arbor merge DIR: the shard files of DIR checked and put
// together, printed as the unsharded command prints its --json output.
// It runs no command but the sharded verbs (a planner's run, replay or
// fit, and sweep), and the one its job names: a planner's verb with the
// flags of the manifest, which must parse to the job's settings before
// the verb reads a file; a sweep with the job's grid file.
func runMerge(args []string, stdout io.Writer) error {
	const synopsis = "arbor merge DIR   (the directory of a sharded run's shard-k-of-n.jsonl files; run it where the shards ran)"
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprintf(stdout, "usage: %s\n", synopsis)
		return nil
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return badInput("want one shard directory (usage: %s)", synopsis)
	}
	dir := args[0]
	limit, err := maxInput()
	if err != nil {
		return err
	}
	set, err := shard.Open(dir, int(limit))
	if err != nil {
		return badInput("%v", err)
	}
	defer set.Close()
	m := set.M
	shardJob = &shardPlan{merge: set}
	defer func() { shardJob = nil }()
	if m.Command() == "sweep" {
		files := m.Files()
		if len(files) == 0 || files[0].Flag != "GRID" || files[0].SHA256 == "" {
			return badInput("%s: the sweep's job names no grid file that was a regular file", dir)
		}
		return runSweep([]string{files[0].Path}, stdout)
	}
	var c *plannerCmd
	for _, pc := range plannerCmds() {
		if words := strings.Fields(m.Command()); len(words) == 2 && words[0] == pc.p.Name && (words[1] == "run" || words[1] == "replay" || words[1] == "fit") {
			c = pc
		}
	}
	if c == nil {
		return badInput("%s: the job's command %q is not one arbor shards (aci, btai or si with run, replay or fit; sweep)", dir, m.Command())
	}
	onParsed = func(fs *flag.FlagSet) (bool, error) {
		settings := map[string]string{}
		fs.VisitAll(func(f *flag.Flag) { settings[f.Name] = f.Value.String() })
		if d := shard.SettingsDiff(m.Job, fs.Name(), settings); d != "" {
			return false, badInput("%s: the manifest's args are not its job's (%s)", dir, d)
		}
		for _, name := range shard.OutputFlags {
			if f := fs.Lookup(name); f != nil && name != "json" && name != "csv" && f.Value.String() != f.DefValue {
				return false, badInput("%s: the job writes --%s; merge writes standard output only", dir, name)
			}
		}
		return false, nil
	}
	defer func() { onParsed = nil }()
	err = c.run(m.Args[1:], stdout)
	var se *subcommandError
	if errors.As(err, &se) {
		err = se.err
	}
	return err
}
