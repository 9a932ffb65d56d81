package ffg_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

// placedChain builds s0 ~ P(s0), o0 | s0 observed with a second factor
// on o0 (a preference), s1 | s0; with place, its nodes placed in columns
// 0..5 (prior, s0, the two factors on o0, o0, the transition, s1), the
// preference below o0's factor.
func placedChain(t *testing.T, place bool) (*ffg.Graph, map[string]int) {
	t.Helper()
	g := ffg.New()
	s0, _ := g.AddVariable("s0", expfam.CategoricalFamily, 2)
	o0, _ := g.AddVariable("o0", expfam.CategoricalFamily, 2)
	s1, _ := g.AddVariable("s1", expfam.CategoricalFamily, 2)
	_ = o0.Observe(0)
	d, _ := nodes.NewCategorical([]float64{0.5, 0.5})
	c, _ := nodes.NewCategorical([]float64{0.5, 0.5})
	a, _ := nodes.NewTransition([]float64{0.9, 0.1, 0.1, 0.9}, []int{2, 2})
	b, _ := nodes.NewTransition([]float64{0.9, 0.1, 0.1, 0.9}, []int{2, 2})
	fd, err := g.AddFactor("D", d, s0)
	if err != nil {
		t.Fatal(err)
	}
	fa, _ := g.AddFactor("A", a, o0, s0)
	fc, _ := g.AddFactor("C", c, o0)
	fb, _ := g.AddFactor("B", b, s1, s0)
	cols := map[string]int{"D": 0, "s₀": 1, "A": 2, "C": 2, "o₀": 3, "B": 4, "s₁": 5}
	if place {
		g.PlaceFactor(fd, ffg.DOTPlace{Column: 0, Row: 0, Level: true})
		g.PlaceVariable(s0, ffg.DOTPlace{Column: 1, Row: 0, Level: true})
		g.PlaceFactor(fc, ffg.DOTPlace{Column: 2, Row: 1}) // added after A, drawn below it
		g.PlaceFactor(fa, ffg.DOTPlace{Column: 2, Row: 0})
		g.PlaceVariable(o0, ffg.DOTPlace{Column: 3, Row: 0})
		g.PlaceFactor(fb, ffg.DOTPlace{Column: 4, Row: 0, Level: true})
		g.PlaceVariable(s1, ffg.DOTPlace{Column: 5, Row: 0, Level: true})
		// A node of another graph is ignored.
		other := ffg.New()
		v, _ := other.AddVariable("x", expfam.CategoricalFamily, 2)
		g.PlaceVariable(v, ffg.DOTPlace{Column: 9})
	}
	return g, cols
}

// TestDOTPlaced: placed nodes are drawn one column a rank, in the order of
// their columns left to right (dot -Tplain) and of their rows within a
// column; Level nodes share a Graphviz group by row; the observed output
// of a placed factor is not drawn in its state's column; and a graph
// without places is drawn without ranks of columns or groups.
func TestDOTPlaced(t *testing.T) {
	var plain, placed bytes.Buffer
	g, cols := placedChain(t, false)
	if err := g.WriteDOT(&plain); err != nil {
		t.Fatal(err)
	}
	g, _ = placedChain(t, true)
	if err := g.WriteDOT(&placed); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "group=") || strings.Contains(plain.String(), "invis") {
		t.Errorf("a graph without places drawn with groups or invisible edges:\n%s", plain.String())
	}
	// The unplaced graph draws o₀ in s₀'s column; the placed one does not.
	sameRank := regexp.MustCompile(`\{rank=same;([^}]*)\}`)
	label := map[string]string{}
	for _, m := range regexp.MustCompile(`(n\d+)\[[^\n]*label="([^"]*)"`).FindAllStringSubmatch(placed.String(), -1) {
		label[m[1]] = m[2]
	}
	var ranks [][]string
	for _, m := range sameRank.FindAllStringSubmatch(placed.String(), -1) {
		var r []string
		for _, n := range strings.Fields(strings.ReplaceAll(m[1], ";", " ")) {
			r = append(r, label[n])
		}
		ranks = append(ranks, r)
	}
	want := [][]string{{"D"}, {"s₀"}, {"A", "C"}, {"o₀"}, {"B"}, {"s₁"}}
	if fmt.Sprint(ranks) != fmt.Sprint(want) {
		t.Errorf("ranks %v, want %v:\n%s", ranks, want, placed.String())
	}
	if !strings.Contains(plain.String(), "rank=same") {
		t.Error("the unplaced graph does not draw o₀ in its state's column")
	}
	for n, l := range label {
		line := regexp.MustCompile(`\b` + n + `\[[^\n]*`).FindString(placed.String())
		level := l == "D" || l == "s₀" || l == "B" || l == "s₁"
		if strings.Contains(line, `group="r0"`) != level {
			t.Errorf("%s: %s; want group r0 only on Level nodes", l, line)
		}
	}
	bin, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz dot not installed")
	}
	cmd := exec.Command(bin, "-Tplain")
	cmd.Stdin = &placed
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	x := map[string]float64{}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) > 6 && f[0] == "node" {
			var v float64
			fmt.Sscan(f[2], &v)
			x[strings.Trim(f[6], `"`)] = v
		}
	}
	for a, ca := range cols {
		for b, cb := range cols {
			if ca < cb && x[a] >= x[b] {
				t.Errorf("%s (column %d) at x = %.2f, %s (column %d) at x = %.2f: want columns left to right", a, ca, x[a], b, cb, x[b])
			}
		}
	}
}
