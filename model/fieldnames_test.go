package model

import (
	"fmt"
	"strings"
	"testing"
)

// TestFieldNames: the names are fmt's, and stay what they were while many
// more, some longer than what is left of a chunk, are made after them.
func TestFieldNames(t *testing.T) {
	var a fieldNames
	var got, want []string
	for i := range 5000 {
		label := strings.Repeat("é\"x", i%97) // up to 96·4 bytes, quotes escaped
		got = append(got, a.indexed("factors", i), a.named("variables", i, label), a.join(fmt.Sprintf("factors[%d]", i), "normal"))
		want = append(want, fmt.Sprintf("factors[%d]", i), fmt.Sprintf("variables[%d] (%q)", i, label), fmt.Sprintf("factors[%d] (normal)", i))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("name %d: %q, want %q", i, got[i], want[i])
		}
	}
	var none *fieldNames // a nil arena allocates each name
	if g := none.join(none.indexed("factors", 3), "gamma"); g != "factors[3] (gamma)" {
		t.Errorf("nil arena: %q, want %q", g, "factors[3] (gamma)")
	}
}
