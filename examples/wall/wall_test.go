package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/envs"
)

// mazeFile is the reference maze of the exponential wall.
const mazeFile = "../mazes/1.maze"

// TestMain lets the test binary act as a child of runChild, as the wall
// program does for itself.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		if err := child(os.Args[1:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "wall child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func loadTestProblem(tb testing.TB) *problem {
	tb.Helper()
	p, err := loadProblem(mazeFile)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// shortening reports whether action u from the start of 1.maze shortens
// the Manhattan distance to the exit. 1.maze: S at (row 5, col 1), E at
// (1, 6), distance 4 + 5 = 9; UP gives (4, 1), distance 8; RIGHT gives
// (5, 2), distance 8; DOWN and LEFT hit walls and IDLE stays: distance 9.
func shortening(u int) bool { return u == envs.Up || u == envs.Right }

// TestPlanOneStep: both planners choose a first action that brings the
// agent closer to the exit (the preference C favours small distances), and
// they agree: the agent's state posterior after one observation is the
// exact one that the stream planner computes in closed form, with the same
// fixed precision and argmax selection.
func TestPlanOneStep(t *testing.T) {
	p := loadTestProblem(t)
	maxN := 5
	if testing.Short() {
		maxN = 4
	}
	for n := 1; n <= maxN; n++ {
		us, err := planOneStep(context.Background(), p, plannerStream, n)
		if err != nil {
			t.Fatal(err)
		}
		ua, err := planOneStep(context.Background(), p, plannerAgent, n)
		if err != nil {
			t.Fatal(err)
		}
		if !shortening(us) || us != ua {
			t.Errorf("N=%d: stream chose %s, agent %s; want the same, UP or RIGHT", n, envs.ActionNames[us], envs.ActionNames[ua])
		}
	}
	if _, err := planOneStep(context.Background(), p, "bfs", 2); err == nil {
		t.Error("unknown planner: no error")
	}
}

// TestSearch: with 4-step policies the classic agent walks 1.maze to the
// exit. The shortest path has 9 actions (reference README), so a solved
// search takes at least 9.
func TestSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("whole search: not in -short")
	}
	p := loadTestProblem(t)
	r, err := search(context.Background(), p, 4, 50)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Solved || r.Steps < 9 {
		t.Errorf("search = %+v, want solved in >= 9 steps", r)
	}
}

// TestRunChild measures one fresh process (this test binary as the child)
// with 3-step policies: 5^3 = 125 policies, a shortening first action, a
// peak RSS reported by getrusage.
func TestRunChild(t *testing.T) {
	if testing.Short() {
		t.Skip("child processes: not in -short")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m, err := runChild(exe, []string{"-n", "3", "-maze", mazeFile, "-planner", plannerAgent, "-mode", "one"})
	if err != nil {
		t.Fatal(err)
	}
	if m.N != 3 || m.Policies != 125 || !shortening(m.Action) {
		t.Errorf("child = %+v, want N 3, 125 policies, UP or RIGHT", m.childResult)
	}
	if m.PlanSeconds <= 0 || m.WallSeconds < m.PlanSeconds {
		t.Errorf("plan %v s, process %v s: want 0 < plan <= process", m.PlanSeconds, m.WallSeconds)
	}
	if maxRSS := m.MaxRSS; maxRSS <= 0 || maxRSS > 1<<30 {
		t.Errorf("peak RSS %d bytes, want in (0, 1 GiB]", maxRSS)
	}
	if _, err := runChild(exe, []string{"-n", "3", "-maze", "nope.maze"}); err == nil || !strings.Contains(err.Error(), "nope.maze") {
		t.Errorf("missing maze: err = %v, want one naming the file", err)
	}
}

func testRows() []row {
	var rows []row
	for n := 2; n <= 8; n++ {
		rows = append(rows, row{N: n, Policies: 1, Runs: 3, PlanSeconds: 1e-3 * float64(n),
			WallSeconds: 2e-3 * float64(n), MaxRSS: int64(n) * 1e6,
			Search: &measurement{childResult: childResult{Solved: true, Steps: 9, SearchSeconds: 0.5}, MaxRSS: 2e7}})
	}
	return rows
}

// TestWriteTable checks the markdown table: a header, a separator and one
// row per N, the SPM figures on their rows (report.go), and the MATLAB
// crash at N = 7.
func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	writeTable(&b, testRows(), "1.maze", plannerAgent, "0.1 0.2 0.3", "0.4 0.5 0.6")
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2+2+7 { // intro, blank, header, separator, N = 2..8
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	cols := strings.Count(lines[2], "|")
	for _, l := range lines[3:] {
		if strings.Count(l, "|") != cols {
			t.Errorf("row %q has %d bars, header %d", l, strings.Count(l, "|"), cols)
		}
	}
	for _, want := range []string{
		"| 2 | 1 | 2.000 | 0.004 | 2.0 | 0.500 | 9, true | 20.0 | 3.8 | 3.8 |  |",
		"| 5 | 1 | 5.000 | 0.010 | 5.0 | 0.500 | 9, true | 20.0 | 1514 (2.7 GB RSS) | 1481 |  |",
		"| 6 |", "| 2642 |",
		"crashed allocating 9.5 GB",
		"load average 0.1 0.2 0.3 before and 0.4 0.5 0.6 after",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// TestDrawPlot draws the plot of synthetic rows and decodes the PNG: 12 by
// 5 inches at vgimg's default 96 dpi is 1152 by 480 pixels.
func TestDrawPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wall.png")
	if err := drawPlot(path, testRows()); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != 1152 || cfg.Height != 480 {
		t.Errorf("PNG %dx%d, want 1152x480", cfg.Width, cfg.Height)
	}
}

// BenchmarkPlanOneStep is the exponential wall in process: the classic agent
// (aci.Agent: a fresh agent sees the first observation of 1.maze and acts
// once) with N-step policies, 5^N of them. The stream sub-benchmarks time
// the same step without the factor graph (pomdp.StatePosterior +
// aci.TopPolicies).
func BenchmarkPlanOneStep(b *testing.B) {
	p := loadTestProblem(b)
	ctx := context.Background()
	for _, planner := range []string{plannerAgent, plannerStream} {
		for n := 2; n <= 8; n++ {
			name := fmt.Sprintf("N=%d", n)
			if planner == plannerStream {
				name = fmt.Sprintf("stream/N=%d", n)
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := planOneStep(ctx, p, planner, n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestWriteTableWithoutSearch: rows measured without -search hold arbor's
// one-step figures only; SPM's whole-search times are not put beside them,
// and the table says how to get them.
func TestWriteTableWithoutSearch(t *testing.T) {
	rows := testRows()
	for i := range rows {
		rows[i].Search = nil
	}
	var b bytes.Buffer
	writeTable(&b, rows, "1.maze", plannerAgent, "0.1", "0.2")
	out := b.String()
	if strings.Contains(out, "| 3.8 |") || strings.Contains(out, "SPM Octave") {
		t.Errorf("SPM's whole-search times listed beside one-step times:\n%s", out)
	}
	if !strings.Contains(out, "run with -search") || !strings.Contains(out, "| 2 | 1 | 2.000 | 0.004 | 2.0 |\n") {
		t.Errorf("table without -search:\n%s", out)
	}
}
