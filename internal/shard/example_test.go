package shard_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/arbor-ai/arbor/internal/shard"
)

// Two shards of a job of 5 units, each unit one line, written as two
// array tasks would and merged in unit order.
func ExampleMerge() {
	dir, err := os.MkdirTemp("", "shards")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	job := json.RawMessage(`{"command":"btai run","settings":{"seed":"1"}}`)
	for k := 1; k <= 2; k++ {
		w, err := shard.Create(dir, &shard.Manifest{Shard: k, Of: 2, Units: 5, Unit: "agent", Job: job, Args: []string{"btai", "run"}})
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, u := range shard.Units(5, k, 2) {
			w.Line(u, []byte(fmt.Sprintf(`{"agent":%d}`, u+1)))
		}
		if err := w.Commit(); err != nil {
			fmt.Println(err)
			return
		}
	}
	m, err := shard.Merge(dir, func(unit int, line []byte) error {
		fmt.Printf("unit %d: %s\n", unit, line)
		return nil
	})
	fmt.Println(m.Units, "units,", m.Of, "shards, error:", err)
	// Output:
	// unit 0: {"agent":1}
	// unit 1: {"agent":2}
	// unit 2: {"agent":3}
	// unit 3: {"agent":4}
	// unit 4: {"agent":5}
	// 5 units, 2 shards, error: <nil>
}

// --shard auto inside a Slurm array task: task 2 of --array=0-7.
func ExampleResolve() {
	env := map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "8"}
	r, err := shard.Resolve(shard.Spec{Auto: true}, 0, func(k string) string { return env[k] })
	fmt.Println(r, err)
	fmt.Println(shard.Units(20, r.K, r.N))
	// Output:
	// shard 3/8 (from SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=8) <nil>
	// [2 10 18]
}
