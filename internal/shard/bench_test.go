package shard

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkStartup is what a shard does before its first unit: resolve
// --shard auto from Slurm's variables, pick its units among 10^5, create
// its file and write the manifest ("start", the file then discarded);
// "start+commit" adds what a shard without units does at its end, the
// sync and rename of its file. The goal is under 20 ms
// (docs/benchmarks.md).
func BenchmarkStartup(b *testing.B) {
	env := map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "16"}
	for _, commit := range []bool{false, true} {
		name := "start"
		if commit {
			name = "start+commit"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			dir := b.TempDir()
			for b.Loop() {
				r, err := Resolve(Spec{Auto: true}, 0, func(k string) string { return env[k] })
				if err != nil {
					b.Fatal(err)
				}
				units := Units(100000, r.K, r.N)
				w, err := Create(dir, &Manifest{Shard: r.K, Of: r.N, Units: 100000, Unit: "agent", Job: json.RawMessage(job), Args: args})
				if err != nil {
					b.Fatal(err)
				}
				if len(units) != 6250 {
					b.Fatal(len(units))
				}
				if !commit {
					w.Abort()
				} else if err := w.Commit(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMerge merges 10^6 lines of about 200 bytes from 16 shards
// (one line per unit), emitting each to a counting sink. The goal is
// under 2 s per merge (docs/benchmarks.md).
func BenchmarkMerge(b *testing.B) {
	b.ReportAllocs()
	const units, n = 1000000, 16
	dir := b.TempDir()
	line := []byte(`{"agent":1,"episode":1,"solved":true,"steps":9,"actions":[0,1,2,3,0,1,2,3,0],"q_s":["` + strings.Repeat("x", 110) + `"]}`)
	for k := 1; k <= n; k++ {
		w, err := Create(dir, &Manifest{Shard: k, Of: n, Units: units, Unit: "agent", Job: json.RawMessage(job), Args: args})
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
		total := 0
		if _, err := Merge(dir, func(u int, l []byte) error {
			if !bytes.Equal(l, line) {
				b.Fatalf("unit %d: %s", u, l)
			}
			total++
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if total != units {
			b.Fatal(total)
		}
	}
}
