package shard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// reseal rewrites the checksum line of the shard file path for its lines
// as they are: what a forger who edits a file and recomputes its SHA-256
// would do.
func reseal(t testing.TB, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(b, []byte(`{"lines":`))
	body := b[:i]
	sum := sha256.Sum256(body)
	lines := bytes.Count(body, []byte{'\n'}) - 1
	out := fmt.Appendf(body, `{"lines":%d,"sha256":"%s"}`+"\n", lines, hex.EncodeToString(sum[:]))
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMergeVerifies: a shard file edited (a value changed), cut at a line
// boundary, with two lines of a unit swapped, two units swapped, a line
// added after the checksum line, without its checksum line, or with its
// manifest edited is refused with one line naming the file, and nothing is
// emitted; merge checks every file before the first line goes out.
func TestMergeVerifies(t *testing.T) {
	swap := func(lines []string, i, j int) { lines[i], lines[j] = lines[j], lines[i] }
	for _, c := range []struct {
		name string
		edit func(lines []string) []string // the lines of shard 2 of 3, the checksum line last
		says string
	}{
		// Units 1, 4, 7 (from 0): unit 1 has 2 lines, 4 has 2, 7 has 2.
		{"edited", func(l []string) []string { l[1] = strings.Replace(l[1], "[1,0]", "[1,9]", 1); return l }, "does not match"},
		{"cut", func(l []string) []string { return l[:3] }, "no checksum line"},
		{"lines of a unit swapped", func(l []string) []string { swap(l, 1, 2); return l }, "does not match"},
		{"units swapped", func(l []string) []string { swap(l, 1, 3); swap(l, 2, 4); return l }, "unit 2 (counted from 1) missing"},
		{"more after the checksum", func(l []string) []string { return append(l, l[1]) }, "more after the checksum line"},
		{"manifest edited", func(l []string) []string { l[0] = strings.Replace(l[0], `"format":`, `"format": `, 1); return l }, "does not match"},
		{"not a unit line", func(l []string) []string { l[2] = `{"unit":1,"lin":[1,1]}`; return l }, "neither a unit line"},
		{"a line not JSON", func(l []string) []string { l[2] = `{"unit":1,"line":[1,}`; return l }, "not one JSON value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeShards(t, dir, 10, 3, job, 0)
			p := filepath.Join(dir, FileName(2, 3))
			b, _ := os.ReadFile(p)
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			os.WriteFile(p, []byte(strings.Join(c.edit(lines), "\n")+"\n"), 0o644)
			emitted := 0
			_, err := Merge(dir, func(int, []byte) error { emitted++; return nil })
			if err == nil || !strings.Contains(err.Error(), c.says) || !strings.HasPrefix(err.Error(), p) || emitted != 0 {
				t.Errorf("err %v, %d lines emitted; want one naming %s with %q, nothing emitted", err, emitted, p, c.says)
			}
			if err := CheckFile(dir, 2, 3, 10, []byte(job), 0); err == nil {
				t.Error("CheckFile: the damaged file verifies")
			}
			if Complete(dir, 2, 3, []byte(job)) {
				t.Error("Complete: the damaged file is complete")
			}
		})
	}
	// A forger who recomputes the checksum of reordered units still
	// meets the check of the units' order.
	dir := t.TempDir()
	writeShards(t, dir, 10, 3, job, 0)
	p := filepath.Join(dir, FileName(2, 3))
	b, _ := os.ReadFile(p)
	lines := strings.Split(string(b), "\n")
	lines[1], lines[3] = lines[3], lines[1]
	os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644)
	reseal(t, p)
	if _, _, err := merged(dir); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("reordered and resealed: %v", err)
	}
	if err := CheckFile(dir, 1, 3, 10, []byte(job), 0); err != nil {
		t.Errorf("shard 1 intact: %v", err)
	}
}

