package pomdp

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxBehaviourJSONExtra is the largest number of distinct extra keys in
// JSON lines. Rows may name new keys as they go and each row keeps a value
// for every key named so far; the bound keeps memory proportional to the
// input.
const MaxBehaviourJSONExtra = 64

// Defaults of BehaviourOptions.
const (
	DefaultBehaviourMaxBytes     = 64 << 20 // 64 MiB: a file
	DefaultBehaviourMaxLineBytes = 1 << 20  // 1 MiB: a line
)

// BehaviourOptions bounds what a BehaviourReader reads. Nil options, and
// zero or negative fields, mean the defaults.
type BehaviourOptions struct {
	// MaxBytes bounds the bytes read from the input: a longer input is an
	// error, not a truncation (DefaultBehaviourMaxBytes).
	MaxBytes int64
	// MaxLineBytes bounds the length of one line, its newline excluded
	// (DefaultBehaviourMaxLineBytes).
	MaxLineBytes int
}

// BehaviourError is a fault in recorded behaviour: the file, the line of
// the row, the CSV column or JSON field, and what is wrong. Its Error is
// one line:
//
//	pomdp: data.csv:7: column o_reward: unknown outcome "rewrd" (want none, reward, loss or an index 0..2)
//
// A program replaying the data can report its own faults (an observation
// its model gives probability 0) the same way, from TrialRecord.Lines.
type BehaviourError struct {
	File   string // the name given to the reader; "" for none
	Line   int    // 1-based line of the row; 0 when the fault has no line
	Column string // the CSV column ("o_reward") or JSON field ("o.reward"); "" for a whole row
	JSON   bool   // Column names a field of a JSON line
	Msg    string // the fault
}

// Error formats e as "pomdp: file:line: column c: msg" on one line.
func (e *BehaviourError) Error() string {
	var b strings.Builder
	b.WriteString("pomdp: ")
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", oneLine(e.File), e.Line)
	case e.File != "":
		fmt.Fprintf(&b, "%s: ", oneLine(e.File))
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Column != "" {
		if e.JSON {
			b.WriteString("field ")
		} else {
			b.WriteString("column ")
		}
		b.WriteString(colText(e.Column))
		b.WriteString(": ")
	}
	b.WriteString(strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(e.Msg))
	return b.String()
}

// oneLine returns s, quoted when it holds a character that is not
// printable (a newline) so that a message stays on one line.
func oneLine(s string) string {
	for _, c := range s {
		if c == utf8.RuneError || !strconv.IsPrint(c) {
			return strconv.Quote(s)
		}
	}
	return s
}

// colText is a column name from the input as a message shows it.
func colText(s string) string { return oneLine(shorten(s)) }

// SubjectRecord is the recorded behaviour of one subject.
type SubjectRecord struct {
	Subject string
	Trials  []TrialRecord // in file order, trial numbers increasing
	// ExtraColumns names the extra columns whose values TrialRecord.Extra
	// holds, in order; nil without extra columns.
	ExtraColumns []string
}

// TrialRecord is one recorded trial: the observations o_0..o_T and the
// T actions between them, ready for Replay.
type TrialRecord struct {
	Trial int // the trial number, >= 1
	// Obs holds the joint observation index of each step (EncodeObs of
	// its outcomes).
	Obs []int
	// Outcomes holds each step's outcome per modality.
	Outcomes [][]int
	// Actions holds the joint action index (the controls of the
	// controllable factors, the first varying slowest, DecodeAction) taken
	// after each step but the last: len(Obs)-1 entries, -1 for a missed
	// response (NA). A model without a controllable factor has the single
	// action 0.
	Actions []int
	// Lines holds the 1-based source line of each step's row.
	Lines []int
	// Extra holds each step's values of the subject's ExtraColumns; nil
	// without extra columns.
	Extra [][]string
}

// behaviourModel is what the reader and the writer need of a model: the
// columns and the names of outcomes and controls.
type behaviourModel struct {
	m        *Model
	named    bool             // modalities and factors have names: o_<name>, u_<name>
	ctl      []int            // the controllable factors, in order
	obsCol   []string         // CSV column of each modality
	ctlCol   []string         // CSV column of each controllable factor
	modIndex map[string]int   // modality name -> modality
	ctlIndex map[string]int   // controllable factor name -> position in ctl
	outNames []map[string]int // per modality, outcome name -> outcome; nil without names
	ctlNames []map[string]int // per controllable factor, control name -> control
	outWant  []string         // per modality, "none, reward, loss or an index 0..2"
	ctlWant  []string         // per controllable factor
}

func newBehaviourModel(m *Model) *behaviourModel {
	bm := &behaviourModel{m: m, named: m.mods[0].name != "", modIndex: map[string]int{}, ctlIndex: map[string]int{}}
	for i, md := range m.mods {
		col := "o"
		if bm.named {
			col = "o_" + md.name
		}
		bm.obsCol = append(bm.obsCol, col)
		bm.modIndex[md.name] = i
		bm.outNames = append(bm.outNames, nameIndex(md.outcomes))
		bm.outWant = append(bm.outWant, wantText(md.outcomes, "", md.no))
	}
	for f, fc := range m.factors {
		if fc.nu <= 1 {
			continue
		}
		col := "u"
		if bm.named {
			col = "u_" + fc.name
		}
		bm.ctlIndex[fc.name] = len(bm.ctl)
		bm.ctl = append(bm.ctl, f)
		bm.ctlCol = append(bm.ctlCol, col)
		bm.ctlNames = append(bm.ctlNames, nameIndex(fc.controls))
		bm.ctlWant = append(bm.ctlWant, wantText(fc.controls, "NA", fc.nu))
	}
	return bm
}

func nameIndex(names []string) map[string]int {
	if names == nil {
		return nil
	}
	idx := make(map[string]int, len(names))
	for i, s := range names {
		idx[s] = i
	}
	return idx
}

// wantText lists what a value may be: "a, b, c or an index 0..2".
func wantText(names []string, also string, n int) string {
	const most = 8
	var parts []string
	for i, s := range names {
		if also != "" && s == also {
			continue // NA is the missed response, never this name
		}
		if len(names) > most && i == most-2 {
			parts = append(parts, fmt.Sprintf("... (%d names)", len(names)))
			break
		}
		parts = append(parts, oneLine(shorten(s)))
	}
	if also != "" {
		parts = append(parts, also)
	}
	idx := fmt.Sprintf("an index 0..%d", n-1)
	if len(parts) == 0 {
		return idx
	}
	return strings.Join(parts, ", ") + " or " + idx
}

// digits reports whether s is a non-empty run of ASCII digits and returns
// its value, saturated at 1<<62.
func digits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < 1<<58 {
			n = n*10 + int(c-'0')
		} else {
			n = 1 << 62
		}
	}
	return n, true
}

