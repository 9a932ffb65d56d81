package main

import (
	"context"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/pomdp"
)

const (
	simModel = "../../examples/pomdp/tmaze.json"
	simWorld = "../../examples/behaviour/world-right.json"
)

// readCSV reads a whole CSV file.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// With every subject at the same parameters, simulate is `aci run
// --agents N --episodes T --select sample --csv` without its probability
// columns: the same streams (agent.StepRand, WorldRand) and the same
// learning between trials.
func TestSimulateEqualsRun(t *testing.T) {
	dir := t.TempDir()
	beh, truth := filepath.Join(dir, "b.csv"), filepath.Join(dir, "t.csv")
	common := []string{"--model", simModel, "--process", simWorld, "--horizon", "2", "--steps", "2", "--seed", "7", "--action-precision", "2.5"}
	code, _, stderr := aciRun(t, append([]string{"aci", "simulate", "--subjects", "3", "--trials", "4", "-o", beh, "--truth", truth}, common...)...)
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	code, out, stderr := aciRun(t, append([]string{"aci", "run", "--agents", "3", "--episodes", "4", "--select", "sample", "--csv"}, common...)...)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	runRecs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	simRecs := readCSV(t, beh)
	if len(simRecs) != len(runRecs) || len(simRecs) != 1+3*4*3 {
		t.Fatalf("%d rows simulated, %d run, want %d", len(simRecs), len(runRecs), 1+3*4*3)
	}
	sameBehaviour(t, simRecs, runRecs)
	// No parameter drawn: the truth table has the subjects alone.
	if got := readCSV(t, truth); len(got) != 4 || len(got[0]) != 1 || got[0][0] != "subject" || got[3][0] != "3" {
		t.Errorf("truth %v", got)
	}
}

// sameBehaviour checks that the simulated rows equal the run's in the
// recorded-behaviour columns: those before simulate's true states (the
// s_<factor> columns) and the run's probability columns.
func sameBehaviour(t *testing.T, sim, run [][]string) {
	t.Helper()
	n := slices.IndexFunc(sim[0], func(c string) bool { return strings.HasPrefix(c, "s_") })
	if n < 0 {
		t.Fatalf("simulate's header %v: no s_<factor> column", sim[0])
	}
	for i := range sim {
		if got, want := strings.Join(sim[i][:n], ","), strings.Join(run[i][:n], ","); got != want {
			t.Errorf("row %d: simulate %s, run %s", i, got, want)
		}
	}
}

// simulate writes each trial's true initial state, per factor by name, in
// its s_<factor> columns: the state the world drew, which a process of the
// world reset from the trial's stream (agent.WorldRand(seed, k·trials+i),
// the documented rule) draws again. Replay reads the file (the columns are
// extra) and carries them.
func TestSimulateTrueState(t *testing.T) {
	dir := t.TempDir()
	beh, truth := filepath.Join(dir, "b.csv"), filepath.Join(dir, "t.csv")
	const subjects, trials, seed = 3, 5, 11
	code, _, stderr := aciRun(t, "aci", "simulate", "--model", simModel, "--horizon", "1", "--steps", "2", "--seed", strconv.Itoa(seed),
		"--subjects", strconv.Itoa(subjects), "--trials", strconv.Itoa(trials), "-o", beh, "--truth", truth)
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	recs := readCSV(t, beh)
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	cs, okc := col["s_context"]
	ls, okl := col["s_location"]
	if !okc || !okl {
		t.Fatalf("header %v: want s_location and s_context", recs[0])
	}
	world, err := pomdp.Load(simModel)
	if err != nil {
		t.Fatal(err)
	}
	contexts := map[string]int{}
	for _, row := range recs[1:] {
		k, _ := strconv.Atoi(row[col["subject"]])
		i, _ := strconv.Atoi(row[col["trial"]])
		p := pomdp.NewProcess(world, agent.WorldRand(seed, (k-1)*trials+i-1))
		p.Reset()
		s := p.FactorStates(nil)
		if want := world.FactorStateName(1, s[1]); row[cs] != want {
			t.Errorf("subject %d trial %d: s_context %s, the world drew %s", k, i, row[cs], want)
		}
		if want := world.FactorStateName(0, s[0]); row[ls] != want {
			t.Errorf("subject %d trial %d: s_location %s, the world started at %s", k, i, row[ls], want)
		}
		contexts[row[cs]]++
	}
	if len(contexts) != 2 {
		t.Errorf("contexts drawn %v: want both over %d trials", contexts, subjects*trials)
	}
	code, out, stderr := aciRun(t, "aci", "replay", "--model", simModel, "--horizon", "1", "--data", beh, "--csv")
	if code != 0 || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "s_location,s_context") {
		t.Errorf("replay of the simulated behaviour: exit %d %s, header %q", code, stderr, strings.SplitN(out, "\n", 2)[0])
	}
}

