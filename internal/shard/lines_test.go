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

// TestMergeTo: the lines in unit order, each with its newline, emit
// seeing each first; emit's error ends the merge before its line is
// written.
func TestMergeTo(t *testing.T) {
	dir := t.TempDir()
	writeShards(t, dir, 5, 2, job, 0)
	want, _, err := merged(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	seen := 0
	if _, err := MergeTo(dir, &b, func(int, []byte) error { seen++; return nil }); err != nil || b.String() != want || seen != strings.Count(want, "\n") {
		t.Errorf("MergeTo: %q (%d lines seen), %v; want %q", b.String(), seen, err, want)
	}
	b.Reset()
	if _, err := MergeTo(dir, &b, nil); err != nil || b.String() != want {
		t.Errorf("MergeTo without emit: %q, %v; want %q", b.String(), err, want)
	}
	b.Reset()
	stop := errors.New("stop")
	_, err = MergeTo(dir, &b, func(u int, _ []byte) error {
		if u == 1 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || b.String() != "[0,0]\n" {
		t.Errorf("emit refusing unit 1: %q, %v; want unit 0's line and %v", b.String(), err, stop)
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
		w, err := Create(dir, &Manifest{Shard: k, Of: 2, Units: 4, Unit: "subject", Job: json.RawMessage(job), Lines: "csv", Head: []string{"h"}})
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
	m, err := MergeRows(dir, &b)
	if err != nil || b.String() != want.String() || m.Lines != "csv" || len(m.Head) != 1 {
		t.Errorf("MergeRows: %q, %+v, %v; want %q", b.String(), m, err, want.String())
	}
	dir = t.TempDir()
	writeShards(t, dir, 2, 1, job, 0)
	if _, err := MergeRows(dir, &b); err == nil || !strings.HasPrefix(err.Error(), "unit 1: a line that is not a CSV row in a JSON string") {
		t.Errorf("lines not JSON strings: %v", err)
	}
}