// outcome resolves the text v of modality i: a name, else a decimal index.
// It returns a message on a fault.
func (bm *behaviourModel) outcome(i int, v string) (int, string) {
	if o, ok := bm.outNames[i][v]; ok {
		return o, ""
	}
	if v == "" {
		return 0, fmt.Sprintf("missing outcome (want %s)", bm.outWant[i])
	}
	if n, ok := digits(v); ok {
		return bm.outcomeIndex(i, n, v)
	}
	return 0, fmt.Sprintf("unknown outcome %s (want %s)", quote(v), bm.outWant[i])
}

func (bm *behaviourModel) outcomeIndex(i, n int, text string) (int, string) {
	if n >= bm.m.mods[i].no {
		return 0, fmt.Sprintf("outcome index %s out of range (want %s)", shorten(text), bm.outWant[i])
	}
	return n, ""
}

// actKind is what a row says about the action after it.
type actKind uint8

const (
	actNone   actKind = iota // empty: a trial's last row
	actMissed                // NA: a missed response
	actTaken                 // a control
)

// control resolves the text v of controllable factor k: empty (none), NA,
// a name, else a decimal index.
func (bm *behaviourModel) control(k int, v string) (actKind, int, string) {
	switch v {
	case "":
		return actNone, 0, ""
	case "NA":
		return actMissed, 0, ""
	}
	if c, ok := bm.ctlNames[k][v]; ok {
		return actTaken, c, ""
	}
	if n, ok := digits(v); ok {
		return bm.controlIndex(k, n, v)
	}
	return actNone, 0, fmt.Sprintf("unknown control %s (want %s)", quote(v), bm.ctlWant[k])
}

func (bm *behaviourModel) controlIndex(k, n int, text string) (actKind, int, string) {
	if n >= bm.m.factors[bm.ctl[k]].nu {
		return actNone, 0, fmt.Sprintf("control index %s out of range (want %s)", shorten(text), bm.ctlWant[k])
	}
	return actTaken, n, ""
}

// encodeControls returns the action index of one control per factor
// (factor order; 0 for an uncontrollable factor), or an error naming the
// factor whose control is out of range: the inverse of DecodeAction.
func (m *Model) encodeControls(controls []int) (int, error) {
	if len(controls) != len(m.factors) {
		return 0, fmt.Errorf("pomdp: %d controls, want %d (one per factor)", len(controls), len(m.factors))
	}
	u := 0
	for i, f := range m.factors {
		c := controls[i]
		if c < 0 || c >= f.nu {
			return 0, fmt.Errorf("pomdp: control %d of factor %s: out of range [0, %d)", c, quote(f.name), f.nu)
		}
		u += c * f.stride
	}
	return u, nil
}

// reservedColumn reports whether a column name is one of the format's own
// (subject, trial, step, o, u, o_*, u_*), never an extra column.
func reservedColumn(s string) bool {
	switch s {
	case "subject", "trial", "step", "o", "u":
		return true
	}
	return strings.HasPrefix(s, "o_") || strings.HasPrefix(s, "u_")
}

// lineReader reads the input a line at a time, counting lines and bytes
// and checking each line's length and encoding.
type lineReader struct {
	br      *bufio.Reader
	name    string
	max     int64
	maxLine int
	total   int64
	line    int // number of the last line read
	buf     []byte
	err     error // sticky
}

func newLineReader(r io.Reader, name string, max int64, maxLine int) *lineReader {
	size := 4 << 10 // longer lines are gathered in buf
	if maxLine+1 < size {
		size = maxLine + 1
	}
	return &lineReader{
		br:   bufio.NewReaderSize(io.LimitReader(r, max+1), size),
		name: name, max: max, maxLine: maxLine,
	}
}

// next returns the next line with its newline (none at the end of the
// input), valid until the next call, or io.EOF after the last.
func (l *lineReader) next() ([]byte, error) {
	if l.err != nil {
		return nil, l.err
	}
	l.line++
	line, err := l.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.buf = append(l.buf[:0], line...)
		for err == bufio.ErrBufferFull && len(l.buf) <= l.maxLine+2 {
			line, err = l.br.ReadSlice('\n')
			l.buf = append(l.buf, line...)
		}
		line = l.buf
	}
	l.total += int64(len(line))
	fault := func(format string, args ...any) ([]byte, error) {
		l.err = &BehaviourError{File: l.name, Line: l.line, Msg: fmt.Sprintf(format, args...)}
		return nil, l.err
	}
	if l.total > l.max {
		return fault("file larger than %d bytes (BehaviourOptions.MaxBytes)", l.max)
	}
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
		if n > 0 && line[n-1] == '\r' {
			n--
		}
	}
	if n > l.maxLine {
		return fault("line longer than %d bytes (BehaviourOptions.MaxLineBytes)", l.maxLine)
	}
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return fault("read: %v", err)
	}
	if len(line) == 0 {
		l.line--
		l.err = io.EOF
		return nil, io.EOF
	}
	if l.line == 1 {
		line = bytes.TrimPrefix(line, []byte("\uFEFF"))
	}
	if !utf8.Valid(line) {
		at := 0
		for at < len(line) {
			c, size := utf8.DecodeRune(line[at:])
			if c == utf8.RuneError && size <= 1 {
				break
			}
			at += size
		}
		return fault("not valid UTF-8 (byte %d of the line)", at+1)
	}
	return line, nil
}

// lineSource feeds the lines of a lineReader to encoding/csv, passing its
// errors through.
type lineSource struct {
	lr      *lineReader
	pending []byte
}

func (s *lineSource) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		line, err := s.lr.next()
		if err != nil {
			return 0, err
		}
		s.pending = line
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// colKind is the role of a CSV column.
type colKind uint8

const (
	colExtra colKind = iota
	colSubject
	colTrial
	colStep
	colObs
	colAct
)

type behaviourCol struct {
	kind colKind
	idx  int // the modality, the position in behaviourModel.ctl, or the extra column
}

// behaviourRow is one parsed row.
type behaviourRow struct {
	line        int
	subject     string
	trial, step int
	outcomes    []int
	obs         int
	kind        actKind
	action      int    // the joint action when kind is actTaken
	actCol      string // the first u column, for messages
	actText     string // its value as written
	prevAction  int    // the action after the previous row of the same trial
	extra       []string
}

