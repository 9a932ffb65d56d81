package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/fit"
)

// writeTemp writes text to a file named name in a fresh directory.
func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFitGroupFromCommandLine: `aci fit --group` on pymdp's three
// subjects with a covariate: the subject lines keep their keys and gain
// theta_eb, the group line gains peb, and both equal fit.PEB run on the
// first-level posteriors the subject lines print (theta, sd_theta and
// log_evidence) with the design of the covariates file.
func TestFitGroupFromCommandLine(t *testing.T) {
	cov := writeTemp(t, "cov.csv", "subject,group\ns03,b\ns01,a\ns02,b\n")
	args := []string{"aci", "fit", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1",
		"--free", "alpha", "--prior", "alpha=0,1", "--group", "--covariates", cov, "--design", "1 + group"}
	code, out, stderr := aciRun(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := replayLines(t, out)
	if len(lines) != 5 {
		t.Fatalf("%d lines, want the provenance, 3 subjects and the group", len(lines))
	}
	var post []fit.Posterior
	var shrunk []float64
	for _, l := range lines[1:4] {
		theta := l["theta"].(map[string]any)["alpha"].(float64)
		sd := l["sd_theta"].(map[string]any)["alpha"].(float64)
		post = append(post, fit.Posterior{Mean: []float64{theta}, Cov: [][]float64{{sd * sd}}, LogEvidence: l["log_evidence"].(float64)})
		eb, ok := l["theta_eb"].(map[string]any)
		if !ok {
			t.Fatalf("subject line without theta_eb: %v", l)
		}
		shrunk = append(shrunk, eb["alpha"].(float64))
	}
	d := &fit.Design{Columns: []string{"1", "group[b]"}, X: [][]float64{{1, 0}, {1, 1}, {1, 1}}}
	want, err := fit.PEB(post, []string{"alpha"}, []fit.Prior{{Mean: 0, SD: 1}}, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	peb, ok := lines[4]["peb"].(map[string]any)
	if !ok {
		t.Fatalf("group line without peb: %v", lines[4])
	}
	// JSON prints the shortest form that reads back exactly: equal to the
	// float, and the first-level values in JSON lose nothing either.
	const tol = 1e-9
	if got := peb["log_evidence"].(float64); math.Abs(got-want.LogEvidence) > tol {
		t.Errorf("log_evidence %v, want %v", got, want.LogEvidence)
	}
	if got := peb["sigma"].([]any)[0].([]any)[0].(float64); math.Abs(got-want.Sigma[0][0]) > tol {
		t.Errorf("sigma %v, want %v", got, want.Sigma[0][0])
	}
	effects := peb["effects"].([]any)
	if len(effects) != 2 {
		t.Fatalf("%d effects, want 2", len(effects))
	}
	for j, e := range effects {
		m := e.(map[string]any)
		w := want.Effects[j]
		ci := m["ci90"].([]any)
		if m["parameter"] != "alpha" || m["covariate"] != w.Covariate || math.Abs(m["mean"].(float64)-w.Mean) > tol ||
			math.Abs(m["sd"].(float64)-w.SD) > tol || math.Abs(ci[0].(float64)-w.Lo) > tol || math.Abs(ci[1].(float64)-w.Hi) > tol ||
			math.Abs(m["p_nonzero"].(float64)-w.PNonzero) > tol {
			t.Errorf("effect %d: %v, want %+v", j, m, w)
		}
	}
	for i, v := range shrunk {
		if math.Abs(v-want.ThetaEB[i][0]) > tol {
			t.Errorf("subject %d: theta_eb %v, want %v", i+1, v, want.ThetaEB[i][0])
		}
	}
	// The text output ends with the table.
	code, out, stderr = aciRun(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"group level (parametric empirical Bayes, design 1 + group, Σ diagonal)", "alpha      group[b]", "subject s01: alpha"} {
		if !strings.Contains(out, s) {
			t.Errorf("text output lacks %q:\n%s", s, out)
		}
	}
}

// TestFitGroupBadInput: faults of the covariates and the design exit 2
// with one line naming the file and line or the term.
func TestFitGroupBadInput(t *testing.T) {
	base := []string{"aci", "fit", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1", "--free", "alpha"}
	for _, c := range []struct {
		cov  string
		args []string
		want string
	}{
		{"subject,group\ns01,0\ns02,1\n", []string{"--group", "--design", "1 + group"}, `cov.csv: no row for subject "s03" of the data`},
		{"subject,group\ns01,0\ns02,1\ns03,1\ns04,0\n", []string{"--group", "--design", "1 + group"}, `cov.csv:5: subject "s04" is not in the data`},
		{"subject,group\ns01,0\ns02,x\ns03,1\n", []string{"--group", "--design", "1 + group"}, `cov.csv:3: column group: "x" is not a number`},
		{"subject,group\ns01,0\ns02,1\ns03,1\n", []string{"--group", "--design", "1 + grp"}, "--design term grp: grp names no column"},
		{"subject,a,b\ns01,0,0\ns02,1,2\ns03,1,2\n", []string{"--group", "--design", "1 + a + b"}, "--design: column b is a linear combination of 1, a"},
		{"subject,a,b,c\ns01,0,0,1\ns02,1,2,0\ns03,1,3,5\n", []string{"--group", "--design", "1 + a + b + c"}, "--design: 3 subjects for at least 4 columns"},
		{"", []string{"--design", "1"}, "--design: only with --group"},
		{"", []string{"--group", "--csv"}, "--group: its result is the group line"},
		{"", []string{"--group", "--design", "1 + (a)"}, `--design "1 + (a)": at 5`},
		{"", []string{"--group", "--group-cov", "block"}, `invalid value "block" for flag -group-cov`},
	} {
		args := append([]string(nil), base...)
		if c.cov != "" {
			args = append(args, "--covariates", writeTemp(t, "cov.csv", c.cov))
		}
		args = append(args, c.args...)
		code, _, stderr := aciRun(t, args...)
		msg := strings.TrimSpace(stderr)
		if code != 2 || !strings.Contains(msg, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, msg, c.want)
		}
	}
}

// TestSimulateFromFitCSV: `simulate --params` takes the output of `fit
// --csv` as it is written (a posterior predictive check in two commands):
// the truth it writes holds the fit's estimates; with --draw-posterior,
// values drawn around them.
func TestSimulateFromFitCSV(t *testing.T) {
	code, out, stderr := aciRun(t, "aci", "fit", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1",
		"--free", "alpha", "--prior", "alpha=0,1", "--csv")
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	fitCSV := writeTemp(t, "fit.csv", out)
	rows := strings.Split(strings.TrimSpace(out), "\n")[1:]
	for _, draw := range []bool{false, true} {
		dir := t.TempDir()
		truth := filepath.Join(dir, "truth.csv")
		args := []string{"aci", "simulate", "--model", pymdpModel, "--params", fitCSV, "--horizon", "1", "--gamma", "1", "--trials", "2",
			"--truth", truth, "-o", filepath.Join(dir, "sim.csv")}
		if draw {
			args = append(args, "--draw-posterior")
		}
		if code, _, stderr := aciRun(t, args...); code != 0 {
			t.Fatalf("simulate (draw %v): exit %d: %s", draw, code, stderr)
		}
		raw, err := os.ReadFile(truth)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSpace(string(raw)), "\n")
		if len(got) != len(rows)+1 || got[0] != "subject,alpha" {
			t.Fatalf("truth %q, want subject,alpha and %d rows", raw, len(rows))
		}
		for i, row := range rows {
			fields := strings.Split(row, ",")
			same := got[i+1] == fields[0]+","+fields[1]
			if same == draw {
				t.Errorf("draw %v: truth row %q beside the fit's %q", draw, got[i+1], fields[0]+","+fields[1])
			}
		}
	}
	if code, _, stderr := aciRun(t, "aci", "simulate", "--model", pymdpModel, "--horizon", "1", "--truth", filepath.Join(t.TempDir(), "t.csv"), "--draw-posterior"); code != 2 || !strings.Contains(stderr, "--draw-posterior: only with --params") {
		t.Errorf("--draw-posterior without --params: exit %d, %s", code, stderr)
	}
}

// TestFitPlot: fit --plot writes the figure in the format of its ending,
// with a panel per free parameter and, with --group, the group effects
// (the SVG parsed for its titles); with --compare the model frequencies
// and exceedance probabilities, named by model file; an unknown ending is
// refused before any fit.
func TestFitPlot(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "gamma.jsonl")
	code, out, stderr := aciRun(t, "aci", "fit", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1", "--free", "gamma", "--restarts", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(other, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	cov := writeTemp(t, "cov.csv", "subject,group\ns03,b\ns01,a\ns02,b\n")
	base := []string{"aci", "fit", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1", "--free", "alpha", "--restarts", "1"}
	svg := filepath.Join(dir, "fit.svg")
	if code, _, stderr := aciRun(t, append(base, "--group", "--covariates", cov, "--design", "1 + group", "--compare", other, "--plot", svg)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	raw, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"alpha: estimates with 90% intervals", ">empirical Bayes<", "group effects with 90% intervals", ">alpha: group[b]<",
		"expected model frequencies", "exceedance probabilities", ">tmaze.json<", ">--free alpha<", ">--free gamma<"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("SVG without %q", want)
		}
	}
	for ending, magic := range map[string]string{".pdf": "%PDF", ".png": "\x89PNG"} {
		path := filepath.Join(dir, "fit"+ending)
		if code, _, stderr := aciRun(t, append(base, "--plot", path)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", ending, code, stderr)
		}
		if raw, err := os.ReadFile(path); err != nil || !strings.HasPrefix(string(raw), magic) {
			t.Errorf("%s: %v, starts %q", ending, err, raw[:min(8, len(raw))])
		}
	}
	if code, _, stderr := aciRun(t, append(base, "--plot", filepath.Join(dir, "fit.gif"))...); code != 2 || !strings.Contains(stderr, "unknown ending") {
		t.Errorf("--plot fit.gif: exit %d, %s", code, stderr)
	}
}

// TestSimulatePPC: the posterior predictive check in two commands (fit
// --csv, then simulate --params FIT.csv --ppc DATA): the recorded
// choices' log-likelihood under the fitted parameters is the sum of the
// fit's log_likelihood column, over the same 48 choices, and the
// simulated subjects are scored as many; --ppc needs --params.
func TestSimulatePPC(t *testing.T) {
	code, out, stderr := aciRun(t, "aci", "fit", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1",
		"--free", "alpha", "--prior", "alpha=0,1", "--csv")
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	fitCSV := writeTemp(t, "fit.csv", out)
	want := 0.0
	for _, row := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		var ll float64
		if _, err := fmt.Sscan(strings.Split(row, ",")[3], &ll); err != nil {
			t.Fatal(err)
		}
		want += ll
	}
	dir := t.TempDir()
	code, out, stderr = aciRun(t, "aci", "simulate", "--model", pymdpModel, "--params", fitCSV, "--horizon", "1", "--gamma", "1", "--trials", "8", "--steps", "2",
		"--truth", filepath.Join(dir, "t.csv"), "-o", filepath.Join(dir, "sim.csv"), "--ppc", pymdpData, "--json")
	if code != 0 {
		t.Fatalf("simulate --ppc: exit %d: %s", code, stderr)
	}
	lines := replayLines(t, out)
	ppc, ok := lines[len(lines)-1]["ppc"].(map[string]any)
	if !ok {
		t.Fatalf("last line %v, want the ppc line", lines[len(lines)-1])
	}
	obs, sim := ppc["observed"].(map[string]any), ppc["simulated"].(map[string]any)
	if got := obs["log_likelihood"].(float64); math.Abs(got-want) > 1e-6 || obs["n_choices"].(float64) != 48 {
		t.Errorf("recorded: %v, want log-likelihood %v over 48 choices", obs, want)
	}
	if sim["n_choices"].(float64) != 48 || !(sim["log_likelihood"].(float64) < 0) {
		t.Errorf("simulated: %v, want 48 choices scored", sim)
	}
	if rows := ppc["by_trial"].([]any); len(rows) != 16 {
		t.Errorf("%d cells by trial and step, want 16 (8 trials of 2 choices)", len(rows))
	}
	code, _, stderr = aciRun(t, "aci", "simulate", "--model", pymdpModel, "--horizon", "1", "--truth", filepath.Join(dir, "t2.csv"), "-o", filepath.Join(dir, "s2.csv"), "--ppc", pymdpData)
	if code != 2 || !strings.Contains(stderr, "--ppc: needs --params") {
		t.Errorf("--ppc without --params: exit %d, %s", code, stderr)
	}
}
