package main

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// plainLayout runs Graphviz dot -Tplain on DOT text and returns the graph's
// width and height (inches) and each node's centre by label.
func plainLayout(t *testing.T, dotText string) (w, h float64, pos map[string][2]float64) {
	t.Helper()
	return runPlain(t, dotText, false)
}

// runPlain is plainLayout, keyed by node name when byID is set.
func runPlain(t *testing.T, dotText string, byID bool) (w, h float64, pos map[string][2]float64) {
	t.Helper()
	bin, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz dot not installed")
	}
	cmd := exec.Command(bin, "-Tplain")
	cmd.Stdin = strings.NewReader(dotText)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dot -Tplain: %v", err)
	}
	pos = map[string][2]float64{}
	for _, line := range strings.Split(string(out), "\n") {
		f := fieldsQuoted(line)
		switch {
		case len(f) >= 4 && f[0] == "graph":
			w, _ = strconv.ParseFloat(f[2], 64)
			h, _ = strconv.ParseFloat(f[3], 64)
		case len(f) >= 4 && f[0] == "node" && byID:
			x, _ := strconv.ParseFloat(f[2], 64)
			y, _ := strconv.ParseFloat(f[3], 64)
			pos[f[1]] = [2]float64{x, y}
		case len(f) >= 7 && f[0] == "node":
			x, _ := strconv.ParseFloat(f[2], 64)
			y, _ := strconv.ParseFloat(f[3], 64)
			pos[strings.Trim(f[6], `"`)] = [2]float64{x, y}
		}
	}
	return w, h, pos
}

// fieldsQuoted splits a -Tplain line on spaces, keeping quoted labels
// whole.
func fieldsQuoted(line string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range line {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ' ' && !quoted:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func sub(n int) string {
	var b strings.Builder
	for _, r := range strconv.Itoa(n) {
		b.WriteRune([]rune("₀₁₂₃₄₅₆₇₈₉")[r-'0'])
	}
	return b.String()
}

// dotOf runs arbor dot --unroll all on a model file (every node drawn).
func dotOf(t *testing.T, path string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"dot", "--unroll", "all", path}, &out, &errb); code != 0 {
		t.Fatalf("arbor dot %s: exit %d: %s", path, code, errb.String())
	}
	return out.String()
}

// TestHMMFigureLayout measures the layout Graphviz computes for HMM model
// files (dot -Tplain): time runs left to right (s_t strictly advances with
// t), every observation lies on the same side of its state (below), the
// height does not grow with the length (an 8-step and a 12-step chain
// differ in height by at most 25%), examples/models/hmm.json has an aspect
// ratio in [0.1, 12], and factor labels are names, never a kind word nor a
// variable's label.
func TestHMMFigureLayout(t *testing.T) {
	dir := t.TempDir()
	heights := map[int]float64{}
	files := map[string]int{"../../examples/models/hmm.json": 8}
	for _, steps := range []int{8, 12} {
		files[hmmFile(t, dir, steps, 10)] = steps
	}
	for path, steps := range files {
		text := dotOf(t, path)
		if again := dotOf(t, path); again != text {
			t.Errorf("%s: DOT differs between runs", path)
		}
		w, h, pos := plainLayout(t, text)
		for i := 0; i < steps; i++ {
			s, o := pos["s"+sub(i)], pos["o"+sub(i)]
			if i > 0 && !(s[0] > pos["s"+sub(i-1)][0]) {
				t.Errorf("%s: s%d at x %v, not right of s%d at %v", path, i, s[0], i-1, pos["s"+sub(i-1)][0])
			}
			if !(o[1] < s[1]) {
				t.Errorf("%s: o%d at y %v, not below s%d at %v", path, i, o[1], i, s[1])
			}
		}
		if strings.Contains(path, "examples") {
			if r := w / h; r < 0.1 || r > 12 {
				t.Errorf("hmm.json: %.1f × %.1f inches, aspect ratio %.2f, want [0.1, 12]", w, h, r)
			}
		} else {
			heights[steps] = h
		}
		vars := map[string]bool{}
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, `shape="circle"`) {
				vars[labelOf(line)] = true
			}
		}
		for _, line := range strings.Split(text, "\n") {
			if !strings.Contains(line, `shape="box"`) {
				continue
			}
			l := labelOf(line)
			if l == "transition" || l == "categorical" || l == "dirichlet" || vars[l] {
				t.Errorf("%s: factor label %q", path, l)
			}
		}
	}
	if r := heights[12] / heights[8]; r > 1.25 || r < 0.8 {
		t.Errorf("heights %.2f (8 steps) and %.2f (12 steps): ratio %.2f", heights[8], heights[12], r)
	}
	t.Logf("heights: 8 steps %.2f, 12 steps %.2f inches", heights[8], heights[12])
}

