// Package spawn starts goroutines without allocating: a go statement
// whose call takes arguments, or whose function literal captures
// variables, allocates a closure each time it runs, which a planner that
// starts its helpers at every decision would pay at every decision. Go
// hands the task to the new goroutine through a buffered channel instead,
// and the goroutine's function takes nothing.
//
// It imports the standard library only, so that any package may use it.
package spawn

// A Task is work for a goroutine of its own.
type Task interface {
	Run()
}

// handoff holds the tasks Go sent whose goroutines have not yet taken
// one. Which goroutine takes which task does not matter: each runs one.
var handoff = make(chan Task, 256)

// Go runs t.Run on a new goroutine. It allocates nothing of its own when t
// is a pointer (the runtime may still make a goroutine's descriptor when
// none is free to reuse). The send comes before the go statement, so the
// tasks in the channel are never more than the goroutines started or
// about to be: Go blocks only while the channel is full, until one of
// them takes its task. A traceback shows the goroutine as created by Go,
// not by Go's caller. A nil t panics in the caller.
func Go(t Task) {
	if t == nil {
		panic("spawn: Go with a nil task")
	}
	handoff <- t
	go run()
}

// run is the function of every goroutine Go starts.
func run() {
	(<-handoff).Run()
}
