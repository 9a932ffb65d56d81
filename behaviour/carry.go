package behaviour

import (
	"encoding/json"
	"slices"
)

// Carry copies the extra columns of recorded behaviour (a reaction time,
// a condition, simulate's true states) to an output written row by row
// beside columns of its own, as arbor replay writes one row per step:
// what the data had is kept, so that the output joins back to it.
type Carry struct {
	// Columns are the extra columns carried, in the order of first
	// appearance in the records (ExtraColumns).
	Columns []string
	rec     *SubjectRecord // the record where is for
	where   []int          // per column, its position in rec.ExtraColumns, or -1
}

// NewCarry returns the carry of the extra columns of recs but those for
// which own reports true (the output's own columns, whose values replace
// the input's); a nil own keeps every column.
func NewCarry(recs []SubjectRecord, own func(column string) bool) *Carry {
	c := &Carry{}
	for i := range recs {
		for _, e := range recs[i].ExtraColumns {
			if (own == nil || !own(e)) && !slices.Contains(c.Columns, e) {
				c.Columns = append(c.Columns, e)
			}
		}
	}
	return c
}

// Values appends to dst the values of c.Columns at step s of trial t (an
// index into rec.Trials) of rec, "" where rec has no such column or value.
func (c *Carry) Values(dst []string, rec *SubjectRecord, t, s int) []string {
	if len(c.Columns) == 0 {
		return dst
	}
	if c.rec != rec {
		c.rec, c.where = rec, c.where[:0]
		for _, col := range c.Columns {
			c.where = append(c.where, slices.Index(rec.ExtraColumns, col))
		}
	}
	var row []string
	if t >= 0 && t < len(rec.Trials) && s >= 0 && s < len(rec.Trials[t].Extra) {
		row = rec.Trials[t].Extra[s]
	}
	for _, i := range c.where {
		v := ""
		if i >= 0 && i < len(row) {
			v = row[i]
		}
		dst = append(dst, v)
	}
	return dst
}

// AppendJSON inserts the values of c.Columns at step s of trial t of rec
// (Values) into obj, the JSON text of an object (with or without its
// newline), as string members after its own, and returns the result: the
// text of a JSON-lines row, as Writer writes its extra keys.
func (c *Carry) AppendJSON(obj []byte, rec *SubjectRecord, t, s int) []byte {
	if len(c.Columns) == 0 {
		return obj
	}
	text := obj
	nl := len(text) > 0 && text[len(text)-1] == '\n'
	if nl {
		text = text[:len(text)-1]
	}
	if len(text) == 0 || text[len(text)-1] != '}' {
		return obj // not an object: left as it is
	}
	body := text[:len(text)-1]
	empty := len(body) > 0 && body[len(body)-1] == '{'
	out := slices.Clone(body)
	for j, v := range c.Values(nil, rec, t, s) {
		if j > 0 || !empty {
			out = append(out, ',')
		}
		out = appendJSONString(out, c.Columns[j])
		out = append(out, ':')
		out = appendJSONString(out, v)
	}
	out = append(out, '}')
	if nl {
		out = append(out, '\n')
	}
	return out
}

// Encode writes v (a JSON object, such as a step line of a replay) with
// enc, the values of c.Columns at step s of trial t of rec added to it
// (AppendJSON); without columns it is enc.Encode(v).
func (c *Carry) Encode(enc *json.Encoder, v any, rec *SubjectRecord, t, s int) error {
	if len(c.Columns) == 0 {
		return enc.Encode(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return enc.Encode(json.RawMessage(c.AppendJSON(b, rec, t, s)))
}
