package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// spmRef is a reference figure for SPM's spm_maze_search, the whole search
// with N-step policies (seconds, and peak memory where known).
type spmRef struct {
	N       int
	Seconds float64
}

// SPM reference figures, measured for the same maze and horizons with SPM's
// spm_MDP_VB_X (docs/benchmarks.md, "The exponential wall"):
//   - spmOctave: Octave on this machine class;
//   - spmOctaveLeast: the Octave runs least slowed by other work on the
//     machine (reference README);
//   - spmMATLAB: MATLAB on 1.maze, N = 6 (N = 7 crashed allocating 9.5 GB).
var (
	spmOctave      = []spmRef{{2, 3.8}, {3, 22.8}, {4, 215}, {5, 1514}}
	spmOctaveLeast = []spmRef{{2, 3.8}, {3, 17.8}, {4, 158.5}, {5, 1481}}
	spmMATLAB      = []spmRef{{6, 2642}}
)

const (
	spmOctaveRSSN5     = int64(2.7e9) // bytes: Octave peak RSS at N = 5
	spmMATLABCrashN7   = int64(9.5e9) // bytes: the allocation MATLAB failed at N = 7
	spmMATLABCrashText = "crashed allocating 9.5 GB"
)

func spmAt(refs []spmRef, n int) string {
	for _, r := range refs {
		if r.N == n {
			return strconv.FormatFloat(r.Seconds, 'f', -1, 64)
		}
	}
	return ""
}

// writeTable writes the measurements as a markdown table. SPM's figures
// are whole-search times, so they are listed only beside arbor's whole
// search (rows measured with -search); without it the table holds arbor's
// one-step figures alone and says where SPM's are.
func writeTable(w io.Writer, rows []row, mazeFile, planner, load0, load1 string) {
	fmt.Fprintf(w, "Maze `%s`, planner `%s`, fresh process per N (median of %d), load average %s before and %s after.\n\n",
		mazeFile, planner, rows[0].Runs, load0, load1)
	search := rows[0].Search != nil
	fmt.Fprint(w, "| N | policies | arbor: plan one step (ms) | arbor: process (s) | arbor: peak RSS (MB) |")
	if !search {
		fmt.Fprintln(w, "\n|---|---:|---:|---:|---:|")
		for _, r := range rows {
			fmt.Fprintf(w, "| %d | %d | %.3f | %.3f | %.1f |\n", r.N, r.Policies, 1e3*r.PlanSeconds, r.WallSeconds, mb(r.MaxRSS))
		}
		fmt.Fprintln(w, "\nSPM's figures are for the whole search from S to E; run with -search to list them beside arbor's.")
		return
	}
	fmt.Fprint(w, " arbor: whole search (s) | steps, exit reached | search peak RSS (MB) |")
	fmt.Fprintln(w, " SPM Octave: whole search (s) | SPM Octave, least slowed (s) | SPM MATLAB: whole search (s) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %d | %d | %.3f | %.3f | %.1f |", r.N, r.Policies, 1e3*r.PlanSeconds, r.WallSeconds, mb(r.MaxRSS))
		s := r.Search
		fmt.Fprintf(w, " %.3f | %d, %v | %.1f |", s.SearchSeconds, s.Steps, s.Solved, mb(s.MaxRSS))
		octave := spmAt(spmOctave, r.N)
		if r.N == 5 {
			octave += " (2.7 GB RSS)"
		}
		matlab := spmAt(spmMATLAB, r.N)
		if r.N == 7 {
			matlab = spmMATLABCrashText
		}
		fmt.Fprintf(w, " %s | %s | %s |\n", octave, spmAt(spmOctaveLeast, r.N), matlab)
	}
}

