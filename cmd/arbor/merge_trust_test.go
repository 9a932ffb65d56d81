package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-ai/arbor/internal/shard"
)

// forge rewrites the shard file path as a forger would: edit changes its
// manifest (decoded, when edit is not nil) and lines its unit lines (when
// not nil), then the checksum line is recomputed for the new lines, so
// that only merge's other checks stand.
func forge(t *testing.T, path string, edit func(m map[string]any), change func(lines []string) []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	head, lines := []byte(lines[0]), lines[1:len(lines)-1] // the checksum line left out
	if edit != nil {
		var m map[string]any
		if err := json.Unmarshal(head, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		head, _ = json.Marshal(m)
	}
	if change != nil {
		lines = change(lines)
	}
	body := string(head) + "\n"
	for _, l := range lines {
		body += l + "\n"
	}
	sum := sha256.Sum256([]byte(body))
	body += fmt.Sprintf(`{"lines":%d,"sha256":"%s"}`+"\n", len(lines), hex.EncodeToString(sum[:]))
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies the shard files of dir to a new directory.
func copyDir(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	names, _ := filepath.Glob(filepath.Join(dir, "shard-*.jsonl"))
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(out, filepath.Base(name)), b, 0o644)
	}
	return out
}

// refused runs args and checks the exit status 2, one line on stderr
// holding every want, nothing on stdout, and 200 MB allocated at most.
// Each refusal takes well under the 5 s docs/reliability.md states; the
// test allows five times that (refuseWithin), as timed checks here do, so
// that a loaded machine does not fail it.
const refuseWithin = 5 * 5 * time.Second

func refused(t *testing.T, what string, args []string, want ...string) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	type result struct {
		code        int
		out, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, out, stderr := aciRun(t, args...)
		done <- result{code, out, stderr}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(refuseWithin):
		t.Fatalf("%s: %v still runs after %v", what, args, refuseWithin)
	}
	runtime.ReadMemStats(&after)
	if took := time.Since(start); took > refuseWithin {
		t.Errorf("%s: took %v", what, took)
	}
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 200 {
		t.Errorf("%s: allocated %d MB", what, mb)
	}
	if r.code != 2 || r.out != "" || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("%s: exit %d, stdout %.200q, stderr %q; want 2, nothing, one line", what, r.code, r.out, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("%s: stderr %q, want %q", what, r.stderr, w)
		}
	}
}

var tmazeRun = []string{"btai", "run", "--model", "../../examples/pomdp/tmaze.json", "--agents", "3", "--steps", "2", "--iterations", "10", "--json"}

// TestMergeRunsOnlyShardedVerbs: merge runs no command but the sharded
// verb its job names, with the job's settings. Manifests whose args run
// dot (the job left as it was, or changed to dot too), whose args give
// another setting than the job, hold --shard, -h or --plot (the job
// with them) are refused before any file is read or written, even with
// their checksums recomputed.
func TestMergeRunsOnlyShardedVerbs(t *testing.T) {
	dir := t.TempDir()
	runShards(t, tmazeRun, 2, dir)
	dot := filepath.Join(t.TempDir(), "x.dot")
	other := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		name string
		edit func(m map[string]any)
		says string
	}{
		{"args run dot", func(m map[string]any) {
			m["args"] = []string{"dot", "../../examples/models/hmm.json", "-o", dot}
		}, "do not run the job's command"},
		{"job and args dot", func(m map[string]any) {
			m["args"] = []string{"dot", "../../examples/models/hmm.json", "-o", dot}
			m["job"].(map[string]any)["command"] = "dot"
		}, `the job's command "dot" is not one arbor shards`},
		{"args of other settings", func(m map[string]any) {
			m["args"] = append(append([]string(nil), tmazeRun[:9]...), "11", "--json")
		}, "the manifest's args are not its job's (--iterations 10, 11)"},
		{"args with --shard", func(m map[string]any) {
			m["args"] = append(append([]string(nil), tmazeRun...), "--shard", "1/1", "--out", other)
		}, "-shard"},
		{"args with -h", func(m map[string]any) {
			m["args"] = append(append([]string(nil), tmazeRun...), "-h")
		}, "-h asks for help"},
		{"job and args with --plot", func(m map[string]any) {
			m["args"] = append(append([]string(nil), tmazeRun...), "--plot", dot)
			m["job"].(map[string]any)["settings"].(map[string]any)["plot"] = dot
		}, "the job writes --plot"},
	} {
		d := copyDir(t, dir)
		for k := 1; k <= 2; k++ {
			forge(t, filepath.Join(d, shard.FileName(k, 2)), c.edit, nil)
		}
		refused(t, c.name, []string{"merge", d}, c.says)
		for _, f := range []string{dot, other} {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("%s: merge wrote %s", c.name, f)
				os.RemoveAll(f)
			}
		}
	}
}