// BehaviourReader reads recorded behaviour, what a participant saw and
// chose, one subject at a time (holding one subject's rows in memory). The
// input is CSV, one row per time step, with a header:
//
//	subject,trial,step,o_location,o_reward,o_cue,u_location
//	s01,1,0,centre,none,cue-left,go-right-arm
//	s01,1,1,right-arm,reward,cue-right,go-right-arm
//	s01,1,2,right-arm,reward,cue-right,
//
// The columns, in any order, each once:
//
//   - subject: a non-empty string. A subject's rows are contiguous.
//   - trial: an integer >= 1. The trials of a subject increase in file
//     order and the rows of one trial are contiguous.
//   - step: the observation index t within the trial: 0, 1, 2, ... in
//     file order.
//   - o_<modality>, one per modality of the model (o for the unnamed
//     modality of a single-factor model): the outcome's name or its 0-based
//     decimal index. A name wins over an index where a name is a number.
//   - u_<factor>, one per controllable factor, a factor with more than one
//     control (u for the unnamed factor of a single-factor model): the
//     control taken after observation step, by name or 0-based index; NA
//     for a missed response (not scored); empty on a trial's last row,
//     where no observation follows, and only there. A row's u columns are
//     all controls, all NA, or all empty. NA always means a missed
//     response (a control named NA is given by its index).
//   - any other named column is extra: kept as text (TrialRecord.Extra),
//     otherwise ignored. Other o, u, o_* and u_* columns are errors.
//
// The input may instead be JSON lines, one object per row with the same
// fields:
//
//	{"subject":"s01","trial":1,"step":0,"o":{"location":"centre","reward":"none","cue":0},"u":{"location":"go-right-arm"}}
//
// where trial and step are JSON numbers, "o" is an object keyed by modality
// name and "u" one keyed by controllable factor name (single values for the
// unnamed modality and factor of a single-factor model: "o": 0, "u": "NA").
// "u" is absent, null, "" or {} on a trial's last row. A name or NA is a
// JSON string, an index a JSON number (or a string of digits that names
// nothing). Other keys are extra; their values are kept as text: a
// string's contents, or the compact JSON of any other value.
//
// The format is JSON lines when the first byte that is not a space is {.
// A UTF-8 byte order mark is skipped. An empty input is an error; a CSV
// file with only a header has no subjects. Every fault is a
// *BehaviourError naming the line and the column. The input is read up to
// BehaviourOptions.MaxBytes, lines up to MaxLineBytes. A BehaviourReader is
// not safe for concurrent use. The zero BehaviourReader is not usable (it
// has no input): its Next returns an error; make one with
// NewBehaviourReader.
type BehaviourReader struct {
	bm   *behaviourModel
	name string
	lr   *lineReader
	err  error // sticky; io.EOF at the end

	started bool
	json    bool
	first   []byte // the first JSON line, read while detecting the format
	cr      *csv.Reader
	base    int // lines before the first line given to cr
	cols    []behaviourCol
	header  []string
	key     [3]int // columns of subject, trial and step
	ctlPos  []int  // column of each controllable factor

	extraNames []string
	extraIndex map[string]int // JSON lines: key -> extra column

	row     behaviourRow
	pending bool // row is the first row of the next subject
	// last is the previous row.
	last struct {
		valid             bool
		subject           string
		trial, step, line int
		kind              actKind
		action            int
		actCol, actText   string
	}
	seen     map[string]int // finished subjects -> their last line
	flat     []int          // the outcomes of the current trial
	steps    int            // the length of the last trial
	kinds    []actKind      // per controllable factor, scratch
	ctls     []int          // per factor, scratch
	texts    []string       // per controllable factor, scratch
	jsonCtls []string       // JSON field of each controllable factor
}

// NewBehaviourReader returns a reader of recorded behaviour for the model m
// from r; name (a file name) prefixes its errors. Nil opts mean the
// default limits.
func NewBehaviourReader(r io.Reader, name string, m *Model, opts *BehaviourOptions) *BehaviourReader {
	br := &BehaviourReader{name: name, seen: map[string]int{}}
	if m == nil || !m.valid {
		br.err = errors.New("pomdp: NewBehaviourReader: nil model, or one not built by New, NewFactorised, Parse or Load")
		return br
	}
	if r == nil {
		br.err = errors.New("pomdp: NewBehaviourReader: nil reader")
		return br
	}
	var o BehaviourOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultBehaviourMaxBytes
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultBehaviourMaxLineBytes
	}
	br.bm = newBehaviourModel(m)
	br.lr = newLineReader(r, name, o.MaxBytes, o.MaxLineBytes)
	br.kinds = make([]actKind, len(br.bm.ctl))
	br.texts = make([]string, len(br.bm.ctl))
	br.ctls = make([]int, len(m.factors))
	br.row.outcomes = make([]int, len(m.mods))
	return br
}

// ReadBehaviour reads all the recorded behaviour in r for the model m, in
// the format of BehaviourReader, and returns it in memory: the input is
// bounded by the default limits (64 MiB), and so is what it returns. Use a
// BehaviourReader to hold one subject at a time. name (a file name)
// prefixes the errors.
func ReadBehaviour(r io.Reader, name string, m *Model) ([]SubjectRecord, error) {
	br := NewBehaviourReader(r, name, m, nil)
	var out []SubjectRecord
	for {
		rec, err := br.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, *rec)
	}
}