func labelOf(line string) string {
	i := strings.Index(line, `label="`)
	if i < 0 {
		return ""
	}
	rest := line[i+7:]
	return rest[:strings.Index(rest, `"`)]
}

// TestDotOutputFile: arbor dot -o writes SVG, PNG or DOT by the file's
// ending; an unwritable path exits 2 naming it.
func TestDotOutputFile(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("Graphviz dot not installed")
	}
	dir := t.TempDir()
	for _, c := range []struct{ name, prefix string }{{"g.svg", "<?xml"}, {"g.png", "\x89PNG"}, {"g.dot", "digraph"}} {
		path := dir + "/" + c.name
		var out, errb bytes.Buffer
		if code := run([]string{"dot", "../../examples/models/hmm.json", "-o", path}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errb.String())
		}
		data, err := os.ReadFile(path)
		if err != nil || !strings.HasPrefix(string(data), c.prefix) {
			t.Errorf("%s: %v, starts %q", c.name, err, string(data[:min(len(data), 8)]))
		}
	}
	var out, errb bytes.Buffer
	code := run([]string{"dot", "../../examples/models/hmm.json", "-o", dir + "/no/such/dir/g.svg"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "no/such/dir/g.svg") || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q: want 2 and one line naming the file", code, errb.String())
	}
}

// TestPlanTreeFigure measures the tree view of btai plan --dot (preset
// paper, so that a change of defaults does not move it) with dot -Tplain:
// every node lies below its parent; the 6-iteration tree's aspect ratio is
// within [0.2, 5]; at 100 iterations with --dot-depth 3 the figure fits
// 16 × 10 inches unscaled and says what it left out; the output is the
// same from run to run; bad --dot-* values exit 2 naming the flag.
func TestPlanTreeFigure(t *testing.T) {
	dir := t.TempDir()
	plan := func(iters string, extra ...string) string {
		path := dir + "/tree" + iters + ".dot"
		args := append([]string{"plan", "--model", btaiData("tiny-pomdp.json"), "--obs", "0", "--preset", "paper", "--iterations", iters, "--dot", path}, extra...)
		btaiMustRun(t, args...)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	for _, c := range []struct {
		iters string
		extra []string
	}{{"6", nil}, {"30", nil}, {"100", []string{"--dot-depth", "3"}}} {
		text := plan(c.iters, c.extra...)
		if again := plan(c.iters, c.extra...); again != text {
			t.Errorf("%s iterations: DOT differs between runs", c.iters)
		}
		w, h, pos := plainLayoutByID(t, text)
		// Every edge: the head (child) below the tail (parent).
		for _, line := range strings.Split(text, "\n") {
			from, to, ok := edgeIDs(line)
			if !ok {
				continue
			}
			if !(pos[to][1] < pos[from][1]) {
				t.Errorf("%s iterations: child %s at y %v not below parent %s at %v", c.iters, to, pos[to][1], from, pos[from][1])
			}
		}
		t.Logf("%s iterations: %.1f × %.1f inches", c.iters, w, h)
		switch c.iters {
		case "6":
			if r := w / h; r < 0.2 || r > 5 {
				t.Errorf("6 iterations: aspect ratio %.2f, want [0.2, 5]", r)
			}
		case "100":
			if w > 16 || h > 10 {
				t.Errorf("100 iterations, depth 3: %.1f × %.1f inches, want within 16 × 10", w, h)
			}
			if !strings.Contains(text, "more nodes not drawn") {
				t.Error("100 iterations, depth 3: no note of what was left out")
			}
		}
	}
	// The factor view of the same plans: along the time axis (left to
	// right), every child S_I lies beyond its parent, through its B̄[u].
	for _, iters := range []string{"6", "30"} {
		text := plan(iters, "--dot-factors")
		_, _, pos := plainLayoutByID(t, text)
		isB := map[string]bool{}
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, `label="B̄[`) {
				isB[strings.TrimSpace(line[:strings.Index(line, "[")])] = true
			}
		}
		parent, child := map[string]string{}, map[string]string{}
		for _, line := range strings.Split(text, "\n") {
			from, to, ok := edgeIDs(line)
			switch {
			case !ok:
			case isB[to]:
				parent[to] = from
			case isB[from]:
				child[from] = to
			}
		}
		if len(isB) == 0 {
			t.Fatalf("%s iterations: no B̄ factor in the factor view", iters)
		}
		for f := range isB {
			if !(pos[child[f]][0] > pos[parent[f]][0]) {
				t.Errorf("%s iterations, factor view: child %s at x %v not beyond parent %s at %v", iters, child[f], pos[child[f]][0], parent[f], pos[parent[f]][0])
			}
		}
	}
	for _, bad := range [][]string{{"--dot-depth", "0"}, {"--dot-top", "-2"}, {"--dot-depth", "x"}} {
		code, out, errs := btaiRun(t, append([]string{"plan", "--model", btaiData("tiny-pomdp.json"), "--obs", "0", "--dot", dir + "/b.dot"}, bad...)...)
		if code != 2 || out != "" || !strings.Contains(errs, strings.TrimLeft(bad[0], "-")) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q: want 2 and one line naming %s", bad, code, errs, bad[0])
		}
	}
}