// TestOpenBounds: a manifest's n over MaxShards (the 4e18 of a hostile
// file), a manifest line over MaxManifest, a unit line over the line
// limit, a FIFO or a device among the shard files, and 9,999 missing
// shards of 10,000 are refused in one line, without reading or building
// more than the bounds.
func TestOpenBounds(t *testing.T) {
	manifest := func(of, units int) string {
		return fmt.Sprintf(`{"shard":1,"of":%d,"units":%d,"unit":"agent","job":%s,"args":["btai","run"],"format":"jsonl"}`, of, units, job)
	}
	for _, c := range []struct {
		name, text, says string
	}{
		{"n over the bound", manifest(4000000000000000000, 10) + "\n", `"of" 4000000000000000000: want 1..10000`},
		{"n a float", strings.Replace(manifest(4, 10), `"of":4`, `"of":4e18`, 1) + "\n", "Manifest.of"},
		{"units over the bound", manifest(4, 1<<41) + "\n", `"units"`},
		{"a manifest line over 1 MiB", manifest(4, 10)[:20] + strings.Repeat(" ", MaxManifest) + "\n", "longer than the limit of 1048576 bytes"},
		{"a repeated key", strings.Replace(manifest(4, 10), `"of":4`, `"of":4,"of":2`, 1) + "\n", `duplicate key "of"`},
		{"args of another command", strings.Replace(manifest(1, 10), `["btai","run"]`, `["dot","m.json","-o","x.dot"]`, 1) + "\n", `do not run the job's command`},
		{"unknown field", strings.Replace(manifest(1, 10), `"format"`, `"run":"x","format"`, 1) + "\n", `unknown field`},
		{"9,999 of 10,000 missing", manifest(10000, 1<<40) + "\n", "9999 of 10000 shards missing (units 2, 10002,"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "shard-1-of-4.jsonl"), []byte(c.text), 0o644)
			_, err := Open(dir, 0)
			if err == nil || !strings.Contains(err.Error(), c.says) || len(err.Error()) > 2000 {
				t.Errorf("Open: %.300v; want one line with %q", err, c.says)
			}
		})
	}
	t.Run("a unit line over the limit", func(t *testing.T) {
		dir := t.TempDir()
		w, err := Create(dir, &Manifest{Shard: 1, Of: 1, Units: 1, Unit: "agent", Job: []byte(job), Args: args})
		if err != nil {
			t.Fatal(err)
		}
		w.Line(0, []byte(`"`+strings.Repeat("x", 200)+`"`))
		w.Commit()
		set, err := Open(dir, 4)
		if err == nil {
			err = set.Verify(nil)
		}
		if err == nil || !strings.Contains(err.Error(), "line 2: longer than the limit of 132 bytes") {
			t.Errorf("Verify: %v", err)
		}
	})
	for _, special := range []string{"fifo", "device", "directory"} {
		t.Run(special, func(t *testing.T) {
			dir := t.TempDir()
			writeShards(t, dir, 10, 2, job, 0)
			p := filepath.Join(dir, FileName(2, 2))
			os.Remove(p)
			switch special {
			case "fifo":
				if err := syscall.Mkfifo(p, 0o644); err != nil {
					t.Skip(err)
				}
			case "device":
				os.Symlink("/dev/zero", p)
			case "directory":
				os.Mkdir(p, 0o755)
			}
			_, err := Open(dir, 0)
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("Open: %v", err)
			}
		})
	}
	if _, err := Open(filepath.Join(t.TempDir(), "x"), 0); err == nil {
		t.Error("Open of a missing directory: no error")
	}
	w, err := Create(t.TempDir(), &Manifest{Shard: 1, Of: 1, Units: 1, Unit: "agent", Job: []byte(job), Args: args})
	if err != nil {
		t.Fatal(err)
	}
	w.MaxLine = 4
	if err := w.Line(0, []byte("[1,2,3]")); err == nil || !strings.Contains(err.Error(), "over the limit of 4 bytes") {
		t.Errorf("Line over MaxLine: %v", err)
	}
	w.Abort()
}
