package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/internal/jsonread"
	"github.com/arbor-ai/arbor/internal/prefault"
)

// The decoder of model files (docs/formats.md, "Generic model file"):
// readModel walks the text once (after jsonread.Check) and keeps its
// values, refusing a wrong type, an unknown or a repeated key at its first
// token; Parse then checks and builds them. Keys match case-insensitively,
// as they did through encoding/json. Numbers are read flat at their final
// size (8 bytes each); a fault inside a literal tensor (ragged, not
// finite, not a number) is kept with the tensor and reported where Parse
// uses it, with the factor's name and node.

// modelJSON is a model file as read. A fault inside an element of
// variables or factors, or inside settings, is kept (varErr, factorErr,
// settingsErr) with the elements before it, for Parse to report in its
// turn, after the faults of the elements before; reading skips the rest of
// that array.
type modelJSON struct {
	variables []varSpec
	factors   factorList
	settings  *settingsSpec // nil: absent or null

	// Sizes, data constants (loops.go): in file order.
	sizes []sizeEntry
	data  []dataEntry

	varErr, factorErr, settingsErr error
}

type varSpec struct {
	Name, Family string
	Shape        []int
	Observed     *jsonread.Tensor // nil: absent or null

	// An array of variables (loops.go): its extents as written, and its
	// elements' observed values (Observed is then nil).
	Size        []extentSpec
	ObservedArr *observedArray

	Dim jsonValue // "dim" of an mvnormal or wishart variable (mvnormal.go)
}

type factorSpec struct {
	Node, Name, Out                       string
	In                                    []string
	P, Matrix, Alpha, Shape, Rate, Values jsonValue
	Precision, Update                     string
	PrecisionNum                          jsonValue // "precision" given as a number (normal)
	Mean                                  jsonMean
	Switch                                string
	Means, Precisions                     jsonList
	For                                   []loopSpec // the factor's loops (loops.go), in file order
	DF, Scale, A, B, Covariance           jsonValue  // wishart, beta, mvnormal (mvnormal.go)
}

// jsonMean is a normal factor's "mean": a variable's name or a number
// (v), or {"of": VAR, "scale": a, "offset": b} (obj), or the linear
// predictor {"sum": [...], "offset": b} (linear.go).
type jsonMean struct {
	set, obj      bool
	v             jsonValue
	of            string
	scale, offset jsonValue
	sum           jsonSum
	matrix        jsonValue // A of an mvnormal's mean A·x + b (mvnormal.go)
	dot           *jsonDot  // a normal's mean cᵀw + b (mvnormal.go)
}

// jsonList is an array of variable names and numbers ("means",
// "precisions").
type jsonList struct {
	set   bool
	items []jsonValue
}

type settingsSpec struct {
	Iterations, Tolerance, Damping jsonValue
	ParamTolerance                 jsonValue // convergence.go
	Method                         *string   // nil: absent or null
	Loopy                          *bool     // nil: absent or null
}

// The fields of each object, as listed in errors.
var (
	fileFields     = []string{"variables", "factors", "settings", "sizes", "data"}
	varFields      = []string{"name", "family", "shape", "observed", "size", "dim"}
	factorFields   = []string{"node", "name", "out", "in", "p", "matrix", "alpha", "shape", "rate", "precision", "values", "update", "mean", "switch", "means", "precisions", "for", "df", "scale", "a", "b", "covariance"}
	meanFields     = []string{"of", "scale", "offset", "sum", "matrix", "dot"}
	settingsFields = []string{"iterations", "tolerance", "method", "loopy", "damping", "param_tolerance"}
)

// jsonValue is a field that holds numbers or, for some, a variable's name:
// set when the key is given (whatever its value).
type jsonValue struct {
	set  bool
	name *string          // the value is a string
	t    *jsonread.Tensor // the value read as numbers (a string or null is its fault)
}

