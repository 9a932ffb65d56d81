package misusetest

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Case is one misuse of a package's API and the outcome it must have
// (see the package documentation): an error when Panics and OK are
// empty, a documented panic when Panics is set, a documented meaning when
// OK is set.
type Case struct {
	Name string       // the subtest's name
	Call func() error // makes the wrong call; returns its error, or for OK a failed check of the call's meaning
	Msg  string       // a substring of the error or panic message
	// Prefix starts the error instead of the package's prefix: for an
	// error that names a field ("qs", "step 0: ") or is passed up from
	// another package ("pomdp: ").
	Prefix string
	Panics string // the doc comment that documents the panic ("Tree.Child")
	OK     string // the doc comment that gives the call its meaning ("Run")
	Says   string // a phrase of the doc comment named by Panics or OK
}

// Runner runs the misuse table of one package.
type Runner struct {
	// Prefix starts every error of the package ("ffg: ") unless a case's
	// own Prefix replaces it.
	Prefix string
	// Or, if not nil, accepts an error that does not start with Prefix
	// (for a case without its own Prefix): the other form the package's
	// errors may take, which OrForm describes in failures ("an *Error
	// naming the file").
	Or     func(err error) bool
	OrForm string
	// Always, when set, makes Prefix start every error of the package,
	// exactly once: a case's own Prefix then follows it ("aci: " and
	// "pomdp: " for "aci: pomdp: ...") instead of replacing it, Or is
	// not consulted, and an error whose message holds Prefix again at
	// the start of a later part ("aci: x: aci: y") fails.
	Always bool
}

// Run runs the cases of a package whose errors start with prefix as
// subtests of t; it is Runner{Prefix: prefix}.Run(t, cases).
func Run(t *testing.T, prefix string, cases []Case) {
	t.Helper()
	Runner{Prefix: prefix}.Run(t, cases)
}

// Run runs every case as a subtest of t, named by the case: it makes the
// call under recover and checks its outcome against the case and against
// the doc comments of the package in the current directory.
func (r Runner) Run(t *testing.T, cases []Case) {
	t.Helper()
	docs := Docs(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			var o outcome
			if c.Call != nil {
				o = protect(c.Call)
			}
			problems := r.check(c, o, docs)
			for _, p := range problems {
				t.Error(p)
			}
			if len(problems) == 0 {
				switch {
				case o.panicked:
					t.Log(o.msg)
				case o.err != nil:
					t.Log(o.err)
				}
			}
		})
	}
}

// outcome is what a call did: it panicked with the message msg, or it
// returned err.
type outcome struct {
	panicked bool
	msg      string
	err      error
}

// protect calls f, turning a panic into its message.
func protect(f func() error) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome{panicked: true, msg: fmt.Sprint(r)}
		}
	}()
	return outcome{err: f()}
}

// check returns what is wrong with the outcome o of c, none when it is
// the one c wants; docs holds the doc comments by name.
func (r Runner) check(c Case, o outcome, docs map[string]string) []string {
	if p := malformed(c); p != "" {
		return []string{"malformed case: " + p}
	}
	switch {
	case c.Panics != "":
		if !o.panicked {
			return []string{fmt.Sprintf("no panic (error %v); %s documents one", o.err, c.Panics)}
		}
		var problems []string
		if !strings.Contains(o.msg, c.Msg) {
			problems = append(problems, fmt.Sprintf("panic %q, want it to contain %q", o.msg, c.Msg))
		}
		return append(problems, docSays(docs, c.Panics, "panic", c.Says)...)
	case o.panicked:
		return []string{fmt.Sprintf("undocumented panic: %s", o.msg)}
	case c.OK != "":
		if o.err != nil {
			return []string{fmt.Sprintf("error %v; %s gives the call a meaning", o.err, c.OK)}
		}
		return docSays(docs, c.OK, c.Says)
	case o.err == nil:
		return []string{"accepted without an error"}
	}
	msg := o.err.Error()
	start, or := r.Prefix, r.Or
	switch {
	case r.Always:
		start, or = r.Prefix+c.Prefix, nil
		if strings.HasPrefix(msg, start) && Repeats(msg, r.Prefix) {
			return []string{fmt.Sprintf("error %q holds the prefix %q more than once", msg, r.Prefix)}
		}
	case c.Prefix != "":
		start, or = c.Prefix, nil
	}
	formed := strings.HasPrefix(msg, start) || (or != nil && or(o.err))
	if formed && strings.Contains(msg, c.Msg) {
		return nil
	}
	form := ""
	if or != nil {
		form = " or " + r.OrForm
	}
	if c.Msg == "" {
		return []string{fmt.Sprintf("error %q, want one starting with %q%s", msg, start, form)}
	}
	return []string{fmt.Sprintf("error %q, want one starting with %q%s and containing %q", msg, start, form, c.Msg)}
}