// drawPlot draws two panels into a PNG: time against N (log scale) and peak
// memory against N (log scale), arbor's measurements beside SPM's figures.
func drawPlot(path string, rows []row) error {
	tp := plot.New()
	tp.Title.Text = "Time: classic active inference, 1.maze"
	tp.X.Label.Text = "policy length N (5^N policies)"
	tp.Y.Label.Text = "seconds (log scale)"
	tp.Y.Scale = plot.LogScale{}
	tp.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	tp.Legend.Top, tp.Legend.Left = true, true

	mp := plot.New()
	mp.Title.Text = "Peak memory"
	mp.X.Label.Text = "policy length N"
	mp.Y.Label.Text = "MB (log scale)"
	mp.Y.Scale = plot.LogScale{}
	mp.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	mp.Legend.Top, mp.Legend.Left = true, true

	plan, proc, rss := plotter.XYs{}, plotter.XYs{}, plotter.XYs{}
	var srch, srss plotter.XYs
	for _, r := range rows {
		n := float64(r.N)
		plan = append(plan, plotter.XY{X: n, Y: math.Max(r.PlanSeconds, 1e-6)})
		proc = append(proc, plotter.XY{X: n, Y: r.WallSeconds})
		rss = append(rss, plotter.XY{X: n, Y: mb(r.MaxRSS)})
		if r.Search != nil {
			srch = append(srch, plotter.XY{X: n, Y: r.Search.SearchSeconds})
			srss = append(srss, plotter.XY{X: n, Y: mb(r.Search.MaxRSS)})
		}
	}
	toXY := func(refs []spmRef) plotter.XYs {
		xy := make(plotter.XYs, len(refs))
		for i, r := range refs {
			xy[i] = plotter.XY{X: float64(r.N), Y: r.Seconds}
		}
		return xy
	}
	blue := color.RGBA{B: 200, A: 255}
	cyan := color.RGBA{G: 150, B: 200, A: 255}
	green := color.RGBA{G: 140, A: 255}
	red := color.RGBA{R: 200, A: 255}
	orange := color.RGBA{R: 230, G: 120, A: 255}
	type series struct {
		p      *plot.Plot
		name   string
		xy     plotter.XYs
		c      color.Color
		dashed bool
		shape  draw.GlyphDrawer
	}
	all := []series{
		{tp, "arbor: plan one step", plan, blue, false, draw.CircleGlyph{}},
		{tp, "arbor: whole process (one step)", proc, cyan, true, draw.CircleGlyph{}},
		{tp, "arbor: whole search", srch, green, false, draw.SquareGlyph{}},
		{tp, "SPM Octave, whole search", toXY(spmOctave), red, false, draw.TriangleGlyph{}},
		{tp, "SPM Octave, least slowed runs", toXY(spmOctaveLeast), red, true, draw.TriangleGlyph{}},
		{tp, "SPM MATLAB, whole search", toXY(spmMATLAB), orange, false, draw.CrossGlyph{}},
		{mp, "arbor: peak RSS, one step", rss, blue, false, draw.CircleGlyph{}},
		{mp, "arbor: peak RSS, whole search", srss, green, false, draw.SquareGlyph{}},
		{mp, "SPM Octave N=5: 2.7 GB RSS", plotter.XYs{{X: 5, Y: mb(spmOctaveRSSN5)}}, red, false, draw.TriangleGlyph{}},
		{mp, "SPM MATLAB N=7: " + spmMATLABCrashText, plotter.XYs{{X: 7, Y: mb(spmMATLABCrashN7)}}, orange, false, draw.CrossGlyph{}},
	}
	for _, s := range all {
		if len(s.xy) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(s.xy)
		if err != nil {
			return err
		}
		l.Color, sc.Color, sc.Shape, sc.Radius = s.c, s.c, s.shape, vg.Points(3)
		if s.dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		if len(s.xy) == 1 {
			s.p.Add(sc)
			s.p.Legend.Add(s.name, sc)
			continue
		}
		s.p.Add(l, sc)
		s.p.Legend.Add(s.name, l, sc)
	}
	for _, p := range []*plot.Plot{tp, mp} {
		p.X.Min, p.X.Max = 1.5, 8.5
		var ticks []plot.Tick
		for n := 2; n <= 8; n++ {
			ticks = append(ticks, plot.Tick{Value: float64(n), Label: strconv.Itoa(n)})
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	// Room for the legends above the data.
	tp.Y.Max = tp.Y.Max * 1e3
	mp.Y.Max = mp.Y.Max * 1e2

	const w, h = 12 * vg.Inch, 5 * vg.Inch
	img := vgimg.New(w, h)
	dc := draw.New(img)
	t := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2,
		PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	plots := [][]*plot.Plot{{tp, mp}}
	canvases := plot.Align(plots, t, dc)
	tp.Draw(canvases[0][0])
	mp.Draw(canvases[0][1])
	return savePNG(path, img)
}

func savePNG(path string, img *vgimg.Canvas) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
