package main

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// svgTexts parses an SVG file with encoding/xml and returns the text of
// its <text> elements. It fails the test unless the file is well-formed
// XML with an <svg> root.
func svgTexts(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	var texts []string
	var root string
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", path, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			inText = tok.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts = append(texts, strings.TrimSpace(string(tok)))
			}
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q, want svg", path, root)
	}
	return texts
}

// checkPDF checks the structure of a PDF file: the %PDF- header, a
// trailer, and a startxref offset that points at the cross-reference
// table ("xref"), followed by %%EOF.
func checkPDF(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("%PDF-1.")) {
		t.Fatalf("%s: no %%PDF header: %q", path, data[:min(len(data), 8)])
	}
	tail := bytes.TrimRight(data, "\r\n ")
	if !bytes.HasSuffix(tail, []byte("%%EOF")) {
		t.Fatalf("%s: does not end with %%%%EOF", path)
	}
	if !bytes.Contains(data, []byte("trailer")) {
		t.Errorf("%s: no trailer", path)
	}
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		t.Fatalf("%s: no startxref", path)
	}
	field := strings.Fields(string(tail[i+len("startxref") : len(tail)-len("%%EOF")]))
	if len(field) != 1 {
		t.Fatalf("%s: startxref %q", path, field)
	}
	off, err := strconv.Atoi(field[0])
	if err != nil || off < 0 || off+4 > len(data) || string(data[off:off+4]) != "xref" {
		t.Errorf("%s: startxref %q does not point at the xref table", path, field[0])
	}
}

// pngSize decodes a PNG file and returns its size in pixels.
func pngSize(t *testing.T, path string) (w, h int) {
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
	return img.Bounds().Dx(), img.Bounds().Dy()
}

// count returns how many of texts equal s.
func count(texts []string, s string) int {
	n := 0
	for _, x := range texts {
		if x == s {
			n++
		}
	}
	return n
}

