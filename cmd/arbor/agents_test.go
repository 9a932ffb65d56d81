package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/google/go-cmp/cmp"
)

// runJSONLines returns the lines of the --json output of aci run or btai
// run after its first line, the provenance line, which it checks: a JSON
// object naming arbor's version and the command, and nothing of an
// episode.
func runJSONLines(t *testing.T, out string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var prov map[string]json.RawMessage
	if err := json.Unmarshal([]byte(lines[0]), &prov); err != nil {
		t.Fatalf("provenance line: %v in %q", err, lines[0])
	}
	var command string
	if err := json.Unmarshal(prov["command"], &command); err != nil || prov["arbor"] == nil ||
		(command != "aci run" && command != "btai run") || prov["steps"] != nil {
		t.Fatalf("first line %q, want the provenance line of aci run or btai run", lines[0])
	}
	return lines[1:]
}

// runLines runs arbor with args and returns its JSON lines after the
// provenance line decoded, the timing field planning_seconds removed.
func runLines(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d, %s", args, code, errb.String())
	}
	var lines []map[string]any
	for _, l := range runJSONLines(t, out.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %q: %v", args, l, err)
		}
		delete(m, "planning_seconds")
		lines = append(lines, m)
	}
	return lines
}

// TestRunAgents: --agents on a model that learns (the T-maze's
// concentrations d). Three agents of two episodes each give the same
// output with 1 and 3 jobs; the lines name the agent and its episode;
// agent 1's episodes are those of a single agent run alone with the same
// seed; every agent starts from the model's priors and learns over its own
// episodes, its episode e drawing its decisions from agent.StepRand(seed,
// a-1, e-1, t) and the process from seed + (a-1)·episodes + e-1, which
// the library reproduces; bad values exit 2.
func TestRunAgents(t *testing.T) {
	model := "../../examples/pomdp/tmaze.json"
	m, err := pomdp.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd      []string
		newAgent func() (agent.Agent, error) // the agent the command runs
	}{
		{[]string{"aci", "run", "--model", model, "--horizon", "2", "--steps", "2"},
			func() (agent.Agent, error) { return aci.NewAgent(m, &aci.AgentOptions{Horizon: 2}) }},
		{[]string{"btai", "run", "--model", model, "--steps", "2", "--iterations", "50"},
			func() (agent.Agent, error) {
				o, err := btai.PresetByName(btai.PresetScaleFreeName)
				if err != nil {
					return nil, err
				}
				o.Iterations = 50
				return btai.NewAgent(m, &o, nil)
			}},
	} {
		cmd := tc.cmd
		name := strings.Join(cmd[:2], " ")
		all := runLines(t, append(cmd, "--agents", "3", "--episodes", "2", "--json", "--jobs", "1")...)
		if got := runLines(t, append(cmd, "--agents", "3", "--episodes", "2", "--json", "--jobs", "3")...); !reflect.DeepEqual(got, all) {
			t.Errorf("%s: --jobs 3 differs from --jobs 1:\n%v\n%v", name, got, all)
		}
		if len(all) != 7 || all[6]["agents"] != 3.0 || all[6]["episodes"] != 6.0 {
			t.Fatalf("%s: %d lines, summary %v; want 6 episodes and a summary of 3 agents", name, len(all), all[len(all)-1])
		}
		alone := runLines(t, append(cmd, "--episodes", "2", "--json", "--seed", "1")...)
		for a := 1; a <= 3; a++ {
			ag, err := tc.newAgent()
			if err != nil {
				t.Fatal(err)
			}
			for e := 1; e <= 2; e++ {
				got := all[(a-1)*2+e-1]
				if got["agent"] != float64(a) || got["episode"] != float64(e) {
					t.Errorf("%s: line %d names agent %v episode %v, want %d and %d", name, (a-1)*2+e, got["agent"], got["episode"], a, e)
				}
				if _, ok := alone[e-1]["agent"]; ok {
					t.Errorf("%s: a single agent's line names it: %v", name, alone[e-1])
				}
				if a == 1 {
					one := maps.Clone(got)
					delete(one, "agent")
					if !reflect.DeepEqual(one, alone[e-1]) {
						t.Errorf("%s: agent 1 episode %d is not the run alone with its seed:\n%v\n%v", name, e, one, alone[e-1])
					}
				}
				proc := pomdp.NewProcess(m, rand.New(rand.NewPCG(1+uint64((a-1)*2+e-1), 0xe1)))
				ep, err := agent.RunEpisode(context.Background(), ag, proc, &agent.EpisodeSettings{MaxSteps: 2, Seed: 1, Agent: a - 1, Trial: e - 1})
				if err != nil {
					t.Fatal(err)
				}
				var obs [][]int
				for _, o := range ep.Observations() {
					obs = append(obs, m.DecodeObs(nil, o))
				}
				want := map[string]any{"actions": ep.Actions(), "observations": obs}
				if d := cmp.Diff(agentsRoundTrip(t, want), agentsRoundTrip(t, map[string]any{"actions": got["actions"], "observations": got["observations"]})); d != "" {
					t.Errorf("%s: agent %d episode %d is not the library's (-library +run):\n%s", name, a, e, d)
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

// agentsRoundTrip returns v written as JSON and read back.
func agentsRoundTrip(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
