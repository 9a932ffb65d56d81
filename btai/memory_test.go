package btai_test

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// rssKB returns the resident set size from /proc/self/status, after
// returning freed memory to the OS.
func rssKB(t *testing.T) int {
	debug.FreeOSMemory()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Skip("no VmRSS")
	return 0
}

// TestMemoryFlat runs 1,000 action-perception cycles on 13.maze with the
// default options, the environment cycling back to the start whenever the
// agent reaches the exit (the agent is not reset, so its past keeps
// growing and is folded by Options.Window), and checks that RSS grows by
// less than 5 MB between cycle 100 and cycle 1,000.
func TestMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 planning cycles; skipped in -short mode")
	}
	mz, p := mazeModel(t, "13.maze")
	ag, err := btai.NewAgent(p, nil, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	obs := mz.Reset()
	if err := ag.Reset(ctx, obs); err != nil {
		t.Fatal(err)
	}
	var base int
	solved := 0
	for cycle := 1; cycle <= 1000; cycle++ {
		if err := ag.Plan(ctx); err != nil {
			t.Fatal(err)
		}
		a, err := ag.SelectAction()
		if err != nil {
			t.Fatal(err)
		}
		if obs, err = mz.Step(a); err != nil {
			t.Fatal(err)
		}
		if mz.Done() {
			solved++
			obs = mz.Reset()
		}
		if err := ag.Step(ctx, a, obs); err != nil {
			t.Fatal(err)
		}
		if cycle == 100 {
			base = rssKB(t)
		}
	}
	end := rssKB(t)
	t.Logf("RSS after 100 cycles %d kB, after 1000 %d kB; %d exits reached; %d variables in the graph", base, end, solved, len(ag.Graph().Variables()))
	if end-base > 5*1024 {
		t.Errorf("RSS grew by %d kB between cycles 100 and 1000, want < 5120", end-base)
	}
	if n := len(ag.Graph().Variables()); n > 3*ag.Options().Window+10 {
		t.Errorf("%d variables in the graph after 1000 cycles: the past is not folded", n)
	}
	if solved < 10 {
		t.Errorf("only %d exits reached in 1000 cycles", solved)
	}
}

// memoryProbe is set in the environment of the process that measures.
const memoryProbe = "ARBOR_BTAI_MEMORY_PROBE"

// TestEstimateBytesBoundsMemory builds the model of an open maze of 1,024
// states (its B alone is 8 × 5 × 1024² bytes = 41.9 MB), an agent and a
// plan of the default 1,000 iterations, and checks that the memory the Go
// runtime took from the system meanwhile (MemStats.Sys, which never
// shrinks: the peak) is at most btai.EstimateBytes for one agent, and
// that the estimate is not more than 3 times that. It also checks that the
// agent holds no dense copy of B beyond the past's: the live heap with the
// model and the planned agent is under 3 copies of B (the model's, the
// past graph's ln B, and the rest: 27 MB with 1,000 iterations).
//
// MemStats.Sys never shrinks, so the measurement runs in a process of its
// own (the test binary again, this test alone): in the package's process,
// what the tests before it took from the system would hide what it takes.
func TestEstimateBytesBoundsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("makes a 1,024-state maze's agent (seconds under the race detector)")
	}
	if os.Getenv(memoryProbe) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEstimateBytesBoundsMemory$", "-test.v")
		cmd.Env = append(os.Environ(), memoryProbe+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the measuring process: %v\n%s", err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "memory_test.go") {
				t.Log(strings.TrimSpace(line))
			}
		}
		return
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	mz, err := envs.ParseMaze(strings.NewReader(openMazeText(34)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := mz.POMDP(envs.DefaultNoise, envs.DefaultPrefPrecision)
	if err != nil {
		t.Fatal(err)
	}
	o := btai.DefaultOptions()
	ag, err := btai.NewAgent(m, &o, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ag.Reset(ctx, mz.Reset()); err != nil {
		t.Fatal(err)
	}
	if err := ag.Plan(ctx); err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	est := btai.EstimateBytes(m, o, 1)
	took := float64(after.Sys) - float64(before.Sys)
	live := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	d := 8 * 5 * 1024 * 1024.0
	t.Logf("1,024 states: runtime memory +%.1f MB, live heap +%.1f MB, estimate %.1f MB, B %.1f MB", took/1e6, live/1e6, est/1e6, d/1e6)
	if took > est || est > 3*max(took, 1) {
		t.Errorf("memory taken %.1f MB against an estimate of %.1f MB, want taken <= estimate <= 3 × taken", took/1e6, est/1e6)
	}
	if live > 3*d {
		t.Errorf("live heap %.1f MB with the model and the agent, want under 3 copies of B (%.1f MB)", live/1e6, 3*d/1e6)
	}
	runtime.KeepAlive(ag)
}

// TestAgentsLeaveTheModelAlone: agents read the model's A and B without
// copying them (pomdp.Model.SharedA, SharedB), so nothing they learn may
// be written there. Agents that learn A by novelty, and A and B from
// concentrations a and b (1.maze's model with a = 10 A, b = 10 B), plan
// and act 3 steps; the model's A and B are then the same, bit for bit.
func TestAgentsLeaveTheModelAlone(t *testing.T) {
	mz, p := mazeModel(t, "1.maze")
	sp := p.Spec()
	sp.ConcA, sp.ConcB = make([]float64, len(sp.A)), make([]float64, len(sp.B))
	for i, x := range sp.A {
		sp.ConcA[i] = 10 * x
	}
	for i, x := range sp.B {
		sp.ConcB[i] = 10 * x
	}
	learn, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, m := range []*pomdp.Model{p, learn} {
		a0, b0 := append([]float64(nil), m.SharedA(0)...), append([]float64(nil), m.SharedB(0)...)
		o := btai.DefaultOptions()
		o.Iterations, o.Novelty = 50, i == 0
		if i == 1 {
			o.Past = pomdp.PastVMP // learning B over the graph
		}
		ag, err := btai.NewAgent(m, &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		env := mz.Clone()
		obs := env.Reset()
		if err := ag.Reset(ctx, obs); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if err := ag.Plan(ctx); err != nil {
				t.Fatal(err)
			}
			u, err := ag.SelectAction()
			if err != nil {
				t.Fatal(err)
			}
			if obs, err = env.Step(u); err != nil {
				t.Fatal(err)
			}
			if err := ag.Step(ctx, u, obs); err != nil {
				t.Fatal(err)
			}
		}
		if err := ag.EndTrial(ctx); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a0, m.SharedA(0)) || !slices.Equal(b0, m.SharedB(0)) {
			t.Errorf("model %d: the agent changed the model's A or B", i)
		}
	}
}
