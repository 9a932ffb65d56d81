package shard

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The bounds of a sharded job (docs/cluster.md, "Bounds"): a count beyond
// them is refused before anything is allocated for it.
const (
	// MaxShards is the largest n of --shard k/n, --shards n and of the
	// array variables of --shard auto.
	MaxShards = 10000
	// MaxUnits is the largest number of units of a job a manifest may
	// name.
	MaxUnits = 1 << 40
	// maxVar bounds the value of a scheduler's array variable.
	maxVar = 1 << 32
)

// Spec is a parsed --shard value: K of N (1 <= K <= N), or Auto.
type Spec struct {
	K, N int
	Auto bool
}

// String returns the value as --shard takes it: "k/n" or "auto".
func (s Spec) String() string {
	if s.Auto {
		return "auto"
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// Parse reads a --shard value: "k/n" with 1 <= k <= n, or "auto".
func Parse(s string) (Spec, error) {
	if s == "auto" {
		return Spec{Auto: true}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return Spec{}, fmt.Errorf("--shard %q: want k/n (1 <= k <= n) or auto", s)
	}
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("--shard %q: want k/n with whole numbers k and n, or auto", s)
	}
	if n < 1 || k < 1 || k > n {
		return Spec{}, fmt.Errorf("--shard %q: want 1 <= k <= n", s)
	}
	if n > MaxShards {
		return Spec{}, fmt.Errorf("--shard %q: %d shards, over the limit of %d", s, n, MaxShards)
	}
	return Spec{K: k, N: n}, nil
}

// Resolved is the slice a job runs and where it was read from.
type Resolved struct {
	K, N int
	// From says where K and N came from: "--shard", or the scheduler's
	// variables ("SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=0
	// SLURM_ARRAY_TASK_COUNT=8").
	From string
}

// String is what the settings line prints: "shard 5/8 (from ...)".
func (r Resolved) String() string { return fmt.Sprintf("shard %d/%d (from %s)", r.K, r.N, r.From) }

// scheduler is one family of array-job variables.
type scheduler struct {
	name string
	// vars are the variables it reads, the first one marking it (it must
	// be set); a step variable (stepVars) left unset is 1.
	vars []string
	// resolve returns k and n from the variables; shards is --shards (0
	// when not given).
	resolve func(get func(string) (int, error), shards int) (k, n int, err error)
}

// Schedulers lists the array variables --shard auto reads, in the order
// they are tried; the docs list the same.
var schedulers = []scheduler{
	{"Slurm", []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_STEP"},
		func(get func(string) (int, error), shards int) (int, int, error) {
			id, err := get("SLURM_ARRAY_TASK_ID")
			if err != nil {
				return 0, 0, err
			}
			lo, err := get("SLURM_ARRAY_TASK_MIN")
			if err != nil {
				return 0, 0, err
			}
			n, err := get("SLURM_ARRAY_TASK_COUNT")
			if err != nil {
				return 0, 0, err
			}
			step, err := get("SLURM_ARRAY_TASK_STEP")
			if err != nil {
				return 0, 0, err
			}
			if (id-lo)%step != 0 {
				return 0, 0, fmt.Errorf("SLURM_ARRAY_TASK_ID %d is not SLURM_ARRAY_TASK_MIN %d plus a multiple of SLURM_ARRAY_TASK_STEP %d", id, lo, step)
			}
			return (id-lo)/step + 1, n, nil
		}},
	{"Kubernetes", []string{"JOB_COMPLETION_INDEX"}, fromIndex("JOB_COMPLETION_INDEX", 0)},
	{"Sun Grid Engine", []string{"SGE_TASK_ID", "SGE_TASK_FIRST", "SGE_TASK_LAST", "SGE_TASK_STEPSIZE"},
		func(get func(string) (int, error), shards int) (int, int, error) {
			id, err := get("SGE_TASK_ID")
			if err != nil {
				return 0, 0, err
			}
			first, err := get("SGE_TASK_FIRST")
			if err != nil {
				return 0, 0, err
			}
			last, err := get("SGE_TASK_LAST")
			if err != nil {
				return 0, 0, err
			}
			step, err := get("SGE_TASK_STEPSIZE")
			if err != nil {
				return 0, 0, err
			}
			if (id-first)%step != 0 {
				return 0, 0, fmt.Errorf("SGE_TASK_ID %d is not SGE_TASK_FIRST %d plus a multiple of SGE_TASK_STEPSIZE %d", id, first, step)
			}
			return (id-first)/step + 1, (last-first)/step + 1, nil
		}},
	{"AWS Batch", []string{"AWS_BATCH_JOB_ARRAY_INDEX"}, fromIndex("AWS_BATCH_JOB_ARRAY_INDEX", 0)},
	{"LSF", []string{"LSB_JOBINDEX"}, fromIndex("LSB_JOBINDEX", 1)},
}

// stepVars are the variables of a stride between array tasks: unset, the
// stride is 1; set, it must be a whole number >= 1.
var stepVars = map[string]bool{"SLURM_ARRAY_TASK_STEP": true, "SGE_TASK_STEPSIZE": true}

// fromIndex reads k from one index variable whose first task is base; n
// is --shards.
func fromIndex(name string, base int) func(get func(string) (int, error), shards int) (int, int, error) {
	return func(get func(string) (int, error), shards int) (int, int, error) {
		i, err := get(name)
		if err != nil {
			return 0, 0, err
		}
		if shards == 0 {
			return 0, 0, fmt.Errorf("%s is set but not the number of shards: give --shards n", name)
		}
		return i - base + 1, shards, nil
	}
}

// Resolve returns the slice spec names. For Auto it reads the array
// variables of the scheduler through getenv (os.Getenv): Slurm (k =
// SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1, over
// SLURM_ARRAY_TASK_STEP when set; n = SLURM_ARRAY_TASK_COUNT), Kubernetes
// Indexed Jobs (k = JOB_COMPLETION_INDEX + 1), Sun/Univa/Altair Grid Engine
// (SGE_TASK_ID, SGE_TASK_FIRST, SGE_TASK_LAST, SGE_TASK_STEPSIZE), AWS
// Batch (k = AWS_BATCH_JOB_ARRAY_INDEX + 1) and LSF (k = LSB_JOBINDEX);
// where the scheduler does not give n, shards (--shards) does, and when
// it does, a shards other than 0 must agree. No scheduler's variables,
// two schedulers' that disagree, a variable that is not a whole number
// from 0 to 2^32, a step (SLURM_ARRAY_TASK_STEP, SGE_TASK_STEPSIZE) set
// but not a whole number >= 1, k outside 1..n and n over MaxShards are
// errors naming the variables.
func Resolve(spec Spec, shards int, getenv func(string) string) (Resolved, error) {
	if shards < 0 || shards > MaxShards {
		return Resolved{}, fmt.Errorf("--shards %d: want 1..%d", shards, MaxShards)
	}
	if !spec.Auto {
		if spec.N < 1 || spec.K < 1 || spec.K > spec.N || spec.N > MaxShards {
			return Resolved{}, fmt.Errorf("--shard %d/%d: want 1 <= k <= n <= %d", spec.K, spec.N, MaxShards)
		}
		if shards != 0 && shards != spec.N {
			return Resolved{}, fmt.Errorf("--shard %s and --shards %d disagree", spec, shards)
		}
		return Resolved{K: spec.K, N: spec.N, From: "--shard"}, nil
	}
	var found []Resolved
	for _, s := range schedulers {
		if getenv(s.vars[0]) == "" {
			continue
		}
		var used []string
		get := func(name string) (int, error) {
			v := getenv(name)
			if v == "" && stepVars[name] {
				return 1, nil
			}
			if v == "" {
				return 0, fmt.Errorf("%s is set but not %s", s.vars[0], name)
			}
			i, err := strconv.Atoi(strings.TrimSpace(v))
			switch {
			case err != nil:
				return 0, fmt.Errorf("%s=%q is not a whole number", name, v)
			case stepVars[name] && i < 1:
				return 0, fmt.Errorf("%s=%q: a step must be a whole number >= 1", name, v)
			case i < 0 || i > maxVar:
				return 0, fmt.Errorf("%s=%q: want a whole number from 0 to %d", name, v, maxVar)
			}
			used = append(used, name+"="+v)
			return i, nil
		}
		k, n, err := s.resolve(get, shards)
		if err != nil {
			return Resolved{}, fmt.Errorf("--shard auto (%s): %v", s.name, err)
		}
		from := strings.Join(used, " ")
		if shards != 0 && n != shards {
			return Resolved{}, fmt.Errorf("--shard auto: %s gives %d shards, --shards %d", from, n, shards)
		}
		if n < 1 || k < 1 || k > n {
			return Resolved{}, fmt.Errorf("--shard auto: %s gives shard %d of %d, want 1 <= k <= n", from, k, n)
		}
		if n > MaxShards {
			return Resolved{}, fmt.Errorf("--shard auto: %s gives %d shards, over the limit of %d", from, n, MaxShards)
		}
		found = append(found, Resolved{K: k, N: n, From: from})
	}
	switch {
	case len(found) == 0:
		var names []string
		for _, s := range schedulers {
			names = append(names, s.vars[0])
		}
		return Resolved{}, errors.New("--shard auto: no array variable is set (" + strings.Join(names, ", ") + "); give --shard k/n")
	case len(found) > 1:
		for _, f := range found[1:] {
			if f.K != found[0].K || f.N != found[0].N {
				return Resolved{}, fmt.Errorf("--shard auto: the variables disagree: %s gives %d/%d, %s gives %d/%d", found[0].From, found[0].K, found[0].N, f.From, f.K, f.N)
			}
		}
	}
	return found[0], nil
}

// Mine reports whether unit (from 0) belongs to shard k of n: units k-1,
// k-1+n, k-1+2n, ...
func Mine(unit, k, n int) bool { return unit%n == k-1 }

// Units returns the units (from 0) of shard k of n among total.
func Units(total, k, n int) []int {
	var u []int
	for i := k - 1; i < total; i += n {
		u = append(u, i)
	}
	return u
}

// FileName is the name of shard k of n's file: shard-k-of-n.jsonl.
func FileName(k, n int) string { return fmt.Sprintf("shard-%d-of-%d.jsonl", k, n) }
