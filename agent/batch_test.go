package agent_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/arbor-ai/arbor/agent"
)

// TestRunBatch: results come back in index order for any number of
// workers (each call returns i²); at most `workers` calls run at once; an
// error stops the batch and is reported with the lowest failing index; a
// done context gives ctx.Err() and index -1.
func TestRunBatch(t *testing.T) {
	for _, workers := range []int{-1, 1, 2, 5, 100} {
		var running, peak atomic.Int32
		got, i, err := agent.RunBatch(context.Background(), 40, workers, func(_ context.Context, i int) (int, error) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			defer running.Add(-1)
			return i * i, nil
		})
		if err != nil || i != -1 {
			t.Fatalf("workers %d: %v at %d", workers, err, i)
		}
		for k, v := range got {
			if v != k*k {
				t.Errorf("workers %d: result %d is %d, want %d", workers, k, v, k*k)
			}
		}
		if p := int(peak.Load()); p > max(1, min(workers, 40)) {
			t.Errorf("workers %d: %d calls at once", workers, p)
		}
	}
	boom := errors.New("boom")
	_, i, err := agent.RunBatch(context.Background(), 10, 1, func(_ context.Context, i int) (int, error) {
		if i >= 3 {
			return 0, fmt.Errorf("call %d: %w", i, boom)
		}
		return i, nil
	})
	if i != 3 || !errors.Is(err, boom) {
		t.Errorf("failing from 3 on: index %d, %v; want 3 and boom", i, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, i, err := agent.RunBatch(ctx, 10, 2, func(ctx context.Context, i int) (int, error) { return i, nil }); i != -1 || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: index %d, %v", i, err)
	}
}
