//go:build !race

package btai

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// TestCrewPlanAllocs: Plans on two goroutines make no allocation of their
// own once the crew's buffers exist: a mate's goroutine starts without a
// closure (mate.Run, through spawn.Go). testing.AllocsPerRun runs on one P, where no crew
// starts, and the process's count (runtime.MemStats) holds the runtime's
// own goroutine descriptors and channel waiters, made while its pools
// fill, so the test counts the allocations of this package's code in the
// heap profile, at a sampling rate of 1, over 50 Plans. (Not under the
// race detector, which allocates.)
func TestCrewPlanAllocs(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one P: no mate")
	}
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	a := openMazeAgent(t, 10, 20)
	a.crewIteration, a.crewAlways = 0, true
	a.SetJobs(2)
	ctx := context.Background()
	if err := a.Plan(ctx); err != nil {
		t.Fatal(err)
	}
	const plans = 50
	before := ownAllocs()
	for range plans {
		if err := a.Plan(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := ownAllocs() - before; n != 0 {
		t.Errorf("%d allocations by btai's code in %d Plans with a crew, want 0", n, plans)
	}
	if a.crew == nil || a.crew.plans != plans+1 {
		t.Fatal("the crew did not plan")
	}
}

// ownAllocs returns how many objects the heap profile counts as allocated
// under a function of this package (tests aside), leaving out the
// runtime's goroutine descriptors and channel waiters. The profile is of
// the last completed collection cycles, hence the collections first.
func ownAllocs() int64 {
	for range 3 {
		runtime.GC()
	}
	n, _ := runtime.MemProfile(nil, true)
	recs := make([]runtime.MemProfileRecord, n+64)
	n, _ = runtime.MemProfile(recs, true)
	var total int64
	for _, r := range recs[:n] {
		frames := runtime.CallersFrames(r.Stack())
		ours := false
		for {
			f, more := frames.Next()
			switch name := f.Function; {
			case name == "runtime.malg" || name == "runtime.acquireSudog":
				ours = false
				more = false
			case strings.HasPrefix(name, "github.com/arbor-ai/arbor/btai.") && !strings.Contains(name, ".Test") && !strings.Contains(name, "ownAllocs"):
				ours = true
			}
			if !more {
				break
			}
		}
		if ours {
			total += r.AllocObjects
		}
	}
	return total
}
