package shard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/internal/output"
)

// Manifest is the first line of a shard file: the job (the provenance
// line of the command: arbor's version, the command, the files read with
// their SHA-256 and every setting), what a unit is, the number of units,
// and which shard this is.
type Manifest struct {
	Shard int             `json:"shard"`          // k, from 1
	Of    int             `json:"of"`             // n
	Units int             `json:"units"`          // the units of the whole job
	Unit  string          `json:"unit"`           // what a unit is: "agent", "episode", "subject", "point"
	Job   json.RawMessage `json:"job"`            // the command's provenance line
	Args  []string        `json:"args"`           // the command's arguments (arbor's, the shard flags left out), for merge
	Lines string          `json:"format"`         // "jsonl", or "csv": each line a JSON string holding a CSV row
	Head  []string        `json:"head,omitempty"` // csv: the lines before the first unit's (the header)
	From  string          `json:"from,omitempty"` // where k and n came from: "--shard" or the scheduler's variables
}

// Writer writes one shard's file, DIR/shard-k-of-n.jsonl, atomically:
// nothing is at that name until Commit.
type Writer struct {
	f   *output.AtomicFile
	w   *bufio.Writer
	buf []byte
}

// Create starts the file of shard m.Shard of m.Of in dir and writes the
// manifest line.
func Create(dir string, m *Manifest) (*Writer, error) {
	if m.Lines == "" {
		m.Lines = "jsonl"
	}
	f, err := output.CreateFile(filepath.Join(dir, FileName(m.Shard, m.Of)))
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, w: bufio.NewWriterSize(f, 1<<16)}
	b, err := json.Marshal(m)
	if err == nil {
		b = append(b, '\n')
		_, err = w.w.Write(b)
	}
	if err != nil {
		f.Abort()
		return nil, err
	}
	return w, nil
}

// Line writes one output line of unit (from 0); line is a JSON value
// without its newline. A unit's lines must come together, units in
// increasing order.
func (w *Writer) Line(unit int, line []byte) error {
	w.buf = append(w.buf[:0], `{"unit":`...)
	w.buf = strconv.AppendInt(w.buf, int64(unit), 10)
	w.buf = append(w.buf, `,"line":`...)
	w.buf = append(w.buf, bytes.TrimRight(line, "\n")...)
	w.buf = append(w.buf, "}\n"...)
	_, err := w.w.Write(w.buf)
	return err
}

// Commit flushes the file and renames it into place.
func (w *Writer) Commit() error {
	if err := w.w.Flush(); err != nil {
		w.f.Abort()
		return err
	}
	return w.f.Commit()
}

// Abort discards the file (safe after Commit).
func (w *Writer) Abort() { w.f.Abort() }

// parseLine splits a unit line into the unit and the output line.
func parseLine(b []byte) (int, []byte, bool) {
	const pre, mid = `{"unit":`, `,"line":`
	if !bytes.HasPrefix(b, []byte(pre)) || len(b) < len(pre)+len(mid)+2 || b[len(b)-1] != '}' {
		return 0, nil, false
	}
	i, u := len(pre), 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		u = u*10 + int(b[i]-'0')
		if u > 1<<40 {
			return 0, nil, false
		}
	}
	if i == len(pre) || !bytes.HasPrefix(b[i:], []byte(mid)) {
		return 0, nil, false
	}
	return u, b[i+len(mid) : len(b)-1], true
}

// ReadManifest reads the manifest line of the shard file path.
func ReadManifest(path string) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readManifest(bufio.NewReader(f), path)
}

