package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweep: a grid of 2 values of --iterations × 3 of --seed runs btai
// run at 6 points, the last flag varying fastest; each point's line holds
// the summary of btai run with those flags run alone; 1, 3, 7 and 16
// shards of the sweep merged give the unsharded sweep, timings aside.
func TestSweep(t *testing.T) {
	cmd := []string{"btai", "run", "--model", "../../examples/pomdp/tmaze.json", "--agents", "2", "--steps", "2"}
	grid := map[string]any{"command": cmd, "grid": []map[string]any{
		{"flag": "iterations", "values": []any{10, 20}},
		{"flag": "seed", "values": []any{1, 2, 3}},
	}}
	b, _ := json.Marshal(grid)
	path := filepath.Join(t.TempDir(), "grid.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, want, stderr := aciRun(t, "sweep", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(want), "\n")
	if len(lines) != 8 || !strings.Contains(lines[0], `"command":"sweep"`) || !strings.Contains(lines[0], `"flag":"--model"`) || lines[7] != `{"points":6}` {
		t.Fatalf("output:\n%s\nwant the provenance, 6 points and the count", want)
	}
	// Point 4 (from 1) is iterations 20, seed 1.
	var p struct {
		Point   map[string]any  `json:"point"`
		Summary json.RawMessage `json:"summary"`
	}
	if err := json.Unmarshal([]byte(lines[4]), &p); err != nil || p.Point["iterations"] != 20.0 || p.Point["seed"] != 1.0 {
		t.Fatalf("point 4: %s (%v)", lines[4], err)
	}
	code, alone, stderr := aciRun(t, append(cmd, "--iterations", "20", "--seed", "1", "--json")...)
	if code != 0 {
		t.Fatal(stderr)
	}
	al := strings.Split(strings.TrimSpace(alone), "\n")
	if untimed(string(p.Summary)) != untimed(al[len(al)-1]) {
		t.Errorf("point 4's summary %s, btai run alone %s", p.Summary, al[len(al)-1])
	}
	for _, n := range []int{1, 3, 7, 16} {
		got := runShards(t, []string{"sweep", path}, n, t.TempDir())
		if untimed(got) != untimed(want) {
			t.Errorf("%d shards merged:\n%s\nunsharded:\n%s", n, got, want)
		}
	}
	for _, c := range []struct{ grid, says string }{
		{`{"command": ["btai", "plan"], "grid": [{"flag": "seed", "values": [1]}]}`, "want aci, btai or si, then run or fit"},
		{`{"command": ["btai", "run", "--plot", "x.svg"], "grid": [{"flag": "seed", "values": [1]}]}`, "--plot"},
		{`{"command": ["btai", "run"], "grid": []}`, "no flag to vary"},
		{`{"command": ["btai", "run"], "grid": [{"flag": "seed", "values": [[1]]}]}`, "grid[0] (seed) value 1"},
		{`{"command": ["btai", "run"], "grids": []}`, "unknown field"},
		{`{"command": ["btai", "run", "--model", "../../examples/pomdp/tmaze.json"], "grid": [{"flag": "iterations", "values": [10, -1]}]}`, "point 2 (--iterations=-1)"},
	} {
		p := filepath.Join(t.TempDir(), "g.json")
		os.WriteFile(p, []byte(c.grid), 0o644)
		code, _, stderr := aciRun(t, "sweep", p)
		if code != 2 || !strings.Contains(stderr, c.says) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, %q; want 2 and one line with %q", c.grid, code, stderr, c.says)
		}
	}
}
