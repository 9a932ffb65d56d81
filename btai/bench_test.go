package btai_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// benchPlan measures planning on 1.maze from the start state: ns/op is the
// time of one planning iteration (selection, expansion of the 5 actions,
// inference, cost, propagation), amortised over a tree of `iterations`
// iterations that is then discarded.
func benchPlan(b *testing.B, iterations int, inf btai.Inference) {
	o := btai.DefaultOptions()
	o.Iterations, o.Inference = iterations, inf
	benchPlanOpts(b, &o)
}

func benchPlanOpts(b *testing.B, o *btai.Options) {
	mz, p := mazeModel(b, "1.maze")
	benchAgentPlans(b, p, mz.Reset(), o, 1)
}

// benchAgentPlans times the plans of an agent with options o on model m
// from observation obs, with SetJobs(jobs), after one untimed plan: it
// makes what a process makes once (the exponential's tables,
// internal/fastexp), the model's set-up and the tree's buffers. It
// reports µs and CPU-µs per iteration (o.Iterations a plan).
func benchAgentPlans(b *testing.B, m *pomdp.Model, obs int, o *btai.Options, jobs int) {
	ag, err := btai.NewAgent(m, o, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	ag.SetJobs(jobs)
	ctx := context.Background()
	if err := ag.Reset(ctx, obs); err != nil {
		b.Fatal(err)
	}
	if err := ag.Plan(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	cpu := cpuTime()
	for b.Loop() {
		if err := ag.Plan(ctx); err != nil {
			b.Fatal(err)
		}
		n++
	}
	cpu = cpuTime() - cpu
	iterations := ag.Options().Iterations
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(n*iterations), "µs/iteration")
	b.ReportMetric(float64(cpu.Microseconds())/float64(n*iterations), "cpu-µs/iteration")
}

func BenchmarkPlanVMP100(b *testing.B)          { benchPlan(b, 100, btai.VMP) }
func BenchmarkPlanVMP10000(b *testing.B)        { benchPlan(b, 10000, btai.VMP) }
func BenchmarkPlanPredictive100(b *testing.B)   { benchPlan(b, 100, btai.Predictive) }
func BenchmarkPlanPredictive1000(b *testing.B)  { benchPlan(b, 1000, btai.Predictive) }
func BenchmarkPlanPredictive10000(b *testing.B) { benchPlan(b, 10000, btai.Predictive) }
func BenchmarkPlanVMP1000(b *testing.B)         { benchPlan(b, 1000, btai.VMP) }

// BenchmarkPlanPaper100 is the paper preset (unexplored-first selection,
// 100 iterations): the selection rule's share of an iteration.
func BenchmarkPlanPaper100(b *testing.B) {
	o := btai.PresetPaper()
	benchPlanOpts(b, &o)
}

// BenchmarkPlanNovelty1000 is the default preset with novelty: the cost of
// the novelty term per iteration (two more |O|×|S| products per new node).
func BenchmarkPlanNovelty1000(b *testing.B) {
	o := btai.DefaultOptions()
	o.Novelty = true
	benchPlanOpts(b, &o)
}

// BenchmarkPlanMaterialize: a 100-iteration plan on 1.maze followed by
// Tree(), which adds the planning tree's 500 S_I and O_I to the graph
// (what `arbor btai plan` and --dot pay on top of planning); compare with
// BenchmarkPlanVMP100.
func BenchmarkPlanMaterialize(b *testing.B) {
	mz, p := mazeModel(b, "1.maze")
	o := btai.PresetPaper()
	ag, err := btai.NewAgent(p, &o, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := ag.Reset(ctx, mz.Reset()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := ag.Plan(ctx); err != nil {
			b.Fatal(err)
		}
		if n := len(ag.Tree().Nodes); n != 501 {
			b.Fatalf("%d nodes", n)
		}
	}
}

// openMazeText is an n×n open maze file (btai.OpenMazeText, shared with
// the package's internal tests).
var openMazeText = btai.OpenMazeText

// scaleMazes are the mazes of BenchmarkPlanScale: open n×n mazes of 100
// to 4,096 states and random ones (walls with probability 0.25, drawn by
// randomMaze until E can be reached) of about 100 to 4,000.
func scaleMazes(b testing.TB) []struct {
	name string
	mz   *envs.Maze
} {
	var out []struct {
		name string
		mz   *envs.Maze
	}
	for _, n := range []int{12, 22, 34, 52, 66} {
		mz, err := envs.ParseMaze(strings.NewReader(openMazeText(n)))
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, struct {
			name string
			mz   *envs.Maze
		}{fmt.Sprintf("open/%d", mz.NumStates()), mz})
	}
	rng := rand.New(rand.NewPCG(42, 1))
	for _, n := range []int{14, 25, 39, 60, 75} {
		var mz *envs.Maze
		for mz == nil {
			mz = randomMaze(b, rng, n, n, 0.25)
		}
		out = append(out, struct {
			name string
			mz   *envs.Maze
		}{fmt.Sprintf("random/%d", mz.NumStates()), mz})
	}
	return out
}

// BenchmarkPlanScale measures one planning step of the default options
// (1,000 iterations) from the start of open and random mazes of 100 to
// 4,096 states: µs/iteration is the time of one iteration, setup-s the
// agent's first Plan beyond its iterations (the per-model set-up of
// prepareFuture: Ā B̄_u and the split ln B̄_u, done once for a fixed
// model), heap-MB the live heap with the agent and its tree (the model's
// dense B included, 8·5·|S|² bytes). The cpu- figures are the process's
// CPU time over the same work, which a loaded machine changes less than
// the wall time. B/op and allocs/op are per planning step. Run the big
// ones with -benchtime=1x (docs/benchmarks.md).
func BenchmarkPlanScale(b *testing.B) {
	for _, c := range scaleMazes(b) {
		b.Run(c.name, func(b *testing.B) {
			m, err := c.mz.POMDP(envs.DefaultNoise, envs.DefaultPrefPrecision)
			if err != nil {
				b.Fatal(err)
			}
			o := btai.DefaultOptions()
			ag, err := btai.NewAgent(m, &o, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if err := ag.Reset(ctx, c.mz.Reset()); err != nil {
				b.Fatal(err)
			}
			start, cpu := time.Now(), cpuTime()
			if err := ag.Plan(ctx); err != nil {
				b.Fatal(err)
			}
			first, firstCPU := time.Since(start), cpuTime()-cpu
			start, cpu = time.Now(), cpuTime()
			if err := ag.Plan(ctx); err != nil {
				b.Fatal(err)
			}
			second, secondCPU := time.Since(start), cpuTime()-cpu
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			cpu = cpuTime()
			for b.Loop() {
				if err := ag.Plan(ctx); err != nil {
					b.Fatal(err)
				}
				n++
			}
			cpu = cpuTime() - cpu
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(n*o.Iterations), "µs/iteration")
			b.ReportMetric(float64(cpu.Microseconds())/float64(n*o.Iterations), "cpu-µs/iteration")
			b.ReportMetric(max(first-second, 0).Seconds(), "setup-s")
			b.ReportMetric(max(firstCPU-secondCPU, 0).Seconds(), "setup-cpu-s")
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
		})
	}
}

// TestWriteScaleMazes writes the mazes of BenchmarkPlanScale to the
// directory named by BTAI_SCALE_MAZES, as open-<states>.maze and
// random-<states>.maze, for the peak RSS of arbor btai run on them
// (docs/benchmarks.md, "BTAI at scale"). Skipped without it.
func TestWriteScaleMazes(t *testing.T) {
	dir := os.Getenv("BTAI_SCALE_MAZES")
	if dir == "" {
		t.Skip("set BTAI_SCALE_MAZES to a directory")
	}
	for _, c := range scaleMazes(t) {
		name := strings.ReplaceAll(c.name, "/", "-") + ".maze"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(c.mz.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkPlanJobs is one planning step of the default options (1,000
// iterations) from the start of 1.maze and of open mazes of 100 to 4,096
// states, with one goroutine and with two (SetJobs: the children of an
// iteration on both); the plans are the same (TestCrewSameAsOne).
func BenchmarkPlanJobs(b *testing.B) {
	mazes := []struct {
		name string
		mz   *envs.Maze
	}{}
	mz, err := envs.LoadMaze(filepath.Join("..", "envs", "testdata", "mazes", "1.maze"))
	if err != nil {
		b.Fatal(err)
	}
	mazes = append(mazes, struct {
		name string
		mz   *envs.Maze
	}{"1.maze", mz})
	for _, c := range scaleMazes(b) {
		if strings.HasPrefix(c.name, "open/") {
			mazes = append(mazes, c)
		}
	}
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("tmaze/jobs%d", jobs), func(b *testing.B) {
			m, err := pomdp.Load(filepath.Join("..", "examples", "pomdp", "tmaze.json"))
			if err != nil {
				b.Fatal(err)
			}
			o := btai.DefaultOptions()
			o.Iterations = 200
			benchAgentPlans(b, m, 0, &o, jobs)
		})
	}
	for _, c := range mazes {
		for _, jobs := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/jobs%d", c.name, jobs), func(b *testing.B) {
				m, err := c.mz.POMDP(envs.DefaultNoise, envs.DefaultPrefPrecision)
				if err != nil {
					b.Fatal(err)
				}
				o := btai.DefaultOptions()
				benchAgentPlans(b, m, c.mz.Reset(), &o, jobs)
			})
		}
	}
}
