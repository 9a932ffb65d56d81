package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/fit"
)

// TestFitFromCommandLine: `aci fit --free alpha` on pymdp's subjects: a
// provenance line, one line per subject with its estimate, SD, likelihood
// and evidence, and a group line whose log evidence is the sum of the
// subjects'.
func TestFitFromCommandLine(t *testing.T) {
	code, out, stderr := aciRun(t, "aci", "fit", "--model", pymdpModel, "--data", pymdpData,
		"--horizon", "1", "--gamma", "1", "--free", "alpha", "--prior", "alpha=0,2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := replayLines(t, out)
	if len(lines) != 5 {
		t.Fatalf("%d lines, want the provenance, 3 subjects and the group", len(lines))
	}
	if lines[0]["command"] != "aci fit" || lines[0]["settings"].(map[string]any)["prior"] != "alpha=0,2" {
		t.Errorf("first line %v, want the provenance of aci fit with the prior", lines[0])
	}
	sum := 0.0
	for i, subject := range []string{"s01", "s02", "s03"} {
		l := lines[1+i]
		if l["subject"] != subject || l["converged"] != true || l["n_choices"].(float64) != 16 {
			t.Errorf("line %d: %v", i+1, l)
			continue
		}
		alpha := l["params"].(map[string]any)["alpha"].(float64)
		sd := l["sd"].(map[string]any)["alpha"].(float64)
		if !(alpha > 0) || !(sd > 0) {
			t.Errorf("subject %s: alpha %v, sd %v", subject, alpha, sd)
		}
		ev := l["log_evidence"].(float64)
		if ll := l["log_likelihood"].(float64); !(ev < ll+l["log_prior"].(float64)+1) {
			t.Errorf("subject %s: log evidence %v against log-likelihood %v", subject, ev, ll)
		}
		sum += ev
	}
	g := lines[4]
	if g["group"] != "aci" || g["subjects"].(float64) != 3 || math.Abs(g["log_evidence"].(float64)-sum) > 1e-9 {
		t.Errorf("group line %v, want 3 subjects and log evidence %v", g, sum)
	}
}

// TestFitJobs: the output with --jobs 2 equals that with --jobs 1 (but for
// the setting in the provenance line), in JSON and CSV.
func TestFitJobs(t *testing.T) {
	for _, format := range []string{"--json", "--csv"} {
		var outs [2]string
		for j, jobs := range []string{"1", "2"} {
			code, out, stderr := aciRun(t, "aci", "fit", "--model", pymdpModel, "--data", pymdpData,
				"--horizon", "1", "--gamma", "1", "--free", "alpha,gamma", "--restarts", "2", "--jobs", jobs, format)
			if code != 0 {
				t.Fatalf("%s --jobs %s: exit %d: %s", format, jobs, code, stderr)
			}
			outs[j] = out
			if format == "--json" {
				outs[j] = out[strings.IndexByte(out, '\n')+1:] // the provenance names --jobs
			}
		}
		if outs[0] != outs[1] {
			t.Errorf("%s: --jobs 1 and --jobs 2 differ:\n%s\n%s", format, outs[0], outs[1])
		}
		if format == "--csv" && !strings.HasPrefix(outs[0], "subject,alpha,alpha_sd,gamma,gamma_sd,log_likelihood,log_evidence,aic,bic,n_choices,converged,reason\n") {
			t.Errorf("CSV header: %s", strings.SplitN(outs[0], "\n", 2)[0])
		}
	}
}

// TestFitZeroLikelihood: a model whose preferences forbid an outcome that
// the arms can give (C = 0 for the loss: G = +Inf) gives the recorded arm
// choices probability 0; the subjects' rows report a log-likelihood of
// -Inf (null) and why, and the command succeeds.
func TestFitZeroLikelihood(t *testing.T) {
	raw, err := os.ReadFile(pymdpModel)
	if err != nil {
		t.Fatal(err)
	}
	old := "\"log_C\": [\n    0.0,\n    3.0,\n    -3.0\n   ]"
	if !strings.Contains(string(raw), old) {
		t.Fatal("the reward modality's log_C is not where the test expects it")
	}
	model := filepath.Join(t.TempDir(), "zero.json")
	if err := os.WriteFile(model, []byte(strings.Replace(string(raw), old, `"C": [0.5, 0.5, 0]`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := aciRun(t, "aci", "fit", "--model", model, "--data", pymdpData,
		"--horizon", "1", "--gamma", "1", "--free", "alpha", "--restarts", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := replayLines(t, out)
	for _, l := range lines[1:4] {
		if l["log_likelihood"] != nil || l["converged"] != false || !strings.Contains(l["reason"].(string), "probability 0") || l["zero_choice"] == nil {
			t.Errorf("subject %v: log_likelihood %v, converged %v, reason %q, zero_choice %v", l["subject"], l["log_likelihood"], l["converged"], l["reason"], l["zero_choice"])
		}
	}
	if g := lines[4]; g["not_converged"].(float64) != 3 {
		t.Errorf("group line %v, want 3 not converged", g)
	}
	// The group level needs every subject's Laplace posterior: the
	// subjects' lines, then exit 2 naming the first subject without one.
	code, out, stderr = aciRun(t, "aci", "fit", "--model", model, "--data", pymdpData,
		"--horizon", "1", "--gamma", "1", "--free", "alpha", "--restarts", "1", "--json", "--group")
	if code != 2 || !strings.Contains(stderr, `--group: subject "s01": the group level needs every subject's Laplace posterior`) || len(replayLines(t, out)) != 4 {
		t.Errorf("--group without Laplace posteriors: exit %d, %q, output %q", code, stderr, out)
	}
}

// TestFitBadInput: every fault of the input exits 2 with one line naming
// the flag or file and what is wrong.
func TestFitBadInput(t *testing.T) {
	dir := t.TempDir()
	noChoices := filepath.Join(dir, "missed.csv")
	if err := os.WriteFile(noChoices, []byte("subject,trial,step,o_location,o_reward,o_cue,u_location\n"+
		"p1,1,0,centre,none,cue-left,go-right-arm\np1,1,1,right-arm,reward,cue-right,\n"+
		"p2,1,0,centre,none,cue-left,NA\np2,1,1,right-arm,reward,cue-right,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1"}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown free name", append([]string{"aci", "fit", "--free", "alpah"}, base...), `--free: unknown parameter "alpah"`},
		{"no free", append([]string{"aci", "fit"}, base...), "--free: missing"},
		{"prior sd 0", append([]string{"aci", "fit", "--free", "alpha", "--prior", "alpha=0,0"}, base...), `--prior alpha=0,0: SD "0", want a finite number > 0`},
		{"prior sd negative", append([]string{"aci", "fit", "--free", "alpha", "--prior", "alpha=0,-1"}, base...), `SD "-1"`},
		{"prior not free", append([]string{"aci", "fit", "--free", "alpha", "--prior", "gamma=0,1"}, base...), "--prior gamma=0,1: gamma is not among --free alpha"},
		{"prior syntax", append([]string{"aci", "fit", "--free", "alpha", "--prior", "alpha=1"}, base...), "want NAME=MEAN,SD"},
		{"no learning to fit", append([]string{"aci", "fit", "--free", "eta"}, base...), "--free: aci has no parameter eta with this model and these flags (it has gamma, alpha, pref)"},
		{"btai has no gamma", []string{"btai", "fit", "--free", "gamma", "--model", pymdpModel, "--data", pymdpData}, "--free: btai has no parameter gamma"},
		{"outcomes do not match", []string{"aci", "fit", "--free", "alpha", "--model", "../../examples/pomdp/tmaze.json", "--data", pymdpData, "--horizon", "1"}, "--data " + pymdpData},
		{"no choices", []string{"aci", "fit", "--free", "alpha", "--model", pymdpModel, "--data", noChoices, "--horizon", "1"}, "subject p2 has no choices to fit"},
		{"jobs", append([]string{"aci", "fit", "--free", "alpha", "--jobs", "0"}, base...), "--jobs: 0, want 1..1024"},
		{"method", append([]string{"aci", "fit", "--free", "alpha", "--method", "newton"}, base...), `flag -method: "newton", want auto, bfgs, nelder-mead`},
		{"json and csv", append([]string{"aci", "fit", "--free", "alpha", "--json", "--csv"}, base...), "--json and --csv: give one"},
	}
	for _, c := range cases {
		code, _, stderr := aciRun(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line with %q", c.name, code, stderr, c.want)
		}
	}
}

// TestFitCompare: --compare runs random-effects Bayesian model selection
// over this fit and the --json output of another: the last line holds the
// expected frequencies, exceedance and protected exceedance probabilities
// of fit.BMS on the two columns of log evidences, and the sums of each.
func TestFitCompare(t *testing.T) {
	other := filepath.Join(t.TempDir(), "gamma.json")
	code, out, stderr := aciRun(t, "aci", "fit", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1", "--free", "gamma", "--restarts", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(other, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	gammaLines := replayLines(t, out)
	code, out, stderr = aciRun(t, "aci", "fit", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1", "--free", "alpha", "--restarts", "1", "--json", "--compare", other)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := replayLines(t, out)
	last := lines[len(lines)-1]
	var lme [][]float64
	sum := [2]float64{}
	for i := 1; i <= 3; i++ {
		a, g := lines[i]["log_evidence"].(float64), gammaLines[i]["log_evidence"].(float64)
		lme = append(lme, []float64{a, g})
		sum[0] += a
		sum[1] += g
	}
	want, err := fit.BMS(lme, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The models are named by their model file and the settings that differ.
	if names := last["compare"].([]any); len(names) != 2 || names[0] != pymdpModel+" --free alpha" || names[1] != pymdpModel+" --free gamma" {
		t.Errorf("compare %v, want the model file and --free of each", names)
	}
	got := func(key string, k int) float64 { return last[key].([]any)[k].(float64) }
	for k := range 2 {
		if got("expected_frequencies", k) != want.Frequencies[k] || got("exceedance", k) != want.Exceedance[k] ||
			got("protected_exceedance", k) != want.ProtectedExceedance[k] || math.Abs(got("log_evidence", k)-sum[k]) > 1e-9 {
			t.Errorf("model %d: line %v, want frequencies %v, exceedance %v, protected %v", k+1, last, want.Frequencies, want.Exceedance, want.ProtectedExceedance)
		}
	}
	// Faults of --compare exit 2 with one line.
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = aciRun(t, "aci", "fit", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--free", "alpha", "--compare", bad)
	if code != 2 || !strings.Contains(stderr, "--compare "+bad+":1: not a line of fit --json") {
		t.Errorf("bad --compare file: exit %d, %q", code, stderr)
	}
}

// TestFitWorkedExample: the worked example of docs/fitting.md gives the
// numbers the page shows (subject 4's estimate, the group's sums).
func TestFitWorkedExample(t *testing.T) {
	code, out, stderr := aciRun(t, "aci", "fit", "--model", "../../examples/fit/tmaze.json", "--data", "../../examples/fit/subjects.csv",
		"--horizon", "1", "--gamma", "1", "--free", "alpha", "--prior", "alpha=0,1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc, err := os.ReadFile("../../docs/fitting.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.Contains(string(doc), line) {
			t.Errorf("docs/fitting.md does not show the line\n%s", line)
		}
	}
}

// TestFitAgents: btai fit and si fit run on the worked example of
// docs/behaviour.md: BTAI's α alone with BFGS and a Laplace SD, BTAI's
// pref with Nelder-Mead and the warning that replaces the Laplace
// approximation, and si's α and γ.
func TestFitAgents(t *testing.T) {
	const model, data = "../../examples/behaviour/model.json", "../../examples/behaviour/p01.csv"
	cases := []struct {
		args []string
		want func(l map[string]any) bool
	}{
		{[]string{"btai", "fit", "--model", model, "--data", data, "--iterations", "20", "--free", "alpha", "--restarts", "1", "--json"},
			func(l map[string]any) bool { return l["method"] == "bfgs" && l["sd"].(map[string]any)["alpha"] != nil }},
		{[]string{"btai", "fit", "--model", model, "--data", data, "--iterations", "20", "--free", "alpha,pref", "--restarts", "1", "--json"},
			func(l map[string]any) bool {
				return l["method"] == "nelder-mead" && l["log_evidence"] == nil && strings.Contains(l["warning"].(string), "piecewise constant in pref")
			}},
		{[]string{"si", "fit", "--model", model, "--data", data, "--depth", "1", "--free", "alpha,gamma", "--restarts", "1", "--json"},
			func(l map[string]any) bool { return l["method"] == "bfgs" && l["log_evidence"] != nil }},
	}
	for _, c := range cases {
		code, out, stderr := aciRun(t, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		lines := replayLines(t, out)
		if len(lines) != 3 || lines[1]["subject"] != "p01" || lines[1]["n_choices"].(float64) != 6 || !c.want(lines[1]) {
			t.Errorf("%v:\n%s", c.args, out)
		}
	}
}

// Every line of fit --json names its kind ("record": provenance, subject,
// group), and the subject records have one field set: the lines of one
// kind make a table without holes (pandas.read_json(lines=True) filtered
// on the kind gives one row per subject, no NaN among the parameters).
// Each subject's params, sd, theta, sd_theta and scale hold every free
// parameter of the group line, none of them null.
func TestFitJSONRecordKinds(t *testing.T) {
	code, out, stderr := aciRun(t, "aci", "fit", "--model", pymdpModel, "--data", pymdpData,
		"--horizon", "1", "--free", "alpha,gamma", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := replayLines(t, out)
	var kinds []string
	for _, l := range lines {
		k, _ := l["record"].(string)
		kinds = append(kinds, k)
	}
	if want := "provenance subject subject subject group"; strings.Join(kinds, " ") != want {
		t.Fatalf("record kinds %q, want %q", strings.Join(kinds, " "), want)
	}
	free := lines[len(lines)-1]["free"].([]any)
	var keys0 []string
	for _, l := range lines[1 : len(lines)-1] {
		var keys []string
		for k := range l {
			switch k {
			case "reason", "warning", "zero_choice", "theta_eb":
				continue // present only where they say something
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if keys0 == nil {
			keys0 = keys
		} else if !slices.Equal(keys, keys0) {
			t.Errorf("subject %v: fields %v, the first subject's %v", l["subject"], keys, keys0)
		}
		for _, field := range []string{"params", "sd", "theta", "sd_theta", "scale"} {
			m, _ := l[field].(map[string]any)
			if len(m) != len(free) {
				t.Errorf("subject %v: %s %v, want the free parameters %v", l["subject"], field, m, free)
			}
			for _, p := range free {
				if v, ok := m[p.(string)]; !ok || v == nil {
					t.Errorf("subject %v: %s.%v missing or null", l["subject"], field, p)
				}
			}
		}
	}
}
