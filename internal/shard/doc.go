// Package shard splits a command's work units among the tasks of an array
// job and puts their outputs back together.
//
// A command that runs many independent units (agents or episodes of
// `arbor aci|btai|si run`, subjects of `fit`) enumerates them in one
// order; shard k of n (--shard k/n, 1 <= k <= n) runs units k-1, k-1+n,
// k-1+2n, ... (counted from 0), and since every unit draws its random
// numbers from its own index, a unit's output does not depend on the
// split. Resolve reads --shard auto from a scheduler's array variables
// (Slurm, Kubernetes Indexed Jobs, Grid Engine, AWS Batch, LSF).
//
// A shard writes DIR/shard-k-of-n.jsonl atomically (Create; the file
// appears under its name only when Commit renames it, so a task killed
// while writing leaves no file that Merge accepts): a manifest line (the
// job's provenance line, what a unit is, the number of units, k and n)
// then one line {"unit":U,"line":LINE} per output line, LINE being the
// line the unsharded command prints (a JSON value; for CSV output the row
// as a JSON string, the header in the manifest). Merge checks that the files are the
// shards of one job, none missing or there twice, and gives back the
// lines in unit order; MergeTo writes them out, and Writer.Rows and
// MergeRows put CSV rows in and out of their JSON strings. Fields reads
// the top-level fields of a JSON line without decoding it, for a merge
// that sums a few of them over millions of lines.
package shard
