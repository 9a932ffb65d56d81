package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// mixtureFile writes a Gaussian mixture of n observations y_i with
// switches z_i ~ Cat(θ) and 3 components (means m_k, precisions t_k), as
// examples/models/gaussian-mixture.json but of any length.
func mixtureFile(t *testing.T, dir string, n int) string {
	t.Helper()
	vars := []string{`{"name":"theta","family":"dirichlet","shape":[3]}`}
	facs := []string{`{"node":"dirichlet","out":"theta","alpha":[1,1,1]}`}
	for k := range 3 {
		vars = append(vars, fmt.Sprintf(`{"name":"m%d","family":"normal"}`, k), fmt.Sprintf(`{"name":"t%d","family":"gamma"}`, k))
		facs = append(facs, fmt.Sprintf(`{"node":"normal","out":"m%d","mean":%d,"precision":0.25}`, k, 2*k-2),
			fmt.Sprintf(`{"node":"gamma","out":"t%d","shape":2,"rate":1}`, k))
	}
	for i := range n {
		vars = append(vars, fmt.Sprintf(`{"name":"z%d","family":"categorical","shape":[3]}`, i),
			fmt.Sprintf(`{"name":"y%d","family":"normal","observed":%g}`, i, float64(i%7)-3.5))
		facs = append(facs, fmt.Sprintf(`{"node":"categorical","out":"z%d","p":"theta"}`, i),
			fmt.Sprintf(`{"node":"normal-mixture","out":"y%d","switch":"z%d","means":["m0","m1","m2"],"precisions":["t0","t1","t2"]}`, i, i))
	}
	text := `{"variables":[` + strings.Join(vars, ",") + `],"factors":[` + strings.Join(facs, ",") + `],"settings":{"iterations":2}}`
	path := filepath.Join(dir, fmt.Sprintf("mixture%d.json", n))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// threeFactorPOMDP is a factorised POMDP of 3 factors (two controlled) and
// 3 modalities, one of them with preferences.
const threeFactorPOMDP = `{
  "factors": [
    {"name": "location", "states": ["a", "b"], "controls": ["stay", "move"],
     "D": [1, 0], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]]},
    {"name": "context", "states": ["x", "y"], "D": [0.5, 0.5], "B": [[[1, 0], [0, 1]]]},
    {"name": "arm", "states": ["l", "r", "c"], "controls": ["l", "r", "c"],
     "D": [0, 0, 1],
     "B": [[[1, 1, 1], [0, 0, 0], [0, 0, 0]], [[0, 0, 0], [1, 1, 1], [0, 0, 0]], [[0, 0, 0], [0, 0, 0], [1, 1, 1]]]}
  ],
  "modalities": [
    {"name": "where", "depends_on": ["location"], "A": [[1, 0], [0, 1]]},
    {"name": "hint", "depends_on": ["location", "context"],
     "A": [[[0.5, 0.5], [1, 0]], [[0.5, 0.5], [0, 1]]]},
    {"name": "reward", "depends_on": ["arm", "context"],
     "A": [[[1, 0], [0, 1], [0.5, 0.5]], [[0, 1], [1, 0], [0.5, 0.5]]], "log_C": [2, -2]}
  ]
}`

// layoutOf runs dot -Tplain on DOT text and returns the graph's width and
// height in inches and Graphviz's warnings (its standard error).
func layoutOf(t *testing.T, text string) (w, h float64, warnings string) {
	t.Helper()
	bin, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz dot not installed")
	}
	cmd := exec.Command(bin, "-Tplain")
	cmd.Stdin = strings.NewReader(text)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dot -Tplain: %v: %s", err, stderr.String())
	}
	var scale float64
	if _, err := fmt.Sscanf(string(out), "graph %g %g %g", &scale, &w, &h); err != nil {
		t.Fatalf("dot -Tplain: first line %q: %v", strings.SplitN(string(out), "\n", 2)[0], err)
	}
	return w, h, stderr.String()
}

