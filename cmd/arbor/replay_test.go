package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const (
	pymdpModel = "../../aci/testdata/pymdp-tmaze/tmaze.json"
	pymdpData  = "../../aci/testdata/pymdp-tmaze/subjects.csv"
)

// replayLines decodes every line of out into a map.
func replayLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		lines = append(lines, v)
	}
	return lines
}

// TestReplayPymdpFromCommandLine: `aci replay` of the subjects pymdp's own
// agent simulated, at each subject's α, gives the log-likelihood pymdp
// computes (expected.json, to 1e-6); the output begins with the
// provenance line, and only the per-subject lines carry log_likelihood.
func TestReplayPymdpFromCommandLine(t *testing.T) {
	raw, err := os.ReadFile("../../aci/testdata/pymdp-tmaze/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Alpha         map[string]float64 `json:"alpha"`
		LogLikelihood map[string]float64 `json:"log_likelihood"`
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	for subject, alpha := range want.Alpha {
		code, out, stderr := aciRun(t, "aci", "replay", "--model", pymdpModel, "--data", pymdpData,
			"--horizon", "1", "--gamma", "1", "--action-precision", strconv.FormatFloat(alpha, 'g', -1, 64), "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		lines := replayLines(t, out)
		if lines[0]["arbor"] == nil || lines[0]["command"] != "aci replay" {
			t.Fatalf("first line %v, want the provenance", lines[0])
		}
		found := false
		for _, l := range lines[1:] {
			_, hasLL := l["log_likelihood"]
			if l["subject"] == nil || !hasLL {
				continue
			}
			if l["subject"] != subject {
				continue
			}
			found = true
			if got := l["log_likelihood"].(float64); math.Abs(got-want.LogLikelihood[subject]) > 1e-6 {
				t.Errorf("subject %s at α %v: log-likelihood %.10f, pymdp %.10f", subject, alpha, got, want.LogLikelihood[subject])
			}
			if l["n_choices"].(float64) != 16 {
				t.Errorf("subject %s: %v choices, want 16 (8 trials of 2)", subject, l["n_choices"])
			}
		}
		if !found {
			t.Errorf("no per-subject line for %s", subject)
		}
	}
}

// csvRows reads CSV text into header-keyed rows.
func csvRows(t *testing.T, text string) ([]string, []map[string]string) {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	for _, r := range recs[1:] {
		row := map[string]string{}
		for i, h := range recs[0] {
			row[h] = r[i]
		}
		rows = append(rows, row)
	}
	return recs[0], rows
}

// TestRunCSVReplayRoundTrip: a run's own CSV replayed with the same
// settings and seed gives back, step by step, the action distributions the
// run printed (to 1e-12), for the classic agent (sampled choices at α = 3,
// two agents learning the context over trials) and for BTAI (softmax at a
// low precision, so that the draws matter, and the visits rule). The
// classic agent's replay draws nothing: it refuses --select and --seed,
// which only its run uses.
func TestRunCSVReplayRoundTrip(t *testing.T) {
	model := "../../examples/pomdp/tmaze.json"
	cases := []struct {
		name    string
		run     []string // the agent's flags, shared by run and replay
		runOnly []string // flags of the run alone
	}{
		{"aci", []string{"aci", "--horizon", "2", "--action-precision", "3"}, []string{"--select", "sample", "--seed", "5"}},
		{"btai softmax", []string{"btai", "--iterations", "40", "--action-select", "softmax", "--action-precision", "2", "--seed", "3"}, nil},
		{"btai visits", []string{"btai", "--iterations", "40", "--action-select", "visits", "--seed", "3"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{c.run[0], "run", "--model", model, "--episodes", "3", "--agents", "2", "--steps", "3", "--csv"}, c.run[1:]...)
			args = append(args, c.runOnly...)
			code, out, stderr := aciRun(t, args...)
			if code != 0 {
				t.Fatalf("run: exit %d: %s", code, stderr)
			}
			header, runRows := csvRows(t, out)
			data := filepath.Join(t.TempDir(), "run.csv")
			if err := os.WriteFile(data, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			args = append([]string{c.run[0], "replay", "--model", model, "--data", data, "--csv"}, c.run[1:]...)
			code, out, stderr = aciRun(t, args...)
			if code != 0 {
				t.Fatalf("replay: exit %d: %s", code, stderr)
			}
			_, repRows := csvRows(t, out)
			if len(repRows) != len(runRows) || len(runRows) != 2*3*4 {
				t.Fatalf("%d run rows, %d replay rows, want 24 each (2 agents × 3 trials × 4 steps)", len(runRows), len(repRows))
			}
			var pCols []string
			for _, h := range header {
				if strings.HasPrefix(h, "p_") {
					pCols = append(pCols, h)
				}
			}
			if len(pCols) != 4 {
				t.Fatalf("probability columns %v, want one per action (4)", pCols)
			}
			scored := 0
			for i, run := range runRows {
				rep := repRows[i]
				for _, k := range []string{"subject", "trial", "step", "o_where", "o_cue", "o_reward", "u_location"} {
					if run[k] != rep[k] {
						t.Fatalf("row %d: %s %q in the run, %q in the replay", i, k, run[k], rep[k])
					}
				}
				if run["u_location"] == "" {
					continue
				}
				for _, k := range pCols {
					a, _ := strconv.ParseFloat(run[k], 64)
					b, _ := strconv.ParseFloat(rep[k], 64)
					if math.Abs(a-b) > 1e-12 {
						t.Errorf("row %d: %s %v in the run, %v in the replay", i, k, a, b)
					}
				}
				if rep["p_action"] != rep["p_"+run["u_location"]] {
					t.Errorf("row %d: p_action %s, but p_%s is %s", i, rep["p_action"], run["u_location"], rep["p_"+run["u_location"]])
				}
				scored++
			}
			if scored != 2*3*3 {
				t.Errorf("%d scored rows, want 18", scored)
			}
		})
	}
}

// TestProcessNaiveAgentLearns: with --process the world differs from the
// agent's beliefs: the world always rewards the right arm, the agent starts
// with a flat belief over the context (d = 1, 1) and learns it over
// trials. Its learned d comes to favour the true context, and the CSV
// shows it: the probability of going straight to the right arm at the
// first step grows from the first trial to the last.
func TestProcessNaiveAgentLearns(t *testing.T) {
	raw, err := os.ReadFile("../../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	factors := spec["factors"].([]any)
	ctx := factors[1].(map[string]any)
	states := ctx["states"].([]any)
	right := -1
	for i, s := range states {
		if strings.Contains(s.(string), "right") {
			right = i
		}
	}
	if right < 0 {
		t.Fatalf("no right context among %v", states)
	}
	dir := t.TempDir()
	naive := filepath.Join(dir, "naive.json")
	ctx["d"] = []float64{1, 1}
	b, _ := json.Marshal(spec)
	if err := os.WriteFile(naive, b, 0o644); err != nil {
		t.Fatal(err)
	}
	world := filepath.Join(dir, "world.json")
	delete(ctx, "d")
	D := []float64{0, 0}
	D[right] = 1
	ctx["D"] = D
	b, _ = json.Marshal(spec)
	if err := os.WriteFile(world, b, 0o644); err != nil {
		t.Fatal(err)
	}
	const trials = 12
	code, out, stderr := aciRun(t, "aci", "run", "--model", naive, "--process", world, "--horizon", "2",
		"--episodes", strconv.Itoa(trials), "--steps", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := replayLines(t, out)
	last := lines[len(lines)-2] // the last episode, before the summary
	d := last["concentrations"].(map[string]any)["factors"].(map[string]any)["context"].(map[string]any)["d"].([]any)
	if dr, dw := d[right].(float64), d[1-right].(float64); dr < dw+trials/2 {
		t.Errorf("learned d %v after %d trials: the true context should lead by at least %d", d, trials, trials/2)
	}
	code, out, stderr = aciRun(t, "aci", "run", "--model", naive, "--process", world, "--horizon", "2",
		"--episodes", strconv.Itoa(trials), "--steps", "2", "--csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, rows := csvRows(t, out)
	var col string
	for k := range rows[0] {
		if strings.HasPrefix(k, "p_") && strings.Contains(k, "right") {
			col = k
		}
	}
	first, _ := strconv.ParseFloat(rows[0][col], 64)
	lastRow := rows[len(rows)-3] // step 0 of the last trial
	if lastRow["trial"] != strconv.Itoa(trials) || lastRow["step"] != "0" {
		t.Fatalf("row %v is not step 0 of the last trial", lastRow)
	}
	lastP, _ := strconv.ParseFloat(lastRow[col], 64)
	if !(lastP > first+0.2) {
		t.Errorf("%s at the first step: %v in trial 1, %v in trial %d; want the naive agent to learn to go right", col, first, lastP, trials)
	}
}

// TestReplayBadData: faults in recorded behaviour exit 2 with one line
// naming the file, the line and the column (or what is wrong with the
// row), before any replay output.
func TestReplayBadData(t *testing.T) {
	header := "subject,trial,step,o_location,o_reward,o_cue,u_location\n"
	good := "s1,1,0,centre,none,cue-left,go-right-arm\ns1,1,1,right-arm,reward,cue-right,\n"
	cases := []struct {
		name, data string
		want       []string
	}{
		{"missing column", "subject,trial,step,o_location,o_reward,u_location\n" + good, []string{"o_cue"}},
		{"unknown modality", strings.Replace(header, "o_cue", "o_clue", 1) + good, []string{":1:", "o_clue"}},
		{"unknown outcome", header + strings.Replace(good, "reward,cue-right", "rewrd,cue-right", 1), []string{":3:", "o_reward", "rewrd"}},
		{"unknown control", header + strings.Replace(good, "go-right-arm", "go-up", 1), []string{":2:", "u_location", "go-up"}},
		{"index out of range", header + strings.Replace(good, "centre", "9", 1), []string{":2:", "o_location", "9"}},
		{"steps not 0, 1, 2", header + strings.Replace(good, "s1,1,1,", "s1,1,2,", 1), []string{":3:", "step"}},
		{"action on the last row", header + good[:len(good)-1] + "go-cue\n", []string{":3:", "u_location"}},
		{"not UTF-8", header + strings.Replace(good, "s1", "s\xff", 1), []string{":2:", "UTF-8"}},
		{"a factor that is not controllable", strings.Replace(header, "u_location", "u_context", 1) + good, []string{":1:", "u_context"}},
		// go-right-arm leads to the right arm for sure: the left arm at the
		// next step has probability 0 under the model.
		{"impossible observation", header + strings.Replace(good, "right-arm,reward", "left-arm,reward", 1), []string{":3:", "probability 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data.csv")
			if err := os.WriteFile(data, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, stderr := aciRun(t, "aci", "replay", "--model", pymdpModel, "--data", data, "--horizon", "1", "--json")
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr %q", code, stderr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("stderr is not one line: %q", stderr)
			}
			if !strings.Contains(stderr, "data.csv") {
				t.Errorf("stderr %q does not name the file", stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
			if strings.Contains(out, `"log_likelihood"`) {
				t.Errorf("a per-subject line was written before the fault:\n%s", out)
			}
		})
	}
	// An endless file: the input limit (ARBOR_MAX_INPUT) stops the read.
	t.Run("endless file", func(t *testing.T) {
		t.Setenv(maxInputEnv, "6K") // above the model (3.5 KB), below the data (18 KB)
		data := filepath.Join(t.TempDir(), "data.csv")
		big := header + strings.Repeat(good, 200)
		if err := os.WriteFile(data, []byte(big), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := aciRun(t, "aci", "replay", "--model", pymdpModel, "--data", data, "--horizon", "1")
		if code != 2 || !strings.Contains(stderr, "data.csv") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("exit %d, stderr %q; want 2 and one line naming the file", code, stderr)
		}
	})
	// A deterministic BTAI rule cannot score recorded choices.
	code, _, stderr := btaiRun(t, "replay", "--model", pymdpModel, "--data", pymdpData, "--action-select", "most-visited", "--iterations", "5")
	if code != 2 || !strings.Contains(stderr, "softmax") || !strings.Contains(stderr, "visits") {
		t.Errorf("most-visited: exit %d, stderr %q; want 2 naming softmax and visits", code, stderr)
	}
}

// TestReplayMissedResponse: a missed response (NA) is not scored, and the
// agent carries its belief forward under its own action distribution. On
// the T-maze the location is observed exactly, so after a missed first
// response followed by the right arm's observation the agent's next
// decision is the one it makes after going to the right arm itself: the
// same action probabilities at step 1, one choice fewer, and a
// log-likelihood short of exactly ln P(go-right-arm) at step 0.
func TestReplayMissedResponse(t *testing.T) {
	header := "subject,trial,step,o_location,o_reward,o_cue,u_location\n"
	rows := "s1,1,0,centre,none,cue-left,%s\ns1,1,1,right-arm,reward,cue-right,go-centre\ns1,1,2,centre,none,cue-left,\n"
	replay := func(u string) []map[string]any {
		data := filepath.Join(t.TempDir(), "data.csv")
		if err := os.WriteFile(data, []byte(header+strings.Replace(rows, "%s", u, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := aciRun(t, "aci", "replay", "--model", pymdpModel, "--data", data, "--horizon", "1", "--gamma", "1", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return replayLines(t, out)[1:]
	}
	taken, missed := replay("go-right-arm"), replay("NA")
	if missed[0]["p_action"] != nil || missed[0]["u"].(map[string]any)["location"] != "NA" {
		t.Errorf("missed step: %v, want no p_action and u NA", missed[0])
	}
	a, b := taken[1]["action_probs"].([]any), missed[1]["action_probs"].([]any)
	for i := range a {
		if math.Abs(a[i].(float64)-b[i].(float64)) > 1e-12 {
			t.Errorf("step 1 action probabilities %v after the missed response, %v after go-right-arm", b, a)
			break
		}
	}
	llTaken, llMissed := taken[3]["log_likelihood"].(float64), missed[3]["log_likelihood"].(float64)
	if taken[3]["n_choices"].(float64) != 2 || missed[3]["n_choices"].(float64) != 1 {
		t.Errorf("choices %v and %v, want 2 and 1", taken[3]["n_choices"], missed[3]["n_choices"])
	}
	if d := llTaken - llMissed - taken[0]["log_p_action"].(float64); math.Abs(d) > 1e-12 {
		t.Errorf("log-likelihoods %v (taken) and %v (missed) differ by %v more than ln P(go-right-arm)", llTaken, llMissed, d)
	}
}

// replay carries every extra column of --data to each step's output
// unchanged: an rt_ms column, written into the recorded behaviour here,
// comes back in every --csv row and every --json step line with the
// input's value for that subject, trial and step. A replay's own output
// replayed again keeps one p_action column (the new values), and rt_ms.
func TestReplayCarriesExtraColumns(t *testing.T) {
	in := readCSV(t, "../../examples/behaviour/p01.csv")
	rt := map[string]string{} // subject/trial/step -> rt_ms
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(append(in[0], "rt_ms"))
	for i, row := range in[1:] {
		v := strconv.Itoa(300 + 7*i)
		rt[strings.Join(row[:3], "/")] = v
		w.Write(append(row, v))
	}
	w.Flush()
	data := filepath.Join(t.TempDir(), "rt.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"aci", "replay", "--model", "../../examples/behaviour/model.json", "--data", data, "--horizon", "1"}
	code, out, stderr := aciRun(t, append(args, "--csv")...)
	if code != 0 {
		t.Fatalf("--csv: exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(rows[0], "rt_ms")
	if col < 0 || len(rows) != len(in) {
		t.Fatalf("--csv: header %v, %d rows; want rt_ms and %d rows", rows[0], len(rows), len(in))
	}
	for _, row := range rows[1:] {
		if want := rt[strings.Join(row[:3], "/")]; row[col] != want || want == "" {
			t.Errorf("--csv row %v: rt_ms %q, want %q", row[:3], row[col], want)
		}
	}
	code, out, stderr = aciRun(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	steps := 0
	for _, l := range replayLines(t, out)[1:] {
		if _, subject := l["log_likelihood"]; subject {
			continue
		}
		steps++
		key := fmt.Sprintf("%v/%v/%v", l["subject"], l["trial"], l["step"])
		if l["rt_ms"] != rt[key] {
			t.Errorf("--json step %s: rt_ms %v, want %q", key, l["rt_ms"], rt[key])
		}
	}
	if steps != len(in)-1 {
		t.Errorf("--json: %d step lines, want %d", steps, len(in)-1)
	}
	again := filepath.Join(t.TempDir(), "again.csv")
	_, csvOut, _ := aciRun(t, append(args, "--csv")...)
	if err := os.WriteFile(again, []byte(csvOut), 0o644); err != nil {
		t.Fatal(err)
	}
	args[5] = again
	code, out, stderr = aciRun(t, append(args, "--csv")...)
	if header := strings.SplitN(out, "\n", 2)[0]; code != 0 || header != strings.Join(rows[0], ",") {
		t.Errorf("replay of a replay: exit %d %s, header %s, want %s", code, stderr, header, strings.Join(rows[0], ","))
	}
}