// Next returns the next subject's record, io.EOF after the last, or a
// *BehaviourError (or a read error) on the first fault, which every later
// call returns again.
func (r *BehaviourReader) Next() (*SubjectRecord, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.bm == nil {
		return nil, errors.New("pomdp: BehaviourReader.Next: the zero BehaviourReader has no input (use NewBehaviourReader)")
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	return rec, nil
}

func (r *BehaviourReader) next() (*SubjectRecord, error) {
	if !r.started {
		if err := r.start(); err != nil {
			return nil, err
		}
	}
	var rec *SubjectRecord
	if r.pending {
		r.pending = false
		rec = &SubjectRecord{Subject: r.row.subject}
		if err := r.add(rec); err != nil {
			return nil, err
		}
	}
	for {
		ok, err := r.readRow()
		if err != nil {
			return nil, err
		}
		if !ok {
			if rec == nil {
				return nil, io.EOF
			}
			if err := r.endTrial(); err != nil {
				return nil, err
			}
			r.finishSubject(rec)
			return rec, nil
		}
		if rec != nil && r.row.subject != rec.Subject {
			r.pending = true
			r.finishSubject(rec)
			return rec, nil
		}
		if rec == nil {
			rec = &SubjectRecord{Subject: r.row.subject}
		}
		if err := r.add(rec); err != nil {
			return nil, err
		}
	}
}

func (r *BehaviourReader) fault(line int, col string, format string, args ...any) error {
	return &BehaviourError{File: r.name, Line: line, Column: col, JSON: r.json, Msg: fmt.Sprintf(format, args...)}
}

// start detects the format and reads a CSV header.
func (r *BehaviourReader) start() error {
	r.started = true
	var first []byte
	for {
		line, err := r.lr.next()
		if err == io.EOF {
			return r.fault(0, "", "empty file (want a CSV header subject,trial,step,... or JSON lines)")
		}
		if err != nil {
			return err
		}
		if t := bytes.TrimLeft(line, " \t\r\n"); len(t) > 0 {
			first = line
			r.json = t[0] == '{'
			break
		}
	}
	if r.json {
		r.first = append([]byte(nil), first...)
		r.extraIndex = map[string]int{}
		for k := range r.bm.ctl {
			r.jsonCtls = append(r.jsonCtls, r.jsonCtlField(k))
		}
		return nil
	}
	r.base = r.lr.line - 1
	r.cr = csv.NewReader(&lineSource{lr: r.lr, pending: first})
	r.cr.FieldsPerRecord = -1
	r.cr.ReuseRecord = true
	rec, err := r.cr.Read()
	if err != nil {
		return r.csvError(err)
	}
	line := r.csvLine()
	r.header = append([]string(nil), rec...)
	return r.readHeader(line)
}

func (r *BehaviourReader) csvLine() int {
	line, _ := r.cr.FieldPos(0)
	return r.base + line
}

func (r *BehaviourReader) csvError(err error) error {
	var be *BehaviourError
	if errors.As(err, &be) {
		return be
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return r.fault(r.base+pe.Line, "", "CSV: %v (byte %d of the line)", pe.Err, pe.Column)
	}
	return r.fault(r.lr.line, "", "read: %v", err)
}

// readHeader maps the CSV columns to their roles.
func (r *BehaviourReader) readHeader(line int) error {
	bm := r.bm
	r.key = [3]int{-1, -1, -1}
	r.ctlPos = make([]int, len(bm.ctl))
	obsPos := make([]int, len(bm.obsCol))
	for i := range r.ctlPos {
		r.ctlPos[i] = -1
	}
	for i := range obsPos {
		obsPos[i] = -1
	}
	at := map[string]int{}
	for i, h := range r.header {
		if j, dup := at[h]; dup {
			return r.fault(line, h, "appears twice in the header (fields %d and %d)", j+1, i+1)
		}
		at[h] = i
		c := behaviourCol{kind: colExtra}
		switch h {
		case "subject":
			c.kind, r.key[0] = colSubject, i
		case "trial":
			c.kind, r.key[1] = colTrial, i
		case "step":
			c.kind, r.key[2] = colStep, i
		case "":
			return r.fault(line, "", "field %d of the header is empty (name every column)", i+1)
		default:
			if m, ok := bm.obsColumn(h); ok {
				c = behaviourCol{colObs, m}
				obsPos[m] = i
			} else if k, ok := bm.ctlColumn(h); ok {
				c = behaviourCol{colAct, k}
				r.ctlPos[k] = i
			} else if reservedColumn(h) {
				return r.fault(line, h, "%s", bm.unknownColumn(h))
			} else {
				c.idx = len(r.extraNames)
				r.extraNames = append(r.extraNames, h)
			}
		}
		r.cols = append(r.cols, c)
	}
	missing := func(col string) error {
		hint := ""
		for _, h := range r.header {
			if strings.EqualFold(strings.TrimSpace(h), col) {
				hint = fmt.Sprintf("; the header has %s", quote(h))
				break
			}
		}
		return r.fault(line, col, "missing from the header (want subject, trial, step, %s%s)", strings.Join(append(append([]string(nil), bm.obsCol...), bm.ctlCol...), ", "), hint)
	}
	for i, col := range []string{"subject", "trial", "step"} {
		if r.key[i] < 0 {
			return missing(col)
		}
	}
	for i, p := range obsPos {
		if p < 0 {
			return missing(bm.obsCol[i])
		}
	}
	for k, p := range r.ctlPos {
		if p < 0 {
			return missing(bm.ctlCol[k])
		}
	}
	return nil
}

func (bm *behaviourModel) obsColumn(h string) (int, bool) {
	for i, c := range bm.obsCol {
		if c == h {
			return i, true
		}
	}
	return 0, false
}

func (bm *behaviourModel) ctlColumn(h string) (int, bool) {
	for k, c := range bm.ctlCol {
		if c == h {
			return k, true
		}
	}
	return 0, false
}

// unknownColumn explains why an o, u, o_* or u_* column names nothing.
func (bm *behaviourModel) unknownColumn(h string) string {
	m := bm.m
	if !bm.named {
		if h[0] == 'o' {
			return "the model has one unnamed modality: its column is o"
		}
		if len(bm.ctl) == 0 {
			return "the model has no controllable factor: no u column"
		}
		return "the model has one unnamed factor: its column is u"
	}
	if h == "o" || h == "u" {
		return fmt.Sprintf("the model names its modalities and factors (columns %s)", strings.Join(append(append([]string(nil), bm.obsCol...), bm.ctlCol...), ", "))
	}
	nm := h[2:]
	if h[0] == 'o' {
		names := make([]string, len(m.mods))
		for i, md := range m.mods {
			names[i] = md.name
		}
		return fmt.Sprintf("no modality %s (modalities: %s)", quote(nm), nameList(names))
	}
	for _, f := range m.factors {
		if f.name == nm {
			return fmt.Sprintf("factor %s is not controllable (it has one control)", quote(nm))
		}
	}
	if len(bm.ctl) == 0 {
		return fmt.Sprintf("no factor %s, and the model has no controllable factor", quote(nm))
	}
	names := make([]string, len(bm.ctl))
	for k, f := range bm.ctl {
		names[k] = m.factors[f].name
	}
	return fmt.Sprintf("no controllable factor %s (controllable: %s)", quote(nm), nameList(names))
}

// readRow reads and checks the next row into r.row; false at the end.
func (r *BehaviourReader) readRow() (bool, error) {
	if r.json {
		return r.readJSONRow()
	}
	rec, err := r.cr.Read()
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, r.csvError(err)
	}
	line := r.csvLine()
	if len(rec) != len(r.header) {
		return false, r.fault(line, "", "%d fields, want %d as in the header", len(rec), len(r.header))
	}
	row := &r.row
	row.line = line
	row.subject = rec[r.key[0]]
	if row.subject == "" {
		return false, r.fault(line, "subject", "empty")
	}
	var ok bool
	if row.trial, ok = digits(rec[r.key[1]]); !ok || row.trial < 1 || row.trial >= 1<<62 {
		return false, r.fault(line, "trial", "%s, want an integer >= 1", quote(rec[r.key[1]]))
	}
	if row.step, ok = digits(rec[r.key[2]]); !ok || row.step >= 1<<62 {
		return false, r.fault(line, "step", "%s, want an integer >= 0", quote(rec[r.key[2]]))
	}
	if err := r.sequence(); err != nil {
		return false, err
	}
	if len(r.extraNames) > 0 {
		row.extra = make([]string, len(r.extraNames))
	} else {
		row.extra = nil
	}
	for i, c := range r.cols {
		switch c.kind {
		case colObs:
			o, msg := r.bm.outcome(c.idx, rec[i])
			if msg != "" {
				return false, r.fault(line, r.header[i], "%s", msg)
			}
			row.outcomes[c.idx] = o
		case colExtra:
			row.extra[c.idx] = rec[i]
		}
	}
	for k, p := range r.ctlPos {
		kind, c, msg := r.bm.control(k, rec[p])
		if msg != "" {
			return false, r.fault(line, r.header[p], "%s", msg)
		}
		r.kinds[k], r.ctls[r.bm.ctl[k]], r.texts[k] = kind, c, rec[p]
	}
	return true, r.finishRow(r.bm.ctlCol)
}