// TestSimulateSpareJobs: with fewer subjects than jobs, the jobs no subject
// uses plan inside each decision (the policies of horizon 6 in chunks), and
// the behaviour is that of one job.
func TestSimulateSpareJobs(t *testing.T) {
	dir := t.TempDir()
	var outs []string
	for _, jobs := range []string{"1", "3"} {
		beh := filepath.Join(dir, "b"+jobs)
		code, _, stderr := aciRun(t, "aci", "simulate", "--model", "testdata/aci/tiny-pomdp.json", "--horizon", "6", "--steps", "4",
			"--subjects", "1", "--trials", "3", "--jobs", jobs, "-o", beh, "--truth", filepath.Join(dir, "t"+jobs))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(beh)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] {
		t.Fatalf("--jobs 1 and --jobs 3 differ:\n%s\n---\n%s", outs[0], outs[1])
	}
}

// Parameters drawn per subject: the truth table has one column per drawn
// parameter (in the agent's order, whatever the order of --draw), the
// values follow the distribution, and --jobs changes nothing.
func TestSimulateDrawsAndJobs(t *testing.T) {
	dir := t.TempDir()
	var outs [2][2]string
	for j, jobs := range []string{"1", "2"} {
		beh, truth := filepath.Join(dir, "b"+jobs), filepath.Join(dir, "t"+jobs)
		code, _, stderr := aciRun(t, "aci", "simulate", "--model", simModel, "--horizon", "1", "--steps", "1",
			"--subjects", "400", "--trials", "1", "--jobs", jobs, "--draw", "eta=uniform:0.5,2", "--draw", "alpha=lognormal:0.5,0.4",
			"--draw", "omega=logitnormal:2,0.1", "-o", beh, "--truth", truth)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for i, p := range []string{beh, truth} {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			outs[j][i] = string(b)
		}
	}
	if outs[0] != outs[1] {
		t.Fatal("--jobs 1 and --jobs 2 differ")
	}
	recs := readCSV(t, filepath.Join(dir, "t1"))
	if got := strings.Join(recs[0], ","); got != "subject,alpha,eta,omega" {
		t.Fatalf("header %s", got)
	}
	var sum, sq, lo, hi float64
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range recs[1:] {
		a, _ := strconv.ParseFloat(r[1], 64)
		e, _ := strconv.ParseFloat(r[2], 64)
		o, _ := strconv.ParseFloat(r[3], 64)
		sum += math.Log(a)
		sq += math.Log(a) * math.Log(a)
		lo, hi = math.Min(lo, e), math.Max(hi, e)
		if !(o > 0 && o < 1) {
			t.Errorf("omega %v outside (0, 1)", o)
		}
	}
	n := float64(len(recs) - 1)
	mean := sum / n
	sd := math.Sqrt(sq/n - mean*mean)
	// ln α ~ N(0.5, 0.4): the mean of 400 draws is within 5 standard
	// errors (5 · 0.4/20 = 0.1), the SD within 20%.
	if math.Abs(mean-0.5) > 0.1 || math.Abs(sd-0.4) > 0.08 {
		t.Errorf("ln alpha: mean %.3f SD %.3f, want 0.5 and 0.4", mean, sd)
	}
	if lo < 0.5 || hi > 2 || hi-lo < 1.4 {
		t.Errorf("eta in [%v, %v], want to fill [0.5, 2]", lo, hi)
	}
}