// TestRunPlotFormats runs aci run and btai run on a maze, the T-maze and
// the tiger model file with --plot FILE.svg, .pdf and .png, and checks
// each file by parsing it: encoding/xml for SVG, the header, trailer and
// cross-reference offset for PDF, image/png for PNG with its size in
// pixels from the page size and --plot-dpi.
//
// In the SVG, every panel has its title and both axis labels, and every
// heat map a colour bar with its scale: "Q(s)" once per factor of more
// than one state, "P(u)" once (the action distribution), "probability"
// once per heat map. The expected panels are derived by hand from each
// model: the T-maze has two factors (location, context), one modality
// with preferences (reward); tiger one factor and one modality (C prefers
// reward); the maze one factor and one modality (the position, the exit
// preferred).
func TestRunPlotFormats(t *testing.T) {
	const tmaze, tiger, maze = "../../examples/pomdp/tmaze.json", "../../examples/pomdp/tiger.json", "../../examples/mazes/1.maze"
	type want struct {
		titles  []string // panel titles
		ylabels []string // besides the ones every panel of a kind has
		factors int      // belief heat maps
		maze    bool     // a maze: path, steps and solved
	}
	tmazeWant := want{titles: []string{"episode 1: belief over location", "episode 1: belief over context", "episode 1: outcome of reward (filled: preferred)"},
		ylabels: []string{"location", "context", "reward"}, factors: 2}
	oneFactor := want{titles: []string{"episode 1: belief over the states", "episode 1: outcome (filled: preferred)"},
		ylabels: []string{"state", "outcome"}, factors: 1}
	mazeWant := oneFactor
	mazeWant.maze = true
	for _, c := range []struct {
		name string
		args []string
		w    want
		cost string
	}{
		{"aci-maze", []string{"aci", "run", "--maze", maze, "--horizon", "2", "--steps", "4", "--episodes", "2"}, mazeWant, "lowest G of the action taken"},
		{"aci-tmaze", []string{"aci", "run", "--model", tmaze, "--horizon", "2", "--steps", "2", "--episodes", "3", "--agents", "2"}, tmazeWant, "lowest G of the action taken"},
		{"aci-tiger", []string{"aci", "run", "--model", tiger, "--horizon", "2", "--steps", "3", "--episodes", "2"}, oneFactor, "lowest G of the action taken"},
		{"btai-maze", []string{"btai", "run", "--maze", maze, "--iterations", "100", "--steps", "4", "--episodes", "2"}, mazeWant, "average cost of the action taken"},
		{"btai-tmaze", []string{"btai", "run", "--model", tmaze, "--iterations", "50", "--steps", "2", "--episodes", "3", "--agents", "2"}, tmazeWant, "average cost of the action taken"},
		{"btai-tiger", []string{"btai", "run", "--model", tiger, "--iterations", "50", "--steps", "3", "--episodes", "2"}, oneFactor, "average cost of the action taken"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			run1 := func(args ...string) {
				t.Helper()
				var out, errb bytes.Buffer
				if code := run(append(append([]string{}, c.args...), args...), &out, &errb); code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errb.String())
				}
			}
			svg, pdf, pngFile := filepath.Join(dir, "p.svg"), filepath.Join(dir, "p.pdf"), filepath.Join(dir, "p.png")
			run1("--plot", svg)
			run1("--plot", pdf)
			run1("--plot", pngFile, "--plot-dpi", "50")
			checkPDF(t, pdf)

			texts := svgTexts(t, svg)
			titles := append(append([]string{}, c.w.titles...), "episode 1: action distribution (×: taken)", "episode 1: "+c.cost)
			ylabels := append(append([]string{}, c.w.ylabels...), "action", c.cost)
			// The episodes run: the curve of preferred outcomes.
			curve := "preferred outcomes"
			if strings.Contains(strings.Join(c.args, " "), "--agents 2") {
				curve += " (2 agents: mean, band min–max)"
			}
			titles = append(titles, curve)
			ylabels = append(ylabels, "share of outcomes preferred")
			if c.w.maze {
				titles = append(titles, "episode 1: path through the maze", "steps", "solved")
				ylabels = append(ylabels, "row", "steps", "share solved")
			}
			for _, s := range append(titles, ylabels...) {
				if count(texts, s) == 0 {
					t.Errorf("SVG: no text %q", s)
				}
			}
			panels := len(titles)
			// Every panel has an x label: t (...) for an episode's
			// panels, episode for the curves, column for the maze.
			xl := 0
			for _, s := range texts {
				if strings.HasPrefix(s, "t (") || s == "episode" || s == "column" {
					xl++
				}
			}
			if xl != panels {
				t.Errorf("SVG: %d x-axis labels, want one per panel (%d)", xl, panels)
			}
			heat := c.w.factors + 1
			if n := count(texts, "Q(s)"); n != c.w.factors {
				t.Errorf("SVG: %d colour bars titled Q(s), want %d (one per factor)", n, c.w.factors)
			}
			if n := count(texts, "P(u)"); n != 1 {
				t.Errorf("SVG: %d colour bars titled P(u), want 1", n)
			}
			if n := count(texts, "probability"); n != heat {
				t.Errorf("SVG: %d colour-bar scales named probability, want %d (one per heat map)", n, heat)
			}
			for _, s := range texts {
				if strings.Contains(s, "ln C") || strings.Contains(s, "learning curve") {
					t.Errorf("SVG: text %q", s)
				}
			}

			// Three panels across, rows of 3.4 × 2.6 inches: at 50
			// pixels per inch 510 pixels wide and 130 per row.
			rows := (panels + 2) / 3
			w, h := pngSize(t, pngFile)
			if w != 510 || h != 130*rows {
				t.Errorf("PNG %d × %d pixels, want 510 × %d (%d panels at 50 dpi)", w, h, 130*rows, panels)
			}
		})
	}
}

