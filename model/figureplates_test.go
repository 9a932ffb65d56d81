package model

import (
	"bytes"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/ffg"
)

// TestDOTPlatesDeclared: arbor dot draws a file's loops as plates labelled
// with the loops' declared index and range, its elements and factors with
// the loop's index in place of its value; the elements of an array shared
// by every slice keep their numbers; a file without loops keeps the
// wiring's labels.
func TestDOTPlatesDeclared(t *testing.T) {
	draw := func(path string) string {
		m, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := m.Graph.WriteDOTWith(&b, ffg.DOTOptions{Fold: ffg.FoldPlates, Plates: m.DOTPlates()}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, c := range []struct {
		file      string
		want, not []string
	}{
		{"../examples/models/loops/local-level.json",
			[]string{`label="t = 1..T-1"`, `label="x[t]"`, `label="y[t]"`, `label="N(x[t-1], 0.25)"`, `label="N(x[t], r⁻¹)"`},
			[]string{"t = 1 … 19"}},
		{"../examples/models/loops/linear-regression.json",
			[]string{`label="n = 0..N-1"`, `label="y[n]"`, "w[0]", "w[1]"},
			[]string{"w[n]"}},
		{"../examples/models/local-level.json", []string{"t = 1 … 19"}, []string{"..T"}},
	} {
		got := draw(c.file)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: no %s in\n%s", c.file, w, got)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %s in\n%s", c.file, w, got)
			}
		}
	}
}
