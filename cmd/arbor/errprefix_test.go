package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLibraryErrorLines: a library error reaches standard error as one
// line headed by the command, then the flag and the file, then the
// library's message without its package's prefix (output.Reason; the
// libraries start every error with it: docs/reliability.md, "Error
// messages"), exit status 2. Each line is compared whole.
func TestLibraryErrorLines(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badPOMDP := write("b.json", `{"A": [[1]], "B": "x"}`)
	badModel := write("m.json", `{"variables": [{"name": "x", "type": "categorical"}]}`)
	// Observation 1 has probability 0 under A in every state.
	impossible := write("imp.json", `{"A": [[1, 1, 1], [0, 0, 0]],
 "B": [[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 0, 1], [1, 0, 0], [0, 1, 0]]],
 "C": [0.7, 0.3], "D": [0.2, 0.3, 0.5]}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"aci", "eval", "--model", badPOMDP, "--obs", "0", "--horizon", "1"},
			"arbor aci eval: --model " + badPOMDP + ": B: cannot use JSON string as [][][]float64"},
		{[]string{"infer", badModel},
			"arbor infer: " + badModel + ": variables[0].type: unknown field (fields: name, family, shape, observed, size, dim)"},
		{[]string{"aci", "eval", "--model", impossible, "--obs", "1", "--horizon", "1", "--json"},
			"arbor aci eval: --obs 1: probability 0 under D and A"},
		{[]string{"aci", "eval", "--model", impossible, "--obs", "1", "--horizon", "1"},
			"arbor aci eval: --obs 1: probability 0 under D and A (--model " + impossible + ")"},
		{[]string{"si", "plan", "--model", impossible, "--obs", "0", "--depth", "2", "--max-nodes", "1"},
			"arbor si plan: --max-nodes: 1, want >= 3 (the root and one child per action: one level of the search)"},
		{[]string{"btai", "plan", "--model", impossible, "--obs", "0", "--cost", "risk"},
			`arbor btai plan: --cost: unknown cost "risk" (want classic, pcost or feef)`},
	} {
		code, stderr := runArbor(tc.args...)
		if got := strings.TrimSuffix(stderr, "\n"); code != 2 || got != tc.want {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
