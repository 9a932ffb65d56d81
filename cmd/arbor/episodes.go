package main

import (
	"context"
	"fmt"
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

// startEpisodes starts workers goroutines that run the n episodes in
// groups of per consecutive episodes (n a multiple of per): a worker takes
// a group and runs run(ctx, w, e) for each of its episodes e, in order, on
// its own agent. Groups of one are the independent episodes of an agent
// that learns nothing; a longer group is one learning agent's episodes
// (--agents). The caller must call stop.
func startEpisodes[R any](ctx context.Context, n, per, workers int, run func(ctx context.Context, w, e int) R) *episodePool[R] {
	ctx, cancel := context.WithCancel(ctx)
	p := &episodePool[R]{results: make([]chan R, n), cancel: cancel}
	for i := range p.results {
		p.results[i] = make(chan R, 1)
	}
	next := make(chan int)
	go func() {
		defer close(next)
		for first := 1; first <= n; first += per {
			select {
			case next <- first:
			case <-ctx.Done():
				return
			}
		}
	}()
	for w := range workers {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for first := range next {
				for e := first; e < first+per; e++ {
					p.results[e-1] <- run(ctx, w, e)
				}
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

// agentEpisode splits the run's episode k (from 1) into its agent and the
// agent's own episode (both from 1), each agent running per episodes.
func agentEpisode(k, per int) (agent, episode int) {
	return (k-1)/per + 1, (k-1)%per + 1
}

// episodeLabel names the run's episode k for humans: "episode k", or with
// several agents "agent a episode e".
func episodeLabel(k, per, agents int) string {
	if agents == 1 {
		return fmt.Sprintf("episode %d", k)
	}
	a, e := agentEpisode(k, per)
	return fmt.Sprintf("agent %d episode %d", a, e)
}
