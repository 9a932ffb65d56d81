package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBadInputNamesTheFlag: faults that exited 1, exited 0 or blamed
// another flag are bad input (exit 2) in one line naming the flag and the
// file or value at fault, with nothing on standard output and every file
// as it was: a missing --data, "-" (standard input is /dev/stdin), data
// without subjects, a --compare file that cannot be read (it said
// ----compare) or lacks a subject of the data (found before any fit, not
// after every fit was printed), a prior mean outside the box the fit
// searches and an SD too small to fit (they blamed --data, or said the
// likelihood was 0 at every starting point), a draw whose median
// overflows (it blamed --model), and more models than BMS compares.
func TestBadInputNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(dir, name) }
	m, x := in("m.json"), in("x.csv")
	copyFile(t, "../../examples/behaviour/model.json", m)
	copyFile(t, "../../examples/behaviour/p01.csv", x)
	data, err := os.ReadFile(x)
	if err != nil {
		t.Fatal(err)
	}
	head, rows, _ := strings.Cut(string(data), "\n")
	write := func(name, text string) string {
		if err := os.WriteFile(in(name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return in(name)
	}
	header := write("header.csv", head+"\n")
	two := write("two.csv", head+"\n"+rows+strings.ReplaceAll(rows, "p01,", "p02,"))
	fitArgs := []string{"aci", "fit", "--model", m, "--horizon", "1", "--free", "alpha"}
	// A fit of p01 alone, to compare with a fit of p01 and p02.
	code, out, stderr := aciRun(t, append(fitArgs, "--data", x, "--json")...)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	one := write("one.jsonl", out)
	simArgs := []string{"aci", "simulate", "--model", m, "--horizon", "1", "--subjects", "2", "--trials", "1", "--steps", "2", "--truth", in("t.csv")}
	recArgs := []string{"aci", "recover", "--model", m, "--horizon", "1", "--free", "alpha", "--subjects", "2", "--trials", "1", "--steps", "2"}
	many := strings.TrimSuffix(strings.Repeat(m+",", 101), ",")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"aci", "replay", "--model", m, "--horizon", "1", "--data", in("missing.csv")}, "--data " + in("missing.csv") + ": cannot read: no such file or directory"},
		{append(fitArgs, "--data", in("missing.csv")), "--data " + in("missing.csv") + ": cannot read: no such file or directory"},
		{[]string{"btai", "replay", "--model", m, "--data", ""}, "--data: missing (the recorded behaviour)"},
		{append(fitArgs, "--data", ""), "--data: missing (the recorded behaviour)"},
		{[]string{"si", "replay", "--model", m, "--depth", "1", "--data", "-"}, "--data -: cannot read: no such file or directory (standard input is /dev/stdin)"},
		{[]string{"aci", "replay", "--model", m, "--horizon", "1", "--data", dir}, "--data " + dir + ": cannot read: is a directory"},
		{append(fitArgs, "--data", header), "--data " + header + ": no subjects"},
		{[]string{"aci", "replay", "--model", m, "--horizon", "1", "--data", header}, "--data " + header + ": no subjects"},
		{append(fitArgs, "--data", x, "--compare", in("missing.jsonl")), "arbor aci fit: --compare " + in("missing.jsonl") + ": cannot read"},
		{append(fitArgs, "--data", two, "--compare", one), "--compare " + one + ": no line for subject p02 of --data " + two},
		{append(fitArgs, "--data", x, "--compare", strings.TrimSuffix(strings.Repeat(one+",", 100), ",")), "--compare: 100 files, at most 99"},
		{append(fitArgs, "--data", x, "--prior", "alpha=1e308,1e308"), "--prior alpha=1e308,1e308: mean 1e+308: want a finite number within ±25"},
		{append(fitArgs, "--data", x, "--prior", "alpha=0,1e-300"), "--prior alpha=0,1e-300: SD 1e-300: want a finite number >= 0.001"},
		{append(recArgs, "--prior", "alpha=0,1e-300"), "--prior alpha=0,1e-300: SD 1e-300: want a finite number >= 0.001"},
		{append(fitArgs, "--data", x, "--restarts", "1001"), "--restarts: 1001, want 1..1000"},
		{append(simArgs, "--draw", "alpha=lognormal:1000,1"), "--draw alpha=lognormal:1000,1: MU 1000 puts the median at +Inf, outside the positive domain of alpha"},
		{append(simArgs, "--draw", "alpha=lognormal:700,30"), "--draw alpha=lognormal:700,30: subject 1: parameter alpha: +Inf"},
		{append(recArgs, "--draw", "alpha=lognormal:0,0.0001"), "--draw alpha=lognormal:0,0.0001: as the prior of the fit (no --prior alpha given): SD 0.0001"},
		// Refused before --subjects 0 is: the models are counted first.
		{[]string{"aci", "recover", "--models", many, "--horizon", "1", "--free", "alpha", "--subjects", "0"}, "--models: 101 files, want 2..100"},
	} {
		before := snapshot(t, dir)
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != 2 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), c.want) || strings.Contains(errb.String(), "----") {
			t.Errorf("%.200s: exit %d, stdout %.80q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, out.String(), errb.String(), c.want)
		}
		after := snapshot(t, dir)
		for name, b := range before {
			if after[name] != b {
				t.Errorf("%.200s: %s changed", strings.Join(c.args, " "), name)
			}
		}
		if len(after) != len(before) {
			t.Errorf("%.200s: %d files, were %d", strings.Join(c.args, " "), len(after), len(before))
		}
	}
}

