package pomdp

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

// The decoder of POMDP files (docs/formats.md, both formats): readFile
// walks the text once (after jsonread.Check) and keeps what it holds,
// checking types, keys and names as it goes; spec (load.go) and
// parseFactorised (loadf.go) then check the shapes and New or
// NewFactorised the values.
//
// Memory: beyond the text, reading keeps 8 bytes per number (each array
// is allocated once at its final size) and small bookkeeping; New then
// makes the model's own copies (see Parse).

// fileJSON is a POMDP file as read: the single-factor fields, or the
// factors and modalities of a factorised file.
type fileJSON struct {
	single     pomdpJSON
	factorised bool // the file has "factors"
	modalities bool // the file has "modalities"
	factors    []factorJSON
	mods       []modalityJSON
	prefs      []prefJSON
}

// prefJSON is one object of "preferences"; its tables are read with a free
// rank and checked against the modalities later (parsePreference).
type prefJSON struct {
	modalities []string
	C, LogC    *jsonread.Tensor
}

// pomdpJSON holds the fields of a single-factor file (nil: absent or
// null).
type pomdpJSON struct {
	A, ConcA                          *jsonread.Tensor // [o][s]
	B, ConcB                          *jsonread.Tensor // [u][next][prev]
	C, D, CStates, LogC, LogCS, ConcD *jsonread.Tensor

	Actions, Observations, States []string
}

// factorJSON is one object of "factors". has lists the keys present (a
// null B counts: it is an empty B, as before).
type factorJSON struct {
	name                     string
	states, controls         []string
	controlsOf               string
	B, ConcB                 *jsonread.Tensor
	hasB, hasCB              bool
	D, CStates, LogCS, ConcD *jsonread.Tensor
}

// modalityJSON is one object of "modalities". A and a are read with a
// free rank: their shape depends on depends_on, which may come after them.
type modalityJSON struct {
	name                string
	outcomes, dependsOn []string
	A, ConcA            *jsonread.Tensor
	hasA, hasCA         bool
	C, LogC             *jsonread.Tensor
}

// readFile reads the valid JSON text of r, which holds an object.
func readFile(r *jsonread.Reader) (*fileJSON, error) {
	f := &fileJSON{}
	var keys []string // the keys so far
	valueAt := 0      // where the value of the last key starts
	seen := map[string]bool{}
	single, fact := false, false // a key of either format seen
	err := r.Object(func(key string, _ int) error {
		keys = append(keys, key)
		valueAt = jsonread.Space(r.Data, r.Pos)
		isFact := key == "factors" || key == "modalities" || key == "preferences"
		if !knownKeys[key] && !isFact || isFact && single || !isFact && fact {
			return errUnknownKey
		}
		if seen[key] {
			return fmt.Errorf("duplicate key %s", jsonread.Quote(key))
		}
		seen[key] = true
		single, fact = single || !isFact, fact || isFact
		s := &f.single
		var err error
		switch key {
		case "A":
			s.A, err = readVector(r, key, 2)
		case "a":
			s.ConcA, err = readVector(r, key, 2)
		case "B":
			s.B, err = readVector(r, key, 3)
		case "b":
			s.ConcB, err = readVector(r, key, 3)
		case "C":
			s.C, err = readVector(r, key, 1)
		case "D":
			s.D, err = readVector(r, key, 1)
		case "C_states":
			s.CStates, err = readVector(r, key, 1)
		case "log_C":
			s.LogC, err = readVector(r, key, 1)
		case "log_C_states":
			s.LogCS, err = readVector(r, key, 1)
		case "d":
			s.ConcD, err = readVector(r, key, 1)
		case "actions":
			s.Actions, err = readNames(r, key, true)
		case "observations":
			s.Observations, err = readNames(r, key, true)
		case "states":
			s.States, err = readNames(r, key, true)
		case "factors":
			f.factorised = true
			err = readObjects(r, key, func(i int) error {
				fj, err := readFactor(r, i)
				f.factors = append(f.factors, fj)
				return err
			})
		case "modalities":
			f.modalities = true
			err = readObjects(r, key, func(i int) error {
				mj, err := readModality(r, i)
				f.mods = append(f.mods, mj)
				return err
			})
		case "preferences":
			err = readObjects(r, key, func(i int) error {
				pj, err := readPreference(r, i)
				f.prefs = append(f.prefs, pj)
				return err
			})
		}
		return err
	})
	if err == nil && f.modalities != f.factorised {
		err = errUnknownKey // one of the two is missing
	}
	if err != nil {
		if valueAt > 0 && len(keys) > 0 {
			// The keys after the value at fault, which is skipped.
			keys = append(keys, keysAfter(r.Data, jsonread.Skip(r.Data, valueAt))...)
		}
		if kerr := topKeysError(keys); kerr != nil {
			return nil, kerr
		}
		return nil, err
	}
	return f, nil
}

