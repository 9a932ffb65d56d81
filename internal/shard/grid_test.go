package shard

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestParseGrid: a grid's points in order (the last flag fastest), their
// flags and values as written; and every fault refused naming its field:
// a repeated key at any depth, an unknown field, a value of another type,
// an output or shard flag varied or in the command, a flag twice, and
// the bounds (points, flags, arguments) met before their size is built.
// 64 two-value flags, 2^64 points, once printed {"points":0}.
func TestParseGrid(t *testing.T) {
	g, err := ParseGrid([]byte(`{"command": ["btai", "run", "--json"], "grid": [{"flag": "iterations", "values": [10, 20]}, {"values": ["a b", true, 1e-3], "flag": "x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if g.Points() != 6 {
		t.Fatalf("%d points", g.Points())
	}
	flags, o := g.Point(4)
	b, _ := json.Marshal(o)
	if strings.Join(flags, " ") != "--iterations=20 --x=true" || string(b) != `{"iterations":20,"x":true}` {
		t.Errorf("point 4: %q %s", flags, b)
	}
	axes := func(n, values int) string {
		var a []string
		for i := range n {
			a = append(a, fmt.Sprintf(`{"flag": "f%d", "values": [%s]}`, i, strings.TrimSuffix(strings.Repeat("1,", values), ",")))
		}
		return `{"command": ["btai", "run"], "grid": [` + strings.Join(a, ",") + `]}`
	}
	for _, c := range []struct{ grid, says string }{
		{`{"command": ["btai", "run"], "command": ["si", "run"], "grid": [{"flag": "seed", "values": [1]}]}`, `duplicate key "command"`},
		{`{"command": ["btai", "run"], "grid": [{"flag": "seed", "flag": "x", "values": [1]}]}`, `grid[0]: duplicate key "flag"`},
		{`{"command": ["btai", "run"], "grid": [{"flag": "seed", "values": [{"a": 1, "a": 2}]}]}`, `grid[0].values[0]: duplicate key "a"`},
		{`{"command": ["btai", "run"], "grids": []}`, `unknown field "grids"`},
		{`{"command": ["btai", "run"], "grid": [{"flag": "seed", "value": [1]}]}`, `grid[0]: unknown field "value"`},
		{`{"command": ["btai", 1], "grid": []}`, `command[1]: a number, want a string`},
		{`{"command": ["btai", "run"], "grid": [{"flag": "seed", "values": [null]}]}`, `grid[0] (seed) value 1: a null`},
		{`{"command": ["btai", "run"], "grid": []}`, `no flag to vary`},
		{`{"command": ["btai", "run"], "grid": [{"flag": "seed", "values": []}]}`, `grid[0] (seed): no values`},
		{`{"command": ["btai", "run"], "grid": [{"flag": "seed", "values": [1]}, {"flag": "seed", "values": [2]}]}`, `grid[1].flag "seed" comes twice`},
		{`{"command": ["btai", "run"], "grid": [{"flag": "--seed", "values": [1]}]}`, `want a flag's name without dashes`},
		{`{"command": ["btai", "run", "--plot=x.svg"], "grid": [{"flag": "seed", "values": [1]}]}`, `command: --plot does not go`},
		{`{"command": ["btai", "run", "-h"], "grid": [{"flag": "seed", "values": [1]}]}`, `command: --h does not go`},
		{`{"command": ["btai", "run"], "grid": [{"flag": "seed", "values": [1]}]`, `not one JSON value`},
		{axes(3, 101), `grid[2] (f2) value 99: the grid would have more than 1000000 points`},
		{axes(64, 2), `grid[19] (f19) value 2: the grid would have more than 1000000 points`},
		{axes(65, 1), `more than 64 flags`},
		{`{"command": [` + strings.TrimSuffix(strings.Repeat(`"a",`, 1001), ",") + `], "grid": []}`, `more than 1000 arguments`},
	} {
		if _, err := ParseGrid([]byte(c.grid)); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%.80s: %v; want %q", c.grid, err, c.says)
		}
	}
	for _, flag := range OutputFlags {
		grid := `{"command": ["btai", "run"], "grid": [{"flag": "` + flag + `", "values": [1]}]}`
		if _, err := ParseGrid([]byte(grid)); err == nil || !strings.Contains(err.Error(), "does not vary an output or shard flag") {
			t.Errorf("--%s varied: %v", flag, err)
		}
	}
}
