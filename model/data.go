package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/internal/jsonread"
	"github.com/arbor-ai/arbor/schedule"
)

// Evidence is the observed value of a variable. For a categorical
// variable: an outcome index, or (Probs non-nil) a probability vector, soft
// evidence. For a normal variable: Value, a real number. A number read
// from a file or a data line sets Value, and Index too when it is a whole
// number >= 0. Index -1 with Probs and Value nil means no evidence.
type Evidence struct {
	Index int
	Probs []float64 // a probability vector, or an mvnormal variable's value

	Value *float64

	// Elements is the value of an array variable named whole in a data
	// set (Model.ReadData): its elements' values, nil for an element left
	// hidden.
	Elements *Observations
}

// Data is one data set: evidence by variable name. A variable a data set
// does not name keeps the model file's observed value (or stays hidden).
type Data map[string]Evidence

// ParseData decodes one data set, a JSON object from variable name to an
// outcome index, a probability vector or (for a normal variable) a number:
// {"o0": 1, "o5": [0.2, 0.5, 0.3], "rt": 0.412}; null (Evidence with Index
// -1, no Probs and no Value) leaves the variable hidden for the data set,
// whether or not the model file observes it.
// where names the input in errors ("data.jsonl:3"). A name given twice is
// an error.
func ParseData(where string, line []byte) (Data, error) {
	bad := func(err error) error { return &Error{File: where, Err: err} }
	const want = "want a JSON object from variable names to observed values"
	switch fault, _ := jsonread.Check(line); fault {
	case jsonread.Valid:
	case jsonread.Empty:
		return nil, apiError(bad(fmt.Errorf("%s: %v", want, io.EOF)))
	case jsonread.Truncated:
		return nil, apiError(bad(fmt.Errorf("%s: %v", want, io.ErrUnexpectedEOF)))
	case jsonread.Trailing:
		return nil, apiError(bad(errors.New("trailing data after the JSON object")))
	default:
		var v struct{}
		return nil, apiError(bad(fmt.Errorf("%s: %v", want, json.Unmarshal(line, &v))))
	}
	r := &jsonread.Reader{Data: line}
	switch r.Peek() {
	case '{':
	case 'n':
		return nil, apiError(bad(errors.New("want a JSON object, got null")))
	default:
		return nil, apiError(bad(fmt.Errorf("%s, got JSON %s", want, r.Kind())))
	}
	d := Data{}
	faults := map[string]error{} // the fault of each name, reported in sorted order
	seen := map[string]bool{}
	err := r.Object(func(name string, _ int) error {
		if seen[name] {
			return bad(fmt.Errorf("duplicate key %q", shortName(name)))
		}
		seen[name] = true
		switch c := r.Peek(); {
		case c == '-' || '0' <= c && c <= '9':
			lit := r.ReadNumber()
			x, ok := jsonread.Float(lit)
			switch {
			case !ok:
				faults[name] = fmt.Errorf("%s is not a finite number (want an outcome index, a probability vector or a number)", shorten(string(lit)))
			case x != math.Trunc(x) || x < 0 || x > 1<<31:
				// Not an index: a normal variable's value (CheckData
				// refuses it for a categorical one).
				d[name] = Evidence{Index: -1, Value: &x}
			default:
				d[name] = Evidence{Index: int(x), Value: &x}
			}
		case c == '[':
			start := r.Pos
			t := r.ReadTensor(1)
			if t.Fault != nil {
				faults[name] = errors.New("want an outcome index or a probability vector")
				r.Pos = start
				r.Skip()
				break
			}
			probs := t.Data
			if probs == nil {
				probs = []float64{} // [] is a vector of no probabilities
			}
			d[name] = Evidence{Index: -1, Probs: probs}
		case c == 'n' && r.Kind() == "null":
			// null: the variable is hidden for this data set, whatever
			// the model file observes (Infer unobserves it).
			r.Skip()
			d[name] = Evidence{Index: -1}
		default:
			kind := r.Kind()
			r.Skip()
			faults[name] = fmt.Errorf("want a number (a normal variable's value), an outcome index or a probability vector (a categorical variable's), got JSON %s", kind)
		}
		return nil
	})
	if err != nil {
		return nil, apiError(err)
	}
	if len(faults) > 0 {
		names := make([]string, 0, len(faults))
		for k := range faults {
			names = append(names, k)
		}
		sort.Strings(names)
		return nil, apiError(&Error{File: where, Field: fmt.Sprintf("%q", shortName(names[0])), Err: faults[names[0]]})
	}
	return d, nil
}