// sequence checks the subject, trial and step of r.row against the
// previous row.
func (r *BehaviourReader) sequence() error {
	row, last := &r.row, &r.last
	const stepCol, trialCol, subjCol = "step", "trial", "subject"
	row.prevAction = 0
	if !last.valid {
		if row.step != 0 {
			return r.fault(row.line, stepCol, "%d, want 0 (a trial starts at step 0)", row.step)
		}
		return nil
	}
	if row.subject == last.subject && row.trial == last.trial {
		if row.step != last.step+1 {
			return r.fault(row.line, stepCol, "%d after step %d on line %d, want %d (the steps of a trial count 0, 1, 2, ... in file order)", row.step, last.step, last.line, last.step+1)
		}
		if len(r.bm.ctl) > 0 && last.kind == actNone {
			return r.fault(last.line, last.actCol, "empty, but step %d of trial %d follows on line %d (only a trial's last row has no action; NA marks a missed response)", row.step, row.trial, row.line)
		}
		switch last.kind {
		case actMissed:
			row.prevAction = -1
		case actTaken:
			row.prevAction = last.action
		}
		return nil
	}
	if err := r.endTrial(); err != nil {
		return err
	}
	if row.subject == last.subject {
		if row.trial < last.trial {
			return r.fault(row.line, trialCol, "trial %d after trial %d (line %d) of subject %s: a subject's trials increase and each trial's rows are contiguous", row.trial, last.trial, last.line, quote(row.subject))
		}
	} else {
		r.seen[last.subject] = last.line
		if l, ok := r.seen[row.subject]; ok {
			return r.fault(row.line, subjCol, "subject %s again (its rows ended on line %d): a subject's rows are contiguous", quote(row.subject), l)
		}
	}
	if row.step != 0 {
		return r.fault(row.line, stepCol, "%d, want 0 (a trial starts at step 0)", row.step)
	}
	return nil
}

// endTrial checks that the previous row, the last of its trial, has no
// action.
func (r *BehaviourReader) endTrial() error {
	last := &r.last
	if !last.valid {
		return nil
	}
	switch last.kind {
	case actTaken:
		return r.fault(last.line, last.actCol, "%s on the last row of trial %d (want empty: no observation follows it)", quote(last.actText), last.trial)
	case actMissed:
		return r.fault(last.line, last.actCol, "NA on the last row of trial %d (want empty: no observation follows it)", last.trial)
	}
	return nil
}

// finishRow combines the controls of the controllable factors (r.kinds,
// r.ctls, r.texts) into the row's action, encodes its observation and
// makes it the last row.
func (r *BehaviourReader) finishRow(ctlCols []string) error {
	row := &r.row
	row.kind, row.action, row.actCol, row.actText = actNone, 0, "", ""
	if len(r.kinds) > 0 {
		row.kind, row.actCol, row.actText = r.kinds[0], ctlCols[0], r.texts[0]
		for k := 1; k < len(r.kinds); k++ {
			if r.kinds[k] != row.kind {
				return r.fault(row.line, ctlCols[k], "%s while %s is %s (a row's controls are all given, all NA, or all empty on a trial's last row)",
					kindText(r.kinds[k], r.texts[k]), ctlCols[0], kindText(row.kind, row.actText))
			}
		}
		if row.kind == actTaken {
			u, err := r.bm.m.encodeControls(r.ctls)
			if err != nil {
				return r.fault(row.line, ctlCols[0], "%v", err)
			}
			row.action = u
		}
	}
	o, err := r.bm.m.EncodeObs(row.outcomes)
	if err != nil {
		return r.fault(row.line, "", "%v", err)
	}
	row.obs = o
	last := &r.last
	last.valid, last.subject, last.trial, last.step, last.line = true, row.subject, row.trial, row.step, row.line
	last.kind, last.action, last.actCol, last.actText = row.kind, row.action, row.actCol, row.actText
	return nil
}

func kindText(k actKind, text string) string {
	switch k {
	case actNone:
		return "empty"
	case actMissed:
		return "NA"
	}
	return quote(text)
}

// add appends r.row to rec.
func (r *BehaviourReader) add(rec *SubjectRecord) error {
	row := &r.row
	n := len(rec.Trials)
	if n == 0 || rec.Trials[n-1].Trial != row.trial {
		if n > 0 {
			r.finishTrial(&rec.Trials[n-1])
		}
		// Trials tend to have the same length: size the slices so.
		h := r.steps
		if h < 1 {
			h = 1
		}
		tr := TrialRecord{Trial: row.trial, Obs: make([]int, 0, h), Actions: make([]int, 0, h-1), Lines: make([]int, 0, h)}
		rec.Trials = append(rec.Trials, tr)
		r.flat = make([]int, 0, h*len(row.outcomes))
	} else {
		t := &rec.Trials[n-1]
		t.Actions = append(t.Actions, row.prevAction)
	}
	t := &rec.Trials[len(rec.Trials)-1]
	t.Obs = append(t.Obs, row.obs)
	t.Lines = append(t.Lines, row.line)
	r.flat = append(r.flat, row.outcomes...)
	if row.extra != nil {
		// JSON lines may name their first extra key on a later row.
		for len(t.Extra) < len(t.Obs)-1 {
			t.Extra = append(t.Extra, nil)
		}
		t.Extra = append(t.Extra, row.extra)
	}
	return nil
}

// finishTrial slices the trial's outcomes out of r.flat.
func (r *BehaviourReader) finishTrial(t *TrialRecord) {
	nm := len(r.bm.m.mods)
	r.steps = len(t.Obs)
	t.Outcomes = make([][]int, len(t.Obs))
	for i := range t.Outcomes {
		t.Outcomes[i] = r.flat[i*nm : (i+1)*nm : (i+1)*nm]
	}
	r.flat = nil
}

// finishSubject completes rec's last trial and its extra columns.
func (r *BehaviourReader) finishSubject(rec *SubjectRecord) {
	if n := len(rec.Trials); n > 0 {
		r.finishTrial(&rec.Trials[n-1])
	}
	ne := len(r.extraNames)
	if ne == 0 {
		return
	}
	rec.ExtraColumns = r.extraNames[:ne:ne]
	// JSON lines may name more extra keys as they go: pad the rows.
	for i := range rec.Trials {
		t := &rec.Trials[i]
		for len(t.Extra) < len(t.Obs) {
			t.Extra = append(t.Extra, nil)
		}
		for j, e := range t.Extra {
			if len(e) < ne {
				t.Extra[j] = append(append(make([]string, 0, ne), e...), make([]string, ne-len(e))...)
			}
		}
	}
}

// jsonKV is one key and value of a JSON object, in order.
type jsonKV struct {
	key string
	val json.RawMessage
}

// jsonObject decodes data as one JSON object, keeping the order of its
// keys and rejecting a duplicate key; where prefixes the fields named in
// errors ("" or "o.").
func (r *BehaviourReader) jsonObject(line int, where string, data []byte) ([]jsonKV, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	bad := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return r.fault(line, strings.TrimSuffix(where, "."), "invalid JSON near byte %d: %v", se.Offset, err)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return r.fault(line, strings.TrimSuffix(where, "."), "invalid JSON: unexpected end of the line")
		}
		return r.fault(line, strings.TrimSuffix(where, "."), "invalid JSON: %v", err)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, bad(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, r.fault(line, strings.TrimSuffix(where, "."), "want a JSON object, got %s", shorten(string(bytes.TrimSpace(data))))
	}
	var kvs []jsonKV
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, bad(err)
		}
		for _, kv := range kvs {
			if kv.key == key {
				return nil, r.fault(line, where+key, "appears twice")
			}
		}
		kvs = append(kvs, jsonKV{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, r.fault(line, strings.TrimSuffix(where, "."), "trailing data after the JSON object")
	}
	return kvs, nil
}

