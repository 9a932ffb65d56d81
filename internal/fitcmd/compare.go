package fitcmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/arbor-ai/arbor/internal/output"
)

// sameModel are the settings of fit that do not change the model a fit
// stands for: its data, outputs, parallelism and search.
var sameModel = []string{"data", "compare", "json", "csv", "jobs", "plot", "shard", "out", "restarts", "method", "group", "covariates", "design", "group-cov"}

// CompareLabels names the models of `fit --compare`: each by its model
// file (the setting "model"), the planner when the commands differ, and
// the settings that differ among the fits (the agent flags, --free,
// --prior, ...), in the order of the first fit's settings. commands[k]
// and settings[k] are fit k's command ("aci fit") and flags (its
// provenance line); paths[k] is the file it was read from ("" for this
// fit), added where two labels would otherwise be the same.
func CompareLabels(commands []string, settings []map[string]string, order []string, paths []string) []string {
	var keys []string
	for k := range settings {
		for key := range settings[k] {
			if !slices.Contains(order, key) && !slices.Contains(keys, key) {
				keys = append(keys, key)
			}
		}
	}
	slices.Sort(keys)
	keys = append(slices.Clone(order), keys...)
	var differ []string
	for _, key := range keys {
		if key == "model" || slices.Contains(sameModel, key) {
			continue
		}
		for k := range settings {
			if settings[k][key] != settings[0][key] {
				differ = append(differ, key)
				break
			}
		}
	}
	planners := false
	for _, c := range commands {
		planners = planners || c != commands[0]
	}
	labels := make([]string, len(settings))
	for k, s := range settings {
		var b strings.Builder
		if planners {
			b.WriteString(strings.TrimSuffix(commands[k], " fit") + ": ")
		}
		b.WriteString(output.Shorten(s["model"], 60))
		for _, key := range differ {
			v := s[key]
			if v == "" {
				v = "(default)"
			}
			b.WriteString(" --" + key + " " + output.Shorten(v, 40))
		}
		labels[k] = b.String()
	}
	base := slices.Clone(labels)
	for k := range labels {
		for j := range base {
			if j == k || base[j] != base[k] {
				continue
			}
			if paths[k] == "" {
				labels[k] += " (this fit)"
			} else {
				labels[k] += " (" + output.Shorten(paths[k], 60) + ")"
			}
			break
		}
	}
	return labels
}

// Settings returns the flags of a provenance line's settings as text by
// name, and their order.
func Settings(o output.Ordered) (map[string]string, []string) {
	m := make(map[string]string, len(o.Keys))
	for i, k := range o.Keys {
		m[k] = fmt.Sprint(o.Values[i])
	}
	return m, o.Keys
}
