package behaviour

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The T-maze of testdata (README.md there): factors location (4
// states, controls go-centre, go-right-arm, go-left-arm, go-cue) and
// context (2 states, uncontrollable); modalities location (centre,
// right-arm, left-arm, cue), reward (none, reward, loss) and cue
// (cue-right, cue-left). Joint observations vary the last modality
// fastest: o = 6·location + 2·reward + cue (strides 3·2 and 2). The only
// controllable factor is location and context has one control, so the
// joint action is the location control.
const tmazeHeader = "subject,trial,step,o_location,o_reward,o_cue,u_location\n"

func loadBehaviourTMaze(tb testing.TB) *pomdp.Model {
	tb.Helper()
	m, err := pomdp.Load("testdata/tmaze.json")
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func readReference(tb testing.TB) []byte {
	tb.Helper()
	data, err := os.ReadFile("testdata/subjects.csv")
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// namedSingle is a single-factor model whose names need CSV quoting: a
// comma and quotes, a newline, an outcome named "1" at index 0 (a name
// wins over an index), and a control named NA (a missed response), which
// the writer writes by its index. Its numbers are any valid ones: columns
// of A summing to 1, actions 0 and 1 keeping the state and 2 swapping it,
// uniform C and D.
func namedSingle(tb testing.TB) *pomdp.Model {
	tb.Helper()
	third := 1.0 / 3
	m, err := pomdp.New(pomdp.Spec{
		NumStates: 2, NumObs: 3, NumActions: 3,
		A: []float64{0.5, 0.2, 0.3, 0.3, 0.2, 0.5},
		B: []float64{1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0},
		C: []float64{third, third, third}, D: []float64{0.5, 0.5},
		Actions:      []string{`wait, then "go"`, "NA", "x"},
		Observations: []string{"1", "0", "two, \"quoted\""},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// twoControls has two controllable factors around an uncontrollable one:
// hand (left, right), weather (one control), gaze (up, down). Joint
// actions vary gaze fastest: u = 2·hand + gaze.
func twoControls(tb testing.TB) *pomdp.Model {
	tb.Helper()
	id2 := []float64{1, 0, 0, 1}
	m, err := pomdp.NewFactorised(pomdp.FactorisedSpec{
		Factors: []pomdp.Factor{
			{Name: "hand", NumStates: 2, Controls: []string{"left", "right"}, B: append(append([]float64(nil), id2...), id2...), D: []float64{1, 0}},
			{Name: "weather", NumStates: 2, B: id2, D: []float64{0.5, 0.5}},
			{Name: "gaze", NumStates: 2, Controls: []string{"up", "down"}, B: append(append([]float64(nil), id2...), id2...), D: []float64{1, 0}},
		},
		Modalities: []pomdp.Modality{{Name: "light", NumOutcomes: 2, Outcomes: []string{"dark", "bright"}, DependsOn: []string{"hand"}, A: id2}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func TestReadReference(t *testing.T) {
	m := loadBehaviourTMaze(t)
	recs, err := Read(bytes.NewReader(readReference(t)), "subjects.csv", m)
	if err != nil {
		t.Fatal(err)
	}
	// testdata/README.md: subjects s01..s03, 8 trials of 3 steps, 2
	// choices per trial, so 16 per subject.
	const subjects, trials, steps, choices = 3, 8, 3, 16
	if len(recs) != subjects {
		t.Fatalf("%d subjects, want %d", len(recs), subjects)
	}
	for i, rec := range recs {
		if want := []string{"s01", "s02", "s03"}[i]; rec.Subject != want {
			t.Errorf("subject %d: %q, want %q", i, rec.Subject, want)
		}
		if len(rec.Trials) != trials {
			t.Fatalf("%s: %d trials, want %d", rec.Subject, len(rec.Trials), trials)
		}
		n := 0
		for j, tr := range rec.Trials {
			if tr.Trial != j+1 || len(tr.Obs) != steps || len(tr.Outcomes) != steps || len(tr.Actions) != steps-1 || len(tr.Lines) != steps {
				t.Errorf("%s trial %d: %+v, want trial %d with %d steps", rec.Subject, j, tr, j+1, steps)
			}
			for s, o := range tr.Obs {
				if got, err := m.EncodeObs(tr.Outcomes[s]); err != nil || got != o {
					t.Errorf("%s trial %d step %d: EncodeObs(%v) = %d, %v, want %d", rec.Subject, tr.Trial, s, tr.Outcomes[s], got, err, o)
				}
			}
			for _, u := range tr.Actions {
				if u >= 0 {
					n++
				}
			}
			if tr.Extra != nil {
				t.Errorf("%s trial %d: Extra %v, want nil (no extra columns)", rec.Subject, tr.Trial, tr.Extra)
			}
		}
		if n != choices {
			t.Errorf("%s: %d choices, want %d", rec.Subject, n, choices)
		}
	}
	// By hand, lines 2-4 of subjects.csv (s01, trial 1):
	//   centre,none,cue-left,go-right-arm       o = 6·0+2·0+1 = 1, u = 1
	//   right-arm,reward,cue-right,go-right-arm o = 6·1+2·1+0 = 8, u = 1
	//   right-arm,reward,cue-right,             o = 8
	// and line 8 (s01, trial 3, step 0) chose go-cue, control 3.
	first := recs[0].Trials[0]
	want := TrialRecord{
		Trial: 1, Obs: []int{1, 8, 8},
		Outcomes: [][]int{{0, 0, 1}, {1, 1, 0}, {1, 1, 0}},
		Actions:  []int{1, 1}, Lines: []int{2, 3, 4},
	}
	if d := cmp.Diff(want, first); d != "" {
		t.Errorf("s01 trial 1 mismatch (-want +got):\n%s", d)
	}
	if got := m.ObsName(8); got != "right-arm+reward+cue-right" {
		t.Errorf("ObsName(8) = %q, want right-arm+reward+cue-right", got)
	}
	if got, line := recs[0].Trials[2].Actions[0], recs[0].Trials[2].Lines[0]; got != 3 || line != 8 || m.ActionName(got) != "go-cue" {
		t.Errorf("s01 trial 3 step 0: action %d (%s) on line %d, want 3 (go-cue) on line 8", got, m.ActionName(got), line)
	}
	// s02 starts after the header and s01's 24 rows: line 26.
	if got := recs[1].Trials[0].Lines[0]; got != 26 {
		t.Errorf("s02's first line %d, want 26", got)
	}
}

// TestReaderNext reads one subject at a time, then io.EOF for
// good.
func TestReaderNext(t *testing.T) {
	r := NewReader(bytes.NewReader(readReference(t)), "subjects.csv", loadBehaviourTMaze(t), nil)
	var got []string
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec.Subject)
	}
	if d := cmp.Diff([]string{"s01", "s02", "s03"}, got); d != "" {
		t.Errorf("subjects mismatch (-want +got):\n%s", d)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("Next after the end: %v, want io.EOF", err)
	}
}

// writeAll writes recs with a writer of opts and returns the output.
func writeAll(tb testing.TB, m *pomdp.Model, recs []SubjectRecord, opts *WriterOptions) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, m, opts)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range recs {
		if err := w.WriteSubject(&recs[i]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

var ignoreLines = cmpopts.IgnoreFields(TrialRecord{}, "Lines")

func TestRoundTripReference(t *testing.T) {
	m := loadBehaviourTMaze(t)
	ref := readReference(t)
	recs, err := Read(bytes.NewReader(ref), "subjects.csv", m)
	if err != nil {
		t.Fatal(err)
	}
	// The writer writes pymdp's file byte for byte: same names, same
	// header, an empty last u.
	out := writeAll(t, m, recs, nil)
	if d := cmp.Diff(string(ref), string(out)); d != "" {
		t.Errorf("written CSV mismatch (-reference +written):\n%s", d)
	}
	js := writeAll(t, m, recs, &WriterOptions{JSONLines: true})
	back, err := Read(bytes.NewReader(js), "subjects.jsonl", m)
	if err != nil {
		t.Fatal(err)
	}
	// JSON lines have no header: every line is one less.
	if d := cmp.Diff(recs, back, ignoreLines); d != "" {
		t.Errorf("JSON lines round trip mismatch (-want +got):\n%s", d)
	}
	if got := back[1].Trials[0].Lines[0]; got != 25 {
		t.Errorf("s02's first JSON line %d, want 25", got)
	}
}

// TestRoundTrip writes steps by hand (missed responses, extra
// columns, names that need quoting) in both formats and reads them back.
func TestRoundTrip(t *testing.T) {
	type step struct {
		subject          string
		trial, step, obs int
		action           int
		missed           bool
		extra            []string
		outcomes         []int
	}
	// Indices are the model's: 3 outcomes and 3 actions in namedSingle, 2
	// outcomes and 4 joint actions in twoControls.
	for _, tc := range []struct {
		name  string
		m     *pomdp.Model
		steps []step
	}{
		{"single-factor", namedSingle(t), []step{
			{`a "quoted", subject`, 1, 0, 2, 0, false, []string{"0.41", "x, y"}, []int{2}},
			{`a "quoted", subject`, 1, 1, 0, 1, false, []string{"0.5"}, []int{0}},             // control 1 is named NA
			{`a "quoted", subject`, 1, 2, 1, -1, true, []string{"", "line\nbreak"}, []int{1}}, // missed
			{`a "quoted", subject`, 1, 3, 1, -1, false, nil, []int{1}},
			{`a "quoted", subject`, 4, 0, 0, -1, false, nil, []int{0}}, // a trial of one step
			{" s2", 2, 0, 1, 2, false, nil, []int{1}},
			{" s2", 2, 1, 2, -1, false, []string{"ü"}, []int{2}},
		}},
		{"two controllable factors", twoControls(t), []step{
			{"s", 1, 0, 1, 2, false, nil, []int{1}}, // hand right, gaze up
			{"s", 1, 1, 0, -1, true, nil, []int{0}},
			{"s", 1, 2, 0, 3, false, nil, []int{0}}, // hand right, gaze down
			{"s", 1, 3, 1, -1, false, nil, []int{1}},
		}},
	} {
		for _, jsonl := range []bool{false, true} {
			opts := &WriterOptions{JSONLines: jsonl, Extra: []string{"rt", "note, \"free\""}}
			var buf bytes.Buffer
			w, err := NewWriter(&buf, tc.m, opts)
			if err != nil {
				t.Fatal(err)
			}
			var want []SubjectRecord
			for _, s := range tc.steps {
				if err := w.WriteStep(s.subject, s.trial, s.step, s.obs, s.action, s.missed, s.extra...); err != nil {
					t.Fatal(err)
				}
				if len(want) == 0 || want[len(want)-1].Subject != s.subject {
					want = append(want, SubjectRecord{Subject: s.subject, ExtraColumns: opts.Extra})
				}
				rec := &want[len(want)-1]
				if len(rec.Trials) == 0 || rec.Trials[len(rec.Trials)-1].Trial != s.trial {
					rec.Trials = append(rec.Trials, TrialRecord{Trial: s.trial})
				}
				tr := &rec.Trials[len(rec.Trials)-1]
				tr.Obs = append(tr.Obs, s.obs)
				tr.Outcomes = append(tr.Outcomes, s.outcomes)
				if s.missed || s.action >= 0 {
					tr.Actions = append(tr.Actions, s.action)
				}
				tr.Extra = append(tr.Extra, append(append([]string(nil), s.extra...), make([]string, 2-len(s.extra))...))
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			got, err := Read(&buf, "written", tc.m)
			if err != nil {
				t.Fatalf("%s, JSON lines %v: %v", tc.name, jsonl, err)
			}
			if d := cmp.Diff(want, got, ignoreLines, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("%s, JSON lines %v: mismatch (-want +got):\n%s", tc.name, jsonl, d)
			}
		}
	}
}

// TestReadSingleFactor reads a single-factor model's o and u
// columns: ../pomdp/testdata/tiny-pomdp.json names its actions (stay,
// move) but not its 2 observations.
func TestReadSingleFactor(t *testing.T) {
	m, err := pomdp.Load("../pomdp/testdata/tiny-pomdp.json")
	if err != nil {
		t.Fatal(err)
	}
	if m.FactorName(0) != "" || m.ModalityName(0) != "" {
		t.Fatalf("tiny-pomdp.json: factor %q, modality %q, want unnamed", m.FactorName(0), m.ModalityName(0))
	}
	for _, data := range []string{
		"subject,trial,step,o,u\na,1,0,0,stay\na,1,1,1,1\na,1,2,1,\n",
		"\uFEFF" + "step,o,u,subject,trial,rt\r\n0,0,stay,a,1,0.3\r\n1,1,1,a,1,0.4\r\n2,1,,a,1,\r\n",
		`{"subject":"a","trial":1,"step":0,"o":0,"u":"stay"}` + "\n" +
			`{"subject":"a","trial":1,"step":1,"o":"1","u":1}` + "\n\n" +
			`{"subject":"a","trial":1,"step":2,"o":1,"u":null}`,
	} {
		recs, err := Read(strings.NewReader(data), "tiny", m)
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		// stay and move are actions 0 and 1 in tiny-pomdp.json.
		want := TrialRecord{Trial: 1, Obs: []int{0, 1, 1}, Outcomes: [][]int{{0}, {1}, {1}}, Actions: []int{0, 1}}
		if len(recs) != 1 || len(recs[0].Trials) != 1 {
			t.Fatalf("%q: %+v, want one subject with one trial", data, recs)
		}
		if d := cmp.Diff(want, recs[0].Trials[0], ignoreLines, cmpopts.IgnoreFields(TrialRecord{}, "Extra")); d != "" {
			t.Errorf("%q: mismatch (-want +got):\n%s", data, d)
		}
	}
}

// TestReadJointAction checks that the u columns of two
// controllable factors make DecodeAction's joint action.
func TestReadJointAction(t *testing.T) {
	m := twoControls(t)
	data := "subject,trial,step,o_light,u_gaze,u_hand\ns,1,0,dark,down,right\ns,1,1,bright,0,0\ns,1,2,bright,,\n"
	recs, err := Read(strings.NewReader(data), "two", m)
	if err != nil {
		t.Fatal(err)
	}
	got := recs[0].Trials[0].Actions
	// u = 2·hand + gaze: (right, down) = 3, (left, up) = 0.
	if d := cmp.Diff([]int{3, 0}, got); d != "" {
		t.Errorf("actions mismatch (-want +got):\n%s", d)
	}
	if c := m.DecodeAction(nil, got[0]); c[0] != 1 || c[1] != 0 || c[2] != 1 {
		t.Errorf("DecodeAction(%d) = %v, want [1 0 1]", got[0], c)
	}
}

// manyKeys is JSON lines of one-step trials, each naming a new extra key:
// k0, k1, ...
func manyKeys() string {
	var b strings.Builder
	for i := range MaxJSONExtra + 1 {
		fmt.Fprintf(&b, `{"subject":"s","trial":%d,"step":0,"o":{"location":0,"reward":0,"cue":0},"k%d":1}`+"\n", i+1, i)
	}
	return b.String()
}

// endless is an input without end: line(1), line(2), ...
type endless struct {
	line func(i int) string
	i    int
	rest string
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if e.rest == "" {
			e.i++
			e.rest = e.line(e.i)
		}
		k := copy(p[n:], e.rest)
		n += k
		e.rest = e.rest[k:]
	}
	return n, nil
}

// tooLarge returns the line of line(1), line(2), ... at which the input
// passes max bytes.
func tooLarge(line func(i int) string, max int) int {
	i, n := 0, 0
	for n <= max {
		i++
		n += len(line(i))
	}
	return i
}

// endlessRows is a header, then one endless trial of valid rows.
func endlessRows(i int) string {
	if i == 1 {
		return tmazeHeader
	}
	return fmt.Sprintf("s01,1,%d,centre,none,cue-left,go-centre\n", i-2)
}

// blankLines is 4 KiB lines of spaces: no format is ever detected.
func blankLines(int) string { return strings.Repeat(" ", 4095) + "\n" }

func TestReadErrors(t *testing.T) {
	tmaze, single, two := loadBehaviourTMaze(t), namedSingle(t), twoControls(t)
	// Line numbers count the header as line 1; "fields" and "bytes" count
	// from 1 along a line.
	h := tmazeHeader
	ok0 := "s01,1,0,centre,none,cue-left,go-cue\n"   // line 2 in most cases
	ok1 := "s01,1,1,cue,none,cue-left,go-left-arm\n" // line 3
	last2 := "s01,1,2,left-arm,reward,cue-left,\n"   // line 4
	json0 := `{"subject":"s01","trial":1,"step":0,"o":{"location":"centre","reward":"none","cue":0},"u":{"location":"go-cue"}}` + "\n"
	long := strings.Repeat("x", DefaultMaxLineBytes)
	for _, tc := range []struct {
		name   string
		m      *pomdp.Model
		opts   *Options
		data   string
		in     io.Reader // instead of data
		line   int
		column string // "" for none; "field x" for JSON
		want   string
	}{
		// The header.
		{name: "missing column", data: "subject,trial,step,o_location,o_reward,u_location\n", line: 1, column: "column o_cue", want: "missing from the header"},
		{name: "missing key column", data: "subject, trial,step,o_location,o_reward,o_cue,u_location\n", line: 1, column: "column trial", want: `the header has " trial"`},
		{name: "missing u column", data: "subject,trial,step,o_location,o_reward,o_cue\n", line: 1, column: "column u_location", want: "missing"},
		{name: "unknown o column", data: "\n\nsubject,trial,step,o_location,o_rewrd,o_cue,u_location\n", line: 3, column: "column o_rewrd", want: `no modality "rewrd"`},
		{name: "unknown u column", data: "subject,trial,step,o_location,o_reward,o_cue,u_location,u_walk\n", line: 1, column: "column u_walk", want: `no controllable factor "walk"`},
		{name: "uncontrollable u column", data: "subject,trial,step,o_location,o_reward,o_cue,u_location,u_context\n", line: 1, column: "column u_context", want: "not controllable"},
		{name: "o in a factorised model", data: "subject,trial,step,o,o_location,o_reward,o_cue,u_location\n", line: 1, column: "column o", want: "names its modalities"},
		{name: "o_ in a single-factor model", m: single, data: "subject,trial,step,o,o_x,u\n", line: 1, column: "column o_x", want: "its column is o"},
		{name: "duplicate column", data: "subject,trial,step,o_location,o_reward,o_cue,u_location,o_cue\n", line: 1, column: "column o_cue", want: "appears twice in the header (fields 6 and 8)"},
		{name: "duplicate extra column", data: "subject,trial,step,rt,o_location,o_reward,o_cue,u_location,rt\n", line: 1, column: "column rt", want: "appears twice"},
		{name: "empty header field", data: "subject,trial,step,o_location,o_reward,o_cue,u_location,\n", line: 1, want: "field 8 of the header is empty"},
		{name: "empty file", data: " \n\r\n", want: "empty file"},
		// Values.
		{name: "unknown outcome", data: h + ok0 + "s01,1,1,cue,rewrd,cue-left,go-left-arm\n", line: 3, column: "column o_reward", want: `unknown outcome "rewrd" (want none, reward, loss or an index 0..2)`},
		{name: "missing outcome", data: h + "s01,1,0,,none,cue-left,\n", line: 2, column: "column o_location", want: "missing outcome"},
		{name: "outcome index out of range", data: h + "s01,1,0,centre,3,cue-left,\n", line: 2, column: "column o_reward", want: "outcome index 3 out of range (want none, reward, loss or an index 0..2)"},
		{name: "unknown control", data: h + "s01,1,0,centre,none,cue-left,go-up\n", line: 2, column: "column u_location", want: `unknown control "go-up" (want go-centre, go-right-arm, go-left-arm, go-cue, NA or an index 0..3)`},
		{name: "control index out of range", data: h + "s01,1,0,centre,none,cue-left,4\n", line: 2, column: "column u_location", want: "control index 4 out of range"},
		{name: "negative index", data: h + "s01,1,0,centre,-1,cue-left,\n", line: 2, column: "column o_reward", want: `unknown outcome "-1"`},
		{name: "wrong number of fields", data: h + "s01,1,0,centre,none,cue-left\n", line: 2, want: "6 fields, want 7"},
		{name: "empty subject", data: h + ",1,0,centre,none,cue-left,\n", line: 2, column: "column subject", want: "empty"},
		{name: "trial not an integer", data: h + "s01,one,0,centre,none,cue-left,\n", line: 2, column: "column trial", want: `"one", want an integer >= 1`},
		{name: "trial 0", data: h + "s01,0,0,centre,none,cue-left,\n", line: 2, column: "column trial", want: `"0", want an integer >= 1`},
		{name: "step negative", data: h + "s01,1,-1,centre,none,cue-left,\n", line: 2, column: "column step", want: `"-1", want an integer >= 0`},
		{name: "step 1.0", data: h + "s01,1,1.0,centre,none,cue-left,\n", line: 2, column: "column step", want: "want an integer >= 0"},
		// The sequence of rows.
		{name: "trial not starting at step 0", data: h + "s01,1,1,centre,none,cue-left,\n", line: 2, column: "column step", want: "1, want 0 (a trial starts at step 0)"},
		{name: "step skipped", data: h + ok0 + "s01,1,2,cue,none,cue-left,\n", line: 3, column: "column step", want: "2 after step 0 on line 2, want 1"},
		{name: "step repeated", data: h + ok0 + ok1 + last2 + "s01,1,0,centre,none,cue-left,go-cue\n", line: 5, column: "column step", want: "0 after step 2 on line 4, want 3"},
		{name: "action on the last row", data: h + ok0 + ok1 + "s01,1,2,left-arm,reward,cue-left,go-cue\n", line: 4, column: "column u_location", want: `"go-cue" on the last row of trial 1 (want empty`},
		{name: "action on the last row before another trial", data: h + ok0 + "s01,1,1,cue,none,cue-left,go-cue\ns01,2,0,centre,none,cue-left,\n", line: 3, column: "column u_location", want: "on the last row of trial 1"},
		{name: "NA on the last row", data: h + ok0 + "s01,1,1,cue,none,cue-left,NA\n", line: 3, column: "column u_location", want: "NA on the last row of trial 1"},
		{name: "missing action", data: h + "s01,1,0,centre,none,cue-left,\n" + ok1, line: 2, column: "column u_location", want: "empty, but step 1 of trial 1 follows on line 3"},
		{name: "trial twice", data: h + ok0 + ok1 + last2 + "s01,2,0,centre,none,cue-left,\ns01,1,0,centre,none,cue-left,\n", line: 6, column: "column trial", want: `trial 1 after trial 2 (line 5) of subject "s01"`},
		{name: "subject not contiguous", data: h + "s01,1,0,centre,none,cue-left,\ns02,1,0,centre,none,cue-left,\ns01,2,0,centre,none,cue-left,\n", line: 4, column: "column subject", want: `subject "s01" again (its rows ended on line 2)`},
		{name: "controls not all given", m: two, data: "subject,trial,step,o_light,u_hand,u_gaze\ns,1,0,dark,left,\n", line: 2, column: "column u_gaze", want: `empty while u_hand is "left"`},
		{name: "NA and a control", m: two, data: "subject,trial,step,o_light,u_hand,u_gaze\ns,1,0,dark,NA,up\n", line: 2, column: "column u_gaze", want: `"up" while u_hand is NA`},
		// Bytes.
		// \xff is the 23rd byte of "s01,1,1,cue,none,cue-l\xffeft,".
		{name: "not UTF-8", data: h + ok0 + "s01,1,1,cue,none,cue-l\xffeft,\n", line: 3, want: "not valid UTF-8 (byte 23 of the line)"},
		// 1048576 and 67108864 bytes: the default limits, 1 MiB and 64 MiB.
		{name: "line too long", data: h + "s01,1,0,centre,none,cue-left," + long + "\n", line: 2, want: "line longer than 1048576 bytes"},
		// The header has 55 bytes before its newline; the row 69.
		{name: "line too long (option)", opts: &Options{MaxLineBytes: 60}, data: h + "s01,1,0,centre,none,cue-left," + strings.Repeat("x", 40) + "\n", line: 2, want: "line longer than 60 bytes"},
		// 1000: any limit a few rows long.
		{name: "endless file", opts: &Options{MaxBytes: 1000}, in: &endless{line: endlessRows}, line: tooLarge(endlessRows, 1000), want: "file larger than 1000 bytes"},
		{name: "endless blank file (default limit)", in: &endless{line: blankLines}, line: tooLarge(blankLines, DefaultMaxBytes), want: "file larger than 67108864 bytes"},
		// The quote is byte 12 of "s01,1,0,cen\"tre"; the line of the
		// unterminated quote has 32 bytes with its newline.
		{name: "CSV syntax", data: h + "s01,1,0,cen\"tre,none,cue-left,\n", line: 2, want: `CSV: bare " in non-quoted-field`},
		{name: "unterminated quote", data: h + "s01,1,0,\"centre,none,cue-left,\n", line: 2, want: "CSV: extraneous or missing"},
		// JSON lines.
		{name: "JSON unknown outcome", data: json0 + `{"subject":"s01","trial":1,"step":1,"o":{"location":"cue","reward":"rewrd","cue":0}}`, line: 2, column: "field o.reward", want: `unknown outcome "rewrd"`},
		{name: "JSON missing modality", data: `{"subject":"s01","trial":1,"step":0,"o":{"location":"centre","reward":0}}`, line: 1, column: "field o.cue", want: "missing"},
		{name: "JSON unknown modality", data: `{"subject":"s01","trial":1,"step":0,"o":{"location":"centre","reward":0,"cue":0,"smell":1}}`, line: 1, column: "field o.smell", want: `no modality "smell"`},
		{name: "JSON missing trial", data: `{"subject":"s01","step":0,"o":{}}`, line: 1, column: "field trial", want: "missing"},
		{name: "JSON trial 1.5", data: `{"subject":"s01","trial":1.5,"step":0,"o":{}}`, line: 1, column: "field trial", want: "1.5, want an integer >= 1"},
		{name: "JSON step as a string", data: `{"subject":"s01","trial":1,"step":"0","o":{}}`, line: 1, column: "field step", want: `"0", want an integer >= 0`},
		{name: "JSON subject a number", data: `{"subject":1,"trial":1,"step":0,"o":{}}`, line: 1, column: "field subject", want: "want a string"},
		{name: "JSON duplicate key", data: `{"subject":"s01","trial":1,"trial":2}`, line: 1, column: "field trial", want: "appears twice"},
		{name: "JSON o_ key", data: `{"subject":"s01","trial":1,"step":0,"o_cue":1}`, line: 1, column: "field o_cue", want: "unknown"},
		// encoding/json stops after byte 17, the comma before }.
		{name: "JSON syntax", data: json0 + "\n" + `{"subject":"s01",}`, line: 3, want: "invalid JSON near byte 17"},
		{name: "JSON not an object", data: json0 + `{"subject":"s01","trial":1,"step":1,"o":[1]}`, line: 2, column: "field o", want: "want a JSON object"},
		{name: "JSON trailing data", data: `{"subject":"s01"} {}`, line: 1, want: "trailing data"},
		{name: "JSON action on the last row", data: json0, line: 1, column: "field u.location", want: `"go-cue" on the last row of trial 1`},
		{name: "JSON control a float", data: `{"subject":"s01","trial":1,"step":0,"o":{"location":0,"reward":0,"cue":0},"u":{"location":1.5}}`, line: 1, column: "field u.location", want: "1.5, want a control"},
		{name: "JSON too many extra keys", data: manyKeys(), line: MaxJSONExtra + 1, column: "field k64", want: "more than 64 distinct extra keys"},
		{name: "JSON single-factor u object", m: single, data: `{"subject":"s","trial":1,"step":0,"o":0,"u":{"x":1}}`, line: 1, column: "field u", want: "want a control"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			if m == nil {
				m = tmaze
			}
			in := tc.in
			if in == nil {
				in = strings.NewReader(tc.data)
			}
			r := NewReader(in, "data.csv", m, tc.opts)
			var err error
			for err == nil {
				_, err = r.Next()
			}
			if err == io.EOF {
				t.Fatalf("no error, want %q", tc.want)
			}
			msg := err.Error()
			t.Log(msg)
			var be *Error
			if !errors.As(err, &be) {
				t.Errorf("%T %q, want an *Error", err, msg)
			}
			prefix := "behaviour: data.csv: "
			if tc.line > 0 {
				prefix = "behaviour: data.csv:" + strconv.Itoa(tc.line) + ": "
			}
			if tc.column != "" {
				prefix += tc.column + ": "
			}
			if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tc.want) || strings.ContainsAny(msg, "\n\r") {
				t.Errorf("error\n  %q\nwant one line starting %q and containing %q", msg, prefix, tc.want)
			}
			// The error is sticky.
			if _, again := r.Next(); again == nil || again.Error() != msg {
				t.Errorf("Next after an error: %v, want %q again", again, msg)
			}
		})
	}
}

func TestWriterErrors(t *testing.T) {
	tmaze := loadBehaviourTMaze(t)
	if _, err := NewWriter(io.Discard, nil, nil); err == nil || !strings.HasPrefix(err.Error(), "behaviour: ") {
		t.Errorf("nil model: %v, want a behaviour: error", err)
	}
	for _, extra := range [][]string{{"o_x"}, {"subject"}, {""}, {"rt", "rt"}, {"a\r\nb"}, {"\xff"}} {
		if _, err := NewWriter(io.Discard, tmaze, &WriterOptions{Extra: extra}); err == nil || !strings.HasPrefix(err.Error(), "behaviour: ") {
			t.Errorf("extra columns %q: %v, want a behaviour: error", extra, err)
		}
	}
	// A control named NA whose index is another control's name cannot be
	// written so as to read back.
	id := []float64{1, 0, 0, 1}
	clash, err := pomdp.NewFactorised(pomdp.FactorisedSpec{
		Factors:    []pomdp.Factor{{Name: "f", NumStates: 2, Controls: []string{"1", "NA"}, B: append(append([]float64(nil), id...), id...), D: []float64{1, 0}}},
		Modalities: []pomdp.Modality{{Name: "m", NumOutcomes: 2, DependsOn: []string{"f"}, A: id}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewWriter(io.Discard, clash, nil); err == nil || !strings.Contains(err.Error(), `control "NA"`) {
		t.Errorf("NA clash: %v, want an error naming control \"NA\"", err)
	}
	w, err := NewWriter(io.Discard, tmaze, nil)
	if err != nil {
		t.Fatal(err)
	}
	// tmaze has 24 joint observations and 4 actions.
	for _, tc := range []struct {
		subject                  string
		trial, step, obs, action int
		missed                   bool
		extra                    []string
	}{
		{"", 1, 0, 0, -1, false, nil},
		{"s", 0, 0, 0, -1, false, nil},
		{"s", 1, -1, 0, -1, false, nil},
		{"s", 1, 0, 24, -1, false, nil},
		{"s", 1, 0, -1, -1, false, nil},
		{"s", 1, 0, 0, 4, false, nil},
		{"s", 1, 0, 0, -2, false, nil},
		{"s", 1, 0, 0, 1, true, nil},
		{"s", 1, 0, 0, -1, false, []string{"too many"}},
		{"a\r\nb", 1, 0, 0, -1, false, nil},
		{"\xff", 1, 0, 0, -1, false, nil},
	} {
		if err := w.WriteStep(tc.subject, tc.trial, tc.step, tc.obs, tc.action, tc.missed, tc.extra...); err == nil || !strings.HasPrefix(err.Error(), "behaviour: ") {
			t.Errorf("WriteStep%+v: %v, want a behaviour: error", tc, err)
		}
	}
	bad := SubjectRecord{Subject: "s", Trials: []TrialRecord{{Trial: 1, Obs: []int{0, 1}}}}
	if err := w.WriteSubject(&bad); err == nil || !strings.Contains(err.Error(), "0 actions for 2 observations") {
		t.Errorf("WriteSubject: %v, want 0 actions for 2 observations", err)
	}
}

// BenchmarkRead reads the reference file (3 subjects, 72 rows)
// and the same rows for 300 subjects (7,200 rows): the cost of a reader,
// and the cost of a row.
func BenchmarkRead(b *testing.B) {
	m := loadBehaviourTMaze(b)
	ref := readReference(b)
	recs, err := Read(bytes.NewReader(ref), "subjects.csv", m)
	if err != nil {
		b.Fatal(err)
	}
	var many []SubjectRecord
	for i := range 100 {
		for _, rec := range recs {
			rec.Subject = fmt.Sprintf("%s-%d", rec.Subject, i)
			many = append(many, rec)
		}
	}
	for _, bc := range []struct {
		name string
		data []byte
	}{{"reference", ref}, {"300-subjects", writeAll(b, m, many, nil)}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read(bytes.NewReader(bc.data), "subjects.csv", m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