// jsonKind classifies a JSON value of the format.
type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonString
	jsonIndex // a non-negative integer literal
	jsonOther
)

// jsonScalar classifies raw and returns a string's contents or an index.
func jsonScalar(raw json.RawMessage) (jsonKind, string, int) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return jsonOther, "", 0
	case string(raw) == "null":
		return jsonNull, "", 0
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return jsonOther, "", 0
		}
		return jsonString, s, 0
	}
	if n, ok := digits(string(raw)); ok {
		return jsonIndex, string(raw), n
	}
	return jsonOther, "", 0
}

// readJSONRow reads the next non-blank JSON line into r.row.
func (r *BehaviourReader) readJSONRow() (bool, error) {
	var data []byte
	for {
		if r.first != nil {
			data, r.first = r.first, nil
		} else {
			line, err := r.lr.next()
			if err == io.EOF {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			data = line
		}
		if len(bytes.TrimSpace(data)) > 0 {
			break
		}
	}
	line := r.lr.line
	kvs, err := r.jsonObject(line, "", data)
	if err != nil {
		return false, err
	}
	row := &r.row
	row.line = line
	var subj, trial, step, obs, act json.RawMessage
	var extras []jsonKV
	for _, kv := range kvs {
		switch kv.key {
		case "subject":
			subj = kv.val
		case "trial":
			trial = kv.val
		case "step":
			step = kv.val
		case "o":
			obs = kv.val
		case "u":
			act = kv.val
		case "":
			return false, r.fault(line, "", "a key is empty (name every field)")
		default:
			if reservedColumn(kv.key) {
				return false, r.fault(line, kv.key, "unknown: JSON lines give outcomes in \"o\" and actions in \"u\", objects keyed by modality and factor")
			}
			extras = append(extras, kv)
		}
	}
	for _, f := range []struct {
		key string
		v   json.RawMessage
	}{{"subject", subj}, {"trial", trial}, {"step", step}, {"o", obs}} {
		if f.v == nil {
			return false, r.fault(line, f.key, "missing")
		}
	}
	k, s, _ := jsonScalar(subj)
	if k != jsonString {
		return false, r.fault(line, "subject", "%s, want a string", shorten(string(subj)))
	}
	if s == "" {
		return false, r.fault(line, "subject", "empty")
	}
	row.subject = s
	k, _, n := jsonScalar(trial)
	if k != jsonIndex || n < 1 || n >= 1<<62 {
		return false, r.fault(line, "trial", "%s, want an integer >= 1", shorten(string(trial)))
	}
	row.trial = n
	k, _, n = jsonScalar(step)
	if k != jsonIndex || n >= 1<<62 {
		return false, r.fault(line, "step", "%s, want an integer >= 0", shorten(string(step)))
	}
	row.step = n
	if err := r.sequence(); err != nil {
		return false, err
	}
	if err := r.jsonObs(line, obs); err != nil {
		return false, err
	}
	if err := r.jsonAct(line, act); err != nil {
		return false, err
	}
	row.extra = nil
	for _, kv := range extras {
		if _, ok := r.extraIndex[kv.key]; !ok {
			if len(r.extraNames) == MaxBehaviourJSONExtra {
				return false, r.fault(line, kv.key, "more than %d distinct extra keys (MaxBehaviourJSONExtra)", MaxBehaviourJSONExtra)
			}
			r.extraIndex[kv.key] = len(r.extraNames)
			r.extraNames = append(r.extraNames, kv.key)
		}
	}
	if len(r.extraNames) > 0 {
		row.extra = make([]string, len(r.extraNames))
		for _, kv := range extras {
			v := strings.TrimSpace(string(kv.val))
			if k, s, _ := jsonScalar(kv.val); k == jsonString {
				v = s
			} else {
				var b bytes.Buffer
				if json.Compact(&b, kv.val) == nil {
					v = b.String()
				}
			}
			row.extra[r.extraIndex[kv.key]] = v
		}
	}
	return true, r.finishRow(r.jsonCtls)
}

func (r *BehaviourReader) jsonObsField(i int) string {
	if r.bm.named {
		return "o." + r.bm.m.mods[i].name
	}
	return "o"
}

func (r *BehaviourReader) jsonCtlField(k int) string {
	if r.bm.named {
		return "u." + r.bm.m.factors[r.bm.ctl[k]].name
	}
	return "u"
}

// jsonOutcome resolves the JSON value of modality i.
func (r *BehaviourReader) jsonOutcome(line, i int, raw json.RawMessage) error {
	field := r.jsonObsField(i)
	var o int
	var msg string
	switch k, s, n := jsonScalar(raw); k {
	case jsonString:
		o, msg = r.bm.outcome(i, s)
	case jsonIndex:
		o, msg = r.bm.outcomeIndex(i, n, s)
	default:
		msg = fmt.Sprintf("%s, want an outcome: %s", shorten(string(bytes.TrimSpace(raw))), r.bm.outWant[i])
	}
	if msg != "" {
		return r.fault(line, field, "%s", msg)
	}
	r.row.outcomes[i] = o
	return nil
}

func (r *BehaviourReader) jsonObs(line int, raw json.RawMessage) error {
	bm := r.bm
	if !bm.named {
		return r.jsonOutcome(line, 0, raw)
	}
	kvs, err := r.jsonObject(line, "o.", raw)
	if err != nil {
		return err
	}
	set := make([]bool, len(bm.m.mods))
	for _, kv := range kvs {
		i, ok := bm.modIndex[kv.key]
		if !ok {
			return r.fault(line, "o."+kv.key, "%s", bm.unknownColumn("o_"+kv.key))
		}
		if err := r.jsonOutcome(line, i, kv.val); err != nil {
			return err
		}
		set[i] = true
	}
	for i, ok := range set {
		if !ok {
			return r.fault(line, r.jsonObsField(i), "missing")
		}
	}
	return nil
}

// jsonControl resolves the JSON value of controllable factor k.
func (r *BehaviourReader) jsonControl(line, k int, raw json.RawMessage) error {
	var kind actKind
	var c int
	var msg string
	text := ""
	switch jk, s, n := jsonScalar(raw); jk {
	case jsonNull:
	case jsonString:
		kind, c, msg = r.bm.control(k, s)
		text = s
	case jsonIndex:
		kind, c, msg = r.bm.controlIndex(k, n, s)
		text = s
	default:
		msg = fmt.Sprintf("%s, want a control: %s", shorten(string(bytes.TrimSpace(raw))), r.bm.ctlWant[k])
	}
	if msg != "" {
		return r.fault(line, r.jsonCtlField(k), "%s", msg)
	}
	r.kinds[k], r.ctls[r.bm.ctl[k]], r.texts[k] = kind, c, text
	return nil
}

func (r *BehaviourReader) jsonAct(line int, raw json.RawMessage) error {
	bm := r.bm
	for k := range r.kinds {
		r.kinds[k], r.texts[k] = actNone, ""
	}
	clear(r.ctls)
	kind, s, _ := jsonScalar(raw)
	if raw == nil || kind == jsonNull || (kind == jsonString && s == "") {
		return nil
	}
	if len(bm.ctl) == 0 {
		if t := bytes.TrimSpace(raw); string(t) == "{}" {
			return nil
		}
		return r.fault(line, "u", "%s, but the model has no controllable factor (want u absent)", shorten(string(bytes.TrimSpace(raw))))
	}
	if !bm.named {
		return r.jsonControl(line, 0, raw)
	}
	kvs, err := r.jsonObject(line, "u.", raw)
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		k, ok := bm.ctlIndex[kv.key]
		if !ok {
			return r.fault(line, "u."+kv.key, "%s", bm.unknownColumn("u_"+kv.key))
		}
		if err := r.jsonControl(line, k, kv.val); err != nil {
			return err
		}
	}
	return nil
}

