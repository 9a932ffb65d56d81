package btai

import "testing"

// TestOptionNames checks String and Parse of every option type, and the
// exact error texts Parse gave before they shared parseEnum (the CLI
// prints them after the flag name).
func TestOptionNames(t *testing.T) {
	for _, tc := range []struct {
		parse  func(string) (string, error)
		names  []string
		bad    string
		errMsg string
	}{
		{func(s string) (string, error) { v, err := ParseCost(s); return v.String(), err },
			costNames, "x", `unknown cost "x" (want classic, pcost or feef)`},
		{func(s string) (string, error) { v, err := ParseInference(s); return v.String(), err },
			inferenceNames, "x", `unknown inference "x" (want vmp or predictive)`},
		{func(s string) (string, error) { v, err := ParsePropagation(s); return v.String(), err },
			propagationNames, "x", `unknown propagation "x" (want min-backward, backward or forward)`},
		{func(s string) (string, error) { v, err := ParseSelection(s); return v.String(), err },
			selectionNames, "", `unknown selection "" (want normalized-uct, unexplored-first, uct or uct-3mf)`},
		{func(s string) (string, error) { v, err := ParseActionSelection(s); return v.String(), err },
			actionSelectionNames, "greedy", `unknown action selection "greedy" (want most-visited, softmax, min-cost, visits or most-visited-first)`},
	} {
		for _, n := range tc.names {
			if got, err := tc.parse(n); err != nil || got != n {
				t.Errorf("parse %q: %q, %v", n, got, err)
			}
		}
		if _, err := tc.parse(tc.bad); err == nil || err.Error() != "btai: "+tc.errMsg {
			t.Errorf("parse %q: error %v, want %s", tc.bad, err, tc.errMsg)
		}
	}
	if got := Cost(7).String(); got != "Cost(7)" {
		t.Errorf("Cost(7).String() = %q", got)
	}
	if got := Selection(-1).String(); got != "Selection(-1)" {
		t.Errorf("Selection(-1).String() = %q", got)
	}
	if got := enumName([]string{"only"}, "T", 0); got != "only" {
		t.Errorf("enumName: %q", got)
	}
	if _, err := parseEnum[int]([]string{"only"}, "thing", "y"); err == nil || err.Error() != `unknown thing "y" (want only)` {
		t.Errorf("parseEnum one name: %v", err)
	}
}
