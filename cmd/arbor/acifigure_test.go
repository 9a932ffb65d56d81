package main

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestACIRunDotFuture: aci run --dot on the T-maze at horizon 2 draws the
// future the policy selects: one step in the plate "τ = 1 … 2" with a line
// from π to the future B[location] (the factor with controls) and none to
// B[context] (one control: its transition does not depend on the policy),
// the future states and observations hidden (not filled); the figure fits
// 10 × 8 inches unscaled (dot -Tplain); and the agent's decisions and
// beliefs (the --json lines without timings) are the same with --dot as
// without.
func TestACIRunDotFuture(t *testing.T) {
	path := t.TempDir() + "/aci.dot"
	args := []string{"aci", "run", "--model", "../../examples/pomdp/tmaze.json", "--horizon", "2", "--episodes", "2", "--steps", "2", "--json"}
	with := runLines(t, append(args, "--dot", path)...)
	without := runLines(t, args...)
	dropSeconds(with)
	dropSeconds(without)
	if len(with) == 0 || !reflect.DeepEqual(with, without) {
		t.Errorf("--json with --dot differs from without:\n%v\n%v", with, without)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	// Node ids by label, and the attributes of each node.
	nodeRE := regexp.MustCompile(`(?m)^\s*(n\d+)\[(.*)\];$`)
	labelRE := regexp.MustCompile(`label="([^"]*)"`)
	ids := map[string][]string{}
	attrs := map[string]string{}
	for _, mt := range nodeRE.FindAllStringSubmatch(text, -1) {
		if l := labelRE.FindStringSubmatch(mt[2]); l != nil {
			ids[l[1]] = append(ids[l[1]], mt[1])
			attrs[mt[1]] = mt[2]
		}
	}
	edges := map[[2]string]bool{}
	for _, mt := range regexp.MustCompile(`(?m)^\s*(n\d+)->(n\d+)`).FindAllStringSubmatch(text, -1) {
		edges[[2]string{mt[1], mt[2]}] = true
	}
	if !strings.Contains(text, `label="τ = 1 … 2"`) {
		t.Error("no plate τ = 1 … 2")
	}
	pi := ids["π"]
	if len(pi) != 1 {
		t.Fatalf("π drawn %d times, want once", len(pi))
	}
	joined := func(label string) int {
		n := 0
		for _, id := range ids[label] {
			if edges[[2]string{pi[0], id}] {
				if !strings.Contains(attrs[id], `shape="box"`) {
					t.Errorf("%s is not a factor", label)
				}
				n++
			}
		}
		return n
	}
	if n := joined("B[location]"); n != 1 {
		t.Errorf("π is joined to %d B[location], want 1", n)
	}
	if n := joined("B[context]"); n != 0 {
		t.Errorf("π is joined to %d B[context], want 0", n)
	}
	for _, l := range []string{"Sτ[location]", "Sτ[context]", "Oτ[where]", "Oτ[cue]", "Oτ[reward]"} {
		if len(ids[l]) != 1 {
			t.Errorf("%s drawn %d times, want once", l, len(ids[l]))
			continue
		}
		if a := attrs[ids[l][0]]; strings.Contains(a, "filled") {
			t.Errorf("%s is filled (%s), want a hidden variable", l, a)
		}
	}
	if a := attrs[ids["O₀[cue]"][0]]; !strings.Contains(a, "filled") {
		t.Errorf("O₀[cue] is not filled (%s)", a)
	}
	w, h, _ := plainLayout(t, text)
	// The page every default figure fits (docs/figures.md).
	if w > 10 || h > 8 {
		t.Errorf("figure %.1f × %.1f in, want within 10 × 8", w, h)
	}
}
