package behaviour

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

// Error is a fault in recorded behaviour: the file, the line of the row,
// the CSV column or JSON field, and what is wrong. Its Error is one line:
//
//	behaviour: data.csv:7: column o_reward: unknown outcome "rewrd" (want none, reward, loss or an index 0..2)
//
// A program replaying the data can report its own faults (an observation
// its model gives probability 0) the same way, from TrialRecord.Lines.
type Error struct {
	File   string // the name given to the reader; "" for none
	Line   int    // 1-based line of the row; 0 when the fault has no line
	Column string // the CSV column ("o_reward") or JSON field ("o.reward"); "" for a whole row
	JSON   bool   // Column names a field of a JSON line
	Msg    string // the fault
}

// Error formats e as "behaviour: file:line: column c: msg" on one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("behaviour: ")
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
func colText(s string) string { return oneLine(jsonread.Shorten(s)) }

// nameOr returns names[i], or i in decimal when there is no such name.
func nameOr(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprint(i)
}