// BehaviourWriterOptions configures a BehaviourWriter. Nil options write
// CSV without extra columns.
type BehaviourWriterOptions struct {
	// JSONLines writes JSON lines instead of CSV.
	JSONLines bool
	// Extra names extra columns written after the u columns (JSON keys
	// after "u"), in order; their values are text.
	Extra []string
}

// errZeroWriter is the error of the methods of the zero BehaviourWriter.
var errZeroWriter = errors.New("pomdp: BehaviourWriter: the zero BehaviourWriter has no output (use NewBehaviourWriter)")

// BehaviourWriter writes recorded behaviour in the format that
// BehaviourReader reads: names where the model has them, else indices.
// Output is buffered: call Flush at the end. It is not safe for concurrent
// use. The zero BehaviourWriter is not usable (it has no output): its
// methods return an error; make one with NewBehaviourWriter.
type BehaviourWriter struct {
	bm      *behaviourModel
	json    bool
	extra   []string
	cw      *csv.Writer
	bw      *bufio.Writer
	outText [][]string // per modality, text of each outcome
	ctlText [][]string // per controllable factor, text of each control ("" for a JSON index)
	rec     []string
	dec     []int
	buf     []byte
	err     error // sticky write error
}

// NewBehaviourWriter returns a writer of behaviour for the model m to w,
// and writes the CSV header (subject,trial,step,o_...,u_...,extra...).
// It fails when a name cannot be written so as to read back the same: not
// valid UTF-8, with "\r\n" in CSV, a reserved or repeated extra column, a
// control named NA whose index is another control's name.
func NewBehaviourWriter(w io.Writer, m *Model, opts *BehaviourWriterOptions) (*BehaviourWriter, error) {
	if m == nil || !m.valid {
		return nil, errors.New("pomdp: NewBehaviourWriter: nil model, or one not built by New, NewFactorised, Parse or Load")
	}
	if w == nil {
		return nil, errors.New("pomdp: NewBehaviourWriter: nil writer")
	}
	var o BehaviourWriterOptions
	if opts != nil {
		o = *opts
	}
	bw := &BehaviourWriter{bm: newBehaviourModel(m), json: o.JSONLines, extra: cloneStrings(o.Extra)}
	check := func(what, s string) error {
		if !utf8.ValidString(s) {
			return fmt.Errorf("pomdp: NewBehaviourWriter: %s %s: not valid UTF-8", what, quote(s))
		}
		if !bw.json && strings.Contains(s, "\r\n") {
			return fmt.Errorf("pomdp: NewBehaviourWriter: %s %s: a CSV reader turns \\r\\n into \\n", what, quote(s))
		}
		return nil
	}
	if bw.json && len(bw.extra) > MaxBehaviourJSONExtra {
		return nil, fmt.Errorf("pomdp: NewBehaviourWriter: %d extra columns, want at most %d in JSON lines (MaxBehaviourJSONExtra)", len(bw.extra), MaxBehaviourJSONExtra)
	}
	seen := map[string]bool{}
	for _, e := range bw.extra {
		if e == "" || reservedColumn(e) {
			return nil, fmt.Errorf("pomdp: NewBehaviourWriter: extra column %s: empty or reserved (subject, trial, step, o, u, o_*, u_*)", quote(e))
		}
		if seen[e] {
			return nil, fmt.Errorf("pomdp: NewBehaviourWriter: extra column %s: appears twice", quote(e))
		}
		seen[e] = true
		if err := check("extra column", e); err != nil {
			return nil, err
		}
	}
	for _, md := range m.mods {
		if err := check("modality", md.name); err != nil {
			return nil, err
		}
		texts := make([]string, md.no)
		for x := range texts {
			texts[x] = name(md.outcomes, x)
			if err := check("outcome", texts[x]); err != nil {
				return nil, err
			}
		}
		if md.outcomes == nil && bw.json {
			texts = nil
		}
		bw.outText = append(bw.outText, texts)
	}
	for k, f := range bw.bm.ctl {
		fc := &m.factors[f]
		if err := check("factor", fc.name); err != nil {
			return nil, err
		}
		texts := make([]string, fc.nu)
		for c := range texts {
			s := name(fc.controls, c)
			if err := check("control", s); err != nil {
				return nil, err
			}
			if s == "NA" {
				// NA reads as a missed response: write the index.
				s = strconv.Itoa(c)
				if _, clash := bw.bm.ctlNames[k][s]; clash {
					return nil, fmt.Errorf("pomdp: NewBehaviourWriter: control \"NA\" of factor %s cannot be written: NA means a missed response and its index %s is another control's name", quote(fc.name), s)
				}
				if bw.json {
					s = ""
				}
			}
			texts[c] = s
		}
		if fc.controls == nil && bw.json {
			texts = make([]string, fc.nu)
		}
		bw.ctlText = append(bw.ctlText, texts)
	}
	if bw.json {
		bw.bw = bufio.NewWriter(w)
		return bw, nil
	}
	bw.cw = csv.NewWriter(w)
	header := append([]string{"subject", "trial", "step"}, bw.bm.obsCol...)
	header = append(header, bw.bm.ctlCol...)
	header = append(header, bw.extra...)
	if err := bw.cw.Write(header); err != nil {
		return nil, fmt.Errorf("pomdp: NewBehaviourWriter: %w", err)
	}
	return bw, nil
}