// malformed says what makes c no case, or returns "".
func malformed(c Case) string {
	switch {
	case c.Call == nil:
		return "no Call"
	case c.Panics != "" && c.OK != "":
		return "both Panics and OK"
	case c.Says != "" && c.Panics == "" && c.OK == "":
		return "Says without Panics or OK"
	case c.OK != "" && (c.Msg != "" || c.Prefix != ""):
		return "Msg or Prefix with OK: an accepted call has no message"
	case c.Panics != "" && c.Prefix != "":
		return "Prefix with Panics: Msg gives the panic's message"
	}
	return ""
}

// docSays checks that docs has a comment for name and that the comment
// contains every phrase, with runs of white space taken as one space.
func docSays(docs map[string]string, name string, phrases ...string) []string {
	d, ok := docs[name]
	if !ok {
		return []string{fmt.Sprintf("no doc comment for %s", name)}
	}
	flat := strings.Join(strings.Fields(d), " ")
	var problems []string
	for _, p := range phrases {
		if !strings.Contains(flat, p) {
			problems = append(problems, fmt.Sprintf("the doc comment of %s does not say %q:\n%s", name, p, d))
		}
	}
	return problems
}

var (
	docsMu    sync.Mutex
	docsByDir = map[string]map[string]string{}
)

// Docs returns the doc comments of the package in the current directory
// (its non-test Go files) by name: "F" for a function, "T" for a type,
// "T.M" for a method, and constants and variables by their names. The
// comments are read once per directory; the map returned is the caller's.
func Docs(t testing.TB) map[string]string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	docsMu.Lock()
	defer docsMu.Unlock()
	docs, ok := docsByDir[dir]
	if !ok {
		if docs, err = readDocs(dir); err != nil {
			t.Fatal(err)
		}
		docsByDir[dir] = docs
	}
	return maps.Clone(docs)
}

// readDocs reads the doc comments of the package in dir.
func readDocs(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "pkg")
	if err != nil {
		return nil, err
	}
	docs := map[string]string{}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				docs[n] = v.Doc
			}
		}
	}
	values(p.Consts)
	values(p.Vars)
	for _, f := range p.Funcs {
		docs[f.Name] = f.Doc
	}
	for _, ty := range p.Types {
		docs[ty.Name] = ty.Doc
		values(ty.Consts)
		values(ty.Vars)
		for _, f := range ty.Funcs {
			docs[f.Name] = f.Doc
		}
		for _, m := range ty.Methods {
			docs[ty.Name+"."+m.Name] = m.Doc
		}
	}
	return docs, nil
}

// Repeats reports whether msg, which starts with prefix ("aci: "), holds
// prefix again at the start of a later part: after ": " ("aci: x: aci: y")
// or right after the first ("aci: aci: y").
func Repeats(msg, prefix string) bool {
	rest, ok := strings.CutPrefix(msg, prefix)
	if !ok {
		return false
	}
	return strings.HasPrefix(rest, prefix) || strings.Contains(rest, ": "+prefix)
}