func readManifest(r *bufio.Reader, path string) (*Manifest, error) {
	line, err := r.ReadBytes('\n')
	if err != nil && (err != io.EOF || len(line) == 0) {
		if err == io.EOF {
			return nil, fmt.Errorf("%s: empty, not a shard file", path)
		}
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(line, &m); err != nil || m.Of < 1 || m.Shard < 1 || m.Shard > m.Of || m.Units < 0 || len(m.Job) == 0 {
		return nil, fmt.Errorf("%s: the first line is not a shard manifest", path)
	}
	return &m, nil
}

// Complete reports whether dir holds shard k of n's file for job (the
// same provenance line): --resume skips such a shard. Shard files are
// renamed into place when complete, so one that exists is whole.
func Complete(dir string, k, n int, job []byte) bool {
	m, err := ReadManifest(filepath.Join(dir, FileName(k, n)))
	return err == nil && m.Shard == k && m.Of == n && sameJob(m.Job, job)
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// outputFree are the settings that never change what a command prints:
// shards of one job may differ in them (each array task may use the cores
// it was given).
var outputFree = []string{"jobs", "progress"}

// sameJob reports whether two provenance lines are of one job: equal once
// compacted, but for the settings in outputFree.
func sameJob(a, b []byte) bool {
	if bytes.Equal(compact(a), compact(b)) {
		return true
	}
	var x, y map[string]json.RawMessage
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	strip := func(m map[string]json.RawMessage) []byte {
		var set map[string]json.RawMessage
		if json.Unmarshal(m["settings"], &set) == nil && set != nil {
			for _, k := range outputFree {
				delete(set, k)
			}
			m["settings"], _ = json.Marshal(set)
		}
		out, _ := json.Marshal(m) // map keys sorted: a canonical form
		return out
	}
	return bytes.Equal(strip(x), strip(y))
}

// shardFile is one shard being merged.
type shardFile struct {
	path string
	m    *Manifest
	f    *os.File
	r    *bufio.Reader
	next []byte // the next unit line, nil at the end
	unit int
	line []byte
	err  error
}

func (s *shardFile) advance() {
	b, err := s.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		// A line longer than the buffer: gather it.
		full := append([]byte(nil), b...)
		for err == bufio.ErrBufferFull {
			b, err = s.r.ReadSlice('\n')
			full = append(full, b...)
		}
		b = full
	}
	if err != nil && err != io.EOF {
		s.err, s.next = err, nil
		return
	}
	if len(b) == 0 {
		s.next = nil
		return
	}
	if err == io.EOF {
		s.err, s.next = fmt.Errorf("%s: the last line has no newline (a damaged shard file)", s.path), nil
		return
	}
	b = b[:len(b)-1]
	u, line, ok := parseLine(b)
	if !ok {
		s.err, s.next = fmt.Errorf("%s: a line that is not {\"unit\":N,\"line\":...} (a damaged shard file)", s.path), nil
		return
	}
	s.next, s.unit, s.line = b, u, line
}

// Merge reads the shard files in dir (shard-*.jsonl), checks that they
// are the shards of one job (the same manifest but for k, n agreeing) and
// that none is missing or there twice, and calls emit with every output
// line in unit order (a unit's lines in the order written). It returns the
// job's manifest (that of shard 1, Shard and Of aside). Every error is one
// line: a missing shard names its units and the --shard to run again.
// emit's line is valid only during the call.
func Merge(dir string, emit func(unit int, line []byte) error) (*Manifest, error) {
	files, err := open(dir)
	for _, s := range files {
		defer s.f.Close()
	}
	if err != nil {
		return nil, err
	}
	m := files[0].m
	for u := 0; u < m.Units; u++ {
		s := files[u%m.Of]
		if s.err != nil {
			return nil, s.err
		}
		if s.next == nil || s.unit != u {
			what := "ends"
			if s.next != nil {
				what = fmt.Sprintf("has unit %d", s.unit)
			}
			return nil, fmt.Errorf("%s: unit %d missing (the file %s there; run --shard %d/%d again)", s.path, u, what, s.m.Shard, m.Of)
		}
		for s.next != nil && s.unit == u {
			if err := emit(u, s.line); err != nil {
				return nil, err
			}
			s.advance()
		}
		if s.err != nil {
			return nil, s.err
		}
	}
	for _, s := range files {
		if s.next != nil {
			return nil, fmt.Errorf("%s: unit %d is not among the job's %d units or comes twice (a damaged shard file)", s.path, s.unit, m.Units)
		}
	}
	return m, nil
}

// Check checks the shard files of dir as Merge does before it reads
// their lines (one job, none missing or there twice) and returns the
// manifest of shard 1.
func Check(dir string) (*Manifest, error) {
	files, err := open(dir)
	for _, s := range files {
		s.f.Close()
	}
	if err != nil {
		return nil, err
	}
	return files[0].m, nil
}

// open opens and checks the shard files of dir.
func open(dir string) ([]*shardFile, error) {
	names, err := filepath.Glob(filepath.Join(dir, "shard-*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s: no shard file (shard-k-of-n.jsonl)", dir)
	}
	sort.Strings(names)
	var files []*shardFile
	byK := map[int]*shardFile{}
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return files, err
		}
		s := &shardFile{path: name, f: f, r: bufio.NewReaderSize(f, 1<<16)}
		files = append(files, s)
		if s.m, err = readManifest(s.r, name); err != nil {
			return files, err
		}
		first := files[0]
		switch {
		case s.m.Of != first.m.Of:
			return files, fmt.Errorf("mismatched shards: %s is shard %d of %d, %s of %d", name, s.m.Shard, s.m.Of, first.path, first.m.Of)
		case s.m.Units != first.m.Units || s.m.Unit != first.m.Unit:
			return files, fmt.Errorf("mismatched shards: %s has %d units (%s), %s %d (%s)", name, s.m.Units, s.m.Unit, first.path, first.m.Units, first.m.Unit)
		case !sameJob(s.m.Job, first.m.Job):
			return files, fmt.Errorf("mismatched shards: %s and %s are of different jobs (%s)", first.path, name, JobDiff(first.m.Job, s.m.Job))
		}
		if d := byK[s.m.Shard]; d != nil {
			return files, fmt.Errorf("duplicate shard %d/%d: %s and %s", s.m.Shard, s.m.Of, d.path, name)
		}
		byK[s.m.Shard] = s
		s.advance()
	}
	n := files[0].m.Of
	var missing []string
	var units []string
	for k := 1; k <= n; k++ {
		if byK[k] != nil {
			continue
		}
		missing = append(missing, fmt.Sprintf("--shard %d/%d", k, n))
		for _, u := range Units(files[0].m.Units, k, n) {
			if len(units) == 20 {
				units = append(units, "...")
				break
			}
			units = append(units, strconv.Itoa(u+1))
		}
	}
	if len(missing) > 0 {
		what := "no unit"
		if len(units) > 0 {
			what = "units " + strings.Join(units, ", ")
		}
		return files, fmt.Errorf("%s: %d of %d shards missing (%s, counted from 1): run %s", dir, len(missing), n, what, strings.Join(missing, ", "))
	}
	ordered := make([]*shardFile, n)
	for k, s := range byK {
		ordered[k-1] = s
	}
	return ordered, nil
}

