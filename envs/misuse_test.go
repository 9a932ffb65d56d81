package envs_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-ai/arbor/envs"
)

// misuse is one wrong use of the package's API. The call must either
// return an error (err: its message starts with "envs: ", or with field,
// and contains want) or panic with a message containing want, as the doc comment named
// by panics says it does; or, for ok, be accepted with the meaning that
// the doc comment named by ok gives it (call returns nil).
type misuse struct {
	name   string
	call   func() error
	want   string // a substring of the error or panic message
	panics string // doc comment that documents the panic ("Maze.Reset")
	ok     string // doc comment that gives the call its meaning
	field  string // the error starts with this instead of "envs: "
}

// runMisuse runs every case with recover() and checks the outcome against
// the package's doc comments, read from its source.
func runMisuse(t *testing.T, prefix string, cases []misuse) {
	t.Helper()
	docs := packageDocs(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			panicked, msg, err := protect(c.call)
			switch {
			case c.panics != "":
				if !panicked {
					t.Fatalf("no panic (error %v); %s documents one", err, c.panics)
				}
				if !strings.Contains(msg, c.want) {
					t.Errorf("panic %q, want it to contain %q", msg, c.want)
				}
				if d, ok := docs[c.panics]; !ok || !strings.Contains(d, "panic") {
					t.Errorf("the doc comment of %s does not document the panic %q", c.panics, msg)
				}
			case panicked:
				t.Fatalf("undocumented panic: %s", msg)
			case c.ok != "":
				if err != nil {
					t.Fatalf("error %v; %s gives the call a meaning", err, c.ok)
				}
				if _, ok := docs[c.ok]; !ok {
					t.Errorf("no doc comment %s", c.ok)
				}
			case err == nil:
				t.Fatal("accepted without an error")
			default:
				start := prefix
				if c.field != "" {
					start = c.field
				}
				if !strings.HasPrefix(err.Error(), start) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("error %q, want one starting with %q and containing %q", err, start, c.want)
				}
			}
		})
	}
}

// protect calls f, turning a panic into its message.
func protect(f func() error) (panicked bool, msg string, err error) {
	defer func() {
		if r := recover(); r != nil {
			panicked, msg = true, fmt.Sprint(r)
		}
	}()
	return false, "", f()
}

var (
	docsOnce sync.Once
	docsMap  map[string]string
	docsErr  error
)

// packageDocs returns the doc comments of the package in the current
// directory by name: "Func", "Type" and "Type.Method".
func packageDocs(t *testing.T) map[string]string {
	t.Helper()
	docsOnce.Do(func() {
		names, err := filepath.Glob("*.go")
		if err != nil {
			docsErr = err
			return
		}
		fset := token.NewFileSet()
		var files []*ast.File
		for _, n := range names {
			if strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, n, nil, parser.ParseComments)
			if err != nil {
				docsErr = err
				return
			}
			files = append(files, f)
		}
		p, err := doc.NewFromFiles(fset, files, "pkg")
		if err != nil {
			docsErr = err
			return
		}
		docsMap = map[string]string{}
		for _, f := range p.Funcs {
			docsMap[f.Name] = f.Doc
		}
		for _, ty := range p.Types {
			docsMap[ty.Name] = ty.Doc
			for _, f := range ty.Funcs {
				docsMap[f.Name] = f.Doc
			}
			for _, m := range ty.Methods {
				docsMap[ty.Name+"."+m.Name] = m.Doc
			}
		}
	})
	if docsErr != nil {
		t.Fatal(docsErr)
	}
	return docsMap
}

// TestMisuse runs every misuse of the package's API that the package
// refuses: with an error, or with the panic that a doc comment documents
// (a programming error), or gives a documented meaning (the zero TMaze).
func TestMisuse(t *testing.T) {
	mz, err := envs.LoadMaze("testdata/mazes/1.maze")
	if err != nil {
		t.Fatal(err)
	}
	call := func(f func()) func() error { return func() error { f(); return nil } }
	runMisuse(t, "envs: ", []misuse{
		{name: "ParseMaze nil reader", call: func() error { _, err := envs.ParseMaze(nil); return err }, want: "envs: ParseMaze: nil reader"},
		{name: "zero Maze Step", call: func() error { _, err := new(envs.Maze).Step(0); return err }, want: "the zero Maze has no cells"},
		{name: "zero Maze ShortestPath", call: func() error { _, err := new(envs.Maze).ShortestPath(); return err }, want: "the zero Maze"},
		{name: "zero Maze Model", call: func() error { _, err := new(envs.Maze).Model(0.1, 1); return err }, want: "the zero Maze"},
		{name: "zero Maze POMDP", call: func() error { _, err := new(envs.Maze).POMDP(0.1, 1); return err }, want: "the zero Maze"},
		{name: "zero Maze Reset", call: call(func() { new(envs.Maze).Reset() }), panics: "Maze.Reset", want: "envs: Maze.Reset: the zero Maze has no cells"},
		{name: "zero Maze Position", call: call(func() { new(envs.Maze).Position() }), panics: "Maze.Position", want: "state 0 out of range [0, 0)"},
		{name: "zero Maze sizes", call: func() error {
			var m envs.Maze
			if m.NumStates() != 0 || m.NumObservations() != 0 {
				return fmt.Errorf("%d states, %d observations", m.NumStates(), m.NumObservations())
			}
			return nil
		}, ok: "Maze"},
		{name: "Maze.Step action out of range", call: func() error { _, err := mz.Clone().Step(5); return err }, want: "action 5 out of range [0, 5)"},
		{name: "Maze.Next state out of range", call: call(func() { mz.Next(-1, 0) }), panics: "Maze.Next", want: "state -1 out of range"},
		{name: "Maze.CellOf state out of range", call: call(func() { mz.CellOf(mz.NumStates()) }), panics: "Maze.CellOf", want: "out of range"},
		{name: "Maze.Model bad noise", call: func() error { _, err := mz.Model(1, 1); return err }, want: "noise 1 out of range"},
		{name: "TMaze.Step before Reset", call: func() error { _, err := new(envs.TMaze).Step(1); return err }, want: "envs: T-maze: Step before Reset"},
		{name: "TMaze.Step action out of range", call: func() error {
			tm, err := envs.NewTMaze(nil, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				return err
			}
			_, err = tm.Step(4)
			return err
		}, want: "action 4 out of range"},
		{name: "TMaze.FixContext out of range", call: func() error { return new(envs.TMaze).FixContext(2) }, want: "context 2"},
		{name: "NewTMaze bad config", call: func() error { _, err := envs.NewTMaze(&envs.TMazeConfig{CueValidity: 2}, nil); return err }, want: "CueValidity 2"},
		{name: "zero TMaze", call: func() error {
			var tm envs.TMaze
			if err := tm.FixContext(envs.TMazeRewardRight); err != nil {
				return err
			}
			if o := tm.Reset(); o != envs.TMazeObsNone {
				return fmt.Errorf("first observation %d", o)
			}
			if tm.Config() != envs.DefaultTMazeConfig() || tm.Context() != envs.TMazeRewardRight {
				return errors.New("not the default T-maze with the fixed context")
			}
			if _, err := tm.Step(envs.TMazeRight); err != nil || !tm.Done() {
				return fmt.Errorf("right arm: %v, done %v", err, tm.Done())
			}
			return nil
		}, ok: "TMaze"},
	})
}
