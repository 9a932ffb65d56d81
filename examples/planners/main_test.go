package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocShowsOutput: docs/planners.md shows what this program prints
// (its ```console block after "$ go run ./examples/planners"), but for the
// times, which differ from run to run.
func TestDocShowsOutput(t *testing.T) {
	if raceEnabled {
		t.Skip("BTAI's 1,000 iterations on the maze, 10 times, take minutes under the race detector")
	}
	doc, err := os.ReadFile("../../docs/planners.md")
	if err != nil {
		t.Fatal(err)
	}
	const start = "```console\n$ go run ./examples/planners\n"
	i := strings.Index(string(doc), start)
	if i < 0 {
		t.Fatalf("docs/planners.md has no block %q", start)
	}
	want, _, _ := strings.Cut(string(doc)[i+len(start):], "```")
	var b strings.Builder
	if err := run(&b, "../../", 1); err != nil {
		t.Fatal(err)
	}
	// A time and the spaces that pad its column.
	times := regexp.MustCompile(`[0-9.]+ ms *`)
	mask := func(s string) string { return times.ReplaceAllString(s, "T ms ") }
	if d := cmp.Diff(mask(want), mask(trimLines(b.String()))); d != "" {
		t.Errorf("docs/planners.md and the program differ (-doc +program):\n%s", d)
	}
}

// TestChoices pins what the comparison shows, from the numbers rather
// than the text: on the T-maze with the context unknown, aci (horizon 2)
// and SI (depth 2) both go to the cue; SI's G of the cue is below its
// Q(u)-weighted recursion on the tree without outcomes by the value of
// what the cue tells (the weighting by Q(o | u) and the updated beliefs);
// on the maze, whose position is observed, the two are equal.
func TestChoices(t *testing.T) {
	if raceEnabled {
		t.Skip("see TestDocShowsOutput")
	}
	var b strings.Builder
	if err := run(&b, "../../", 1); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"  choice     go-cue             go-cue",                                    // aci, then btai forward
		"  Q(u)-weighted against si (unpruned): largest |difference| below 1e-12\n", // the maze
		"against BTAI's backward propagation: largest relative difference below 1e-12",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "below 1e-12"); n != 3+3+1 {
		t.Errorf("%d checks below 1e-12, want 7 (Theorem 1 on three tasks, the backward recursion on three, SI on the maze)", n)
	}
}
