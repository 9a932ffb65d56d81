package main

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"
)

// heapSampler is a standard output that measures the live heap (after a
// collection) every every-th line written, and keeps the largest.
type heapSampler struct {
	every, lines int
	peak         uint64
}

func (h *heapSampler) Write(p []byte) (int, error) {
	h.lines += bytes.Count(p, []byte{'\n'})
	if h.lines >= h.every {
		h.lines = 0
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapAlloc)
	}
	return len(p), nil
}

// retained runs arbor with args plus --episodes n and returns the largest
// live heap seen while it wrote its records.
func retained(t *testing.T, n int, args ...string) uint64 {
	t.Helper()
	h := &heapSampler{every: max(n/20, 1)}
	var errb bytes.Buffer
	if code := run(append(args, "--episodes", strconv.Itoa(n), "--json"), h, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	return h.peak
}

// TestRunMemoryFlat: the memory a run retains does not grow with its
// episodes: the live heap while writing 10× more episodes stays within
// 1.5× (plus 1 MiB for the collector's noise) for the classic agent on the
// tiger problem and for BTAI learning the T-maze's context across
// episodes. (docs/reliability.md gives the peak RSS of the full-size runs,
// 10^5 and 10^4 episodes.)
func TestRunMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 5,500 episodes (about 16 s); CI runs it without -short")
	}
	plot := t.TempDir() + "/p.svg"
	for _, c := range []struct {
		name  string
		small int
		args  []string
	}{
		{"aci tiger", 200, []string{"aci", "run", "--model", "../../examples/pomdp/tiger.json", "--horizon", "3", "--jobs", "2"}},
		// --plot keeps the first episode and the curves' points, at most
		// 1,000 of them whatever the episodes.
		{"aci tiger --plot", 200, []string{"aci", "run", "--model", "../../examples/pomdp/tiger.json", "--horizon", "3", "--jobs", "2", "--plot", plot}},
		{"btai t-maze learning", 100, []string{"btai", "run", "--model", "../../examples/pomdp/tmaze.json", "--iterations", "100", "--steps", "3", "--jobs", "2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			small := retained(t, c.small, c.args...)
			large := retained(t, 10*c.small, c.args...)
			t.Logf("%d episodes: %.2f MiB live; %d episodes: %.2f MiB", c.small, float64(small)/(1<<20), 10*c.small, float64(large)/(1<<20))
			if float64(large) > 1.5*float64(small)+(1<<20) {
				t.Errorf("the live heap grows with the episodes: %d B at %d, %d B at %d", small, c.small, large, 10*c.small)
			}
		})
	}
}
