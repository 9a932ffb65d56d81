package main

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
)

// plotEpisode is what --plot draws of one episode: the first episode in
// full, every later one by the numbers of the learning curve only, so that
// what a run keeps for its figure does not grow with its steps.
type plotEpisode struct {
	beliefs [][]float64 // Q(S_t) after each observation (first episode)
	costs   []float64   // the planning cost of each action taken (first episode)
	states  []int       // maze states visited, from the start (mazes; first episode)
	steps   int
	solved  bool
	logC    float64 // mean ln C of the outcomes after each action (meanLogC)
	logCOK  bool
}

// runPlot collects the episodes of a run for --plot.
type runPlot struct {
	path      string
	costLabel string
	mz        *envs.Maze
	m         *pomdp.Model
	episodes  []plotEpisode
}

// checkPlotFile refuses a --plot file that is not a PNG, before any work.
func checkPlotFile(path string) error {
	if path != "" && !strings.HasSuffix(strings.ToLower(path), ".png") {
		return badInput("--plot %s: want a .png file", path)
	}
	return nil
}

// beliefGrid is a plotter.GridXYZ over (time, state).
type beliefGrid [][]float64

func (g beliefGrid) Dims() (c, r int)   { return len(g), len(g[0]) }
func (g beliefGrid) Z(c, r int) float64 { return g[c][r] }
func (g beliefGrid) X(c int) float64    { return float64(c) }
func (g beliefGrid) Y(r int) float64    { return float64(r) }

// reversed is p with its colours in the opposite order (white for 0).
type reversedPalette []color.Color

func (r reversedPalette) Colors() []color.Color { return r }

func reversed(p palette.Palette) reversedPalette {
	c := p.Colors()
	r := make(reversedPalette, len(c))
	for i := range c {
		r[len(c)-1-i] = c[i]
	}
	return r
}

// meanLogC returns the mean over the outcomes after each action of
// Σ_m ln C_m(o_m): how much the agent got what it prefers, the learning
// curve of a model without an exit. ok is false with no action or an
// outcome of target probability 0.
func meanLogC(m *pomdp.Model, obs []int) (v float64, ok bool) {
	if m == nil || len(obs) < 2 {
		return 0, false
	}
	cs := make([][]float64, m.NumModalities())
	for i := range cs {
		cs[i] = m.ModalityC(i)
	}
	outcomes := make([]int, len(cs))
	for _, o := range obs[1:] {
		outcomes = m.DecodeObs(outcomes, o)
		for i, c := range cs {
			v += math.Log(c[outcomes[i]])
		}
	}
	v /= float64(len(obs) - 1)
	return v, !math.IsInf(v, 0) && !math.IsNaN(v)
}

