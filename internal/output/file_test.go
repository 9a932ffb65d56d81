package output

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// temporaries lists the temporary files CreateFile left in dir.
func temporaries(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*.arbor-*.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAtomicFile: the target keeps its old content until Commit, which
// replaces it whole (keeping its permissions); Abort leaves it as it was;
// neither leaves a temporary file; a new file gets 0666 less the umask; a
// symbolic link keeps pointing at the new file.
func TestAtomicFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fig.svg")
	if err := os.WriteFile(path, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	f, err := CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("new, half")); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "old" {
		t.Errorf("before Commit the file reads %q, want the old content", got)
	}
	if n := len(temporaries(t, dir)); n != 1 {
		t.Errorf("%d temporary files while writing, want 1", n)
	}
	f.Abort()
	f.Abort() // twice is safe
	if got := read(); got != "old" {
		t.Errorf("after Abort the file reads %q, want the old content", got)
	}
	if tmp := temporaries(t, dir); len(tmp) != 0 {
		t.Errorf("after Abort: temporary files %v", tmp)
	}

	f, err = CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: nothing
	if got := read(); got != "new" {
		t.Errorf("after Commit the file reads %q, want new", got)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the old file's 0640", st.Mode().Perm())
	}
	if tmp := temporaries(t, dir); len(tmp) != 0 {
		t.Errorf("after Commit: temporary files %v", tmp)
	}

	// A new file, through a symbolic link.
	link := filepath.Join(dir, "link.dot")
	real := filepath.Join(dir, "real.dot")
	if err := os.WriteFile(real, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	f, err = CreateFile(link)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("through the link"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(real); string(b) != "through the link" {
		t.Errorf("the link's target reads %q", b)
	}

	fresh := filepath.Join(dir, "fresh.png")
	f, err = CreateFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	plain, err := os.Create(filepath.Join(dir, "plain"))
	if err != nil {
		t.Fatal(err)
	}
	plain.Close()
	st, err := os.Stat(fresh)
	want, _ := os.Stat(filepath.Join(dir, "plain"))
	if err != nil || st.Mode() != want.Mode() {
		t.Errorf("new file: mode %v (%v), want os.Create's %v", st.Mode(), err, want.Mode())
	}
}

// TestAtomicFileErrors: a missing directory, a directory as the target
// and a read-only directory are errors naming the path, from CreateFile
// and CheckCreatable alike, which creates nothing; a device is written
// directly.
func TestAtomicFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "no", "such", "g.svg"), "no such file or directory"},
		{dir, "is a directory"},
	} {
		if _, err := CreateFile(c.path); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("CreateFile(%s): %v, want %q", c.path, err, c.want)
		}
		if err := CheckCreatable(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckCreatable(%s): %v, want %q", c.path, err, c.want)
		}
	}
	if err := CheckCreatable(filepath.Join(dir, "ok.svg")); err != nil {
		t.Errorf("CheckCreatable: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("CheckCreatable left %v", entries)
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		if err := CheckCreatable(filepath.Join(ro, "g.svg")); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("read-only directory: %v, want permission denied", err)
		}
	}
	f, err := CreateFile(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x"))
	if err := f.Commit(); err != nil {
		t.Errorf("%s: %v", os.DevNull, err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&fs.ModeDevice == 0 {
		t.Errorf("%s is no longer a device: %v %v", os.DevNull, st.Mode(), err)
	}
}

// TestRemoveTemporaryFiles: what a second signal does to the files being
// written.
func TestRemoveTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	f, err := CreateFile(filepath.Join(dir, "a.dot"))
	if err != nil {
		t.Fatal(err)
	}
	RemoveTemporaryFiles()
	if tmp := temporaries(t, dir); len(tmp) != 0 {
		t.Errorf("temporary files %v", tmp)
	}
	if err := f.Commit(); err == nil {
		t.Error("Commit of a removed temporary file: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "a.dot")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the target exists: %v", err)
	}
}

// TestShorten: at most n bytes, cut at a character boundary, with the
// number of bytes left out.
func TestShorten(t *testing.T) {
	if got := Shorten("short", 10); got != "short" {
		t.Errorf("Shorten(short) = %q", got)
	}
	long := strings.Repeat("é", 100_000) // 2 bytes each
	got := Shorten(long, 1000)
	if len(got) > 1000 || !utf8.ValidString(got) || !strings.HasSuffix(got, " bytes more)") {
		t.Errorf("Shorten: %d bytes, valid %v, ends %q", len(got), utf8.ValidString(got), got[max(0, len(got)-30):])
	}
	kept := got[:strings.Index(got, "…")]
	if want := "… (" + strconv.Itoa(len(long)-len(kept)) + " bytes more)"; !strings.HasSuffix(got, want) {
		t.Errorf("Shorten: ends %q, want %q", got[len(kept):], want)
	}
}

// TestCut: a string of at most n bytes is kept; a longer one is cut at
// the last character boundary at or before n bytes, with no note.
func TestCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{{"short", 10, "short"}, {"abcdef", 4, "abcd"}, {"aéé", 4, "aé"}, {"aéé", 3, "aé"}, {"aéé", 2, "a"}, {"é", 1, ""}} {
		if got := Cut(c.s, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
