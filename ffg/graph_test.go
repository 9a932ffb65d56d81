package ffg

import (
	"testing"

	"github.com/arbor-ai/arbor/expfam"
)

// TestReserve: a graph reserved for its size takes the same variables and
// factors as one that is not, and finds them by name.
func TestReserve(t *testing.T) {
	g := New()
	g.Reserve(3, 2)
	g.Reserve(-1, -1)
	for _, name := range []string{"a", "b", "c"} {
		if _, err := g.AddVariable(name, expfam.CategoricalFamily, 2); err != nil {
			t.Fatal(err)
		}
	}
	if v, ok := g.Variable("b"); !ok || v.Name() != "b" || len(g.Variables()) != 3 {
		t.Errorf("after Reserve: %v %v %d variables", v, ok, len(g.Variables()))
	}
}
