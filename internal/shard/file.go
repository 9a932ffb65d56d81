package shard

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"path/filepath"
	"strconv"

	"github.com/arbor-ai/arbor/internal/output"
)

// The bounds of a shard file's lines (docs/cluster.md, "Bounds").
const (
	// MaxManifest is the longest manifest line, its newline aside.
	MaxManifest = 1 << 20
	// DefaultMaxLine is the longest output line of a unit (LINE in
	// {"unit":U,"line":LINE}) when the caller gives no other: arbor's
	// input limit, ARBOR_MAX_INPUT, by default.
	DefaultMaxLine = 64 << 20
	// frame is the most a unit line adds to its output line,
	// {"unit":U,"line":...}, and more than the checksum line's length.
	frame = 128
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
	Args  []string        `json:"args"`           // the command's arguments (arbor's, the shard flags left out): the job's command and flags as given
	Lines string          `json:"format"`         // "jsonl", or "csv": each line a JSON string holding a CSV row
	Head  []string        `json:"head,omitempty"` // csv: the lines before the first unit's (the header)
	From  string          `json:"from,omitempty"` // where k and n came from: "--shard" or the scheduler's variables
}

// unitNames are the values of Manifest.Unit.
var unitNames = []string{"agent", "episode", "subject", "point"}

// Writer writes one shard's file, DIR/shard-k-of-n.jsonl, atomically:
// nothing is at that name until Commit, which ends the file with its
// checksum line, {"lines":N,"sha256":"HEX"}: the number of unit lines
// and the SHA-256 of every byte before it (the manifest line and the unit
// lines, newlines included).
type Writer struct {
	f     *output.AtomicFile
	w     *bufio.Writer
	h     hash.Hash
	out   io.Writer // w and h
	lines int64
	buf   []byte
	// MaxLine bounds an output line (0: DefaultMaxLine): a longer one is
	// an error here rather than a file that merge refuses.
	MaxLine int
}

// Create starts the file of shard m.Shard of m.Of in dir and writes the
// manifest line.
func Create(dir string, m *Manifest) (*Writer, error) {
	if m.Lines == "" {
		m.Lines = "jsonl"
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if len(b) > MaxManifest {
		return nil, fmt.Errorf("the manifest line would take %d bytes, over the limit of %d", len(b), MaxManifest)
	}
	f, err := output.CreateFile(filepath.Join(dir, FileName(m.Shard, m.Of)))
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, w: bufio.NewWriterSize(f, 1<<16), h: sha256.New()}
	w.out = io.MultiWriter(w.w, w.h)
	if _, err := w.out.Write(append(b, '\n')); err != nil {
		f.Abort()
		return nil, err
	}
	return w, nil
}

// Line writes one output line of unit (from 0); line is a JSON value
// without its newline. A unit's lines must come together, units in
// increasing order.
func (w *Writer) Line(unit int, line []byte) error {
	line = bytes.TrimRight(line, "\n")
	limit := w.MaxLine
	if limit <= 0 {
		limit = DefaultMaxLine
	}
	switch {
	case len(line) > limit:
		return fmt.Errorf("unit %d: an output line of %d bytes, over the limit of %d bytes of a shard's line (set ARBOR_MAX_INPUT to raise it)", unit+1, len(line), limit)
	case bytes.IndexByte(line, '\n') >= 0:
		return fmt.Errorf("unit %d: an output line holding a newline", unit+1)
	}
	w.buf = append(w.buf[:0], `{"unit":`...)
	w.buf = strconv.AppendInt(w.buf, int64(unit), 10)
	w.buf = append(w.buf, `,"line":`...)
	w.buf = append(w.buf, line...)
	w.buf = append(w.buf, "}\n"...)
	w.lines++
	_, err := w.out.Write(w.buf)
	return err
}

// trailer is the checksum line of a file of lines unit lines whose bytes
// before it hash to sum.
func trailer(lines int64, sum []byte) []byte {
	return fmt.Appendf(nil, `{"lines":%d,"sha256":"%s"}`, lines, hex.EncodeToString(sum))
}

// Commit writes the checksum line, flushes the file and renames it into
// place.
func (w *Writer) Commit() error {
	_, err := w.w.Write(append(trailer(w.lines, w.h.Sum(nil)), '\n'))
	if err == nil {
		err = w.w.Flush()
	}
	if err != nil {
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
		if u > MaxUnits || (i > len(pre) && b[len(pre)] == '0') {
			return 0, nil, false
		}
	}
	if i == len(pre) || !bytes.HasPrefix(b[i:], []byte(mid)) {
		return 0, nil, false
	}
	return u, b[i+len(mid) : len(b)-1], true
}
