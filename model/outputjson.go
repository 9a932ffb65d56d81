package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/schedule"
)

// The JSON of `arbor infer --json` (docs/formats.md), written by hand so
// that an array of 10^5 elements streams out without a map of its
// elements' names: the bytes are encoding/json's for the same values
// (numbers in full precision, keys sorted, HTML characters escaped), an
// array variable's elements written as nested JSON arrays under its name.

// MarshalJSON writes o as `arbor infer --json` does: each array of Arrays
// as the nested arrays of its elements' posteriors under its name (null
// for an observed element), in place of its elements' entries of
// Posteriors.
func (o InferOutput) MarshalJSON() ([]byte, error) {
	w := &jsonWriter{}
	w.header(o.Iterations, o.Converged, o.FreeEnergy)
	if o.Posteriors == nil && o.Arrays == nil {
		w.b = append(w.b, "null}"...)
		return w.b, apiError(w.err)
	}
	type entry struct {
		name  string
		array *ArrayPosterior
	}
	entries := make([]entry, 0, len(o.Posteriors)+len(o.Arrays))
	for name := range o.Posteriors {
		if _, ok := o.Arrays[name]; ok || o.isElement(name) {
			continue
		}
		entries = append(entries, entry{name: name})
	}
	for name, a := range o.Arrays {
		entries = append(entries, entry{name: name, array: &a})
	}
	slices.SortFunc(entries, func(x, y entry) int { return strings.Compare(x.name, y.name) })
	w.b = append(w.b, '{')
	for i, e := range entries {
		w.key(i, e.name)
		if e.array == nil {
			p := o.Posteriors[e.name]
			w.posterior(&p)
			continue
		}
		a := e.array
		n := 1
		for _, d := range a.Size {
			n *= d
		}
		if n != len(a.Elements) {
			return nil, fmt.Errorf("model: InferOutput.Arrays[%q]: %d elements for the size %v", e.name, len(a.Elements), a.Size)
		}
		k := 0
		w.nested(a.Size, func() {
			if p := a.Elements[k]; p == nil {
				w.b = append(w.b, "null"...)
			} else {
				w.posterior(p)
			}
			k++
		})
	}
	w.b = append(w.b, "}}"...)
	if w.err != nil {
		return nil, apiError(w.err)
	}
	return w.b, nil
}

// isElement reports whether name is "a[...]" for an array a of o.Arrays.
func (o InferOutput) isElement(name string) bool {
	i := strings.IndexByte(name, '[')
	if i <= 0 || !strings.HasSuffix(name, "]") || len(o.Arrays) == 0 {
		return false
	}
	_, ok := o.Arrays[name[:i]]
	return ok
}

// WriteOutput writes the JSON of m.Output(res) to w, then a newline (the
// line of `arbor infer --json`), without assembling the output: the bytes
// of json.Marshal(m.Output(res)), streamed. A number that JSON cannot
// hold (NaN, ±Inf) is an error, as for json.Marshal.
func (m *Model) WriteOutput(w io.Writer, res *schedule.Result) error {
	if res == nil {
		res = &schedule.Result{}
	}
	j := &jsonWriter{w: w}
	fe := res.FreeEnergy
	if fe == nil {
		fe = []float64{}
	}
	j.header(res.Iterations, res.Converged, fe)
	j.b = append(j.b, '{')
	if m != nil {
		// The entries: every hidden scalar variable, and every listed
		// array, sorted by name; no element of an array is named.
		type entry struct {
			name  string
			v     *ffg.Variable
			array *ArrayVariable
		}
		arrays := m.Arrays()
		count := len(m.Variables) // an array's elements are one entry
		for _, a := range arrays {
			count -= len(a.Elements) - 1
		}
		entries := make([]entry, 0, max(count, 0))
		for i, a := 0, 0; i < len(m.Variables) || a < len(arrays); {
			if a < len(arrays) && arrays[a].First <= i {
				if arrays[a].Listed() {
					entries = append(entries, entry{name: arrays[a].Name, array: &arrays[a]})
				}
				i = arrays[a].First + len(arrays[a].Elements)
				a++
				continue
			}
			if v := m.Variables[i]; !v.Observed() {
				entries = append(entries, entry{name: v.Name(), v: v})
			}
			i++
		}
		slices.SortFunc(entries, func(x, y entry) int { return strings.Compare(x.name, y.name) })
		var n expfam.Normal // a scalar posterior's numbers, written before the next
		var g expfam.Gamma
		for i, e := range entries {
			j.key(i, e.name)
			if e.array == nil {
				p := posteriorOf(e.v, &n, &g)
				j.posterior(&p)
				j.flush(false)
				continue
			}
			k := 0
			j.nested(e.array.Size, func() {
				switch v := e.array.Elements[k]; {
				case v.Observed():
					j.b = append(j.b, "null"...)
				case v.Family() == expfam.MvNormalFamily:
					j.mvNormal(v.MvNormal())
				default:
					p := posteriorOf(v, &n, &g)
					j.posterior(&p)
				}
				k++
				j.flush(false)
			})
		}
	}
	j.b = append(j.b, "}}\n"...)
	j.flush(true)
	return apiError(j.err)
}

