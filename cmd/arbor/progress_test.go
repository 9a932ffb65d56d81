package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestProgress: with --progress, aci run and btai run report on standard
// error ("progress: k/n episodes, ...", reports every 20 ms here instead of
// every second), and standard output is byte for byte what it is without
// --progress but for the timing figures and the setting of --progress in
// the provenance line; without --progress, standard error
// (a buffer, not a terminal) stays empty.
func TestProgress(t *testing.T) {
	old := progressEvery
	progressEvery = 20 * time.Millisecond
	t.Cleanup(func() { progressEvery = old })
	for _, args := range [][]string{
		{"btai", "run", "--maze", btaiData("1.maze"), "--preset", "paper", "--episodes", "8", "--steps", "12", "--jobs", "2", "--json"},
		{"aci", "run", "--maze", btaiData("1.maze"), "--horizon", "6", "--episodes", "2", "--steps", "6", "--jobs", "1", "--json"},
	} {
		var out1, err1, out2, err2 bytes.Buffer
		if code := run(args, &out1, &err1); code != 0 || err1.Len() != 0 {
			t.Fatalf("%v: exit %d, stderr %q (want nothing without --progress)", args, code, err1.String())
		}
		if code := run(append(args, "--progress"), &out2, &err2); code != 0 {
			t.Fatalf("%v --progress: exit %d, stderr %q", args, code, err2.String())
		}
		// The provenance line states the setting of --progress.
		with := strings.Replace(out2.String(), `"progress":"true"`, `"progress":"false"`, 1)
		if aciMaskPlanning(btaiMaskTiming(out1.String())) != aciMaskPlanning(btaiMaskTiming(with)) {
			t.Errorf("%v: stdout changed with --progress:\n%s\n---\n%s", args, out1.String(), out2.String())
		}
		lines := strings.Split(strings.TrimSpace(err2.String()), "\n")
		if len(lines) == 0 || lines[0] == "" {
			t.Errorf("%v --progress: no report on stderr", args)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "progress: ") || !strings.Contains(l, "episodes,") {
				t.Errorf("%v --progress: stderr line %q", args, l)
			}
		}
	}
}

// aciMaskPlanning replaces aci run's timing figures (planning_seconds) by T.
func aciMaskPlanning(s string) string {
	return aciPlanningRe.ReplaceAllString(s, "${1}T")
}

var aciPlanningRe = regexp.MustCompile(`("planning_seconds":)[0-9.e+-]+`)
