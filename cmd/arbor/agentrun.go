package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
)

// agentRun is a run of any planner (runRun) once its flags are read: the
// agent's model, the world it acts in, how to make an agent, and how the
// planner's episodes are shown (its runView).
type agentRun struct {
	command  string        // "aci run"
	view     *runView      // how the planner's episodes are shown
	fs       *flag.FlagSet // the command's flags, which the view reads
	m        *pomdp.Model  // the agent's model (--model, or the maze's)
	world    *pomdp.Model  // the true process (--process, or --model); nil for a maze
	mz       *envs.Maze    // the maze (the world), or nil
	bw       *envs.World   // the built-in world (--env), or nil
	runs     agent.Runs    // agents, trials, workers, steps, seed, carry
	settings fmt.Stringer  // the planner's resolved settings (agent.Settler), or nil
	prov     output.Provenance
	asJSON   bool
	asCSV    bool
	plot     *runPlot         // --plot: nil when not asked (nothing is kept then)
	prog     *output.Progress // nil: no report
	newAg    func() (agent.Agent, error)
	dot      func(ctx context.Context, ag agent.Agent, d *agent.Decision) error // after the first decision of the first trial (--dot), or nil
	cost     func(d *agent.Decision) float64                                    // the planning cost of the action taken, for --plot
}

// runRecord is one trial of `aci run --json` and `btai run --json`. The
// fields are the same for every agent where the concept is shared;
// observations are indices (one list of outcome indices per step for a
// factorised model), one more than the actions (the first is before any
// action); action_probs holds the distribution each action was drawn from.
type runRecord struct {
	Agent            int              `json:"agent,omitempty"` // with --agents: the agent, from 1
	Episode          int              `json:"episode"`         // the agent's trial, from 1
	Solved           *bool            `json:"solved,omitempty"`
	Steps            int              `json:"steps"`
	Actions          []int            `json:"actions"`
	ActionNames      []string         `json:"action_names"`
	Observations     any              `json:"observations"`
	ObservationNames any              `json:"observation_names"`
	TrueState        any              `json:"true_state,omitempty"` // the world's initial state (a --model run)
	ActionProbs      [][]output.Float `json:"action_probs"`
	QS               []any            `json:"q_s"`
	Positions        [][2]int         `json:"positions,omitempty"`
	PlanningSeconds  float64          `json:"planning_seconds"`
	Policies         int              `json:"policies_per_step,omitempty"`
	GammaMean        []float64        `json:"gamma,omitempty"`
	PlanIterations   int              `json:"planning_iterations,omitempty"`
	SearchNodes      []int            `json:"search_nodes,omitempty"`    // si: the beliefs each search scored
	TruncatedSteps   []int            `json:"truncated_steps,omitempty"` // si: the steps whose search the node budget cut short
	Concentrations   any              `json:"concentrations,omitempty"`
	InitialState     any              `json:"initial_state,omitempty"` // --env: the world's initial state
	Reward           *float64         `json:"reward,omitempty"`
	Seconds          *float64         `json:"seconds,omitempty"` // --env: the trial's wall time
}

// runSummary is what the last line of a run summarises.
type runSummary struct {
	Episodes, Solved, StepsSolved, Actions int
	PlanningSeconds, Reward, Seconds       float64
	Truncated                              int // decisions whose plan a budget cut short
	Work                                   int // Decision.Work summed over the decisions
}

// positions returns the maze cells of an episode, from the start: the
// maze is deterministic, so a fresh copy walked along the actions visits
// them again.
func (r *agentRun) positions(ep *agent.Episode) [][2]int {
	if r.mz == nil {
		return nil
	}
	mz := r.mz.Clone()
	mz.Reset()
	row, col := mz.Position()
	out := [][2]int{{row, col}}
	for _, u := range ep.Actions() {
		if _, err := mz.Step(u); err != nil {
			break
		}
		row, col := mz.Position()
		out = append(out, [2]int{row, col})
	}
	return out
}

// env returns the world of unit u: a fresh copy of the maze, or the
// process drawing from the unit's world stream (agent.WorldRand).
func (r *agentRun) env(u agent.Unit) (agent.Environment, error) {
	if r.mz != nil {
		mz := r.mz.Clone()
		return mz, nil
	} else if r.bw != nil {
		return r.bw.New(agent.WorldRand(r.runs.Seed, u.Index(r.runs.Trials))), nil
	}
	return pomdp.NewProcess(r.world, agent.WorldRand(r.runs.Seed, u.Index(r.runs.Trials))), nil
}

// worldScore returns the rate of the task solved and the seconds per
// trial of a run in a built-in world (--env), nil otherwise.
func (r *agentRun) worldScore(s *runSummary) (rate, perTrial *float64) {
	if r.bw == nil || s.Episodes == 0 {
		return nil, nil
	}
	a, b := r.bw.Rate(s.Reward, s.Episodes), s.Seconds/float64(s.Episodes)
	return &a, &b
}

// label names unit u for humans: "episode k", or with several agents
// "agent a episode e".
func (r *agentRun) label(u agent.Unit) string {
	if r.runs.Agents == 1 {
		return fmt.Sprintf("episode %d", u.Trial+1)
	}
	return fmt.Sprintf("agent %d episode %d", u.Agent+1, u.Trial+1)
}

