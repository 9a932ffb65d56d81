package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// RunBatch calls run(ctx, i) for i = 0..n-1 on at most workers goroutines
// (at least one) and returns the results in order of i, all at once (see
// RunOrdered to write them as they come): each call must own what it mutates
// (its agent, environment and random stream), so the results do not
// depend on the number of workers.
//
// The first error stops the batch: calls not yet started are skipped, the
// context of those running is cancelled, and RunBatch returns that error
// (not the cancellations it caused) with its call's index. When ctx is
// done before every call ran, it returns ctx.Err() and index -1.
//
// A negative n or a nil run is an error (index -1); a nil ctx is
// context.Background().
func RunBatch[T any](ctx context.Context, n, workers int, run func(ctx context.Context, i int) (T, error)) (results []T, failed int, err error) {
	switch {
	case n < 0:
		return nil, -1, fmt.Errorf("agent: RunBatch: n = %d, want >= 0", n)
	case run == nil:
		return nil, -1, errors.New("agent: RunBatch: nil run")
	}
	if ctx == nil {
		ctx = context.Background()
	}
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

// RunOrdered runs the units 0..n-1 on at most workers goroutines (at least
// one) in groups of per consecutive units (n need not be a multiple of
// per): a worker takes a group and calls run(ctx, w, i) for each of its
// units i in order, w being the worker's index (0..workers-1), so that a
// group can share state owned by its worker (one learning agent's trials).
// emit is called from the calling goroutine with each result in unit
// order, as soon as it and every earlier one are ready, so that output can
// be written while later units run. At most 2·workers groups are started
// and not yet emitted: memory is bounded by that, whatever n and however
// slowly emit writes.
//
// The first error (a unit's, in unit order, or emit's) stops the batch:
// units not started are skipped, those running are cancelled, and
// RunOrdered returns a *UnitError naming the unit (emit's errors are
// returned as they are). When ctx is done first, every unit that finished
// before is still emitted (no finished work is lost) and ctx.Err() is
// returned.
//
// A negative n or a nil run or emit is an error; per and workers below 1
// count as 1, and a nil ctx is context.Background().
func RunOrdered[R any](ctx context.Context, n, per, workers int, run func(ctx context.Context, w, i int) (R, error), emit func(i int, r R) error) error {
	switch {
	case n < 0:
		return fmt.Errorf("agent: RunOrdered: n = %d, want >= 0", n)
	case run == nil:
		return errors.New("agent: RunOrdered: nil run")
	case emit == nil:
		return errors.New("agent: RunOrdered: nil emit")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if n == 0 {
		return ctx.Err()
	}
	per = max(per, 1)
	groups := (n + per - 1) / per
	workers = max(1, min(workers, groups))
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	type result struct {
		r   R
		err error
	}
	var (
		mu    sync.Mutex
		ready = sync.NewCond(&mu)
		done  = map[int]result{} // finished and not yet emitted
	)
	slots := make(chan struct{}, 2*workers) // groups started and not yet emitted
	next := make(chan int)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	// A done parent context wakes the emitter.
	stopWake := context.AfterFunc(parent, func() {
		mu.Lock()
		ready.Broadcast()
		mu.Unlock()
	})
	defer stopWake()
	go func() {
		defer close(next)
		for first := 0; first < n; first += per {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- first:
			case <-ctx.Done():
				return
			}
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first := range next {
				for i := first; i < min(first+per, n); i++ {
					var res result
					if err := ctx.Err(); err != nil {
						res.err = err
					} else {
						res.r, res.err = run(ctx, w, i)
					}
					mu.Lock()
					done[i] = res
					ready.Broadcast()
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		mu.Lock()
		res, ok := done[i]
		for !ok && parent.Err() == nil {
			ready.Wait()
			res, ok = done[i]
		}
		delete(done, i)
		mu.Unlock()
		if !ok {
			return parent.Err()
		}
		if res.err != nil {
			if perr := parent.Err(); perr != nil && errors.Is(res.err, perr) {
				return perr
			}
			return &UnitError{Unit: i, Err: res.err}
		}
		if err := emit(i, res.r); err != nil {
			return err
		}
		if (i+1)%per == 0 || i == n-1 {
			<-slots // the group is emitted: another may start
		}
	}
	return nil
}

// UnitError is the error of one unit of RunOrdered.
type UnitError struct {
	Unit int
	Err  error
}

func (e *UnitError) Error() string { return fmt.Sprintf("unit %d: %v", e.Unit, e.Err) }
func (e *UnitError) Unwrap() error { return e.Err }
