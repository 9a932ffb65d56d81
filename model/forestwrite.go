package model

import (
	"runtime"
	"sync"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
)

// The posteriors of a long array are formatted on every core, in chunks
// of elements, ahead of the one goroutine that writes them in order: the
// shortest decimal of each number (strconv.AppendFloat) is most of the
// writing, and the chunks' bytes are those the writer would append, so
// the output does not depend on the number of cores. A few chunks are in
// flight at once, their buffers reused, so that the output is never held
// whole.

// chunkElements is the number of elements of a chunk.
const chunkElements = 256

// formatChunk is the text of a run of elements: element i's bytes are
// b[ends[i]:ends[i+1]].
type formatChunk struct {
	b    []byte
	ends []int32
	err  error
}

// normalText is the scratch of a normal posterior's text.
type normalText struct {
	p              Posterior
	mean, variance float64
}

// element appends the posterior of element e (null when it is observed);
// nt is the caller's scratch.
func (fr *forestRun) element(j *jsonWriter, e int, nt *normalText) {
	h := fr.hidden[e]
	switch {
	case h < 0:
		j.b = append(j.b, "null"...)
	case fr.fam == expfam.NormalFamily:
		nt.mean, nt.variance = fr.forest.(*ffg.GaussForest).Posterior(int(h))
		nt.p = Posterior{Family: "normal", Mean: &nt.mean, Variance: &nt.variance}
		j.posterior(&nt.p)
	default:
		j.mvNormal(fr.forest.(*ffg.MvGaussForest).Posterior(int(h)))
	}
}

// writeArray writes the nested arrays of o's elements.
func (fr *forestRun) writeArray(j *jsonWriter, o forestOut) {
	n := o.count
	nc := (n + chunkElements - 1) / chunkElements
	workers := min(runtime.GOMAXPROCS(0), nc)
	if workers < 2 {
		k := o.first
		nt := new(normalText)
		j.nested(o.dims, func() {
			fr.element(j, k, nt)
			k++
			j.flush(false)
		})
		return
	}
	type job struct {
		ci int
		c  *formatChunk
	}
	ready := make([]chan *formatChunk, nc)
	for ci := range ready {
		ready[ci] = make(chan *formatChunk, 1)
	}
	free := make(chan *formatChunk, 2*workers)
	for range cap(free) {
		// Room for a chunk of mvnormal posteriors of dimension 4 (about
		// 500 bytes each); a larger one grows it once.
		free <- &formatChunk{b: make([]byte, 0, chunkElements*512), ends: make([]int32, 0, chunkElements+1)}
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w jsonWriter
			nt := new(normalText)
			for jb := range jobs {
				c := jb.c
				w.b, w.err = c.b[:0], nil
				c.ends = append(c.ends[:0], 0)
				for e := o.first + jb.ci*chunkElements; e < o.first+min(n, (jb.ci+1)*chunkElements); e++ {
					fr.element(&w, e, nt)
					c.ends = append(c.ends, int32(len(w.b)))
				}
				c.b, c.err = w.b, w.err
				ready[jb.ci] <- c
			}
		}()
	}
	go func() {
		for ci := range nc {
			jobs <- job{ci, <-free}
		}
		close(jobs)
	}()
	var c *formatChunk
	k := 0
	j.nested(o.dims, func() {
		i := k % chunkElements
		if i == 0 {
			if c != nil {
				free <- c
			}
			c = <-ready[k/chunkElements]
			if c.err != nil && j.err == nil {
				j.err = c.err
			}
		}
		j.b = append(j.b, c.b[c.ends[i]:c.ends[i+1]]...)
		k++
		j.flush(false)
	})
	wg.Wait()
}
