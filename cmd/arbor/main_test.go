package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestCoreUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(nil, &out, &errb); code != 2 {
		t.Errorf("no arguments: exit %d, want 2", code)
	}
	for _, c := range commands() {
		if !strings.Contains(out.String(), "  "+c.name) {
			t.Errorf("usage does not list %q:\n%s", c.name, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"--help"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "usage: arbor COMMAND") {
		t.Errorf("--help: exit %d, stdout %q", code, out.String())
	}
}

// TestCoreReportOneLine: whatever the error, stderr gets exactly one line,
// and the exit status says whether the input was at fault.
func TestCoreReportOneLine(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
	}{
		{badInput("first\nsecond"), 2},
		{errors.New("disk on fire\n"), 1},
		{nil, 0},
	} {
		var errb bytes.Buffer
		code := report(&errb, "arbor x", tc.err)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.err, code, tc.code)
		}
		if tc.err != nil && (strings.Count(errb.String(), "\n") != 1 || !strings.HasPrefix(errb.String(), "arbor x: ")) {
			t.Errorf("%v: stderr %q, want one line starting with the command", tc.err, errb.String())
		}
	}
}
