package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-ai/arbor/internal/shard"
)

// timing matches the value of a timing field (its key contains "second":
// planning_seconds, fit_seconds), the only thing a merged
// output may differ in from the unsharded one.
var timing = regexp.MustCompile(`("[a-z_]*second[a-z_]*"):(-?[0-9][0-9.eE+-]*|null)`)

func untimed(s string) string { return timing.ReplaceAllString(s, "$1:T") }

// runShards runs every shard of n of args into dir and returns the output
// of arbor merge dir.
func runShards(t *testing.T, args []string, n int, dir string) string {
	t.Helper()
	for k := 1; k <= n; k++ {
		a := append(append([]string(nil), args...), "--shard", fmt.Sprintf("%d/%d", k, n), "--out", dir)
		code, out, stderr := aciRun(t, a...)
		if code != 0 || out != "" {
			t.Fatalf("%v: exit %d, stdout %q, stderr %s", a, code, out, stderr)
		}
		if want := fmt.Sprintf("shard %d/%d (from --shard)", k, n); !strings.Contains(stderr, want) {
			t.Errorf("%v: stderr %q does not say %q", a, stderr, want)
		}
	}
	code, out, stderr := aciRun(t, "merge", dir)
	if code != 0 {
		t.Fatalf("merge %s: exit %d: %s", dir, code, stderr)
	}
	return out
}

