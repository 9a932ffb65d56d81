package btai

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// scratch holds what evaluating one new node writes: its posteriors Q(S_I)
// and Q(O_I) and the buffers of local inference and the cost. Each
// goroutine that evaluates nodes has its own; the agent's is the calling
// goroutine's.
type scratch struct {
	qs, qo []float64
	pred   []float64 // B̄_u Q(S_parent) (sparse start)
	mpar   []float64 // the message B̊_I ⊙ Q(S_parent) to a new S_I, up to a constant
	base   []float64 // mpar plus ln Ā's column backgrounds (vmp)
	etaS   []float64 // natural parameters of Q(S_I)
	etaO   []float64 // natural parameters of Q(O_I)
	qf     []float64 // Ā Q(S) in the feef cost and novelty
	qw     []float64 // W Q(S) (novelty)
}

// newScratch returns the buffers for a model of ns states and no outcome
// entries (qw only with novelty).
func newScratch(ns, no int, novelty bool) scratch {
	f := make([]float64, 5*ns+3*no)
	take := func(n int) []float64 {
		v := f[:n:n]
		f = f[n:]
		return v
	}
	sc := scratch{
		qs: take(ns), pred: take(ns), mpar: take(ns), base: take(ns), etaS: take(ns),
		qo: take(no), etaO: take(no), qf: take(no),
	}
	if novelty {
		sc.qw = make([]float64, no)
	}
	return sc
}

// crewIteration is the shortest first iteration after which Plan
// spreads the children of the next ones over several goroutines: handing
// the children over and waiting for them costs about 1.5-2 µs an
// iteration here (a 4-state model planned 0.87 times as fast on two
// goroutines as on one, at 3 µs an iteration; an 8-state one 1.25 times
// as fast at 6 µs), docs/benchmarks.md, "Both cores in one BTAI plan".
const crewIteration = 6 * time.Microsecond

// SetJobs lets Plan evaluate the children of each iteration (the new node
// of every action below the selected leaf) on up to n goroutines (n < 1
// means 1): agent.Splitter. Each child's posteriors and cost are computed
// as one goroutine computes them, in its own buffers, and the tree grows
// in the same order, so the plans, the actions chosen and every number are
// the same for any n. Plan times its first iteration on one goroutine and
// goes on with one when that took less than 6 µs (where handing the
// children over costs about what it saves); it also uses one with a
// factorised model and with global inference, and Iterate always does.
func (a *Agent) SetJobs(n int) { a.jobs = max(1, n) }

// crew evaluates the children of a planning iteration on several
// goroutines during one Plan: the caller and len(mates) others.
//
// The handover is by atomics, not channels: a goroutine parked on a
// channel takes tens of microseconds to wake on this kind of machine, as
// long as the children it was to share (measured on the open 34 × 34
// maze: one child 34 µs, and with a channel per iteration two goroutines
// took 146 µs for four children against 139 µs for one). So a mate spins
// on the iteration counter between iterations (letting the process's
// other goroutines run, runtime.Gosched), and parks on its channel only
// after spinSpell without work (while the caller does something else), to
// be woken by the next iteration.
type crew struct {
	a     *Agent
	mates []*mate
	on    bool // between startCrew and stopCrew: iterate uses the crew
	plans int  // the Plans that used it (tests)

	gen  atomic.Uint64  // iterations posted; a mate works once per new value
	left atomic.Int32   // mates still working on the current iteration
	quit atomic.Bool    // stopCrew: the mates return at the next gen
	live sync.WaitGroup // the mates' goroutines, waited for by stopCrew

	// The current iteration: the parent's Q(S), the next action to take
	// and each action's error.
	qk   []float64
	next atomic.Int32
	errs []error
}

// mate is one of the crew's other goroutines with its buffers.
type mate struct {
	sc     scratch
	wake   chan struct{} // one token: a new gen while parked
	parked atomic.Bool
}

// spinSpell is how long a mate spins for the next iteration before it
// parks: longer than the part of an iteration the caller does alone
// (selection, propagation, a leaf's posterior computed again: up to a few
// hundred microseconds on the largest mazes), so that a mate does not
// park, and wake late, within one Plan.
const spinSpell = time.Millisecond

