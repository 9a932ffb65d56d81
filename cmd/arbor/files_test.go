package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyFile copies the file src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot returns the content of every file of dir by name.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
			out[e.Name()] = string(b)
		}
	}
	return out
}

// TestOutputIsNotInput: every command refuses, before any work, an output
// that is one of its inputs or another of its outputs, by device and inode
// (another spelling of the path, a symbolic or a hard link): exit 2, one
// line naming both flags, nothing on standard output, every file of the
// directory as it was and no temporary file. arbor dot, whose output is
// refused where it is created, names the input it would replace.
func TestOutputIsNotInput(t *testing.T) {
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(dir, name) }
	copyFile(t, "../../examples/behaviour/model.json", in("m.json"))
	copyFile(t, "../../examples/behaviour/model.json", in("m.png"))
	copyFile(t, "../../examples/behaviour/p01.csv", in("x.csv"))
	copyFile(t, "../../examples/behaviour/p01.csv", in("shard-1-of-2.jsonl"))
	copyFile(t, "../../examples/models/hmm.json", in("h.json"))
	if err := os.WriteFile(in("d.jsonl"), []byte(`{"o0": 0}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in("p.csv"), []byte("subject,alpha\ns1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(in("x.csv"), in("link.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in("x.csv"), in("hard.csv")); err != nil {
		t.Fatal(err)
	}
	m, x := in("m.json"), in("x.csv")
	replay := []string{"aci", "replay", "--model", m, "--horizon", "1", "--data"}
	sim := []string{"aci", "simulate", "--model", m, "--horizon", "1", "--subjects", "2", "--trials", "1", "--steps", "2"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(replay, x, "--subjects", x), "--subjects " + x + " is the same file as --data " + x + ": an output may not replace a file the command reads"},
		{append(replay, x, "--subjects", dir+"/./x.csv"), "--subjects " + dir + "/./x.csv is the same file as --data " + x},
		{append(replay, in("link.csv"), "--subjects", x), "is the same file as --data " + in("link.csv")},
		{append(replay, in("hard.csv"), "--subjects", x), "is the same file as --data " + in("hard.csv")},
		{append(replay, x, "--subjects", m), "--subjects " + m + " is the same file as --model " + m},
		{append(sim, "-o", m, "--truth", in("t.csv")), "-o " + m + " is the same file as --model " + m},
		{append(sim, "-o", in("t.csv"), "--truth", in("t.csv")), "-o " + in("t.csv") + " and --truth " + in("t.csv") + " are the same file: each output needs a file of its own"},
		{append(sim[:len(sim)-6], "--params", in("p.csv"), "--trials", "1", "--steps", "2", "--truth", in("p.csv")), "--truth " + in("p.csv") + " is the same file as --params " + in("p.csv")},
		{[]string{"aci", "fit", "--model", m, "--data", in("shard-1-of-2.jsonl"), "--horizon", "1", "--free", "alpha", "--json", "--shard", "1/2", "--out", dir},
			"--out " + in("shard-1-of-2.jsonl") + " is the same file as --data"},
		{[]string{"aci", "fit", "--model", m, "--data", x, "--horizon", "1", "--free", "alpha", "--json", "--compare", in("shard-1-of-2.jsonl"), "--shard", "1/2", "--out", dir},
			"is the same file as --compare"},
		{[]string{"aci", "recover", "--model", in("m.png"), "--horizon", "1", "--free", "alpha", "--subjects", "2", "--trials", "1", "--steps", "2", "--plot", in("m.png")},
			"--plot " + in("m.png") + " is the same file as --model " + in("m.png")},
		{[]string{"aci", "run", "--model", m, "--horizon", "1", "--steps", "2", "--dot", m}, "--dot " + m + " is the same file as --model " + m},
		{[]string{"btai", "run", "--model", m, "--iterations", "5", "--steps", "2", "--dot", in("g.png"), "--plot", in("g.png")}, "--dot " + in("g.png") + " and --plot " + in("g.png") + " are the same file"},
		{[]string{"btai", "plan", "--model", m, "--obs", "0", "--iterations", "5", "--dot", m}, "--dot " + m + " is the same file as --model " + m},
		{[]string{"si", "plan", "--model", m, "--obs", "0", "--depth", "1", "--dot", in("link.csv"), "--model", x}, "--dot " + in("link.csv") + " is the same file as --model " + x},
		{[]string{"dot", in("h.json"), "-o", in("h.json")}, "-o " + in("h.json") + ": cannot create: the same file as the input " + in("h.json")},
		{[]string{"dot", in("h.json"), "--data", in("d.jsonl"), "-o", in("d.jsonl")}, "-o " + in("d.jsonl") + ": cannot create: the same file as the input " + in("d.jsonl")},
	} {
		before := snapshot(t, dir)
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != 2 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%s: exit %d, stdout %.80q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, out.String(), errb.String(), c.want)
		}
		if after := snapshot(t, dir); len(after) != len(before) {
			t.Errorf("%s: the directory had %d files, now %d", strings.Join(c.args, " "), len(before), len(after))
		} else {
			for name, b := range before {
				if after[name] != b {
					t.Errorf("%s: %s changed", strings.Join(c.args, " "), name)
				}
			}
		}
	}
}

// TestInterruptKeepsFiles: a command interrupted mid-way (in-process, as
// SIGINT would, once it has finished two units: subjects simulated,
// replayed or fitted, episodes run) exits 130 with one line, writes the
// finished units to standard output and replaces none of its files: each
// still holds its old content, and no temporary file is left. The same
// commands run to the end replace them.
func TestInterruptKeepsFiles(t *testing.T) {
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(dir, name) }
	tmaze := "../../examples/pomdp/tmaze.json"
	// Recorded behaviour of 4 subjects to replay.
	if code, _, stderr := aciRun(t, "aci", "simulate", "--model", tmaze, "--horizon", "1", "--subjects", "4", "--trials", "2", "--steps", "2",
		"-o", in("data.csv"), "--truth", in("truth.csv")); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		name  string
		args  []string
		files []string
		after int // interrupt after this many units
	}{
		{"btai simulate", []string{"btai", "simulate", "--model", tmaze, "--iterations", "10", "--subjects", "6", "--trials", "2", "--steps", "3", "--jobs", "1",
			"-o", in("b.csv"), "--truth", in("t.csv")}, []string{"b.csv", "t.csv"}, 2},
		{"aci simulate", []string{"aci", "simulate", "--model", tmaze, "--horizon", "1", "--subjects", "6", "--trials", "2", "--steps", "2", "--jobs", "1",
			"--draw", "alpha=lognormal:0,0.5", "--truth", in("t.csv")}, []string{"t.csv"}, 2},
		{"aci recover", []string{"aci", "recover", "--model", tmaze, "--horizon", "1", "--free", "alpha", "--subjects", "4", "--trials", "2", "--steps", "2",
			"--restarts", "1", "--jobs", "1", "--plot", in("p.png")}, []string{"p.png"}, 6},
		{"aci replay", []string{"aci", "replay", "--model", tmaze, "--horizon", "1", "--data", in("data.csv"), "--jobs", "1", "--subjects", in("s.csv")},
			[]string{"s.csv"}, 2},
		{"aci run", []string{"aci", "run", "--model", tmaze, "--horizon", "1", "--steps", "2", "--episodes", "4", "--jobs", "1",
			"--dot", in("g.dot"), "--plot", in("r.png"), "--json"}, []string{"g.dot", "r.png"}, 2},
	} {
		for _, interrupted := range []bool{true, false} {
			for _, f := range c.files {
				if err := os.WriteFile(in(f), []byte(previous), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			interruptAt = 0
			if interrupted {
				interruptAt = c.after
			}
			code, out, stderr := aciRun(t, c.args...)
			interruptAt = 0
			want := 0
			if interrupted {
				want = 130
			}
			if code != want || (interrupted && stderr != "arbor "+c.name+": interrupted\n") {
				t.Errorf("%s, interrupted %v: exit %d, stderr %q; want %d", c.name, interrupted, code, stderr, want)
			}
			for _, f := range c.files {
				b, _ := os.ReadFile(in(f))
				if interrupted != (string(b) == previous) {
					t.Errorf("%s, interrupted %v: %s reads %.40q", c.name, interrupted, f, b)
				}
			}
			if tmp, _ := filepath.Glob(in(".*.tmp")); len(tmp) > 0 {
				t.Errorf("%s: temporary files left: %v", c.name, tmp)
			}
			// The subjects finished before the interrupt are written: the
			// 2 it came after, and a third when its replay had ended before
			// the interrupt did (units finished are never dropped); the
			// summary counts those written, never the 4 of the file.
			if n := strings.Count(out, "subject "); interrupted && c.name == "aci replay" &&
				(n < 2 || n > 3 || !strings.Contains(out, fmt.Sprintf("\n%d subjects: ", n))) {
				t.Errorf("%s: standard output %q, want the 2 or 3 subjects finished, counted in the summary", c.name, out)
			}
		}
	}
}