// TestShardMerge: btai run and si run with several agents (learning, so a
// unit is an agent), btai run in a maze (no learning: a unit is an
// episode), aci replay and aci fit (a unit is a subject) split into 1, 3, 7 and 16 shards (shards
// without a unit among them) and merged print what the unsharded run
// prints, byte for byte but for the timing values.
func TestShardMerge(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		unit string
	}{
		{"btai agents", []string{"btai", "run", "--model", "../../examples/pomdp/tmaze.json", "--agents", "5", "--episodes", "2", "--steps", "2", "--iterations", "20", "--json"}, "agent"},
		{"btai maze", []string{"btai", "run", "--maze", "../../examples/mazes/1.maze", "--agents", "2", "--episodes", "3", "--iterations", "20", "--steps", "8", "--json"}, "episode"},
		// --csv: the recorded-behaviour rows, the header once.
		{"btai agents csv", []string{"btai", "run", "--model", "../../examples/pomdp/tmaze.json", "--agents", "5", "--episodes", "2", "--steps", "2", "--iterations", "20", "--csv"}, "agent"},
		{"aci maze csv", []string{"aci", "run", "--maze", "../../examples/mazes/1.maze", "--horizon", "2", "--agents", "2", "--episodes", "2", "--steps", "6", "--csv"}, "episode"},
		{"aci maze", []string{"aci", "run", "--maze", "../../examples/mazes/1.maze", "--horizon", "2", "--agents", "2", "--episodes", "2", "--steps", "6", "--json"}, "episode"},
		// A node budget that cuts searches short: the summary's
		// truncated_searches is counted from the merged records.
		{"si agents", []string{"si", "run", "--model", "../../examples/pomdp/tmaze.json", "--agents", "4", "--steps", "2", "--depth", "2", "--max-nodes", "6", "--json"}, "agent"},
		{"aci replay", []string{"aci", "replay", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1", "--json"}, "subject"},
		{"aci replay csv", []string{"aci", "replay", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1", "--beliefs", "--csv"}, "subject"},
		{"aci fit csv", []string{"aci", "fit", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1", "--free", "alpha", "--prior", "alpha=0,2", "--csv"}, "subject"},
		{"aci fit", []string{"aci", "fit", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--gamma", "1", "--free", "alpha", "--prior", "alpha=0,2", "--json"}, "subject"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, want, stderr := aciRun(t, c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			ns := []int{1, 3, 7, 16}
			if testing.Short() && c.name != "btai agents" {
				ns = []int{1, 3, 7}
			}
			for _, n := range ns {
				dir := t.TempDir()
				got := runShards(t, c.args, n, dir)
				if untimed(got) != untimed(want) {
					t.Errorf("%d shards merged:\n%s\nunsharded:\n%s", n, got, want)
				}
				m, err := shard.ReadManifest(filepath.Join(dir, shard.FileName(1, n)))
				if err != nil || m.Unit != c.unit || m.Of != n {
					t.Errorf("%d shards: manifest %+v, %v; want units of %s", n, m, err, c.unit)
				}
			}
		})
	}
}

// TestShardAuto: --shard auto reads Slurm's and Kubernetes' variables
// (the full table is internal/shard's TestResolveAuto), writes the file
// of the slice it resolved and says so; conflicting variables and k > n
// exit 2 with one line.
func TestShardAuto(t *testing.T) {
	for _, k := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_STEP", "JOB_COMPLETION_INDEX", "SGE_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX", "LSB_JOBINDEX"} {
		t.Setenv(k, "")
	}
	args := []string{"btai", "run", "--model", "../../examples/pomdp/tmaze.json", "--agents", "3", "--steps", "2", "--iterations", "10", "--json", "--shard", "auto"}
	for _, c := range []struct {
		name string
		env  map[string]string
		more []string
		file string // the file written, or "" for exit 2
		says string // on stderr
	}{
		// sbatch --array=1-4: task 3 is shard 3 of 4.
		{"slurm", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"}, nil, "shard-3-of-4.jsonl", "SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=4"},
		// An Indexed Job of completions 4: index 0 is shard 1 of 4.
		{"kubernetes", map[string]string{"JOB_COMPLETION_INDEX": "0"}, []string{"--shards", "4"}, "shard-1-of-4.jsonl", "JOB_COMPLETION_INDEX=0"},
		{"kubernetes k > n", map[string]string{"JOB_COMPLETION_INDEX": "4"}, []string{"--shards", "4"}, "", "gives shard 5 of 4"},
		{"conflict", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4", "JOB_COMPLETION_INDEX": "2"}, []string{"--shards", "4"}, "", "disagree"},
		{"none", nil, []string{"--shards", "4"}, "", "no array variable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			dir := t.TempDir()
			a := append(append(append([]string(nil), args...), c.more...), "--out", dir)
			code, _, stderr := aciRun(t, a...)
			if !strings.Contains(stderr, c.says) {
				t.Errorf("stderr %q, want %q", stderr, c.says)
			}
			if c.file == "" {
				if code != 2 || strings.Count(stderr, "\n") != 1 {
					t.Errorf("exit %d, stderr %q; want 2 and one line", code, stderr)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			m, err := shard.ReadManifest(filepath.Join(dir, c.file))
			if err != nil || m.From != c.says {
				t.Errorf("manifest %+v, %v; want from %q", m, err, c.says)
			}
		})
	}
}

// TestShardFlags: bad shard flags exit 2 with one line naming the flag;
// -h of the commands that shard lists the shard flags.
func TestShardFlags(t *testing.T) {
	for _, c := range [][]string{{"btai", "run", "-h"}, {"aci", "fit", "-h"}, {"si", "replay", "--help"}, {"sweep", "-h"}} {
		code, out, _ := aciRun(t, c...)
		if code != 0 || !strings.Contains(out, "-shard k/n|auto") || !strings.Contains(out, "-resume") {
			t.Errorf("%v: exit %d, help without the shard flags:\n%s", c, code, out)
		}
	}
	base := []string{"btai", "run", "--model", "../../examples/pomdp/tmaze.json", "--steps", "2", "--iterations", "10", "--json"}
	for _, c := range []struct {
		more []string
		says string
	}{
		{[]string{"--shard", "4/3", "--out", "x"}, "--shard \"4/3\""},
		{[]string{"--shard", "1/3"}, "needs --out"},
		{[]string{"--out", "x"}, "--shard k/n"},
		{[]string{"--shard", "1/3", "--shards", "4", "--out", "x"}, "disagree"},
	} {
		code, out, stderr := aciRun(t, append(append([]string(nil), base...), c.more...)...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.says) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.more, code, stderr, c.says)
		}
	}
	dir := t.TempDir()
	code, _, stderr := aciRun(t, "btai", "run", "--model", "../../examples/pomdp/tmaze.json", "--steps", "2", "--shard", "1/2", "--out", dir)
	if code != 2 || !strings.Contains(stderr, "--json") {
		t.Errorf("without --json: exit %d, %q", code, stderr)
	}
}

// TestMergeRefuses: arbor merge exits 2 with one line for a missing
// shard (naming its units and the --shard to run again), a shard of
// other settings and a shard of another model; --resume skips a complete
// shard and runs a missing one.
func TestMergeRefuses(t *testing.T) {
	args := []string{"btai", "run", "--model", "../../examples/pomdp/tmaze.json", "--agents", "4", "--steps", "2", "--iterations", "10", "--json"}
	dir := t.TempDir()
	runShards(t, args, 3, dir)
	one := func(what string, d string, want ...string) {
		t.Helper()
		code, out, stderr := aciRun(t, "merge", d)
		if code != 2 || out != "" || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2, nothing, one line", what, code, out, stderr)
		}
		for _, w := range want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q, want %q", what, stderr, w)
			}
		}
	}
	// Shard 2 of 3 holds agents 2 (and 5, not in a job of 4).
	second := filepath.Join(dir, shard.FileName(2, 3))
	saved, err := os.ReadFile(second)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(second)
	one("missing", dir, "units 2", "run --shard 2/3")

	// --resume runs the missing shard and skips the others.
	before, _ := os.Stat(filepath.Join(dir, shard.FileName(1, 3)))
	for k := 1; k <= 3; k++ {
		code, _, stderr := aciRun(t, append(append([]string(nil), args...), "--shard", fmt.Sprintf("%d/3", k), "--out", dir, "--resume")...)
		skipped := strings.Contains(stderr, "skipped (--resume)")
		if code != 0 || skipped != (k != 2) {
			t.Errorf("--resume shard %d: exit %d, %q", k, code, stderr)
		}
	}
	after, _ := os.Stat(filepath.Join(dir, shard.FileName(1, 3)))
	if !before.ModTime().Equal(after.ModTime()) {
		t.Error("--resume rewrote a complete shard")
	}
	if code, _, stderr := aciRun(t, "merge", dir); code != 0 {
		t.Fatalf("merge after --resume: %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(second); !bytes.Equal(untimedBytes(b), untimedBytes(saved)) {
		t.Error("--resume wrote another shard 2/3")
	}

	// A shard of other settings (--iterations 11) in the directory.
	other := t.TempDir()
	a := append(append([]string(nil), args[:len(args)-2]...), "11", "--json", "--shard", "2/3", "--out", other)
	if code, _, stderr := aciRun(t, a...); code != 0 {
		t.Fatal(stderr)
	}
	mixed := t.TempDir()
	for k := 1; k <= 3; k++ {
		src := filepath.Join(dir, shard.FileName(k, 3))
		if k == 2 {
			src = filepath.Join(other, shard.FileName(2, 3))
		}
		b, _ := os.ReadFile(src)
		os.WriteFile(filepath.Join(mixed, shard.FileName(k, 3)), b, 0o644)
	}
	one("other settings", mixed, "mismatched shards", "--iterations 10, 11")

	// A shard of another model: the same settings, another file.
	model := filepath.Join(t.TempDir(), "tmaze.json")
	b, _ := os.ReadFile("../../examples/pomdp/tmaze.json")
	os.WriteFile(model, append(b, ' '), 0o644)
	a = append(append([]string(nil), args...), "--shard", "2/3", "--out", other)
	a[3] = model
	if code, _, stderr := aciRun(t, a...); code != 0 {
		t.Fatal(stderr)
	}
	b, _ = os.ReadFile(filepath.Join(other, shard.FileName(2, 3)))
	os.WriteFile(filepath.Join(mixed, shard.FileName(2, 3)), b, 0o644)
	one("other model", mixed, "mismatched shards", "--model")

	// A duplicate: shard 2's file twice.
	os.WriteFile(filepath.Join(dir, "shard-2-of-3-again.jsonl"), saved, 0o644)
	one("duplicate", dir, "duplicate shard 2/3")
}

// untimedBytes is a shard file without its timing values and its
// checksum line (the SHA-256 of the lines, timings included).
func untimedBytes(b []byte) []byte {
	if i := bytes.LastIndex(b, []byte(`{"lines":`)); i >= 0 {
		b = b[:i]
	}
	return []byte(untimed(string(b)))
}

// clusterRun runs one example's shards: args is the example's arbor
// command (without "arbor"), its --out replaced by a temporary directory;
// envs holds the variables of each task (set for its run only, the
// others cleared). It checks that the n files are written and that their
// merge is the unsharded run of the same flags.
func clusterRun(t *testing.T, args []string, envs []map[string]string, n int) {
	t.Helper()
	dir := t.TempDir()
	var plain []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--out":
			args[i+1] = dir
			i++
		case "--shard", "--shards":
			i++
		case "--resume":
		default:
			plain = append(plain, args[i])
		}
	}
	for _, env := range envs {
		for _, k := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_STEP", "JOB_COMPLETION_INDEX", "SGE_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX", "LSB_JOBINDEX"} {
			t.Setenv(k, env[k])
		}
		a := args
		if v, ok := env["{}"]; ok {
			a = nil
			for _, x := range args {
				a = append(a, strings.ReplaceAll(x, "{}", v))
			}
		}
		if code, _, stderr := aciRun(t, a...); code != 0 {
			t.Fatalf("%v under %v: exit %d: %s", a, env, code, stderr)
		}
	}
	for k := 1; k <= n; k++ {
		if _, err := os.Stat(filepath.Join(dir, shard.FileName(k, n))); err != nil {
			t.Error(err)
		}
	}
	code, merged, stderr := aciRun(t, "merge", dir)
	if code != 0 {
		t.Fatalf("merge: %s", stderr)
	}
	code, want, stderr := aciRun(t, plain...)
	if code != 0 {
		t.Fatalf("%v: %s", plain, stderr)
	}
	if untimed(merged) != untimed(want) {
		t.Errorf("merged:\n%s\nunsharded %v:\n%s", merged, plain, want)
	}
}