func arborDot(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"dot"}, args...), &out, &errb); code != 0 {
		t.Fatalf("arbor dot %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// TestDotDefaultsFitPage: with the defaults, a 50-step HMM, a
// 200-observation mixture and a 3-factor POMDP file lay out within 10 × 8
// inches unscaled (dot -Tplain), without a Graphviz warning, with the
// repeated slice drawn once inside a plate labelled with its range; with
// --unroll 2, two slices, an ellipsis and the last.
func TestDotDefaultsFitPage(t *testing.T) {
	dir := t.TempDir()
	pomdpFile := filepath.Join(dir, "three.json")
	if err := os.WriteFile(pomdpFile, []byte(threeFactorPOMDP), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, plate string
		once              []string // labels drawn once, inside the plate
	}{
		// s0 has a prior: the plate holds s1..s49.
		{"hmm50", hmmChain(t, dir, 50), "t = 1 … 49", []string{`"sₜ"`, `"oₜ"`}},
		{"mixture200", mixtureFile(t, dir, 200), "n = 1 … 200", []string{`"zₙ"`, `"yₙ"`}},
		{"pomdp3", pomdpFile, "t = 1 … T", []string{`"locationₜ"`, `"armₜ"`, `"rewardₜ"`}},
	} {
		text := arborDot(t, c.path)
		if n := strings.Count(text, `label="`+c.plate+`"`); n != 1 {
			t.Errorf("%s: %d plates labelled %q, want 1", c.name, n, c.plate)
		}
		for _, l := range c.once {
			if n := strings.Count(text, "label="+l); n != 1 {
				t.Errorf("%s: %d nodes labelled %s, want 1", c.name, n, l)
			}
		}
		w, h, warn := layoutOf(t, text)
		if w > 10 || h > 8 {
			t.Errorf("%s: %.2f × %.2f in, want within 10 × 8", c.name, w, h)
		}
		if warn != "" {
			t.Errorf("%s: Graphviz warned: %s", c.name, warn)
		}
		t.Logf("%s: %.2f × %.2f in", c.name, w, h)
	}
	// Every POMDP example fits too.
	files, _ := filepath.Glob("../../examples/pomdp/*.json")
	if len(files) == 0 {
		t.Fatal("no POMDP examples")
	}
	for _, f := range files {
		w, h, warn := layoutOf(t, arborDot(t, f))
		if w > 10 || h > 8 || warn != "" {
			t.Errorf("%s: %.2f × %.2f in, warnings %q; want within 10 × 8 and none", f, w, h, warn)
		}
	}
	// --unroll 2 on the HMM: s₁, s₂, an ellipsis, s₄₉.
	text := arborDot(t, "--unroll", "2", hmmChain(t, dir, 50))
	for _, want := range []string{`label="s₁"`, `label="s₂"`, `label="⋯"`, `label="s₄₉"`} {
		if strings.Count(text, want) != 1 {
			t.Errorf("--unroll 2: %s drawn %d times, want once", want, strings.Count(text, want))
		}
	}
	if strings.Contains(text, `label="s₃"`) || strings.Contains(text, `label="s₄₈"`) || strings.Contains(text, "cluster") {
		t.Error("--unroll 2: a slice beyond the second or before the last drawn, or a plate")
	}
	// The mixture's --unroll 3: z₀..z₂, an ellipsis, z₁₉₉.
	text = arborDot(t, "--unroll", "3", mixtureFile(t, dir, 200))
	for _, want := range []string{`label="z₀"`, `label="z₂"`, `label="⋯"`, `label="z₁₉₉"`} {
		if strings.Count(text, want) != 1 {
			t.Errorf("mixture --unroll 3: %s drawn %d times, want once", want, strings.Count(text, want))
		}
	}
}

// TestDotData: a model file without observed values, drawn with --data
// FILE --line N, is the same DOT text (so the same layout) as the file
// with line N's values written in as observed. Bad --data/--line exit 2
// naming the flag.
func TestDotData(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../examples/models/hmm.json")
	if err != nil {
		t.Fatal(err)
	}
	// hmm.json observes o0..o7 as 0 0 1 1 1 2 2 0; a structure-only copy
	// observes nothing, and line 2 of the data file gives those values.
	bare := string(src)
	vals := []int{0, 0, 1, 1, 1, 2, 2, 0}
	var obs []string
	for i, v := range vals {
		old := fmt.Sprintf(`{"name": "o%d", "family": "categorical", "shape": [3], "observed": %d}`, i, v)
		if !strings.Contains(bare, old) {
			t.Fatalf("hmm.json has no %s", old)
		}
		bare = strings.Replace(bare, old, fmt.Sprintf(`{"name": "o%d", "family": "categorical", "shape": [3]}`, i), 1)
		obs = append(obs, fmt.Sprintf(`"o%d": %d`, i, v))
	}
	bareFile := filepath.Join(dir, "bare.json")
	dataFile := filepath.Join(dir, "data.jsonl")
	os.WriteFile(bareFile, []byte(bare), 0o644)
	os.WriteFile(dataFile, []byte("{\"o0\": 2}\n\n{"+strings.Join(obs, ", ")+"}\n"), 0o644)
	for _, unroll := range []string{"all", "plates", "2"} {
		want := arborDot(t, "--unroll", unroll, "../../examples/models/hmm.json")
		got := arborDot(t, "--unroll", unroll, bareFile, "--data", dataFile, "--line", "2")
		if got != want {
			t.Errorf("--unroll %s: --data --line 2 differs from the file with the values observed:\n%s\nwant\n%s", unroll, got, want)
		}
		if unroll == "all" {
			if nodata := arborDot(t, "--unroll", unroll, bareFile); nodata == want {
				t.Error("the structure-only file is drawn as the observed one")
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{bareFile, "--line", "2"}, "--line 2: applies with --data"},
		{[]string{bareFile, "--data", dataFile, "--line", "3"}, "--line 3: --data " + dataFile + " has 2 data sets"},
		{[]string{bareFile, "--data", dataFile, "--line", "-1"}, "--line -1: want a line number >= 1"},
		{[]string{bareFile, "--unroll", "0"}, "--unroll 0: want plates, all or a number of slices >= 1"},
		{[]string{"../../examples/pomdp/tmaze.json", "--data", dataFile}, "applies to a model file"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"dot"}, c.args...), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.want) || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
			t.Errorf("dot %v: exit %d, stderr %q; want 2 and one line with %q", c.args, code, errb.String(), c.want)
		}
	}
	os.WriteFile(dataFile, []byte("{\"o9\": 1}\n"), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"dot", bareFile, "--data", dataFile}, &out, &errb); code != 2 || !strings.Contains(errb.String(), `"o9"`) {
		t.Errorf("unknown variable in --data: exit %d, %q", code, errb.String())
	}
}

