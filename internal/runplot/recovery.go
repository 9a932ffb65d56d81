package runplot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	gstat "gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/arbor-ai/arbor/internal/output"
)

// RecoveryParam is a free parameter of a recovery figure: its true and
// estimated values, subject by subject, on its fitting scale.
type RecoveryParam struct {
	Name      string    // the parameter, e.g. "alpha"
	Scale     string    // the fitting scale as fit.ScaleName names it ("log", "logit", "natural")
	True      []float64 // each subject's true value
	Estimated []float64 // each subject's estimate, in the order of True
	// SD holds each estimate's Laplace SD (NaN without one), drawn as its
	// 90% interval; nil draws no intervals.
	SD []float64
}

// countGrid is a plotter.GridXYZ over (fitted model, generating model).
type countGrid [][]int

func (g countGrid) Dims() (c, r int)   { return len(g), len(g) }
func (g countGrid) Z(c, r int) float64 { return float64(g[len(g)-1-r][c]) }
func (g countGrid) X(c int) float64    { return float64(c) }
func (g countGrid) Y(r int) float64    { return float64(r) }

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

// Recovery draws the figure of a parameter and model recovery (`arbor
// aci|btai|si recover --plot FILE`) in format ("svg", "pdf" or "png", as
// Format returns; a PNG at DefaultDPI): for each of params, the true
// against the estimated values with the identity line (a subject with a
// value that is not finite is left out), and with counts the confusion
// matrix, counts[g][h] being the subjects model g generated that model h
// won, models their names (cut to 16 bytes). It lays the panels out three
// across, and returns the figure ready to be written; nil (and no error)
// when it has no panel.
func Recovery(format string, params []RecoveryParam, models []string, counts [][]int) (io.WriterTo, error) {
	var plots []*plot.Plot
	for _, p := range params {
		if len(p.Estimated) != len(p.True) {
			return nil, fmt.Errorf("runplot: parameter %s: %d true values and %d estimates", p.Name, len(p.True), len(p.Estimated))
		}
		if p.SD != nil && len(p.SD) != len(p.True) {
			return nil, fmt.Errorf("runplot: parameter %s: %d true values and %d SDs", p.Name, len(p.True), len(p.SD))
		}
		pl := plot.New()
		lbl := p.Name
		if p.Scale != "natural" {
			lbl = p.Scale + " " + p.Name
		}
		pl.Title.Text = fmt.Sprintf("%s: true and estimated", p.Name)
		pl.X.Label.Text = "true " + lbl
		pl.Y.Label.Text = "estimated " + lbl
		var xy plotter.XYs
		var bars errPoints
		for i, x := range p.True {
			y := p.Estimated[i]
			if !finite(x) || !finite(y) {
				continue
			}
			xy = append(xy, plotter.XY{X: x, Y: y})
			if p.SD != nil && finite(p.SD[i]) {
				bars.XYs = append(bars.XYs, plotter.XY{X: x, Y: y})
				bars.YErrors = append(bars.YErrors, struct{ Low, High float64 }{z90 * p.SD[i], z90 * p.SD[i]})
			}
		}
		if len(xy) > 0 {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range xy {
				lo, hi = math.Min(lo, math.Min(v.X, v.Y)), math.Max(hi, math.Max(v.X, v.Y))
			}
			id, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
			if err != nil {
				return nil, err
			}
			id.Color = color.Gray{Y: 150}
			id.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			pl.Add(id)
			if len(bars.XYs) > 0 {
				eb, err := plotter.NewYErrorBars(bars)
				if err != nil {
					return nil, err
				}
				eb.Color = color.RGBA{R: 140, G: 170, B: 225, A: 255}
				pl.Add(eb)
				pl.Title.Text += ", 90% intervals"
			}
			sc, err := plotter.NewScatter(xy)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
			sc.GlyphStyle.Color = estColour
			pl.Add(sc)
			if r := correlation(xy); finite(r) {
				pl.Title.Text += fmt.Sprintf(" (r = %.3f)", r)
			}
		}
		plots = append(plots, pl)
	}
	if counts != nil {
		cp := plot.New()
		cp.Title.Text = "model recovery (subjects)"
		cp.X.Label.Text = "model with the highest log evidence"
		cp.Y.Label.Text = "generating model"
		n := len(models)
		xt, yt := make(plot.ConstantTicks, n), make(plot.ConstantTicks, n)
		for i, m := range models {
			name := output.Cut(m, 16)
			xt[i] = plot.Tick{Value: float64(i), Label: name}
			yt[n-1-i] = plot.Tick{Value: float64(n - 1 - i), Label: name}
		}
		cp.X.Tick.Marker, cp.Y.Tick.Marker = xt, yt
		hm := plotter.NewHeatMap(countGrid(counts), reversed(palette.Heat(12, 1)))
		if !(hm.Max > hm.Min) {
			hm.Min, hm.Max = hm.Min-0.5, hm.Min+0.5
		}
		cp.Add(hm)
		var labels plotter.XYLabels
		for g, row := range counts {
			for h, c := range row {
				labels.XYs = append(labels.XYs, plotter.XY{X: float64(h), Y: float64(n - 1 - g)})
				labels.Labels = append(labels.Labels, strconv.Itoa(c))
			}
		}
		lb, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, err
		}
		cp.Add(lb)
		plots = append(plots, cp)
	}
	return tile(format, plots), nil
}

// correlation is Pearson's r of the points (NaN for fewer than two or a
// constant coordinate).
func correlation(xy plotter.XYs) float64 {
	if len(xy) < 2 {
		return math.NaN()
	}
	x, y := make([]float64, len(xy)), make([]float64, len(xy))
	for i, v := range xy {
		x[i], y[i] = v.X, v.Y
	}
	return gstat.Correlation(x, y, nil)
}
