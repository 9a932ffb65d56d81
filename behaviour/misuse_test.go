package behaviour_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/pomdp"
)

// misuse is one wrong use of the package's API. The call must either
// return an error (err: its message starts with "behaviour: ", or with field
// for the errors that name a field, and contains want) or panic with a
// message containing want, as the doc comment named by panics says it
// does; or, for ok, be accepted with the meaning that the doc comment
// named by ok gives it (call returns nil).
type misuse struct {
	name   string
	call   func() error
	want   string // a substring of the error or panic message
	panics string // doc comment that documents the panic ("Risk", "Tree.Child", "Model")
	ok     string // doc comment that gives the call its meaning
	field  string // the error names this field instead of starting with "behaviour: "
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
// (a programming error, as the standard library panics on), or gives a
// documented meaning.
func TestMisuse(t *testing.T) {
	m, err := pomdp.Load("../pomdp/testdata/tiny-pomdp.json") // 3 states, 2 observations, 2 actions
	if err != nil {
		t.Fatal(err)
	}

	runMisuse(t, "behaviour: ", []misuse{
		{name: "zero Reader", call: func() error { _, err := new(behaviour.Reader).Next(); return err }, want: "zero Reader"},
		{name: "Reader nil reader", call: func() error { _, err := behaviour.NewReader(nil, "", m, nil).Next(); return err }, want: "nil reader"},
		{name: "Reader nil model", call: func() error {
			_, err := behaviour.NewReader(strings.NewReader("x"), "", nil, nil).Next()
			return err
		}, want: "nil model"},
		{name: "zero Writer", call: func() error { return new(behaviour.Writer).WriteStep("s", 1, 0, 0, -1, false) }, want: "zero Writer"},
		{name: "zero Writer Flush", call: func() error { return new(behaviour.Writer).Flush() }, want: "zero Writer"},
		{name: "Writer nil writer", call: func() error { _, err := behaviour.NewWriter(nil, m, nil); return err }, want: "nil writer"},
		{name: "WriteSubject nil record", call: func() error {
			w, err := behaviour.NewWriter(new(bytes.Buffer), m, nil)
			if err != nil {
				return err
			}
			return w.WriteSubject(nil)
		}, want: "behaviour: WriteSubject: nil record"},
		{name: "WriteStep observation out of range", call: func() error {
			w, err := behaviour.NewWriter(new(bytes.Buffer), m, nil)
			if err != nil {
				return err
			}
			return w.WriteStep("s", 1, 0, 9, -1, false)
		}, want: "observation 9 out of range"},
	})
}
