package btai_test

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/btai"
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
