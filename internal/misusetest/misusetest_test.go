package misusetest

import (
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testDocs are the doc comments the cases of TestCheck name.
var testDocs = map[string]string{
	"Grow":     "Grow grows w.\nIt panics for a\nnegative n.",
	"Run":      "Run runs a graph. A nil ctx is taken as context.Background().",
	"Widget":   "Widget is a widget.",
	"Widget.M": "M does things.",
}

// TestCheck feeds check every outcome a case may meet: the ones it wants
// pass, every other fails.
func TestCheck(t *testing.T) {
	pkg := Runner{Prefix: "widget: "}
	file := Runner{Prefix: "widget: ", Or: func(err error) bool { return strings.HasPrefix(err.Error(), "w.json: ") }, OrForm: "an error naming the file"}
	always := Runner{Prefix: "widget: ", Always: true, Or: func(error) bool { return true }}
	call := func() error { return nil }
	fails := func(m string) outcome { return outcome{err: errors.New(m)} }
	panics := func(m string) outcome { return outcome{panicked: true, msg: m} }
	ok := outcome{}
	for _, tc := range []struct {
		name   string
		r      Runner
		c      Case
		o      outcome
		passes bool
	}{
		// Errors.
		{"error with the prefix", pkg, Case{Call: call}, fails("widget: bad"), true},
		{"error without the prefix", pkg, Case{Call: call}, fails("bad"), false},
		{"error with another package's prefix", pkg, Case{Call: call}, fails("ffg: bad"), false},
		{"error containing Msg", pkg, Case{Call: call, Msg: "size -1"}, fails("widget: New: size -1"), true},
		{"error not containing Msg", pkg, Case{Call: call, Msg: "size -1"}, fails("widget: New: bad"), false},
		{"error with the case's Prefix", pkg, Case{Call: call, Prefix: "step 0: ", Msg: "x"}, fails("step 0: widget: x"), true},
		{"error with the package's prefix, not the case's", pkg, Case{Call: call, Prefix: "step 0: "}, fails("widget: x"), false},
		{"no error", pkg, Case{Call: call}, ok, false},
		{"panic for an error", pkg, Case{Call: call}, panics("widget: bad"), false},
		{"error of the other form", file, Case{Call: call}, fails("w.json: bad"), true},
		{"error of the other form, not containing Msg", file, Case{Call: call, Msg: "x"}, fails("w.json: bad"), false},
		{"error of neither form", file, Case{Call: call}, fails("bad"), false},
		{"error of the other form for a case's Prefix", file, Case{Call: call, Prefix: "qs"}, fails("w.json: bad"), false},

		// Always the package's prefix, once.
		{"always: the prefix", always, Case{Call: call, Msg: "x"}, fails("widget: x"), true},
		{"always: no prefix, Or not consulted", always, Case{Call: call}, fails("x"), false},
		{"always: the prefix twice", always, Case{Call: call}, fails("widget: widget: x"), false},
		{"always: the prefix again later", always, Case{Call: call}, fails("widget: f: widget: x"), false},
		{"always: the case's Prefix after the package's", always, Case{Call: call, Prefix: "ffg: "}, fails("widget: ffg: x"), true},
		{"always: the case's Prefix alone", always, Case{Call: call, Prefix: "ffg: "}, fails("ffg: x"), false},

		// Documented panics.
		{"documented panic", pkg, Case{Call: call, Panics: "Grow", Msg: "negative"}, panics("widget: Grow: negative n -1"), true},
		{"documented panic, phrase over lines", pkg, Case{Call: call, Panics: "Grow", Says: "It panics for a negative n"}, panics("x"), true},
		{"documented panic, phrase not in the comment", pkg, Case{Call: call, Panics: "Grow", Says: "It panics for a zero n"}, panics("x"), false},
		{"panic not containing Msg", pkg, Case{Call: call, Panics: "Grow", Msg: "negative"}, panics("index out of range"), false},
		{"no panic", pkg, Case{Call: call, Panics: "Grow"}, fails("widget: x"), false},
		{"no panic nor error", pkg, Case{Call: call, Panics: "Grow"}, ok, false},
		{"panic the comment does not document", pkg, Case{Call: call, Panics: "Widget"}, panics("x"), false},
		{"panic of no comment", pkg, Case{Call: call, Panics: "Gone"}, panics("x"), false},

		// Documented meanings.
		{"accepted", pkg, Case{Call: call, OK: "Run", Says: "A nil ctx is taken as context.Background()"}, ok, true},
		{"accepted, a method", pkg, Case{Call: call, OK: "Widget.M"}, ok, true},
		{"accepted, of no comment", pkg, Case{Call: call, OK: "Widget.N"}, ok, false},
		{"accepted, phrase not in the comment", pkg, Case{Call: call, OK: "Run", Says: "a nil ctx is an error"}, ok, false},
		{"refused", pkg, Case{Call: call, OK: "Run"}, fails("widget: x"), false},
		{"panic for an accepted call", pkg, Case{Call: call, OK: "Run"}, panics("x"), false},

		// Malformed cases.
		{"no Call", pkg, Case{}, fails("widget: x"), false},
		{"Panics and OK", pkg, Case{Call: call, Panics: "Grow", OK: "Run"}, panics("x"), false},
		{"Says for an error", pkg, Case{Call: call, Says: "x"}, fails("widget: x"), false},
		{"Msg for an accepted call", pkg, Case{Call: call, OK: "Run", Msg: "x"}, ok, false},
		{"Prefix for an accepted call", pkg, Case{Call: call, OK: "Run", Prefix: "x"}, ok, false},
		{"Prefix for a panic", pkg, Case{Call: call, Panics: "Grow", Prefix: "x"}, panics("x"), false},
	} {
		problems := tc.r.check(tc.c, tc.o, testDocs)
		if tc.passes && len(problems) != 0 {
			t.Errorf("%s: %q, want no problem", tc.name, problems)
		}
		if !tc.passes && len(problems) == 0 {
			t.Errorf("%s: passes, want a problem", tc.name)
		}
	}
}

// TestProtect turns a panic of any value, a runtime error among them, into
// its message and leaves an error alone.
func TestProtect(t *testing.T) {
	var m map[string]int
	for _, tc := range []struct {
		name string
		f    func() error
		want outcome
	}{
		{"error", func() error { return errors.New("e") }, outcome{err: errors.New("e")}},
		{"nil", func() error { return nil }, outcome{}},
		{"panic string", func() error { panic("p") }, outcome{panicked: true, msg: "p"}},
		{"panic error", func() error { panic(errors.New("pe")) }, outcome{panicked: true, msg: "pe"}},
		{"runtime error", func() error { m["x"] = 1; return nil }, outcome{panicked: true, msg: "assignment to entry in nil map"}},
	} {
		got := protect(tc.f)
		if got.panicked != tc.want.panicked || got.msg != tc.want.msg || (got.err == nil) != (tc.want.err == nil) ||
			got.err != nil && got.err.Error() != tc.want.err.Error() {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestDocs reads the doc comments of testdata/widget: functions, types,
// methods, constants and variables, and none of its test files.
func TestDocs(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "widget"))
	docs := Docs(t)
	want := []string{"Default", "Kind", "Max", "New", "Round", "Widget", "Widget.Grow"}
	if got := slices.Sorted(maps.Keys(docs)); !slices.Equal(got, want) {
		t.Errorf("doc comments of %q, want %q", got, want)
	}
	if d := docs["Default"]; d != "Default is the widget New returns for\na size of 0.\n" {
		t.Errorf("Default: %q", d)
	}
	docs["Max"] = "changed"
	if Docs(t)["Max"] != "Max is the largest widget.\n" {
		t.Error("Docs returned the cached map itself")
	}
}

// TestRun runs a table that passes, against testdata/widget.
func TestRun(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "widget"))
	Run(t, "widget: ", []Case{
		{Name: "error", Call: func() error { return errors.New("widget: New: size -1") }, Msg: "size -1"},
		{Name: "panic", Call: func() error { panic("widget: Grow: n = -1") }, Panics: "Widget.Grow", Says: "It panics for a negative n", Msg: "n = -1"},
		{Name: "accepted", Call: func() error { return nil }, OK: "Widget", Says: "The zero Widget is ready to use"},
	})
}