// TestDotPOMDP: a POMDP file is drawn as its generative model: D, B per
// factor, A per modality joined to the factors of its depends_on, C where
// the modality has preferences, π joined to the transitions of the
// controlled factors only, and the Dirichlet prior d[context] of the
// T-maze; a file of neither kind is refused naming the kinds arbor dot
// takes.
func TestDotPOMDP(t *testing.T) {
	text := arborDot(t, "../../examples/pomdp/tmaze.json")
	for _, want := range []string{`"D[location]"`, `"D[context]"`, `"B[location]"`, `"B[context]"`, `"A[where]"`, `"A[cue]"`, `"A[reward]"`, `"C[reward]"`, `"d[context]"`, `"p(d[context])"`, `"π"`, `"σ(−G)"`} {
		if !strings.Contains(text, "label="+want) {
			t.Errorf("the T-maze's figure lacks %s", want)
		}
	}
	if strings.Contains(text, `"C[where]"`) || strings.Contains(text, `"C[cue]"`) {
		t.Error("C drawn for a modality without preferences")
	}
	ids := map[string][]string{} // label -> node names
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if i := strings.Index(l, "["); i > 0 && !strings.Contains(l, "->") {
			ids[labelOf(l)] = append(ids[labelOf(l)], l[:i])
		}
	}
	edge := func(a, b string) bool {
		for _, x := range ids[a] {
			for _, y := range ids[b] {
				if strings.Contains(text, x+"->"+y+"[") {
					return true
				}
			}
		}
		return false
	}
	if !edge("π", "B[location]") || edge("π", "B[context]") {
		t.Errorf("π joined to B[location]: %v, to B[context]: %v; want true, false", edge("π", "B[location]"), edge("π", "B[context]"))
	}
	if !edge("locationₜ", "A[cue]") || !edge("contextₜ", "A[cue]") || edge("contextₜ", "A[where]") {
		t.Error("A[cue] not over location and context, or A[where] over context")
	}
	// --unroll 4: four transitions in full (location₀ .. location₄).
	text = arborDot(t, "--unroll", "4", "../../examples/pomdp/tmaze.json")
	if !strings.Contains(text, `"location₄"`) || strings.Contains(text, `"location₅"`) || strings.Contains(text, "cluster") {
		t.Error("--unroll 4 on a POMDP: want location₀..location₄ and no plate")
	}
	dir := t.TempDir()
	odd := filepath.Join(dir, "odd.json")
	os.WriteFile(odd, []byte(`{"nodes": []}`), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"dot", odd}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "a model file, with variables and factors, or a POMDP file") {
		t.Errorf("a file of neither kind: exit %d, %q", code, errb.String())
	}
}