// keysAfter returns the keys of the rest of an object, from offset i just
// after one of its values.
func keysAfter(data []byte, i int) []string {
	var keys []string
	r := &jsonread.Reader{Data: data, Pos: i}
	for r.Peek() == ',' {
		r.Pos++
		r.Peek()
		keys = append(keys, r.ReadString())
		if r.Peek() != ':' {
			break
		}
		r.Pos++
		r.Skip()
	}
	return keys
}

// topKeysError is the error for the keys of the top-level object, nil when
// they are fine: a key unknown to both formats, keys of both formats,
// modalities without factors or factors without modalities, a key given
// twice. It names the first such key in sorted order, and comes before any
// other fault of the file, as when the keys were all read first.
func topKeysError(keys []string) error {
	if slices.Contains(keys, "factors") {
		if err := unknownKey("", keys, topKeys); err != nil {
			return fmt.Errorf("%w; a factorised file has only factors, modalities and preferences", err)
		}
		if !slices.Contains(keys, "modalities") {
			return errors.New("modalities: missing")
		}
		return duplicateKey("", keys)
	}
	if slices.Contains(keys, "modalities") {
		return errors.New("factors: missing (a file with modalities lists its factors)")
	}
	if slices.Contains(keys, "preferences") {
		return errors.New("factors: missing (preferences belong to the factorised format, with factors and modalities)")
	}
	var unknown []string
	for _, k := range keys {
		if !knownKeys[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return duplicateKey("", keys)
	}
	sort.Strings(unknown)
	return fmt.Errorf("unknown field %s (known: A, B, C, D, C_states, log_C, log_C_states, a, b, d, actions, observations, states; or factors and modalities)", jsonread.Quote(unknown[0]))
}

// duplicateKey is the error for the first key of keys that repeats an
// earlier one (nil when none), prefixed with where. A fault in the value
// of a key given twice is reported as the duplicate: the user who fixes
// the second value would otherwise see no change.
func duplicateKey(where string, keys []string) error {
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if seen[k] {
			return fmt.Errorf("%sduplicate key %s", where, jsonread.Quote(k))
		}
		seen[k] = true
	}
	return nil
}