// jsonWriter appends JSON to b, writing it to w (when not nil) in chunks;
// err is the first fault, after which nothing is written.
type jsonWriter struct {
	b   []byte
	w   io.Writer
	err error
}

// flush writes b to w when it holds a chunk, or when all.
func (j *jsonWriter) flush(all bool) {
	if j.w == nil || j.err != nil || (!all && len(j.b) < 64<<10) {
		return
	}
	_, j.err = j.w.Write(j.b)
	j.b = j.b[:0]
}

// header writes `{"iterations":N,"converged":B,"free_energy":[...],"posteriors":`.
func (j *jsonWriter) header(iterations int, converged bool, fe []float64) {
	j.b = append(j.b, `{"iterations":`...)
	j.b = strconv.AppendInt(j.b, int64(iterations), 10)
	j.b = append(j.b, `,"converged":`...)
	j.b = strconv.AppendBool(j.b, converged)
	j.b = append(j.b, `,"free_energy":`...)
	if fe == nil {
		j.b = append(j.b, "null"...)
	} else {
		j.floats(fe)
	}
	j.b = append(j.b, `,"posteriors":`...)
}

// key writes the i-th key of an object.
func (j *jsonWriter) key(i int, name string) {
	if i > 0 {
		j.b = append(j.b, ',')
	}
	j.str(name)
	j.b = append(j.b, ':')
}

// nested writes the nested arrays of size, calling elem for each element
// in index order.
func (j *jsonWriter) nested(size []int, elem func()) {
	j.b = append(j.b, '[')
	if len(size) > 0 {
		for i := range size[0] {
			if i > 0 {
				j.b = append(j.b, ',')
			}
			if len(size) == 1 {
				elem()
			} else {
				j.nested(size[1:], elem)
			}
		}
	}
	j.b = append(j.b, ']')
}

// posterior writes p as encoding/json writes a Posterior.
func (j *jsonWriter) posterior(p *Posterior) {
	j.b = append(j.b, `{"family":`...)
	j.str(p.Family)
	if len(p.P) > 0 {
		j.b = append(j.b, `,"p":`...)
		j.floats(p.P)
	}
	if p.Alpha != nil {
		j.b = append(j.b, `,"alpha":`...)
		j.value(p.Alpha)
	}
	for _, f := range []struct {
		key string
		x   *float64
	}{{`,"shape":`, p.Shape}, {`,"rate":`, p.Rate}, {`,"mean":`, p.Mean}, {`,"variance":`, p.Variance}} {
		if f.x != nil {
			j.b = append(j.b, f.key...)
			j.float(*f.x)
		}
	}
	j.mvFields(p)
	j.b = append(j.b, '}')
}

// value writes a number, a []float64 or nested []any of them, any other
// value as encoding/json does.
func (j *jsonWriter) value(x any) {
	switch v := x.(type) {
	case float64:
		j.float(v)
	case []float64:
		if v == nil {
			j.b = append(j.b, "null"...)
			return
		}
		j.floats(v)
	case []any:
		if v == nil {
			j.b = append(j.b, "null"...)
			return
		}
		j.b = append(j.b, '[')
		for i, e := range v {
			if i > 0 {
				j.b = append(j.b, ',')
			}
			j.value(e)
		}
		j.b = append(j.b, ']')
	default:
		b, err := json.Marshal(v)
		if err != nil && j.err == nil {
			j.err = err
		}
		j.b = append(j.b, b...)
	}
}

func (j *jsonWriter) floats(xs []float64) {
	j.b = append(j.b, '[')
	for i, x := range xs {
		if i > 0 {
			j.b = append(j.b, ',')
		}
		j.float(x)
	}
	j.b = append(j.b, ']')
}

// float writes x as encoding/json does: the shortest decimal that reads
// back, in exponent form below 1e-6 or from 1e21 (e-7, not e-07).
func (j *jsonWriter) float(x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		if j.err == nil {
			j.err = &json.UnsupportedValueError{Str: strconv.FormatFloat(x, 'g', -1, 64)}
		}
		j.b = append(j.b, '0')
		return
	}
	format := byte('f')
	if a := math.Abs(x); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	j.b = strconv.AppendFloat(j.b, x, format, -1, 64)
	if n := len(j.b); format == 'e' && n >= 4 && j.b[n-4] == 'e' && j.b[n-3] == '-' && j.b[n-2] == '0' {
		j.b[n-2] = j.b[n-1]
		j.b = j.b[:n-1]
	}
}

