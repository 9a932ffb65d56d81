package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// runLines runs arbor with args and returns its JSON lines decoded, the
// timing fields (planning_seconds, iterations_per_second) removed.
func runLines(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d, %s", args, code, errb.String())
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %q: %v", args, l, err)
		}
		delete(m, "planning_seconds")
		delete(m, "iterations_per_second")
		lines = append(lines, m)
	}
	return lines
}

// TestRunAgents: --agents on a model that learns (the T-maze's
// concentrations d). Three agents of two episodes each give the same
// output with 1 and 3 jobs; agent a's episodes are those of a single agent
// run alone with --seed 1 + (a-1)·2 (each agent starts from the model's
// priors, and its episode e draws from seed + (a-1)·episodes + e-1); the
// lines name the agent and its episode; bad values exit 2.
func TestRunAgents(t *testing.T) {
	model := "../../examples/pomdp/tmaze.json"
	for _, cmd := range [][]string{
		{"aci", "run", "--model", model, "--horizon", "2", "--steps", "2"},
		{"btai", "run", "--model", model, "--steps", "2", "--iterations", "50"},
	} {
		name := strings.Join(cmd[:2], " ")
		all := runLines(t, append(cmd, "--agents", "3", "--episodes", "2", "--json", "--jobs", "1")...)
		if got := runLines(t, append(cmd, "--agents", "3", "--episodes", "2", "--json", "--jobs", "3")...); !reflect.DeepEqual(got, all) {
			t.Errorf("%s: --jobs 3 differs from --jobs 1:\n%v\n%v", name, got, all)
		}
		if len(all) != 7 || all[6]["agents"] != 3.0 || all[6]["episodes"] != 6.0 {
			t.Fatalf("%s: %d lines, summary %v; want 6 episodes and a summary of 3 agents", name, len(all), all[len(all)-1])
		}
		for a := 1; a <= 3; a++ {
			alone := runLines(t, append(cmd, "--episodes", "2", "--json", "--seed", fmt.Sprint(1+(a-1)*2))...)
			for e := 1; e <= 2; e++ {
				got := all[(a-1)*2+e-1]
				if got["agent"] != float64(a) || got["episode"] != float64(e) {
					t.Errorf("%s: line %d names agent %v episode %v, want %d and %d", name, (a-1)*2+e, got["agent"], got["episode"], a, e)
				}
				delete(got, "agent")
				want := alone[e-1]
				want["episode"] = got["episode"] // aci numbers its episodes; btai does not alone
				if _, ok := alone[e-1]["episode"]; !ok {
					delete(got, "episode")
					delete(want, "episode")
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: agent %d episode %d is not the run alone with its seed:\n%v\n%v", name, a, e, got, want)
				}
			}
		}
		var out, errb bytes.Buffer
		if code := run(append(cmd, "--agents", "2", "--episodes", "1"), &out, &errb); code != 0 || !strings.Contains(out.String(), "agent 2 episode 1: ") {
			t.Errorf("%s: human output %q (exit %d), want agent 2 episode 1", name, out.String(), code)
		}
		for _, bad := range [][]string{{"--agents", "0"}, {"--agents", "1025"}, {"--agents", "1000", "--episodes", "1000"}} {
			errb.Reset()
			if code := run(append(append([]string(nil), cmd...), bad...), &out, &errb); code != 2 || !strings.Contains(errb.String(), "--agents") {
				t.Errorf("%s %v: exit %d, %q; want 2 naming --agents", name, bad, code, errb.String())
			}
		}
	}
}
