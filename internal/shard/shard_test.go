package shard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Spec
		err  string
	}{
		{"1/1", Spec{K: 1, N: 1}, ""},
		{"3/7", Spec{K: 3, N: 7}, ""},
		{"auto", Spec{Auto: true}, ""},
		{"0/3", Spec{}, "1 <= k <= n"},
		{"4/3", Spec{}, "1 <= k <= n"},
		{"2", Spec{}, "want k/n"},
		{"a/3", Spec{}, "whole numbers"},
		{"1/0", Spec{}, "1 <= k <= n"},
		{"1/1000000000", Spec{}, "over the limit of 10000"},
		{"10000/10000", Spec{K: 10000, N: 10000}, ""},
	} {
		got, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "--shard") {
				t.Errorf("Parse(%q) error %v, want one naming --shard with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %v, %v, want %v", c.in, got, err, c.want)
		}
	}
}

// TestResolveAuto: --shard auto under the variables each scheduler sets
// for one array task; the expected slice follows from the schedulers'
// documented numbering (Slurm --array=0-7 sets MIN 0, COUNT 8; a
// Kubernetes Indexed Job's indices run from 0; Grid Engine's -t 1-9:2
// sets FIRST 1, LAST 9, STEPSIZE 2).
func TestResolveAuto(t *testing.T) {
	for _, c := range []struct {
		name   string
		env    map[string]string
		shards int
		k, n   int
		err    string
	}{
		{"slurm first", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "8"}, 0, 1, 8, ""},
		{"slurm last", map[string]string{"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "8"}, 0, 8, 8, ""},
		{"slurm from 1", map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "10"}, 0, 5, 10, ""},
		// --array=10-30:10: tasks 10, 20, 30.
		{"slurm step", map[string]string{"SLURM_ARRAY_TASK_ID": "20", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_STEP": "10"}, 0, 2, 3, ""},
		{"slurm with --shards", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, 4, 3, 4, ""},
		{"slurm --shards disagrees", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, 5, 0, 0, "--shards 5"},
		{"slurm without count", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0"}, 0, 0, 0, "SLURM_ARRAY_TASK_COUNT"},
		{"slurm not a number", map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, 0, 0, "SLURM_ARRAY_TASK_ID=\"x\""},
		// A task beyond the count (an array edited by hand): k > n.
		{"slurm k > n", map[string]string{"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, 0, 0, "gives shard 10 of 4"},
		{"kubernetes", map[string]string{"JOB_COMPLETION_INDEX": "0"}, 16, 1, 16, ""},
		{"kubernetes last", map[string]string{"JOB_COMPLETION_INDEX": "15"}, 16, 16, 16, ""},
		{"kubernetes k > n", map[string]string{"JOB_COMPLETION_INDEX": "16"}, 16, 0, 0, "gives shard 17 of 16"},
		{"kubernetes without --shards", map[string]string{"JOB_COMPLETION_INDEX": "3"}, 0, 0, 0, "give --shards n"},
		{"grid engine", map[string]string{"SGE_TASK_ID": "5", "SGE_TASK_FIRST": "1", "SGE_TASK_LAST": "9", "SGE_TASK_STEPSIZE": "2"}, 0, 3, 5, ""},
		{"aws batch", map[string]string{"AWS_BATCH_JOB_ARRAY_INDEX": "2"}, 3, 3, 3, ""},
		{"lsf", map[string]string{"LSB_JOBINDEX": "1"}, 3, 1, 3, ""},
		{"none", map[string]string{}, 3, 0, 0, "no array variable"},
		{"slurm and kubernetes agree", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4", "JOB_COMPLETION_INDEX": "1"}, 4, 2, 4, ""},
		// A step that is not a whole number >= 1 is an error, not 1.
		{"slurm step not a number", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "abc"}, 0, 0, 0, "SLURM_ARRAY_TASK_STEP=\"abc\""},
		{"slurm step 0", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "0"}, 0, 0, 0, "SLURM_ARRAY_TASK_STEP=\"0\""},
		{"slurm step -2", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "-2"}, 0, 0, 0, "SLURM_ARRAY_TASK_STEP=\"-2\""},
		{"grid engine step not a number", map[string]string{"SGE_TASK_ID": "5", "SGE_TASK_FIRST": "1", "SGE_TASK_LAST": "9", "SGE_TASK_STEPSIZE": "abc"}, 0, 0, 0, "SGE_TASK_STEPSIZE=\"abc\""},
		{"grid engine step 0", map[string]string{"SGE_TASK_ID": "5", "SGE_TASK_FIRST": "1", "SGE_TASK_LAST": "9", "SGE_TASK_STEPSIZE": "0"}, 0, 0, 0, "SGE_TASK_STEPSIZE=\"0\""},
		{"grid engine without a step", map[string]string{"SGE_TASK_ID": "5", "SGE_TASK_FIRST": "1", "SGE_TASK_LAST": "9"}, 0, 5, 9, ""},
		// More shards than MaxShards, from the scheduler or --shards.
		{"slurm count over the bound", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "1000000000"}, 0, 0, 0, "over the limit of 10000"},
		{"kubernetes --shards over the bound", map[string]string{"JOB_COMPLETION_INDEX": "0"}, 20000, 0, 0, "--shards 20000"},
		{"slurm and kubernetes conflict", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4", "JOB_COMPLETION_INDEX": "3"}, 4, 0, 0, "disagree"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Resolve(Spec{Auto: true}, c.shards, func(k string) string { return c.env[k] })
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Resolve = %v, %v; want an error with %q", r, err, c.err)
				}
				return
			}
			if err != nil || r.K != c.k || r.N != c.n {
				t.Fatalf("Resolve = %+v, %v; want %d/%d", r, err, c.k, c.n)
			}
			for name := range c.env {
				if !strings.Contains(r.From, name) && name != "SLURM_ARRAY_TASK_STEP" && name != "JOB_COMPLETION_INDEX" {
					t.Errorf("From %q does not name %s", r.From, name)
				}
			}
		})
	}
	if _, err := Resolve(Spec{K: 2, N: 3}, 4, os.Getenv); err == nil {
		t.Error("--shard 2/3 with --shards 4: no error")
	}
}

