package btai_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

// plannerTinyA is a model of 3 states, 2 observations and 2 actions with
// concentrations a (as cmd/arbor's tiny-pomdp-a.json); plannerTiny is the
// same without them.
const (
	plannerTiny = `{"A": [[0.8, 0.9, 0.6], [0.2, 0.1, 0.4]],
 "B": [[[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9]], [[0.1, 0.8, 0.1], [0.1, 0.1, 0.8], [0.8, 0.1, 0.1]]],
 "C": [0.6, 0.4], "D": [0.2, 0.7, 0.1], "actions": ["stay", "move"]`
	plannerTinyA = plannerTiny + `, "a": [[2, 3, 1], [1, 0.5, 1]]}`
)

func plannerModel(t *testing.T, src string) *pomdp.Model {
	t.Helper()
	if !strings.HasSuffix(src, "}") {
		src += "}"
	}
	m, err := pomdp.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func plannerTMaze(t *testing.T) *pomdp.Model {
	t.Helper()
	m, err := pomdp.Load(filepath.Join("..", "examples", "pomdp", "tmaze.json"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// verbFlags registers verb v's flags on a new flag set and parses args.
func verbFlags(t *testing.T, v agent.Verb, args ...string) (*flag.FlagSet, *btai.VerbFlags) {
	t.Helper()
	fs := flag.NewFlagSet("btai "+string(v), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := btai.Description.Flags(fs, v).(*btai.VerbFlags)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%s %q: %v", v, args, err)
	}
	return fs, f
}

// helpDefaults returns each flag's default as -h prints it, "" for a flag
// whose help prints none.
func helpDefaults(fs *flag.FlagSet) map[string]string {
	var b bytes.Buffer
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	printed := map[string]string{}
	// PrintDefaults writes "  -name type\n    \tusage (default x)\n" per flag.
	for _, entry := range strings.Split(b.String(), "\n  -")[0:] {
		entry = strings.TrimPrefix(strings.TrimSpace(entry), "-")
		name, _, _ := strings.Cut(entry, " ")
		name, _, _ = strings.Cut(name, "\n")
		if i := strings.LastIndex(entry, "(default "); i >= 0 && strings.HasSuffix(entry, ")") {
			printed[name] = strings.Trim(entry[i+len("(default "):len(entry)-1], `"`)
		}
	}
	return printed
}

func TestDescription(t *testing.T) {
	d := btai.Description
	if d.Name != "btai" || !d.Draws || d.WorkUnit != "planning iterations" ||
		d.Doc != "branching time active inference" || !strings.Contains(d.Synopsis, "--iterations K") {
		t.Errorf("Description %+v", *d)
	}
	want := []string{"action-precision", "action-select", "cost", "eta", "exploration", "global", "inference", "iterations",
		"max-minutes", "novelty", "novelty-carry", "novelty-prior", "novelty-scale", "omega", "past", "preset", "propagation",
		"rollout-length", "rollouts", "selection", "trial-steps", "window"}
	for _, v := range agent.Verbs {
		fs, f := verbFlags(t, v)
		var names []string
		fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
		if !slices.Equal(names, want) {
			t.Errorf("%s registers %v, want %v", v, names, want)
		}
		help := helpDefaults(fs)
		wantSel := "visits"
		if v == agent.VerbRun {
			wantSel = "most-visited"
		}
		for name, def := range map[string]string{"action-select": wantSel, "preset": "scale-free", "iterations": "1000",
			"exploration": "0.5", "past": "filter", "window": "32", "max-minutes": "10", "eta": "1", "omega": "1", "rollout-length": "5"} {
			if help[name] != def {
				t.Errorf("%s -h: --%s default %q, want %q", v, name, help[name], def)
			}
		}
		if def, ok := help["action-precision"]; ok {
			t.Errorf("%s -h: --action-precision prints the default %q, which a deterministic rule would refuse", v, def)
		}
		o, err := f.Options()
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		wantOpts := btai.DefaultOptions()
		if v != agent.VerbRun {
			wantOpts.ActionSelection, wantOpts.ActionPrecision = btai.Visits, nil
		}
		if diff := cmp.Diff(wantOpts.Resolved(), o); diff != "" {
			t.Errorf("%s default options (-want +got):\n%s", v, diff)
		}
		wantSettings := "settings: preset scale-free, selection normalized-uct, exploration 0.5, iterations 1000, inference vmp, " +
			"cost classic, propagation min-backward, past filter, action-select most-visited, novelty off"
		if v != agent.VerbRun {
			wantSettings = strings.Replace(wantSettings, "most-visited", "visits (precision 1)", 1)
		}
		if got := f.Settings().String(); got != wantSettings {
			t.Errorf("%s settings\n%s\nwant\n%s", v, got, wantSettings)
		}
		for _, name := range []string{"dot-factors", "dot-depth", "dot-top"} {
			got := f.Refused(name)
			want := ""
			if v != agent.VerbRun {
				want = "btai " + string(v) + " draws no figure (the flag belongs to btai plan and btai run with --dot)"
			}
			if got != want {
				t.Errorf("%s: Refused(%q) = %q, want %q", v, name, got, want)
			}
		}
		if got := f.Refused("iterations"); got != "" {
			t.Errorf("%s: Refused(iterations) = %q", v, got)
		}
	}
}

// TestVerbFlagsCheck: the faults Check reports, with the texts of
// cmd/arbor (TestBTAIBadInput and the replay, fit and simulate tests).
func TestVerbFlagsCheck(t *testing.T) {
	run := agent.VerbRun
	for _, c := range []struct {
		verb agent.Verb
		args []string
		want string
	}{
		{run, []string{"--cost", "risk"}, `--cost: unknown cost "risk" (want classic, pcost or feef)`},
		{run, []string{"--propagation", "up"}, `--propagation: unknown propagation "up" (want min-backward, backward or forward)`},
		{run, []string{"--inference", "exact"}, `--inference: unknown inference "exact" (want vmp or predictive)`},
		{run, []string{"--selection", "greedy"}, `--selection: unknown selection "greedy" (want normalized-uct, unexplored-first, uct or uct-3mf)`},
		{run, []string{"--action-select", "greedy"}, `--action-select: unknown action selection "greedy" (want most-visited, softmax, min-cost, visits or most-visited-first)`},
		{run, []string{"--iterations", "0"}, "--iterations: 0, want 1..10000000"},
		{run, []string{"--iterations", "10000001"}, "--iterations: 10000001, want 1..10000000"},
		{run, []string{"--exploration", "NaN"}, "--exploration: NaN, want a finite number >= 0"},
		{run, []string{"--preset", "fast"}, `--preset: unknown preset "fast" (want scale-free, paper, hp, 3mf)`},
		{run, []string{"--novelty", "--novelty-scale", "-1"}, "--novelty-scale: -1, want a number in [0, 1e+06]"},
		{run, []string{"--novelty", "--novelty-prior", "0"}, "--novelty-prior: 0, want a number in [1e-06, 1e+06]"},
		{run, []string{"--novelty-scale", "3"}, "--novelty-scale: needs --novelty"},
		{run, []string{"--novelty-carry"}, "--novelty-carry: needs --novelty"},
		{run, []string{"--action-select", "min-cost", "--action-precision", "5"}, "--action-precision: applies to --action-select softmax and visits, not min-cost"},
		{run, []string{"--action-precision", "5"}, "--action-precision: applies to --action-select softmax and visits, not most-visited"},
		{run, []string{"--action-select", "softmax", "--action-precision", "NaN"}, "--action-precision: NaN, want a finite number >= 0"},
		{run, []string{"--rollout-length", "3"}, "--rollout-length: needs --rollouts N with N >= 1"},
		{run, []string{"--rollouts", "2", "--rollout-length", "0"}, "--rollout-length: 0, want 1..1000"},
		{run, []string{"--window", "1"}, "--window: 1, want 0 (keep the whole past) or >= 2"},
		{run, []string{"--trial-steps", "-1"}, "--trial-steps: -1, want 0 (no limit) to 1000000"},
		{run, []string{"--global", "--inference", "predictive"}, "--global: global inference runs VMP on the whole graph and does not combine with --inference predictive"},
		{run, []string{"--global", "--past", "filter"}, "--past filter: global inference (--global) would redo the past by mean field; leave one of them out"},
		{run, []string{"--eta", "-1"}, "--eta: -1, want a finite number >= 0"},
		{run, []string{"--omega", "0"}, "--omega: 0, want 0 < ω <= 1"},
		{agent.VerbReplay, []string{"--action-select", "most-visited"}, "--action-select most-visited: a deterministic rule gives no probability to score a recorded choice with (want softmax or visits)"},
		{agent.VerbFit, []string{"--action-select", "min-cost"}, "--action-select min-cost: a deterministic rule gives no probability to score a recorded choice with (want softmax or visits)"},
		{agent.VerbSimulate, []string{"--action-select", "most-visited"}, "--action-select most-visited: simulated behaviour is drawn from a stochastic rule (want softmax or visits)"},
		{agent.VerbRecover, []string{"--action-select", "min-cost"}, "--action-select min-cost: simulated behaviour is drawn from a stochastic rule (want softmax or visits)"},
		// The planning flags come first, as in cmd/arbor.
		{agent.VerbReplay, []string{"--action-select", "most-visited", "--iterations", "0"}, "--iterations: 0, want 1..10000000"},
	} {
		_, f := verbFlags(t, c.verb, c.args...)
		err := f.Check()
		var fe *agent.FlagError
		if !errors.As(err, &fe) || err.Error() != "btai: "+c.want {
			t.Errorf("%s %q: Check = %v (%T), want the *agent.FlagError %q", c.verb, c.args, err, err, c.want)
		}
		// Factory checks the flags as well.
		if _, err := f.Factory(plannerModel(t, plannerTiny), "--model tiny.json"); err == nil || err.Error() != "btai: "+c.want {
			t.Errorf("%s %q: Factory = %v, want %q", c.verb, c.args, err, c.want)
		}
		if f.Settings() != nil {
			t.Errorf("%s %q: settings of invalid flags", c.verb, c.args)
		}
	}
}

// TestVerbFlagsFactory: the faults Factory finds against the model, in
// cmd/arbor's order and texts.
func TestVerbFlagsFactory(t *testing.T) {
	tiny, tinyA, tmaze := plannerModel(t, plannerTiny), plannerModel(t, plannerTinyA), plannerTMaze(t)
	_, maze := mazeModel(t, "1.maze")
	_, maze5 := mazeModel(t, "5.maze")
	const factorised = "--model tmaze.json has 2 hidden-state factors and 3 modalities; "
	for _, c := range []struct {
		name         string
		m            *pomdp.Model
		source       string
		args         []string
		materialized bool
		want         string // the whole error, or with a "~" prefix a substring
	}{
		{"global factorised", tmaze, "--model tmaze.json", []string{"--global"}, false,
			"--global: " + factorised + "global inference puts the planning tree in the graph, which is done for one factor and one modality only (leave --global out)"},
		{"novelty factorised", tmaze, "--model tmaze.json", []string{"--novelty", "--max-minutes", "0"}, false,
			"--novelty: " + factorised + "the novelty bonus is over one modality's A (leave --novelty out, or give the modalities concentrations a to learn them)"},
		{"max-minutes 0", tiny, "--model tiny.json", []string{"--max-minutes", "0"}, false, "--max-minutes: 0, want a finite number > 0"},
		{"max-minutes NaN", tiny, "--model tiny.json", []string{"--max-minutes", "NaN"}, false, "--max-minutes: NaN, want a finite number > 0"},
		{"novelty prior with a", tinyA, "--model tiny-a.json", []string{"--novelty", "--novelty-prior", "2"}, false,
			"--novelty-prior: the model has concentrations a, which are its prior and always carry over to the next episode"},
		{"novelty carry with a", tinyA, "--model tiny-a.json", []string{"--novelty", "--novelty-carry"}, false,
			"--novelty-carry: the model has concentrations a, which are its prior and always carry over to the next episode"},
		{"eta without concentrations", tiny, "--model tiny.json", []string{"--eta", "0.5"}, false,
			"--eta: the model has no concentrations a, b or d to learn (--eta and --omega apply to a model that learns)"},
		{"omega without concentrations", maze, "--maze 1.maze", []string{"--omega", "0.5"}, false,
			"--omega: the model has no concentrations a, b or d to learn (--eta and --omega apply to a model that learns)"},
		{"tree too big", maze5, "--maze 5.maze", []string{"--iterations", "10000000"}, false,
			"--iterations: 10000000 iterations x 5 actions would grow a planning tree of about 16.0 GB, more than the 4 GB allowed"},
		{"global tree too big", maze5, "--maze 5.maze", []string{"--iterations", "5000000", "--global"}, false,
			"--iterations: 5000000 iterations x 5 actions would grow a planning tree of about 35.2 GB, more than the 4 GB allowed"},
		{"dot tree too big", maze5, "--maze 5.maze", []string{"--iterations", "5000000"}, true,
			"--iterations: 5000000 iterations x 5 actions would grow a planning tree of about 35.2 GB, more than the 4 GB allowed"},
		{"plan time", maze, "--maze 1.maze", []string{"--iterations", "100000", "--max-minutes", "0.01"}, false,
			"~--iterations 100000: 100000 iterations x 5 actions would take about 3.7 s per planning step (estimated from 22 states and 10 observations, vmp inference), over --max-minutes 0.01; raise --max-minutes to run it anyway"},
		{"nil model", nil, "--model none.json", nil, false, "--model none.json: pomdp: model: nil or not built by pomdp.New, NewFactorised, Parse or Load"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, f := verbFlags(t, agent.VerbRun, c.args...)
			if err := f.Check(); err != nil {
				t.Fatalf("Check: %v", err)
			}
			f.SetMaterialized(c.materialized)
			_, err := f.Factory(c.m, c.source)
			var fe *agent.FlagError
			if !errors.As(err, &fe) {
				t.Fatalf("Factory = %v (%T), want an *agent.FlagError", err, err)
			}
			if want, sub := strings.CutPrefix(c.want, "~"); sub && !strings.Contains(err.Error(), want) || !sub && err.Error() != "btai: "+want {
				t.Errorf("Factory = %q, want %q", err, c.want)
			}
		})
	}
}

// TestVerbFlagsAgents: the factories of every verb on the T-maze give
// agents that decide; run's and replay's hand out the check's agent once,
// safely from several goroutines, and fit's is btai.Factory.
func TestVerbFlagsAgents(t *testing.T) {
	m := plannerTMaze(t)
	ctx := context.Background()
	for _, v := range agent.Verbs {
		_, f := verbFlags(t, v, "--iterations", "20")
		fac, err := f.Factory(m, "--model tmaze.json")
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if _, plain := fac.(btai.Factory); plain == (v == agent.VerbRun || v == agent.VerbReplay) {
			t.Errorf("%s: factory %T", v, fac)
		}
		if ps := fac.Params(m); len(ps) == 0 {
			t.Errorf("%s: no parameters", v)
		}
		const n = 6
		ags := make([]agent.Agent, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var values map[string]float64
				if i == n-1 {
					values = map[string]float64{agent.ParamPref: 2}
				}
				ag, err := fac.NewAgent(m, values)
				if err != nil {
					t.Errorf("%s: NewAgent: %v", v, err)
					return
				}
				ags[i] = ag
			}()
		}
		wg.Wait()
		for i, ag := range ags {
			if ag == nil {
				t.Fatalf("%s: agent %d is nil", v, i)
			}
			for _, other := range ags[:i] {
				if ag == other {
					t.Errorf("%s: one agent handed out twice", v)
				}
			}
		}
		ag := ags[0]
		if err := ag.Reset(ctx, 0); err != nil {
			t.Fatalf("%s: Reset: %v", v, err)
		}
		d, err := ag.Decide(ctx, agent.StepRand(1, 0, 0, 0))
		if err != nil {
			t.Fatalf("%s: Decide: %v", v, err)
		}
		if d.Action < 0 || d.Action >= m.NumActions() {
			t.Errorf("%s: action %d", v, d.Action)
		}
	}
}

// TestVerbFlagsExplicitDefaults: for every verb and every flag, giving the
// flag at the default that -h prints behaves as leaving it out: the same
// options, settings, carry, workers and factory (or the same error), on a
// model with concentrations a and one without. --action-precision, whose
// -h prints no default (it depends on the rule), is checked to print none.
func TestVerbFlagsExplicitDefaults(t *testing.T) {
	models := map[string]*pomdp.Model{"tiny": plannerModel(t, plannerTiny), "tiny-a": plannerModel(t, plannerTinyA)}
	describe := func(f *btai.VerbFlags, m *pomdp.Model) []string {
		o, err := f.Options()
		if err != nil {
			return []string{"Options: " + err.Error()}
		}
		out := []string{cmp.Diff(btai.Options{}, o), f.Settings().String()}
		if f.Carries() {
			out = append(out, "carries")
		}
		fac, err := f.Factory(m, "--model m.json")
		if err != nil {
			return append(out, "Factory: "+err.Error())
		}
		for _, p := range fac.Params(m) {
			out = append(out, p.Name)
		}
		return out
	}
	for _, v := range agent.Verbs {
		fs, _ := verbFlags(t, v)
		help := helpDefaults(fs)
		fs.VisitAll(func(fl *flag.Flag) {
			def, printed := help[fl.Name]
			if fl.Name == "action-precision" {
				if printed {
					t.Errorf("%s: -h prints --action-precision's default %q", v, def)
				}
				return
			}
			if !printed {
				def = fl.DefValue // a zero value: false, 0, ""
			}
			if def != fl.DefValue {
				t.Errorf("%s: -h prints --%s's default %q, registered %q", v, fl.Name, def, fl.DefValue)
			}
			for name, m := range models {
				for _, args := range [][]string{nil, {"--novelty"}} {
					if slices.Contains(args, "--"+fl.Name) {
						continue
					}
					_, without := verbFlags(t, v, args...)
					_, with := verbFlags(t, v, append(args, "--"+fl.Name+"="+def)...)
					if diff := cmp.Diff(describe(without, m), describe(with, m)); diff != "" {
						t.Errorf("%s %v on %s: --%s=%s differs from leaving it out (-without +with):\n%s", v, args, name, fl.Name, def, diff)
					}
				}
			}
		})
	}
}

// TestVerbFlagsLimits: MaxWorkers and Carries on a small maze.
func TestVerbFlagsLimits(t *testing.T) {
	_, m := mazeModel(t, "1.maze")
	for _, c := range []struct {
		args         []string
		materialized bool
		jobs, want   int
		carries      bool
	}{
		{nil, false, 8, 8, false},
		{nil, false, 0, 1, false},
		{[]string{"--novelty", "--novelty-carry"}, false, 3, 3, true},
		{[]string{"--novelty", "--novelty-carry=false"}, false, 3, 3, false},
		// 1M iterations: a compact tree of about 2.0 GB, two in 4 GB; a
		// materialized one (--global or a figure) of 7 GB, one.
		{[]string{"--iterations", "1000000"}, false, 8, 2, false},
		{[]string{"--iterations", "1000000", "--global"}, false, 8, 1, false},
		{[]string{"--iterations", "1000000"}, true, 8, 1, false},
		{[]string{"--iterations", "300000"}, false, 64, 6, false},
	} {
		_, f := verbFlags(t, agent.VerbRun, c.args...)
		f.SetMaterialized(c.materialized)
		if err := f.Check(); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if got := f.MaxWorkers(m, c.jobs); got != c.want {
			o, _ := f.Options()
			t.Errorf("%q materialized %v: MaxWorkers(%d) = %d, want %d (tree %.3g GB)", c.args, c.materialized, c.jobs, got, c.want,
				btai.TreeBytes(o.Iterations, m.NumStates(), m.NumObs(), m.NumActions(), o.GlobalInference || c.materialized)/1e9)
		}
		if got := f.Carries(); got != c.carries {
			t.Errorf("%q: Carries = %v, want %v", c.args, got, c.carries)
		}
	}
	// Invalid flags: one worker, nothing carried.
	_, f := verbFlags(t, agent.VerbRun, "--iterations", "0", "--novelty", "--novelty-carry")
	if f.MaxWorkers(m, 8) != 1 || f.Carries() {
		t.Errorf("invalid flags: MaxWorkers %d, Carries %v", f.MaxWorkers(m, 8), f.Carries())
	}
}

// TestPlanFlags: the planning flags alone, as arbor btai plan uses them,
// and the settings of a plan, which does not act.
func TestPlanFlags(t *testing.T) {
	fs := flag.NewFlagSet("btai plan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	pf := btai.RegisterPlanFlags(fs)
	if err := fs.Parse([]string{"--preset", "paper", "--iterations", "7", "--rollouts", "2", "--novelty", "--trial-steps", "4"}); err != nil {
		t.Fatal(err)
	}
	if fs.Lookup("action-select") != nil || fs.Lookup("eta") != nil || fs.Lookup("dot-factors") != nil {
		t.Error("the planning flags include acting or figure flags")
	}
	o, err := pf.Options()
	if err != nil {
		t.Fatal(err)
	}
	want := btai.PresetPaper()
	want.Iterations, want.Rollouts, want.RolloutLength, want.Novelty, want.TrialSteps = 7, 2, 5, true, 4
	if diff := cmp.Diff(want, o); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	m := plannerModel(t, plannerTiny)
	if err := pf.CheckModel(m); err != nil {
		t.Error(err)
	}
	if err := pf.CheckPlanTime(m, o); err != nil {
		t.Error(err)
	}
	if err := btai.CheckTree(o.Iterations, m, true); err != nil {
		t.Error(err)
	}
	if err := btai.CheckMemory(m, o, "--model tiny.json"); err != nil {
		t.Error(err)
	}
	if err := btai.CheckFactorised(m, "--model tiny.json", true, true); err != nil {
		t.Error(err)
	}
	s := btai.ResolvedSettings(pf.Preset(), o, false)
	const wantS = "settings: preset paper, selection unexplored-first, exploration 2, iterations 7, inference vmp, cost classic, propagation min-backward, " +
		"rollouts 2 of length 5, trial steps 4 (depth at most the steps left), novelty on (scale 10, prior 1)"
	if s.String() != wantS {
		t.Errorf("settings\n%s\nwant\n%s", s, wantS)
	}
	if s.ActionSelect != "" || s.ActionPrecision != nil {
		t.Errorf("the settings of a plan state an action selection: %+v", s)
	}
}
