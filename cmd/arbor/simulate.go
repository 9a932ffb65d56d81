package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/internal/fitcmd"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// simSubject is one simulated subject: its name, true parameters and
// recorded behaviour.
type simSubject struct {
	name   string
	values map[string]float64
	rec    behaviour.SubjectRecord
}

// simulation is a group of simulated subjects: each an agent with its own
// parameters, running its trials in order (learning between them) in the
// world.
type simulation struct {
	m, world   *pomdp.Model
	factory    agent.Factory
	names      []string             // the parameters that vary (columns of the truth table), in declared order
	draws      []fit.Draw           // --draw, in declared order
	table      []map[string]float64 // --params: one row per subject
	tnames     []string             // --params: the subjects' names
	paramsFile string               // --params
	subjects   int
	trials     int
	steps      int
	seed       uint64
	jobs       int
	keep       func(*behaviour.SubjectRecord) // simulate --ppc: each subject simulated
}

// values returns subject k's parameters and name.
func (s *simulation) values(k int) (string, map[string]float64) {
	if s.table != nil {
		return s.tnames[k], s.table[k]
	}
	return strconv.Itoa(k + 1), fit.DrawParams(s.draws, s.seed, k)
}

// source names where the subjects' parameters come from in errors.
func (s *simulation) source() string {
	if s.table != nil {
		return "--params " + s.paramsFile
	}
	var specs []string
	for _, d := range s.draws {
		specs = append(specs, "--draw "+d.String())
	}
	return strings.Join(specs, " ")
}

