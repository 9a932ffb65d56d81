package shard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/arbor-ai/arbor/internal/output"
)

// jobLine is what merge reads of a provenance line.
type jobLine struct {
	Arbor    string          `json:"arbor"`
	Command  string          `json:"command"`
	Files    []output.File   `json:"files"`
	Settings map[string]any  `json:"settings"`
	Resolved json.RawMessage `json:"resolved"`
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// outputFree are the settings that never change what a command prints:
// shards of one job may differ in them (each array task may use the cores
// it was given).
var outputFree = []string{"jobs", "progress"}

// SameJob reports whether two provenance lines are of one job: equal once
// compacted, but for the settings in outputFree (--jobs, --progress).
func SameJob(a, b []byte) bool {
	if bytes.Equal(compact(a), compact(b)) {
		return true
	}
	var x, y map[string]json.RawMessage
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	strip := func(m map[string]json.RawMessage) []byte {
		var set map[string]json.RawMessage
		if json.Unmarshal(m["settings"], &set) == nil && set != nil {
			for _, k := range outputFree {
				delete(set, k)
			}
			m["settings"], _ = json.Marshal(set)
		}
		out, _ := json.Marshal(m) // map keys sorted: a canonical form
		return out
	}
	return bytes.Equal(strip(x), strip(y))
}

// Command returns the command of the manifest's job ("btai run",
// "sweep"), which Open checks that the manifest's args begin with.
func (m *Manifest) Command() string {
	var j jobLine
	_ = json.Unmarshal(m.Job, &j)
	return j.Command
}

// SettingsDiff compares the command and settings of a job's provenance
// line with those a command parsed from its arguments (every flag's value,
// as the provenance line writes them): "" when they agree but for
// outputFree, else the first difference ("--iterations 10, 11").
func SettingsDiff(line json.RawMessage, command string, settings map[string]string) string {
	var j jobLine
	if json.Unmarshal(line, &j) != nil {
		return "the job line is not a provenance line"
	}
	if j.Command != command {
		return fmt.Sprintf("command %q, %q", j.Command, command)
	}
	other := map[string]any{}
	for k, v := range settings {
		other[k] = v
	}
	return settingsDiff(j.Settings, other)
}

// settingsDiff names the first setting (in name order, outputFree aside)
// in which x and y differ, or "".
func settingsDiff(x, y map[string]any) string {
	keys := map[string]bool{}
	for k := range x {
		keys[k] = true
	}
	for k := range y {
		keys[k] = true
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		if slices.Contains(outputFree, k) {
			continue
		}
		a, inX := x[k]
		b, inY := y[k]
		if inX != inY || fmt.Sprint(a) != fmt.Sprint(b) {
			show := func(v any, in bool) string {
				if !in {
					return "none"
				}
				return output.Shorten(fmt.Sprint(v), 200)
			}
			return fmt.Sprintf("--%s %v, %v", k, show(a, inX), show(b, inY))
		}
	}
	return ""
}

// JobDiff names the first difference of two provenance lines: the
// command, a file's hash or a setting ("--iterations 10, 20").
func JobDiff(a, b json.RawMessage) string {
	var x, y jobLine
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return "their job lines differ"
	}
	switch {
	case x.Command != y.Command:
		return fmt.Sprintf("command %q, %q", x.Command, y.Command)
	case x.Arbor != y.Arbor:
		return fmt.Sprintf("arbor %s, %s", x.Arbor, y.Arbor)
	}
	for i := range max(len(x.Files), len(y.Files)) {
		if i >= len(x.Files) || i >= len(y.Files) || x.Files[i] != y.Files[i] {
			name := func(fs []output.File) string {
				if i >= len(fs) {
					return "none"
				}
				return fmt.Sprintf("%s %s (SHA-256 %.12s)", fs[i].Flag, fs[i].Path, fs[i].SHA256)
			}
			return fmt.Sprintf("file %s, %s", name(x.Files), name(y.Files))
		}
	}
	if d := settingsDiff(x.Settings, y.Settings); d != "" {
		return d
	}
	return "their job lines differ"
}

// argsRun reports whether args (a manifest's) begin with the words of
// command (its job's).
func argsRun(args []string, command string) bool {
	words := strings.Fields(command)
	return len(words) > 0 && len(args) >= len(words) && slices.Equal(args[:len(words)], words)
}

// Files returns the files of the manifest's job, each with the flag that
// named it and its SHA-256.
func (m *Manifest) Files() []output.File {
	var j jobLine
	_ = json.Unmarshal(m.Job, &j)
	return j.Files
}
