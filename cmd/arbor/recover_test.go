package main

import (
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const simUniform = "../../examples/pomdp/tmaze-uniform.json"

// keysOf returns the sorted keys of a JSON object.
func keysOf(v any) string {
	m, _ := v.(map[string]any)
	var k []string
	for n := range m {
		k = append(k, n)
	}
	slices.Sort(k)
	return strings.Join(k, ",")
}

// mustJSON encodes v.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dropSeconds removes every key holding "seconds" from JSON lines, so
// that runs can be compared.
func dropSeconds(lines []map[string]any) {
	for _, l := range lines {
		for k := range l {
			if strings.Contains(k, "seconds") {
				delete(l, k)
			}
		}
	}
}

// One free parameter, the action precision, drawn per subject and
// fitted back: the estimates follow the truth (r >= 0.8 on the log scale
// over 20 subjects × 40 trials of the T-maze at γ = 1 with learning;
// measured 0.86), the Laplace intervals cover most true values (measured
// 0.90), and the output has its documented lines and keys. --jobs 1 and
// --jobs 2 write the same (without -short).
func TestRecoverActionPrecision(t *testing.T) {
	dir := t.TempDir()
	png := filepath.Join(dir, "r.png")
	subjects, trials, small := "20", "40", recoverRace && testing.Short()
	if small {
		subjects, trials = "4", "4"
	}
	args := []string{"aci", "recover", "--model", simModel, "--process", simWorld, "--horizon", "2", "--steps", "2", "--gamma", "1",
		"--subjects", subjects, "--trials", trials, "--free", "alpha", "--draw", "alpha=lognormal:0,0.7", "--restarts", "1", "--json"}
	code, out, stderr := aciRun(t, append(args, "--jobs", "2", "--plot", png)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := replayLines(t, out)
	if lines[0]["command"] != "aci recover" || lines[0]["arbor"] == nil {
		t.Fatalf("first line %v, want the provenance", lines[0])
	}
	var nsub, params int
	for _, l := range lines[1:] {
		switch l["kind"] {
		case "subject":
			nsub++
			if got := keysOf(l); got != "fits,kind,model,subject,true" {
				t.Errorf("subject keys %s", got)
			}
			fits := l["fits"].([]any)
			if len(fits) != 1 {
				t.Fatalf("fits %v", fits)
			}
			if got := keysOf(fits[0]); got != "converged,log_evidence,log_likelihood,model,params,sd" && got != "converged,log_evidence,log_likelihood,model,params,reason,sd" {
				t.Errorf("fit keys %s", got)
			}
		case "param":
			params++
			want := "bias,bias_fitting_scale,coverage95,kind,model,n,n_laplace,param,posterior_correlation,r,r_fitting_scale,rmse,rmse_fitting_scale,scale"
			if got := keysOf(l); got != want {
				t.Errorf("param keys %s, want %s", got, want)
			}
			r := l["r_fitting_scale"].(float64)
			t.Logf("alpha: r(log) %.3f, r %.3f, bias(log) %.3f, RMSE(log) %.3f, coverage %.2f over %v",
				r, l["r"], l["bias_fitting_scale"], l["rmse_fitting_scale"], l["coverage95"], l["n_laplace"])
			if small {
				continue
			}
			if r < 0.8 {
				t.Errorf("alpha: r on the log scale %.3f, want >= 0.8", r)
			}
			if c := l["coverage95"].(float64); c < 0.7 {
				t.Errorf("alpha: coverage of the 95%% intervals %.2f, want >= 0.7", c)
			}
		}
	}
	last := lines[len(lines)-1]
	if want := map[bool]int{true: 4, false: 20}[small]; nsub != want || params != 1 || last["kind"] != "summary" || last["subjects"] != float64(want) {
		t.Errorf("%d subject lines, %d param lines, last %v", nsub, params, last)
	}
	if st, err := os.Stat(png); err != nil || st.Size() < 1000 {
		t.Errorf("--plot: %v", err)
	}
	if testing.Short() {
		return
	}
	code, out1, stderr := aciRun(t, append(args, "--jobs", "1")...)
	if code != 0 {
		t.Fatalf("--jobs 1: exit %d: %s", code, stderr)
	}
	a, b := replayLines(t, out1), lines
	dropSeconds(a)
	dropSeconds(b)
	a[0]["settings"], b[0]["settings"] = nil, nil // --jobs and --plot differ
	if d := mustJSON(t, a); d != mustJSON(t, b) {
		t.Error("--jobs 1 and --jobs 2 differ")
	}
}

// Model recovery: subjects of the learning T-maze (concentrations d) and
// of the same maze without learning (D = (1/2, 1/2)) in a world whose
// reward is always right, each fitted by both: the learner stops visiting
// the cue, the other keeps visiting it, so each model wins most of its own
// subjects; the confusion and BMS lines are written.
func TestRecoverModels(t *testing.T) {
	if recoverRace && testing.Short() {
		t.Skip("statistical: run without the race detector (TestRecoverActionPrecision covers recover's concurrency)")
	}
	code, out, stderr := aciRun(t, "aci", "recover", "--models", simModel+","+simUniform, "--process", simWorld, "--horizon", "2", "--steps", "2",
		"--gamma", "1", "--subjects", "6", "--trials", "12", "--free", "alpha", "--draw", "alpha=lognormal:0.5,0.3", "--restarts", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var conf map[string]any
	bms := 0
	for _, l := range replayLines(t, out)[1:] {
		switch l["kind"] {
		case "confusion":
			conf = l
		case "bms":
			bms++
			if got := keysOf(l); got != "alpha,bor,exceedance,exceedance_method,frequencies,generated_by,kind,models,protected_exceedance,subjects" {
				t.Errorf("bms keys %s", got)
			}
		}
	}
	if conf == nil || bms != 2 {
		t.Fatalf("confusion %v, %d bms lines", conf, bms)
	}
	counts := conf["counts"].([]any)
	t.Logf("confusion %v, undecided %v", counts, conf["undecided"])
	for g, row := range counts {
		r := row.([]any)
		if own := r[g].(float64); own < 4 {
			t.Errorf("model %d wins %v of its 6 subjects, want >= 4", g+1, own)
		}
	}
}

func TestRecoverBadInput(t *testing.T) {
	base := []string{"aci", "recover", "--model", simModel, "--horizon", "1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{base, "--free: missing"},
		{append(base, "--free", "zeta"), `--free zeta: ../../examples/pomdp/tmaze.json: parameter "zeta": the agent has gamma, alpha`},
		{append(base, "--free", "alpha,alpha"), "alpha given twice"},
		{append(base, "--free", "alpha", "--prior", "alpha=0,0"), `--prior alpha=0,0: SD "0", want finite > 0`},
		{append(base, "--free", "alpha", "--prior", "alpha"), "--prior \"alpha\": want NAME=MEAN,SD"},
		{append(base, "--free", "alpha", "--prior", "eta=0,1"), "--prior[eta]: eta is not a free parameter"},
		{append(base, "--free", "alpha", "--restarts", "0"), "--restarts: 0, want 1..100"},
		{append(base, "--free", "alpha", "--plot", "r.gif"), "--plot r.gif: unknown ending, want .svg, .pdf or .png"},
		{append(base, "--free", "alpha", "--models", simModel+","+simUniform), "--model and --models: give one"},
		{[]string{"aci", "recover", "--models", simModel, "--horizon", "1", "--free", "alpha"}, "1 files, want 2..100 (one model: --model)"},
		{[]string{"aci", "recover", "--models", simModel + ",../../examples/pomdp/tiger.json", "--horizon", "1", "--free", "alpha"}, "--models: ../../examples/pomdp/tmaze.json and ../../examples/pomdp/tiger.json:"},
		{[]string{"aci", "recover", "--models", simModel + "," + simUniform, "--horizon", "1", "--free", "eta"}, `tmaze-uniform.json: parameter "eta": the agent has`},
	} {
		code, out, stderr := aciRun(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "arbor aci recover: ") || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want 2 and %q", c.args[2:], code, out, stderr, c.want)
		}
	}
}

// TestRecoverPlotFormats: the recovery figure is written as SVG, PDF or
// PNG by the file's ending; the SVG parses as XML and names the parameter
// on its axes, the PDF has its header and end-of-file marker, the PNG its
// signature.
func TestRecoverPlotFormats(t *testing.T) {
	dir := t.TempDir()
	args := []string{"aci", "recover", "--model", simModel, "--process", simWorld, "--horizon", "1", "--steps", "2", "--gamma", "1",
		"--subjects", "3", "--trials", "3", "--free", "alpha", "--draw", "alpha=lognormal:0,0.7", "--restarts", "1", "--jobs", "1"}
	for _, ext := range []string{"svg", "pdf", "png"} {
		path := filepath.Join(dir, "r."+ext)
		if code, _, stderr := aciRun(t, append(args, "--plot", path)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", ext, code, stderr)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch ext {
		case "svg":
			var root struct{ XMLName xml.Name }
			if err := xml.Unmarshal(b, &root); err != nil || root.XMLName.Local != "svg" {
				t.Errorf("svg: root %v, %v", root.XMLName, err)
			}
			if !strings.Contains(string(b), "alpha") {
				t.Error("svg: no axis names the parameter alpha")
			}
		case "pdf":
			if !strings.HasPrefix(string(b), "%PDF-") || !strings.Contains(string(b[max(0, len(b)-64):]), "%%EOF") {
				t.Errorf("pdf: %d bytes without the header or the end-of-file marker", len(b))
			}
		case "png":
			if !strings.HasPrefix(string(b), "\x89PNG\r\n\x1a\n") {
				t.Errorf("png: no PNG signature")
			}
		}
	}
}

// recover --csv is a tidy table, one row per subject, fitting model and
// free parameter: the true value is the one simulate draws for that
// subject (its --truth table, same flags), the estimate and SD those of
// the subject's fits in recover --json; a free parameter not drawn has
// its flag's value as truth.
func TestRecoverCSV(t *testing.T) {
	common := []string{"--horizon", "1", "--draw", "alpha=lognormal:0,0.5", "--subjects", "3", "--trials", "4", "--steps", "2", "--seed", "5"}
	args := append([]string{"aci", "recover", "--models", simModel + "," + simUniform, "--free", "alpha,gamma", "--gamma", "8"}, common...)
	code, out, stderr := aciRun(t, append(args, "--csv")...)
	if code != 0 {
		t.Fatalf("--csv: exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0], ","); got != "model,subject,fit_model,param,true,estimate,sd,converged" || len(rows) != 1+2*3*2*2 {
		t.Fatalf("header %s, %d rows; want 2 models × 3 subjects × 2 fits × 2 parameters", got, len(rows)-1)
	}
	truth := filepath.Join(t.TempDir(), "truth.csv")
	if code, _, stderr := aciRun(t, append([]string{"aci", "simulate", "--model", simModel, "--truth", truth, "-o", os.DevNull}, common...)...); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	trueAlpha := map[string]string{}
	for _, r := range readCSV(t, truth)[1:] {
		trueAlpha[r[0]] = r[1]
	}
	code, out, stderr = aciRun(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	fits := map[string]float64{} // model/subject/fit_model/param/{estimate,sd}
	for _, l := range replayLines(t, out) {
		if l["kind"] != "subject" {
			continue
		}
		for _, f := range l["fits"].([]any) {
			f := f.(map[string]any)
			for _, key := range []string{"params", "sd"} {
				for p, v := range f[key].(map[string]any) {
					fits[fmt.Sprintf("%v/%v/%v/%s/%s", l["model"], l["subject"], f["model"], p, key)] = v.(float64)
				}
			}
		}
	}
	for _, r := range rows[1:] {
		want := "8"
		if r[3] == "alpha" {
			want = trueAlpha[r[1]]
		}
		if r[4] != want {
			t.Errorf("row %v: true %s, want %s", r, r[4], want)
		}
		key := strings.Join(r[:4], "/")
		for j, k := range []string{"params", "sd"} {
			if got, err := strconv.ParseFloat(r[5+j], 64); err != nil || got != fits[key+"/"+k] {
				t.Errorf("row %v: %s %s, recover --json has %v", r, rows[0][5+j], r[5+j], fits[key+"/"+k])
			}
		}
	}
}
