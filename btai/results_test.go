package btai_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// resultsMazes are the mazes of the results table in docs/btai.md: every
// valid maze shipped in examples/mazes (0, 3 and 4.maze are examples of
// bad maze files).
var resultsMazes = []string{
	"1.maze", "2.maze", "5.maze", "6.maze", "13.maze",
	"7.maze", "8.maze", "15.maze",
	"detour-1.maze", "detour-2.maze", "detour-3.maze", "detour-4.maze", "detour-5.maze", "detour-6.maze",
}

// resultsConfig is one column of the results table.
type resultsConfig struct {
	name string
	opts func() btai.Options
	// limit is the step limit for a maze of shortest path sp.
	limit func(sp int) int
}

func tightLimit(sp int) int { return 2*sp + 5 }
func looseLimit(sp int) int { return 4*sp + 10 }

var resultsConfigs = []resultsConfig{
	{"scale-free (default)", btai.PresetScaleFree, tightLimit},
	{"paper", btai.PresetPaper, tightLimit},
	{"hp", btai.PresetHP, tightLimit},
	{"scale-free + novelty", func() btai.Options {
		o := btai.PresetScaleFree()
		o.Novelty = true
		return o
	}, looseLimit},
}

// seedResult is the outcome of 20 seeds of one configuration on one maze.
type seedResult struct {
	solved     int
	meanSteps  float64 // over the solved episodes
	msPerSteps float64 // planning time per action over all episodes
}

// runTable runs 20 seeds (k = 0..19, as btai run --seed k) of cfg on the
// maze mz with model p and shortest path sp, one after the other, each in
// its own copy of the maze (other goroutines run other configurations on
// the same maze).
func runTable(mz *envs.Maze, p *pomdp.Model, sp int, cfg resultsConfig) (seedResult, error) {
	o := cfg.opts()
	var r seedResult
	eps, err := runSeedEpisodes(context.Background(), p, &o, func() agent.Environment { return mz.Clone() }, 20, cfg.limit(sp), 1)
	if err != nil {
		return r, err
	}
	steps, solvedSteps, secs := 0, 0, 0.0
	for _, ep := range eps {
		steps += ep.NumActions()
		secs += ep.PlanningSeconds
		if ep.Solved {
			r.solved++
			solvedSteps += ep.NumActions()
		}
	}
	if r.solved > 0 {
		r.meanSteps = float64(solvedSteps) / float64(r.solved)
	}
	r.msPerSteps = 1000 * secs / float64(max(steps, 1))
	return r, nil
}

// TestResultsTable regenerates the results table of docs/btai.md. It runs
// only when BTAI_TABLE is set: "print" prints the table, "write" replaces
// it in docs/btai.md between its markers (make btai-table). It takes a few
// minutes; the mazes run in parallel, one per core.
func TestResultsTable(t *testing.T) {
	mode := os.Getenv("BTAI_TABLE")
	if mode == "" {
		t.Skip("set BTAI_TABLE=print or BTAI_TABLE=write (make btai-table)")
	}
	type job struct{ maze, cfg int }
	res := make([][]seedResult, len(resultsMazes))
	errs := make([][]error, len(resultsMazes))
	mazes := make([]*envs.Maze, len(resultsMazes))
	models := make([]*pomdp.Model, len(resultsMazes))
	sps := make([]int, len(resultsMazes))
	for i, name := range resultsMazes {
		res[i] = make([]seedResult, len(resultsConfigs))
		errs[i] = make([]error, len(resultsConfigs))
		mazes[i], models[i] = mazeModel(t, name)
		sps[i] = shortest(t, name)
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				res[j.maze][j.cfg], errs[j.maze][j.cfg] = runTable(mazes[j.maze], models[j.maze], sps[j.maze], resultsConfigs[j.cfg])
			}
		}()
	}
	for c := range resultsConfigs {
		for m := range resultsMazes {
			jobs <- job{m, c}
		}
	}
	close(jobs)
	wg.Wait()
	for m := range errs {
		for c, err := range errs[m] {
			if err != nil {
				t.Fatalf("%s, %s: %v", resultsMazes[m], resultsConfigs[c].name, err)
			}
		}
	}

	var b strings.Builder
	b.WriteString("| maze | shortest | H | rises |")
	for _, c := range resultsConfigs {
		fmt.Fprintf(&b, " %s |", c.name)
	}
	b.WriteString("\n|---|---|---|---|")
	for range resultsConfigs {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for m, name := range resultsMazes {
		mz := mazes[m]
		h := fmt.Sprint(horizonH(mz, 60))
		if h == "61" {
			h = "> 60"
		}
		lo, hi := rises(mz)
		r := fmt.Sprint(lo)
		if hi != lo {
			r = fmt.Sprintf("%d-%d", lo, hi)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s |", name, sps[m], h, r)
		for c := range resultsConfigs {
			x := res[m][c]
			if x.solved > 0 {
				fmt.Fprintf(&b, " %d/20 (%.1f), %.1f ms |", x.solved, x.meanSteps, x.msPerSteps)
			} else {
				fmt.Fprintf(&b, " 0/20, %.1f ms |", x.msPerSteps)
			}
		}
		b.WriteString("\n")
	}
	table := b.String()
	fmt.Print(table)
	if mode != "write" {
		return
	}
	replaceBetween(t, "results table", table)
}

// replaceBetween replaces the text between the markers "<!-- name: begin
// -->" and "<!-- name: end -->" of docs/btai.md by text.
func replaceBetween(t *testing.T, name, text string) {
	t.Helper()
	path := filepath.Join("..", "docs", "btai.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "<!-- "+name+": begin -->\n", "<!-- "+name+": end -->"
	i, j := strings.Index(string(doc), begin), strings.Index(string(doc), end)
	if i < 0 || j < i {
		t.Fatalf("%s: markers %q and %q not found", path, begin, end)
	}
	out := string(doc[:i+len(begin)]) + text + string(doc[j:])
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}