// TestClusterExamples runs the arbor command of each example in
// examples/cluster under the variables its scheduler sets: Slurm's array
// (--array=LO-HI: task ids LO..HI, SLURM_ARRAY_TASK_MIN LO,
// SLURM_ARRAY_TASK_COUNT HI-LO+1), the Kubernetes Indexed Job's
// completion indices 0..completions-1 and the values GNU parallel puts
// for {}; and the sweep of grid.json in 3 shards.
func TestClusterExamples(t *testing.T) {
	t.Chdir("../..")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("examples/cluster", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	line := func(text, prefix string) []string {
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, prefix) {
				return strings.Fields(l)
			}
		}
		t.Fatalf("no line %q", prefix)
		return nil
	}
	t.Run("slurm", func(t *testing.T) {
		text := read("slurm.sh")
		var lo, hi int
		if _, err := fmt.Sscanf(line(text, "#SBATCH --array=")[1], "--array=%d-%d", &lo, &hi); err != nil {
			t.Fatal(err)
		}
		var envs []map[string]string
		for id := lo; id <= hi; id++ {
			envs = append(envs, map[string]string{"SLURM_ARRAY_TASK_ID": fmt.Sprint(id), "SLURM_ARRAY_TASK_MIN": fmt.Sprint(lo), "SLURM_ARRAY_TASK_COUNT": fmt.Sprint(hi - lo + 1)})
		}
		clusterRun(t, line(text, "arbor ")[1:], envs, hi-lo+1)
	})
	t.Run("kubernetes", func(t *testing.T) {
		text := read("job.yaml")
		var n int
		if _, err := fmt.Sscanf(line(text, "  completions:")[1], "%d", &n); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, "completionMode: Indexed") {
			t.Fatal("not an Indexed Job")
		}
		var cmd []string
		_, js, _ := strings.Cut(strings.Join(line(text, "          command:"), " "), "command: ")
		if err := json.Unmarshal([]byte(js), &cmd); err != nil || cmd[0] != "arbor" {
			t.Fatalf("command %q: %v", js, err)
		}
		if !strings.Contains(strings.Join(cmd, " "), fmt.Sprintf("--shards %d", n)) {
			t.Errorf("--shards is not completions %d", n)
		}
		var envs []map[string]string
		for i := range n {
			envs = append(envs, map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(i)})
		}
		clusterRun(t, cmd[1:], envs, n)
	})
	t.Run("sweep", func(t *testing.T) {
		var envs []map[string]string
		for k := 1; k <= 3; k++ {
			envs = append(envs, map[string]string{"{}": fmt.Sprint(k)})
		}
		clusterRun(t, []string{"sweep", "examples/cluster/grid.json", "--shard", "{}/3", "--out", "DIR"}, envs, 3)
	})
	t.Run("parallel", func(t *testing.T) {
		f := line(read("parallel.sh"), "parallel ")
		var start, sep int
		for i, x := range f {
			switch x {
			case "arbor":
				if start == 0 {
					start = i
				}
			case ":::":
				sep = i
			}
		}
		var envs []map[string]string
		for _, v := range f[sep+1:] {
			envs = append(envs, map[string]string{"{}": v})
		}
		clusterRun(t, f[start+1:sep], envs, len(envs))
	})
}