// TestMergeVerifiesShards: a shard file whose log_likelihood was changed
// by hand, one whose replay steps were swapped within a subject, and one
// cut short after a unit's line are refused naming the file, before
// anything is written (the merge of the other shards would otherwise
// have started).
func TestMergeVerifiesShards(t *testing.T) {
	fitArgs := []string{"aci", "fit", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1", "--free", "alpha", "--prior", "alpha=0,2", "--json"}
	replayArgs := []string{"aci", "replay", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1", "--json"}
	ll := regexp.MustCompile(`"log_likelihood":-?[0-9.e-]+`)
	for _, c := range []struct {
		name string
		args []string
		edit func(b []byte) []byte // shard 2 of 2
		says string
	}{
		{"log_likelihood edited", fitArgs, func(b []byte) []byte {
			return ll.ReplaceAll(b, []byte(`"log_likelihood":-0.5`))
		}, "does not match"},
		{"replay steps swapped", replayArgs, func(b []byte) []byte {
			l := bytes.Split(b, []byte("\n"))
			l[1], l[2] = l[2], l[1]
			return bytes.Join(l, []byte("\n"))
		}, "does not match"},
		{"cut after a line", tmazeRun, func(b []byte) []byte {
			l := bytes.SplitAfter(b, []byte("\n"))
			return bytes.Join(l[:2], nil)
		}, "no checksum line"},
	} {
		dir := t.TempDir()
		runShards(t, c.args, 2, dir)
		p := filepath.Join(dir, shard.FileName(2, 2))
		b, _ := os.ReadFile(p)
		os.WriteFile(p, c.edit(b), 0o644)
		refused(t, c.name, []string{"merge", dir}, p, c.says)
	}
}

// TestResumeRepairsDamagedShard: --resume runs again a shard whose file
// does not verify (shard 2 cut short, shard 3 edited), saying why, skips
// the intact shard 1, and the merge is then the unsharded run's.
func TestResumeRepairsDamagedShard(t *testing.T) {
	dir := t.TempDir()
	runShards(t, tmazeRun, 3, dir)
	p2, p3 := filepath.Join(dir, shard.FileName(2, 3)), filepath.Join(dir, shard.FileName(3, 3))
	b, _ := os.ReadFile(p2)
	os.WriteFile(p2, b[:bytes.IndexByte(b, '\n')+1], 0o644)
	b, _ = os.ReadFile(p3)
	os.WriteFile(p3, bytes.Replace(b, []byte(`"steps":2`), []byte(`"steps":1`), 1), 0o644)
	if code, _, _ := aciRun(t, "merge", dir); code != 2 {
		t.Fatalf("merge of the damaged shards: exit %d", code)
	}
	for k := 1; k <= 3; k++ {
		code, _, stderr := aciRun(t, append(append([]string(nil), tmazeRun...), "--shard", fmt.Sprintf("%d/3", k), "--out", dir, "--resume")...)
		if code != 0 || strings.Contains(stderr, "skipped (--resume)") != (k == 1) || strings.Contains(stderr, "does not verify") != (k > 1) {
			t.Errorf("--resume shard %d: exit %d, %q", k, code, stderr)
		}
	}
	code, got, stderr := aciRun(t, "merge", dir)
	if code != 0 {
		t.Fatalf("merge after --resume: exit %d: %s", code, stderr)
	}
	_, want, _ := aciRun(t, tmazeRun...)
	if untimed(got) != untimed(want) {
		t.Errorf("merged after --resume:\n%s\nunsharded:\n%s", got, want)
	}
}

// TestSweepHashesGridFiles: the files a grid varies (--model here) are
// hashed into the sweep's job like its command's, so that shards run on
// different contents of a model do not merge.
func TestSweepHashesGridFiles(t *testing.T) {
	tmp := t.TempDir()
	b, _ := os.ReadFile("../../examples/pomdp/tmaze.json")
	m1, m2 := filepath.Join(tmp, "m1.json"), filepath.Join(tmp, "m2.json")
	os.WriteFile(m1, b, 0o644)
	os.WriteFile(m2, b, 0o644)
	grid := filepath.Join(tmp, "grid.json")
	os.WriteFile(grid, fmt.Appendf(nil, `{"command": ["btai", "run", "--steps", "2", "--iterations", "5"], "grid": [{"flag": "model", "values": [%q, %q]}]}`, m1, m2), 0o644)
	code, out, stderr := aciRun(t, "sweep", grid)
	if code != 0 || !strings.Contains(out, `"path":"`+m2+`","sha256":"`) {
		t.Fatalf("exit %d, %s: %s; want --model %s hashed", code, stderr, out, m2)
	}
	dir := t.TempDir()
	if code, _, stderr := aciRun(t, "sweep", grid, "--shard", "1/2", "--out", dir); code != 0 {
		t.Fatal(stderr)
	}
	os.WriteFile(m2, append(b, ' '), 0o644)
	if code, _, stderr := aciRun(t, "sweep", grid, "--shard", "2/2", "--out", dir); code != 0 {
		t.Fatal(stderr)
	}
	refused(t, "models changed between shards", []string{"merge", dir}, "mismatched shards", "--model "+m2)
}

// TestSweepGridFlags: a grid's flags are parsed with its command's flag
// set before any point runs: an unknown flag, a value the flag refuses,
// an output or shard flag (--plot would write files, --out and --shard a
// shard file) and a repeated key are refused, and nothing is written.
func TestSweepGridFlags(t *testing.T) {
	tmp := t.TempDir()
	plot := filepath.Join(tmp, "p.svg")
	cmd := `["btai", "run", "--model", "../../examples/pomdp/tmaze.json", "--steps", "2", "--iterations", "5"]`
	for _, c := range []struct{ grid, says string }{
		{`{"command": ` + cmd + `, "grid": [{"flag": "bogus", "values": [1, 2]}]}`, "grid[0] (bogus): flag provided but not defined: -bogus"},
		{`{"command": ` + cmd + `, "grid": [{"flag": "iterations", "values": [10, "ten"]}]}`, `grid[0] (iterations): invalid value "ten"`},
		{`{"command": ` + cmd + `, "grid": [{"flag": "plot", "values": [` + fmt.Sprintf("%q", plot) + `]}]}`, `grid[0].flag "plot"`},
		{`{"command": ` + cmd + `, "grid": [{"flag": "out", "values": [` + fmt.Sprintf("%q", tmp) + `]}]}`, `grid[0].flag "out"`},
		{`{"command": ` + cmd + `, "grid": [{"flag": "shard", "values": ["1/1"]}]}`, `grid[0].flag "shard"`},
		{`{"command": ["btai", "plan"], "command": ` + cmd + `, "grid": [{"flag": "seed", "values": [1]}]}`, `duplicate key "command"`},
		{`{"command": ["btai", "run", "--bogus"], "grid": [{"flag": "seed", "values": [1]}]}`, "command: flag provided but not defined: -bogus"},
	} {
		p := filepath.Join(tmp, "g.json")
		os.WriteFile(p, []byte(c.grid), 0o644)
		refused(t, c.says, []string{"sweep", p}, p, c.says)
		refused(t, c.says+" (sharded)", []string{"sweep", p, "--shard", "1/1", "--out", filepath.Join(tmp, "out")}, c.says)
		if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
			t.Errorf("%s: files written: %v", c.says, entries)
		}
	}
}

// TestMergeBounds: inputs of a few bytes that once took gigabytes or
// blocked are refused in one line, within 5 s and 200 MB: a manifest's n
// of 4e18, --shard 1/1000000000, a grid of 10^9 points and one of 2^64
// (64 flags of two values), a shard file that is a link to /dev/zero or a
// FIFO, a unit line over ARBOR_MAX_INPUT, and the step variables of
// Slurm and Grid Engine that are not whole numbers >= 1.
func TestMergeBounds(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	write("of/shard-1-of-4.jsonl", `{"shard":1,"of":4000000000000000000,"units":10,"unit":"agent","job":{"command":"btai run"},"args":["btai","run"],"format":"jsonl"}`+"\n")
	refused(t, "n of 4e18", []string{"merge", filepath.Join(tmp, "of")}, "shard-1-of-4.jsonl", `"of" 4000000000000000000`)

	refused(t, "a billion shards", append(append([]string(nil), tmazeRun...), "--shard", "1/1000000000", "--out", filepath.Join(tmp, "x")), "--shard", "over the limit of 10000")

	values := strings.TrimSuffix(strings.Repeat("1,", 1000), ",")
	big := write("big.json", `{"command": ["btai", "run", "--model", "../../examples/pomdp/tmaze.json"], "grid": [{"flag": "iterations", "values": [`+values+`]}, {"flag": "seed", "values": [`+values+`]}, {"flag": "steps", "values": [`+values+`]}]}`)
	refused(t, "10^9 points", []string{"sweep", big, "--shard", "1/1", "--out", filepath.Join(tmp, "x")}, "grid[2] (steps) value 2", "1000000 points")
	refused(t, "10^9 points unsharded", []string{"sweep", big}, "1000000 points")
	var axes []string
	for i := range 64 {
		axes = append(axes, fmt.Sprintf(`{"flag": "f%d", "values": [1, 2]}`, i))
	}
	wide := write("wide.json", `{"command": ["btai", "run"], "grid": [`+strings.Join(axes, ",")+`]}`)
	refused(t, "2^64 points", []string{"sweep", wide}, "1000000 points")

	dir := t.TempDir()
	runShards(t, tmazeRun, 2, dir)
	p := filepath.Join(dir, shard.FileName(2, 2))
	saved, _ := os.ReadFile(p)
	os.Remove(p)
	os.Symlink("/dev/zero", p)
	refused(t, "/dev/zero", []string{"merge", dir}, p, "a device, not a regular file")
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err == nil {
		refused(t, "a FIFO", []string{"merge", dir}, p, "a FIFO, not a regular file")
	}
	os.Remove(p)
	os.WriteFile(p, saved, 0o644)
	forge(t, p, nil, func(lines []string) []string {
		lines[0] = `{"unit":1,"line":"` + strings.Repeat("x", 100<<10) + `"}`
		return lines
	})
	t.Setenv("ARBOR_MAX_INPUT", "64K")
	refused(t, "a line over ARBOR_MAX_INPUT", []string{"merge", dir}, "line 2: longer than the limit")
	t.Setenv("ARBOR_MAX_INPUT", "")

	for _, env := range []map[string]string{
		{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_STEP": "abc"},
		{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_STEP": "0"},
		{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_STEP": "-2"},
		{"SGE_TASK_ID": "1", "SGE_TASK_FIRST": "1", "SGE_TASK_LAST": "2", "SGE_TASK_STEPSIZE": "abc"},
		{"SGE_TASK_ID": "1", "SGE_TASK_FIRST": "1", "SGE_TASK_LAST": "2", "SGE_TASK_STEPSIZE": "0"},
	} {
		for _, k := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_STEP", "JOB_COMPLETION_INDEX", "SGE_TASK_ID", "SGE_TASK_FIRST", "SGE_TASK_LAST", "SGE_TASK_STEPSIZE", "AWS_BATCH_JOB_ARRAY_INDEX", "LSB_JOBINDEX"} {
			t.Setenv(k, env[k])
		}
		step := "SLURM_ARRAY_TASK_STEP"
		if env[step] == "" {
			step = "SGE_TASK_STEPSIZE"
		}
		refused(t, step+"="+env[step], append(append([]string(nil), tmazeRun...), "--shard", "auto", "--out", filepath.Join(tmp, "x")), step+`="`+env[step]+`"`)
	}
	if _, err := os.Stat(filepath.Join(tmp, "x")); err == nil {
		t.Error("a refused shard wrote its directory")
	}
}