// TestDataFIFOTimeout: a --data FIFO that no program writes is refused
// after the read timeout (shortened here to 200 ms), exit 2, naming the
// flag and the file (it was "i/o timeout", exit 1, naming neither).
func TestDataFIFOTimeout(t *testing.T) {
	old := readTimeout
	readTimeout = 200 * time.Millisecond
	t.Cleanup(func() { readTimeout = old })
	fifo := filepath.Join(t.TempDir(), "data.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	m := "../../examples/behaviour/model.json"
	for _, args := range [][]string{
		{"aci", "replay", "--model", m, "--horizon", "1", "--data", fifo},
		{"aci", "fit", "--model", m, "--horizon", "1", "--free", "alpha", "--data", fifo},
	} {
		code, errs := runArbor(args...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--data "+fifo+": cannot read: nothing to read after 200ms (a FIFO without a writer?)") {
			t.Errorf("%s: exit %d, stderr %q", args[1], code, errs)
		}
	}
}

// TestNamesFromFiles: a subject named with a newline or a NUL (a quoted
// CSV field, a --params row) is printed quoted in the human output, so
// that it cannot break a line; a --params file may start with a UTF-8
// byte-order mark, as --data may.
func TestNamesFromFiles(t *testing.T) {
	dir := t.TempDir()
	m := "../../examples/behaviour/model.json"
	data, err := os.ReadFile("../../examples/behaviour/p01.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ field, want string }{
		{`"p` + "\n" + `01"`, `subject "p\n01": `},
		{"a\x00b", `subject "a\x00b": `},
	} {
		path := filepath.Join(dir, "d.csv")
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), "p01,", c.field+",")), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"aci", "replay", "--model", m, "--horizon", "1", "--data", path},
			{"aci", "fit", "--model", m, "--horizon", "1", "--free", "alpha", "--data", path},
		} {
			code, out, stderr := aciRun(t, args...)
			if code != 0 || !strings.HasPrefix(out, c.want) || strings.Count(out, "\n") != 2 || strings.ContainsRune(out, 0) {
				t.Errorf("%s with subject %q: exit %d, stdout %q, stderr %q; want a line starting %q", args[1], c.field, code, out, stderr, c.want)
			}
		}
	}
	params := filepath.Join(dir, "p.csv")
	if err := os.WriteFile(params, []byte("\ufeffsubject,alpha\ns1,1.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	truth := filepath.Join(dir, "t.csv")
	code, _, stderr := aciRun(t, "aci", "simulate", "--model", m, "--horizon", "1", "--params", params, "--trials", "1", "--steps", "2",
		"-o", filepath.Join(dir, "b.csv"), "--truth", truth)
	if b, _ := os.ReadFile(truth); code != 0 || string(b) != "subject,alpha\ns1,1.5\n" {
		t.Errorf("--params with a byte-order mark: exit %d, stderr %q, truth %q", code, stderr, b)
	}
}

// TestRecoverSameModelTies: a model recovered against itself (--models
// A,A) ties on every subject, which decides none (each was once counted
// a win for the first model); BMS still takes them, and finds the two
// equally frequent.
func TestRecoverSameModelTies(t *testing.T) {
	m := "../../examples/behaviour/model.json"
	code, out, stderr := aciRun(t, "aci", "recover", "--models", m+","+m, "--horizon", "1", "--free", "alpha", "--subjects", "3", "--trials", "1",
		"--steps", "2", "--restarts", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, `"counts":[[0,0],[0,0]]`) || !strings.Contains(out, `"undecided":[3,3]`) || !strings.Contains(out, `"frequencies":[0.5,0.5]`) {
		t.Errorf("confusion and BMS of a model against itself: %s", out)
	}
}
