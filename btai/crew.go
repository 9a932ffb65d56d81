package btai

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-ai/arbor/internal/spawn"
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
// children over costs about what it saves); after that it times blocks of
// iterations with the other goroutines and without, and goes on the
// faster way (on a loaded machine, one goroutine). It also uses one with
// a factorised model and with global inference, and Iterate always does.
func (a *Agent) SetJobs(n int) { a.jobs = max(1, n) }

// crew evaluates the children of a planning iteration on several
// goroutines during one Plan: the caller and len(mates) others.
//
// The handover is by atomics, not channels: a goroutine parked on a
// channel takes tens of microseconds to wake on this kind of machine, as
// long as the children it was to share (measured on the open 34 × 34
// maze: one child 34 µs, and with a channel per iteration two goroutines
// took 146 µs for four children against 139 µs for one). So a mate spins
// on the iteration word between iterations (letting the process's other
// goroutines run, runtime.Gosched), and parks on its channel only after
// spinSpell without work (while the caller does something else), to be
// woken by the next iteration.
//
// The caller waits for the children, not for the mates: each child is
// claimed by a compare-and-swap on one word holding the iteration and the
// next action, so a mate that comes late (not running, or still waking)
// finds nothing to claim, and one that comes after the iteration's end
// cannot claim a child of the next with the last one's parent. When the
// other core is busy the caller so does every child itself, at about the
// speed of one goroutine, instead of waiting for a mate to be scheduled.
type crew struct {
	a     *Agent
	mates []*mate
	on    bool   // between startCrew and stopCrew
	use   bool   // iterate evaluates the children on the crew (tune)
	plans int    // the Plans that used it (tests)
	gen   uint32 // the current iteration (the caller's copy)

	// tune's state: the iterations of the current block, its phase, the
	// blocks left before the next comparison, the last call, the block's
	// time so far and the last compared blocks' times per iteration with
	// the crew and without.
	n, phase, blocks       int
	last                   time.Time
	spent, withCrew, alone time.Duration

	// work is gen<<32 | the next action to claim; done counts the
	// children of the current iteration finished.
	work atomic.Uint64
	done atomic.Int32
	quit atomic.Bool    // stopCrew: the mates return at the next iteration
	rest atomic.Bool    // a block without the crew: the mates park at once
	live sync.WaitGroup // the mates' goroutines, waited for by stopCrew

	// The current iteration: the parent's Q(S) and each action's error;
	// a panic of a mate, raised again by the caller.
	qk    []float64
	errs  []error
	fault atomic.Pointer[mateFault]
}

// mateFault is a panic of a mate's goroutine, with its stack: the value
// the caller panics with. A panic with an error (a runtime.Error among
// them) unwraps to it.
type mateFault struct {
	value any
	stack []byte
}

func (f *mateFault) Error() string {
	return fmt.Sprintf("btai: a planning goroutine panicked: %v\n%s", f.value, f.stack)
}

func (f *mateFault) Unwrap() error {
	err, _ := f.value.(error)
	return err
}

// mate is one of the crew's other goroutines with its buffers.
type mate struct {
	sc     scratch
	wake   chan struct{} // one token: a new iteration while parked
	parked atomic.Bool
	crew   *crew  // the crew it serves (set as it starts)
	seen   uint32 // the iteration before its first (set as it starts)
}

// Run is the mate's goroutine (spawn.Task): startCrew starts it with
// spawn.Go, which unlike a go statement with arguments allocates no
// closure at each Plan.
func (m *mate) Run() { m.crew.run(m, m.seen) }

// spinSpell is how long a mate spins for the next iteration before it
// parks: longer than the part of an iteration the caller does alone
// (selection, propagation, a leaf's posterior computed again: up to a few
// hundred microseconds on the largest mazes), so that a mate does not
// park, and wake late, within one Plan.
const spinSpell = time.Millisecond

// crewOn reports whether a crew's goroutines are running (between
// startCrew and stopCrew).
func (a *Agent) crewOn() bool { return a.crew != nil && a.crew.on }

// crewJobs returns how many goroutines a Plan may evaluate children on:
// SetJobs's, at most one per action and per P (runtime.GOMAXPROCS), and
// 1 with a factorised model or global inference.
func (a *Agent) crewJobs() int {
	if a.fact != nil || a.opts.GlobalInference {
		return 1
	}
	return max(1, min(a.jobs, a.nu, runtime.GOMAXPROCS(0)))
}

// The phases of crew.tune.
const (
	probeCrew  = iota // a block with the crew, timed
	probeAlone        // a block without, timed
	exploit           // crewExploit blocks with the faster
)

// A block of crew.tune is at least crewBlock iterations and crewBlockTime
// (longer than the system's time slices, so that a block on a loaded
// machine sees both processes run); crewExploit is the blocks between
// two comparisons.
const (
	crewBlock     = 16
	crewBlockTime = 2 * time.Millisecond
	crewExploit   = 32
)

