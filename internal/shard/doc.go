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
// as a JSON string, the header in the manifest), and last a checksum line
// {"lines":N,"sha256":"..."}, the SHA-256 of every byte before it.
//
// The files are input, not instructions. Open checks the manifests (one
// job, none missing or there twice, every count within its bound:
// MaxShards, MaxUnits, MaxManifest) and refuses a file that is not a
// regular file; Set.Verify reads every file through in unit order and
// checks each line's unit, its length (the caller's line limit), that it
// is one JSON value, and the checksum, while the caller's check sees the
// lines (to sum them up), all before anything is written; Set.Each and
// Set.WriteLines then give the lines in unit order. CheckFile verifies one
// shard's file as Verify does, for --resume. Writer.Rows puts CSV rows in
// JSON strings, and WriteLines takes them out. Fields reads the top-level
// fields of a JSON line without decoding it, for a merge that sums a few
// of them over millions of lines.
//
// A sweep's grid file is read by ParseGrid: no repeated key, no output or
// shard flag varied, at most MaxAxes flags, MaxArgs arguments and
// MaxPoints points, counted as the file is read. SameJob, JobDiff and
// SettingsDiff compare provenance lines, and the settings a command
// parsed with a job's.
package shard
