package behaviour

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"

	"github.com/arbor-ai/arbor/internal/jsonread"
	"github.com/arbor-ai/arbor/pomdp"
)

// parsedRow is one parsed row.
type parsedRow struct {
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

// Reader reads recorded behaviour, what a participant saw and chose, one
// subject at a time (holding one subject's rows in memory). The input is
// CSV, one row per time step, with a header:
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
// The format is JSON lines when the first byte that is not a space is {. A
// UTF-8 byte order mark is skipped. An empty input is an error; a CSV file
// with only a header has no subjects. Every fault is an *Error naming the
// line and the column. The input is read up to Options.MaxBytes, lines up
// to MaxLineBytes. A Reader is not safe for concurrent use. The zero Reader
// is not usable (it has no input): its Next returns an error; make one with
// NewReader.
type Reader struct {
	bm   *layout
	name string
	lr   *lineReader
	err  error // sticky; io.EOF at the end

	started bool
	json    bool
	first   []byte // the first JSON line, read while detecting the format
	cr      *csv.Reader
	base    int // lines before the first line given to cr
	cols    []colRole
	header  []string
	key     [3]int // columns of subject, trial and step
	ctlPos  []int  // column of each controllable factor

	extraNames []string
	extraIndex map[string]int // JSON lines: key -> extra column

	row     parsedRow
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
	ints     []int          // the slab the trials' slices of ints are cut from (cutInts)
	strs     []string       // the slab the rows' extra values are cut from (cut)
	rows     [][]string     // the slab of the trials' TrialRecord.Extra (cut)
	outs     [][]int        // the slab of the trials' TrialRecord.Outcomes (cut)
	trials   int            // the trials of the last subject
	steps    int            // the length of the last trial
	kinds    []actKind      // per controllable factor, scratch
	ctls     []int          // per factor, scratch
	texts    []string       // per controllable factor, scratch
	jsonCtls []string       // JSON field of each controllable factor
}

// NewReader returns a reader of recorded behaviour for the model m from r;
// name (a file name) prefixes its errors. Nil opts mean the default limits.
func NewReader(r io.Reader, name string, m *pomdp.Model, opts *Options) *Reader {
	br := &Reader{name: name, seen: map[string]int{}}
	if pomdp.Check(m) != nil {
		br.err = errors.New("behaviour: NewReader: nil model, or one not built by pomdp.New, NewFactorised, Parse or Load")
		return br
	}
	if r == nil {
		br.err = errors.New("behaviour: NewReader: nil reader")
		return br
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	br.bm = newLayout(m)
	br.lr = newLineReader(r, name, o.MaxBytes, o.MaxLineBytes)
	br.kinds = make([]actKind, len(br.bm.ctl))
	br.texts = make([]string, len(br.bm.ctl))
	br.ctls = make([]int, m.NumFactors())
	br.row.outcomes = make([]int, m.NumModalities())
	return br
}

// Read reads all the recorded behaviour in r for the model m, in the format
// of Reader, and returns it in memory: the input is bounded by the default
// limits (64 MiB), and so is what it returns. Use a Reader to hold one
// subject at a time. name (a file name) prefixes the errors.
func Read(r io.Reader, name string, m *pomdp.Model) ([]SubjectRecord, error) {
	br := NewReader(r, name, m, nil)
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
// *Error (or a read error) on the first fault, which every later call
// returns again.
func (r *Reader) Next() (*SubjectRecord, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.bm == nil {
		return nil, errors.New("behaviour: Reader.Next: the zero Reader has no input (use NewReader)")
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	return rec, nil
}

func (r *Reader) next() (*SubjectRecord, error) {
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

func (r *Reader) fault(line int, col string, format string, args ...any) error {
	return &Error{File: r.name, Line: line, Column: col, JSON: r.json, Msg: fmt.Sprintf(format, args...)}
}

// start detects the format and reads a CSV header.
func (r *Reader) start() error {
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

// readRow reads and checks the next row into r.row; false at the end.
func (r *Reader) readRow() (bool, error) {
	if r.json {
		return r.readJSONRow()
	}
	return r.readCSVRow()
}

// sequence checks the subject, trial and step of r.row against the
// previous row.
func (r *Reader) sequence() error {
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
			return r.fault(row.line, trialCol, "trial %d after trial %d (line %d) of subject %s: a subject's trials increase and each trial's rows are contiguous", row.trial, last.trial, last.line, jsonread.Quote(row.subject))
		}
	} else {
		r.seen[last.subject] = last.line
		if l, ok := r.seen[row.subject]; ok {
			return r.fault(row.line, subjCol, "subject %s again (its rows ended on line %d): a subject's rows are contiguous", jsonread.Quote(row.subject), l)
		}
	}
	if row.step != 0 {
		return r.fault(row.line, stepCol, "%d, want 0 (a trial starts at step 0)", row.step)
	}
	return nil
}

// endTrial checks that the previous row, the last of its trial, has no
// action.
func (r *Reader) endTrial() error {
	last := &r.last
	if !last.valid {
		return nil
	}
	switch last.kind {
	case actTaken:
		return r.fault(last.line, last.actCol, "%s on the last row of trial %d (want empty: no observation follows it)", jsonread.Quote(last.actText), last.trial)
	case actMissed:
		return r.fault(last.line, last.actCol, "NA on the last row of trial %d (want empty: no observation follows it)", last.trial)
	}
	return nil
}

// finishRow combines the controls of the controllable factors (r.kinds,
// r.ctls, r.texts) into the row's action, encodes its observation and
// makes it the last row.
func (r *Reader) finishRow(ctlCols []string) error {
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
			u, err := r.bm.m.EncodeControls(r.ctls)
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
	return jsonread.Quote(text)
}

// add appends r.row to rec.
func (r *Reader) add(rec *SubjectRecord) error {
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
		tr := TrialRecord{Trial: row.trial, Obs: r.cutInts(h), Actions: r.cutInts(h - 1), Lines: r.cutInts(h)}
		if row.extra != nil {
			tr.Extra = cut(&r.rows, h)[:0]
		}
		if n == 0 {
			// Subjects tend to have as many trials: so many as the last.
			rec.Trials = make([]TrialRecord, 0, max(r.trials, 1))
		}
		rec.Trials = append(rec.Trials, tr)
		r.flat = r.cutInts(h * len(row.outcomes))
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

// slabLen is the length of a slab of cut: for ints, 32 kB, the
// slices of about 200 trials of 2 steps and 3 modalities, so
// that reading allocates a slab where it would allocate hundreds of
// slices.
const slabLen = 4096

// cutInts returns an empty slice of capacity n (not nil) cut from the
// reader's slab, as make([]int, 0, n): its appends past n reallocate
// without touching its neighbours.
func (r *Reader) cutInts(n int) []int { return cut(&r.ints, n)[:0] }

// cut returns a slice of n zero values cut from the slab *slab (one of
// slabLen values, made when it runs out), as make([]T, n).
func cut[T any](slab *[]T, n int) []T {
	if cap(*slab)-len(*slab) < n || *slab == nil {
		*slab = make([]T, 0, max(n, slabLen))
	}
	k := len(*slab)
	*slab = (*slab)[:k+n]
	return (*slab)[k : k+n : k+n]
}

// finishTrial slices the trial's outcomes out of r.flat.
func (r *Reader) finishTrial(t *TrialRecord) {
	nm := len(r.bm.outN)
	r.steps = len(t.Obs)
	t.Outcomes = cut(&r.outs, len(t.Obs))
	for i := range t.Outcomes {
		t.Outcomes[i] = r.flat[i*nm : (i+1)*nm : (i+1)*nm]
	}
	r.flat = nil
}

// finishSubject completes rec's last trial and its extra columns.
func (r *Reader) finishSubject(rec *SubjectRecord) {
	if n := len(rec.Trials); n > 0 {
		r.finishTrial(&rec.Trials[n-1])
	}
	r.trials = len(rec.Trials)
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
