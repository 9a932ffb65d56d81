package btai_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

// learnFiles are the models of the epistemic tasks whose agent learns
// across trials (learning carried over): the T-maze learns its context
// prior D (concentrations d = (1, 1), so the first trial is the uniform
// prior's), the cue bandit its reward counts (a on the reward modality,
// the world's A unchanged; docs/btai.md, "Short tasks"). The tiger problem
// has nothing to learn.
var learnFiles = map[string]string{
	"t-maze":     "../examples/pomdp/tmaze.json",
	"cue bandit": "../examples/pomdp/cue-bandit-learn.json",
}

// CarryTrials is the number of trials one agent runs in a row when
// learning is carried over.
const carryTrials = 10

// shortColumn is one planner of the short-task table.
type shortColumn struct {
	name     string
	newAgent func(m *pomdp.Model) (agent.Agent, error)
}

// btaiColumn is a BTAI planner with options o.
func btaiColumn(name string, o btai.Options) shortColumn {
	return shortColumn{name, func(m *pomdp.Model) (agent.Agent, error) { return btai.NewAgent(m, &o, nil) }}
}

// aciColumn is classic active inference at its defaults with horizon h.
func aciColumn(h int) shortColumn {
	return shortColumn{fmt.Sprintf("aci, horizon %d", h), func(m *pomdp.Model) (agent.Agent, error) {
		return aci.NewAgent(m, &aci.AgentOptions{Horizon: h})
	}}
}

// scaleFreeSoftmax is the scale-free preset with the paper's action
// selection (softmax at precision 100 over the root's average costs).
func scaleFreeSoftmax() btai.Options {
	o := btai.PresetScaleFree()
	o.ActionSelection = btai.Softmax
	o.ActionPrecision = nil
	return o.Resolved()
}

var shortColumns = []shortColumn{
	btaiColumn("scale-free (default)", btai.PresetScaleFree()),
	btaiColumn("paper", btai.PresetPaper()),
	btaiColumn("hp", btai.PresetHP()),
	btaiColumn("scale-free + softmax 100", scaleFreeSoftmax()),
	aciColumn(2),
	aciColumn(3),
}

// extraColumns are planners measured on request (BTAI_SHORT_EXTRA, a
// comma-separated list of their names) after shortColumns.
var extraColumns = map[string]func() shortColumn{
	"predictive": func() shortColumn {
		o := btai.PresetScaleFree()
		o.Inference = btai.Predictive
		return btaiColumn("scale-free + predictive", o)
	},
}

// tableColumns are shortColumns and the extra columns asked for.
func tableColumns(t testing.TB) []shortColumn {
	cols := append([]shortColumn(nil), shortColumns...)
	for _, name := range strings.Split(os.Getenv("BTAI_SHORT_EXTRA"), ",") {
		if name == "" {
			continue
		}
		c, ok := extraColumns[name]
		if !ok {
			t.Fatalf("BTAI_SHORT_EXTRA: unknown column %q (want predictive)", name)
		}
		cols = append(cols, c())
	}
	return cols
}

// taskResult is a planner's rate of preferred outcomes on a task and its
// decision time per action.
type taskResult struct {
	rate, msPerAction float64
}

// runTask runs a planner on task: agents × trials episodes from model m,
// agent a's trial i in the world agent.WorldRand(1, a*trials+i) (the same
// worlds for every planner). With carry, each agent runs its trials in a
// row and learns between them (agent.Runs.Carry); otherwise every trial
// is a fresh one. Rate is the mean score over all trials.
func runTask(ctx context.Context, task epistemicTask, m *pomdp.Model, col shortColumn, agents, trials, workers int, carry bool) (taskResult, error) {
	sum, secs, actions := 0.0, 0.0, 0
	err := agent.RunAgents(ctx, &agent.Runs{Agents: agents, Trials: trials, Workers: workers, MaxSteps: task.Steps, Seed: 1, Carry: carry},
		func() (agent.Agent, error) { return col.newAgent(m) },
		func(u agent.Unit) (agent.Environment, error) {
			return pomdp.NewProcess(m, agent.WorldRand(1, u.Index(trials))), nil
		},
		func(_ agent.Unit, ep *agent.Episode) error {
			sum += task.Score(m, ep)
			secs += ep.PlanningSeconds
			actions += ep.NumActions()
			return nil
		})
	if err != nil {
		return taskResult{}, err
	}
	return taskResult{sum / float64(agents*trials), 1000 * secs / float64(max(actions, 1))}, nil
}

