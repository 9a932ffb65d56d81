package shard

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

// FileError is a fault of a shard file (or of the set of them): the file,
// the line (0 when the fault is not one line's) and what is wrong.
type FileError struct {
	Path string
	Line int64
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: line %d: %s", e.Path, e.Line, e.Msg)
	}
	return e.Path + ": " + e.Msg
}

func fault(path string, line int64, format string, args ...any) *FileError {
	return &FileError{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// newline is what ends a line, for the hash.
var newline = []byte{'\n'}

// shardFile is one shard file being read.
type shardFile struct {
	path    string
	m       *Manifest
	f       *os.File
	r       *bufio.Reader
	head    []byte // the manifest line as first read, for the later passes
	maxLine int    // the longest unit line, its frame included
	h       hash.Hash
	lineNo  int64 // of the line last read (1: the manifest)
	lines   int64 // unit lines read
	buf     []byte
	verify  bool // check that every output line is one JSON value (the first pass)
	next    bool // a unit line is at hand: unit and line
	unit    int
	line    []byte
}

// openFile opens the shard file path (a regular file: a FIFO, a device
// or a directory is refused before it is opened) and reads its manifest;
// bufSize is the size of its reader.
func openFile(path string, maxLine, bufSize int) (*shardFile, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fault(path, 0, "%s, not a regular file: a shard file is one --shard wrote", kind(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	s := &shardFile{path: path, f: f, r: bufio.NewReaderSize(f, bufSize), maxLine: maxLine + frame, h: sha256.New()}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fault(path, 0, "not a regular file")
	}
	if err := s.readManifest(); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// kind names the type of a file that is not a regular file.
func kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// readLine returns the next line without its newline (valid until the
// next read), io.EOF at the end of the file; a line over limit bytes, or
// a last line without a newline, is a fault.
func (s *shardFile) readLine(limit int) ([]byte, error) {
	s.buf = s.buf[:0]
	for {
		b, err := s.r.ReadSlice('\n')
		if len(s.buf)+len(b) > limit+1 {
			return nil, fault(s.path, s.lineNo+1, "longer than the limit of %d bytes (a damaged shard file, or one written with a larger ARBOR_MAX_INPUT)", limit)
		}
		switch {
		case err == bufio.ErrBufferFull:
			if n := len(s.buf) + len(b); n > cap(s.buf) {
				// Twice the capacity, but not past the limit.
				grown := make([]byte, len(s.buf), min(max(2*cap(s.buf), n), limit+1+len(b)))
				s.buf = grown[:copy(grown, s.buf)]
			}
			s.buf = append(s.buf, b...)
			continue
		case err == io.EOF && len(s.buf)+len(b) == 0:
			return nil, io.EOF
		case err == io.EOF:
			return nil, fault(s.path, s.lineNo+1, "no newline at its end: the file is cut short%s", s.again())
		case err != nil:
			return nil, &FileError{Path: s.path, Msg: err.Error()}
		}
		s.lineNo++
		if len(s.buf) == 0 {
			return b[:len(b)-1], nil
		}
		s.buf = append(s.buf, b...)
		return s.buf[:len(s.buf)-1], nil
	}
}

// again is the advice of a damaged file: run its shard again.
func (s *shardFile) again() string {
	if s.m == nil {
		return ""
	}
	return fmt.Sprintf(" (a damaged shard file: run --shard %d/%d again)", s.m.Shard, s.m.Of)
}

// readManifest reads and checks the manifest line, at the start of the
// file: the first time it keeps it (head); later, it must be the same.
func (s *shardFile) readManifest() error {
	line, err := s.readLine(MaxManifest)
	if err == io.EOF {
		return fault(s.path, 0, "empty, not a shard file")
	}
	if err != nil {
		return err
	}
	s.h.Write(line)
	s.h.Write(newline)
	if s.head != nil {
		if !bytes.Equal(line, s.head) {
			return fault(s.path, 1, "the manifest changed while merge read the file")
		}
		return nil
	}
	s.head = append([]byte(nil), line...)
	m, err := parseManifest(line)
	if err != nil {
		return fault(s.path, 1, "not a shard manifest: %v", err)
	}
	s.m = m
	return nil
}

// parseManifest reads and checks a manifest line: one JSON object without
// a repeated key, every field of its type and within the bounds.
func parseManifest(line []byte) (*Manifest, error) {
	if err := CheckJSON(line); err != nil {
		return nil, err
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	var j map[string]json.RawMessage
	switch {
	case m.Of < 1 || m.Of > MaxShards:
		return nil, fmt.Errorf(`"of" %d: want 1..%d shards`, m.Of, MaxShards)
	case m.Shard < 1 || m.Shard > m.Of:
		return nil, fmt.Errorf(`"shard" %d: want 1..%d ("of")`, m.Shard, m.Of)
	case m.Units < 0 || m.Units > MaxUnits:
		return nil, fmt.Errorf(`"units" %d: want 0..%d`, m.Units, int64(MaxUnits))
	case !slices.Contains(unitNames, m.Unit):
		return nil, fmt.Errorf(`"unit" %q: want %s`, m.Unit, strings.Join(unitNames, ", "))
	case len(m.Job) == 0 || json.Unmarshal(m.Job, &j) != nil:
		return nil, fmt.Errorf(`"job": want the job's provenance line, an object`)
	case m.Lines != "jsonl" && m.Lines != "csv":
		return nil, fmt.Errorf(`"format" %q: want jsonl or csv`, m.Lines)
	case m.Lines != "csv" && len(m.Head) > 0:
		return nil, fmt.Errorf(`"head": only with "format" csv`)
	case !argsRun(m.Args, m.Command()):
		return nil, fmt.Errorf(`"args" %q do not run the job's command %q`, m.Args, m.Command())
	}
	return &m, nil
}

// advance reads the next line: a unit line (next is then true) or the
// checksum line, which must be the last and match what was read.
func (s *shardFile) advance() error {
	s.next = false
	line, err := s.readLine(s.maxLine)
	if err == io.EOF {
		return fault(s.path, 0, "no checksum line at its end: the file is cut short%s", s.again())
	}
	if err != nil {
		return err
	}
	if u, out, ok := parseLine(line); ok {
		s.h.Write(line)
		s.h.Write(newline)
		s.lines++
		if s.verify {
			if f, _ := jsonread.Check(out); f != jsonread.Valid {
				return fault(s.path, s.lineNo, "unit %d's line is not one JSON value%s", u+1, s.again())
			}
			if s.m.Lines == "csv" && out[0] != '"' {
				return fault(s.path, s.lineNo, "unit %d's line is not a CSV row in a JSON string", u+1)
			}
		}
		s.next, s.unit, s.line = true, u, out
		return nil
	}
	if !bytes.HasPrefix(line, []byte(`{"lines":`)) {
		return fault(s.path, s.lineNo, `neither a unit line {"unit":N,"line":...} nor the checksum line%s`, s.again())
	}
	if !bytes.Equal(line, trailer(s.lines, s.h.Sum(nil))) {
		return fault(s.path, s.lineNo, "the checksum line does not match the manifest and %d unit lines before it: the file was edited, cut or reordered%s", s.lines, s.again())
	}
	if _, err := s.r.ReadByte(); err != io.EOF {
		return fault(s.path, s.lineNo+1, "more after the checksum line%s", s.again())
	}
	return nil
}

// rewind goes back to the first unit line of the file, checking that the
// manifest is the one read first.
func (s *shardFile) rewind() error {
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return &FileError{Path: s.path, Msg: err.Error()}
	}
	s.r.Reset(s.f)
	s.h.Reset()
	s.lineNo, s.lines = 0, 0
	if err := s.readManifest(); err != nil {
		return err
	}
	return s.advance()
}

// walk reads the unit lines of files, each checked, in unit order: files[k-1]
// is shard k's file of n, and the units from first in steps of step (every
// unit when files holds every shard, those of one shard otherwise),
// calling fn with each. Every file must hold its units, each with at least
// one line, in order, and end with its checksum line. With verify, every
// output line must be one JSON value, and an error of fn is a fault of the
// file's line; without, the checksum alone stands for what the first pass
// checked, and fn's errors are returned as they are.
func walk(files []*shardFile, units, first, step int, fn func(unit int, line []byte) error, verify bool) error {
	n := len(files)
	for _, s := range files {
		if s != nil {
			s.verify = verify
			if err := s.rewind(); err != nil {
				return err
			}
		}
	}
	for u := first; u < units; u += step {
		s := files[u%n]
		if !s.next || s.unit != u {
			what := "ends"
			if s.next {
				what = fmt.Sprintf("has unit %d", s.unit+1)
			}
			return fault(s.path, s.lineNo, "unit %d (counted from 1) missing: the file %s there%s", u+1, what, s.again())
		}
		for s.next && s.unit == u {
			if fn != nil {
				if err := fn(u, s.line); err != nil {
					var fe *FileError
					if !verify || errors.As(err, &fe) {
						return err
					}
					return fault(s.path, s.lineNo, "%v", err)
				}
			}
			if err := s.advance(); err != nil {
				return err
			}
		}
	}
	for _, s := range files {
		if s != nil && s.next {
			return fault(s.path, s.lineNo, "unit %d (counted from 1) is not among the shard's units of the job's %d, or comes out of order%s", s.unit+1, units, s.again())
		}
	}
	return nil
}

// Set is the shard files of one job, opened and checked by Open.
type Set struct {
	Dir string
	// M is the job's manifest: that of shard 1.
	M     *Manifest
	files []*shardFile // files[k-1] is shard k's
}

// Open opens the shard files of dir (shard-*.jsonl) and checks their
// manifests: the shards of one job (the same job line but for --jobs and
// --progress, the same n, units and format), none there twice, none
// missing. maxLine bounds a unit's output line (0: DefaultMaxLine). It
// reads only the manifests: Verify reads the rest.
func Open(dir string, maxLine int) (*Set, error) {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fault(dir, 0, "not a directory (want the --out DIR of the shards)")
	}
	names, err := filepath.Glob(filepath.Join(dir, "shard-*.jsonl"))
	switch {
	case err != nil:
		return nil, err
	case len(names) == 0:
		return nil, fault(dir, 0, "no shard file (shard-k-of-n.jsonl)")
	case len(names) > MaxShards:
		return nil, fault(dir, 0, "%d shard files, over the limit of %d shards", len(names), MaxShards)
	}
	sort.Strings(names)
	// One reader per file: 64 KiB each, less beyond 256 files, so that
	// the readers of MaxShards files take 40 MiB.
	bufSize := max(4<<10, min(64<<10, (16<<20)/len(names)))
	var opened []*shardFile
	fail := func(err error) (*Set, error) {
		for _, s := range opened {
			s.f.Close()
		}
		return nil, err
	}
	byK := map[int]*shardFile{}
	for _, name := range names {
		s, err := openFile(name, maxLine, bufSize)
		if err != nil {
			return fail(err)
		}
		opened = append(opened, s)
		first := opened[0]
		switch {
		case s.m.Of != first.m.Of:
			return fail(fmt.Errorf("mismatched shards: %s is shard %d of %d, %s of %d", name, s.m.Shard, s.m.Of, first.path, first.m.Of))
		case s.m.Units != first.m.Units || s.m.Unit != first.m.Unit:
			return fail(fmt.Errorf("mismatched shards: %s has %d units (%s), %s %d (%s)", name, s.m.Units, s.m.Unit, first.path, first.m.Units, first.m.Unit))
		case s.m.Lines != first.m.Lines || !slices.Equal(s.m.Head, first.m.Head):
			return fail(fmt.Errorf("mismatched shards: %s and %s differ in their format or CSV header", first.path, name))
		case !SameJob(s.m.Job, first.m.Job):
			return fail(fmt.Errorf("mismatched shards: %s and %s are of different jobs (%s)", first.path, name, JobDiff(first.m.Job, s.m.Job)))
		}
		if d := byK[s.m.Shard]; d != nil {
			return fail(fmt.Errorf("duplicate shard %d/%d: %s and %s", s.m.Shard, s.m.Of, d.path, name))
		}
		byK[s.m.Shard] = s
	}
	n, units := opened[0].m.Of, opened[0].m.Units
	if len(byK) < n {
		return fail(missing(dir, n, units, byK))
	}
	set := &Set{Dir: dir, files: make([]*shardFile, n)}
	for k, s := range byK {
		set.files[k-1] = s
	}
	set.M = set.files[0].m
	return set, nil
}

// missing is the error of the shards of n missing from byK: how many, the
// first 20 of them and the first 20 of their units.
func missing(dir string, n, units int, byK map[int]*shardFile) error {
	var flags, us []string
	count := 0
	for k := 1; k <= n; k++ {
		if byK[k] != nil {
			continue
		}
		count++
		if len(flags) == 20 {
			continue
		}
		flags = append(flags, fmt.Sprintf("--shard %d/%d", k, n))
		for u := k - 1; u < units && len(us) <= 20; u += n {
			if len(us) == 20 {
				us = append(us, "...")
			} else {
				us = append(us, strconv.Itoa(u+1))
			}
		}
	}
	if count > len(flags) {
		flags = append(flags, fmt.Sprintf("and %d more", count-len(flags)))
	}
	what := "no unit"
	if len(us) > 0 {
		what = "units " + strings.Join(us, ", ")
	}
	return fault(dir, 0, "%d of %d shards missing (%s, counted from 1): run %s", count, n, what, strings.Join(flags, ", "))
}

// Close closes the files.
func (s *Set) Close() {
	for _, f := range s.files {
		f.f.Close()
	}
}

// Verify reads every shard file through, in unit order, and checks it:
// each line of its own units (the unit ranks k, k+n, ... of shard k of n,
// each with at least one line, in order), within the line limit, one JSON
// value (for CSV, a string), and the file's checksum line matching what
// came before it (so that an edited, truncated or reordered file is
// named). check, when not nil, sees every output line in unit order; its
// error ends the verification, naming the file and line. Nothing is
// written: a caller writes the merged output (Each, WriteLines) once Verify
// has passed.
func (s *Set) Verify(check func(unit int, line []byte) error) error {
	return walk(s.files, s.M.Units, 0, 1, check, true)
}

// Each reads the shard files again, checked as Verify does, and calls fn
// with every output line in unit order (valid only during the call). A
// file that changed since Verify is named, though fn has then seen some
// of the lines.
func (s *Set) Each(fn func(unit int, line []byte) error) error {
	return walk(s.files, s.M.Units, 0, 1, fn, false)
}

// WriteLines writes every output line with a newline, in unit order (Each):
// for CSV shards the rows held in the JSON strings, as text.
func (s *Set) WriteLines(w io.Writer) error {
	var row string
	return s.Each(func(_ int, line []byte) error {
		if s.M.Lines == "csv" {
			if err := json.Unmarshal(line, &row); err != nil {
				return err
			}
			_, err := io.WriteString(w, row+"\n")
			return err
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
		_, err := w.Write([]byte{'\n'})
		return err
	})
}

// Merge opens the shard files of dir (Open), verifies them (Verify) and
// calls emit with every output line in unit order (Each). It returns the
// job's manifest (that of shard 1). Every error is one line naming the
// file: a missing shard names its units and the --shard to run again.
func Merge(dir string, emit func(unit int, line []byte) error) (*Manifest, error) {
	set, err := Open(dir, 0)
	if err != nil {
		return nil, err
	}
	defer set.Close()
	if err := set.Verify(nil); err != nil {
		return nil, err
	}
	return set.M, set.Each(emit)
}

// ReadManifest reads the manifest line of the shard file path.
func ReadManifest(path string) (*Manifest, error) {
	s, err := openFile(path, DefaultMaxLine, 4<<10)
	if err != nil {
		return nil, err
	}
	s.f.Close()
	return s.m, nil
}

// CheckFile checks that dir holds shard k of n's complete file for job
// (the same provenance line but for --jobs and --progress), of units
// units, verified as Verify verifies it: --resume skips such a shard and
// runs one whose file fails, with the error saying why.
func CheckFile(dir string, k, n, units int, job []byte, maxLine int) error {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	s, err := openFile(filepath.Join(dir, FileName(k, n)), maxLine, 64<<10)
	if err != nil {
		return err
	}
	defer s.f.Close()
	switch {
	case s.m.Shard != k || s.m.Of != n:
		return fault(s.path, 1, "the manifest is of shard %d/%d", s.m.Shard, s.m.Of)
	case !SameJob(s.m.Job, job):
		return fault(s.path, 1, "of another job (%s)", JobDiff(s.m.Job, job))
	case s.m.Units != units:
		return fault(s.path, 1, "of %d units, the job has %d", s.m.Units, units)
	}
	files := make([]*shardFile, n)
	files[k-1] = s
	return walk(files, units, k-1, n, nil, true)
}

// Complete reports whether dir holds shard k of n's complete file for job
// (CheckFile, whatever its number of units).
func Complete(dir string, k, n int, job []byte) bool {
	m, err := ReadManifest(filepath.Join(dir, FileName(k, n)))
	return err == nil && CheckFile(dir, k, n, m.Units, job, 0) == nil
}