// unknownKey is the error for the first key of keys, in sorted order,
// outside known (nil when none), prefixed with where.
func unknownKey(where string, keys, known []string) error {
	var unknown []string
	for _, k := range keys {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return fmt.Errorf("%sunknown field %s (known: %s)", where, jsonread.Quote(unknown[0]), strings.Join(known, ", "))
}

// readVector reads the nested array of numbers of field with the given
// rank (1 for a vector); null is nil, as an absent field. A value of
// another type is refused at its first token, named as encoding/json
// names it: "A: cannot use JSON number as []float64 (at A[0])".
func readVector(r *jsonread.Reader, field string, rank int) (*jsonread.Tensor, error) {
	t := r.ReadTensor(rank)
	if t.Null {
		return nil, nil
	}
	if f := t.Fault; f != nil {
		lit := jsonread.KindAt(t.Src, f.Off)
		if lit == "null" && len(f.Path) == 1 && strings.HasPrefix(field, "log_C") {
			// It would have been 0 to encoding/json; the user probably
			// meant -Inf.
			return nil, fmt.Errorf("%s[%d]: null, want a number (JSON has no -Inf: write a very negative log-preference such as -1e6, or use C with a 0)", field, f.Path[0])
		}
		if f.Kind == jsonread.TensorRange {
			lit = "number " + string(r.Text(f.Off))
		}
		at := ""
		if len(f.Path) > 0 {
			at = fmt.Sprintf(" (at %s%s)", field, jsonread.Indices(f.Path))
		}
		return nil, fmt.Errorf("%s: cannot use JSON %s as %sfloat64%s", field, jsonread.Shorten(lit), strings.Repeat("[]", rank-len(f.Path)), at)
	}
	return t, nil
}

// readNames reads an array of names (null is nil). Each must be a string
// fit to print (jsonread.NameFault); check is false for references to names
// (depends_on), which must match a checked name anyway.
func readNames(r *jsonread.Reader, field string, check bool) ([]string, error) {
	switch c := r.Peek(); c {
	case 'n':
		r.Skip()
		return nil, nil
	case '[':
	default:
		kind := r.Kind()
		r.Skip()
		return nil, fmt.Errorf("%s: cannot use JSON %s as []string", field, kind)
	}
	names := []string{}
	err := r.Array(func(i int) error {
		if r.Peek() != '"' {
			return fmt.Errorf("%s: cannot use JSON %s as string (at %s[%d])", field, r.Kind(), field, i)
		}
		s := r.ReadString()
		if fault := jsonread.NameFault(s); fault != "" && check {
			return fmt.Errorf("%s[%d]: %s %s", field, i, jsonread.Quote(s), fault)
		}
		names = append(names, s)
		return nil
	})
	return names, err
}

// readObjects reads the array of objects of field ("factors",
// "modalities"), calling f with the reader at each object.
func readObjects(r *jsonread.Reader, field string, f func(i int) error) error {
	if c := r.Peek(); c != '[' {
		if c == 'n' {
			r.Skip()
			return nil
		}
		return fmt.Errorf("%s: want an array of objects, got JSON %s", field, r.Kind())
	}
	return r.Array(func(i int) error {
		switch c := r.Peek(); c {
		case '{':
			return f(i)
		case 'n':
			return fmt.Errorf("%s[%d]: null, want an object", field, i)
		default:
			return fmt.Errorf("%s[%d]: want an object, got JSON %s", field, i, r.Kind())
		}
	})
}

// objectError completes an error met in the i-th object of field
// (reading kind's keys, known) that starts at start: it names the object
// by its name when the object has a fit one (`factor "location": `),
// otherwise by its index (`factors[1]: `). As when the keys were all read
// first, a faulty name comes before an unknown key, which comes before a
// duplicate key, which comes before err.
func objectError(data []byte, start int, field, kind string, i int, known []string, err error) error {
	where := fmt.Sprintf("%s[%d]: ", field, i)
	var keys []string
	var nameErr error
	r := &jsonread.Reader{Data: data, Pos: start}
	_ = r.Object(func(key string, _ int) error {
		keys = append(keys, key)
		if key != "name" || len(keys) > 1 && slices.Contains(keys[:len(keys)-1], "name") {
			r.Skip()
			return nil
		}
		switch c := r.Peek(); c {
		case '"':
			name := r.ReadString()
			if fault := jsonread.NameFault(name); fault != "" {
				nameErr = fmt.Errorf("%sname: %s %s", where, jsonread.Quote(name), fault)
			} else if name != "" {
				where = fmt.Sprintf("%s %s: ", kind, jsonread.Quote(name))
			}
		case 'n':
			r.Skip()
		default:
			nameErr = fmt.Errorf("%sname: cannot use JSON %s as string", where, r.Kind())
			r.Skip()
		}
		return nil
	})
	names := 0
	for _, k := range keys {
		if k == "name" {
			names++
		}
	}
	if names > 1 { // which name is meant is not known
		return fmt.Errorf("%s[%d]: duplicate key \"name\"", field, i)
	}
	if nameErr != nil {
		return nameErr
	}
	if uerr := unknownKey(where, keys, known); uerr != nil {
		return uerr
	}
	if derr := duplicateKey(where, keys); derr != nil {
		return derr
	}
	return fmt.Errorf("%s%w", where, err)
}

// errUnknownKey marks an unknown key, which objectError names.
var errUnknownKey = errors.New("unknown key")

// readObject reads the object at r (the i-th of field) with the keys
// known, calling f with each key and the reader at its value; a duplicate
// or unknown key is an error. Errors are completed by objectError.
func readObject(r *jsonread.Reader, field, kind string, i int, known []string, f func(key string) error) error {
	start := jsonread.Space(r.Data, r.Pos)
	var seen []string
	err := r.Object(func(key string, _ int) error {
		if !slices.Contains(known, key) {
			return errUnknownKey
		}
		if slices.Contains(seen, key) {
			return fmt.Errorf("duplicate key %s", jsonread.Quote(key))
		}
		seen = append(seen, key)
		return f(key)
	})
	if err != nil {
		return objectError(r.Data, start, field, kind, i, known, err)
	}
	return nil
}

// readName reads an optional name (null is "").
func readName(r *jsonread.Reader) (string, error) {
	switch r.Peek() {
	case '"':
		name := r.ReadString()
		if fault := jsonread.NameFault(name); fault != "" {
			return "", fmt.Errorf("name: %s %s", jsonread.Quote(name), fault)
		}
		return name, nil
	case 'n':
		r.Skip()
		return "", nil
	}
	return "", fmt.Errorf("name: cannot use JSON %s as string", r.Kind())
}

func readFactor(r *jsonread.Reader, i int) (factorJSON, error) {
	var f factorJSON
	err := readObject(r, "factors", "factor", i, factorKeys, func(key string) error {
		var err error
		switch key {
		case "name":
			f.name, err = readName(r)
		case "states":
			f.states, err = readNames(r, key, true)
		case "controls":
			f.controls, err = readNames(r, key, true)
		case "controls_of":
			if r.Peek() != '"' {
				return fmt.Errorf("controls_of: want a factor name, got JSON %s", r.Kind())
			}
			f.controlsOf = r.ReadString()
		case "B":
			f.hasB = true
			f.B, err = readVector(r, key, 3)
		case "b":
			f.hasCB = true
			f.ConcB, err = readVector(r, key, 3)
		case "D":
			f.D, err = readVector(r, key, 1)
		case "C_states":
			f.CStates, err = readVector(r, key, 1)
		case "log_C_states":
			f.LogCS, err = readVector(r, key, 1)
		case "d":
			f.ConcD, err = readVector(r, key, 1)
		}
		return err
	})
	return f, err
}

func readModality(r *jsonread.Reader, i int) (modalityJSON, error) {
	var md modalityJSON
	err := readObject(r, "modalities", "modality", i, modalityKeys, func(key string) error {
		var err error
		switch key {
		case "name":
			md.name, err = readName(r)
		case "outcomes":
			md.outcomes, err = readNames(r, key, true)
		case "depends_on":
			md.dependsOn, err = readNames(r, key, false)
		case "A":
			md.hasA = true
			md.A = r.ReadTensor(-1) // checked against depends_on later (tensorFit)
		case "a":
			md.hasCA = true
			md.ConcA = r.ReadTensor(-1)
		case "C":
			md.C, err = readVector(r, key, 1)
		case "log_C":
			md.LogC, err = readVector(r, key, 1)
		}
		return err
	})
	return md, err
}

func readPreference(r *jsonread.Reader, i int) (prefJSON, error) {
	var p prefJSON
	err := readObject(r, "preferences", "preference", i, prefKeys, func(key string) error {
		var err error
		switch key {
		case "modalities":
			p.modalities, err = readNames(r, key, false)
		case "C":
			p.C = r.ReadTensor(-1)
		case "log_C":
			p.LogC = r.ReadTensor(-1)
		}
		return err
	})
	return p, err
}

// syntaxError is the error for a text that jsonread.Check refused: that of
// encoding/json (same offset and wording), after the path of the value it
// is in ("A[0][1]: invalid JSON at byte 14: ...").
func syntaxError(data []byte, off int) error {
	var se *json.SyntaxError
	var v struct{}
	if err := json.Unmarshal(data, &v); !errors.As(err, &se) {
		// Not reached: jsonread.Check accepts what encoding/json accepts.
		return fmt.Errorf("invalid JSON at byte %d", off+1)
	}
	at := ""
	if p := jsonPathAt(data, se.Offset-1); p != "" {
		at = p + ": "
	}
	hint := ""
	if k := se.Offset - 1; k >= 0 && k < int64(len(data)) && (data[k] == 'N' || data[k] == 'I') {
		hint = " (JSON has no NaN or Infinity)"
	}
	return fmt.Errorf("%sinvalid JSON at byte %d: %v%s", at, se.Offset, se, hint)
}

// jsonMaxPathDepth is the number of levels jsonPathAt spells out.
const jsonMaxPathDepth = 8

// jsonPathAt returns the path (e.g. "A[0][1]" or "B[1]") of the JSON value
// being read at byte offset end of data, which holds valid JSON up to
// there, or "" at the top level. Keys are cut to 40 bytes and paths to 8
// levels, so that the path stays short.
func jsonPathAt(data []byte, end int64) string {
	type frame struct {
		obj     bool
		key     string
		n       int // array: values completed so far
		wantKey bool
	}
	var stack []frame
	done := func() { // a value completed in the innermost container
		if len(stack) == 0 {
			return
		}
		f := &stack[len(stack)-1]
		if f.obj {
			f.wantKey = true
		} else {
			f.n++
		}
	}
	if end < 0 || end > int64(len(data)) {
		return ""
	}
	d := data[:end]
	for i := jsonread.Space(d, 0); i < len(d); i = jsonread.Space(d, i) {
		switch c := d[i]; c {
		case '{':
			stack = append(stack, frame{obj: true, wantKey: true})
			i++
		case '[':
			stack = append(stack, frame{})
			i++
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			done()
			i++
		case ',', ':':
			i++
		case '"':
			j, f := jsonread.CheckString(d, i)
			if f != jsonread.Valid {
				i = len(d) // an unfinished string is no token
				continue
			}
			if f := len(stack) - 1; f >= 0 && stack[f].obj && stack[f].wantKey {
				r := &jsonread.Reader{Data: d, Pos: i}
				stack[f].key, stack[f].wantKey = r.ReadString(), false
			} else {
				done()
			}
			i = j
		default:
			var f jsonread.Fault
			j := jsonread.WordEnd(d, i)
			switch c {
			case 't':
				_, f = jsonread.CheckWord(d, i, "true")
			case 'f':
				_, f = jsonread.CheckWord(d, i, "false")
			case 'n':
				_, f = jsonread.CheckWord(d, i, "null")
			default:
				var k int
				k, f = jsonread.CheckNumber(d, i)
				if f == jsonread.Valid && k != j {
					f = jsonread.BadByte
				}
			}
			if f == jsonread.Valid {
				done()
			}
			i = j
		}
	}
	var b strings.Builder
	for depth, f := range stack {
		if depth == jsonMaxPathDepth {
			// JSON nests up to 10,000 levels: name the first few and
			// count the rest, so that the error stays one short line.
			fmt.Fprintf(&b, "...(%d levels deep)", len(stack))
			break
		}
		switch {
		case f.obj && f.wantKey:
			return b.String()
		case f.obj:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(jsonread.Shorten(f.key))
		default:
			fmt.Fprintf(&b, "[%d]", f.n)
		}
	}
	return b.String()
}
