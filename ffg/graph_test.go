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

// TestAddVariableNames: a name taken is refused and still finds its first
// variable; a variable refused for another fault leaves its name free.
func TestAddVariableNames(t *testing.T) {
	for _, reserve := range []bool{false, true} {
		g := New()
		if reserve {
			g.Reserve(4, 0)
		}
		a, err := g.AddVariable("a", expfam.CategoricalFamily, 2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.AddVariable("a", expfam.CategoricalFamily, 3); err == nil {
			t.Errorf("reserve %v: a second variable named a was added", reserve)
		}
		if v, ok := g.Variable("a"); !ok || v != a {
			t.Errorf("reserve %v: after the refusal a is %v, %v", reserve, v, ok)
		}
		if _, err := g.AddVariable("b", expfam.CategoricalFamily, 0); err == nil {
			t.Errorf("reserve %v: a categorical of 0 outcomes was added", reserve)
		}
		if v, ok := g.Variable("b"); ok {
			t.Errorf("reserve %v: a refused variable is found by name: %v", reserve, v)
		}
		if _, err := g.AddVariable("b", expfam.CategoricalFamily, 2); err != nil {
			t.Errorf("reserve %v: b after its refusal: %v", reserve, err)
		}
		if n := len(g.Variables()); n != 2 {
			t.Errorf("reserve %v: %d variables, want 2", reserve, n)
		}
	}
}