// TestFigureWarnings: what Graphviz writes on its standard error while it
// succeeds (a renderer that warns, then draws) reaches the user's
// standard error, a line each naming the flag and the file, and the
// figure is written.
func TestFigureWarnings(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\necho 'Warning: graph is too large for cairo-renderer bitmaps. Scaling by 0.5 to fit' >&2\necho 'Warning: second' >&2\necho '<svg/>'\n"
	if err := os.WriteFile(filepath.Join(bin, "dot"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	fig := filepath.Join(t.TempDir(), "g.svg")
	var out, errb bytes.Buffer
	if code := run([]string{"dot", "../../examples/models/hmm.json", "-o", fig}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := "arbor: -o " + fig + ": Graphviz: Warning: graph is too large for cairo-renderer bitmaps. Scaling by 0.5 to fit\narbor: -o " + fig + ": Graphviz: Warning: second\n"
	if errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
	if b, _ := os.ReadFile(fig); string(b) != "<svg/>\n" {
		t.Errorf("the figure reads %q", b)
	}
}

// plainNode is a node of dot -Tplain output: its centre, width and height
// in inches and its label.
type plainNode struct {
	x, y, w, h   float64
	label, shape string
}

// plainEdges runs dot -Tplain on DOT text and returns its nodes by name
// and its visible edges as polylines (tail, head and control points).
func plainEdges(t *testing.T, text string) (map[string]plainNode, [][]string, [][][2]float64) {
	t.Helper()
	bin, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz dot not installed")
	}
	cmd := exec.Command(bin, "-Tplain")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dot -Tplain: %v", err)
	}
	nodes := map[string]plainNode{}
	var ends [][]string
	var lines [][][2]float64
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 7 && f[0] == "node":
			var n plainNode
			fmt.Sscan(strings.Join(f[2:6], " "), &n.x, &n.y, &n.w, &n.h)
			n.label = strings.Trim(f[6], `"`)
			n.shape = f[8]
			nodes[f[1]] = n
		case len(f) >= 4 && f[0] == "edge" && !strings.Contains(l, " invis "):
			var k int
			fmt.Sscan(f[3], &k)
			pts := make([][2]float64, k)
			for i := range pts {
				fmt.Sscan(f[4+2*i]+" "+f[5+2*i], &pts[i][0], &pts[i][1])
			}
			ends = append(ends, []string{f[1], f[2]})
			lines = append(lines, pts)
		}
	}
	return nodes, ends, lines
}