// varName returns the variable name the value gives: a string, or "" for
// null (which then reads as a missing name).
func (v jsonValue) varName() (string, bool) {
	switch {
	case v.name != nil:
		return *v.name, true
	case v.t != nil && v.t.Null:
		return "", true
	}
	return "", false
}

// numbers returns the value's numbers and shape, or its fault as an error
// naming field and the index.
func (v jsonValue) numbers(field string) ([]float64, []int, error) {
	return tensorNumbers(v.t, field)
}

// scalar returns the value's number, which must be finite.
func (v jsonValue) scalar(field string) (float64, error) {
	data, shape, err := tensorNumbers(v.t, field)
	if err != nil {
		return 0, err
	}
	if len(shape) != 0 {
		return 0, fmt.Errorf("%s: want a number, got an array", field)
	}
	return data[0], nil
}

// tensorNumbers returns the numbers and the shape of the tensor t (a
// number has shape []), or its fault as an error naming field and the
// index: "factors[1] (transition).matrix[1]: 1 entries, want 2 (ragged
// array)".
func tensorNumbers(t *jsonread.Tensor, field string) ([]float64, []int, error) {
	f := t.Fault
	if f == nil {
		return t.Data, t.Shape(), nil
	}
	at := field + jsonread.Indices(f.Path)
	switch f.Kind {
	case jsonread.TensorNumber:
		return nil, nil, fmt.Errorf("%s: number where an array was expected (ragged array)", at)
	case jsonread.TensorRange:
		return nil, nil, fmt.Errorf("%s: %s is not a finite number", at, shorten(string(t.Src[f.Off:jsonread.WordEnd(t.Src, f.Off)])))
	case jsonread.TensorEmpty:
		return nil, nil, fmt.Errorf("%s: empty array", at)
	case jsonread.TensorArray:
		return nil, nil, fmt.Errorf("%s: array where a number was expected (ragged array)", at)
	case jsonread.TensorLength:
		return nil, nil, fmt.Errorf("%s: %d entries, want %d (ragged array)", at, f.Len, f.Want)
	}
	kind := "an object"
	switch jsonread.KindAt(t.Src, f.Off) {
	case "null":
		kind = "null"
	case "string":
		kind = "a string"
	case "bool":
		kind = "a boolean"
	}
	return nil, nil, fmt.Errorf("%s: want a number or an array of numbers, got %s", at, kind)
}

// decoder reads one model file, named file in errors.
type decoder struct {
	file  string
	r     *jsonread.Reader
	slab  valueSlab         // the values of the fields that take a number or a name
	words map[string]string // the values word has kept
	names fieldNames        // the elements' field names
}

// fail is the *Error of the file for field.
func (d *decoder) fail(field string, format string, args ...any) error {
	return &Error{File: d.file, Field: field, Err: fmt.Errorf(format, args...)}
}

// at writes the line and column of offset off, for faults of the whole
// file.
func (d *decoder) at(off int) string {
	l, c := lineCol(d.r.Data, int64(off))
	return fmt.Sprintf(" (line %d, column %d)", l, c)
}

// typeOffset is where encoding/json placed a type error on the value at
// the reader: after the bracket of an array or object, after any other
// value.
func (d *decoder) typeOffset() int {
	i := jsonread.Space(d.r.Data, d.r.Pos)
	if i < len(d.r.Data) && (d.r.Data[i] == '[' || d.r.Data[i] == '{') {
		return i + 1
	}
	return jsonread.Skip(d.r.Data, i)
}