// WriteStep writes one row: observation obs at step of trial, then the
// action taken after it (action -1: none, on a trial's last row), or NA
// when missed is true (action must then be -1), and the values of the
// extra columns (fewer values leave the rest empty).
func (w *BehaviourWriter) WriteStep(subject string, trial, step, obs, action int, missed bool, extra ...string) error {
	if w.err != nil {
		return w.err
	}
	if w.bm == nil {
		return errZeroWriter
	}
	m := w.bm.m
	switch {
	case subject == "":
		return errors.New("pomdp: WriteStep: empty subject")
	case !utf8.ValidString(subject):
		return fmt.Errorf("pomdp: WriteStep: subject %s: not valid UTF-8", quote(subject))
	case !w.json && strings.Contains(subject, "\r\n"):
		return fmt.Errorf("pomdp: WriteStep: subject %s: a CSV reader turns \\r\\n into \\n", quote(subject))
	case trial < 1:
		return fmt.Errorf("pomdp: WriteStep: trial %d, want >= 1", trial)
	case step < 0:
		return fmt.Errorf("pomdp: WriteStep: step %d, want >= 0", step)
	case obs < 0 || obs >= m.no:
		return fmt.Errorf("pomdp: WriteStep: observation %d out of range [0, %d)", obs, m.no)
	case action < -1 || action >= m.nu:
		return fmt.Errorf("pomdp: WriteStep: action %d out of range [-1, %d)", action, m.nu)
	case missed && action != -1:
		return fmt.Errorf("pomdp: WriteStep: action %d of a missed response, want -1", action)
	case missed && len(w.bm.ctl) == 0:
		return errors.New("pomdp: WriteStep: a missed response in a model without a controllable factor (no u column to hold NA)")
	case len(extra) > len(w.extra):
		return fmt.Errorf("pomdp: WriteStep: %d extra values, want at most %d", len(extra), len(w.extra))
	}
	for _, e := range extra {
		if !utf8.ValidString(e) {
			return fmt.Errorf("pomdp: WriteStep: extra value %s: not valid UTF-8", quote(e))
		}
		if !w.json && strings.Contains(e, "\r\n") {
			return fmt.Errorf("pomdp: WriteStep: extra value %s: a CSV reader turns \\r\\n into \\n", quote(e))
		}
	}
	if w.json {
		return w.writeJSON(subject, trial, step, obs, action, missed, extra)
	}
	w.rec = append(w.rec[:0], subject, strconv.Itoa(trial), strconv.Itoa(step))
	w.dec = m.DecodeObs(w.dec, obs)
	for i, x := range w.dec {
		w.rec = append(w.rec, w.outText[i][x])
	}
	if action >= 0 {
		w.dec = m.DecodeAction(w.dec, action)
	}
	for k, f := range w.bm.ctl {
		switch {
		case missed:
			w.rec = append(w.rec, "NA")
		case action < 0:
			w.rec = append(w.rec, "")
		default:
			w.rec = append(w.rec, w.ctlText[k][w.dec[f]])
		}
	}
	w.rec = append(w.rec, extra...)
	for len(w.rec) < 3+len(w.bm.obsCol)+len(w.bm.ctl)+len(w.extra) {
		w.rec = append(w.rec, "")
	}
	if err := w.cw.Write(w.rec); err != nil {
		w.err = fmt.Errorf("pomdp: WriteStep: %w", err)
		return w.err
	}
	return nil
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

func (w *BehaviourWriter) writeJSON(subject string, trial, step, obs, action int, missed bool, extra []string) error {
	m, bm := w.bm.m, w.bm
	b := append(w.buf[:0], `{"subject":`...)
	b = appendJSONString(b, subject)
	b = append(b, `,"trial":`...)
	b = strconv.AppendInt(b, int64(trial), 10)
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(step), 10)
	b = append(b, `,"o":`...)
	value := func(b []byte, texts []string, x int) []byte {
		if texts == nil || texts[x] == "" {
			return strconv.AppendInt(b, int64(x), 10)
		}
		return appendJSONString(b, texts[x])
	}
	w.dec = m.DecodeObs(w.dec, obs)
	if bm.named {
		b = append(b, '{')
		for i, x := range w.dec {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, m.mods[i].name)
			b = append(b, ':')
			b = value(b, w.outText[i], x)
		}
		b = append(b, '}')
	} else {
		b = value(b, w.outText[0], w.dec[0])
	}
	if len(bm.ctl) > 0 && (missed || action >= 0) {
		b = append(b, `,"u":`...)
		if action >= 0 {
			w.dec = m.DecodeAction(w.dec, action)
		}
		one := func(b []byte, k int) []byte {
			if missed {
				return append(b, `"NA"`...)
			}
			return value(b, w.ctlText[k], w.dec[bm.ctl[k]])
		}
		if bm.named {
			b = append(b, '{')
			for k, f := range bm.ctl {
				if k > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, m.factors[f].name)
				b = append(b, ':')
				b = one(b, k)
			}
			b = append(b, '}')
		} else {
			b = one(b, 0)
		}
	}
	for j, e := range w.extra {
		b = append(b, ',')
		b = appendJSONString(b, e)
		b = append(b, ':')
		v := ""
		if j < len(extra) {
			v = extra[j]
		}
		b = appendJSONString(b, v)
	}
	b = append(b, "}\n"...)
	w.buf = b
	if _, err := w.bw.Write(b); err != nil {
		w.err = fmt.Errorf("pomdp: WriteStep: %w", err)
		return w.err
	}
	return nil
}

// WriteSubject writes every step of rec: each trial's Obs, its Actions
// (-1: NA) and the values of the writer's extra columns found by name in
// rec.ExtraColumns. Outcomes and Lines are not used. A nil rec is an
// error.
func (w *BehaviourWriter) WriteSubject(rec *SubjectRecord) error {
	if w.bm == nil {
		return errZeroWriter
	}
	if rec == nil {
		return errors.New("pomdp: WriteSubject: nil record")
	}
	where := make([]int, len(w.extra))
	for j, e := range w.extra {
		where[j] = -1
		for i, n := range rec.ExtraColumns {
			if n == e {
				where[j] = i
				break
			}
		}
	}
	var extra []string
	for _, t := range rec.Trials {
		if len(t.Obs) == 0 {
			return fmt.Errorf("pomdp: WriteSubject: subject %s trial %d: no observations", quote(rec.Subject), t.Trial)
		}
		if len(t.Actions) != len(t.Obs)-1 {
			return fmt.Errorf("pomdp: WriteSubject: subject %s trial %d: %d actions for %d observations, want %d", quote(rec.Subject), t.Trial, len(t.Actions), len(t.Obs), len(t.Obs)-1)
		}
		for s, o := range t.Obs {
			action, missed := -1, false
			if s < len(t.Actions) {
				action = t.Actions[s]
				missed = action == -1
			}
			extra = extra[:0]
			for _, i := range where {
				v := ""
				if i >= 0 && s < len(t.Extra) && i < len(t.Extra[s]) {
					v = t.Extra[s][i]
				}
				extra = append(extra, v)
			}
			if err := w.WriteStep(rec.Subject, t.Trial, s, o, action, missed, extra...); err != nil {
				return err
			}
		}
	}
	return nil
}

// Flush writes any buffered rows to the underlying writer and returns the
// first error of a write.
func (w *BehaviourWriter) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.bm == nil {
		return errZeroWriter
	}
	if w.json {
		if err := w.bw.Flush(); err != nil {
			w.err = fmt.Errorf("pomdp: BehaviourWriter: %w", err)
		}
		return w.err
	}
	w.cw.Flush()
	if err := w.cw.Error(); err != nil {
		w.err = fmt.Errorf("pomdp: BehaviourWriter: %w", err)
	}
	return w.err
}