// crewJobs returns how many goroutines a Plan may evaluate children on:
// SetJobs's, at most one per action and per P (runtime.GOMAXPROCS), and
// 1 with a factorised model or global inference.
func (a *Agent) crewJobs() int {
	if a.fact != nil || a.opts.GlobalInference {
		return 1
	}
	return max(1, min(a.jobs, a.nu, runtime.GOMAXPROCS(0)))
}

// startCrew starts the goroutines of one Plan, jobs in all with the
// caller (jobs >= 2). stopCrew ends them.
func (a *Agent) startCrew(jobs int) {
	c := a.crew
	if c == nil || len(c.mates) != jobs-1 {
		c = &crew{a: a, errs: make([]error, a.nu)}
		for range jobs - 1 {
			c.mates = append(c.mates, &mate{sc: newScratch(a.ns, a.no, a.opts.Novelty), wake: make(chan struct{}, 1)})
		}
		a.crew = c
	}
	c.plans++
	c.quit.Store(false)
	c.live.Add(len(c.mates))
	for _, m := range c.mates {
		m.parked.Store(false)
		select {
		case <-m.wake: // a token the last Plan's mate did not need
		default:
		}
		go c.run(m, c.gen.Load())
	}
	c.on = true
}

// stopCrew ends the goroutines startCrew started and waits for them to
// return, so that the next Plan's mates, which reuse their buffers and
// channels, are the only ones.
func (a *Agent) stopCrew() {
	c := a.crew
	c.on = false
	c.quit.Store(true)
	c.post()
	c.live.Wait()
}

// post starts a new iteration for the mates, waking those parked.
func (c *crew) post() {
	c.gen.Add(1)
	for _, m := range c.mates {
		if m.parked.CompareAndSwap(true, false) {
			m.wake <- struct{}{}
		}
	}
}

// run is a mate's goroutine: a share of the children at each new gen
// after seen, until quit.
func (c *crew) run(m *mate, seen uint64) {
	defer c.live.Done()
	for {
		g := c.await(m, seen)
		if c.quit.Load() {
			return
		}
		seen = g
		c.share(&m.sc)
		c.left.Add(-1)
	}
}

// await returns the first gen after seen: it spins for spinSpell, then
// parks until post wakes it.
func (c *crew) await(m *mate, seen uint64) uint64 {
	start := time.Now()
	for i := 1; ; i++ {
		if g := c.gen.Load(); g != seen {
			return g
		}
		if i%256 != 0 {
			continue
		}
		runtime.Gosched() // other goroutines of the process first
		if time.Since(start) < spinSpell {
			continue
		}
		// Park: post either sees parked and sends a token, or posted
		// before, which the second look sees (then a token sent meanwhile
		// is taken, not left for the next park).
		m.parked.Store(true)
		if g := c.gen.Load(); g != seen {
			if !m.parked.CompareAndSwap(true, false) {
				<-m.wake
			}
			return g
		}
		<-m.wake
		if g := c.gen.Load(); g != seen {
			return g
		}
		// A token from the post of a gen this mate had already seen by
		// spinning, sent while it was parking again: park once more.
	}
}

// share evaluates children until none is left: each action in turn, taken
// from the shared counter, into sc, its Q(S) copied to a.kids and its cost
// to a.costs (the next statements of iterate read them).
func (c *crew) share(sc *scratch) {
	a := c.a
	ns := a.ns
	for {
		u := int(c.next.Add(1)) - 1
		if u >= a.nu {
			return
		}
		if err := a.infer(sc, c.qk, u); err != nil {
			c.errs[u] = err
			continue
		}
		c.errs[u] = nil
		a.costs[u] = a.cost(sc, sc.qs, sc.qo)
		copy(a.kids[u*ns:(u+1)*ns], sc.qs)
	}
}

// children evaluates every action's child below a parent with posterior
// qk on the crew, leaving each Q(S) in a.kids and each cost in a.costs,
// and returns the error of the first action that failed, as a loop over
// the actions in order would.
func (c *crew) children(qk []float64) error {
	c.qk = qk
	c.next.Store(0)
	c.left.Store(int32(len(c.mates)))
	c.post()
	c.share(&c.a.scratch)
	for i := 1; c.left.Load() != 0; i++ {
		if i%1024 == 0 {
			runtime.Gosched()
		}
	}
	c.qk = nil
	for _, err := range c.errs {
		if err != nil {
			return err
		}
	}
	return nil
}
