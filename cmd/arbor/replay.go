package main

import (
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

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
)

// replayRun is a replay of any planner (runReplay) once its flags are
// read: the agent's model, the recorded behaviour, how to make an
// agent.
type replayRun struct {
	m        *pomdp.Model
	data     string // --data
	subjects string // --subjects FILE ("" none)
	seed     uint64
	jobs     int
	spare    int // goroutines per decision (agent.SetJobs)
	asJSON   bool
	asCSV    bool
	beliefs  bool
	prov     output.Provenance
	newAg    func() (agent.Agent, error)
	carry    *behaviour.Carry // the extra columns of --data, kept in every step's output
}

// replaySubject is one subject's replay: its step records and its
// log-likelihood.
type replaySubject struct {
	rec    behaviour.SubjectRecord
	trials []*agent.ReplayTrial
	ll     float64
	n      int
}

// runReplay is `arbor X replay` for any planner: each subject's trials
// in order, every recorded action scored by the agent's choice
// distribution and taken.
func runReplay(c *plannerCmd, args []string, stdout io.Writer) error {
	command := c.p.Name + " replay"
	synopsis := verbSynopsis(c.p, agent.VerbReplay)
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	opts := c.p.Flags(fs, agent.VerbReplay)
	model := fs.String("model", "", "POMDP file (docs/formats.md): the agent's beliefs (required)")
	data := fs.String("data", "", "recorded behaviour, CSV or JSON lines (docs/behaviour.md): subject,trial,step,o_<modality>...,u_<factor>... (required)")
	subjects := fs.String("subjects", "", "also write the per-subject table (subject,log_likelihood,n_choices) as CSV to this file")
	seed := seedFlag(fs, c.p, "random seed: subject k's trial i draws each step's decision from agent.StepRand(seed, k-1, i-1, step), as run draws agent k's episode i")
	jobs := fs.Int("jobs", 1, "subjects replayed in parallel, and aci and btai score each decision on the goroutines the subjects leave (1..1024; the output is the same as with 1)")
	asJSON := fs.Bool("json", false, "a provenance line, one JSON object per step and one per subject (the only lines with log_likelihood)")
	asCSV := fs.Bool("csv", false, "one CSV row per step: the row's keys, p_action, log_p_action and the probability of every action")
	beliefs := fs.Bool("beliefs", false, "add the agent's belief Q(S_t) over each factor's states to every step")
	if done, err := parseVerb(fs, args, synopsis, refusals(c.p, agent.VerbReplay, opts), stdout); done || err != nil {
		return err
	}
	switch {
	case *model == "":
		return badInput("--model: missing (the agent's POMDP file)")
	case *data == "":
		return badInput("--data: missing (the recorded behaviour)")
	case *jobs < 1 || *jobs > 1024:
		return badInput("--jobs: %d, want 1..1024", *jobs)
	case *asJSON && *asCSV:
		return badInput("--json and --csv: give one")
	case *beliefs && !*asJSON && !*asCSV:
		return badInput("--beliefs: applies to --json and --csv (the human output has one line per subject)")
	}
	if err := opts.Check(); err != nil {
		return asInput(err)
	}
	if err := checkFiles(output.In("--model", *model), output.In("--data", *data), output.Out("--subjects", *subjects)); err != nil {
		return err
	}
	m, err := loadPOMDP(*model)
	if err != nil {
		return err
	}
	fac, err := opts.Factory(m, "--model "+*model)
	if err != nil {
		return asInput(err)
	}
	r := &replayRun{m: m, data: *data, subjects: *subjects, seed: *seed, jobs: agent.Workers(opts, m, *jobs), asJSON: *asJSON, asCSV: *asCSV, beliefs: *beliefs,
		newAg: func() (agent.Agent, error) { return fac.NewAgent(m, nil) }}
	if r.prov, err = provenance(command, fs, [2]string{"--model", *model}); err != nil {
		return err
	}
	return r.run(stdout)
}

// seedFlag registers --seed where planner p's agents draw random numbers
// in the verb (a tree search does; a planner that draws nothing but its
// choice has no use for a seed where choices are given), and returns its
// value (a fixed 1 without the flag: the streams are then unused).
func seedFlag(fs *flag.FlagSet, p *agent.Planner, usage string) *uint64 {
	if !p.Draws {
		one := uint64(1)
		return &one
	}
	return fs.Uint64("seed", 1, usage)
}

// refusals explains the flags a verb of planner p leaves out: the
// planner's own (agent.Refuser), and --seed where it draws nothing.
func refusals(p *agent.Planner, v agent.Verb, opts agent.Options) func(name string) string {
	own, _ := opts.(agent.Refuser)
	return func(name string) string {
		if own != nil {
			if why := own.Refused(name); why != "" {
				return why
			}
		}
		if name == "seed" && !p.Draws && v == agent.VerbReplay {
			return p.Name + " replay draws nothing (it takes the recorded choices, and carries a missed one forward under the agent's action distribution)"
		}
		return ""
	}
}