// intTicks marks whole numbers only (time steps, states, episodes), at
// most about ten of them labelled.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := math.Ceil(lo), math.Floor(hi)
	if last < first {
		return plot.DefaultTicks{}.Ticks(lo, hi)
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

// write draws the PNG: the first episode's beliefs over the hidden states
// as a heat map (time across, state up), the planning cost of each action
// it took, the maze with its path (mazes), and with several episodes a
// learning curve (steps per episode, solved episodes filled).
func (rp *runPlot) write() error {
	if len(rp.episodes) == 0 {
		return nil
	}
	ep := rp.episodes[0]
	var plots []*plot.Plot

	if len(ep.beliefs) > 0 && len(ep.beliefs[0]) > 0 {
		hp := plot.New()
		hp.Title.Text = "episode 1: belief over the hidden states (dark = 1)"
		hp.X.Label.Text = "t (after observation t)"
		hp.Y.Label.Text = "state index"
		hp.X.Tick.Marker, hp.Y.Tick.Marker = intTicks{}, intTicks{}
		if n := len(ep.beliefs[0]); rp.m != nil && n <= 24 {
			hp.Y.Label.Text = "state"
			ticks := make(plot.ConstantTicks, n)
			for s := range ticks {
				ticks[s] = plot.Tick{Value: float64(s), Label: rp.m.StateName(s)}
			}
			hp.Y.Tick.Marker = ticks
		}
		hm := plotter.NewHeatMap(beliefGrid(ep.beliefs), reversed(palette.Heat(12, 1)))
		if !(hm.Max > hm.Min) { // one colour for a constant belief
			hm.Min, hm.Max = hm.Min-0.5, hm.Min+0.5
		}
		hp.Add(hm)
		plots = append(plots, hp)
	}

	cp := plot.New()
	cp.Title.Text = "episode 1: " + rp.costLabel
	cp.X.Label.Text = "step"
	cp.Y.Label.Text = rp.costLabel
	cp.X.Tick.Marker = intTicks{}
	var xy plotter.XYs
	for i, c := range ep.costs {
		if !math.IsInf(c, 0) && !math.IsNaN(c) {
			xy = append(xy, plotter.XY{X: float64(i + 1), Y: c})
		}
	}
	if len(xy) > 0 {
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		cp.Add(line, points)
	}
	plots = append(plots, cp)

	if rp.mz != nil && len(ep.states) > 0 {
		mp := plot.New()
		mp.Title.Text = "episode 1: the path through the maze"
		mp.HideAxes()
		var walls plotter.XYs
		for r := range rp.mz.Rows() {
			for c := range rp.mz.Cols() {
				if _, ok := rp.mz.StateOf(r, c); !ok {
					walls = append(walls, plotter.XY{X: float64(c), Y: float64(rp.mz.Rows() - 1 - r)})
				}
			}
		}
		if len(walls) > 0 {
			s, err := plotter.NewScatter(walls)
			if err != nil {
				return err
			}
			s.GlyphStyle.Shape = draw.BoxGlyph{}
			s.GlyphStyle.Color = color.Gray{Y: 80}
			s.GlyphStyle.Radius = vg.Points(7)
			mp.Add(s)
		}
		path := make(plotter.XYs, len(ep.states))
		for i, st := range ep.states {
			r, c := rp.mz.CellOf(st)
			path[i] = plotter.XY{X: float64(c), Y: float64(rp.mz.Rows() - 1 - r)}
		}
		line, points, err := plotter.NewLinePoints(path)
		if err != nil {
			return err
		}
		line.Color = color.RGBA{R: 200, A: 255}
		line.Width = vg.Points(2)
		points.Color = color.RGBA{R: 200, A: 255}
		mp.Add(line, points)
		r, c := rp.mz.CellOf(rp.mz.Exit())
		exit, err := plotter.NewScatter(plotter.XYs{{X: float64(c), Y: float64(rp.mz.Rows() - 1 - r)}})
		if err != nil {
			return err
		}
		exit.GlyphStyle.Shape = draw.PyramidGlyph{}
		exit.GlyphStyle.Color = color.RGBA{G: 140, A: 255}
		exit.GlyphStyle.Radius = vg.Points(6)
		mp.Add(exit)
		mp.X.Min, mp.X.Max = -1, float64(rp.mz.Cols())
		mp.Y.Min, mp.Y.Max = -1, float64(rp.mz.Rows())
		plots = append(plots, mp)
	}

	if len(rp.episodes) > 1 {
		lp := plot.New()
		lp.Title.Text = "learning curve"
		lp.X.Label.Text = "episode"
		lp.X.Tick.Marker = intTicks{}
		all, solved := make(plotter.XYs, len(rp.episodes)), plotter.XYs{}
		if rp.mz != nil {
			lp.Y.Label.Text = "steps"
			lp.Y.Tick.Marker = intTicks{}
			for i, e := range rp.episodes {
				all[i] = plotter.XY{X: float64(i + 1), Y: float64(e.steps)}
				if e.solved {
					solved = append(solved, all[i])
				}
			}
		} else {
			lp.Y.Label.Text = "mean ln C of the outcomes"
			all = all[:0]
			for i, e := range rp.episodes {
				if e.logCOK {
					all = append(all, plotter.XY{X: float64(i + 1), Y: e.logC})
				}
			}
		}
		if len(all) > 0 {
			line, points, err := plotter.NewLinePoints(all)
			if err != nil {
				return err
			}
			lp.Add(line, points)
		}
		if len(solved) > 0 {
			s, err := plotter.NewScatter(solved)
			if err != nil {
				return err
			}
			s.GlyphStyle.Shape = draw.CircleGlyph{}
			lp.Add(s)
			lp.Legend.Add("solved", s)
		}
		plots = append(plots, lp)
	}

	cols := 2
	rows := (len(plots) + 1) / 2
	img := vgimg.New(vg.Points(320*float64(cols)), vg.Points(260*float64(rows)))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
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
	// Complete or absent: the PNG replaces the file only when written.
	f, err := output.CreateFile(rp.path)
	if err != nil {
		return cannotCreate("--plot", rp.path, err)
	}
	defer f.Abort()
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		return fmt.Errorf("--plot %s: %w", rp.path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("--plot %s: %w", rp.path, err)
	}
	return nil
}
