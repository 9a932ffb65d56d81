package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
)

const (
	// plotDefaultDPI is the resolution of a PNG --plot: print quality.
	plotDefaultDPI = 200
	// plotMaxGrid is the most episodes --plot-episode all draws.
	plotMaxGrid = 8
	// plotMaxBins bounds the points of the curves over episodes: beyond
	// it, each point is the mean of consecutive episodes, so what a run
	// keeps for its figure does not grow with its episodes.
	plotMaxBins = 1000
	// plotMaxCells is the largest heat map drawn cell by cell; a larger
	// one is drawn as an image of a pixel per cell.
	plotMaxCells = 5_000
	// plotMaxGlyphs is the most points of a line drawn with a marker each.
	plotMaxGlyphs = 200
	// The size of one panel, in inches, and of a heat map's colour bar.
	plotPanelW, plotPanelH, plotBarW = 3.4, 2.6, 0.75
)

// runPlotFlags are the --plot flags of aci run and btai run.
type runPlotFlags struct {
	fs      *flag.FlagSet
	file    *string
	dpi     *int
	episode *string
}

// addRunPlotFlags registers --plot, --plot-dpi and --plot-episode; cost
// names the planning cost drawn for each action taken.
func addRunPlotFlags(fs *flag.FlagSet, cost string) *runPlotFlags {
	return &runPlotFlags{
		fs: fs,
		file: fs.String("plot", "", "draw the run into this file, SVG, PDF or PNG by its ending: per episode the belief of each factor, "+
			"the action distribution, the outcome of each modality with preferences and "+cost+"; over episodes the rate of preferred "+
			"outcomes (and steps and solved for a maze), with the spread across agents"),
		dpi:     fs.Int("plot-dpi", plotDefaultDPI, "resolution of a .png --plot file, in pixels per inch (30..1200)"),
		episode: fs.String("plot-episode", "1", "the episode --plot draws in detail, from 1 (of the first agent), or all: a grid of every episode (at most "+strconv.Itoa(plotMaxGrid)+")"),
	}
}

// plotFormat returns the format of a --plot file by its ending.
func plotFormat(path string) (string, error) {
	switch f := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), "."); f {
	case "svg", "pdf", "png":
		return f, nil
	}
	return "", badInput("--plot %s: unknown ending, want .svg, .pdf or .png", path)
}

// check refuses, before any work, a --plot file of an unknown ending, a
// --plot-dpi or --plot-episode that would be ignored or is out of range,
// and a file that cannot be created. It returns the selected episode
// (from 0; -1 for all).
func (pf *runPlotFlags) check(episodes int) (int, error) {
	given := map[string]bool{}
	pf.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if *pf.file == "" {
		for _, name := range []string{"plot-dpi", "plot-episode"} {
			if given[name] {
				return 0, badInput("--%s: needs --plot FILE", name)
			}
		}
		return 0, nil
	}
	format, err := plotFormat(*pf.file)
	if err != nil {
		return 0, err
	}
	switch {
	case given["plot-dpi"] && format != "png":
		return 0, badInput("--plot-dpi: applies to a .png --plot file only (%s is %s, which has no resolution)", *pf.file, strings.ToUpper(format))
	case *pf.dpi < 30 || *pf.dpi > 1200:
		return 0, badInput("--plot-dpi: %d, want 30..1200", *pf.dpi)
	}
	sel := 0
	if *pf.episode == "all" {
		if episodes > plotMaxGrid {
			return 0, badInput("--plot-episode all: %d episodes, at most %d in a grid (give --plot-episode N)", episodes, plotMaxGrid)
		}
		sel = -1
	} else {
		n, err := strconv.Atoi(*pf.episode)
		if err != nil || n < 1 || n > episodes {
			return 0, badInput("--plot-episode: %q, want an episode 1..%d (--episodes) or all", *pf.episode, episodes)
		}
		sel = n - 1
	}
	if err := checkOutputFile("--plot", *pf.file, false); err != nil {
		return 0, err
	}
	return sel, nil
}

// newRunPlot returns the collector of a run's figure, or nil without
// --plot. sel is what check returned.
func (pf *runPlotFlags) newRunPlot(sel int, costLabel string, mz *envs.Maze, m *pomdp.Model, agents, episodes int) *runPlot {
	if *pf.file == "" {
		return nil
	}
	format, _ := plotFormat(*pf.file)
	rp := &runPlot{path: *pf.file, format: format, dpi: *pf.dpi, costLabel: costLabel, mz: mz, m: m,
		episode: sel, agents: agents, episodes: episodes, preferred: preferredOutcomes(m)}
	rp.binWidth = (episodes + plotMaxBins - 1) / plotMaxBins
	rp.bins = make([]episodeBin, (episodes+rp.binWidth-1)/rp.binWidth)
	return rp
}