// loadTask returns task's model, the learning one with learn.
func loadTask(t testing.TB, task epistemicTask, learn bool) *pomdp.Model {
	t.Helper()
	file := task.File
	if learn {
		file = learnFiles[task.Name]
	}
	m, err := pomdp.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// envInt is the positive integer in the environment variable name, or def.
func envInt(t testing.TB, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q, want a positive integer", name, s)
	}
	return n
}

// loadAverage is the one-minute load average, the first field of
// /proc/loadavg (NaN where there is none).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return math.NaN()
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return math.NaN()
	}
	x, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return math.NaN()
	}
	return x
}

// loadRange keeps the least and greatest load average sampled.
type loadRange struct{ lo, hi float64 }

func (r *loadRange) sample() {
	x := loadAverage()
	if math.IsNaN(x) {
		return
	}
	if r.lo == 0 || x < r.lo {
		r.lo = x
	}
	r.hi = max(r.hi, x)
}

// shortTable measures every planner of shortColumns on every task, fresh
// (fresh trials each) and with learning carried over (agents agents of
// carryTrials trials each), and returns the two markdown tables.
func shortTable(t *testing.T, fresh, agents int) string {
	ctx := context.Background()
	workers := runtime.GOMAXPROCS(0)
	start := time.Now()
	var load loadRange
	load.sample()
	cols := tableColumns(t)
	var b strings.Builder
	for _, learn := range []bool{false, true} {
		if learn {
			fmt.Fprintf(&b, "\nLearning carried over: %d agents per planner, each running %d trials in a row and learning between them (rate over all %d trials):\n\n", agents, carryTrials, agents*carryTrials)
		} else {
			fmt.Fprintf(&b, "Fresh trials: %d per task and planner, a new agent for each:\n\n", fresh)
		}
		b.WriteString("| task |")
		for _, c := range cols {
			fmt.Fprintf(&b, " %s |", c.name)
		}
		b.WriteString("\n|---|")
		for range cols {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		for _, task := range epistemicTasks {
			if learn && learnFiles[task.Name] == "" {
				continue
			}
			m := loadTask(t, task, learn)
			name := task.Name
			if learn {
				name += map[string]string{"t-maze": " (learns D)", "cue bandit": " (learns reward counts)"}[task.Name]
			}
			fmt.Fprintf(&b, "| %s |", name)
			for _, col := range cols {
				load.sample()
				var r taskResult
				var err error
				if learn {
					r, err = runTask(ctx, task, m, col, agents, carryTrials, workers, true)
				} else {
					r, err = runTask(ctx, task, m, col, 1, fresh, workers, false)
				}
				if err != nil {
					t.Fatalf("%s, %s: %v", task.Name, col.name, err)
				}
				t.Logf("%s (learn %v), %s: rate %.3f, %.2f ms per action", task.Name, learn, col.name, r.rate, r.msPerAction)
				fmt.Fprintf(&b, " %.3f, %s ms |", r.rate, msString(r.msPerAction))
			}
			b.WriteString("\n")
		}
	}
	load.sample()
	fmt.Fprintf(&b, "\nMeasured with %d trials at once on %d cores; load average %.1f to %.1f (sampled before each cell; %.0f s in all).\n",
		workers, runtime.NumCPU(), load.lo, load.hi, time.Since(start).Seconds())
	return b.String()
}

// msString formats a time per action in ms with two significant figures
// below 10 ms.
func msString(ms float64) string {
	switch {
	case ms < 0.1:
		return fmt.Sprintf("%.3f", ms)
	case ms < 10:
		return fmt.Sprintf("%.2f", ms)
	}
	return fmt.Sprintf("%.1f", ms)
}

// TestShortTaskTable regenerates the short-task table of docs/btai.md
// (make btai-table): BTAI's presets beside classic active inference on the
// T-maze, the tiger problem and the cue bandit, fresh and with learning
// carried over. It runs only when BTAI_TABLE is set ("print" or
// "write", as TestResultsTable); BTAI_SHORT_TRIALS (default 1,000) fresh
// trials per task and BTAI_SHORT_AGENTS (default 100) learning agents.
func TestShortTaskTable(t *testing.T) {
	mode := os.Getenv("BTAI_TABLE")
	if mode == "" {
		t.Skip("set BTAI_TABLE=print or BTAI_TABLE=write (make btai-table)")
	}
	table := shortTable(t, envInt(t, "BTAI_SHORT_TRIALS", 1000), envInt(t, "BTAI_SHORT_AGENTS", 100))
	fmt.Print(table)
	if mode == "write" {
		replaceBetween(t, "short-task table", table)
	}
}
