package shard

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestFields: the keys and value texts of a record, as encoding/json
// reads them (compact, so the texts are the encoder's), nested values and
// strings holding commas, brackets and escaped quotes skipped whole; and
// what is not an object refused.
func TestFields(t *testing.T) {
	line := `{"a":1,"s":"x,]}\"y","n":{"b":[1,{"c":"}"}]},"arr":[[1,2],[3]],"t":true,"z":null,"f":-1.5e-3}`
	var want map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &want); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	if err := Fields([]byte(line), func(k, v []byte) { got[string(k)] = string(v) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %d keys", got, len(want))
	}
	for k, v := range want {
		if got[k] != string(v) {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	for _, bad := range []string{``, `[1]`, `{"a":1`, `{"a":"x}`, `{"a":[1}`, `{a:1}`} {
		if err := Fields([]byte(bad), func(k, v []byte) {}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestSetEach: Verify's check sees every line in unit order; Each and
// WriteLines give the lines in unit order, each with its newline; an error of
// Each's fn ends the reading before the next line, returned as it is.
func TestSetEach(t *testing.T) {
	dir := t.TempDir()
	writeShards(t, dir, 5, 2, job, 0)
	want, _, err := merged(dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	var b bytes.Buffer
	seen := 0
	if err := set.Verify(func(int, []byte) error { seen++; return nil }); err != nil || seen != strings.Count(want, "\n") {
		t.Errorf("Verify: %d lines seen, %v; want %d", seen, err, strings.Count(want, "\n"))
	}
	if err := set.WriteLines(&b); err != nil || b.String() != want {
		t.Errorf("WriteLines: %q, %v; want %q", b.String(), err, want)
	}
	b.Reset()
	stop := errors.New("stop")
	err = set.Each(func(u int, line []byte) error {
		if u == 1 {
			return stop
		}
		b.Write(line)
		return nil
	})
	if err != stop || b.String() != "[0,0]" {
		t.Errorf("fn refusing unit 1: %q, %v; want unit 0's line and %v", b.String(), err, stop)
	}
}

// TestRows: CSV rows written as JSON strings (quotes, commas, HTML
// characters and non-ASCII text kept) merge back to the same text; a
// line that is not a JSON string is refused, naming its unit.
func TestRows(t *testing.T) {
	if got := Lines([]byte("a,b\nc\n")); len(got) != 2 || got[0] != "a,b" || got[1] != "c" {
		t.Errorf("Lines: %q, want [a,b c]", got)
	}
	rows := func(u int) string { return `"x,""y""",<&>,` + strings.Repeat("é", u) + "\n" }
	dir := t.TempDir()
	var want strings.Builder
	for u := range 4 {
		want.WriteString(rows(u) + rows(u))
	}
	for k := 1; k <= 2; k++ {
		w, err := Create(dir, &Manifest{Shard: k, Of: 2, Units: 4, Unit: "subject", Job: json.RawMessage(job), Args: []string{"btai", "run"}, Lines: "csv", Head: []string{"h"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range Units(4, k, 2) {
			if err := w.Rows(u, []byte(rows(u)+rows(u))); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	set, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if err := set.Verify(nil); err != nil {
		t.Fatal(err)
	}
	if err := set.WriteLines(&b); err != nil || b.String() != want.String() || set.M.Lines != "csv" || len(set.M.Head) != 1 {
		t.Errorf("WriteLines: %q, %+v, %v; want %q", b.String(), set.M, err, want.String())
	}
	dir = t.TempDir()
	w, err := Create(dir, &Manifest{Shard: 1, Of: 1, Units: 1, Unit: "subject", Job: json.RawMessage(job), Args: []string{"btai", "run"}, Lines: "csv"})
	if err != nil {
		t.Fatal(err)
	}
	w.Line(0, []byte("[1]"))
	w.Commit()
	if _, _, err := merged(dir); err == nil || !strings.Contains(err.Error(), "line 2: unit 1's line is not a CSV row in a JSON string") {
		t.Errorf("lines not JSON strings: %v", err)
	}
}