func shortName(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// CheckData validates d against the model: every name a categorical
// variable with an index in range or a distribution of the variable's
// size, or a normal variable with a finite number; or an array variable
// named whole (ReadData) with its elements' values. Errors name where,
// the variable and the fault; a model that was not built (nil or zero) is
// an error too.
func (m *Model) CheckData(where string, d Data) error {
	if err := m.built("CheckData"); err != nil {
		return apiError(err)
	}
	_, err := m.checkData(where, d)
	return apiError(err)
}

// checkData is CheckData of a built model; it returns the sizes d's arrays
// set (checkArrays).
func (m *Model) checkData(where string, d Data) (map[string]int, error) {
	sizes, err := m.checkArrays(where, d)
	if err != nil {
		return nil, err
	}
	for _, name := range sortedNames(d) {
		if m.isArray(name) {
			continue // checked by checkArrays
		}
		ev := d[name]
		field := fmt.Sprintf("%q", shortName(name))
		v, ok := m.Graph.Variable(name)
		if !ok {
			return nil, &Error{File: where, Field: field, Err: errors.New("no variable of that name in the model")}
		}
		if err := checkEvidence(v.Family(), evidenceSize(v), ev); err != nil {
			return nil, &Error{File: where, Field: field, Err: err}
		}
	}
	return sizes, nil
}

// checkEvidence checks ev as the value of a variable of family fam (with k
// outcomes, for a categorical one; of dimension k, for an mvnormal one).
// No evidence at all (null in a data set: Index -1, no Value, no Probs)
// leaves any variable hidden.
func checkEvidence(fam expfam.Family, k int, ev Evidence) error {
	if ev.Index < 0 && ev.Value == nil && ev.Probs == nil && ev.Elements == nil {
		return nil
	}
	if fam == expfam.MvNormalFamily {
		return checkVectorEvidence(k, ev)
	}
	if fam == expfam.NormalFamily {
		if ev.Value == nil {
			return errors.New("want a number (the value of a normal variable)")
		}
		if err := expfam.ValidateValue(*ev.Value); err != nil {
			return fmt.Errorf("%v", trimPrefix(err))
		}
		return nil
	}
	if fam != expfam.CategoricalFamily {
		return fmt.Errorf("a %s variable cannot be observed (only categorical, normal and mvnormal ones)", fam)
	}
	if ev.Probs == nil {
		if ev.Index < 0 && ev.Value != nil {
			return fmt.Errorf("%v, want an outcome index (a whole number >= 0) or a probability vector", *ev.Value)
		}
		if ev.Index < 0 || ev.Index >= k {
			return fmt.Errorf("index %d out of range [0, %d)", ev.Index, k)
		}
		return nil
	}
	if len(ev.Probs) != k {
		return fmt.Errorf("%d probabilities, want %d (the variable's size)", len(ev.Probs), k)
	}
	if err := expfam.ValidateDistribution(ev.Probs, 1e-6); err != nil {
		return fmt.Errorf("%v", trimPrefix(err))
	}
	return nil
}

// built returns an error, for method, when m is not a model made by Load,
// Parse, FromSpec or Builder.Build (or its Variables were replaced).
func (m *Model) built(method string) error {
	switch {
	case m == nil:
		return fmt.Errorf("model: %s of a nil *Model (make one with Load, Parse, FromSpec or Builder.Build)", method)
	case m.Graph == nil:
		return fmt.Errorf("model: %s of a model without a graph (make one with Load, Parse, FromSpec or Builder.Build)", method)
	case len(m.Variables) != len(m.evidence.at):
		return fmt.Errorf("model: %s: the model has %d variables, %d when it was built (Variables must not be replaced)", method, len(m.Variables), len(m.evidence.at))
	}
	return nil
}

func sortedNames(d Data) []string {
	names := make([]string, 0, len(d))
	for k := range d {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Infer runs the model on one data set without rebuilding its graph:
// every variable gets back the model file's observed value, the data's
// evidence is clamped on top, every hidden posterior is reset to where a
// fresh build starts it (ffg.Graph.ResetPosteriors), and inference runs
// with the model's settings. The result equals that of a fresh build of
// the file with those observed values. where names the data set in errors
// ("data.jsonl:3"); a data set that does not fit the model changes
// nothing. A model that was not built (nil or zero, see Model) is an
// error, and a nil ctx is context.Background() (schedule.Run).
//
// A data set that gives an array variable whole (ReadData) observes its
// elements, null hiding one; when its length sets a size other than the
// file's, the model is built again with that size and m's Graph,
// Variables and Factors become that build's until a data set at the
// file's sizes gives the file's build back.
//
// A Model is not safe for concurrent use: a run writes its posteriors
// into the model's variables, where Output and WriteOutput read them, so
// two runs on one model would mix their results. Infer called while
// another Infer on m is running returns an error instead of running (a
// *ConcurrentUseError); to run data sets in parallel, give each goroutine
// its own Model (Load, Parse or FromSpec again), and read each run's
// posteriors before the next run on that model.
func (m *Model) Infer(ctx context.Context, where string, d Data) (*schedule.Result, error) {
	if err := m.built("Infer"); err != nil {
		return nil, apiError(err)
	}
	if !m.running.CompareAndSwap(false, true) {
		return nil, apiError(&ConcurrentUseError{Model: m.Name})
	}
	defer m.running.Store(false)
	sizes, err := m.checkData(where, d)
	if err != nil {
		return nil, apiError(err)
	}
	// Arrays named whole (dataarrays.go): the sizes they set, and their
	// elements' values.
	over, err := m.useArrays(where, d, sizes)
	if err != nil {
		return nil, apiError(err)
	}
	for i, v := range m.Variables {
		ev := m.evidence.get(i)
		if over != nil && over[i] != nil {
			ev = *over[i]
		} else if e, ok := d[v.Name()]; ok {
			ev = e
		}
		var err error
		switch {
		case v.Family() == expfam.NormalFamily && ev.Value != nil:
			err = v.ObserveValue(*ev.Value)
		case v.Family() == expfam.MvNormalFamily && ev.Probs != nil:
			err = v.ObserveVector(ev.Probs)
		case ev.Probs != nil:
			err = v.ObserveSoft(ev.Probs)
		case ev.Index >= 0:
			err = v.Observe(ev.Index)
		default:
			if v.Observed() {
				v.Unobserve()
			}
		}
		if err != nil {
			return nil, apiError(&Error{File: where, Field: fmt.Sprintf("%q", shortName(v.Name())), Err: err})
		}
	}
	if err := m.Graph.ResetPosteriors(); err != nil {
		return nil, apiError(m.RunError(err))
	}
	res, err := schedule.Run(ctx, m.Graph, &m.Settings)
	if err != nil {
		return res, apiError(m.RunError(err))
	}
	return res, nil
}

// fileEvidence holds the file's observed value of each variable of a
// model, in the order of Model.Variables: only the variables with one
// keep an Evidence, so that the 2·10^5 elements of a long model set by
// its data cost 4 bytes each here, not an Evidence.
type fileEvidence struct {
	at []int32    // per variable: its index in ev, or -1 for none
	ev []Evidence // the values given
}

// add appends the evidence of the next variable.
func (f *fileEvidence) add(ev Evidence) {
	if ev.Index < 0 && ev.Probs == nil && ev.Value == nil && ev.Elements == nil {
		f.at = append(f.at, -1)
		return
	}
	f.at = append(f.at, int32(len(f.ev)))
	f.ev = append(f.ev, ev)
}

// get returns the evidence of variable i (Index -1: none).
func (f *fileEvidence) get(i int) Evidence {
	if k := f.at[i]; k >= 0 {
		return f.ev[k]
	}
	return Evidence{Index: -1}
}

// ConcurrentUseError is Infer's error when another Infer on the same Model
// is running (a Model is not safe for concurrent use).
type ConcurrentUseError struct{ Model string }

func (e *ConcurrentUseError) Error() string {
	return fmt.Sprintf("model: %s: Infer called while another Infer on the same Model is running; a Model is not safe for concurrent use (give each goroutine its own Model)", e.Model)
}