// TestUnits: the shards of 10 units among 3 cover each unit once
// (0,3,6,9 / 1,4,7 / 2,5,8).
func TestUnits(t *testing.T) {
	want := [][]int{{0, 3, 6, 9}, {1, 4, 7}, {2, 5, 8}}
	for k := 1; k <= 3; k++ {
		got := Units(10, k, 3)
		if fmt.Sprint(got) != fmt.Sprint(want[k-1]) {
			t.Errorf("Units(10, %d, 3) = %v, want %v", k, got, want[k-1])
		}
		for _, u := range got {
			if !Mine(u, k, 3) {
				t.Errorf("Mine(%d, %d, 3) false", u, k)
			}
		}
	}
}

// args are the arguments of job's command.
var args = []string{"btai", "run", "--model", "m.json", "--iterations", "10"}

const job = `{"arbor":"test","command":"btai run","files":[{"flag":"--model","path":"m.json","sha256":"abc"}],"settings":{"iterations":"10","seed":"1"}}`

// writeShards writes the n shards of a job of units units, unit u having
// u%3+1 lines "[u,j]".
func writeShards(t testing.TB, dir string, units, n int, job string, skip int) {
	for k := 1; k <= n; k++ {
		if k == skip {
			continue
		}
		w, err := Create(dir, &Manifest{Shard: k, Of: n, Units: units, Unit: "agent", Job: json.RawMessage(job), Args: args})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range Units(units, k, n) {
			for j := range u%3 + 1 {
				if err := w.Line(u, []byte(fmt.Sprintf("[%d,%d]", u, j))); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

func merged(dir string) (string, *Manifest, error) {
	var b bytes.Buffer
	m, err := Merge(dir, func(u int, line []byte) error {
		b.Write(line)
		b.WriteByte('\n')
		return nil
	})
	return b.String(), m, err
}

// TestMergeOrder: 1, 3, 7 and 16 shards of 10 units (16: six shards
// without a unit, their files the manifest alone) merge to the same lines,
// in unit order, built here directly.
func TestMergeOrder(t *testing.T) {
	var want strings.Builder
	for u := range 10 {
		for j := range u%3 + 1 {
			fmt.Fprintf(&want, "[%d,%d]\n", u, j)
		}
	}
	for _, n := range []int{1, 3, 7, 16} {
		dir := t.TempDir()
		writeShards(t, dir, 10, n, job, 0)
		got, m, err := merged(dir)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		if got != want.String() {
			t.Errorf("%d shards: merged\n%s\nwant\n%s", n, got, want.String())
		}
		if string(m.Job) != job || m.Units != 10 {
			t.Errorf("%d shards: manifest %+v", n, m)
		}
		if !Complete(dir, 2, n, []byte(job)) && n > 1 {
			t.Errorf("%d shards: shard 2 not complete", n)
		}
		if Complete(dir, 2, n, []byte(strings.Replace(job, `"10"`, `"11"`, 1))) {
			t.Errorf("%d shards: shard 2 complete for another job", n)
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	t.Run("missing", func(t *testing.T) {
		dir := t.TempDir()
		writeShards(t, dir, 10, 3, job, 2)
		_, _, err := merged(dir)
		// Shard 2 of 3 holds units 1, 4, 7 (from 0): 2, 5, 8 from 1.
		if err == nil || !strings.Contains(err.Error(), "units 2, 5, 8") || !strings.Contains(err.Error(), "run --shard 2/3") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("killed while writing", func(t *testing.T) {
		dir := t.TempDir()
		writeShards(t, dir, 10, 3, job, 3)
		w, err := Create(dir, &Manifest{Shard: 3, Of: 3, Units: 10, Unit: "agent", Job: json.RawMessage(job), Args: args})
		if err != nil {
			t.Fatal(err)
		}
		w.Line(2, []byte("[2,0]"))
		w.w.Flush()
		// Not committed: what a killed process leaves is its temporary
		// file, which merge does not take for a shard.
		_, _, err = merged(dir)
		if err == nil || !strings.Contains(err.Error(), "run --shard 3/3") {
			t.Fatalf("err = %v", err)
		}
		w.Abort()
	})
	t.Run("duplicate", func(t *testing.T) {
		dir := t.TempDir()
		writeShards(t, dir, 10, 3, job, 0)
		b, _ := os.ReadFile(filepath.Join(dir, FileName(2, 3)))
		os.WriteFile(filepath.Join(dir, "shard-2-of-3-copy.jsonl"), b, 0o644)
		_, _, err := merged(dir)
		if err == nil || !strings.Contains(err.Error(), "duplicate shard 2/3") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("other settings", func(t *testing.T) {
		dir := t.TempDir()
		writeShards(t, dir, 10, 3, job, 2)
		writeShards(t, t.TempDir(), 10, 3, job, 0)
		other := strings.Replace(job, `"iterations":"10"`, `"iterations":"20"`, 1)
		d2 := t.TempDir()
		writeShards(t, d2, 10, 3, other, 0)
		b, _ := os.ReadFile(filepath.Join(d2, FileName(2, 3)))
		os.WriteFile(filepath.Join(dir, FileName(2, 3)), b, 0o644)
		_, _, err := merged(dir)
		if err == nil || !strings.Contains(err.Error(), "mismatched shards") || !strings.Contains(err.Error(), "--iterations 10, 20") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("other model", func(t *testing.T) {
		dir := t.TempDir()
		writeShards(t, dir, 10, 3, job, 2)
		d2 := t.TempDir()
		writeShards(t, d2, 10, 3, strings.Replace(job, "abc", "def", 1), 0)
		b, _ := os.ReadFile(filepath.Join(d2, FileName(2, 3)))
		os.WriteFile(filepath.Join(dir, FileName(2, 3)), b, 0o644)
		_, _, err := merged(dir)
		if err == nil || !strings.Contains(err.Error(), "mismatched shards") || !strings.Contains(err.Error(), "--model m.json") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("other n", func(t *testing.T) {
		dir := t.TempDir()
		writeShards(t, dir, 10, 3, job, 0)
		writeShards(t, dir, 10, 2, job, 0)
		_, _, err := merged(dir)
		if err == nil || !strings.Contains(err.Error(), "mismatched shards") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("damaged", func(t *testing.T) {
		dir := t.TempDir()
		writeShards(t, dir, 10, 3, job, 0)
		p := filepath.Join(dir, FileName(1, 3))
		b, _ := os.ReadFile(p)
		os.WriteFile(p, b[:len(b)-3], 0o644)
		_, _, err := merged(dir)
		if err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("empty dir", func(t *testing.T) {
		_, _, err := merged(t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "no shard file") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestSameJobIgnoresJobs: two provenance lines that differ only in --jobs
// or --progress (which never change the output) are of one job; any other
// setting, or a file's hash, makes them two, and JobDiff names it rather
// than --jobs.
func TestSameJobIgnoresJobs(t *testing.T) {
	base := `{"arbor":"v","command":"arbor btai run","files":[{"flag":"--model","path":"m.json","sha256":"ab"}],"settings":{"iterations":"10","jobs":"%s","progress":"%s"}}`
	line := func(iter, jobs, progress string) []byte {
		s := strings.Replace(base, `"iterations":"10"`, `"iterations":"`+iter+`"`, 1)
		return []byte(fmt.Sprintf(s, jobs, progress))
	}
	if !SameJob(line("10", "1", "false"), line("10", "2", "true")) {
		t.Error("lines differing only in jobs and progress: not one job")
	}
	if SameJob(line("10", "1", "false"), line("11", "1", "false")) {
		t.Error("lines differing in iterations: one job")
	}
	if d := JobDiff(line("10", "1", "false"), line("11", "4", "false")); d != "--iterations 10, 11" {
		t.Errorf("JobDiff %q, want --iterations 10, 11", d)
	}
	other := []byte(strings.Replace(string(line("10", "1", "false")), `"sha256":"ab"`, `"sha256":"cd"`, 1))
	if SameJob(line("10", "1", "false"), other) {
		t.Error("lines with another model hash: one job")
	}
}