// record builds the JSON record of a finished trial.
func (r *agentRun) record(u agent.Unit, ep *agent.Episode, positions [][2]int) *runRecord {
	m := r.m
	obs, acts := ep.Observations(), ep.Actions()
	rec := &runRecord{Episode: u.Trial + 1, Steps: ep.NumActions(), Actions: acts, ActionNames: output.ActionNames(m, acts),
		Observations: output.Observations(m, obs), ObservationNames: output.ObservationNames(m, obs),
		ActionProbs: [][]output.Float{}, Positions: positions, PlanningSeconds: ep.PlanningSeconds,
		Concentrations: output.Concentrations(m, ep.Learned)}
	if r.runs.Agents > 1 {
		rec.Agent = u.Agent + 1
	}
	if r.mz != nil {
		solved := ep.Solved
		rec.Solved = &solved
	} else if r.world != nil {
		rec.TrueState = output.TrueState(r.world, ep.TrueState)
	} else { // a built-in world (--env): its factors are the agent's model's
		rec.TrueState = output.TrueState(m, ep.TrueState)
	}
	for _, st := range ep.Steps {
		rec.QS = append(rec.QS, output.Belief(m, st.Belief))
		if st.Decision != nil {
			rec.ActionProbs = append(rec.ActionProbs, output.Floats(st.Decision.Probs))
		}
	}
	if r.view.extra != nil {
		r.view.extra(r, rec, ep)
	}
	if r.bw != nil {
		tr, _ := r.bw.Trial(agent.WorldRand(r.runs.Seed, u.Index(r.runs.Trials)), acts) // the actions it took
		rec.InitialState, rec.Reward, rec.Seconds = tr.InitialState, &tr.Reward, &ep.Seconds
	}
	return rec
}

// run runs the trials, writing each as soon as it and the earlier ones are
// done. SIGINT or SIGTERM stops it within a second: the finished trials,
// their summary and --plot figure are written, a --dot figure being
// rendered is abandoned, and the exit status is 130 or 143.
func (r *agentRun) run(stdout io.Writer) error {
	if shardJob != nil {
		return r.sharded(stdout) // --shard, or arbor merge (shard.go)
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
		var err error
		if csvw, err = behaviour.NewWriter(stdout, r.m, &behaviour.WriterOptions{Extra: r.csvExtra()}); err != nil {
			return err
		}
	}
	set := r.runs
	set.OnStep = func(u agent.Unit, ag agent.Agent, st *agent.Step) error {
		if st.Decision == nil {
			return nil
		}
		r.prog.Step(st.Decision.Work)
		if r.dot != nil && u.Agent == 0 && u.Trial == 0 && st.T == 0 {
			return r.dot(ctx, ag, st.Decision)
		}
		return nil
	}
	var sum runSummary
	err := agent.RunAgents(ctx, &set, r.newAg, r.env, func(u agent.Unit, ep *agent.Episode) error {
		sum.Episodes++
		unitDone()
		r.prog.Episode()
		sum.PlanningSeconds, sum.Seconds = sum.PlanningSeconds+ep.PlanningSeconds, sum.Seconds+ep.Seconds
		if r.bw != nil {
			tr, _ := r.bw.Trial(agent.WorldRand(r.runs.Seed, u.Index(r.runs.Trials)), ep.Actions())
			sum.Reward += tr.Reward
		}
		sum.Actions += ep.NumActions()
		for _, st := range ep.Steps {
			if st.Decision != nil {
				sum.Work += st.Decision.Work
				if st.Decision.Truncated {
					sum.Truncated++
				}
			}
		}
		if ep.Solved {
			sum.Solved++
			sum.StepsSolved += ep.NumActions()
		}
		positions := r.positions(ep)
		if r.plot != nil {
			// The shown episodes in full, every episode by the numbers of
			// its curves in a fixed number of points: the figure's data
			// stay bounded by the shown episodes.
			r.plot.fig.Add(u, ep, r.cost, positions)
		}
		switch {
		case r.asJSON:
			return enc.Encode(r.record(u, ep, positions))
		case r.asCSV:
			return r.writeCSV(csvw, u, ep)
		}
		r.printEpisode(stdout, r.label(u), ep, positions)
		return nil
	})
	var interrupted error
	if errors.Is(err, context.Canceled) {
		interrupted, err = context.Cause(ctx), nil
	}
	if err != nil {
		return err
	}
	if csvw != nil {
		if err := csvw.Flush(); err != nil {
			return err
		}
	}
	if r.plot != nil && interrupted == nil { // interrupted: no file is replaced
		if err := r.plot.write(); err != nil {
			return err
		}
	}
	if r.asCSV {
		return interrupted
	}
	line := r.view.summary(r, &sum)
	if r.asJSON {
		if err := enc.Encode(line); err != nil {
			return err
		}
		return interrupted
	}
	if s, ok := line.(fmt.Stringer); ok {
		fmt.Fprintln(stdout, s)
	}
	return interrupted
}