// plainLayoutByID is plainLayout keyed by DOT node name (n1, n2, ...).
func plainLayoutByID(t *testing.T, dotText string) (w, h float64, pos map[string][2]float64) {
	t.Helper()
	return runPlain(t, dotText, true)
}

// edgeIDs parses "n1->n2[...];".
func edgeIDs(line string) (from, to string, ok bool) {
	t := strings.TrimSpace(line)
	i := strings.Index(t, "->")
	if i < 0 {
		return "", "", false
	}
	j := strings.IndexAny(t[i+2:], "[;")
	if j < 0 {
		return "", "", false
	}
	return t[:i], t[i+2 : i+2+j], true
}

// TestACIRunDot: aci run --dot writes the agent's graph after the first
// step, with the policy and the paper's letters on the literal factors.
func TestACIRunDot(t *testing.T) {
	path := t.TempDir() + "/aci.dot"
	var out, errb bytes.Buffer
	if code := run([]string{"aci", "run", "--model", "../../examples/pomdp/tmaze.json", "--horizon", "2", "--steps", "2", "--dot", path}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`label="π"`, `label="σ(-16 G)"`, `label="A[cue]"`, `label="D[location]"`, `label="S₀[location]"`, `label="Cat(D[context])"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the graph lacks %s", want)
		}
	}
	if _, _, pos := plainLayout(t, string(data)); len(pos) == 0 {
		t.Error("Graphviz laid out nothing")
	}
}

// inkShare returns the share of pixels in r that are not white.
func inkShare(img image.Image, r image.Rectangle) float64 {
	ink := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if cr, cg, cb, _ := img.At(x, y).RGBA(); cr < 0xf000 || cg < 0xf000 || cb < 0xf000 {
				ink++
			}
		}
	}
	return float64(ink) / float64(r.Dx()*r.Dy())
}

// decodePNG reads a PNG file written by --plot.
func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// TestPlanPlot checks btai plan --plot: a PNG of the tree of states, wider
// than tall at depth 2 (three actions, nine grandchildren side by side),
// with ink.
func TestPlanPlot(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("Graphviz dot not installed")
	}
	path := t.TempDir() + "/plan.png"
	var out, errb bytes.Buffer
	if code := run([]string{"btai", "plan", "--model", "../../examples/pomdp/tiger.json", "--obs", "0", "--dot-depth", "2", "--plot", path}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	img := decodePNG(t, path)
	if b := img.Bounds(); b.Dx() <= b.Dy() || b.Dx() < 400 {
		t.Errorf("size %v, want a wide tree", b.Size())
	}
	if s := inkShare(img, img.Bounds()); s < 0.02 {
		t.Errorf("%.3f inked, want >= 0.02", s)
	}
}
