package runplot

import (
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

const (
	// DefaultDPI is the resolution of a PNG figure unless asked otherwise:
	// print quality.
	DefaultDPI = 200
	// MaxGrid is the most episodes a figure draws with Config.Episode All.
	MaxGrid = 8
	// All, as Config.Episode, draws every episode of the first agent, a
	// row of panels each.
	All = -1
)

const (
	// maxBins bounds the points of the curves over episodes: beyond it,
	// each point is the mean of consecutive episodes, so what a run keeps
	// for its figure does not grow with its episodes.
	maxBins = 1000
	// maxCells is the largest heat map drawn cell by cell; a larger one
	// is drawn as an image of a pixel per cell.
	maxCells = 5_000
	// maxGlyphs is the most points of a line drawn with a marker each.
	maxGlyphs = 200
	// The size of one panel, in inches, and of a heat map's colour bar.
	panelW, panelH, barW = 3.4, 2.6, 0.75
)

// Format returns the format of a figure file by its ending, in lower case:
// "svg", "pdf" or "png"; "" for any other ending.
func Format(path string) string {
	switch f := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), "."); f {
	case "svg", "pdf", "png":
		return f
	}
	return ""
}

// NewCanvas returns a canvas of w × h in format ("svg", "pdf" or "png", as
// Format returns), at dpi pixels per inch for "png".
func NewCanvas(format string, w, h vg.Length, dpi int) vg.CanvasWriterTo {
	switch format {
	case "svg":
		return vgsvg.New(w, h)
	case "pdf":
		return vgpdf.New(w, h)
	}
	return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))}
}

// Config is what a figure draws and how.
type Config struct {
	Format    string     // "svg", "pdf" or "png" (Format)
	DPI       int        // pixels per inch of a PNG
	Episode   int        // the episode of the first agent drawn in detail, from 0; All for every one
	CostLabel string     // the planning cost of the action taken, e.g. "lowest G of the action taken"
	Maze      *envs.Maze // the maze the agents walk, or nil
	Agents    int        // the agents of the run
	Episodes  int        // the episodes of each agent, at least 1
}

// shownEpisode is an episode drawn in detail.
type shownEpisode struct {
	trial   int         // from 0
	beliefs [][]float64 // Q(S_t) after each observation
	probs   [][]float64 // the action distribution of each decision
	actions []int
	obs     []int
	costs   []float64 // the planning cost of each action taken
	path    [][2]int  // the maze cells visited, from the start (mazes)
}

// stat is the mean, minimum and maximum of a number across the agents
// (and, past maxBins episodes, across neighbouring episodes).
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

// A Figure collects the episodes of a run: the episodes drawn in detail in
// full, every episode by the numbers of its curves only, in a fixed number
// of points. Add and Draw are not safe for concurrent use.
type Figure struct {
	format    string
	dpi       int
	costLabel string
	mz        *envs.Maze
	m         *pomdp.Model
	episode   int // the trial shown, from 0; All for all
	agents    int
	episodes  int
	preferred [][]bool
	shown     []shownEpisode
	bins      []episodeBin
	binWidth  int
	outcomes  []int // scratch
}

// New returns the empty figure of a run of agents with model m.
func New(m *pomdp.Model, c Config) *Figure {
	fig := &Figure{format: c.Format, dpi: c.DPI, costLabel: c.CostLabel, mz: c.Maze, m: m,
		episode: c.Episode, agents: c.Agents, episodes: c.Episodes, preferred: preferredOutcomes(m)}
	fig.binWidth = max(1, (c.Episodes+maxBins-1)/maxBins)
	fig.bins = make([]episodeBin, (c.Episodes+fig.binWidth-1)/fig.binWidth)
	return fig
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

// Add records a finished episode of unit u: cost, if not nil, gives the
// planning cost of each decision's action, and positions are the maze
// cells (row, column) the agent was in (nil without a maze). An episode
// outside Config.Episodes is ignored. It keeps what it draws in detail
// and of any other episode allocates nothing.
func (fig *Figure) Add(u agent.Unit, ep *agent.Episode, cost func(*agent.Decision) float64, positions [][2]int) {
	if u.Trial < 0 || u.Trial >= fig.episodes {
		return // not an episode of this run's --episodes
	}
	b := &fig.bins[u.Trial/fig.binWidth]
	b.rate.add(fig.preferredRate(ep))
	b.steps.add(float64(ep.NumActions()))
	solved := 0.0
	if ep.Solved {
		solved = 1
	}
	b.solved.add(solved)
	if u.Agent != 0 || (fig.episode >= 0 && u.Trial != fig.episode) {
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
	if fig.mz != nil {
		// The cells of the maze's states: a wall or a cell outside the
		// grid is not on the path.
		se.path = make([][2]int, 0, len(positions))
		for _, p := range positions {
			if _, ok := fig.mz.StateOf(p[0], p[1]); ok {
				se.path = append(se.path, p)
			}
		}
	}
	fig.shown = append(fig.shown, se)
}

// preferredRate returns the share of the outcomes after each action that
// are a most preferred outcome of their modality, over the modalities
// with preferences: NaN with no action or no preference.
func (fig *Figure) preferredRate(ep *agent.Episode) float64 {
	hit, n := 0, 0
	for _, st := range ep.Steps[min(1, len(ep.Steps)):] {
		fig.outcomes = fig.m.DecodeObs(fig.outcomes, st.Obs)
		for i, pref := range fig.preferred {
			if pref != nil {
				n++
				if pref[fig.outcomes[i]] {
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

// layout returns the panels of the figure in rows: one episode's panels
// and the curves over episodes three across; with Episode All, one row per
// episode and the curves under them.
func (fig *Figure) layout() ([][]panel, error) {
	sum, err := fig.summaryPanels()
	if err != nil {
		return nil, err
	}
	var rows [][]panel
	if fig.episode >= 0 {
		var all []panel
		for i := range fig.shown {
			ps, err := fig.episodePanels(&fig.shown[i])
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
	for i := range fig.shown {
		ps, err := fig.episodePanels(&fig.shown[i])
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

// Draw lays out and draws the figure, and returns it ready to be written
// in its format; nil (and no error) when no episode to draw in detail was
// added, so that there is nothing to write.
func (fig *Figure) Draw() (io.WriterTo, error) {
	if len(fig.shown) == 0 {
		return nil, nil
	}
	rows, err := fig.layout()
	if err != nil {
		return nil, err
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	w, h := vg.Length(panelW*float64(cols))*vg.Inch, vg.Length(panelH*float64(len(rows)))*vg.Inch
	c := NewCanvas(fig.format, w, h, fig.dpi)
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
			bw := vg.Length(barW) * vg.Inch
			pn.p.Draw(draw.Crop(tc, 0, -bw, 0, 0))
			pn.bar.Draw(draw.Crop(tc, tc.Max.X-tc.Min.X-bw+vg.Millimeter*2, 0, 0, 0))
		}
	}
	return c, nil
}