// TestShardKilled: a shard killed while it runs (SIGKILL) or stopped by
// SIGTERM leaves no shard-k-of-n.jsonl (at most its temporary file after
// SIGKILL), so merge refuses the directory naming the shard to run
// again; run again with --resume, the shard completes the job. Each
// episode takes about 0.45 s (3,000 iterations on 1.maze), and the
// signal goes as soon as the shard's temporary file exists.
func TestShardKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the arbor binary: skipped with -short")
	}
	bin := buildArbor(t)
	dir := t.TempDir()
	args := []string{"btai", "run", "--maze", "../../examples/mazes/1.maze", "--episodes", "3", "--iterations", "3000", "--json"}
	shardArgs := func(k int, more ...string) []string {
		return append(append(append([]string(nil), args...), "--shard", fmt.Sprintf("%d/3", k), "--out", dir), more...)
	}
	for _, k := range []int{1, 3} {
		if code, _, stderr := aciRun(t, shardArgs(k)...); code != 0 {
			t.Fatal(stderr)
		}
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		// The temporary files already there (SIGKILL's).
		before, _ := filepath.Glob(filepath.Join(dir, ".shard-2-of-3.jsonl.*"))
		cmd := exec.Command(bin, shardArgs(2)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			tmp, _ := filepath.Glob(filepath.Join(dir, ".shard-2-of-3.jsonl.*"))
			if len(tmp) > len(before) || time.Now().After(deadline) {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		if _, serr := os.Stat(filepath.Join(dir, shard.FileName(2, 3))); serr == nil {
			t.Fatalf("%v: the shard's file exists after the signal (%v)", sig, err)
		}
		code, _, stderr := aciRun(t, "merge", dir)
		if code != 2 || !strings.Contains(stderr, "run --shard 2/3") {
			t.Errorf("%v: merge exit %d, %q", sig, code, stderr)
		}
		if sig == syscall.SIGTERM {
			if cmd.ProcessState.ExitCode() != 143 {
				t.Errorf("SIGTERM: exit %d (%v), want 143", cmd.ProcessState.ExitCode(), err)
			}
			if tmp, _ := filepath.Glob(filepath.Join(dir, ".shard-2-of-3.jsonl.*")); len(tmp) != len(before) {
				t.Errorf("SIGTERM left %v", tmp)
			}
		}
	}
	if code, _, stderr := aciRun(t, shardArgs(2, "--resume")...); code != 0 {
		t.Fatal(stderr)
	}
	code, got, stderr := aciRun(t, "merge", dir)
	if code != 0 {
		t.Fatal(stderr)
	}
	code, want, stderr := aciRun(t, args...)
	if code != 0 {
		t.Fatal(stderr)
	}
	if untimed(got) != untimed(want) {
		t.Errorf("merged after --resume:\n%s\nunsharded:\n%s", got, want)
	}
}

// TestShardFitPlotRefused: a shard fits part of the subjects, so fit's
// --plot with --shard is refused naming both (it was ignored, no figure
// written and nothing said).
func TestShardFitPlotRefused(t *testing.T) {
	dir := t.TempDir()
	code, errs := runArbor("aci", "fit", "--model", pymdpModel, "--data", pymdpData, "--horizon", "1", "--free", "alpha",
		"--plot", filepath.Join(dir, "f.svg"), "--shard", "1/2", "--out", dir)
	if code != 2 || !strings.Contains(errs, "--plot "+filepath.Join(dir, "f.svg")+": a shard fits part of the subjects") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "f.svg")); err == nil {
		t.Error("a figure was written")
	}
}
