package main

import (
	"bytes"
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

// dotOf runs arbor dot on a model file.
func dotOf(t *testing.T, path string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"dot", path}, &out, &errb); code != 0 {
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