// TestReturns finds the three faults of testdata/errs, on the lines that
// say "bad", and nothing else.
func TestReturns(t *testing.T) {
	dir := filepath.Join("testdata", "errs")
	faults, err := returnFaults(dir, "errs: ", []string{"wrap"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`errs.go:46: BadLiteral returns the error "n 0" without the prefix "errs: "`,
		`errs.go:52: BadPassed returns err, which nothing gives the prefix "errs: "`,
		`errs.go:57: error literal "errs: errs: %d" starts with "errs: " twice`,
	}
	if !slices.Equal(faults, want) {
		t.Errorf("faults:\n%s\nwant:\n%s", strings.Join(faults, "\n"), strings.Join(want, "\n"))
	}
}

// TestRepeats finds a package's prefix again at the start of a later
// part of a message, not inside a word nor as another package's prefix.
func TestRepeats(t *testing.T) {
	for msg, want := range map[string]bool{
		"aci: x":                false,
		"aci: pomdp: x":         false,
		"aci: x: aci: y":        true,
		"aci: aci: y":           true,
		"aci: graci: y":         false,
		"pomdp: x":              false,
		"model: f.json: x: y":   false,
		"model: f.json: model:": false,
	} {
		if got := Repeats(msg, "aci: "); got != want {
			t.Errorf("Repeats(%q) = %v, want %v", msg, got, want)
		}
	}
}
