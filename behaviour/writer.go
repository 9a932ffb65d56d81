package behaviour

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arbor-ai/arbor/internal/jsonread"
	"github.com/arbor-ai/arbor/pomdp"
)

// WriterOptions configures a Writer. Nil options write CSV without extra
// columns.
type WriterOptions struct {
	// JSONLines writes JSON lines instead of CSV.
	JSONLines bool
	// Extra names extra columns written after the u columns (JSON keys
	// after "u"), in order; their values are text.
	Extra []string
}

// errZeroWriter is the error of the methods of the zero Writer.
var errZeroWriter = errors.New("behaviour: Writer: the zero Writer has no output (use NewWriter)")

// Writer writes recorded behaviour in the format that Reader reads: names
// where the model has them, else indices. Output is buffered: call Flush at
// the end. It is not safe for concurrent use. The zero Writer is not usable
// (it has no output): its methods return an error; make one with NewWriter.
type Writer struct {
	bm      *layout
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

// NewWriter returns a writer of behaviour for the model m to w, and writes
// the CSV header (subject,trial,step,o_...,u_...,extra...). It fails when a
// name cannot be written so as to read back the same: not valid UTF-8, with
// "\r\n" in CSV, a reserved or repeated extra column, a control named NA
// whose index is another control's name.
func NewWriter(w io.Writer, m *pomdp.Model, opts *WriterOptions) (*Writer, error) {
	if pomdp.Check(m) != nil {
		return nil, errors.New("behaviour: NewWriter: nil model, or one not built by pomdp.New, NewFactorised, Parse or Load")
	}
	if w == nil {
		return nil, errors.New("behaviour: NewWriter: nil writer")
	}
	var o WriterOptions
	if opts != nil {
		o = *opts
	}
	bw := &Writer{bm: newLayout(m), json: o.JSONLines, extra: slices.Clone(o.Extra)}
	check := func(what, s string) error {
		if !utf8.ValidString(s) {
			return fmt.Errorf("behaviour: NewWriter: %s %s: not valid UTF-8", what, jsonread.Quote(s))
		}
		if !bw.json && strings.Contains(s, "\r\n") {
			return fmt.Errorf("behaviour: NewWriter: %s %s: a CSV reader turns \\r\\n into \\n", what, jsonread.Quote(s))
		}
		return nil
	}
	if bw.json && len(bw.extra) > MaxJSONExtra {
		return nil, fmt.Errorf("behaviour: NewWriter: %d extra columns, want at most %d in JSON lines (MaxJSONExtra)", len(bw.extra), MaxJSONExtra)
	}
	seen := map[string]bool{}
	for _, e := range bw.extra {
		if e == "" || reservedColumn(e) {
			return nil, fmt.Errorf("behaviour: NewWriter: extra column %s: empty or reserved (subject, trial, step, o, u, o_*, u_*)", jsonread.Quote(e))
		}
		if seen[e] {
			return nil, fmt.Errorf("behaviour: NewWriter: extra column %s: appears twice", jsonread.Quote(e))
		}
		seen[e] = true
		if err := check("extra column", e); err != nil {
			return nil, err
		}
	}
	for i, mname := range bw.bm.modNames {
		if err := check("modality", mname); err != nil {
			return nil, err
		}
		outcomes := bw.bm.outLists[i]
		texts := make([]string, bw.bm.outN[i])
		for x := range texts {
			texts[x] = nameOr(outcomes, x)
			if err := check("outcome", texts[x]); err != nil {
				return nil, err
			}
		}
		if outcomes == nil && bw.json {
			texts = nil
		}
		bw.outText = append(bw.outText, texts)
	}
	for k := range bw.bm.ctl {
		fname, controls := bw.bm.ctlNm[k], bw.bm.ctlLists[k]
		if err := check("factor", fname); err != nil {
			return nil, err
		}
		texts := make([]string, bw.bm.ctlN[k])
		for c := range texts {
			s := nameOr(controls, c)
			if err := check("control", s); err != nil {
				return nil, err
			}
			if s == "NA" {
				// NA reads as a missed response: write the index.
				s = strconv.Itoa(c)
				if _, clash := bw.bm.ctlNames[k][s]; clash {
					return nil, fmt.Errorf("behaviour: NewWriter: control \"NA\" of factor %s cannot be written: NA means a missed response and its index %s is another control's name", jsonread.Quote(fname), s)
				}
				if bw.json {
					s = ""
				}
			}
			texts[c] = s
		}
		if controls == nil && bw.json {
			texts = make([]string, bw.bm.ctlN[k])
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
		return nil, fmt.Errorf("behaviour: NewWriter: %w", err)
	}
	return bw, nil
}

// WriteStep writes one row: observation obs at step of trial, then the
// action taken after it (action -1: none, on a trial's last row), or NA
// when missed is true (action must then be -1), and the values of the
// extra columns (fewer values leave the rest empty).
func (w *Writer) WriteStep(subject string, trial, step, obs, action int, missed bool, extra ...string) error {
	if w.err != nil {
		return w.err
	}
	if w.bm == nil {
		return errZeroWriter
	}
	m := w.bm.m
	switch {
	case subject == "":
		return errors.New("behaviour: WriteStep: empty subject")
	case !utf8.ValidString(subject):
		return fmt.Errorf("behaviour: WriteStep: subject %s: not valid UTF-8", jsonread.Quote(subject))
	case !w.json && strings.Contains(subject, "\r\n"):
		return fmt.Errorf("behaviour: WriteStep: subject %s: a CSV reader turns \\r\\n into \\n", jsonread.Quote(subject))
	case trial < 1:
		return fmt.Errorf("behaviour: WriteStep: trial %d, want >= 1", trial)
	case step < 0:
		return fmt.Errorf("behaviour: WriteStep: step %d, want >= 0", step)
	case obs < 0 || obs >= m.NumObs():
		return fmt.Errorf("behaviour: WriteStep: observation %d out of range [0, %d)", obs, m.NumObs())
	case action < -1 || action >= m.NumActions():
		return fmt.Errorf("behaviour: WriteStep: action %d out of range [-1, %d)", action, m.NumActions())
	case missed && action != -1:
		return fmt.Errorf("behaviour: WriteStep: action %d of a missed response, want -1", action)
	case missed && len(w.bm.ctl) == 0:
		return errors.New("behaviour: WriteStep: a missed response in a model without a controllable factor (no u column to hold NA)")
	case len(extra) > len(w.extra):
		return fmt.Errorf("behaviour: WriteStep: %d extra values, want at most %d", len(extra), len(w.extra))
	}
	for _, e := range extra {
		if !utf8.ValidString(e) {
			return fmt.Errorf("behaviour: WriteStep: extra value %s: not valid UTF-8", jsonread.Quote(e))
		}
		if !w.json && strings.Contains(e, "\r\n") {
			return fmt.Errorf("behaviour: WriteStep: extra value %s: a CSV reader turns \\r\\n into \\n", jsonread.Quote(e))
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
		w.err = fmt.Errorf("behaviour: WriteStep: %w", err)
		return w.err
	}
	return nil
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

func (w *Writer) writeJSON(subject string, trial, step, obs, action int, missed bool, extra []string) error {
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
			b = appendJSONString(b, bm.modNames[i])
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
			for k := range bm.ctl {
				if k > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, bm.ctlNm[k])
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
		w.err = fmt.Errorf("behaviour: WriteStep: %w", err)
		return w.err
	}
	return nil
}

// WriteSubject writes every step of rec: each trial's Obs, its Actions
// (-1: NA) and the values of the writer's extra columns found by name in
// rec.ExtraColumns. Outcomes and Lines are not used. A nil rec is an
// error.
func (w *Writer) WriteSubject(rec *SubjectRecord) error {
	if w.bm == nil {
		return errZeroWriter
	}
	if rec == nil {
		return errors.New("behaviour: WriteSubject: nil record")
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
			return fmt.Errorf("behaviour: WriteSubject: subject %s trial %d: no observations", jsonread.Quote(rec.Subject), t.Trial)
		}
		if len(t.Actions) != len(t.Obs)-1 {
			return fmt.Errorf("behaviour: WriteSubject: subject %s trial %d: %d actions for %d observations, want %d", jsonread.Quote(rec.Subject), t.Trial, len(t.Actions), len(t.Obs), len(t.Obs)-1)
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
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.bm == nil {
		return errZeroWriter
	}
	if w.json {
		if err := w.bw.Flush(); err != nil {
			w.err = fmt.Errorf("behaviour: Writer: %w", err)
		}
		return w.err
	}
	w.cw.Flush()
	if err := w.cw.Error(); err != nil {
		w.err = fmt.Errorf("behaviour: Writer: %w", err)
	}
	return w.err
}