// run replays every subject of the data, in order: a fresh agent per
// subject, its trials in order (learning between them as run does), the
// recorded actions scored and taken instead of the agent's.
func (r *replayRun) run(stdout io.Writer) error {
	if r.subjects != "" {
		// Fail before any work when the table cannot be written.
		if err := checkOutputFile("--subjects", r.subjects, false); err != nil {
			return err
		}
	}
	// Every subject is read before the first is replayed: the file is
	// bounded by the input limit (ARBOR_MAX_INPUT).
	recs, file, err := readSubjects(r.data, r.m)
	if err != nil {
		return err
	}
	r.prov.Files = append(r.prov.Files, file)
	own := append(r.csvExtra(), "action_probs", "q_s")
	r.carry = behaviour.NewCarry(recs, func(c string) bool { return slices.Contains(own, c) })
	if shardJob != nil {
		return r.sharded(stdout, recs) // --shard, or arbor merge (shard.go)
	}
	// The table of --subjects is complete or absent: it replaces the file
	// when every subject has been replayed (an interrupt leaves the old
	// file).
	var table *csv.Writer
	var tf *output.AtomicFile
	if r.subjects != "" {
		if tf, err = output.CreateFile(r.subjects); err != nil {
			return cannotCreate("--subjects", r.subjects, err)
		}
		defer tf.Abort()
		table = csv.NewWriter(tf)
		if err := table.Write([]string{"subject", "log_likelihood", "n_choices"}); err != nil {
			return fmt.Errorf("--subjects %s: %w", r.subjects, err)
		}
	}
	ctx := commandContext()
	enc := json.NewEncoder(stdout)
	if r.asJSON {
		if err := enc.Encode(r.prov); err != nil {
			return err
		}
	}
	var csvw *behaviour.Writer
	if r.asCSV {
		if csvw, err = behaviour.NewWriter(stdout, r.m, &behaviour.WriterOptions{Extra: r.csvExtra()}); err != nil {
			return err
		}
	}
	total, choices, replayed := 0.0, 0, 0
	r.spare = agent.SpareJobs(r.jobs, len(recs)) // the jobs no subject uses go to each decision
	err = agent.RunOrdered(ctx, len(recs), 1, r.jobs, func(ctx context.Context, _, k int) (*replaySubject, error) {
		return r.subject(ctx, k, recs[k])
	}, func(k int, s *replaySubject) error {
		total += s.ll
		choices += s.n
		replayed++
		unitDone()
		if table != nil {
			if err := table.Write([]string{s.rec.Subject, csvFloat(s.ll), strconv.Itoa(s.n)}); err != nil {
				return fmt.Errorf("--subjects %s: %w", r.subjects, err)
			}
		}
		switch {
		case r.asJSON:
			return r.writeJSON(enc, s)
		case r.asCSV:
			return r.writeCSV(csvw, s)
		}
		fmt.Fprintf(stdout, "subject %s: log-likelihood %.6f over %d choices\n", output.Quote(s.rec.Subject), s.ll, s.n)
		return nil
	})
	var interrupted error
	if errors.Is(err, context.Canceled) {
		interrupted, err = context.Cause(ctx), nil
	}
	var ue *agent.UnitError
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if err != nil {
		return err
	}
	if csvw != nil {
		if err := csvw.Flush(); err != nil {
			return err
		}
	}
	if table != nil && interrupted == nil {
		table.Flush()
		if err := table.Error(); err != nil {
			return fmt.Errorf("--subjects %s: %w", r.subjects, err)
		}
		if err := tf.Commit(); err != nil {
			return fmt.Errorf("--subjects %s: %w", r.subjects, err)
		}
	}
	if !r.asJSON && !r.asCSV {
		// The subjects replayed: all of them, or those written before an
		// interrupt.
		fmt.Fprintf(stdout, "%d subjects: log-likelihood %.6f over %d choices\n", replayed, total, choices)
	}
	return interrupted
}

// csvExtra returns the extra columns of replay --csv: those of --data
// carried (none before they are known), then its own.
func (r *replayRun) csvExtra() []string {
	extra := []string{"p_action", "log_p_action"}
	if r.carry != nil {
		extra = append(slices.Clone(r.carry.Columns), extra...)
	}
	for u := range r.m.NumActions() {
		extra = append(extra, "p_"+r.m.ActionName(u))
	}
	if r.beliefs {
		extra = append(extra, output.BeliefColumns(r.m)...)
	}
	return extra
}

