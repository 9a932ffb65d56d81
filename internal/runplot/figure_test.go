package runplot

import (
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// svgConfig is the configuration of an SVG figure of the first episode,
// its planning cost named G.
func svgConfig(agents, episodes int) Config {
	return Config{Format: "svg", DPI: DefaultDPI, CostLabel: "G", Agents: agents, Episodes: episodes}
}

// TestBounded: the curves over episodes keep at most maxBins points,
// however many episodes run (10^5: 1,000 points of 100 episodes).
func TestBounded(t *testing.T) {
	m, err := pomdp.Load("../../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	fig := New(m, svgConfig(1, 100_000))
	if len(fig.bins) != 1000 || fig.binWidth != 100 {
		t.Errorf("10^5 episodes: %d points of %d episodes, want 1000 of 100", len(fig.bins), fig.binWidth)
	}
	fig = New(m, svgConfig(1, 7))
	if len(fig.bins) != 7 || fig.binWidth != 1 {
		t.Errorf("7 episodes: %d points of %d, want 7 of 1", len(fig.bins), fig.binWidth)
	}
}

// TestPreferredRate checks the rate of preferred outcomes on the T-maze:
// C prefers "reward" in the reward modality only (location and cue
// modalities have uniform C), so an episode that sees the cue and then a
// reward has one preferred outcome in two after its actions: 0.5.
func TestPreferredRate(t *testing.T) {
	m, err := pomdp.Load("../../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	fig := &Figure{m: m, preferred: preferredOutcomes(m)}
	with := 0
	reward := -1
	for i, p := range fig.preferred {
		if p == nil {
			continue
		}
		with++
		if m.ModalityName(i) != "reward" {
			t.Errorf("modality %s has preferences, want reward only", m.ModalityName(i))
		}
		for o, ok := range p {
			if ok {
				if m.OutcomeName(i, o) != "reward" {
					t.Errorf("preferred outcome %s, want reward", m.OutcomeName(i, o))
				}
				reward = o
			}
		}
	}
	if with != 1 || reward < 0 {
		t.Fatalf("%d modalities with preferences, want 1 with reward preferred", with)
	}
	obs := func(named map[string]string) int {
		outcomes := make([]int, m.NumModalities())
		for i := range outcomes {
			for o := range m.ModalitySize(i) {
				if m.OutcomeName(i, o) == named[m.ModalityName(i)] {
					outcomes[i] = o
				}
			}
		}
		j, err := m.EncodeObs(outcomes)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	start := obs(map[string]string{"where": "start", "reward": "none"})
	cue := obs(map[string]string{"where": "cue", "cue": "cue-left", "reward": "none"})
	won := obs(map[string]string{"where": "left", "reward": "reward"})
	ep := &agent.Episode{Steps: []agent.Step{{Obs: start}, {Obs: cue}, {Obs: won}}}
	if r := fig.preferredRate(ep); r != 0.5 {
		t.Errorf("start, cue, reward: rate %v, want 0.5", r)
	}
	if r := fig.preferredRate(&agent.Episode{Steps: []agent.Step{{Obs: won}}}); !math.IsNaN(r) {
		t.Errorf("no action: rate %v, want NaN", r)
	}
}

// tmazeEpisode returns the T-maze model and an episode of it: start, cue,
// reward.
func tmazeEpisode(b testing.TB) (*pomdp.Model, *agent.Episode) {
	m, err := pomdp.Load("../../examples/pomdp/tmaze.json")
	if err != nil {
		b.Fatal(err)
	}
	enc := func(where, cue, reward int) int {
		o, err := m.EncodeObs([]int{where, cue, reward})
		if err != nil {
			b.Fatal(err)
		}
		return o
	}
	qs := make([]float64, 0, m.NumStates()) // uniform over each factor
	for f := range m.NumFactors() {
		for range m.FactorSize(f) {
			qs = append(qs, 1/float64(m.FactorSize(f)))
		}
	}
	probs := []float64{0.1, 0.6, 0.2, 0.1}
	ep := &agent.Episode{Steps: []agent.Step{
		{Obs: enc(0, 0, 0), Belief: qs, Decision: &agent.Decision{Probs: probs, Action: 1}, Action: 1},
		{Obs: enc(1, 1, 0), Belief: qs, Decision: &agent.Decision{Probs: probs, Action: 2}, Action: 2},
		{T: 2, Obs: enc(2, 0, 1), Belief: qs, Action: -1},
	}}
	return m, ep
}

// BenchmarkAdd measures what a figure costs each episode it does not draw
// in detail (the numbers of the curves over episodes): no allocation.
func BenchmarkAdd(b *testing.B) {
	m, ep := tmazeEpisode(b)
	fig := New(m, svgConfig(2, 100_000))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		fig.Add(agent.Unit{Agent: 1, Trial: i % 100_000}, ep, nil, nil)
	}
}

// BenchmarkDraw measures drawing and writing the figure of one T-maze
// episode and 100 episodes' curves, in each format.
func BenchmarkDraw(b *testing.B) {
	m, ep := tmazeEpisode(b)
	for _, format := range []string{"svg", "pdf", "png"} {
		b.Run(format, func(b *testing.B) {
			c := svgConfig(1, 100)
			c.Format = format
			fig := New(m, c)
			for i := range 100 {
				fig.Add(agent.Unit{Trial: i}, ep, func(*agent.Decision) float64 { return 1 }, nil)
			}
			b.ReportAllocs()
			for b.Loop() {
				w, err := fig.Draw()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := w.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestScale: the heat maps' scale is white at probability 0 and dark
// at 1 (white for 0, as docs/figures.md says).
func TestScale(t *testing.T) {
	cm := probabilityMap()
	if cm.Min() != 0 || cm.Max() != 1 {
		t.Errorf("scale %v..%v, want 0..1", cm.Min(), cm.Max())
	}
	c0, err := cm.At(0)
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := c0.RGBA(); r < 0xfe00 || g < 0xfe00 || b < 0xfe00 {
		t.Errorf("colour of 0: %v, want white", c0)
	}
	c1, err := cm.At(1)
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := c1.RGBA(); (r+g+b)/3 > 0x6000 {
		t.Errorf("colour of 1: %v, want dark", c1)
	}
}

// TestFormat: the format of a file is its ending in lower case, if one
// of svg, pdf and png.
func TestFormat(t *testing.T) {
	for path, want := range map[string]string{"a.svg": "svg", "b/c.PDF": "pdf", "d.Png": "png", "e.jpg": "", "svg": "", "f.svg.gz": ""} {
		if got := Format(path); got != want {
			t.Errorf("Format(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestDrawNothing: a figure with no episode to draw in detail (the other
// agents' episodes only) draws nothing, so that no file is written; one
// with the episode draws an SVG.
func TestDrawNothing(t *testing.T) {
	m, ep := tmazeEpisode(t)
	fig := New(m, svgConfig(2, 3))
	fig.Add(agent.Unit{Agent: 1}, ep, nil, nil)
	if w, err := fig.Draw(); w != nil || err != nil {
		t.Fatalf("no episode shown: Draw() = %v, %v; want nil, nil", w, err)
	}
	fig.Add(agent.Unit{}, ep, nil, nil)
	w, err := fig.Draw()
	if w == nil || err != nil {
		t.Fatalf("episode 1 shown: Draw() = %v, %v", w, err)
	}
	var b strings.Builder
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<svg") || !strings.Contains(b.String(), "episode 1: belief over location") {
		t.Errorf("SVG without its root or the belief panel: %.200q", b.String())
	}
}

// TestMazePanelRows: the maze panel is drawn as the maze prints (row 0 at
// the top) and its row ticks are the printed rows: on examples/mazes/1.maze
// the start S is printed on row 5 and the exit E on row 1 (the text path
// reads (5,1) ... (1,6)); the tick at each one's height says so.
func TestMazePanelRows(t *testing.T) {
	mz, err := envs.LoadMaze("../../examples/mazes/1.maze")
	if err != nil {
		t.Fatal(err)
	}
	fig := &Figure{mz: mz}
	p, err := fig.mazePanel("", [][2]int{{5, 1}, {5, 2}})
	if err != nil {
		t.Fatal(err)
	}
	label := func(y float64) string {
		for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
			if tk.Value == y {
				return tk.Label
			}
		}
		return "none"
	}
	er, _ := mz.CellOf(mz.Exit())
	// The panel draws row r at height Rows-1-r.
	for _, c := range []struct {
		what string
		row  int
	}{{"start", 5}, {"exit", er}} {
		if got := label(float64(mz.Rows() - 1 - c.row)); got != strconv.Itoa(c.row) {
			t.Errorf("%s on printed row %d: tick %q", c.what, c.row, got)
		}
	}
	if er != 1 {
		t.Errorf("exit on row %d, the file prints it on row 1", er)
	}
}
