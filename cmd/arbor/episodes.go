package main

import (
	"context"
	"sync"
)

// episodePool runs the episodes 1..n of aci run or btai run on a fixed
// number of workers and hands out their results in episode order, so that
// the output is the same whatever the number of workers.
type episodePool[R any] struct {
	results []chan R
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// startEpisodes starts workers goroutines; worker w runs run(ctx, w, e) for
// each episode e it takes (episodes are taken in increasing order). The
// caller must call stop.
func startEpisodes[R any](ctx context.Context, n, workers int, run func(ctx context.Context, w, e int) R) *episodePool[R] {
	ctx, cancel := context.WithCancel(ctx)
	p := &episodePool[R]{results: make([]chan R, n), cancel: cancel}
	for i := range p.results {
		p.results[i] = make(chan R, 1)
	}
	next := make(chan int)
	go func() {
		defer close(next)
		for e := 1; e <= n; e++ {
			select {
			case next <- e:
			case <-ctx.Done():
				return
			}
		}
	}()
	for w := range workers {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for e := range next {
				p.results[e-1] <- run(ctx, w, e)
			}
		}()
	}
	return p
}

// result returns the result of episode e (from 1), waiting for it; ok is
// false when ctx is done first. An episode that has finished is returned
// even after ctx is done, so that Ctrl-C loses no finished work.
func (p *episodePool[R]) result(ctx context.Context, e int) (r R, ok bool) {
	select {
	case r = <-p.results[e-1]:
		return r, true
	default:
	}
	select {
	case r = <-p.results[e-1]:
		return r, true
	case <-ctx.Done():
		return r, false
	}
}

// stop cancels the episodes that have not finished and waits for the
// workers (a --dot file being written is never left half-written).
func (p *episodePool[R]) stop() {
	p.cancel()
	p.wg.Wait()
}
