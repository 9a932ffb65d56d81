package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestTreeFigureFitsPage: at their defaults, btai run --dot on 1.maze and
// btai plan --dot at 1,000 iterations (the tree --plot draws) lay out
// within 16 × 10 inches (dot -Tplain) without a Graphviz warning, with the
// note of the nodes left out; an explicit --dot-depth is kept.
func TestTreeFigureFitsPage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"run-maze", []string{"btai", "run", "--maze", "../../examples/mazes/1.maze", "--dot", dir + "/run.dot"}},
		{"plan-1000", []string{"btai", "plan", "--model", "../../examples/pomdp/tiger.json", "--obs", "0", "--iterations", "1000", "--dot", dir + "/plan.dot"}},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errb.String())
		}
		text, err := os.ReadFile(c.args[len(c.args)-1])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), "more nodes not drawn (--dot-depth ") {
			t.Errorf("%s: no note of the nodes left out", c.name)
		}
		w, h, warn := layoutOf(t, string(text))
		if w > 16 || h > 10 || warn != "" {
			t.Errorf("%s: %.2f × %.2f in, warnings %q; want within 16 × 10 and none", c.name, w, h, warn)
		}
		t.Logf("%s: %.2f × %.2f in", c.name, w, h)
	}
	var out, errb bytes.Buffer
	path := dir + "/deep.dot"
	if code := run([]string{"btai", "plan", "--model", "../../examples/pomdp/tiger.json", "--obs", "0", "--iterations", "200", "--dot", path, "--dot-depth", "5"}, &out, &errb); code != 0 {
		t.Fatalf("--dot-depth 5: exit %d: %s", code, errb.String())
	}
	if text, _ := os.ReadFile(path); !strings.Contains(string(text), "(--dot-depth 5)") {
		t.Errorf("--dot-depth 5 not kept: %s", text)
	}
}
