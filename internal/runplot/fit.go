package runplot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/arbor-ai/arbor/internal/output"
)

// z90 is the 95% quantile of the standard normal: a 90% interval is the
// estimate ± z90 SD.
const z90 = 1.6448536269514722

// FitParam is a free parameter of a fit figure, subject by subject on its
// fitting scale.
type FitParam struct {
	Name  string // the parameter, e.g. "alpha"
	Scale string // the fitting scale as fit.ScaleName names it
	// Estimate and SD are each subject's estimate and Laplace SD (NaN
	// without one: the estimate is drawn without an interval).
	Estimate, SD []float64
	// Shrunk holds each subject's empirical-Bayes estimate (fit --group);
	// nil without a group level.
	Shrunk []float64
}

// Effect is a group-level effect with its 90% interval.
type Effect struct {
	Parameter, Covariate string
	Mean, Lo, Hi         float64
}

// Comparison is a random-effects model comparison: the models' names and,
// in their order, the expected frequencies, exceedance and protected
// exceedance probabilities.
type Comparison struct {
	Models                                    []string
	Frequencies, Exceedance, ProtectedExceeds []float64
}

var (
	estColour    = color.RGBA{R: 30, G: 80, B: 180, A: 255}
	shrunkColour = color.RGBA{R: 200, G: 80, B: 30, A: 255}
)

// errPoints are points with vertical error bars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// Fit draws the figure of a fit (`arbor aci|btai|si fit --plot FILE`) in
// format ("svg", "pdf" or "png"): for each of params, every subject's
// estimate with its 90% Laplace interval (and, with a group level, its
// empirical-Bayes estimate beside it); with effects, the group effects
// with their 90% intervals; with cmp, the models' expected frequencies
// and their exceedance and protected exceedance probabilities as bars.
// Names on the axes are cut to 16 bytes, a model's name to two lines of
// 20 (its file, then the rest). It lays the panels out three
// across and returns the figure ready to be written; nil (and no error)
// when it has no panel.
func Fit(format string, params []FitParam, effects []Effect, cmp *Comparison) (io.WriterTo, error) {
	var plots []*plot.Plot
	for _, p := range params {
		pl, err := fitParamPlot(p)
		if err != nil {
			return nil, err
		}
		plots = append(plots, pl)
	}
	if len(effects) > 0 {
		pl, err := effectsPlot(effects)
		if err != nil {
			return nil, err
		}
		plots = append(plots, pl)
	}
	if cmp != nil {
		pls, err := comparisonPlots(cmp)
		if err != nil {
			return nil, err
		}
		plots = append(plots, pls...)
	}
	return tile(format, plots), nil
}

func fitParamPlot(p FitParam) (*plot.Plot, error) {
	if len(p.SD) != len(p.Estimate) || (p.Shrunk != nil && len(p.Shrunk) != len(p.Estimate)) {
		return nil, fmt.Errorf("runplot: parameter %s: %d estimates, %d SDs and %d shrunk estimates", p.Name, len(p.Estimate), len(p.SD), len(p.Shrunk))
	}
	pl := plot.New()
	lbl := p.Name
	if p.Scale != "natural" {
		lbl = p.Scale + " " + p.Name
	}
	pl.Title.Text = p.Name + ": estimates with 90% intervals"
	pl.X.Label.Text = "subject"
	pl.Y.Label.Text = lbl
	var pts errPoints
	var bare plotter.XYs
	for i, y := range p.Estimate {
		if !finite(y) {
			continue
		}
		if sd := p.SD[i]; finite(sd) {
			pts.XYs = append(pts.XYs, plotter.XY{X: float64(i + 1), Y: y})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{z90 * sd, z90 * sd})
		} else {
			bare = append(bare, plotter.XY{X: float64(i + 1), Y: y})
		}
	}
	if len(pts.XYs) > 0 {
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		eb.Color = estColour
		pl.Add(eb)
		bare = append(bare, pts.XYs...)
	}
	if len(bare) > 0 {
		sc, err := plotter.NewScatter(bare)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Color = estColour
		pl.Add(sc)
		pl.Legend.Add("first level", sc)
	}
	var shrunk plotter.XYs
	for i, y := range p.Shrunk {
		if finite(y) {
			shrunk = append(shrunk, plotter.XY{X: float64(i+1) + 0.25, Y: y})
		}
	}
	if len(shrunk) > 0 {
		sc, err := plotter.NewScatter(shrunk)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Shape = draw.TriangleGlyph{}
		sc.GlyphStyle.Color = shrunkColour
		pl.Add(sc)
		pl.Legend.Add("empirical Bayes", sc)
	}
	// Room above the points for the legend: a quarter of the range.
	pl.Legend.Top = true
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, xy := range append(bare, shrunk...) {
		lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
	}
	for i, e := range pts.YErrors {
		lo, hi = math.Min(lo, pts.XYs[i].Y-e.Low), math.Max(hi, pts.XYs[i].Y+e.High)
	}
	if hi > lo {
		pl.Y.Min, pl.Y.Max = lo, hi+0.25*(hi-lo)
	}
	return pl, nil
}