// TestRunPlotEpisodes checks --plot-episode: N draws episode N only, all
// a row per episode under the default 200 dpi, and the curves' spread
// across agents.
func TestRunPlotEpisodes(t *testing.T) {
	dir := t.TempDir()
	base := []string{"aci", "run", "--model", "../../examples/pomdp/tmaze.json", "--horizon", "2", "--steps", "2", "--episodes", "3"}
	var out, errb bytes.Buffer
	svg := filepath.Join(dir, "e2.svg")
	if code := run(append(base, "--plot", svg, "--plot-episode", "2"), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	texts := svgTexts(t, svg)
	if count(texts, "episode 2: belief over location") != 1 || count(texts, "episode 1: belief over location") != 0 {
		t.Errorf("--plot-episode 2: want the panels of episode 2 only")
	}
	grid := filepath.Join(dir, "all.png")
	if code := run(append(base, "--plot", grid, "--plot-episode", "all"), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// A row per episode (two beliefs, actions, reward, G: 5 panels) and
	// the curve: 5 × 3.4 in = 17 in wide, 4 × 2.6 in = 10.4 in tall, at
	// 200 dpi 3400 × 2080 pixels.
	if w, h := pngSize(t, grid); w != 3400 || h != 2080 {
		t.Errorf("--plot-episode all: %d × %d pixels, want 3400 × 2080", w, h)
	}
}

// TestRunPlotBadFlags: each bad --plot flag exits 2 with one line naming
// it, before any work and without creating the file.
func TestRunPlotBadFlags(t *testing.T) {
	dir := t.TempDir()
	base := []string{"aci", "run", "--model", "../../examples/pomdp/tmaze.json", "--horizon", "2", "--steps", "2"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--plot", dir + "/p.jpg"}, "unknown ending, want .svg, .pdf or .png"},
		{[]string{"--plot", dir + "/p.svg", "--plot-dpi", "300"}, "--plot-dpi: applies to a .png --plot file only"},
		{[]string{"--plot", dir + "/p.pdf", "--plot-dpi", "300"}, "--plot-dpi: applies to a .png --plot file only"},
		{[]string{"--plot", dir + "/p.png", "--plot-dpi", "5"}, "--plot-dpi: 5, want 30..1200"},
		{[]string{"--plot-dpi", "100"}, "--plot-dpi: needs --plot FILE"},
		{[]string{"--plot-episode", "1"}, "--plot-episode: needs --plot FILE"},
		{[]string{"--plot", dir + "/p.svg", "--plot-episode", "2"}, `--plot-episode: "2", want an episode 1..1 (--episodes) or all`},
		{[]string{"--plot", dir + "/p.svg", "--plot-episode", "0"}, `--plot-episode: "0"`},
		{[]string{"--plot", dir + "/p.svg", "--episodes", "9", "--plot-episode", "all"}, "--plot-episode all: 9 episodes, at most 8 in a grid"},
		{[]string{"--plot", dir + "/no/dir/p.svg"}, "--plot " + dir + "/no/dir/p.svg: cannot create"},
	} {
		for _, cmd := range [][]string{base, {"btai", "run", "--model", "../../examples/pomdp/tmaze.json", "--steps", "2"}} {
			var out, errb bytes.Buffer
			code := run(append(append([]string{}, cmd...), c.args...), &out, &errb)
			if code != 2 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), c.want) {
				t.Errorf("%s %v: exit %d, %q; want 2 and one line with %q", cmd[0], c.args, code, errb.String(), c.want)
			}
		}
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("refused runs left %d files", len(files))
	}
}

// TestRunPlotLong: an episode of 5,001 steps on the tiger problem (four
// states, three actions: 20,008 and 15,003 cells, past the 5,000 that
// internal/runplot draws cell by cell) draws its two heat maps as images of a pixel per cell, not a rectangle
// per cell (about 90 bytes each in SVG), and its lines without a marker
// per point: the SVG has 4 images (2 heat maps, 2 colour bars) and stays
// under 1 MB (measured 0.16 MB; a rectangle per cell alone would be over
// 3 MB).
func TestRunPlotLong(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.svg")
	var out, errb bytes.Buffer
	if code := run([]string{"aci", "run", "--model", "../../examples/pomdp/tiger.json", "--horizon", "1", "--steps", "5001", "--plot", path}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	texts := svgTexts(t, path)
	if count(texts, "Q(s)") != 1 || count(texts, "P(u)") != 1 {
		t.Errorf("colour bars: Q(s) %d, P(u) %d, want 1 each", count(texts, "Q(s)"), count(texts, "P(u)"))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("<image")); n != 4 {
		t.Errorf("%d images, want 4 (2 heat maps, 2 colour bars)", n)
	}
	if len(data) > 1<<20 {
		t.Errorf("SVG of %d bytes, want under 1 MB", len(data))
	}
}
