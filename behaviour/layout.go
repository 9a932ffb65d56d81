package behaviour

import (
	"fmt"
	"strings"

	"github.com/arbor-ai/arbor/internal/jsonread"
	"github.com/arbor-ai/arbor/pomdp"
)

// layout is what the reader and the writer need of a model: the
// columns and the names of outcomes and controls.
type layout struct {
	m        *pomdp.Model
	named    bool             // modalities and factors have names: o_<name>, u_<name>
	modNames []string         // name of each modality
	outN     []int            // number of outcomes of each modality
	outLists [][]string       // per modality, the outcome names; nil without names
	ctl      []int            // the controllable factors, in order
	ctlNm    []string         // name of each controllable factor
	ctlN     []int            // number of controls of each controllable factor
	ctlLists [][]string       // per controllable factor, the control names; nil without names
	obsCol   []string         // CSV column of each modality
	ctlCol   []string         // CSV column of each controllable factor
	modIndex map[string]int   // modality name -> modality
	ctlIndex map[string]int   // controllable factor name -> position in ctl
	outNames []map[string]int // per modality, outcome name -> outcome; nil without names
	ctlNames []map[string]int // per controllable factor, control name -> control
	outWant  []string         // per modality, "none, reward, loss or an index 0..2"
	ctlWant  []string         // per controllable factor
}

// newLayout returns the layout of m, a valid model (pomdp.Check).
func newLayout(m *pomdp.Model) *layout {
	bm := &layout{m: m, named: m.ModalityName(0) != "", modIndex: map[string]int{}, ctlIndex: map[string]int{}}
	for i := range m.NumModalities() {
		name, outcomes, no := m.ModalityName(i), m.OutcomeNames(i), m.ModalitySize(i)
		col := "o"
		if bm.named {
			col = "o_" + name
		}
		bm.modNames = append(bm.modNames, name)
		bm.outN = append(bm.outN, no)
		bm.outLists = append(bm.outLists, outcomes)
		bm.obsCol = append(bm.obsCol, col)
		bm.modIndex[name] = i
		bm.outNames = append(bm.outNames, nameIndex(outcomes))
		bm.outWant = append(bm.outWant, wantText(outcomes, "", no))
	}
	for f := range m.NumFactors() {
		nu := m.FactorControls(f)
		if nu <= 1 || m.ControlOwner(f) != f {
			continue
		}
		name, controls := m.FactorName(f), m.ControlNames(f)
		col := "u"
		if bm.named {
			col = "u_" + name
		}
		bm.ctlIndex[name] = len(bm.ctl)
		bm.ctl = append(bm.ctl, f)
		bm.ctlNm = append(bm.ctlNm, name)
		bm.ctlN = append(bm.ctlN, nu)
		bm.ctlLists = append(bm.ctlLists, controls)
		bm.ctlCol = append(bm.ctlCol, col)
		bm.ctlNames = append(bm.ctlNames, nameIndex(controls))
		bm.ctlWant = append(bm.ctlWant, wantText(controls, "NA", nu))
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
		parts = append(parts, oneLine(jsonread.Shorten(s)))
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
func (bm *layout) outcome(i int, v string) (int, string) {
	if o, ok := bm.outNames[i][v]; ok {
		return o, ""
	}
	if v == "" {
		return 0, fmt.Sprintf("missing outcome (want %s)", bm.outWant[i])
	}
	if n, ok := digits(v); ok {
		return bm.outcomeIndex(i, n, v)
	}
	return 0, fmt.Sprintf("unknown outcome %s (want %s)", jsonread.Quote(v), bm.outWant[i])
}

func (bm *layout) outcomeIndex(i, n int, text string) (int, string) {
	if n >= bm.outN[i] {
		return 0, fmt.Sprintf("outcome index %s out of range (want %s)", jsonread.Shorten(text), bm.outWant[i])
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
func (bm *layout) control(k int, v string) (actKind, int, string) {
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
	return actNone, 0, fmt.Sprintf("unknown control %s (want %s)", jsonread.Quote(v), bm.ctlWant[k])
}

func (bm *layout) controlIndex(k, n int, text string) (actKind, int, string) {
	if n >= bm.ctlN[k] {
		return actNone, 0, fmt.Sprintf("control index %s out of range (want %s)", jsonread.Shorten(text), bm.ctlWant[k])
	}
	return actTaken, n, ""
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

func (bm *layout) obsColumn(h string) (int, bool) {
	for i, c := range bm.obsCol {
		if c == h {
			return i, true
		}
	}
	return 0, false
}

func (bm *layout) ctlColumn(h string) (int, bool) {
	for k, c := range bm.ctlCol {
		if c == h {
			return k, true
		}
	}
	return 0, false
}

// unknownColumn explains why an o, u, o_* or u_* column names nothing.
func (bm *layout) unknownColumn(h string) string {
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
		return fmt.Sprintf("no modality %s (modalities: %s)", jsonread.Quote(nm), jsonread.NameList(bm.modNames))
	}
	for f := range bm.m.NumFactors() {
		if bm.m.FactorName(f) == nm {
			return fmt.Sprintf("factor %s is not controllable (it has one control)", jsonread.Quote(nm))
		}
	}
	if len(bm.ctl) == 0 {
		return fmt.Sprintf("no factor %s, and the model has no controllable factor", jsonread.Quote(nm))
	}
	return fmt.Sprintf("no controllable factor %s (controllable: %s)", jsonread.Quote(nm), jsonread.NameList(bm.ctlNm))
}