// JobDiff names the first difference of two provenance lines: the
// command, a file's hash or a setting ("--iterations 10, 20").
func JobDiff(a, b json.RawMessage) string {
	type job struct {
		Arbor    string          `json:"arbor"`
		Command  string          `json:"command"`
		Files    []output.File   `json:"files"`
		Settings map[string]any  `json:"settings"`
		Resolved json.RawMessage `json:"resolved"`
	}
	var x, y job
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return "their job lines differ"
	}
	switch {
	case x.Command != y.Command:
		return fmt.Sprintf("command %q, %q", x.Command, y.Command)
	case x.Arbor != y.Arbor:
		return fmt.Sprintf("arbor %s, %s", x.Arbor, y.Arbor)
	}
	for i := range max(len(x.Files), len(y.Files)) {
		if i >= len(x.Files) || i >= len(y.Files) || x.Files[i] != y.Files[i] {
			name := func(fs []output.File) string {
				if i >= len(fs) {
					return "none"
				}
				return fmt.Sprintf("%s %s (SHA-256 %.12s)", fs[i].Flag, fs[i].Path, fs[i].SHA256)
			}
			return fmt.Sprintf("file %s, %s", name(x.Files), name(y.Files))
		}
	}
	keys := map[string]bool{}
	for k := range x.Settings {
		keys[k] = true
	}
	for k := range y.Settings {
		keys[k] = true
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		if slices.Contains(outputFree, k) {
			continue
		}
		if fmt.Sprint(x.Settings[k]) != fmt.Sprint(y.Settings[k]) {
			return fmt.Sprintf("--%s %v, %v", k, x.Settings[k], y.Settings[k])
		}
	}
	return "their job lines differ"
}
