package behaviour

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

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

type colRole struct {
	kind colKind
	idx  int // the modality, the position in layout.ctl, or the extra column
}

func (r *Reader) csvLine() int {
	line, _ := r.cr.FieldPos(0)
	return r.base + line
}

func (r *Reader) csvError(err error) error {
	var be *Error
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
func (r *Reader) readHeader(line int) error {
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
		c := colRole{kind: colExtra}
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
				c = colRole{colObs, m}
				obsPos[m] = i
			} else if k, ok := bm.ctlColumn(h); ok {
				c = colRole{colAct, k}
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
				hint = fmt.Sprintf("; the header has %s", jsonread.Quote(h))
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

// readCSVRow reads and checks the next CSV row into r.row; false at the
// end.
func (r *Reader) readCSVRow() (bool, error) {
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
		return false, r.fault(line, "trial", "%s, want an integer >= 1", jsonread.Quote(rec[r.key[1]]))
	}
	if row.step, ok = digits(rec[r.key[2]]); !ok || row.step >= 1<<62 {
		return false, r.fault(line, "step", "%s, want an integer >= 0", jsonread.Quote(rec[r.key[2]]))
	}
	if err := r.sequence(); err != nil {
		return false, err
	}
	if len(r.extraNames) > 0 {
		row.extra = cut(&r.strs, len(r.extraNames))
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
