package behaviour

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// Carry keeps the extra columns of the records in order of first
// appearance, leaves out the output's own, and finds each subject's values
// by name: a subject that lacks a column (JSON lines may name it later)
// gets "".
func TestCarry(t *testing.T) {
	recs := []SubjectRecord{
		{Subject: "a", ExtraColumns: []string{"rt_ms", "p_action"}, Trials: []TrialRecord{{Extra: [][]string{{"310", "0.5"}, {"320", "0.25"}}}}},
		{Subject: "b", ExtraColumns: []string{"rt_ms", "p_action", "block"}, Trials: []TrialRecord{{Extra: [][]string{{"400", "1", "x\"y"}}}}},
	}
	c := NewCarry(recs, func(col string) bool { return col == "p_action" })
	if want := []string{"rt_ms", "block"}; !slices.Equal(c.Columns, want) {
		t.Fatalf("columns %v, want %v", c.Columns, want)
	}
	for _, tc := range []struct {
		rec, trial, step int
		want             []string
	}{
		{0, 0, 1, []string{"320", ""}},
		{1, 0, 0, []string{"400", "x\"y"}},
		{0, 0, 0, []string{"310", ""}}, // back to the first subject
		{0, 0, 5, []string{"", ""}},    // no such step
	} {
		if got := c.Values(nil, &recs[tc.rec], tc.trial, tc.step); !slices.Equal(got, tc.want) {
			t.Errorf("Values(%d, %d, %d) = %q, want %q", tc.rec, tc.trial, tc.step, got, tc.want)
		}
	}
	var buf bytes.Buffer
	if err := c.Encode(json.NewEncoder(&buf), map[string]int{"step": 0}, &recs[1], 0, 0); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), `{"step":0,"rt_ms":"400","block":"x\"y"}`+"\n"; got != want {
		t.Errorf("Encode: %s, want %s", got, want)
	}
	if got := string(c.AppendJSON([]byte("{}\n"), &recs[0], 0, 0)); got != `{"rt_ms":"310","block":""}`+"\n" {
		t.Errorf("AppendJSON of an empty object: %s", got)
	}
	if got := string(c.AppendJSON([]byte("[1]"), &recs[0], 0, 0)); got != "[1]" {
		t.Errorf("AppendJSON of an array: %s, want it unchanged", got)
	}
	none := NewCarry(recs, func(string) bool { return true })
	buf.Reset()
	if err := none.Encode(json.NewEncoder(&buf), map[string]int{"step": 0}, &recs[0], 0, 0); err != nil || buf.String() != "{\"step\":0}\n" {
		t.Errorf("no columns: %q, %v", buf.String(), err)
	}
}
