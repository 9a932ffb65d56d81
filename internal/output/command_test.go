package output

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckDistinct: an output that is an input, or another output, is
// refused by device and inode (another spelling, a symbolic or a hard
// link) or, not there yet, by its resolved path; inputs may repeat,
// devices are not compared, and distinct files pass.
func TestCheckDistinct(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "x.csv")
	if err := os.WriteFile(data, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.csv")
	hard := filepath.Join(dir, "hard.csv")
	if err := os.Symlink(data, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(data, hard); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	subLink := filepath.Join(dir, "sublink")
	if err := os.Symlink(sub, subLink); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		files []NamedFile
		want  string // "" when accepted
	}{
		{"the input as output", []NamedFile{In("--data", data), Out("--subjects", data)},
			"--subjects " + data + " is the same file as --data " + data + ": an output may not replace a file the command reads"},
		{"the output first", []NamedFile{Out("-o", data), In("--model", data)}, "-o " + data + " is the same file as --model " + data},
		{"another spelling", []NamedFile{In("--data", data), Out("--subjects", dir+"/./x.csv")}, "is the same file as --data"},
		{"a symbolic link", []NamedFile{In("--data", link), Out("--subjects", data)}, "is the same file as --data " + link},
		{"a hard link", []NamedFile{In("--data", hard), Out("--subjects", data)}, "is the same file as --data " + hard},
		{"two outputs", []NamedFile{Out("-o", data), Out("--truth", hard)}, "-o " + data + " and --truth " + hard + " are the same file: each output needs a file of its own"},
		{"two new outputs", []NamedFile{Out("-o", filepath.Join(sub, "t.csv")), Out("--truth", filepath.Join(subLink, "t.csv"))}, "are the same file"},
		{"inputs repeat", []NamedFile{In("--model", data), In("--process", link), Out("-o", filepath.Join(dir, "b.csv"))}, ""},
		{"distinct outputs", []NamedFile{Out("-o", filepath.Join(dir, "b.csv")), Out("--truth", filepath.Join(dir, "t.csv"))}, ""},
		{"devices", []NamedFile{Out("-o", os.DevNull), Out("--truth", os.DevNull)}, ""},
		{"empty paths", []NamedFile{In("--process", ""), Out("--plot", ""), Out("--dot", "")}, ""},
	} {
		err := CheckDistinct(c.files...)
		var se *SameFileError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want no error", c.name, err)
		case c.want != "" && (!errors.As(err, &se) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want a *SameFileError with %q", c.name, err, c.want)
		}
	}
}

// TestCommandHoldsCommits: within a command, Commit leaves the old file in
// place; EndCommand(true) renames every ready file, EndCommand(false)
// removes them and the old files stay; neither leaves a temporary file.
func TestCommandHoldsCommits(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	for _, commit := range []bool{false, true} {
		for _, p := range []string{a, b} {
			if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		BeginCommand()
		for _, p := range []string{a, b} {
			f, err := CreateFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte("new"))
			if err := f.Commit(); err != nil {
				t.Fatal(err)
			}
			f.Abort() // after Commit: nothing
			if got, _ := os.ReadFile(p); string(got) != "old" {
				t.Errorf("commit %v: %s reads %q after Commit within the command, want the old content", commit, p, got)
			}
		}
		if err := EndCommand(commit); err != nil {
			t.Fatal(err)
		}
		want := "old"
		if commit {
			want = "new"
		}
		for _, p := range []string{a, b} {
			if got, _ := os.ReadFile(p); string(got) != want {
				t.Errorf("EndCommand(%v): %s reads %q, want %q", commit, p, got, want)
			}
		}
		if tmp := temporaries(t, dir); len(tmp) != 0 {
			t.Errorf("EndCommand(%v) left %v", commit, tmp)
		}
	}
	// Outside a command, Commit renames at once.
	f, err := CreateFile(a)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("at once"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(a); string(got) != "at once" {
		t.Errorf("outside a command: %q", got)
	}
}

// TestRecordInput: within a command, CreateFile and CheckCreatable refuse
// a file the command reads, by any name (an *InputError naming the input);
// after the command, the file is an output like any other.
func TestRecordInput(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.json")
	if err := os.WriteFile(model, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "l.json")
	if err := os.Symlink(model, link); err != nil {
		t.Fatal(err)
	}
	BeginCommand()
	RecordInput(model, model)
	for _, p := range []string{model, link} {
		var ie *InputError
		if _, err := CreateFile(p); !errors.As(err, &ie) || !strings.Contains(err.Error(), "the same file as the input "+model) {
			t.Errorf("CreateFile(%s): %v, want an *InputError", p, err)
		}
		if err := CheckCreatable(p); !errors.As(err, &ie) {
			t.Errorf("CheckCreatable(%s): %v, want an *InputError", p, err)
		}
	}
	if err := EndCommand(true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(model); string(b) != "{}" {
		t.Errorf("the input reads %q", b)
	}
	if err := CheckCreatable(model); err != nil {
		t.Errorf("after the command: %v", err)
	}
	if tmp := temporaries(t, dir); len(tmp) != 0 {
		t.Errorf("left %v", tmp)
	}
}

// TestQuote: a name of printable characters is written as it is; one with
// a newline, a NUL, another control character or invalid UTF-8 is quoted.
func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"p01": "p01", "sujet é 1": "sujet é 1", "": "",
		"p\n01": `"p\n01"`, "a\x00b": `"a\x00b"`, "tab\there": `"tab\there"`, "\xff": `"\xff"`, "\u202e": `"\u202e"`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
