package model

import (
	"strings"
	"testing"
)

// TestDirectedCycleRefused: a model whose factors make a variable its own
// ancestor has no joint density (a ~ N(b, 1) with b ~ N(a, 1): the product
// of the two factors is constant along a = b and does not integrate), and
// is refused with the cycle named, whether written in a file, written with
// loops or built in Go; models whose arrows form no cycle (a chain, a
// variable with two factors as their output, the examples) load.
func TestDirectedCycleRefused(t *testing.T) {
	bad := []struct {
		name, file string
		want       []string
	}{
		{"two variables", `{"variables":[{"name":"a","family":"normal"},{"name":"b","family":"normal"}],
			"factors":[{"node":"normal","out":"a","mean":"b","precision":1},{"node":"normal","out":"b","mean":"a","precision":1}]}`,
			[]string{"c.json: factors: a directed cycle a → b → a", "factors[1] (normal) makes b from a", "factors[0] (normal) makes a from b"}},
		{"three variables through a precision", `{"variables":[{"name":"a","family":"normal"},{"name":"b","family":"normal"},{"name":"g","family":"gamma"}],
			"factors":[{"node":"gamma","out":"g","shape":1,"rate":1},{"node":"normal","out":"a","mean":0,"precision":"g"},
			{"node":"normal","out":"b","mean":"a","precision":1},{"node":"normal","out":"a","mean":"b","precision":1}]}`,
			[]string{"a directed cycle a → b → a"}},
		{"a loop that reads ahead", `{"sizes":{"T":4},"variables":[{"name":"x","family":"normal","size":"T"}],
			"factors":[{"node":"normal","for":{"t":"0..T-2"},"out":"x[t]","mean":"x[t+1]","precision":1},
			{"node":"normal","for":{"t":"1..T-1"},"out":"x[t]","mean":"x[t-1]","precision":1}]}`,
			[]string{"a directed cycle x[0] → x[1] → x[0]", "factors[1] (normal) makes x[1] from x[0]"}},
	}
	for _, c := range bad {
		_, err := Parse("c.json", []byte(c.file))
		if err == nil {
			t.Errorf("%s: loaded", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
	}
	b := New()
	x, y := b.Normal("x"), b.Normal("y")
	x.NormalFrom(Of(y), Num(1))
	y.NormalFrom(Affine(x, 2, 1), Num(1))
	if _, err := b.Build("built"); err == nil || !strings.Contains(err.Error(), "a directed cycle x → y → x") {
		t.Errorf("builder: %v, want the cycle x → y → x", err)
	}
	good := `{"variables":[{"name":"a","family":"normal"},{"name":"b","family":"normal","observed":1}],
		"factors":[{"node":"normal","out":"a","mean":0,"precision":1},{"node":"normal","out":"a","mean":2,"precision":1},
		{"node":"normal","out":"b","mean":"a","precision":1}]}`
	if _, err := Parse("g.json", []byte(good)); err != nil {
		t.Errorf("two factors into a, one out of it: %v", err)
	}
}