// str writes s as a JSON string, as encoding/json does (HTML characters
// escaped).
func (j *jsonWriter) str(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			j.b = append(j.b, b...)
			return
		}
	}
	j.b = append(j.b, '"')
	j.b = append(j.b, s...)
	j.b = append(j.b, '"')
}

// UnmarshalJSON reads the JSON of `arbor infer --json`: an entry of
// "posteriors" that is an array is an array variable, read into Arrays,
// and each of its non-null elements into Posteriors under its name
// ("x[3]", "x[1,2]"). Other fields read as encoding/json reads them.
func (o *InferOutput) UnmarshalJSON(data []byte) error {
	aux := struct {
		Iterations int                        `json:"iterations"`
		Converged  bool                       `json:"converged"`
		FreeEnergy []float64                  `json:"free_energy"`
		Posteriors map[string]json.RawMessage `json:"posteriors"`
	}{o.Iterations, o.Converged, o.FreeEnergy, nil}
	if err := json.Unmarshal(data, &aux); err != nil {
		return apiError(err)
	}
	o.Iterations, o.Converged, o.FreeEnergy = aux.Iterations, aux.Converged, aux.FreeEnergy
	if aux.Posteriors == nil {
		return nil
	}
	if o.Posteriors == nil {
		o.Posteriors = map[string]Posterior{}
	}
	for name, raw := range aux.Posteriors {
		raw = bytes.TrimLeft(raw, " \t\r\n")
		if len(raw) == 0 || raw[0] != '[' {
			var p Posterior
			if err := json.Unmarshal(raw, &p); err != nil {
				return apiError(err)
			}
			o.Posteriors[name] = p
			continue
		}
		a, err := readArray(name, raw)
		if err != nil {
			return apiError(err)
		}
		if o.Arrays == nil {
			o.Arrays = map[string]ArrayPosterior{}
		}
		o.Arrays[name] = a
		idx := make([]int, len(a.Size))
		for _, p := range a.Elements {
			if p != nil {
				o.Posteriors[elementName(name, idx)] = *p
			}
			for d := len(idx) - 1; d >= 0; d-- {
				if idx[d]++; idx[d] < a.Size[d] {
					break
				}
				idx[d] = 0
			}
		}
	}
	return nil
}

// readArray reads the nested arrays of an array variable's posteriors:
// rectangular, each element an object or null.
func readArray(name string, raw []byte) (ArrayPosterior, error) {
	var a ArrayPosterior
	depth := -1 // the depth of the elements, once one is seen
	var walk func(raw json.RawMessage, d int) error
	walk = func(raw json.RawMessage, d int) error {
		raw = bytes.TrimLeft(raw, " \t\r\n")
		if len(raw) > 0 && raw[0] == '[' {
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return err
			}
			switch {
			case d == len(a.Size) && (depth < 0 || d < depth):
				a.Size = append(a.Size, len(items))
			case d >= len(a.Size) || a.Size[d] != len(items):
				return fmt.Errorf("model: posteriors.%s: not a rectangular array of posteriors", name)
			}
			for _, item := range items {
				if err := walk(item, d+1); err != nil {
					return err
				}
			}
			return nil
		}
		if depth < 0 {
			depth = d
		}
		if d != depth || d != len(a.Size) {
			return fmt.Errorf("model: posteriors.%s: not a rectangular array of posteriors", name)
		}
		if string(raw) == "null" {
			a.Elements = append(a.Elements, nil)
			return nil
		}
		p := new(Posterior)
		if err := json.Unmarshal(raw, p); err != nil {
			return err
		}
		a.Elements = append(a.Elements, p)
		return nil
	}
	if err := walk(raw, 0); err != nil {
		return ArrayPosterior{}, err
	}
	n := 1
	for _, s := range a.Size {
		n *= s
	}
	if n != len(a.Elements) {
		return ArrayPosterior{}, fmt.Errorf("model: posteriors.%s: not a rectangular array of posteriors", name)
	}
	if a.Elements == nil {
		a.Elements = []*Posterior{}
	}
	return a, nil
}

// elementName is "x[i]" or "x[i,j]".
func elementName(name string, idx []int) string {
	b := append(make([]byte, 0, len(name)+8), name...)
	b = append(b, '[')
	for j, i := range idx {
		if j > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(i), 10)
	}
	return string(append(b, ']'))
}
