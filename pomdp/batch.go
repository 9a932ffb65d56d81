package pomdp

import (
	"context"
	"errors"
	"sync"
)

// RunBatch calls run(ctx, i) for i = 0..n-1 on at most workers goroutines
// (at least one) and returns the results in order of i. It is the worker
// pool under both agents' RunTrials: each call must own what it mutates
// (its agent, environment and random stream), so the results do not
// depend on the number of workers.
//
// The first error stops the batch: calls not yet started are skipped, the
// context of those running is cancelled, and RunBatch returns that error
// (not the cancellations it caused) with its call's index. When ctx is
// done before every call ran, it returns ctx.Err() and index -1.
func RunBatch[T any](ctx context.Context, n, workers int, run func(ctx context.Context, i int) (T, error)) (results []T, failed int, err error) {
	workers = max(1, min(workers, n))
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results = make([]T, n)
	var (
		mu       sync.Mutex
		firstErr error
	)
	failed = -1
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var err error
				results[i], err = run(ctx, i)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr, failed = err, i
						cancel()
					}
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	// A call that failed because the caller's ctx ended reports that end.
	if firstErr != nil && (parent.Err() == nil || !errors.Is(firstErr, parent.Err())) {
		return results, failed, firstErr
	}
	if err := parent.Err(); err != nil {
		return results, -1, err // some calls were not made
	}
	return results, -1, nil
}