// tune decides, before each iteration (at now), whether the crew
// evaluates its children (use). The crew is not always faster: when other
// processes keep the cores busy, a mate that spins takes time from the
// caller, and one that is not running holds up the child it claimed
// (planning on two goroutines measured 2 to 3 times slower than on one on
// a loaded machine). So the iterations go in blocks: one block with the
// crew and one without are timed, the faster way (per iteration) does the
// next crewExploit blocks, and the two are timed again. A block counts the
// iterations between two calls within a Plan and runs on from one Plan to
// the next (a Plan may be shorter than a block). The mates park during a
// block without the crew. The plan is the same either way.
func (c *crew) tune(now time.Time) {
	if !c.last.IsZero() {
		// The iteration since the last call, in the same Plan.
		c.spent += now.Sub(c.last)
		c.n++
	}
	c.last = now
	if c.n < crewBlock || c.spent < crewBlockTime {
		return
	}
	d := c.spent / time.Duration(c.n)
	switch c.phase {
	case probeCrew:
		c.withCrew, c.phase = d, probeAlone
	case probeAlone:
		c.alone, c.phase, c.blocks = d, exploit, crewExploit
	default:
		if c.blocks--; c.blocks == 0 {
			c.phase = probeCrew
		}
	}
	c.n, c.spent = 0, 0
	c.choose()
}

// choose sets use for the phase, and rest to the contrary.
func (c *crew) choose() {
	c.use = c.phase == probeCrew || c.phase == exploit && c.withCrew < c.alone || c.a.crewAlways
	c.rest.Store(!c.use)
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
	c.fault.Store(nil)
	c.last = time.Time{} // the time since the last Plan is not an iteration's
	c.choose()
	c.live.Add(len(c.mates))
	for _, m := range c.mates {
		m.parked.Store(false)
		m.crew, m.seen = c, c.gen
		spawn.Go(m)
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
	c.post(uint64(a.nu)) // an iteration with nothing to claim
	c.live.Wait()
}

// post starts the next iteration with action next to be claimed first,
// waking the mates that parked.
func (c *crew) post(next uint64) {
	c.gen++
	c.work.Store(uint64(c.gen)<<32 | next)
	for _, m := range c.mates {
		if m.parked.CompareAndSwap(true, false) {
			m.wake <- struct{}{}
		}
	}
}

// run is a mate's goroutine: a share of the children of each iteration
// after seen, until quit. A panic is handed to the caller (children).
func (c *crew) run(m *mate, seen uint32) {
	defer c.live.Done()
	holding := false // a child claimed and not counted done
	defer func() {
		r := recover()
		if !holding {
			return
		}
		// A panic (or runtime.Goexit, r nil) with a child claimed: the
		// caller stops waiting for it and raises the fault.
		if r == nil {
			r = "runtime.Goexit"
		}
		c.fault.CompareAndSwap(nil, &mateFault{value: r, stack: debug.Stack()})
		c.done.Add(1)
	}()
	for {
		g := c.await(m, seen)
		if c.quit.Load() {
			return
		}
		seen = g
		c.share(g, &m.sc, &holding)
	}
}

// await returns the first iteration after seen: it spins for spinSpell,
// then parks until post wakes it.
func (c *crew) await(m *mate, seen uint32) uint32 {
	start := time.Now()
	for i := 1; ; i++ {
		if g := uint32(c.work.Load() >> 32); g != seen {
			return g
		}
		if i%256 != 0 {
			continue
		}
		runtime.Gosched() // other goroutines of the process first
		if !c.rest.Load() && time.Since(start) < spinSpell {
			continue
		}
		// Park: post either sees parked and sends a token, or posted
		// before, which the second look sees (then a token sent meanwhile
		// is taken, not left for the next park).
		m.parked.Store(true)
		if g := uint32(c.work.Load() >> 32); g != seen {
			if !m.parked.CompareAndSwap(true, false) {
				<-m.wake
			}
			return g
		}
		<-m.wake
		if g := uint32(c.work.Load() >> 32); g != seen {
			return g
		}
		// A token from the post of an iteration this mate had already
		// seen by spinning, sent while it was parking again: park once
		// more.
	}
}

// share evaluates the children of iteration g until none is left to
// claim: each action in turn, into sc, its Q(S) copied to a.kids and its
// cost to a.costs (the next statements of iterate read them). holding is
// true while a claimed child is not counted in done.
func (c *crew) share(g uint32, sc *scratch, holding *bool) {
	a := c.a
	ns := a.ns
	for {
		w := c.work.Load()
		u := int(uint32(w))
		if uint32(w>>32) != g || u >= a.nu {
			return
		}
		if !c.work.CompareAndSwap(w, w+1) {
			continue
		}
		// Claimed: the caller waits for this child, so c.qk is the
		// iteration's.
		*holding = true
		if c.errs[u] = a.child(sc, c.qk, u); c.errs[u] == nil {
			copy(a.kids[u*ns:(u+1)*ns], sc.qs)
		}
		*holding = false
		c.done.Add(1)
	}
}

// children evaluates every action's child below a parent with posterior
// qk on the crew, leaving each Q(S) in a.kids and each cost in a.costs,
// and returns the error of the first action that failed, as a loop over
// the actions in order would.
func (c *crew) children(qk []float64) error {
	c.qk = qk
	c.done.Store(0)
	c.post(0)
	var holding bool
	c.share(c.gen, &c.a.sc, &holding)
	nu := int32(c.a.nu)
	for i := 1; c.done.Load() < nu && c.fault.Load() == nil; i++ {
		if i%1024 == 0 {
			runtime.Gosched()
		}
	}
	if f := c.fault.Load(); f != nil {
		panic(f)
	}
	c.qk = nil
	for _, err := range c.errs {
		if err != nil {
			return err
		}
	}
	return nil
}