// run simulates every subject, subjects in parallel (--jobs), and emits
// them in order. Subject k's trial i (from 0) draws its decisions from
// agent.StepRand(seed, k, i, t) and its world from agent.WorldRand(seed,
// k·trials + i), as `run --agents N --episodes T` does, so that a replay
// of the output (with --seed, for a planner whose decisions draw) repeats
// each decision.
func (s *simulation) run(ctx context.Context, emit func(k int, sub *simSubject) error) error {
	spare := agent.SpareJobs(s.jobs, s.subjects) // the jobs no subject uses go to each decision
	err := agent.RunOrdered(ctx, s.subjects, 1, s.jobs, func(ctx context.Context, _, k int) (*simSubject, error) {
		name, v := s.values(k)
		sub := &simSubject{name: name, values: v, rec: behaviour.SubjectRecord{Subject: name, ExtraColumns: output.StateColumns(s.world)}}
		ag, err := s.factory.NewAgent(s.m, v)
		if err != nil {
			// A draw the agent refuses (a lognormal far in its tail
			// rounds to 0 or +Inf): bad input, naming the subject.
			return nil, badInput("%s: subject %s: its parameters %v: %s", s.source(), name, v, trimLibPrefix(err))
		}
		agent.SetJobs(ag, spare)
		for i := range s.trials {
			env := pomdp.NewProcess(s.world, agent.WorldRand(s.seed, k*s.trials+i))
			ep, err := agent.RunEpisode(ctx, ag, env, &agent.EpisodeSettings{MaxSteps: s.steps, Seed: s.seed, Agent: k, Trial: i})
			if err != nil {
				return nil, fmt.Errorf("subject %s trial %d: %w", name, i+1, err)
			}
			obs := ep.Observations()
			// The trial's true initial state (s_<factor>) on each of its rows.
			truth := slices.Repeat([][]string{output.StateTexts(s.world, ep.TrueState)}, len(obs))
			sub.rec.Trials = append(sub.rec.Trials, behaviour.TrialRecord{Trial: i + 1, Obs: obs, Actions: ep.Actions(), Extra: truth})
		}
		return sub, nil
	}, emit)
	var ue *agent.UnitError
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// trimLibPrefix returns err's message without the planner's prefix
// (output.Reason) and then the "agent: " or "pomdp: " that starts the
// errors of those packages (a factory's NewAgent passes both up: a
// parameter refused, a model that cannot be scaled).
func trimLibPrefix(err error) string {
	msg := output.Reason(err)
	for _, p := range []string{"agent: ", "pomdp: "} {
		if rest, ok := strings.CutPrefix(msg, p); ok {
			return rest
		}
	}
	return msg
}

// readParamsTable reads --params FILE (fit.ReadParamsTable: a table of
// true parameters, or the output of fit --csv); with posterior, each
// subject's values are drawn from its Laplace posterior (--draw-posterior).
func readParamsTable(path string, ps []agent.Param, posterior bool, seed uint64) (names []string, subjects []string, rows []map[string]float64, err error) {
	data, err := readInput("params", path)
	if err != nil {
		return nil, nil, nil, err
	}
	t, err := fit.ReadParamsTable(string(data), path, ps)
	for k := 0; err == nil && posterior && k < len(t.Values); k++ {
		t.Values[k], err = t.DrawPosterior(ps, seed, k)
	}
	if err != nil {
		return nil, nil, nil, badInput("--params %s", output.Reason(err))
	}
	return t.Names, t.Subjects, t.Values, nil
}

// simFlags are the flags that say what to simulate, shared by simulate
// and recover.
type simFlags struct {
	model, process, params *string
	drawPosterior          *bool
	draws                  stringList
	subjects, trials       *int
	steps                  *int
	seed                   *uint64
	jobs                   *int
}

func (f *simFlags) register(fs *flag.FlagSet) {
	f.model = fs.String("model", "", "POMDP file (docs/formats.md): the agents' beliefs, and the world unless --process gives another (required)")
	f.process = fs.String("process", "", "POMDP file used as the world, with the actions and observations of --model")
	f.params = fs.String("params", "", "CSV of each subject's true parameters: subject,NAME... (instead of --draw and --subjects); the output of fit --csv as it is (its _sd and statistics columns ignored)")
	f.drawPosterior = fs.Bool("draw-posterior", false, "with --params FILE from fit --csv: draw each subject's values from its Laplace posterior (each parameter independently on its fitting scale, from the subject's stream of --draw)")
	fs.Var(&f.draws, "draw", "a parameter's distribution over subjects, NAME=DIST (repeat for several): "+fit.DrawSyntax+"; the other parameters keep the values of the agent flags")
	f.subjects = fs.Int("subjects", 20, "subjects simulated (1..100000), each an agent with its own parameters")
	f.trials = fs.Int("trials", 10, "trials per subject (1..100000), run in order: a model with concentrations a, b, d learns between them")
	f.steps = fs.Int("steps", 50, "maximum actions per trial (the world may end a trial earlier)")
	f.seed = fs.Uint64("seed", 1, "random seed: subject k's parameters, decisions (agent.StepRand(seed, k-1, trial-1, step), as run --agents) and world")
	f.jobs = fs.Int("jobs", runtime.GOMAXPROCS(0), "subjects simulated in parallel, and aci and btai plan each decision on the goroutines the subjects leave (1..1024; the output is the same as with 1)")
}

// simulation checks the flags and builds the simulation of factory's
// agents; given holds the flags set on the command line.
func (f *simFlags) simulation(factory func(m *pomdp.Model) (agent.Factory, error), given map[string]bool) (*simulation, error) {
	return f.simulationOf(*f.model, "--model", factory, given)
}

// simulationOf is simulation with the agents' model read from path (named
// by flagName in errors).
func (f *simFlags) simulationOf(path, flagName string, factory func(m *pomdp.Model) (agent.Factory, error), given map[string]bool) (*simulation, error) {
	switch {
	case path == "":
		return nil, badInput("--model: missing (the agents' POMDP file)")
	case *f.trials < 1 || *f.trials > 100_000:
		return nil, badInput("--trials: %d, want 1..100000", *f.trials)
	case *f.steps < 1 || *f.steps > 1_000_000:
		return nil, badInput("--steps: %d, want 1..1000000", *f.steps)
	case *f.jobs < 1 || *f.jobs > 1024:
		return nil, badInput("--jobs: %d, want 1..1024", *f.jobs)
	case *f.drawPosterior && *f.params == "":
		return nil, badInput("--draw-posterior: only with --params (the output of fit --csv)")
	case *f.params != "" && len(f.draws) > 0:
		return nil, badInput("--params and --draw: give one (the file holds every subject's values)")
	case *f.params != "" && given["subjects"]:
		return nil, badInput("--subjects: the subjects are the rows of --params %s", *f.params)
	case *f.params == "" && (*f.subjects < 1 || *f.subjects > 100_000):
		return nil, badInput("--subjects: %d, want 1..100000", *f.subjects)
	}
	m, err := loadPOMDP(path)
	if err != nil {
		if flagName != "--model" {
			return nil, badInput("%s", strings.Replace(err.Error(), "--model ", flagName+" ", 1))
		}
		return nil, err
	}
	world := m
	if *f.process != "" {
		if world, err = loadWorld(*f.process, m); err != nil {
			return nil, err
		}
	}
	fac, err := factory(m)
	if err != nil {
		return nil, err
	}
	ps := fac.Params(m)
	s := &simulation{m: m, world: world, factory: fac, subjects: *f.subjects, trials: *f.trials, steps: *f.steps, seed: *f.seed, jobs: *f.jobs}
	if *f.params != "" {
		s.paramsFile = *f.params
		if s.names, s.tnames, s.table, err = readParamsTable(*f.params, ps, *f.drawPosterior, *f.seed); err != nil {
			return nil, err
		}
		s.subjects = len(s.table)
	} else {
		if s.draws, err = fit.ParseDraws(f.draws, ps); err != nil {
			return nil, badInput("--draw %s", strings.TrimPrefix(output.Reason(err), "draw "))
		}
		for _, d := range s.draws {
			s.names = append(s.names, d.Param.Name)
		}
	}
	// One agent with the first subject's values: a fault of the options
	// is reported before any work, one of the values as theirs.
	name, v := s.values(0)
	if err := agent.CheckParams(ps, v, agent.ClosedLearning); err != nil {
		return nil, badInput("%s: subject %s: %s", s.source(), name, trimLibPrefix(err))
	}
	if _, err := fac.NewAgent(m, v); err != nil {
		return nil, badInput("%s %s: %v", flagName, path, err)
	}
	return s, nil
}

// writeTruth writes the true parameters of subjects as CSV: subject, then
// one column per parameter of names, in the shortest form that reads back
// the same number.
func writeTruth(w io.Writer, names []string, subjects []*simSubject) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{"subject"}, names...)); err != nil {
		return err
	}
	row := make([]string, 1+len(names))
	for _, s := range subjects {
		row[0] = s.name
		for j, n := range names {
			row[j+1] = strconv.FormatFloat(s.values[n], 'g', -1, 64)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// simulateWrite runs sim and writes the behaviour (to out, or stdout when
// out is "") and the truth table, both complete or absent: an interrupt
// writes the subjects finished before it to standard output, and no file.
func simulateWrite(stdout io.Writer, sim *simulation, prov output.Provenance, out, truth string, asJSON bool) error {
	for _, f := range [][2]string{{"-o", out}, {"--truth", truth}} {
		if f[1] != "" {
			if err := checkOutputFile(f[0], f[1], false); err != nil {
				return err
			}
		}
	}
	var bw io.Writer = stdout
	var bf *output.AtomicFile
	if out != "" {
		var err error
		if bf, err = output.CreateFile(out); err != nil {
			return cannotCreate("-o", out, err)
		}
		defer bf.Abort()
		bw = bf
	}
	tf, err := output.CreateFile(truth)
	if err != nil {
		return cannotCreate("--truth", truth, err)
	}
	defer tf.Abort()
	w, err := behaviour.NewWriter(bw, sim.m, &behaviour.WriterOptions{Extra: output.StateColumns(sim.world)})
	if err != nil {
		return err
	}
	start := time.Now()
	var done []*simSubject
	choices := 0
	ctx := commandContext()
	err = sim.run(ctx, func(_ int, sub *simSubject) error {
		done = append(done, &simSubject{name: sub.name, values: sub.values})
		for _, t := range sub.rec.Trials {
			choices += len(t.Actions)
		}
		unitDone()
		if sim.keep != nil {
			sim.keep(&sub.rec)
		}
		return w.WriteSubject(&sub.rec)
	})
	var interrupted error
	if errors.Is(err, context.Canceled) {
		interrupted, err = context.Cause(ctx), nil
	}
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if interrupted != nil {
		// Standard output has the subjects finished; neither file is
		// replaced (both complete or absent).
		return interrupted
	}
	if err := writeTruth(tf, sim.names, done); err != nil {
		return fmt.Errorf("--truth %s: %w", truth, err)
	}
	if bf != nil {
		if err := bf.Commit(); err != nil {
			return fmt.Errorf("-o %s: %w", out, err)
		}
	}
	if err := tf.Commit(); err != nil {
		return fmt.Errorf("--truth %s: %w", truth, err)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(prov); err != nil {
			return err
		}
		sum := output.Ordered{}
		sum.Add("subjects", len(done))
		sum.Add("trials", sim.trials)
		sum.Add("choices", choices)
		sum.Add("params", slices.Clone(sim.names))
		sum.Add("behaviour", out)
		sum.Add("truth", truth)
		sum.Add("seconds", time.Since(start).Seconds())
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else if out != "" {
		fmt.Fprintf(stdout, "%d subjects × %d trials (%d choices): behaviour %s, true parameters %s\n", len(done), sim.trials, choices, out, truth)
	}
	return interrupted
}

// runSimulate is `arbor X simulate` for any planner: subjects whose
// parameters are drawn (--draw) or given (--params), each an agent whose
// choices are drawn from its choice distribution, written as recorded
// behaviour, with the true parameters in --truth.
func runSimulate(c *plannerCmd, args []string, stdout io.Writer) error {
	command := c.p.Name + " simulate"
	synopsis := verbSynopsis(c.p, agent.VerbSimulate)
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	opts := c.p.Flags(fs, agent.VerbSimulate)
	var sf simFlags
	sf.register(fs)
	out := fs.String("o", "", "write the behaviour (CSV, docs/behaviour.md) to this file instead of standard output")
	truth := fs.String("truth", "", "write each subject's true parameters to this CSV file: subject, one column per drawn parameter (required)")
	asJSON := fs.Bool("json", false, "with -o: a provenance line and a summary line on standard output")
	var ppc fitcmd.PPC
	ppc.Register(fs)
	if done, err := parseVerb(fs, args, synopsis, refusals(c.p, agent.VerbSimulate, opts), stdout); done || err != nil {
		return err
	}
	switch {
	case *truth == "":
		return badInput("--truth: missing (the CSV file of each subject's true parameters)")
	case *asJSON && *out == "":
		return badInput("--json: needs -o FILE (standard output holds the behaviour otherwise)")
	case ppc.Check(*out, *sf.params) != nil:
		return asInput(ppc.Check(*out, *sf.params))
	}
	if err := opts.Check(); err != nil {
		return asInput(err)
	}
	if err := checkFiles(output.In("--model", *sf.model), output.In("--process", *sf.process), output.In("--params", *sf.params),
		output.Out("-o", *out), output.Out("--truth", *truth), output.In("--ppc", ppc.File())); err != nil {
		return err
	}
	sim, err := sf.simulation(plannerFactory(opts, "--model "+*sf.model), agent.Given(fs))
	if err != nil {
		return err
	}
	sim.jobs, sim.keep = agent.Workers(opts, sim.m, sim.jobs), ppc.Keep
	prov, err := provenance(command, fs, [2]string{"--model", *sf.model}, [2]string{"--process", *sf.process}, [2]string{"--params", *sf.params}, [2]string{"--ppc", ppc.File()})
	if err != nil {
		return err
	}
	if err := simulateWrite(stdout, sim, prov, *out, *truth, *asJSON); err != nil {
		return err
	}
	return ppc.Report(commandContext(), stdout, *asJSON, sim.m, sim.factory, *out, sim.tnames, sim.table, sim.seed, readInput, asInput)
}

// plannerFactory returns the factory of opts for a model read from
// source, its errors bad input.
func plannerFactory(opts agent.Options, source string) func(m *pomdp.Model) (agent.Factory, error) {
	return func(m *pomdp.Model) (agent.Factory, error) {
		fac, err := opts.Factory(m, source)
		return fac, asInput(err)
	}
}