// preferredOutcomes returns, per modality, which outcomes are the most
// preferred (the largest C); nil for a modality with uniform C, which
// states no preference.
func preferredOutcomes(m *pomdp.Model) [][]bool {
	out := make([][]bool, m.NumModalities())
	for i := range out {
		c := m.ModalityC(i)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range c {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if !(hi-lo > 1e-12*hi) {
			continue
		}
		out[i] = make([]bool, len(c))
		for o, v := range c {
			out[i][o] = v >= hi*(1-1e-12)
		}
	}
	return out
}

// shownEpisode is an episode --plot draws in full.
type shownEpisode struct {
	trial   int         // from 0
	beliefs [][]float64 // Q(S_t) after each observation
	probs   [][]float64 // the action distribution of each decision
	actions []int
	obs     []int
	costs   []float64 // the planning cost of each action taken
	states  []int     // maze states visited, from the start (mazes)
}

// stat is the mean, minimum and maximum of a number across the agents
// (and, past plotMaxBins episodes, across neighbouring episodes).
type stat struct {
	n             int
	sum, min, max float64
}

func (s *stat) add(v float64) {
	if math.IsNaN(v) {
		return
	}
	if s.n == 0 {
		s.min, s.max = v, v
	}
	s.n++
	s.sum += v
	s.min, s.max = math.Min(s.min, v), math.Max(s.max, v)
}

// episodeBin holds the numbers of the curves over episodes for one point.
type episodeBin struct{ rate, steps, solved stat }

// runPlot collects the episodes of a run for --plot: the shown episodes
// in full, every episode by the numbers of its curves only, in a fixed
// number of points.
type runPlot struct {
	path, format string
	dpi          int
	costLabel    string
	mz           *envs.Maze
	m            *pomdp.Model
	episode      int // the trial shown, from 0; -1 for all
	agents       int
	episodes     int
	preferred    [][]bool
	shown        []shownEpisode
	bins         []episodeBin
	binWidth     int
	outcomes     []int // scratch
}

// add records a finished episode of unit u.
func (rp *runPlot) add(u agent.Unit, ep *agent.Episode, cost func(*agent.Decision) float64, positions [][2]int) {
	if u.Trial < 0 || u.Trial >= rp.episodes {
		return // not an episode of this run's --episodes
	}
	b := &rp.bins[u.Trial/rp.binWidth]
	b.rate.add(rp.preferredRate(ep))
	b.steps.add(float64(ep.NumActions()))
	solved := 0.0
	if ep.Solved {
		solved = 1
	}
	b.solved.add(solved)
	if u.Agent != 0 || (rp.episode >= 0 && u.Trial != rp.episode) {
		return
	}
	se := shownEpisode{trial: u.Trial, beliefs: ep.Beliefs(), actions: ep.Actions(), obs: ep.Observations()}
	for _, st := range ep.Steps {
		if st.Decision != nil {
			se.probs = append(se.probs, st.Decision.Probs)
			if cost != nil {
				se.costs = append(se.costs, cost(st.Decision))
			}
		}
	}
	if rp.mz != nil {
		se.states = mazeStates(rp.mz, positions)
	}
	rp.shown = append(rp.shown, se)
}

// preferredRate returns the share of the outcomes after each action that
// are a most preferred outcome of their modality, over the modalities
// with preferences: NaN with no action or no preference.
func (rp *runPlot) preferredRate(ep *agent.Episode) float64 {
	hit, n := 0, 0
	for _, st := range ep.Steps[min(1, len(ep.Steps)):] {
		rp.outcomes = rp.m.DecodeObs(rp.outcomes, st.Obs)
		for i, pref := range rp.preferred {
			if pref != nil {
				n++
				if pref[rp.outcomes[i]] {
					hit++
				}
			}
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return float64(hit) / float64(n)
}

// grid is a plotter.GridXYZ over (time, index).
type grid [][]float64

func (g grid) Dims() (c, r int)   { return len(g), len(g[0]) }
func (g grid) Z(c, r int) float64 { return g[c][r] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// probabilityMap is the colour scale of the heat maps: white for 0, dark
// blue for 1.
func probabilityMap() palette.ColorMap {
	cm, err := moreland.NewLuminance([]color.Color{color.RGBA{R: 8, G: 48, B: 107, A: 255}, color.White})
	if err != nil {
		panic(err) // constant controls of increasing luminance
	}
	cm.SetMin(0)
	cm.SetMax(1)
	return palette.Reverse(cm)
}

// intTicks marks whole numbers only (time steps, states, episodes), at
// most about ten of them labelled.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := math.Ceil(lo), math.Floor(hi)
	if last < first {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	if last-first > 100 {
		// A labelled tick every 1, 2 or 5 × 10^k, at most five.
		step := math.Pow(10, math.Floor(math.Log10((last-first)/5)))
		for _, k := range []float64{1, 2, 5, 10} {
			if (last-first)/(k*step) <= 5 {
				step *= k
				break
			}
		}
		var ticks []plot.Tick
		for v := math.Ceil(first/step) * step; v <= last; v += step {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.Itoa(int(v))})
		}
		return ticks
	}
	step := math.Max(1, math.Ceil((last-first+1)/10))
	var ticks []plot.Tick
	for v := first; v <= last; v++ {
		t := plot.Tick{Value: v}
		if math.Mod(v-first, step) == 0 {
			t.Label = strconv.Itoa(int(v))
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// nameTicks labels 0..n-1 with their names, or whole numbers past 24.
func nameTicks(n int, name func(int) string) plot.Ticker {
	if n > 24 {
		return intTicks{}
	}
	ticks := make(plot.ConstantTicks, n)
	for i := range ticks {
		ticks[i] = plot.Tick{Value: float64(i), Label: name(i)}
	}
	return ticks
}

// panel is one plot of the figure, with its colour bar for a heat map.
type panel struct {
	p   *plot.Plot
	bar *plot.Plot // nil unless a heat map
}

// newPlot returns a plot with its title and axis labels, in type that
// fits a panel.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Title.TextStyle.Font.Size = vg.Points(10)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(9)
		a.Tick.Label.Font.Size = vg.Points(7)
	}
	return p
}

// heatPanel draws g (time across, index up) on the probability scale
// with a colour bar titled scale.
func heatPanel(title, x, y, scale string, g grid, ticks plot.Ticker) panel {
	p := newPlot(title, x, y)
	p.X.Tick.Marker, p.Y.Tick.Marker = intTicks{}, ticks
	cm := probabilityMap()
	if len(g)*len(g[0]) <= plotMaxCells {
		hm := plotter.NewHeatMap(g, cm.Palette(64))
		hm.Min, hm.Max = 0, 1
		p.Add(hm)
	} else {
		p.Add(rasterHeat(g, cm))
	}
	bar := newPlot(scale, "", "probability")
	bar.HideX()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.Y.Min, bar.Y.Max = 0, 1
	return panel{p: p, bar: bar}
}

// rasterHeat draws g as one image of a pixel per cell: a long episode's
// heat map, which would be a rectangle per cell in SVG and PDF.
func rasterHeat(g grid, cm palette.ColorMap) *plotter.Image {
	// Each row is rowPixels tall so that scaling the image blurs only
	// the edges between the rows.
	const rowPixels = 16
	cols, rows := g.Dims()
	img := image.NewNRGBA(image.Rect(0, 0, cols, rows*rowPixels))
	for c := range cols {
		for r := range rows {
			v := g.Z(c, r)
			if math.IsNaN(v) {
				v = 0
			}
			col, err := cm.At(math.Min(1, math.Max(0, v)))
			if err != nil {
				col = color.White
			}
			for k := range rowPixels {
				img.Set(c, (rows-1-r)*rowPixels+k, col)
			}
		}
	}
	return plotter.NewImage(img, -0.5, -0.5, float64(cols)-0.5, float64(rows)-0.5)
}

// lineXY adds a line with points through the finite values of xy.
func lineXY(p *plot.Plot, xy plotter.XYs) error {
	var ok plotter.XYs
	for _, v := range xy {
		if !math.IsInf(v.Y, 0) && !math.IsNaN(v.Y) {
			ok = append(ok, v)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	line, points, err := plotter.NewLinePoints(ok)
	if err != nil {
		return err
	}
	p.Add(line)
	if len(ok) <= plotMaxGlyphs {
		p.Add(points)
	}
	return nil
}

// episodePanels returns the panels of one shown episode.
func (rp *runPlot) episodePanels(se *shownEpisode) ([]panel, error) {
	m := rp.m
	var out []panel
	prefix := fmt.Sprintf("episode %d: ", se.trial+1)
	if len(se.beliefs) > 0 && len(se.beliefs[0]) == m.NumStates() {
		for f := range m.NumFactors() {
			n := m.FactorSize(f)
			if n < 2 {
				continue
			}
			off := m.FactorOffset(f)
			g := make(grid, len(se.beliefs))
			for t, b := range se.beliefs {
				g[t] = b[off : off+n]
			}
			what, ylabel := "belief over the states", "state"
			if m.NumFactors() > 1 {
				what, ylabel = "belief over "+m.FactorName(f), m.FactorName(f)
			}
			out = append(out, heatPanel(prefix+what, "t (after observation t)", ylabel, "Q(s)", g,
				nameTicks(n, func(s int) string { return m.FactorStateName(f, s) })))
		}
	}
	if len(se.probs) > 0 {
		ap := heatPanel(prefix+"action distribution (+: taken)", "t (decision after observation t)", "action", "P(u)", grid(se.probs),
			nameTicks(m.NumActions(), m.ActionName))
		taken := make(plotter.XYs, len(se.actions))
		for t, u := range se.actions {
			taken[t] = plotter.XY{X: float64(t), Y: float64(u)}
		}
		s, err := plotter.NewScatter(taken)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Shape = draw.CrossGlyph{}
		s.GlyphStyle.Color = color.RGBA{R: 230, G: 90, A: 255}
		s.GlyphStyle.Radius = vg.Points(4)
		if len(taken) <= plotMaxGlyphs {
			ap.p.Add(s)
		}
		out = append(out, ap)
	}
	outcomes := make([]int, m.NumModalities())
	for i, pref := range rp.preferred {
		if pref == nil {
			continue
		}
		what, ylabel := "outcome", "outcome"
		if m.NumModalities() > 1 {
			what, ylabel = "outcome of "+m.ModalityName(i), m.ModalityName(i)
		}
		// A long episode's outcomes are a line without markers, the
		// preferred ones named in the title.
		long := len(se.obs) > plotMaxGlyphs
		title := prefix + what + " (filled: preferred)"
		if long {
			var names []string
			for o, ok := range pref {
				if ok {
					names = append(names, m.OutcomeName(i, o))
				}
			}
			title = prefix + what + " (preferred: " + strings.Join(names, ", ") + ")"
		}
		p := newPlot(title, "t (observation t)", ylabel)
		p.X.Tick.Marker = intTicks{}
		p.Y.Tick.Marker = nameTicks(m.ModalitySize(i), func(o int) string { return m.OutcomeName(i, o) })
		var all, hit plotter.XYs
		for t, o := range se.obs {
			outcomes = m.DecodeObs(outcomes, o)
			xy := plotter.XY{X: float64(t), Y: float64(outcomes[i])}
			all = append(all, xy)
			if pref[outcomes[i]] {
				hit = append(hit, xy)
			}
		}
		line, points, err := plotter.NewLinePoints(all)
		if err != nil {
			return nil, err
		}
		points.Shape = draw.CircleGlyph{}
		p.Add(line)
		if !long {
			p.Add(points)
		}
		if len(hit) > 0 && !long {
			s, err := plotter.NewScatter(hit)
			if err != nil {
				return nil, err
			}
			s.GlyphStyle.Shape = draw.CircleGlyph{}
			s.GlyphStyle.Color = color.RGBA{G: 140, A: 255}
			s.GlyphStyle.Radius = vg.Points(3.5)
			p.Add(s)
		}
		p.Y.Min, p.Y.Max = -0.5, float64(m.ModalitySize(i))-0.5
		out = append(out, panel{p: p})
	}
	finite := false
	for _, c := range se.costs {
		finite = finite || !math.IsInf(c, 0) && !math.IsNaN(c)
	}
	if finite {
		p := newPlot(prefix+rp.costLabel, "t (decision after observation t)", rp.costLabel)
		p.X.Tick.Marker = intTicks{}
		xy := make(plotter.XYs, len(se.costs))
		for t, c := range se.costs {
			xy[t] = plotter.XY{X: float64(t), Y: c}
		}
		if err := lineXY(p, xy); err != nil {
			return nil, err
		}
		out = append(out, panel{p: p})
	}
	if rp.mz != nil && len(se.states) > 0 {
		p, err := rp.mazePanel(prefix, se.states)
		if err != nil {
			return nil, err
		}
		out = append(out, panel{p: p})
	}
	return out, nil
}

// mazePanel draws the maze (walls gray) with the path (red) and the exit
// (green).
func (rp *runPlot) mazePanel(prefix string, states []int) (*plot.Plot, error) {
	mz := rp.mz
	p := newPlot(prefix+"path through the maze", "column", "row")
	p.X.Tick.Marker, p.Y.Tick.Marker = intTicks{}, intTicks{}
	y := func(r int) float64 { return float64(mz.Rows() - 1 - r) }
	var walls plotter.XYs
	for r := range mz.Rows() {
		for c := range mz.Cols() {
			if _, ok := mz.StateOf(r, c); !ok {
				walls = append(walls, plotter.XY{X: float64(c), Y: y(r)})
			}
		}
	}
	if len(walls) > 0 {
		s, err := plotter.NewScatter(walls)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Shape = draw.BoxGlyph{}
		s.GlyphStyle.Color = color.Gray{Y: 80}
		s.GlyphStyle.Radius = vg.Points(5)
		p.Add(s)
	}
	path := make(plotter.XYs, len(states))
	for i, st := range states {
		r, c := mz.CellOf(st)
		path[i] = plotter.XY{X: float64(c), Y: y(r)}
	}
	line, points, err := plotter.NewLinePoints(path)
	if err != nil {
		return nil, err
	}
	line.Color, points.Color = color.RGBA{R: 200, A: 255}, color.RGBA{R: 200, A: 255}
	line.Width = vg.Points(2)
	p.Add(line, points)
	r, c := mz.CellOf(mz.Exit())
	exit, err := plotter.NewScatter(plotter.XYs{{X: float64(c), Y: y(r)}})
	if err != nil {
		return nil, err
	}
	exit.GlyphStyle.Shape = draw.PyramidGlyph{}
	exit.GlyphStyle.Color = color.RGBA{G: 140, A: 255}
	exit.GlyphStyle.Radius = vg.Points(5)
	p.Add(exit)
	p.X.Min, p.X.Max = -1, float64(mz.Cols())
	p.Y.Min, p.Y.Max = -1, float64(mz.Rows())
	return p, nil
}

// curvePanel draws one number over episodes: the mean across agents (and
// binned episodes), and with several a band from the minimum to the
// maximum.
func (rp *runPlot) curvePanel(title, ylabel string, get func(*episodeBin) *stat, band bool) (panel, error) {
	xlabel := "episode"
	if rp.binWidth > 1 {
		xlabel = fmt.Sprintf("episode (each point %d episodes)", rp.binWidth)
	}
	if rp.agents > 1 {
		title += fmt.Sprintf(" (%d agents: mean", rp.agents)
		if band {
			title += ", band min–max"
		}
		title += ")"
	}
	p := newPlot(title, xlabel, ylabel)
	p.X.Tick.Marker = intTicks{}
	var mean, lo, hi plotter.XYs
	for i := range rp.bins {
		s := get(&rp.bins[i])
		if s.n == 0 {
			continue
		}
		x := float64(i*rp.binWidth+1) + float64(rp.binWidth-1)/2
		mean = append(mean, plotter.XY{X: x, Y: s.sum / float64(s.n)})
		lo = append(lo, plotter.XY{X: x, Y: s.min})
		hi = append(hi, plotter.XY{X: x, Y: s.max})
	}
	if band && (rp.agents > 1 || rp.binWidth > 1) && len(mean) > 1 {
		ring := append(plotter.XYs{}, lo...)
		for i := len(hi) - 1; i >= 0; i-- {
			ring = append(ring, hi[i])
		}
		poly, err := plotter.NewPolygon(ring)
		if err != nil {
			return panel{}, err
		}
		poly.Color = color.RGBA{R: 170, G: 190, B: 230, A: 255}
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	if err := lineXY(p, mean); err != nil {
		return panel{}, err
	}
	return panel{p: p}, nil
}

// summaryPanels returns the curves over episodes: none with one episode.
func (rp *runPlot) summaryPanels() ([]panel, error) {
	if rp.episodes < 2 {
		return nil, nil
	}
	var out []panel
	add := func(title, ylabel string, get func(*episodeBin) *stat, band bool) error {
		p, err := rp.curvePanel(title, ylabel, get, band)
		out = append(out, p)
		return err
	}
	for _, pref := range rp.preferred {
		if pref != nil {
			if err := add("preferred outcomes", "share of outcomes preferred", func(b *episodeBin) *stat { return &b.rate }, true); err != nil {
				return nil, err
			}
			out[len(out)-1].p.Y.Min, out[len(out)-1].p.Y.Max = 0, 1
			break
		}
	}
	if rp.mz != nil {
		if err := add("steps", "steps", func(b *episodeBin) *stat { return &b.steps }, true); err != nil {
			return nil, err
		}
		if err := add("solved", "share solved", func(b *episodeBin) *stat { return &b.solved }, false); err != nil {
			return nil, err
		}
		out[len(out)-1].p.Y.Min, out[len(out)-1].p.Y.Max = 0, 1
	}
	return out, nil
}

// layout returns the panels of the figure in rows: one episode's panels
// and the curves over episodes three across; with --plot-episode all, one
// row per episode and the curves under them.
func (rp *runPlot) layout() ([][]panel, error) {
	sum, err := rp.summaryPanels()
	if err != nil {
		return nil, err
	}
	var rows [][]panel
	if rp.episode >= 0 {
		var all []panel
		for i := range rp.shown {
			ps, err := rp.episodePanels(&rp.shown[i])
			if err != nil {
				return nil, err
			}
			all = append(all, ps...)
		}
		all = append(all, sum...)
		for len(all) > 0 {
			n := min(3, len(all))
			rows = append(rows, all[:n])
			all = all[n:]
		}
		return rows, nil
	}
	for i := range rp.shown {
		ps, err := rp.episodePanels(&rp.shown[i])
		if err != nil {
			return nil, err
		}
		rows = append(rows, ps)
	}
	if len(sum) > 0 {
		rows = append(rows, sum)
	}
	return rows, nil
}

// write draws the figure into the --plot file, in its format.
func (rp *runPlot) write() error {
	if len(rp.shown) == 0 {
		return nil
	}
	rows, err := rp.layout()
	if err != nil {
		return err
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	w, h := vg.Length(plotPanelW*float64(cols))*vg.Inch, vg.Length(plotPanelH*float64(len(rows)))*vg.Inch
	c := newPlotCanvas(rp.format, w, h, rp.dpi)
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	tiles := draw.Tiles{Rows: len(rows), Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 5,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	for y, row := range rows {
		for x, pn := range row {
			tc := tiles.At(dc, x, y)
			if pn.bar == nil {
				pn.p.Draw(tc)
				continue
			}
			barW := vg.Length(plotBarW) * vg.Inch
			pn.p.Draw(draw.Crop(tc, 0, -barW, 0, 0))
			pn.bar.Draw(draw.Crop(tc, tc.Max.X-tc.Min.X-barW+vg.Millimeter*2, 0, 0, 0))
		}
	}
	// Complete or absent: the figure replaces the file only when written.
	f, err := output.CreateFile(rp.path)
	if err != nil {
		return cannotCreate("--plot", rp.path, err)
	}
	defer f.Abort()
	if _, err := c.WriteTo(f); err != nil {
		return fmt.Errorf("--plot %s: %w", rp.path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("--plot %s: %w", rp.path, err)
	}
	return nil
}

// newPlotCanvas returns a canvas of w × h in format ("svg", "pdf" or "png",
// plotFormat), at dpi pixels per inch for "png".
func newPlotCanvas(format string, w, h vg.Length, dpi int) vg.CanvasWriterTo {
	switch format {
	case "svg":
		return vgsvg.New(w, h)
	case "pdf":
		return vgpdf.New(w, h)
	}
	return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))}
}

// checkPlotFile refuses a --plot file that is not a PNG, before any work
// (the figures drawn through Graphviz's PNG output and the recovery plot).
func checkPlotFile(path string) error {
	if path != "" && !strings.HasSuffix(strings.ToLower(path), ".png") {
		return badInput("--plot %s: want a .png file", path)
	}
	return nil
}

// reversedPalette is a palette with its colours in the opposite order.
type reversedPalette []color.Color

func (r reversedPalette) Colors() []color.Color { return r }

// reversed returns p with its colours in the opposite order (white for 0
// in palette.Heat).
func reversed(p palette.Palette) reversedPalette {
	c := p.Colors()
	r := make(reversedPalette, len(c))
	for i := range c {
		r[len(c)-1-i] = c[i]
	}
	return r
}