func effectsPlot(effects []Effect) (*plot.Plot, error) {
	pl := plot.New()
	pl.Title.Text = "group effects with 90% intervals"
	pl.X.Label.Text = "parameter: covariate"
	pl.Y.Label.Text = "effect (fitting scale)"
	var pts errPoints
	ticks := make(plot.ConstantTicks, len(effects))
	for i, e := range effects {
		ticks[i] = plot.Tick{Value: float64(i), Label: output.Cut(e.Parameter+": "+e.Covariate, 16)}
		if !finite(e.Mean) || !finite(e.Lo) || !finite(e.Hi) {
			continue
		}
		pts.XYs = append(pts.XYs, plotter.XY{X: float64(i), Y: e.Mean})
		pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{e.Mean - e.Lo, e.Hi - e.Mean})
	}
	pl.X.Tick.Marker = ticks
	pl.X.Min, pl.X.Max = -0.5, float64(len(effects))-0.5
	zero, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 0}, {X: float64(len(effects)) - 0.5, Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Color = color.Gray{Y: 150}
	zero.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	pl.Add(zero)
	if len(pts.XYs) > 0 {
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		eb.Color = estColour
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Color = estColour
		pl.Add(eb, sc)
	}
	return pl, nil
}

func comparisonPlots(c *Comparison) ([]*plot.Plot, error) {
	n := len(c.Models)
	if len(c.Frequencies) != n || len(c.Exceedance) != n || len(c.ProtectedExceeds) != n {
		return nil, fmt.Errorf("runplot: %d models, %d frequencies, %d exceedance and %d protected exceedance probabilities", n, len(c.Frequencies), len(c.Exceedance), len(c.ProtectedExceeds))
	}
	ticks := make(plot.ConstantTicks, n)
	for i, m := range c.Models {
		ticks[i] = plot.Tick{Value: float64(i), Label: modelTick(m)}
	}
	width := vg.Points(math.Min(40, 180/float64(max(n, 1))))
	bars := func(title string, sets [][]float64, names []string, colours []color.Color) (*plot.Plot, error) {
		pl := plot.New()
		pl.Title.Text = title
		pl.X.Label.Text = "model"
		pl.Y.Label.Text = "probability"
		pl.Y.Min, pl.Y.Max = 0, 1
		for k, v := range sets {
			vals := make(plotter.Values, n)
			for i, x := range v {
				if finite(x) {
					vals[i] = x
				}
			}
			b, err := plotter.NewBarChart(vals, width/vg.Length(len(sets)))
			if err != nil {
				return nil, err
			}
			b.Color = colours[k]
			b.LineStyle.Width = 0
			b.Offset = (vg.Length(k) - vg.Length(len(sets)-1)/2) * width / vg.Length(len(sets))
			pl.Add(b)
			if len(sets) > 1 {
				pl.Legend.Add(names[k], b)
			}
		}
		pl.Legend.Top = true
		pl.X.Tick.Marker = ticks
		pl.X.Min, pl.X.Max = -0.5, float64(n)-0.5
		return pl, nil
	}
	freq, err := bars("expected model frequencies", [][]float64{c.Frequencies}, nil, []color.Color{estColour})
	if err != nil {
		return nil, err
	}
	exc, err := bars("exceedance probabilities", [][]float64{c.Exceedance, c.ProtectedExceeds}, []string{"exceedance", "protected"}, []color.Color{estColour, shrunkColour})
	if err != nil {
		return nil, err
	}
	return []*plot.Plot{freq, exc}, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// tile lays plots out three across on a canvas of format (nil without a
// plot).
func tile(format string, plots []*plot.Plot) io.WriterTo {
	if len(plots) == 0 {
		return nil
	}
	cols := min(3, len(plots))
	rows := (len(plots) + cols - 1) / cols
	img := NewCanvas(format, vg.Points(300*float64(cols)), vg.Points(280*float64(rows)), DefaultDPI)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 6, PadY: vg.Millimeter * 6,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 3}
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	for i, p := range plots {
		grid[i/cols][i%cols] = p
	}
	canvases := plot.Align(grid, tiles, dc)
	for r := range grid {
		for c := range grid[r] {
			if grid[r][c] != nil {
				grid[r][c].Draw(canvases[r][c])
			}
		}
	}
	return img
}

// modelTick is a model's name on two lines: its first word (the model
// file) and the rest, each cut to 20 bytes.
func modelTick(name string) string {
	first, rest, _ := strings.Cut(name, " ")
	if rest == "" {
		return output.Cut(first, 20)
	}
	return output.Cut(first, 20) + "\n" + output.Cut(rest, 20)
}