// readModel reads the model file data (named file in errors). Its errors
// are those of the file as a whole: its syntax, its top-level keys and the
// types of variables and factors.
func readModel(file string, data []byte) (*modelJSON, error) {
	d := &decoder{file: file, r: &jsonread.Reader{Data: data}}
	switch fault, off := jsonread.Check(data); fault {
	case jsonread.Valid:
	case jsonread.Empty:
		return nil, d.fail("", "malformed JSON: empty file")
	case jsonread.Truncated:
		return nil, d.fail("", "malformed JSON: unexpected end of file")
	case jsonread.Trailing:
		// The faults of the object come first, as when it is decoded
		// before the rest is looked at.
		if _, err := readModel(file, data[:off]); err != nil {
			return nil, err
		}
		return nil, d.fail("", "malformed JSON: data after the top-level object")
	default:
		var se *json.SyntaxError
		var v struct{}
		if err := json.Unmarshal(data, &v); errors.As(err, &se) {
			l, c := lineCol(data, se.Offset)
			return nil, d.fail("", "malformed JSON at line %d, column %d: %v", l, c, se)
		}
		return nil, d.fail("", "malformed JSON") // not reached: jsonread.Check agrees with encoding/json
	}
	m := &modelJSON{}
	switch d.r.Peek() {
	case '{':
	case 'n':
		d.r.Skip()
		return m, nil
	default:
		return nil, d.fail("", "want a JSON object, got JSON %s%s", d.r.Kind(), d.at(d.typeOffset()))
	}
	err := d.object("", fileFields, func(k int) error {
		switch k {
		case 0:
			if d.r.Peek() == '[' {
				// [] is no variables, but not null (for ParseSpec); the slice
				// gets its final size at once.
				n := jsonread.ArrayObjects(d.r.Data, d.r.Pos)
				if int64(n) > itemLimit {
					return d.tooMany("variables", n)
				}
				m.variables = prefault.Make[varSpec](0, n)
			}
			return d.elements("variables", &m.varErr, func(i int) error {
				vs, err := d.variable(i)
				if err == nil {
					m.variables = append(m.variables, vs)
				}
				return err
			})
		case 1:
			if d.r.Peek() == '[' {
				n := jsonread.ArrayObjects(d.r.Data, d.r.Pos)
				if int64(n) > itemLimit {
					return d.tooMany("factors", n)
				}
				m.factors.reserve(n)
			}
			var fs factorSpec // read in place: a factor's spec is large
			return d.elements("factors", &m.factorErr, func(i int) error {
				fs = factorSpec{}
				if err := d.factor(i, &fs); err != nil {
					return err
				}
				m.factors.add(&fs)
				return nil
			})
		case 3:
			var err error
			m.sizes, err = d.sizes()
			return err
		case 4:
			var err error
			m.data, err = d.dataConstants()
			return err
		}
		start := jsonread.Space(d.r.Data, d.r.Pos)
		m.settings, m.settingsErr = d.settings()
		if m.settingsErr != nil {
			m.settings = nil
			d.r.Pos = jsonread.Skip(d.r.Data, start)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// object reads the object at the reader, the element called field ("" for
// the whole file), whose keys are fields: it calls f with the index in
// fields of every key and the reader at its value, which f must read. An
// unknown key and a key given twice are errors; so is a fault in the
// value of a key that is given again later, reported as the duplicate
// (the user who fixes the second value would otherwise see no change).
func (d *decoder) object(field string, fields []string, f func(k int) error) error {
	seen := make([]bool, len(fields))
	index := func(key string) int {
		for j, name := range fields {
			if strings.EqualFold(key, name) {
				return j
			}
		}
		return -1
	}
	// indexRaw is index of the key whose text is raw: a key written as
	// its field is found without making a string of it.
	indexRaw := func(raw []byte) int {
		for j, name := range fields {
			if string(raw) == name {
				return j
			}
		}
		return index(jsonread.Key(raw))
	}
	duplicate := func(key string, at int) error {
		quoted := strconv.Quote(shorten(key))
		if field == "" {
			return d.fail("", "duplicate key %s%s", quoted, d.at(at))
		}
		return d.fail(field, "duplicate key %s", quoted)
	}
	return d.r.ObjectRaw(func(raw []byte, at int) error {
		k := indexRaw(raw)
		if k < 0 {
			key := jsonread.Key(raw)
			list := strings.Join(fields, ", ")
			if field == "" {
				// The fields of arrays and loops come after the list that
				// the file had before them.
				list = strings.Join(fields[:3], ", ") + ") (also " + strings.Join(fields[3:], " and ") + ", for arrays and loops"
			}
			return d.fail(join(field, strings.Trim(strconv.Quote(shorten(key)), `"`)), "unknown field (fields: %s)", list)
		}
		if seen[k] {
			return duplicate(jsonread.Key(raw), at)
		}
		seen[k] = true
		start := jsonread.Space(d.r.Data, d.r.Pos)
		err := f(k)
		if err == nil {
			return nil
		}
		// A later key equal to one so far?
		r := &jsonread.Reader{Data: d.r.Data, Pos: jsonread.Skip(d.r.Data, start)}
		for r.Peek() == ',' {
			r.Pos++
			at := jsonread.Space(r.Data, r.Pos)
			key := r.ReadString()
			if j := index(key); j >= 0 && seen[j] {
				return duplicate(key, at)
			}
			if r.Peek() != ':' {
				break
			}
			r.Pos++
			r.Skip()
		}
		return err
	})
}

// join writes the sub-field sub of field.
func join(field, sub string) string {
	if field == "" || sub == "" {
		return field + sub
	}
	return field + "." + sub
}

// elements reads the array of objects field ("variables", "factors"),
// calling f with the index of each element and the reader at it. null is
// no elements. The first element that f (or its type) refuses ends the
// reading: its error goes to *elemErr and the rest of the array is
// skipped.
func (d *decoder) elements(field string, elemErr *error, f func(i int) error) error {
	switch d.r.Peek() {
	case '[':
	case 'n':
		d.r.Skip()
		return nil
	default:
		return d.fail(field, "want an array, got JSON %s%s", d.r.Kind(), d.at(d.typeOffset()))
	}
	start := jsonread.Space(d.r.Data, d.r.Pos)
	err := d.r.Array(func(i int) error {
		switch d.r.Peek() {
		case '{', 'n':
			return f(i)
		}
		return d.fail(fmt.Sprintf("%s[%d]", field, i), "want a JSON object, got JSON %s", d.r.Kind())
	})
	if err != nil {
		*elemErr = err
		d.r.Pos = jsonread.Skip(d.r.Data, start)
	}
	return nil
}

// tooMany refuses an array of more objects than MaxItems before they are
// read, which would take memory in proportion.
func (d *decoder) tooMany(field string, n int) error {
	return d.fail(field, "%s written out, more than the limit of %s (model.MaxItems)", thousands(int64(n)), thousands(itemLimit))
}

// null skips a null at the reader (an element or field given as null,
// which reads as its zero value).
func (d *decoder) null() bool {
	if d.r.Peek() == 'n' {
		d.r.Skip()
		return true
	}
	return false
}

// strOf is str of the field key of field, the name made only for an
// error (a long file reads a few names in each of its items).
func (d *decoder) strOf(field, key string) (string, error) {
	if d.r.Peek() == '"' {
		return d.r.ReadString(), nil
	}
	return d.str(field + "." + key)
}

// word reads a string field whose values repeat (a factor's node, a
// variable's family) as strOf does, keeping one copy of each of the first
// few values instead of one per element.
func (d *decoder) word(field, key string) (string, error) {
	if d.r.Peek() != '"' {
		return d.str(field + "." + key)
	}
	end := jsonread.Skip(d.r.Data, d.r.Pos)
	body := d.r.Data[d.r.Pos+1 : max(end-1, d.r.Pos+1)]
	if w, ok := d.words[string(body)]; ok {
		d.r.Pos = end
		return w, nil
	}
	w := jsonread.Key(body)
	d.r.Pos = end
	if string(body) == w && len(d.words) < 32 {
		if d.words == nil {
			d.words = map[string]string{}
		}
		d.words[w] = w
	}
	return w, nil
}

// str reads a string field (null is "").
func (d *decoder) str(field string) (string, error) {
	switch d.r.Peek() {
	case '"':
		return d.r.ReadString(), nil
	case 'n':
		d.r.Skip()
		return "", nil
	}
	return "", d.fail(field, "want a string, got JSON %s", d.r.Kind())
}

// strs reads an array of strings (null is nil).
func (d *decoder) strs(field string) ([]string, error) {
	switch d.r.Peek() {
	case '[':
	case 'n':
		d.r.Skip()
		return nil, nil
	default:
		return nil, d.fail(field, "want an array, got JSON %s", d.r.Kind())
	}
	out := []string{}
	err := d.r.Array(func(i int) error {
		if d.r.Peek() != '"' {
			return d.fail(fmt.Sprintf("%s[%d]", field, i), "want a string, got JSON %s", d.r.Kind())
		}
		out = append(out, d.r.ReadString())
		return nil
	})
	return out, err
}

// list reads an array whose entries are variable names or numbers (null
// is an empty list).
func (d *decoder) list(field string) (jsonList, error) {
	l := jsonList{set: true}
	switch d.r.Peek() {
	case '[':
	case 'n':
		d.r.Skip()
		return l, nil
	default:
		return l, d.fail(field, "want an array of variable names and numbers, got JSON %s", d.r.Kind())
	}
	err := d.r.Array(func(i int) error {
		l.items = append(l.items, d.value())
		return nil
	})
	return l, err
}

// stringTensor is the tensor of every string value: no numbers, and the
// fault of a string where numbers belong. It is shared and never written.
var stringTensor = &jsonread.Tensor{Src: []byte(`""`), Depth: -1, NumAt: -1,
	Fault: &jsonread.TensorFault{Kind: jsonread.TensorValue}}

// value reads a field of numbers or a variable's name.
func (d *decoder) value() jsonValue {
	v := jsonValue{set: true}
	if d.r.Peek() == '"' {
		v.name = d.slab.name(d.r.ReadString())
		v.t = stringTensor
		return v
	}
	if v.t = d.slab.number(d.r, true); v.t == nil {
		v.t = d.r.ReadTensor(-1)
	}
	return v
}

func (d *decoder) variable(i int) (varSpec, error) {
	var vs varSpec
	field := d.names.indexed("variables", i)
	if d.null() {
		return vs, nil
	}
	observedAt := -1
	err := d.object(field, varFields, func(k int) error {
		var err error
		switch k {
		case 0:
			vs.Name, err = d.strOf(field, "name")
		case 1:
			vs.Family, err = d.word(field, "family")
		case 2:
			vs.Shape, err = d.ints(field + ".shape")
		case 3:
			// Read once "size" is known, which may come later.
			if !d.null() {
				observedAt = d.r.Pos
				d.r.Skip()
			}
		case 4:
			vs.Size, err = d.size(field + ".size")
		case 5:
			vs.Dim = d.value()
		}
		return err
	})
	if err == nil && observedAt >= 0 {
		end := d.r.Pos
		d.r.Pos = observedAt
		if vs.Size != nil {
			vs.ObservedArr = d.observedArray(len(vs.Size))
		} else {
			if vs.Observed = d.slab.number(d.r, false); vs.Observed == nil {
				vs.Observed = d.r.ReadTensor(-1)
			}
		}
		d.r.Pos = end
	}
	return vs, err
}

// ints reads an array of whole numbers (null is nil).
func (d *decoder) ints(field string) ([]int, error) {
	switch d.r.Peek() {
	case '[':
	case 'n':
		d.r.Skip()
		return nil, nil
	default:
		return nil, d.fail(field, "want an array, got JSON %s", d.r.Kind())
	}
	out := []int{}
	err := d.r.Array(func(i int) error {
		sub := fmt.Sprintf("%s[%d]", field, i)
		if c := d.r.Peek(); c != '-' && (c < '0' || c > '9') {
			return d.fail(sub, "want a number, got JSON %s", d.r.Kind())
		}
		lit := d.r.ReadNumber()
		n, ok := jsonread.Int(lit)
		if !ok {
			return d.fail(sub, "want a whole number, got JSON number %s", shorten(string(lit)))
		}
		out = append(out, n)
		return nil
	})
	return out, err
}

func (d *decoder) factor(i int, fs *factorSpec) error {
	field := d.names.indexed("factors", i)
	if d.null() {
		return nil
	}
	err := d.object(field, factorFields, func(k int) error {
		key := factorFields[k]
		sub := func() string { return field + "." + key } // the field's name, made for the fields that need it
		var err error
		switch k {
		case 0:
			fs.Node, err = d.word(field, key)
		case 1:
			fs.Name, err = d.strOf(field, key)
		case 2:
			fs.Out, err = d.strOf(field, key)
		case 3:
			fs.In, err = d.strs(sub())
		case 4:
			fs.P = d.value()
		case 5:
			fs.Matrix = d.value()
		case 6:
			fs.Alpha = d.value()
		case 7:
			fs.Shape = d.value()
		case 8:
			fs.Rate = d.value()
		case 9:
			if c := d.r.Peek(); c == '"' || c == 'n' {
				fs.Precision, err = d.strOf(field, key)
			} else {
				fs.PrecisionNum = d.value()
			}
		case 10:
			fs.Values = d.value()
		case 11:
			fs.Update, err = d.strOf(field, key)
		case 12:
			fs.Mean.set = true
			if d.r.Peek() != '{' {
				fs.Mean.v = d.value()
				break
			}
			fs.Mean.obj = true
			err = d.object(sub(), meanFields, func(k int) error {
				var err error
				switch k {
				case 0:
					fs.Mean.of, err = d.str(sub() + ".of")
				case 1:
					fs.Mean.scale = d.value()
				case 2:
					fs.Mean.offset = d.value()
				case 3:
					fs.Mean.sum, err = d.sum(sub() + ".sum")
				case 4:
					fs.Mean.matrix = d.value()
				case 5:
					fs.Mean.dot, err = d.dot(sub() + ".dot")
				}
				return err
			})
		case 13:
			fs.Switch, err = d.strOf(field, key)
		case 14:
			fs.Means, err = d.list(sub())
		case 15:
			fs.Precisions, err = d.list(sub())
		case 16:
			fs.For, err = d.loops(sub())
		case 17:
			fs.DF = d.value()
		case 18:
			fs.Scale = d.value()
		case 19:
			fs.A = d.value()
		case 20:
			fs.B = d.value()
		case 21:
			fs.Covariance = d.value()
		}
		return err
	})
	return err
}

func (d *decoder) settings() (*settingsSpec, error) {
	if d.null() {
		return nil, nil
	}
	if d.r.Peek() != '{' {
		return nil, d.fail("settings", "want a JSON object, got JSON %s", d.r.Kind())
	}
	ss := &settingsSpec{}
	err := d.object("settings", settingsFields, func(k int) error {
		sub := "settings." + settingsFields[k]
		switch k {
		case 0:
			ss.Iterations = d.value()
		case 1:
			ss.Tolerance = d.value()
		case 2:
			if d.null() {
				return nil
			}
			s, err := d.str(sub)
			ss.Method = &s
			return err
		case 3:
			switch d.r.Peek() {
			case 't', 'f':
				b := d.r.Peek() == 't'
				d.r.Skip()
				ss.Loopy = &b
			case 'n':
				d.r.Skip()
			default:
				return d.fail(sub, "want a boolean, got JSON %s", d.r.Kind())
			}
		case 4:
			ss.Damping = d.value()
		case 5:
			ss.ParamTolerance = d.value()
		}
		return nil
	})
	return ss, err
}