// crosses reports whether the segment a–b passes through the node,
// shrunk by tol inches on every side (a circle: within its radius less
// tol of its centre).
func crosses(n plainNode, a, b [2]float64, tol float64) bool {
	if n.shape == "circle" {
		dx, dy := b[0]-a[0], b[1]-a[1]
		s := 0.0
		if l := dx*dx + dy*dy; l > 0 {
			s = max(0, min(1, ((n.x-a[0])*dx+(n.y-a[1])*dy)/l))
		}
		px, py := a[0]+s*dx-n.x, a[1]+s*dy-n.y
		r := n.w/2 - tol
		return px*px+py*py < r*r
	}
	x0, x1 := n.x-n.w/2+tol, n.x+n.w/2-tol
	y0, y1 := n.y-n.h/2+tol, n.y+n.h/2-tol
	// Clip the segment to the box (Liang–Barsky).
	lo, hi := 0.0, 1.0
	d := [2]float64{b[0] - a[0], b[1] - a[1]}
	for _, c := range [][3]float64{{-d[0], a[0] - x0}, {d[0], x1 - a[0]}, {-d[1], a[1] - y0}, {d[1], y1 - a[1]}} {
		p, q := c[0], c[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		r := q / p
		if p < 0 {
			lo = max(lo, r)
		} else {
			hi = min(hi, r)
		}
	}
	return lo < hi
}

// plateNodes is the set of node names declared inside the plate cluster
// of arbor dot's DOT text.
func plateNodes(text string) map[string]bool {
	in := map[string]bool{}
	inside := false
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "subgraph cluster"):
			inside = true
		case t == "}":
			inside = false
		case inside && strings.Contains(t, "[") && !strings.Contains(t, "->"):
			in[t[:strings.Index(t, "[")]] = true
		}
	}
	return in
}

