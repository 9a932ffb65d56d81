package aci

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/arbor-ai/arbor/internal/spawn"
	"github.com/arbor-ai/arbor/pomdp"
)

// The policy walk split across goroutines. The |U|^T policies are cut into
// chunks that depend on the model and the horizon only: the subtrees under
// the |U|^L prefixes of length L (chunkDepth). Workers take chunks in turn
// and each walks its chunk depth first (dfs.sub); what is summed over
// policies is summed per chunk, and the chunks' sums are added in chunk
// order afterwards. Every policy's G is the same bit for bit in any chunk,
// and the chunks are the same for any number of workers, so the results
// never depend on the jobs.

// parallelWork is the work (multiply-adds, as EstimatePlanSeconds counts
// them) of a walk below which it is one chunk: about 4 ms, where starting
// goroutines would cost more than it saves.
const parallelWork = 1 << 22

// minChunks is the fewest chunks a walk of at least parallelWork is cut
// into: with 64 or more, two or three workers finish within about a chunk
// of each other (5 chunks of one first action each would leave a worker
// with 3 against 2).
const minChunks = 64

// chunkDepth returns the length L of the prefixes that cut the policies of
// length horizon of model m into chunks: 0 (the whole tree is one chunk)
// for a walk under parallelWork, otherwise the smallest L with
// |U|^L >= minChunks, at most horizon.
func chunkDepth(m *pomdp.Model, horizon int) int {
	nu := float64(m.NumActions())
	nodes, level := 0.0, 1.0
	for range horizon {
		level *= nu
		nodes += level
	}
	if nu < 2 || nodes*m.StepWork() < parallelWork {
		return 0
	}
	L, n := 0, 1.0
	for L < horizon && n < minChunks {
		L++
		n *= nu
	}
	return L
}

// numChunks returns |U|^L.
func numChunks(nu, L int) int {
	n := 1
	for range L {
		n *= nu
	}
	return n
}

// walker scores every policy of one model, belief and horizon on up to
// jobs goroutines. Its dfs are kept, so that a walker used again (an
// agent's next decision) allocates nothing but its goroutines.
type walker struct {
	walks []*dfs
	next  atomic.Int64 // the next chunk to walk
	stop  atomic.Bool  // a worker failed
	errs  []error      // per worker
	wg    sync.WaitGroup
	ps    *PolicySet // what fill writes into
	fill  visitor    // filler's visitor, made once
	tasks []walkTask // per worker: what run hands it
}

// walkTask is worker j's part of one run (spawn.Task): started by
// spawn.Go, which unlike a go statement with arguments allocates no
// closure at each decision.
type walkTask struct {
	wk    *walker
	j     int
	ctx   context.Context
	L, nc int
	v     visitor
}

// Run walks the task's chunks (walker.work).
func (t *walkTask) Run() { t.wk.work(t.ctx, t.j, t.L, t.nc, t.v) }

// filler returns the visitor that writes every policy's G, risk,
// ambiguity and novelty into ps (evaluatePolicies): one function value
// kept by the walker, so that a walk allocates none.
func (wk *walker) filler(ps *PolicySet) visitor {
	wk.ps = ps
	if wk.fill == nil {
		wk.fill = func(_, _, i int, r, a, nv float64) {
			ps := wk.ps
			ps.G[i] = r + a - nv
			ps.Risk[i] = r
			ps.Ambiguity[i] = a
			if ps.Novelty != nil {
				ps.Novelty[i] = nv
			}
		}
	}
	return wk.fill
}

// reset makes the walker ready for jobs workers on m from qs.
func (wk *walker) reset(m *pomdp.Model, qs []float64, horizon int, w []float64, jobs int) {
	jobs = max(jobs, 1)
	for len(wk.walks) < jobs {
		wk.walks = append(wk.walks, nil)
		wk.errs = append(wk.errs, nil)
	}
	for j := range jobs {
		d := wk.walks[j]
		switch {
		case d == nil || d.horizon != horizon:
			d = newDFS(m, qs, horizon, w)
			wk.walks[j] = d
		case d.st.Model() != m:
			// Another model of the same sizes (the next trial's
			// expectation of a learned one) keeps the buffers.
			if !d.st.Retarget(m) {
				d = newDFS(m, qs, horizon, w)
				wk.walks[j] = d
			} else {
				d.checkEvery = checkInterval(m.StepWork())
			}
		}
		d.w = w
		copy(d.bel, qs)
		d.reused = 0
	}
}

// run walks every policy of the reset walker: chunks of depth L
// (chunkDepth), v(j, c, i, ...) called by worker j, in 0..jobs-1,
// for policy i of chunk c. Each worker sees its chunks' policies in
// lexicographic order, the chunks in increasing order; worker 0 is the
// calling goroutine. It returns the first error of a worker (ctx's).
func (wk *walker) run(ctx context.Context, L, jobs int, v visitor) error {
	nc := numChunks(wk.walks[0].st.Model().NumActions(), L)
	jobs = max(1, min(jobs, nc))
	wk.next.Store(0)
	wk.stop.Store(false)
	for len(wk.tasks) < jobs {
		wk.tasks = append(wk.tasks, walkTask{wk: wk, j: len(wk.tasks)})
	}
	wk.wg.Add(jobs)
	for j := range jobs {
		t := &wk.tasks[j]
		t.ctx, t.L, t.nc, t.v = ctx, L, nc, v
		if j > 0 {
			spawn.Go(t)
		}
	}
	defer func() {
		// Should the caller's worker panic, the others stop at their next
		// chunk and are done before the walker can be used again.
		wk.stop.Store(true)
		wk.wg.Wait()
	}()
	wk.tasks[0].Run()
	wk.wg.Wait()
	for j := range jobs {
		wk.tasks[j].ctx, wk.tasks[j].v = nil, nil // kept by no one past the walk
	}
	for j, err := range wk.errs[:jobs] {
		wk.errs[j] = nil
		if err != nil {
			return err
		}
	}
	return nil
}

// work is worker j of run: it walks the next chunk not taken until there
// is none or a worker has failed.
func (wk *walker) work(ctx context.Context, j, L, nc int, v visitor) {
	defer wk.wg.Done()
	d := wk.walks[j]
	for !wk.stop.Load() {
		c := int(wk.next.Add(1) - 1)
		if c >= nc {
			return
		}
		err := ctx.Err()
		if err == nil {
			err = d.sub(ctx, L, c, j, v)
		}
		if err != nil {
			wk.errs[j] = err
			wk.stop.Store(true)
			return
		}
	}
}
