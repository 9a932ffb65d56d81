package model

import (
	"bytes"
	"fmt"
	"testing"
)

// TestLoopsExamplesSameAsWrittenOut: every file of examples/models/loops
// that has a written-out twin in examples/models gives the twin's
// posteriors and F (its variables renamed x0 -> x[0]), to 1e-12: the
// loops only say the same model shorter.
func TestLoopsExamplesSameAsWrittenOut(t *testing.T) {
	for _, tc := range []struct {
		file   string
		arrays []string
		n      int
	}{
		{"hmm.json", []string{"s", "o"}, 8},
		{"local-level.json", []string{"x", "y"}, 20},
	} {
		a, err := Load("../examples/models/loops/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Load("../examples/models/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		ra, rb := result(t, a), result(t, b)
		for _, p := range tc.arrays {
			for i := tc.n - 1; i >= 0; i-- {
				rb = bytes.ReplaceAll(rb, []byte(fmt.Sprintf(`"%s%d"`, p, i)), []byte(fmt.Sprintf(`"%s[%d]"`, p, i)))
			}
		}
		if !sameNumbers(t, ra, rb, 1e-12) {
			t.Errorf("%s: loops %s\nwritten out %s", tc.file, ra, rb)
		}
	}
}
