package spawn

import (
	"sync"
	"testing"
)

// counter is a Task that adds its value to a total.
type counter struct {
	total *int64
	mu    *sync.Mutex
	wg    *sync.WaitGroup
	v     int64
}

func (c *counter) Run() {
	defer c.wg.Done()
	c.mu.Lock()
	*c.total += c.v
	c.mu.Unlock()
}

// TestGoRunsEveryTask: more tasks than the channel holds, started from
// several goroutines at once, each run exactly once (the total is the sum
// 1 + 2 + ... + n).
func TestGoRunsEveryTask(t *testing.T) {
	const n, starters = 2000, 8
	var total int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	tasks := make([]counter, n)
	wg.Add(n)
	var start sync.WaitGroup
	for s := range starters {
		start.Add(1)
		go func() {
			defer start.Done()
			for i := s; i < n; i += starters {
				tasks[i] = counter{total: &total, mu: &mu, wg: &wg, v: int64(i + 1)}
				Go(&tasks[i])
			}
		}()
	}
	start.Wait()
	wg.Wait()
	if want := int64(n * (n + 1) / 2); total != want {
		t.Fatalf("total %d, want %d", total, want)
	}
}

// BenchmarkGo: one task started and awaited; 0 allocations of its own
// (a go statement with an argument makes one).
func BenchmarkGo(b *testing.B) {
	var total int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	c := &counter{total: &total, mu: &mu, wg: &wg, v: 1}
	b.ReportAllocs()
	for b.Loop() {
		wg.Add(1)
		Go(c)
		wg.Wait()
	}
}
