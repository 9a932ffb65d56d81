package main

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDotPlot: arbor dot renders with --plot as the run commands do, a PNG
// at --plot-dpi (default 200, where Graphviz's own is 96): a 50-step HMM
// drawn in full is over 1,000 pixels wide at the default, and half as wide
// at 100 dpi; -o keeps writing DOT text; the flags are checked; a figure
// too large to render is refused with its remedy said once.
func TestDotPlot(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("Graphviz dot not installed")
	}
	dir := t.TempDir()
	m := filepath.Join(dir, "hmm.json")
	os.WriteFile(m, []byte(`{"sizes": {"T": 50},
 "variables": [{"name": "s", "family": "categorical", "shape": [2], "size": "T"}, {"name": "o", "family": "categorical", "shape": [2], "size": "T"}],
 "factors": [{"node": "categorical", "out": "s[0]", "p": [0.5, 0.5]},
  {"node": "transition", "for": {"t": "1..T-1"}, "out": "s[t]", "in": ["s[t-1]"], "matrix": [[0.9, 0.1], [0.1, 0.9]]},
  {"node": "transition", "for": {"t": "0..T-1"}, "out": "o[t]", "in": ["s[t]"], "matrix": [[0.8, 0.2], [0.2, 0.8]]}]}`), 0o644)
	width := func(args ...string) int {
		out := filepath.Join(dir, "x.png")
		if code, errs := runArbor(append([]string{"dot", m, "--unroll", "all", "--plot", out}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		c, err := png.DecodeConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		return c.Width
	}
	w200, w100 := width(), width("--plot-dpi", "100")
	if w200 < 1000 || w100 > w200*6/10 || w100 < w200*4/10 {
		t.Errorf("50-step HMM: %d pixels wide at the default dpi, %d at 100; want >= 1000 and half", w200, w100)
	}
	dotOut := filepath.Join(dir, "x.dot")
	if code, errs := runArbor("dot", m, "-o", dotOut); code != 0 {
		t.Fatalf("-o x.dot: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(dotOut); !strings.HasPrefix(string(b), "digraph") {
		t.Errorf("-o x.dot wrote %.40q, want DOT text", b)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--plot", filepath.Join(dir, "y.dot")}, "--plot " + filepath.Join(dir, "y.dot") + ": want one figure file ending in .svg, .pdf or .png"},
		{[]string{"--plot", filepath.Join(dir, "y.png"), "-o", dotOut}, "and no -o"},
		{[]string{"--plot", filepath.Join(dir, "y.svg"), "--plot-dpi", "300"}, "--plot-dpi: applies to a .png figure only"},
		{[]string{"--plot", filepath.Join(dir, "y.png"), "--plot-dpi", "5"}, "--plot-dpi: 5, want 30..1200"},
	} {
		code, errs := runArbor(append([]string{"dot", m}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	big := filepath.Join(dir, "big.json")
	b, _ := os.ReadFile(m)
	os.WriteFile(big, []byte(strings.Replace(string(b), `"T": 50`, `"T": 400`, 1)), 0o644)
	code, errs := runArbor("dot", big, "--unroll", "all", "--plot", filepath.Join(dir, "z.png"))
	if code != 2 || strings.Count(errs, "the figure would") != 1 || !strings.Contains(errs, "draw it folded") {
		t.Errorf("400 steps unrolled: exit %d, stderr %q; want 2, the size said once and the remedy", code, errs)
	}
}