// --params FILE gives each subject's values, and its subjects' names.
func TestSimulateParamsFile(t *testing.T) {
	dir := t.TempDir()
	params := filepath.Join(dir, "p.csv")
	if err := os.WriteFile(params, []byte("subject,pref,gamma\nann,1.5,4\nbob,0.5,16\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	beh, truth := filepath.Join(dir, "b.csv"), filepath.Join(dir, "t.csv")
	code, out, stderr := aciRun(t, "aci", "simulate", "--model", simModel, "--horizon", "2", "--steps", "2", "--trials", "3",
		"--params", params, "-o", beh, "--truth", truth, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := replayLines(t, out)
	if len(lines) != 2 || lines[0]["command"] != "aci simulate" || lines[1]["subjects"] != 2.0 || lines[1]["choices"] != 12.0 {
		t.Errorf("output %v", lines)
	}
	got := readCSV(t, truth)
	if want := "subject,gamma,pref|ann,4,1.5|bob,16,0.5"; joinRows(got) != want {
		t.Errorf("truth %s, want %s", joinRows(got), want)
	}
	subjects := map[string]int{}
	for _, r := range readCSV(t, beh)[1:] {
		subjects[r[0]]++
	}
	if subjects["ann"] != 9 || subjects["bob"] != 9 {
		t.Errorf("rows per subject %v, want 9 each", subjects)
	}
}

func joinRows(recs [][]string) string {
	rows := make([]string, len(recs))
	for i, r := range recs {
		rows[i] = strings.Join(r, ",")
	}
	return strings.Join(rows, "|")
}

func TestSimulateBadInput(t *testing.T) {
	dir := t.TempDir()
	truth := filepath.Join(dir, "t.csv")
	bad := filepath.Join(dir, "p.csv")
	if err := os.WriteFile(bad, []byte("subject,alpha\ns1,-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unknown := filepath.Join(dir, "u.csv")
	if err := os.WriteFile(unknown, []byte("subject,beta\ns1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"aci", "simulate", "--model", simModel, "--horizon", "1", "--truth", truth}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"aci", "simulate", "--model", simModel, "--horizon", "1"}, "--truth: missing"},
		{append(base, "--draw", "zeta=lognormal:0,1"), `--draw zeta=lognormal:0,1: agent: parameter "zeta": the agent has gamma, alpha, eta, omega, pref and conc`},
		{append(base, "--draw", "alpha"), "--draw \"alpha\": want NAME=DISTRIBUTION"},
		{append(base, "--draw", "alpha=gauss:0,1"), `unknown distribution "gauss"`},
		{append(base, "--draw", "alpha=lognormal:0"), "lognormal takes 2 numbers, got 1"},
		{append(base, "--draw", "alpha=lognormal:0,-1"), "SIGMA -1, want >= 0"},
		{append(base, "--draw", "omega=lognormal:0,1"), "lognormal is for a positive parameter; omega is in the unit interval domain"},
		{append(base, "--draw", "alpha=logitnormal:0,1"), "logitnormal is for a parameter in (0, 1)"},
		{append(base, "--draw", "alpha=uniform:2,1"), "LO 2 >= HI 1"},
		{append(base, "--draw", "gamma=uniform:-1,1"), "the bounds must be in the positive domain of gamma"},
		{append(base, "--draw", "alpha=fixed:NaN"), `"NaN" is not a finite number`},
		{append(base, "--draw", "alpha=fixed:1", "--draw", "alpha=fixed:2"), "alpha is drawn twice"},
		{append(base, "--params", bad), "p.csv:2: agent: parameter alpha: -1, want a value in the positive domain"},
		{append(base, "--params", unknown), `column beta: agent: parameter "beta"`},
		{append(base, "--params", bad, "--subjects", "3"), "--subjects: the subjects are the rows of --params"},
		{append(base, "--params", bad, "--draw", "alpha=fixed:1"), "--params and --draw: give one"},
		{append(base, "--trials", "0"), "--trials: 0, want 1..100000"},
		{append(base, "--steps", "1", "--subjects", "50", "--trials", "1", "--draw", "alpha=lognormal:0,400"), "parameter alpha: +Inf, want a value in the positive domain"},
		{append(base, "--json"), "--json: needs -o FILE"},
		{append(base, "-o", filepath.Join(dir, "missing", "b.csv")), "-o " + filepath.Join(dir, "missing", "b.csv") + ": cannot create"},
	} {
		code, out, stderr := aciRun(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "arbor aci simulate: ") {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args[4:], code, stderr, c.want)
		}
		if c.want != "--json: needs -o FILE" && out != "" && code == 2 {
			t.Errorf("%v: output %q on bad input", c.args[4:], out)
		}
	}
	if _, err := os.Stat(truth); err == nil {
		t.Error("a truth file was written on bad input")
	}
}

// BenchmarkSimulate simulates 4 subjects × 10 trials of the T-maze with
// learning (horizon 2, two choices per trial), α drawn per subject: the
// simulation part of arbor aci recover.
func BenchmarkSimulate(b *testing.B) {
	m, err := loadPOMDP(simModel)
	if err != nil {
		b.Fatal(err)
	}
	world, err := loadPOMDP(simWorld)
	if err != nil {
		b.Fatal(err)
	}
	fac := aci.Factory{Options: aci.AgentOptions{Horizon: 2, Gamma: 1, Select: aci.SelectSample}}
	d, err := fit.ParseDraw("alpha=lognormal:0,0.5", fac.Params(m))
	if err != nil {
		b.Fatal(err)
	}
	sim := &simulation{m: m, world: world, factory: fac, names: []string{"alpha"}, draws: []fit.Draw{d},
		subjects: 4, trials: 10, steps: 2, seed: 1, jobs: 1}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := sim.run(context.Background(), func(_ int, s *simSubject) error { n += len(s.rec.Trials); return nil }); err != nil || n != 40 {
			b.Fatal(err, n)
		}
	}
}

// btai simulate at common parameters is `btai run --agents N --episodes T
// --action-select visits --csv` without its probability columns, as for
// aci; a drawn α goes to the truth table; a deterministic rule is refused.
func TestBTAISimulateEqualsRun(t *testing.T) {
	dir := t.TempDir()
	beh, truth := filepath.Join(dir, "b.csv"), filepath.Join(dir, "t.csv")
	common := []string{"--model", simModel, "--process", simWorld, "--steps", "2", "--seed", "3", "--iterations", "30"}
	code, _, stderr := aciRun(t, append([]string{"btai", "simulate", "--subjects", "2", "--trials", "3", "-o", beh, "--truth", truth}, common...)...)
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	code, out, stderr := aciRun(t, append([]string{"btai", "run", "--agents", "2", "--episodes", "3", "--action-select", "visits", "--csv"}, common...)...)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	runRecs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	simRecs := readCSV(t, beh)
	if len(simRecs) != len(runRecs) || len(simRecs) != 1+2*3*3 {
		t.Fatalf("%d rows simulated, %d run", len(simRecs), len(runRecs))
	}
	sameBehaviour(t, simRecs, runRecs)
	code, _, stderr = aciRun(t, append([]string{"btai", "simulate", "--draw", "alpha=lognormal:0,0.5", "--subjects", "2", "-o", beh, "--truth", truth}, common...)...)
	if got := readCSV(t, truth); code != 0 || len(got) != 3 || strings.Join(got[0], ",") != "subject,alpha" {
		t.Errorf("exit %d %s: truth %v", code, stderr, got)
	}
	code, _, stderr = aciRun(t, append([]string{"btai", "simulate", "--action-select", "most-visited", "--truth", truth}, common...)...)
	if code != 2 || !strings.Contains(stderr, "arbor btai simulate: --action-select most-visited: simulated behaviour is drawn from a stochastic rule") {
		t.Errorf("deterministic rule: exit %d, %q", code, stderr)
	}
}

// FuzzParamsTable: any --params file is refused with bad input or read
// into values the agent's parameters accept.
func FuzzParamsTable(f *testing.F) {
	for _, s := range []string{"subject,alpha\ns1,2\n", "subject,eta,omega\na,0,1\nb,1.5,0.5\n", "subject\n", "subject,alpha\ns1,-1\n", "x,alpha\n1,1\n", "subject,alpha,alpha\n1,1,1\n"} {
		f.Add(s)
	}
	m, err := loadPOMDP(simModel)
	if err != nil {
		f.Fatal(err)
	}
	ps := aci.Factory{}.Params(m)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, s string) {
		path := filepath.Join(dir, "p.csv")
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		names, subjects, rows, err := readParamsTable(path, ps, false, 1)
		if err != nil {
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("%q: %v is not bad input", s, err)
			}
			return
		}
		if len(subjects) != len(rows) || len(rows) == 0 {
			t.Fatalf("%q: %d subjects, %d rows", s, len(subjects), len(rows))
		}
		for _, v := range rows {
			if len(v) != len(names) {
				t.Fatalf("%q: row %v for columns %v", s, v, names)
			}
			if err := agent.CheckParams(ps, v, agent.ClosedLearning); err != nil {
				t.Fatalf("%q: %v", s, err)
			}
		}
	})
}

// si simulate at common parameters is `si run --agents N --episodes T
// --select sample --csv` without its probability columns.
func TestSISimulateEqualsRun(t *testing.T) {
	dir := t.TempDir()
	beh, truth := filepath.Join(dir, "b.csv"), filepath.Join(dir, "t.csv")
	common := []string{"--model", simModel, "--process", simWorld, "--steps", "2", "--seed", "5", "--depth", "2", "--action-precision", "2"}
	code, _, stderr := aciRun(t, append([]string{"si", "simulate", "--subjects", "2", "--trials", "3", "-o", beh, "--truth", truth}, common...)...)
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	code, out, stderr := aciRun(t, append([]string{"si", "run", "--agents", "2", "--episodes", "3", "--select", "sample", "--csv"}, common...)...)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	runRecs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	simRecs := readCSV(t, beh)
	if len(simRecs) != len(runRecs) || len(simRecs) != 1+2*3*3 {
		t.Fatalf("%d rows simulated, %d run", len(simRecs), len(runRecs))
	}
	sameBehaviour(t, simRecs, runRecs)
}