// csvExtra returns the extra columns of run --csv: the probability of
// every action (p_<action name>).
func (r *agentRun) csvExtra() []string {
	var cols []string
	for u := range r.m.NumActions() {
		cols = append(cols, "p_"+r.m.ActionName(u))
	}
	return cols
}

// writeCSV writes one trial in the recorded-behaviour format, subject
// being the agent (from 1) and trial the agent's trial (from 1), with the
// action probabilities of every decision.
func (r *agentRun) writeCSV(w *behaviour.Writer, u agent.Unit, ep *agent.Episode) error {
	subject := fmt.Sprint(u.Agent + 1)
	extra := make([]string, r.m.NumActions())
	for _, st := range ep.Steps {
		for i := range extra {
			extra[i] = ""
		}
		if st.Decision != nil {
			for i, p := range st.Decision.Probs {
				extra[i] = csvFloat(p)
			}
		}
		if err := w.WriteStep(subject, u.Trial+1, st.T, st.Obs, st.Action, false, extra...); err != nil {
			return err
		}
	}
	return nil
}

// csvFloat formats a probability for CSV: shortest round-trip form, NA for
// a non-finite value.
func csvFloat(v float64) string { return output.CSVFloat(v) }

// provenance builds the provenance line: arbor's version, the command,
// the files read with their SHA-256 and every flag of fs.
func provenance(command string, fs *flag.FlagSet, files ...[2]string) (output.Provenance, error) {
	p := output.Provenance{Arbor: output.Version, Command: command, Files: []output.File{}}
	for _, f := range files {
		if f[1] == "" {
			continue
		}
		h, err := output.HashFile(f[0], f[1])
		if err != nil {
			return p, badInput("%s %s: %v", f[0], f[1], err)
		}
		p.Files = append(p.Files, h)
	}
	fs.VisitAll(func(f *flag.Flag) {
		p.Settings.Add(f.Name, f.Value.String())
	})
	return p, nil
}

// loadWorld loads --process FILE, the world an agent with model m acts
// in: its actions and observations must be the agent's (same numbers of
// actions, modalities and outcomes, and the same names where both name
// them).
func loadWorld(path string, m *pomdp.Model) (*pomdp.Model, error) {
	w, err := loadPOMDP(path)
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return badInput("--process %s: %s (the world must take the agent's actions and give its observations)", path, fmt.Sprintf(format, args...))
	}
	if w.NumActions() != m.NumActions() {
		return nil, bad("%d actions, the model has %d", w.NumActions(), m.NumActions())
	}
	if w.NumModalities() != m.NumModalities() {
		return nil, bad("%d modalities, the model has %d", w.NumModalities(), m.NumModalities())
	}
	for i := range m.NumModalities() {
		if w.ModalitySize(i) != m.ModalitySize(i) {
			return nil, bad("modality %d has %d outcomes, the model's has %d", i, w.ModalitySize(i), m.ModalitySize(i))
		}
		if a, b := w.ModalityName(i), m.ModalityName(i); a != "" && b != "" && a != b {
			return nil, bad("modality %d is %q, the model's is %q", i, a, b)
		}
	}
	return w, nil
}

// mazeStates returns the maze states of the cells visited.
func mazeStates(mz *envs.Maze, positions [][2]int) []int {
	states := make([]int, 0, len(positions))
	for _, p := range positions {
		if s, ok := mz.StateOf(p[0], p[1]); ok {
			states = append(states, s)
		}
	}
	return states
}

// printEpisode is the human output of one episode: a summary line (the
// view's), the actions (and the observations of a model), and for a maze
// the maze with the path drawn (envs.Maze.Render).
func (r *agentRun) printEpisode(w io.Writer, label string, ep *agent.Episode, positions [][2]int) {
	status := "ran"
	if r.mz != nil {
		status = "did not reach the exit"
		if ep.Solved {
			status = "reached the exit"
		}
	}
	var rec runRecord // the planner's fields of the episode
	if r.view.extra != nil {
		r.view.extra(r, &rec, ep)
	}
	fmt.Fprintf(w, "%s: %s\n", label, r.view.episode(r, status, ep, &rec))
	printActions(w, r.m, ep, r.mz == nil)
	if r.mz == nil {
		return
	}
	if r.view.path {
		var b strings.Builder
		for i, p := range positions {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "(%d,%d)", p[0], p[1])
		}
		fmt.Fprintf(w, "path: %s\n", b.String())
	}
	fmt.Fprint(w, r.mz.Render(mazeStates(r.mz, positions)))
}

// printActions is the human output of an episode's actions and, with
// observations set (a model without a maze), of its observations, by name.
func printActions(w io.Writer, m *pomdp.Model, ep *agent.Episode, observations bool) {
	fmt.Fprintf(w, "actions: %s\n", strings.Join(output.ActionNames(m, ep.Actions()), " "))
	if !observations {
		return
	}
	obs := ep.Observations()
	names := make([]string, len(obs))
	for i, o := range obs {
		names[i] = m.ObsName(o)
	}
	fmt.Fprintf(w, "observations: %s\n", strings.Join(names, " "))
}