// subject replays subject k (from 0).
func (r *replayRun) subject(ctx context.Context, k int, rec behaviour.SubjectRecord) (*replaySubject, error) {
	ag, err := r.newAg()
	if err != nil {
		return nil, err
	}
	agent.SetJobs(ag, r.spare)
	s := &replaySubject{rec: rec}
	for i, tr := range rec.Trials {
		rt, err := agent.Replay(ctx, ag, tr.Obs, tr.Actions, &agent.EpisodeSettings{Seed: r.seed, Agent: k, Trial: i})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err() // stopped (an interrupt), not a fault of the data
			}
			if errors.Is(err, agent.ErrDeterministic) {
				return nil, badInput("the agent's choice rule is deterministic: it gives no probability to score a recorded choice with (use --action-select softmax or visits)")
			}
			var se *agent.StepError
			if errors.As(err, &se) && se.Step < len(tr.Lines) {
				return nil, badInput("--data %s:%d: subject %s, trial %d, step %d: %v", r.data, tr.Lines[se.Step], output.Quote(rec.Subject), tr.Trial, se.Step, se.Err)
			}
			return nil, fmt.Errorf("subject %s, trial %d: %w", output.Quote(rec.Subject), tr.Trial, err)
		}
		s.trials = append(s.trials, rt)
		s.ll += rt.LogLikelihood
		s.n += rt.Choices
	}
	return s, nil
}

func (r *replayRun) writeCSV(w *behaviour.Writer, s *replaySubject) error {
	for i, rt := range s.trials {
		tr := s.rec.Trials[i]
		for _, st := range rt.Steps {
			extra := append(r.carry.Values(nil, &s.rec, i, st.T), "", "")
			if st.Decision != nil {
				if !st.Missed {
					extra = append(extra[:len(extra)-2], csvFloat(st.PAction), csvFloat(math.Log(st.PAction)))
				}
				for _, p := range st.Decision.Probs {
					extra = append(extra, csvFloat(p))
				}
			} else {
				for range r.m.NumActions() {
					extra = append(extra, "")
				}
			}
			if r.beliefs {
				for _, q := range st.Belief {
					extra = append(extra, csvFloat(q))
				}
			}
			if err := w.WriteStep(s.rec.Subject, tr.Trial, st.T, st.Obs, st.Action, st.Missed, extra...); err != nil {
				return err
			}
		}
	}
	return nil
}

// replayStepJSON is one step line of replay --json.
type replayStepJSON struct {
	Subject     string         `json:"subject"`
	Trial       int            `json:"trial"`
	Step        int            `json:"step"`
	O           any            `json:"o"`
	U           any            `json:"u"`
	PAction     *output.Float  `json:"p_action,omitempty"`
	LogPAction  *output.Float  `json:"log_p_action,omitempty"`
	ActionProbs []output.Float `json:"action_probs,omitempty"`
	QS          any            `json:"q_s,omitempty"`
}

// replaySubjectJSON is the per-subject line of replay --json.
type replaySubjectJSON struct {
	Subject       string       `json:"subject"`
	LogLikelihood output.Float `json:"log_likelihood"`
	NChoices      int          `json:"n_choices"`
}

func (r *replayRun) writeJSON(enc *json.Encoder, s *replaySubject) error {
	for i, rt := range s.trials {
		tr := s.rec.Trials[i]
		for _, st := range rt.Steps {
			line := replayStepJSON{Subject: s.rec.Subject, Trial: tr.Trial, Step: st.T,
				O: output.ObsKeys(r.m, st.Obs), U: output.ActionKeys(r.m, st.Action, st.Missed, st.Decision == nil)}
			if st.Decision != nil {
				line.ActionProbs = output.Floats(st.Decision.Probs)
				if !st.Missed {
					p, lp := output.Float(st.PAction), output.Float(math.Log(st.PAction))
					line.PAction, line.LogPAction = &p, &lp
				}
			}
			if r.beliefs {
				line.QS = output.Belief(r.m, st.Belief)
			}
			if err := r.carry.Encode(enc, line, &s.rec, i, st.T); err != nil {
				return err
			}
		}
	}
	return enc.Encode(replaySubjectJSON{Subject: s.rec.Subject, LogLikelihood: output.Float(s.ll), NChoices: s.n})
}

// readSubjects reads every subject of the recorded-behaviour file path
// (--data) for model m, within the input limit (ARBOR_MAX_INPUT), and
// returns them with the file's provenance entry (its SHA-256). A fault of
// the file (one that cannot be opened, a fault of a line, no subject) is
// bad input naming --data.
func readSubjects(path string, m *pomdp.Model) ([]behaviour.SubjectRecord, output.File, error) {
	f, _, err := openFile("--data "+path, path)
	if err != nil {
		return nil, output.File{}, err
	}
	defer f.Close()
	limit, err := maxInput()
	if err != nil {
		return nil, output.File{}, err
	}
	var recs []behaviour.SubjectRecord
	sum := output.NewHash()
	br := behaviour.NewReader(io.TeeReader(f, sum), path, m, &behaviour.Options{MaxBytes: limit})
	for {
		rec, err := br.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, output.File{}, badInput("--data %s", output.Reason(err))
		}
		recs = append(recs, *rec)
	}
	if len(recs) == 0 {
		return nil, output.File{}, badInput("--data %s: no subjects (want the header and a row per step; docs/behaviour.md)", path)
	}
	return recs, output.File{Flag: "--data", Path: path, SHA256: sum.Sum()}, nil
}
