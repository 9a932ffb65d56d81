package runplot

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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

// rowTicks are intTicks on a maze's rows drawn top down: the value
// rows-1-r is labelled r, so that the panel reads as the printed maze does
// (row 0 at the top) and its row numbers are the printed path's.
type rowTicks struct{ rows int }

func (rt rowTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := intTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.Itoa(rt.rows - 1 - int(ticks[i].Value))
		}
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
	if len(g)*len(g[0]) <= maxCells {
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
	if len(ok) <= maxGlyphs {
		p.Add(points)
	}
	return nil
}

// episodePanels returns the panels of one shown episode.
func (fig *Figure) episodePanels(se *shownEpisode) ([]panel, error) {
	m := fig.m
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
		ap := heatPanel(prefix+"action distribution (×: taken)", "t (decision after observation t)", "action", "P(u)", grid(se.probs),
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
		if len(taken) <= maxGlyphs {
			ap.p.Add(s)
		}
		out = append(out, ap)
	}
	outcomes := make([]int, m.NumModalities())
	for i, pref := range fig.preferred {
		if pref == nil {
			continue
		}
		what, ylabel := "outcome", "outcome"
		if m.NumModalities() > 1 {
			what, ylabel = "outcome of "+m.ModalityName(i), m.ModalityName(i)
		}
		// A long episode's outcomes are a line without markers, the
		// preferred ones named in the title.
		long := len(se.obs) > maxGlyphs
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
		p := newPlot(prefix+fig.costLabel, "t (decision after observation t)", fig.costLabel)
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
	if fig.mz != nil && len(se.path) > 0 {
		p, err := fig.mazePanel(prefix, se.path)
		if err != nil {
			return nil, err
		}
		out = append(out, panel{p: p})
	}
	return out, nil
}

// mazePanel draws the maze (walls gray) with the path through its cells
// (red) and the exit (green).
func (fig *Figure) mazePanel(prefix string, cells [][2]int) (*plot.Plot, error) {
	mz := fig.mz
	p := newPlot(prefix+"path through the maze", "column", "row")
	p.X.Tick.Marker, p.Y.Tick.Marker = intTicks{}, rowTicks{mz.Rows()}
	y := func(r int) float64 { return float64(mz.Rows() - 1 - r) } // row 0 at the top, as printed
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
	path := make(plotter.XYs, len(cells))
	for i, rc := range cells {
		path[i] = plotter.XY{X: float64(rc[1]), Y: y(rc[0])}
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
func (fig *Figure) curvePanel(title, ylabel string, get func(*episodeBin) *stat, band bool) (panel, error) {
	xlabel := "episode"
	if fig.binWidth > 1 {
		xlabel = fmt.Sprintf("episode (each point %d episodes)", fig.binWidth)
	}
	if fig.agents > 1 {
		title += fmt.Sprintf(" (%d agents: mean", fig.agents)
		if band {
			title += ", band min–max"
		}
		title += ")"
	}
	p := newPlot(title, xlabel, ylabel)
	p.X.Tick.Marker = intTicks{}
	var mean, lo, hi plotter.XYs
	for i := range fig.bins {
		s := get(&fig.bins[i])
		if s.n == 0 {
			continue
		}
		x := float64(i*fig.binWidth+1) + float64(fig.binWidth-1)/2
		mean = append(mean, plotter.XY{X: x, Y: s.sum / float64(s.n)})
		lo = append(lo, plotter.XY{X: x, Y: s.min})
		hi = append(hi, plotter.XY{X: x, Y: s.max})
	}
	if band && (fig.agents > 1 || fig.binWidth > 1) && len(mean) > 1 {
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
func (fig *Figure) summaryPanels() ([]panel, error) {
	if fig.episodes < 2 {
		return nil, nil
	}
	var out []panel
	add := func(title, ylabel string, get func(*episodeBin) *stat, band bool) error {
		p, err := fig.curvePanel(title, ylabel, get, band)
		out = append(out, p)
		return err
	}
	for _, pref := range fig.preferred {
		if pref != nil {
			if err := add("preferred outcomes", "share of outcomes preferred", func(b *episodeBin) *stat { return &b.rate }, true); err != nil {
				return nil, err
			}
			out[len(out)-1].p.Y.Min, out[len(out)-1].p.Y.Max = 0, 1
			break
		}
	}
	if fig.mz != nil {
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
