package main

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/internal/shard"
)

// BenchmarkMergeRun is what arbor merge does with the shards of a run
// past the manifests: 10^6 records of about 200 bytes from 16 shard files
// read twice in unit order, the first time verified (checksums, units,
// JSON) and summed up for the summary line (the fields it needs read from
// each record), the second time written out. The goal is under 2 s
// (docs/benchmarks.md).
func BenchmarkMergeRun(b *testing.B) {
	b.ReportAllocs()
	const units, n = 1000000, 16
	dir := b.TempDir()
	base := `{"agent":1,"episode":1,"solved":true,"steps":9,"actions":[0,1,2,3,0,1,2,3,0],"observations":[1,2,3,4,5,6,7,8,9,10],"planning_seconds":0.0123,"q_s":["`
	line := []byte(base + strings.Repeat("x", 200-len(base)-3) + `"]}`)
	job := json.RawMessage(`{"arbor":"test","command":"btai run","files":[],"settings":{}}`)
	for k := 1; k <= n; k++ {
		w, err := shard.Create(dir, &shard.Manifest{Shard: k, Of: n, Units: units, Unit: "episode", Job: job, Args: []string{"btai", "run"}})
		if err != nil {
			b.Fatal(err)
		}
		for u := k - 1; u < units; u += n {
			if err := w.Line(u, line); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(units * (len(line) + 1)))
	b.ResetTimer()
	for b.Loop() {
		set, err := shard.Open(dir, 0)
		if err != nil {
			b.Fatal(err)
		}
		var sum runSummary
		if err := set.Verify(sum.add); err != nil {
			b.Fatal(err)
		}
		if err := set.WriteLines(io.Discard); err != nil {
			b.Fatal(err)
		}
		set.Close()
		if sum.Episodes != units || sum.Solved != units || sum.Actions != 9*units {
			b.Fatalf("%+v", sum)
		}
	}
}