// TestDotPOMDPTimeSlices: a POMDP file's figure is laid out as time
// slices: every node of t = 0 (D, the states and outcomes ₀, their A and
// C) lies left of every node of the plate; the factors' D[f], f₀, B[f]
// and fₜ are level, in one order top to bottom (a row each), and the plate's
// columns in the order of t = 0's; π lies below every state of t = 0; and no drawn edge
// passes through a node other than its ends. On the 3-factor file and
// every POMDP example.
func TestDotPOMDPTimeSlices(t *testing.T) {
	// The measure itself: a line through a box or a circle crosses it, one
	// beside it does not.
	box, circle := plainNode{x: 1, y: 1, w: 1, h: 0.4, shape: "box"}, plainNode{x: 1, y: 1, w: 0.8, h: 0.8, shape: "circle"}
	if !crosses(box, [2]float64{0, 1.1}, [2]float64{2, 1.1}, 0.03) || crosses(box, [2]float64{0, 1.3}, [2]float64{2, 1.3}, 0.03) ||
		!crosses(circle, [2]float64{1.2, 0}, [2]float64{1.2, 2}, 0.03) || crosses(circle, [2]float64{0, 0}, [2]float64{0.2, 0.2}, 0.03) {
		t.Fatal("crosses: wrong on a known case")
	}
	dir := t.TempDir()
	three := filepath.Join(dir, "three.json")
	if err := os.WriteFile(three, []byte(threeFactorPOMDP), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../../examples/pomdp/*.json")
	for _, file := range append([]string{three}, files...) {
		name := filepath.Base(file)
		text := arborDot(t, file)
		nodes, ends, lines := plainEdges(t, text)
		plate := plateNodes(text)
		if len(plate) == 0 {
			t.Fatalf("%s: no plate", name)
		}
		right, left := -1e9, 1e9
		byLabel := map[string]plainNode{}
		for id, n := range nodes {
			byLabel[n.label] = n
			if plate[id] {
				left = min(left, n.x-n.w/2)
			} else if strings.HasSuffix(n.label, "₀") || strings.ContainsAny(n.label[:1], "DAC") && strings.Contains(n.label, "[") {
				right = max(right, n.x+n.w/2)
			}
		}
		if right >= left {
			t.Errorf("%s: t = 0 reaches x = %.2f in, the plate starts at %.2f: want t = 0 left of the plate", name, right, left)
		}
		// The factors in the order of their D, top to bottom: their f₀, B[f]
		// and fₜ in the same order (a row each).
		var chains [][4]plainNode
		var states0 []plainNode
		for l, n := range byLabel {
			if f, ok := strings.CutPrefix(l, "D["); ok {
				f = strings.TrimSuffix(f, "]")
				chains = append(chains, [4]plainNode{n, byLabel[f+"₀"], byLabel["B["+f+"]"], byLabel[f+"ₜ"]})
				states0 = append(states0, byLabel[f+"₀"])
			}
		}
		sort.Slice(chains, func(i, j int) bool { return chains[i][0].y > chains[j][0].y })
		for _, c := range chains {
			for _, n := range c[1:] {
				if math.Abs(n.y-c[0].y) > 0.05 {
					t.Errorf("%s: %q at y = %.2f, %q at y = %.2f: want each factor's chain level", name, c[0].label, c[0].y, n.label, n.y)
				}
			}
		}
		for i := 1; i < len(chains); i++ {
			for c := range 4 {
				if a, b := chains[i-1][c], chains[i][c]; a.label == "" || b.label == "" || a.y <= b.y {
					t.Errorf("%s: %q at y = %.2f, %q at y = %.2f: want the rows of %s and %s in one order in every column", name, a.label, a.y, b.label, b.y, chains[i-1][0].label, chains[i][0].label)
				}
			}
		}
		// The plate's columns repeat the order of t = 0's: nodes of one
		// column of t = 0 (X₀, Y₀, A[m], C[m]) are in the same order as
		// their counterparts in the plate (Xₜ, Yₜ, A[m], C[m]).
		at0, atT := map[string]plainNode{}, map[string]plainNode{}
		for id, n := range nodes {
			if plate[id] {
				atT[strings.TrimSuffix(n.label, "ₜ")] = n
			} else {
				at0[strings.TrimSuffix(n.label, "₀")] = n
			}
		}
		for a, a0 := range at0 {
			for b, b0 := range at0 {
				aT, okA := atT[a]
				bT, okB := atT[b]
				if a < b && okA && okB && math.Abs(a0.x-b0.x) < 0.05 && (a0.y > b0.y) != (aT.y > bT.y) {
					t.Errorf("%s: %s above %s is %v at t = 0, %v in the plate", name, a, b, a0.y > b0.y, aT.y > bT.y)
				}
			}
		}
		if pi, ok := byLabel["π"]; ok {
			for _, s := range states0 {
				if pi.y >= s.y {
					t.Errorf("%s: π at y = %.2f, not below %s at %.2f", name, pi.y, s.label, s.y)
				}
			}
		}
		for k, pts := range lines {
			for id, n := range nodes {
				if id == ends[k][0] || id == ends[k][1] {
					continue
				}
				for i := 1; i < len(pts); i++ {
					if crosses(n, pts[i-1], pts[i], 0.03) {
						t.Errorf("%s: the edge %s → %s passes through %q", name, nodes[ends[k][0]].label, nodes[ends[k][1]].label, n.label)
						break
					}
				}
			}
		}
	}
}
